"""A reviewer's optional reason stored with a reject or unsure decision

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-12 10:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('decisions') as batch:
        batch.add_column(sa.Column('reason', sa.String(length=2000), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('decisions') as batch:
        batch.drop_column('reason')

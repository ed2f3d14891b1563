"""Login sessions: last use and "remember me", for the idle limits (issue 38 §2)

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-10 10:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('login_sessions') as batch:
        batch.add_column(sa.Column('last_seen_at', sa.DateTime(), nullable=True))
        batch.add_column(sa.Column('remember', sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('login_sessions') as batch:
        batch.drop_column('remember')
        batch.drop_column('last_seen_at')

"""the release rule (issue 36): retired second-look items, the merge policy per project and language

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28 11:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('assignment_items') as batch:
        batch.add_column(sa.Column('retired_at', sa.DateTime(), nullable=True))
    with op.batch_alter_table('languages') as batch:
        batch.add_column(sa.Column('merge_policy', sa.String(length=10), nullable=True))
    op.create_table(
        'project_settings',
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('value', sa.String(length=200), nullable=False),
        sa.Column('updated_by', sa.Integer(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['updated_by'], ['users.id']),
        sa.PrimaryKeyConstraint('key'),
    )


def downgrade() -> None:
    op.drop_table('project_settings')
    with op.batch_alter_table('languages') as batch:
        batch.drop_column('merge_policy')
    with op.batch_alter_table('assignment_items') as batch:
        batch.drop_column('retired_at')

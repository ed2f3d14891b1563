"""Password-reset requests made in the app where it sends no e-mail ("Forgot password?" without
SMTP): the maintainers of the account's languages see them and answer with a reset link

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-13 10:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'reset_requests',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('note', sa.String(length=500), nullable=False),
        sa.Column('asked_at', sa.DateTime(), nullable=False),
        sa.Column('closed_at', sa.DateTime(), nullable=True),
        sa.Column('closed_by', sa.Integer(), nullable=True),
        sa.Column('outcome', sa.String(length=10), nullable=True),
        sa.ForeignKeyConstraint(['closed_by'], ['users.id']),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_reset_requests_user_id', 'reset_requests', ['user_id'])


def downgrade() -> None:
    op.drop_index('ix_reset_requests_user_id', table_name='reset_requests')
    op.drop_table('reset_requests')

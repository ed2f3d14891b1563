"""login sessions: one row per sign-in, so that sign-out and a password change revoke cookies

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 10:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'login_sessions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('revoked_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token_hash'),
    )
    op.create_index('ix_login_sessions_user_id', 'login_sessions', ['user_id'])


def downgrade() -> None:
    op.drop_index('ix_login_sessions_user_id', table_name='login_sessions')
    op.drop_table('login_sessions')

"""@mentions in comment threads (issue 37 §5): who was mentioned in which comment, read and mailed

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02 10:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'mentions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('comment_id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('read_at', sa.DateTime(), nullable=True),
        sa.Column('mailed_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['comment_id'], ['comments.id']),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('comment_id', 'user_id'),
    )
    op.create_index('ix_mentions_user_read', 'mentions', ['user_id', 'read_at'])


def downgrade() -> None:
    op.drop_index('ix_mentions_user_read', table_name='mentions')
    op.drop_table('mentions')

"""reviewer context languages: the languages a reviewer sees beside each review item

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24 16:30:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'context_languages',
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('language', sa.String(length=32), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['language'], ['languages.code']),
        sa.PrimaryKeyConstraint('user_id', 'language'),
    )


def downgrade() -> None:
    op.drop_table('context_languages')

"""glossary: each language's English terms and preferred translations

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24 16:30:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'glossary_terms',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('language', sa.String(length=32), nullable=False),
        sa.Column('term', sa.String(length=200), nullable=False),
        sa.Column('term_key', sa.String(length=200), nullable=False),
        sa.Column('translation', sa.String(length=200), nullable=False),
        sa.Column('note', sa.String(length=500), nullable=False),
        sa.Column('updated_by', sa.Integer(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['language'], ['languages.code']),
        sa.ForeignKeyConstraint(['updated_by'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('language', 'term_key'),
    )


def downgrade() -> None:
    op.drop_table('glossary_terms')

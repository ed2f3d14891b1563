"""X-FACTR's native-speaker prompts per language and relation (issue 39 §2: `curator ingest
xfactr`), candidates of a source of their own

Revision ID: 0017
Revises: 0015
Create Date: 2026-12-06 10:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0017'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'xfactr_templates',
        sa.Column('language', sa.String(length=32), nullable=False),
        sa.Column('relation_id', sa.String(length=32), nullable=False),
        sa.Column('template', sa.String(length=2000), nullable=False),
        sa.Column('raw', sa.String(length=2000), nullable=False),
        sa.ForeignKeyConstraint(['language'], ['languages.code']),
        sa.ForeignKeyConstraint(['relation_id'], ['relations.id']),
        sa.PrimaryKeyConstraint('language', 'relation_id'),
    )


def downgrade() -> None:
    op.drop_table('xfactr_templates')

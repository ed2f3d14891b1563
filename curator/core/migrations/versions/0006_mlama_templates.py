"""mLAMA templates per language and relation (the mpararel rule profile adds them)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 02:10:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'mlama_templates',
        sa.Column('language', sa.String(length=32), nullable=False),
        sa.Column('relation_id', sa.String(length=32), nullable=False),
        sa.Column('template', sa.String(length=2000), nullable=False),
        sa.ForeignKeyConstraint(['language'], ['languages.code']),
        sa.ForeignKeyConstraint(['relation_id'], ['relations.id']),
        sa.PrimaryKeyConstraint('language', 'relation_id'),
    )


def downgrade() -> None:
    op.drop_table('mlama_templates')

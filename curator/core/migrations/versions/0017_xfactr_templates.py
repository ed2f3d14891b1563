"""X-FACTR's native-speaker prompts per language and relation (issue 39 §2: `curator ingest
xfactr`), candidates of a source of their own; a template's twin that differs from it only in
gendered forms (`curator signals gender-pairs`)

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06 10:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0017'
down_revision = '0016'
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
    with op.batch_alter_table('template_signals') as batch:
        batch.add_column(sa.Column('gender_twin', sa.String(length=2000), nullable=True))
        batch.add_column(sa.Column('gender_merged', sa.String(length=2000), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('template_signals') as batch:
        batch.drop_column('gender_merged')
        batch.drop_column('gender_twin')
    op.drop_table('xfactr_templates')

"""glossary keys (issue 38 §2): the folded translation and note, searched in SQL by the glossary
page, and each term's lead word, indexed for the review screen's per-item look-up

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-05 10:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    from curator.core.folding import fold, lead

    with op.batch_alter_table('glossary_terms') as batch:
        batch.add_column(sa.Column('translation_key', sa.Text(), nullable=False, server_default=''))
        batch.add_column(sa.Column('note_key', sa.Text(), nullable=False, server_default=''))
        batch.add_column(sa.Column('match_key', sa.Text(), nullable=False, server_default=''))
    op.create_index('ix_glossary_terms_match', 'glossary_terms', ['language', 'match_key'])
    bind = op.get_bind()
    table = sa.table(
        'glossary_terms',
        sa.column('id', sa.Integer()),
        sa.column('term', sa.String()),
        sa.column('translation', sa.String()),
        sa.column('note', sa.String()),
        sa.column('translation_key', sa.Text()),
        sa.column('note_key', sa.Text()),
        sa.column('match_key', sa.Text()),
    )
    rows = bind.execute(sa.select(table.c.id, table.c.term, table.c.translation, table.c.note)).all()
    for row in rows:
        bind.execute(
            table.update()
            .where(table.c.id == row.id)
            .values(translation_key=fold(row.translation), note_key=fold(row.note), match_key=lead(row.term))
        )


def downgrade() -> None:
    op.drop_index('ix_glossary_terms_match', table_name='glossary_terms')
    with op.batch_alter_table('glossary_terms') as batch:
        batch.drop_column('match_key')
        batch.drop_column('note_key')
        batch.drop_column('translation_key')

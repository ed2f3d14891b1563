"""review guidance: unsure decisions, comments, per-language guidelines, interface language,
guidelines seen per assignment, revocable invitations

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 10:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'comments',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('language', sa.String(length=32), nullable=False),
        sa.Column('relation_id', sa.String(length=32), nullable=False),
        sa.Column('template_id', sa.Integer(), nullable=True),
        sa.Column('text', sa.String(length=2000), nullable=False),
        sa.Column('source', sa.String(length=20), nullable=False),
        sa.Column('request_id', sa.String(length=64), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('retracted', sa.Boolean(), nullable=False),
        sa.Column('retracted_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.ForeignKeyConstraint(['language'], ['languages.code']),
        sa.ForeignKeyConstraint(['relation_id'], ['relations.id']),
        sa.ForeignKeyConstraint(['template_id'], ['templates.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('user_id', 'request_id'),
    )
    op.create_index('ix_comments_user_id', 'comments', ['user_id'])
    op.create_index('ix_comments_template_id', 'comments', ['template_id'])
    op.create_index('ix_comments_language_relation', 'comments', ['language', 'relation_id'])
    op.create_table(
        'guidelines',
        sa.Column('language', sa.String(length=32), nullable=False),
        sa.Column('text', sa.Text(), nullable=False),
        sa.Column('updated_by', sa.Integer(), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['language'], ['languages.code']),
        sa.ForeignKeyConstraint(['updated_by'], ['users.id']),
        sa.PrimaryKeyConstraint('language'),
    )
    with op.batch_alter_table('users') as batch:
        batch.add_column(sa.Column('locale', sa.String(length=16), nullable=True))
    with op.batch_alter_table('assignments') as batch:
        batch.add_column(sa.Column('guidelines_seen_at', sa.DateTime(), nullable=True))
    with op.batch_alter_table('invites') as batch:
        batch.add_column(sa.Column('revoked_at', sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('invites') as batch:
        batch.drop_column('revoked_at')
    with op.batch_alter_table('assignments') as batch:
        batch.drop_column('guidelines_seen_at')
    with op.batch_alter_table('users') as batch:
        batch.drop_column('locale')
    op.drop_table('guidelines')
    op.drop_index('ix_comments_language_relation', table_name='comments')
    op.drop_index('ix_comments_template_id', table_name='comments')
    op.drop_index('ix_comments_user_id', table_name='comments')
    op.drop_table('comments')

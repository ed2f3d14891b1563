"""maintainer oversight: trusted reviewers, unassigned languages, comment threads, proposal
reviews, resolutions, dropped lines, password resets and the activity log

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24 19:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('assignments') as batch:
        batch.add_column(sa.Column('trusted', sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column('unassigned_at', sa.DateTime(), nullable=True))
    with op.batch_alter_table('comments') as batch:
        batch.add_column(sa.Column('parent_id', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('resolved_at', sa.DateTime(), nullable=True))
        batch.add_column(sa.Column('resolved_by', sa.Integer(), nullable=True))
        batch.create_foreign_key('fk_comments_parent_id_comments', 'comments', ['parent_id'], ['id'])
        batch.create_foreign_key('fk_comments_resolved_by_users', 'users', ['resolved_by'], ['id'])
        batch.create_index('ix_comments_parent_id', ['parent_id'])
    op.create_table(
        'proposal_reviews',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('language', sa.String(length=32), nullable=False),
        sa.Column('relation_id', sa.String(length=32), nullable=False),
        sa.Column('text', sa.String(length=2000), nullable=False),
        sa.Column('verdict', sa.String(length=10), nullable=False),
        sa.Column('edited_from', sa.String(length=2000), nullable=True),
        sa.Column('edited_to', sa.String(length=2000), nullable=True),
        sa.Column('reason', sa.String(length=2000), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['language'], ['languages.code']),
        sa.ForeignKeyConstraint(['relation_id'], ['relations.id']),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_proposal_reviews_text', 'proposal_reviews', ['language', 'relation_id', 'text'])
    op.create_table(
        'resolutions',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('template_id', sa.Integer(), nullable=False),
        sa.Column('language', sa.String(length=32), nullable=False),
        sa.Column('relation_id', sa.String(length=32), nullable=False),
        sa.Column('verdict', sa.String(length=10), nullable=False),
        sa.Column('correction', sa.String(length=2000), nullable=True),
        sa.Column('reason', sa.String(length=2000), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('retracted', sa.Boolean(), nullable=False),
        sa.Column('retracted_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['language'], ['languages.code']),
        sa.ForeignKeyConstraint(['relation_id'], ['relations.id']),
        sa.ForeignKeyConstraint(['template_id'], ['templates.id']),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_resolutions_template_id', 'resolutions', ['template_id'])
    op.create_table(
        'line_drops',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('language', sa.String(length=32), nullable=False),
        sa.Column('relation_id', sa.String(length=32), nullable=False),
        sa.Column('pattern', sa.String(length=2000), nullable=False),
        sa.Column('reason', sa.String(length=2000), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('restored_at', sa.DateTime(), nullable=True),
        sa.Column('restored_by', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(['language'], ['languages.code']),
        sa.ForeignKeyConstraint(['relation_id'], ['relations.id']),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.ForeignKeyConstraint(['restored_by'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_line_drops_line', 'line_drops', ['language', 'relation_id', 'pattern'])
    op.create_table(
        'password_resets',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('created_by', sa.Integer(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('expires_at', sa.DateTime(), nullable=False),
        sa.Column('used_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['users.id']),
        sa.ForeignKeyConstraint(['created_by'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token_hash'),
    )
    op.create_index('ix_password_resets_user_id', 'password_resets', ['user_id'])
    op.create_table(
        'activity',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('actor_id', sa.Integer(), nullable=True),
        sa.Column('action', sa.String(length=40), nullable=False),
        sa.Column('language', sa.String(length=32), nullable=True),
        sa.Column('target', sa.String(length=500), nullable=False),
        sa.Column('details', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['actor_id'], ['users.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_activity_actor_id', 'activity', ['actor_id'])
    op.create_index('ix_activity_action', 'activity', ['action'])
    op.create_index('ix_activity_created_at', 'activity', ['created_at'])


def downgrade() -> None:
    op.drop_table('activity')
    op.drop_table('password_resets')
    op.drop_table('line_drops')
    op.drop_table('resolutions')
    op.drop_table('proposal_reviews')
    with op.batch_alter_table('comments') as batch:
        batch.drop_index('ix_comments_parent_id')
        batch.drop_constraint('fk_comments_resolved_by_users', type_='foreignkey')
        batch.drop_constraint('fk_comments_parent_id_comments', type_='foreignkey')
        batch.drop_column('resolved_by')
        batch.drop_column('resolved_at')
        batch.drop_column('parent_id')
    with op.batch_alter_table('assignments') as batch:
        batch.drop_column('unassigned_at')
        batch.drop_column('trusted')

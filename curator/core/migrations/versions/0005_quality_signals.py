"""quality signals per template; per-language review queue order

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22 22:40:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'template_signals',
        sa.Column('template_id', sa.Integer(), nullable=False),
        sa.Column('back_translation', sa.String(length=2000), nullable=True),
        sa.Column('english', sa.String(length=500), nullable=True),
        sa.Column('similarity', sa.Double(), nullable=True),
        sa.Column('similarity_model', sa.String(length=300), nullable=True),
        sa.Column('back_system', sa.String(length=300), nullable=True),
        sa.Column('agreement', sa.Double(), nullable=True),
        sa.Column('relation_agreement', sa.Double(), nullable=True),
        sa.Column('probe_run', sa.String(length=300), nullable=True),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['template_id'], ['templates.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('template_id'),
    )
    with op.batch_alter_table('languages', schema=None) as batch_op:
        batch_op.add_column(sa.Column('queue_order', sa.String(length=10), server_default='random', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('languages', schema=None) as batch_op:
        batch_op.drop_column('queue_order')
    op.drop_table('template_signals')

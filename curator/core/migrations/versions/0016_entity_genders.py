"""entity genders and classes (issue 39 §2): what the agreeing forms of annotated templates read

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-08 10:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'entity_genders',
        sa.Column('qid', sa.String(length=32), nullable=False),
        sa.Column('gender', sa.String(length=8), nullable=False),
        sa.PrimaryKeyConstraint('qid', name=op.f('pk_entity_genders')),
    )
    op.create_table(
        'entity_classes',
        sa.Column('qid', sa.String(length=32), nullable=False),
        sa.Column('class_qid', sa.String(length=32), nullable=False),
        sa.Column('label', sa.String(length=500), nullable=False),
        sa.PrimaryKeyConstraint('qid', 'class_qid', name=op.f('pk_entity_classes')),
    )


def downgrade() -> None:
    op.drop_table('entity_classes')
    op.drop_table('entity_genders')

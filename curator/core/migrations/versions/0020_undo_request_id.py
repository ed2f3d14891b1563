"""The client key of the undo that retracted a decision: an undo sent again (its answer lost, the
review screen's outbox retrying) is a no-op instead of retracting the decision before

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-14 10:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('decisions') as batch:
        batch.add_column(sa.Column('undo_request_id', sa.String(length=64), nullable=True))
        batch.create_unique_constraint(op.f('uq_decisions_user_id_undo_request_id'), ['user_id', 'undo_request_id'])


def downgrade() -> None:
    with op.batch_alter_table('decisions') as batch:
        batch.drop_constraint(op.f('uq_decisions_user_id_undo_request_id'), type_='unique')
        batch.drop_column('undo_request_id')

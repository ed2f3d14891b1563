"""dataset versions are immutable: the database itself refuses to change them

Revision ID: 0004
Revises: 0003
"""
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TABLES = ("dataset_versions", "version_patterns", "version_tuples")
MESSAGE = "dataset versions are immutable: build a new version instead"


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for table in TABLES:
            for event in ("UPDATE", "DELETE"):
                op.execute(f"CREATE TRIGGER {table}_no_{event.lower()} BEFORE {event} ON {table} "
                           f"BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END")
        op.execute(f"CREATE TRIGGER tuples_no_update BEFORE UPDATE ON tuples BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END")
    elif dialect == "postgresql":
        op.execute("CREATE FUNCTION curator_immutable() RETURNS trigger AS $$ BEGIN "
                   f"RAISE EXCEPTION '{MESSAGE}'; END $$ LANGUAGE plpgsql")
        for table in TABLES:
            op.execute(f"CREATE TRIGGER {table}_immutable BEFORE UPDATE OR DELETE ON {table} "
                       "FOR EACH ROW EXECUTE FUNCTION curator_immutable()")
        op.execute("CREATE TRIGGER tuples_immutable BEFORE UPDATE ON tuples "
                   "FOR EACH ROW EXECUTE FUNCTION curator_immutable()")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for table in TABLES:
            for event in ("update", "delete"):
                op.execute(f"DROP TRIGGER IF EXISTS {table}_no_{event}")
        op.execute("DROP TRIGGER IF EXISTS tuples_no_update")
    elif dialect == "postgresql":
        for table in TABLES + ("tuples",):
            op.execute(f"DROP TRIGGER IF EXISTS {table}_immutable ON {table}")
        op.execute("DROP FUNCTION IF EXISTS curator_immutable()")

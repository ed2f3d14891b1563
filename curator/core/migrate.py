"""The schema is created and upgraded only through Alembic migrations."""
from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Migrate in one write transaction, like any writer (core/db.py): the write lock taken at
    BEGIN (SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory lock), so two `curator init` at once
    run one after the other, no writer works on a half-migrated schema, and a lock held past
    the busy timeout is "database busy, retry" rather than a wait without end."""
    from curator.core.db import WRITE

    cfg = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.connect() as connection:
        connection.execution_options(**{WRITE: True})
        with connection.begin():
            cfg.attributes["connection"] = connection
            command.upgrade(cfg, revision)


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()

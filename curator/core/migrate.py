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


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    if head is None:  # the package ships its migrations; none found is a broken install
        raise RuntimeError("no migrations found in curator/core/migrations")
    return head


def check_current(engine: Engine) -> None:
    """Refuse to serve a database the code's schema does not match: one line saying what to run."""
    from sqlalchemy.exc import OperationalError

    from curator.core.errors import CuratorError

    try:
        current, head = current_revision(engine), head_revision()
    except OperationalError as exc:
        first = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
        raise CuratorError(f"cannot reach the database at {engine.url.render_as_string()}: {first}") from None
    if current is None:
        raise CuratorError(f"the database at {engine.url.render_as_string()} is not initialised: run `curator init`")
    if current != head:
        raise CuratorError(
            f"the database is at migration {current}, the code needs {head}: run `curator init` "
            "(it upgrades in place; back up first, see docs/deploy.md)"
        )

"""Backing up and checking the database, on SQLite and PostgreSQL (`curator db …`).

A backup is taken while the app runs: SQLite's online backup API copies a consistent
snapshot page by page (copying the file could catch a half-written WAL), PostgreSQL's
`pg_dump --format=custom` dumps one snapshot that `pg_restore` loads into a new database.
The backup is written beside its target and renamed into place, so a failed one leaves no
half-written file, and an existing file is never overwritten.

`check` returns lines for a person; a problem is a `CuratorError` in one line.
"""

from __future__ import annotations

import glob
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import OperationalError

from curator.core.errors import Conflict, CuratorError, InputError, Unreadable


def display_url(engine: Engine) -> str:
    """The URL without its password, for messages."""
    return engine.url.render_as_string(hide_password=True)


def find_program(name: str) -> str | None:
    """A PostgreSQL client program on PATH, else in Debian's /usr/lib/postgresql/<major>/bin
    (the newest major: pg_dump must be at least as new as the server)."""
    found = shutil.which(name)
    if found:
        return found

    def major(path: str) -> int:
        part = Path(path).parts[-3]
        return int(part) if part.isdigit() else 0

    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=major)
    return candidates[-1] if candidates else None


def migration_levels(engine: Engine) -> tuple[str | None, str | None]:
    """(current revision of the database, head revision of the code)."""
    from curator.core.migrate import current_revision, head_revision

    return current_revision(engine), head_revision()


def _connect_error(engine: Engine, exc: OperationalError) -> Unreadable:
    reason = str(exc.orig).strip().splitlines()[0] if exc.orig else "connection failed"
    return Unreadable(f"cannot open the database at {display_url(engine)}: {reason}")


# ---------------------------------------------------------------- check
def check(engine: Engine) -> list[str]:
    """Connectivity, integrity (SQLite) and the migration level; raises on the first problem."""
    lines = [f"database: {display_url(engine)}"]
    path = engine.url.database if engine.dialect.name == "sqlite" else None
    if path and path != ":memory:" and not Path(path).is_file():  # connecting would create it
        raise Unreadable(f"no SQLite database file at {path}")
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "sqlite":
                lines += _check_sqlite(conn)
            else:
                version = (
                    conn.execute(text("SHOW server_version")).scalar()
                    if engine.dialect.name == "postgresql"
                    else conn.execute(text("SELECT 1")).scalar()
                )
                lines.append(f"connection: ok ({engine.dialect.name} {version})")
    except OperationalError as exc:
        raise _connect_error(engine, exc) from None
    current, head = migration_levels(engine)
    if current is None:
        raise Conflict(f"the database at {display_url(engine)} is not initialised: run `curator init`")
    if current != head:
        raise Conflict(f"migrations: the database is at {current}, the code at {head}: run `curator init`")
    lines.append(f"migrations: {current} (head)")
    return lines


def _check_sqlite(conn: Connection) -> list[str]:
    problems = [row[0] for row in conn.exec_driver_sql("PRAGMA integrity_check").all()]
    if problems != ["ok"]:
        raise Unreadable(f"integrity check failed: {'; '.join(map(str, problems[:5]))}")
    broken = conn.exec_driver_sql("PRAGMA foreign_key_check").all()
    if broken:
        tables = sorted({f"{row[0]} → {row[2]}" for row in broken})
        raise Unreadable(f"foreign key check failed: {len(broken)} rows ({', '.join(tables[:5])})")
    return ["integrity: ok", "foreign keys: ok"]


# ---------------------------------------------------------------- backup
def backup(engine: Engine, out: Path) -> str:
    """Write a backup of the database to `out` (which must not exist); returns what was done."""
    out = Path(out)
    if out.exists():
        raise Conflict(f"{out} already exists: not overwriting it")
    if not out.parent.is_dir():
        raise InputError("no such folder for the backup", location=str(out.parent))
    partial = out.with_name(f".{out.name}.partial")
    try:
        if engine.dialect.name == "sqlite":
            how = _backup_sqlite(engine, partial)
        elif engine.dialect.name == "postgresql":
            how = _backup_postgresql(engine, partial)
        else:
            raise CuratorError(f"no backup for {engine.dialect.name} databases")
        if out.exists():  # created meanwhile by someone else
            raise Conflict(f"{out} already exists: not overwriting it")
        os.replace(partial, out)
    finally:
        partial.unlink(missing_ok=True)
    return how


def _backup_sqlite(engine: Engine, target: Path) -> str:
    source_path = engine.url.database
    if not source_path or source_path == ":memory:" or not Path(source_path).is_file():
        raise Unreadable(f"no SQLite database file at {display_url(engine)}")
    source = sqlite3.connect(source_path, timeout=30)
    destination = sqlite3.connect(target)
    try:
        source.backup(destination)
    except sqlite3.Error as exc:
        raise Unreadable(f"backup failed: {exc}") from None
    finally:
        destination.close()
        source.close()
    return "SQLite online backup"


def _backup_postgresql(engine: Engine, target: Path) -> str:
    pg_dump = find_program("pg_dump")
    if pg_dump is None:
        raise CuratorError("pg_dump not found: install the PostgreSQL client (apt-get install postgresql-client)")
    url = engine.url.set(drivername="postgresql")
    env = dict(os.environ)
    if url.password is not None:  # by environment, not on a command line others can see
        env["PGPASSWORD"] = str(url.password)
        url = url.set(password=None)
    result = subprocess.run(
        [
            pg_dump,
            "--format=custom",
            "--no-owner",
            f"--file={target}",
            f"--dbname={url.render_as_string(hide_password=False)}",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        raise Unreadable(f"pg_dump failed: {lines[-1] if lines else f'exit code {result.returncode}'}")
    return "pg_dump --format=custom (restore with pg_restore)"

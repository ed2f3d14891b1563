"""`curator db backup` and `curator db check` on SQLite and PostgreSQL: a backup restores to
the same rows, nothing is overwritten, and every failure is one line with a non-zero exit."""

from __future__ import annotations

import sqlite3
import subprocess

import pytest
from sqlalchemy import func, select

from curator.core.db import make_engine
from curator.core.maintenance import find_program, migration_levels
from curator.core.models import Relation
from tests.conftest import SEED
from tests.plugins.cli import Cli
from tests.plugins.databases import libpq_url, table_snapshot

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def _one_line_error(result) -> str:
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in result.output, result.output
    return lines[0]


def test_check_reports_the_migration_level(cli, engine):
    out = cli("db", "check").output
    head = migration_levels(engine)[1]
    assert f"migrations: {head} (head)" in out
    assert "password" not in out


def test_check_refuses_an_uninitialised_database(empty_db_url):
    assert "curator init" in _one_line_error(Cli(empty_db_url)("db", "check", ok=False))


def test_backup_restores_to_the_same_rows(cli, engine, db_backend, tmp_path, request):
    cli("ingest", "pararel", SEED / "pararel" / "patterns")
    before = table_snapshot(engine)
    out = tmp_path / "backup.db"
    assert "backed up" in cli("db", "backup", out).output
    assert "already exists" in _one_line_error(cli("db", "backup", out, ok=False))
    assert not list(tmp_path.glob(".*partial"))
    if db_backend == "sqlite":
        restored_url = f"sqlite:///{out}"
    else:
        server = request.getfixturevalue("postgres")
        name = server.new_database(template=None)
        restored_url = server.url(name)
        restore = subprocess.run(
            [find_program("pg_restore"), "--no-owner", f"--dbname={libpq_url(restored_url)}", str(out)],
            capture_output=True,
            text=True,
        )
        assert restore.returncode == 0, restore.stderr
    restored = make_engine(restored_url)
    try:
        assert table_snapshot(restored) == before
        with restored.connect() as conn:
            assert conn.scalar(select(func.count()).select_from(Relation)) == 5
        assert "(head)" in Cli(restored_url)("db", "check").output
    finally:
        restored.dispose()
        if db_backend == "postgresql":
            server.drop_database(name)


def test_backup_into_a_missing_folder_is_one_line(cli, tmp_path):
    assert "no such folder" in _one_line_error(cli("db", "backup", tmp_path / "nope" / "b.db", ok=False))


@pytest.mark.backends("sqlite")
def test_check_of_a_missing_file_creates_nothing(tmp_path):
    missing = tmp_path / "nope.sqlite"
    assert "no SQLite database file" in _one_line_error(Cli(f"sqlite:///{missing}")("db", "check", ok=False))
    assert not missing.exists()


@pytest.mark.backends("sqlite")
def test_check_finds_a_broken_foreign_key(cli, db_url, engine):
    cli("ingest", "pararel", SEED / "pararel" / "patterns")
    raw = sqlite3.connect(db_url.removeprefix("sqlite:///"))
    raw.execute("PRAGMA foreign_keys=OFF")
    raw.execute("DELETE FROM relations WHERE id = 'P19'")
    raw.commit()
    raw.close()
    assert "foreign key check failed" in _one_line_error(cli("db", "check", ok=False))


@pytest.mark.backends("postgresql")
def test_postgresql_failures_are_one_line(cli, monkeypatch, tmp_path, postgres):
    unreachable = Cli(f"postgresql+psycopg://curator:secret@/nowhere?host={tmp_path}")
    message = _one_line_error(unreachable("db", "check", ok=False))
    assert "cannot open the database" in message and "secret" not in message
    monkeypatch.setattr("curator.core.maintenance.find_program", lambda name: None)
    message = _one_line_error(cli("db", "backup", tmp_path / "b.dump", ok=False))
    assert "pg_dump not found" in message
    assert not (tmp_path / "b.dump").exists()


def test_two_inits_at_once_both_succeed(empty_db_url):
    """Migrations take the write lock at BEGIN: the second `curator init` waits, then finds the head."""
    import os
    import sys

    env = {**os.environ, "CURATOR_DATABASE_URL": empty_db_url}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "curator.cli", "init"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    assert "(head)" in Cli(empty_db_url)("db", "check").output


def test_a_postgresql_url_naming_no_driver_runs_on_psycopg(postgres):
    """`postgresql://…` and `postgres://…` (as hosting services hand them out) name no driver:
    SQLAlchemy knows no `postgres` dialect (before the fix: "Can't load plugin"), and its default
    driver for `postgresql` was psycopg2, which curator does not install; both run on psycopg,
    the driver of the postgresql extra, as `postgresql+psycopg://` does."""
    name = postgres.new_database()
    try:
        url = postgres.url(name)
        assert url.startswith("postgresql+psycopg://")
        for scheme in ("postgresql://", "postgres://"):
            out = Cli(url.replace("postgresql+psycopg://", scheme))("db", "check").output
            assert "(head)" in out, out
    finally:
        postgres.drop_database(name)

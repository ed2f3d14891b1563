"""Real databases migrated through Alembic: SQLite files and a throwaway PostgreSQL server
(tests/support/postgres.py), a throwaway redis-server for the shared rate-limit store
(tests/support/redis_server.py), and the helpers that look into a database.

Database-facing tests take `db_url` (or `engine`, `sessions`, `cli`, `review_app`, which
build on it). A module marked `pytest.mark.backends("sqlite", "postgresql")` runs each such
test on both — ids `[sqlite]` and `[postgresql]` — the PostgreSQL one on the throwaway server,
skipped with the reason when its binaries are missing. Unmarked modules run on SQLite only:
their tests are not about the database, or about SQLite itself
(`CURATOR_TEST_BACKENDS=sqlite,postgresql` runs them on both as well).

Speed without weaker checks (issue 26 §5): migrating and seeding are done once per session
(per xdist worker) into template databases, and each test gets a copy of its own — an SQLite
file copy, a PostgreSQL `CREATE DATABASE … TEMPLATE`.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from curator.core.db import make_engine, make_session_factory
from curator.core.migrate import upgrade
from tests.conftest import SEED

BACKENDS = ("sqlite", "postgresql")


# unmarked modules: SQLite; CURATOR_TEST_BACKENDS=sqlite,postgresql runs them on both too (exploring)
DEFAULT_BACKENDS = tuple(
    b for b in os.environ.get("CURATOR_TEST_BACKENDS", "sqlite").replace(",", " ").split() if b in BACKENDS
) or ("sqlite",)


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers", "backends(*names): run the module's database tests on these backends (default: sqlite only)"
    )


def pytest_generate_tests(metafunc) -> None:
    if "db_backend" in metafunc.fixturenames:
        marker = metafunc.definition.get_closest_marker("backends")
        metafunc.parametrize("db_backend", marker.args if marker else DEFAULT_BACKENDS, indirect=True)


def _started(make, *prepare):
    """A throwaway server of the session, started (and prepared), or the test skipped with the
    reason when its binaries are missing; stopped again if starting or preparing fails."""
    try:
        server = make()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    try:
        server.start()
        for step in prepare:
            step(server)
    except BaseException:
        server.stop()
        raise
    return server


@pytest.fixture(scope="session")
def postgres():
    """The session's PostgreSQL server (tests/support/postgres.py) with a migrated template database."""
    from tests.support.postgres import Server

    server = _started(Server, Server.make_template)
    yield server
    server.stop()


REVIEW_TEMPLATE = "curator_review_template"


PASSWORD = "correct horse battery"


REVIEW_ACCOUNTS = ("boss@example.org", "ana@example.org", "bo@example.org", "eleni@example.org")


def seed_review_database(url: str) -> None:
    """What `review_app` serves: the demo seed (`curator seed`) with a maintainer and two
    Spanish reviewers (Ana also Arabic) and a Greek one; every connection closed afterwards."""
    from curator.demo import load_seed
    from curator.review.accounts import create_user
    from curator.review.sampling import assign

    engine = make_engine(url)
    try:
        upgrade(engine)
        with make_session_factory(engine).begin() as s:
            load_seed(s, SEED)
        with make_session_factory(engine).begin() as s:
            create_user(s, "boss@example.org", PASSWORD, "maintainer")
            ana = create_user(s, "ana@example.org", PASSWORD, "reviewer", "Ana")
            assign(s, ana, "es")
            assign(s, ana, "ar")
            bo = create_user(s, "bo@example.org", PASSWORD, "reviewer", "Bo")
            assign(s, bo, "es")
            el = create_user(s, "eleni@example.org", PASSWORD, "reviewer", "Eleni")
            assign(s, el, "el")
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def sqlite_templates(tmp_path_factory):
    """Template SQLite files made on first use: "migrated" (empty, at head) and "review"
    (seeded with review_app's accounts). Each is checkpointed and closed, so copying the one
    file copies the whole database."""
    root = tmp_path_factory.mktemp("templates")
    made: dict[str, Path] = {}

    def template(kind: str) -> Path:
        if kind not in made:
            path = root / f"{kind}.sqlite"
            url = f"sqlite:///{path}"
            if kind == "review":
                seed_review_database(url)
            else:
                engine = make_engine(url)
                upgrade(engine)
                engine.dispose()
            with sqlite3.connect(path) as conn:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.close()
            made[kind] = path
        return made[kind]

    return template


def postgres_template(server, kind: str) -> str:
    """The server's template database of that kind ("migrated" or "review"), made on first use."""
    from tests.support.postgres import TEMPLATE

    if kind == "migrated":
        return TEMPLATE
    if not getattr(server, "review_template", False):
        server.admin(f"CREATE DATABASE {REVIEW_TEMPLATE} TEMPLATE {TEMPLATE}")
        seed_review_database(server.url(REVIEW_TEMPLATE))
        server.review_template = True
    return REVIEW_TEMPLATE


@pytest.fixture(scope="session")
def redis_server():
    """The session's redis-server (tests/support/redis_server.py: a Unix socket in a temporary folder)."""
    from tests.support.redis_server import RedisServer

    try:
        import redis  # noqa: F401 - the client Flask-Limiter's redis storage needs
    except ImportError:
        pytest.skip("the redis Python package is not installed (pip install redis)")
    server = _started(RedisServer)
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server) -> str:
    """CURATOR_RATELIMIT_STORAGE of an empty redis (flushed before each test)."""
    redis_server.flush()
    return redis_server.url


@pytest.fixture
def db_backend(request) -> str:
    return request.param


@pytest.fixture
def db_url(db_backend: str, tmp_path: Path, request):
    """A migrated database of its own for this test: an SQLite file, or a PostgreSQL database,
    copied from the session's template (dropped afterwards). A test that uses `review_app`
    gets the seeded template, so the app, `sessions` and `cli` all see the same database (and
    with `chromium`, on SQLite, the seeded one with the accounts signed in: browser_template)."""
    kind = "review" if "review_app" in request.fixturenames else "migrated"
    if db_backend == "sqlite":
        path = tmp_path / "curator.sqlite"
        if kind == "review" and "chromium" in request.fixturenames:
            template = request.getfixturevalue("browser_template").path
        else:
            template = request.getfixturevalue("sqlite_templates")(kind)
        shutil.copyfile(template, path)
        yield f"sqlite:///{path}"
        return
    server = request.getfixturevalue("postgres")
    name = server.new_database(template=postgres_template(server, kind))
    yield server.url(name)
    server.drop_database(name)


@pytest.fixture
def empty_db_url(db_backend: str, tmp_path: Path, request):
    """Like `db_url`, but an empty database: it exists, nothing migrated yet."""
    if db_backend == "sqlite":
        import sqlite3

        sqlite3.connect(tmp_path / "empty.sqlite").close()
        yield f"sqlite:///{tmp_path / 'empty.sqlite'}"
        return
    server = request.getfixturevalue("postgres")
    name = server.new_database(template=None)
    yield server.url(name)
    server.drop_database(name)


@pytest.fixture
def engine(db_url: str):
    engine = make_engine(db_url)
    upgrade(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def sessions(engine):
    return make_session_factory(engine)


def table_snapshot(engine) -> dict[str, list[tuple]]:
    """Every row of every table, for 'nothing changed' assertions."""
    from sqlalchemy import inspect, text

    with engine.connect() as conn:
        return {
            name: sorted(map(tuple, conn.execute(text(f'SELECT * FROM "{name}"'))), key=repr)
            for name in inspect(conn).get_table_names()
        }


def libpq_url(db_url: str) -> str:
    """The libpq form (postgresql://…) of a SQLAlchemy PostgreSQL URL, for psycopg and pg_* tools."""
    from sqlalchemy.engine import make_url

    return make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False)


class WriteLock:
    """Another process's writer mid-transaction, holding the one writer lock until `release()`:
    SQLite's write lock (BEGIN IMMEDIATE) or PostgreSQL's advisory lock (core/db.py)."""

    def __init__(self, db_url: str):
        if db_url.startswith("sqlite"):
            import sqlite3

            self.conn = sqlite3.connect(
                db_url.removeprefix("sqlite:///"), isolation_level=None, timeout=300, check_same_thread=False
            )  # may be released from a timer thread
            self.conn.execute("BEGIN IMMEDIATE")
        else:
            import psycopg

            from curator.core.db import WRITER_LOCK

            self.conn = psycopg.connect(libpq_url(db_url))
            self.conn.execute(f"SELECT pg_advisory_xact_lock({WRITER_LOCK})")

    def release(self) -> None:
        self.conn.rollback() if hasattr(self.conn, "pgconn") else self.conn.execute("ROLLBACK")
        self.conn.close()

    def __enter__(self) -> WriteLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def review_sample(sessions, email: str, lang: str) -> list[tuple[int, str, str]]:
    """(item id, relation, template text) of a reviewer's assignment, in review order."""
    from sqlalchemy import select

    from curator.core.models import Assignment, AssignmentItem, Template, User

    with sessions() as s:
        return s.execute(
            select(AssignmentItem.id, AssignmentItem.relation_id, Template.text)
            .join(Template, Template.id == AssignmentItem.template_id)
            .join(Assignment)
            .join(User)
            .where(User.email == email, Assignment.language == lang)
            .order_by(AssignmentItem.position)
        ).all()

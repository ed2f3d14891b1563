"""Engine and session setup shared by the app, the CLI and scripts.

SQLite gets WAL (readers never block the writer), foreign keys (off by default in
SQLite) and a busy timeout so concurrent reviewers wait instead of failing.
"""
from __future__ import annotations

import contextvars
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker



def make_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        # pysqlite's own transaction handling defers BEGIN and breaks SAVEPOINT;
        # take control so a whole import is one real transaction.
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    return create_engine(url, pool_pre_ping=True)


WRITE_INTENT: contextvars.ContextVar[bool] = contextvars.ContextVar("curator_write_intent", default=False)


def _sqlite_begin(conn) -> None:
    # A transaction that will write takes the write lock up front (BEGIN IMMEDIATE): a
    # reader that upgrades later can fail at once with "database is locked" under WAL,
    # while waiting for the lock at BEGIN honours the busy timeout.
    conn.exec_driver_sql("BEGIN IMMEDIATE" if WRITE_INTENT.get() else "BEGIN")


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    dbapi_conn.isolation_level = None  # autocommit at the driver; SQLAlchemy issues BEGIN
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def is_busy(exc: BaseException) -> bool:
    """Whether a driver error means another writer held the lock past the busy timeout."""
    text = str(getattr(exc, "orig", exc)).lower()
    return "database is locked" in text or "database table is locked" in text


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One unit of work: commit on success, roll everything back on any error."""
    with factory() as session:
        with session.begin():
            yield session

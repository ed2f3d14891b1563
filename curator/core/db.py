"""Engine, sessions and the one way to write: the unit of work.

SQLite gets WAL (readers never block the writer), foreign keys (off by default in SQLite)
and a busy timeout. Every writer — a web request or a CLI command — opens its transaction
through `unit_of_work`, which on SQLite takes the write lock up front (`BEGIN IMMEDIATE`):
waiting for the lock at BEGIN honours the busy timeout, whereas a read transaction that
upgrades to a write later can fail at once under WAL. A lock still held when the timeout
runs out becomes `Busy` ("database busy, retry"): the web answers 503 with Retry-After, the
CLI one line and exit code 75. Readers use plain sessions. There is no process-global lock
and no request-time flag: the transaction itself says it writes.

PostgreSQL keeps the same guarantee — one writer at a time, across every process and thread
sharing the database — with a transaction-level advisory lock: a write transaction begins with
one statement that sets `lock_timeout` for the transaction (the busy timeout) and takes
`pg_advisory_xact_lock(WRITER_LOCK)`, released at commit or rollback. A timeout (SQLSTATE
55P03, lock_not_available) is `Busy`.
Checks made inside the write transaction (an invitation used twice, a decision stored once per
request id) rely on this: PostgreSQL's row locks alone would let two writers both see "not
there yet" and both insert. READ COMMITTED is enough: a statement sees everything committed
before it started, and since every writer holds the lock for its whole transaction, nothing
commits between our check and our write. Readers take no lock and never wait.

Round trips are the cost of a request on PostgreSQL (issue 25: the review hot path went from
~22 statements to 8), so a request's read transaction turns into its write transaction in
place there — the lock is taken on the same connection, no ROLLBACK, no new BEGIN, no second
pool checkout — and everything it loaded is expired, so it is read again under the lock as on
SQLite. SQLite cannot do that (a read snapshot that upgrades to a write can fail at once under
WAL), so there the read transaction ends and `BEGIN IMMEDIATE` starts the write.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DataError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session, sessionmaker

from curator.core.errors import Busy, InputError
from curator.core.extras import require_extra
from curator.core.settings import Settings

WRITE = "curator_write"  # connection execution option: this transaction will write
BUSY_OPTION = "curator_busy_timeout"  # engine execution option: the busy timeout it was made with
AUTOCOMMIT_READS = "curator_autocommit_reads"  # session info: its reads run outside a transaction
# PostgreSQL advisory lock key every writer takes (any fixed bigint; b"curator" as a number)
WRITER_LOCK = int.from_bytes(b"curator", "big")
POOL_OVERFLOW = 2  # connections opened beyond the pool for a moment, closed when given back


def make_engine(url: str, busy_timeout: float = Settings.busy_timeout, pool_size: int = Settings.threads) -> Engine:
    """`busy_timeout`: seconds a writer waits for another's lock before `Busy`. `pool_size`:
    connections kept open (PostgreSQL); the web app passes its worker's thread count
    (CURATOR_THREADS), since each thread holds at most one connection at a time. The defaults
    are the Settings' (curator.core.settings)."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        # a URL naming no driver, `postgres://` included (as hosting services hand them out;
        # SQLAlchemy knows no such dialect): psycopg, the driver the postgresql extra installs,
        # whatever SQLAlchemy's default for the name (psycopg2 before 2.1)
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed, connect_args={"timeout": busy_timeout})
        event.listen(engine, "connect", lambda conn, _record: _sqlite_pragmas(conn, busy_timeout))
        # pysqlite's own transaction handling defers BEGIN and breaks SAVEPOINT;
        # take control so a whole import is one real transaction.
        event.listen(engine, "begin", _sqlite_begin)
        return engine
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() == "psycopg":
        require_extra("postgresql", "a PostgreSQL database (postgresql+psycopg://)")
    # READ COMMITTED set, not assumed from the server's default: the write transaction that
    # upgrades a request's reads in place and the autocommit reads rely on each statement seeing
    # what was committed before it (under REPEATABLE READ the snapshot would predate the lock)
    isolation = {"isolation_level": "READ COMMITTED"} if parsed.get_backend_name() == "postgresql" else {}
    engine = create_engine(
        parsed,
        pool_pre_ping=True,
        pool_size=max(pool_size, 1),
        max_overflow=POOL_OVERFLOW,
        pool_timeout=max(busy_timeout, 1.0),
        pool_recycle=3600,
        **isolation,
    )
    engine.update_execution_options(**{BUSY_OPTION: busy_timeout})
    if parsed.get_backend_name() == "postgresql":
        event.listen(engine, "begin", lambda conn: _postgresql_begin(conn, busy_timeout))
    return engine


def _postgresql_begin(conn: Connection, busy_timeout: float) -> None:
    """A write transaction waits (at most the busy timeout) for the one writer lock."""
    if conn.get_execution_options().get(WRITE):
        _postgresql_lock(conn, busy_timeout)


def _postgresql_lock(conn: Connection, busy_timeout: float) -> None:
    """`lock_timeout` for this transaction and the writer lock, in one round trip. The timeout
    is set in a subquery, which PostgreSQL runs before the outer select waits for the lock (a
    volatile subquery is not merged into the outer one)."""
    conn.exec_driver_sql(
        f"SELECT pg_advisory_xact_lock({WRITER_LOCK}) FROM (SELECT set_config('lock_timeout', "
        f"'{max(int(busy_timeout * 1000), 1)}', true)) AS timeout"
    )


def _sqlite_begin(conn: Connection) -> None:
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(WRITE) else "BEGIN")


def _sqlite_pragmas(dbapi_conn: sqlite3.Connection, busy_timeout: float) -> None:
    dbapi_conn.isolation_level = None  # autocommit at the driver; SQLAlchemy issues BEGIN
    cur = dbapi_conn.cursor()
    _wal(cur, busy_timeout)
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def _wal(cur: sqlite3.Cursor, busy_timeout: float) -> None:
    """WAL mode, once per database file (it persists). Turning a new file to WAL needs its
    exclusive lock; two processes opening a new file at once (two `curator init`) can each hold
    a read lock and want it, and SQLite then answers one of them "database is locked" at once,
    without its busy handler. So the change is tried again until the busy timeout, like any wait
    for a lock; a file already in WAL mode needs no lock for this at all."""
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            if (cur.execute("PRAGMA journal_mode").fetchone() or [""])[0].lower() != "wal":
                cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def is_busy(exc: BaseException) -> bool:
    """Whether a driver error means another writer held the lock past the busy timeout."""
    orig = getattr(exc, "orig", exc)
    if getattr(orig, "sqlstate", None) == "55P03":  # PostgreSQL lock_not_available
        return True
    text = str(orig).lower()
    return "database is locked" in text or "database table is locked" in text


def _first_line(exc: BaseException) -> str:
    lines = str(getattr(exc, "orig", exc)).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def unit_of_work(source: sessionmaker[Session] | Session) -> Iterator[Session]:
    """One write transaction: the write lock taken at BEGIN, commit on success, everything
    rolled back on any error, `Busy` if the lock could not be had in time.

    `source` is a session factory (the CLI: a new session, closed afterwards) or an open
    session (a web request's). An open session's read transaction ends first (SQLite: rolled
    back; PostgreSQL: turned into the write transaction in place, see above), which expires
    what it loaded: every object (the signed-in user, an invitation) is read again inside the
    write transaction, so a check made before the lock cannot be stale. A session
    with unsaved changes is refused (they would escape the lock). Used again on a session
    already inside a unit of work, it joins that one (all or nothing stays all or nothing)."""
    owned = not isinstance(source, Session)
    session = source if isinstance(source, Session) else source()
    if not owned and session.info.get(WRITE):
        yield session  # nested: part of the enclosing unit of work
        return
    if not owned and (session.new or session.dirty or session.deleted):
        raise RuntimeError("unit_of_work: the session has unsaved changes made outside a unit of work")
    try:
        with _as_busy_or_input_error():
            if (
                session.in_transaction()
                and session.get_bind().dialect.name == "postgresql"
                and not session.info.get(AUTOCOMMIT_READS)
            ):
                with _upgraded(session):
                    yield session
                return
            if session.in_transaction():
                session.rollback()  # end the read snapshot (nothing was written in it)
            session.info.pop(AUTOCOMMIT_READS, None)  # the connection went back to the pool with it
            with session.begin():
                session.connection(execution_options={WRITE: True})
                with _writing(session):
                    yield session
    finally:
        if owned:
            session.close()


@contextmanager
def _writing(session: Session) -> Iterator[None]:
    session.info[WRITE] = True
    try:
        yield
    finally:
        session.info.pop(WRITE, None)


@contextmanager
def _upgraded(session: Session) -> Iterator[None]:
    """PostgreSQL: the session's read transaction becomes the write transaction on the same
    connection — the writer lock taken now, everything loaded so far expired (read again, under
    the lock, when next used) — then committed, or rolled back on any error. Under READ
    COMMITTED a read transaction holds no snapshot, so this is the same as a new one."""
    try:
        connection = session.connection()
        _postgresql_lock(connection, connection.engine.get_execution_options().get(BUSY_OPTION, Settings.busy_timeout))
        session.expire_all()
        with _writing(session):
            yield
        session.commit()
    except BaseException:
        session.rollback()
        raise


@contextmanager
def _as_busy_or_input_error() -> Iterator[None]:
    try:
        yield
    except OperationalError as exc:
        if is_busy(exc):
            raise Busy() from None
        raise
    except PoolTimeout:  # every pooled connection stayed busy for pool_timeout (the busy timeout)
        raise Busy() from None
    except DataError as exc:
        # PostgreSQL checks what SQLite lets through (a string longer than its column, a number
        # out of range): a value that does not fit is bad input, said in one line, never a 500
        raise InputError(f"not stored: {_first_line(exc)}") from None


def autocommit_reads(session: Session) -> Session:
    """PostgreSQL: the session's reads run outside a transaction (autocommit), which saves the
    BEGIN and ROLLBACK round trips of a read-only request and changes nothing else — under READ
    COMMITTED each statement sees what was committed before it either way. A unit of work on
    the session still begins a real transaction (and ends this mode). SQLite keeps its read
    transaction: there it is what makes a request's reads one consistent snapshot."""
    if session.get_bind().dialect.name == "postgresql" and not session.in_transaction():
        with _as_busy_or_input_error():
            session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        session.info[AUTOCOMMIT_READS] = True
    return session


@contextmanager
def reading(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A read-only transaction (plain BEGIN): never waits for, or blocks, a writer. Anything
    written in it by mistake is rolled back at the end, never committed."""
    with factory() as session:
        session.begin()
        try:
            yield session
        finally:
            session.expunge_all()  # what was read stays usable after the block, as after a commit
            session.rollback()

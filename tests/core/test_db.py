"""The unit of work on a real SQLite file and a real PostgreSQL database: the write lock at
BEGIN, fresh reads inside it, nesting joins, readers never write, a lock held too long is
`Busy`, and writers in parallel threads and processes are serialised (no lost update, one
decision per request id)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest
from sqlalchemy import select

from curator.core.db import make_engine, make_session_factory, reading, unit_of_work
from curator.core.errors import Busy
from curator.core.migrate import upgrade
from curator.core.models import Language
from tests.conftest import ROOT
from tests.plugins.databases import WriteLock

pytestmark = pytest.mark.backends("sqlite", "postgresql")


@pytest.fixture
def factory(db_url):
    engine = make_engine(db_url, busy_timeout=0.2)
    upgrade(engine)
    factory = make_session_factory(engine)
    with unit_of_work(factory) as s:
        s.add(Language(code="es", name="Spanish"))
    yield factory
    engine.dispose()


def _url(factory) -> str:
    return factory.kw["bind"].url.render_as_string(hide_password=False)


def _lock_is_free(url: str) -> bool:
    """Whether another process could take the write lock right now (without waiting)."""
    if url.startswith("sqlite"):
        import sqlite3

        other = sqlite3.connect(url.removeprefix("sqlite:///"), timeout=0.05, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            return True
        except sqlite3.OperationalError as exc:
            assert "locked" in str(exc)
            return False
        finally:
            other.close()
    import psycopg

    from curator.core.db import WRITER_LOCK
    from tests.plugins.databases import libpq_url

    with psycopg.connect(libpq_url(url)) as other:
        return other.execute(f"SELECT pg_try_advisory_xact_lock({WRITER_LOCK})").fetchone()[0]


def test_the_write_lock_is_taken_at_begin(factory):
    assert _lock_is_free(_url(factory))
    with unit_of_work(factory) as s:
        s.execute(select(Language.code)).all()  # only a read so far, yet the lock is held
        assert not _lock_is_free(_url(factory))
    assert _lock_is_free(_url(factory))
    with reading(factory) as s:  # readers take no lock
        s.execute(select(Language.code)).all()
        assert _lock_is_free(_url(factory))


def test_a_request_session_rereads_inside_the_write(factory):
    """What a view loaded before `write()` is read again under the lock, never stale."""
    request = factory()
    language = request.get(Language, "es")
    assert language.queue_order in (None, "random")
    with unit_of_work(factory) as other:  # another writer changes it meanwhile
        other.get(Language, "es").queue_order = "risk"
    with unit_of_work(request) as s:
        assert s.get(Language, "es").queue_order == "risk"
        assert language.queue_order == "risk"
    request.close()


def test_unsaved_changes_outside_a_unit_of_work_are_refused(factory):
    request = factory()
    request.add(Language(code="ar", name="Arabic"))
    with pytest.raises(RuntimeError, match="unsaved changes"):
        with unit_of_work(request):
            pass
    request.close()
    with reading(factory) as s:
        assert s.get(Language, "ar") is None


def test_nested_use_joins_and_a_failure_undoes_all(factory):
    request = factory()
    with pytest.raises(ZeroDivisionError):
        with unit_of_work(request) as outer:
            outer.add(Language(code="el", name="Greek"))
            with unit_of_work(request) as inner:
                assert inner is outer
                inner.add(Language(code="fi", name="Finnish"))
            1 / 0
    request.close()
    with reading(factory) as s:
        assert s.scalars(select(Language.code)).all() == ["es"]


def test_reading_never_commits(factory):
    with reading(factory) as s:
        s.add(Language(code="ko", name="Korean"))
        s.flush()
    with reading(factory) as s:
        assert s.get(Language, "ko") is None


GUARD = 300  # s; only a writer that waits for the lock's release reaches it (the failure caught here)


def test_a_lock_held_past_the_timeout_is_busy_and_nothing_is_written(factory):
    outcome: list[BaseException | None] = []

    def writer() -> None:
        try:
            with unit_of_work(factory) as s:
                s.add(Language(code="ja", name="Japanese"))
        except BaseException as exc:
            outcome.append(exc)
        else:
            outcome.append(None)

    with WriteLock(_url(factory)):
        attempt = threading.Thread(target=writer)
        attempt.start()
        attempt.join(GUARD)  # the lock is held until the writer gave up: Busy must not wait for it
        assert not attempt.is_alive(), "the writer waited for the lock's release instead of answering busy"
        assert len(outcome) == 1 and isinstance(outcome[0], Busy), outcome
        assert "database busy, retry" in str(outcome[0])
        with reading(factory) as s:  # a reader is not blocked by the held lock
            assert s.get(Language, "es") is not None
    with reading(factory) as s:
        assert s.get(Language, "ja") is None
    with unit_of_work(factory) as s:  # the connection that timed out is usable again
        s.add(Language(code="ja", name="Japanese"))


def test_parallel_writers_are_serialised(db_url):
    """Read-modify-write from many threads: with one writer at a time no increment is lost,
    and a check-then-insert keyed by a request id stores each id once."""
    engine = make_engine(db_url, busy_timeout=30)
    upgrade(engine)
    factory = make_session_factory(engine)
    with unit_of_work(factory) as s:
        s.add(Language(code="es", name="0"))
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def writer(n: int) -> None:
        try:
            start.wait()
            for k in range(10):
                with unit_of_work(factory) as s:
                    language = s.get(Language, "es")
                    value = int(language.name)
                    time.sleep(0.001)  # widen the window a lost update would need
                    language.name = str(value + 1)
                with unit_of_work(factory) as s:  # the same "request" from every thread
                    code = f"r{k}"
                    if s.get(Language, code) is None:
                        time.sleep(0.001)
                        s.add(Language(code=code, name=f"request {k} by {n}"))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    with reading(factory) as s:
        assert s.get(Language, "es").name == "80"
        assert sorted(s.scalars(select(Language.code).where(Language.code.like("r%")))) == [f"r{k}" for k in range(10)]
    engine.dispose()


SCRIPT = """
import sys
from curator.core.db import make_engine, make_session_factory, unit_of_work
from curator.core.models import Language
factory = make_session_factory(make_engine(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    with unit_of_work(factory) as s:
        language = s.get(Language, "es")
        language.name = str(int(language.name) + 1)
"""


def test_writers_in_separate_processes_are_serialised(db_url):
    engine = make_engine(db_url)
    upgrade(engine)
    factory = make_session_factory(engine)
    with unit_of_work(factory) as s:
        s.add(Language(code="es", name="0"))
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT, db_url, "25"], cwd=ROOT) for _ in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    with reading(factory) as s:
        assert s.get(Language, "es").name == "75"
    engine.dispose()


@pytest.mark.backends("postgresql")  # SQLite does not enforce string lengths
def test_a_value_the_database_refuses_is_input_error(factory):
    """PostgreSQL refuses a string longer than its column (SQLite stores it): one line, no 500."""
    from curator.core.errors import InputError
    from curator.ingest.store import bulk_insert, ensure_languages

    with pytest.raises(InputError, match="not stored: value too long"):
        with unit_of_work(factory) as s:
            s.add(Language(code="x" * 100, name="too long"))
    for write in (
        lambda s: ensure_languages(s, ["y" * 100]),  # the bulk paths too: never cut silently
        lambda s: bulk_insert(s, Language.__table__, [{"code": "z" * 100, "name": None}]),
    ):
        with pytest.raises(InputError, match="not stored: value too long"):
            with unit_of_work(factory) as s:
                write(s)
    with reading(factory) as s:
        assert s.scalars(select(Language.code)).all() == ["es"]


def test_no_free_connection_within_the_timeout_is_busy(db_url):
    """Every pooled connection held (by writers queued on the lock, say): a writer that cannot
    get one within the timeout is `Busy` too, not a 500."""
    from sqlalchemy import create_engine

    from curator.core.db import make_session_factory

    engine = create_engine(db_url, pool_size=1, max_overflow=0, pool_timeout=0.1)
    upgrade(engine)
    factory = make_session_factory(engine)
    held = engine.connect()
    try:
        with pytest.raises(Busy):
            with unit_of_work(factory) as s:
                s.add(Language(code="ja", name="Japanese"))
    finally:
        held.close()
        engine.dispose()

"""The unit of work on a real SQLite file: the write lock at BEGIN, fresh reads inside it,
nesting joins, readers never write, and a lock held too long is `Busy`."""
from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import select

from curator.core.db import make_engine, make_session_factory, reading, unit_of_work
from curator.core.errors import Busy
from curator.core.migrate import upgrade
from curator.core.models import Language


@pytest.fixture
def factory(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'uow.sqlite'}", busy_timeout=0.2)
    upgrade(engine)
    factory = make_session_factory(engine)
    with unit_of_work(factory) as s:
        s.add(Language(code="es", name="Spanish"))
    yield factory
    engine.dispose()


def _path(factory) -> str:
    return factory.kw["bind"].url.database


def test_the_write_lock_is_taken_at_begin(factory):
    with unit_of_work(factory) as s:
        s.execute(select(Language.code)).all()  # only a read so far, yet the lock is held
        other = sqlite3.connect(_path(factory), timeout=0.05, isolation_level=None)
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("BEGIN IMMEDIATE")
        other.close()


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


def test_a_lock_held_past_the_timeout_is_busy_and_nothing_is_written(factory):
    holder = sqlite3.connect(_path(factory), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(Busy, match="database busy, retry"):
            with unit_of_work(factory) as s:
                s.add(Language(code="ja", name="Japanese"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with reading(factory) as s:
        assert s.get(Language, "ja") is None

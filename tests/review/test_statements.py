"""How many statements the database receives for the review screen's hot path.

Counted is everything one request sends, from its start to its response: every SQL
statement the driver executes (the sign-in lookup, the writer lock, SAVEPOINTs, SQLite's
explicit BEGIN), the BEGIN that psycopg sends by itself before a PostgreSQL transaction's first
statement, every COMMIT and ROLLBACK it sends (none outside a transaction: a PostgreSQL GET reads
in autocommit mode), and the pool's pre-ping when one is made. Each is one
round trip to PostgreSQL; on SQLite each is a call into the library.

"Decide and next" is the review screen's request for one click: POST the decision, whose
answer carries the progress and the next item's id; the screen then GETs that item's context.
"""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from sqlalchemy import event, select

from tests.plugins.servers import Browser

pytestmark = pytest.mark.backends("sqlite", "postgresql")

DECIDE_AND_NEXT = 8  # POST a decision, answered with the progress and the next item's id (issue 25)
ITEM_CONTEXT = 10  # GET the next item's context (sources, examples, history, your notes: 6 reads of their own)


def _driver(conn):
    return conn.connection.dbapi_connection


def _in_transaction(psycopg_connection) -> bool:
    from psycopg.pq import TransactionStatus

    return psycopg_connection.info.transaction_status != TransactionStatus.IDLE


class StatementLog:
    """Every round trip an engine makes while `counting()` is open, in order."""

    def __init__(self, engine):
        self.engine, self.sent, self.on = engine, [], False
        event.listen(engine, "before_cursor_execute", self._execute)
        if engine.dialect.name == "postgresql":  # what psycopg sends by itself (SQLite's BEGIN is a statement)
            event.listen(engine, "begin", lambda conn: self._add("BEGIN") if not _driver(conn).autocommit else None)
            for name in ("commit", "rollback"):  # psycopg sends neither outside a transaction (autocommit)
                event.listen(engine, name, self._marker(name.upper(), lambda conn: _in_transaction(_driver(conn))))
        else:
            for name in ("commit", "rollback"):
                event.listen(engine, name, self._marker(name.upper(), lambda conn: True))
        ping = engine.dialect.do_ping

        def do_ping(dbapi_connection):
            self._add("pre-ping")
            return ping(dbapi_connection)

        engine.dialect.do_ping = do_ping

    def _add(self, what: str) -> None:
        if self.on:
            self.sent.append(" ".join(what.split()))

    def _execute(self, conn, cursor, statement, parameters, context, executemany) -> None:
        self._add(statement)

    def _marker(self, what: str, sent):
        def marker(conn) -> None:
            if sent(conn):
                self._add(what)

        return marker

    @contextmanager
    def counting(self):
        self.sent, self.on = [], True
        try:
            yield self.sent
        finally:
            self.on = False


def test_a_decision_with_progress_and_next_item_takes_at_most_eight_statements(review_app):
    """The count every click of the review screen costs: the sign-in check, the writer lock,
    the item with what deciding needs, the decision, progress and the next item, COMMIT."""
    log = StatementLog(review_app.extensions["curator.engine"])
    ana = Browser(review_app).login("ana@example.org")
    items = [i["id"] for i in ana.get("/api/v1/languages/es/queue").get_json()["items"]]
    for n, item in enumerate(items[:3]):  # the first click and later ones (a pace exists then)
        with log.counting() as sent:
            r = ana.post(
                f"/api/v1/languages/es/items/{item}/decision",
                {"decision": ("accept", "reject")[n % 2], "seconds": 4 + n, "request_id": f"click-{n}"},
            )
        assert r.status_code == 201, r.get_json()
        assert r.get_json()["next"] == items[n + 1] and r.get_json()["progress"]["done"] == n + 1
        assert len(sent) <= DECIDE_AND_NEXT, f"{len(sent)} statements:\n" + "\n".join(sent)
        with log.counting() as sent:  # the next item's context, which the screen asks for then
            ctx = ana.get(f"/api/v1/languages/es/items/{items[n + 1]}").get_json()
        assert ctx["item"]["id"] == items[n + 1]
        assert len(sent) <= ITEM_CONTEXT, f"{len(sent)} statements:\n" + "\n".join(sent)


def test_a_resent_or_unchanged_decision_takes_no_more(review_app):
    """The answers that store nothing (a resend, the same decision again) cost no extra statement."""
    log = StatementLog(review_app.extensions["curator.engine"])
    ana = Browser(review_app).login("ana@example.org")
    first = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["id"]
    assert (
        ana.post(
            f"/api/v1/languages/es/items/{first}/decision", {"decision": "accept", "request_id": "once"}
        ).status_code
        == 201
    )
    for body in ({"decision": "accept", "request_id": "once"}, {"decision": "accept", "request_id": "again"}):
        with log.counting() as sent:
            r = ana.post(f"/api/v1/languages/es/items/{first}/decision", body)
        assert r.status_code == 200 and r.get_json()["created"] is False
        assert len(sent) <= DECIDE_AND_NEXT - 1, f"{len(sent)} statements:\n" + "\n".join(sent)


def test_the_batched_reads_answer_what_the_separate_ones_do(review_app, sessions):
    """`find_item` (one statement) gives the item context and `progress_and_next` the progress
    and next item that the step-by-step reads give, after decisions, an undo and a retraction."""
    from curator.core.models import User
    from curator.review import progress as queueing
    from curator.review import service

    ana = Browser(review_app).login("ana@example.org")
    items = [i["id"] for i in ana.get("/api/v1/languages/es/queue").get_json()["items"]]
    for n, item in enumerate([items[0], items[2], items[3]]):
        ana.post(f"/api/v1/languages/es/items/{item}/decision", {"decision": "accept", "seconds": 3 + 4 * n})
    ana.post("/api/v1/languages/es/undo")
    with sessions() as s:
        user = s.scalar(select(User).where(User.email == "ana@example.org"))
        assignment = service.get_assignment(s, user, "es")
        queue = queueing.queue(s, assignment)
        for item in (items[0], items[1], items[-1]):
            found = service.find_item(s, user, "es", item)
            assert service.item_context(s, user, assignment, found.item, found) == service.item_context(
                s, user, assignment, service.get_item(s, assignment, item)
            )
        for after in (None, *(i.position for i in queue)):
            expected = queueing.next_undecided(queue, after)
            assert queueing.progress_and_next(s, assignment, after) == (
                queueing.progress(s, assignment, queue),
                expected.id if expected else None,
            )


@pytest.mark.parametrize("reads", ["in a transaction", "autocommit"])
def test_a_write_after_the_requests_reads_is_one_transaction_under_the_writer_lock(engine, db_url, reads):
    """However the request read before (a POST's read transaction, upgraded in place on
    PostgreSQL; a GET's autocommit reads), its unit of work waits for the writer lock — `Busy`
    while another process holds it — and is all or nothing."""
    from curator.core.db import autocommit_reads, make_engine, make_session_factory, unit_of_work
    from curator.core.errors import Busy
    from curator.core.models import User
    from curator.review.accounts import create_user
    from tests.plugins.databases import WriteLock

    def session_after_reads(factory):
        session = factory()
        if reads == "autocommit":
            autocommit_reads(session)
        assert session.scalar(select(User).where(User.email == "x@example.org")) is None
        return session

    session = session_after_reads(make_session_factory(engine))
    with pytest.raises(RuntimeError):
        with unit_of_work(session) as s:
            create_user(s, "x@example.org", None)
            s.flush()
            raise RuntimeError("changed my mind")
    session.close()
    impatient = make_engine(db_url, busy_timeout=0.2)
    session = session_after_reads(make_session_factory(impatient))
    with WriteLock(db_url):
        with pytest.raises(Busy):
            with unit_of_work(session) as s:
                create_user(s, "x@example.org", None)
    with unit_of_work(session) as s:  # the lock released: the same session writes
        create_user(s, "x@example.org", None)
    session.close()
    impatient.dispose()
    with make_session_factory(engine)() as check:
        assert check.scalar(select(User.email).where(User.email == "x@example.org")) == "x@example.org"


def test_the_pool_holds_a_connection_per_thread(db_url, engine, monkeypatch):
    """CURATOR_THREADS (what `curator serve --threads` sets) sizes each worker's pool."""
    from curator.core.db import POOL_OVERFLOW
    from curator.web import create_app

    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite opens a connection per thread as needed, without a sized pool")
    monkeypatch.setenv("CURATOR_THREADS", "3")
    pool = create_app({"DATABASE_URL": db_url, "SECRET_KEY": "test"}).extensions["curator.engine"].pool
    assert (pool.size(), pool._max_overflow) == (3, POOL_OVERFLOW)

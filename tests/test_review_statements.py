"""How many statements the database receives for the review screen's hot path.

Counted is everything one request sends, from its start to its response: every SQL
statement the driver executes (the sign-in lookup, the writer lock, SAVEPOINTs, SQLite's
explicit BEGIN), the BEGIN that psycopg sends by itself before a PostgreSQL transaction's first
statement, every COMMIT and ROLLBACK, and the pool's pre-ping when one is made. Each is one
round trip to PostgreSQL; on SQLite each is a call into the library.

"Decide and next" is the review screen's request for one click: POST the decision, whose
answer carries the progress and the next item's id; the screen then GETs that item's context.
"""
from __future__ import annotations

from contextlib import contextmanager

import pytest
from sqlalchemy import event, select

from .conftest import Browser

pytestmark = pytest.mark.backends("sqlite", "postgresql")

DECIDE_AND_NEXT = 8  # POST a decision, answered with the progress and the next item's id (issue 25)
ITEM_CONTEXT = 11  # GET the next item's context (sources, examples, history, your notes: 6 reads of their own)


class StatementLog:
    """Every round trip an engine makes while `counting()` is open, in order."""

    def __init__(self, engine):
        self.engine, self.sent, self.on = engine, [], False
        postgres = engine.dialect.name == "postgresql"
        event.listen(engine, "before_cursor_execute", self._execute)
        for name in ("commit", "rollback") + (("begin",) if postgres else ()):  # SQLite's BEGIN is a statement
            event.listen(engine, name, self._marker(name.upper()))
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

    def _marker(self, what: str):
        return lambda *args: self._add(what)

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
            r = ana.post(f"/api/v1/languages/es/items/{item}/decision",
                         {"decision": ("accept", "reject")[n % 2], "seconds": 4 + n, "request_id": f"click-{n}"})
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
    assert ana.post(f"/api/v1/languages/es/items/{first}/decision",
                    {"decision": "accept", "request_id": "once"}).status_code == 201
    for body in ({"decision": "accept", "request_id": "once"}, {"decision": "accept", "request_id": "again"}):
        with log.counting() as sent:
            r = ana.post(f"/api/v1/languages/es/items/{first}/decision", body)
        assert r.status_code == 200 and r.get_json()["created"] is False
        assert len(sent) <= DECIDE_AND_NEXT - 1, f"{len(sent)} statements:\n" + "\n".join(sent)


def test_the_batched_reads_answer_what_the_separate_ones_do(review_app, sessions):
    """`find_item` (one statement) gives the item context and `progress_and_next` the progress
    and next item that the step-by-step reads give, after decisions, an undo and a retraction."""
    from curator.review import service
    from curator.core.models import User

    ana = Browser(review_app).login("ana@example.org")
    items = [i["id"] for i in ana.get("/api/v1/languages/es/queue").get_json()["items"]]
    for n, item in enumerate([items[0], items[2], items[3]]):
        ana.post(f"/api/v1/languages/es/items/{item}/decision", {"decision": "accept", "seconds": 3 + 4 * n})
    ana.post("/api/v1/languages/es/undo")
    with sessions() as s:
        user = s.scalar(select(User).where(User.email == "ana@example.org"))
        assignment = service.get_assignment(s, user, "es")
        queue = service.queue(s, assignment)
        for item in (items[0], items[1], items[-1]):
            found = service.find_item(s, user, "es", item)
            assert (service.item_context(s, user, assignment, found.item, found)
                    == service.item_context(s, user, assignment, service.get_item(s, assignment, item)))
        for after in (None, *(i.position for i in queue)):
            expected = service.next_undecided(queue, after)
            assert service.progress_and_next(s, assignment, after) == (
                service.progress(s, assignment, queue), expected.id if expected else None)

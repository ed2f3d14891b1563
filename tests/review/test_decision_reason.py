"""A reviewer's optional reason stored with a reject or an unsure decision (review.service): kept
on the decision row itself, trimmed and otherwise as typed, refused with an accept or an amend,
bounded, idempotent per request id, superseded and undone like the decision; the legacy import's
optional `reason`; and the migration that adds the column to a database holding decisions — on
real SQLite and PostgreSQL databases."""

from __future__ import annotations

import json

import pytest
from alembic import command
from sqlalchemy import func, insert, inspect, select

from curator.core.errors import InputError
from curator.core.models import AssignmentItem, Decision, User
from curator.review import service
from curator.review.accounts import find_user
from curator.review.importer import import_reviews
from tests.plugins.databases import review_sample

pytestmark = pytest.mark.backends("sqlite", "postgresql")

WHY = "  not a paraphrase:\n\tit says \u201cdied\u201d, <b>not</b> born  "


def _user(s, email: str) -> User:
    user = find_user(s, email)
    assert user is not None
    return user


def _decide(sessions, email: str, item_id: int, decision: str, **kw) -> tuple[dict, bool]:
    with sessions.begin() as s:
        user = _user(s, email)
        assignment = service.get_assignment(s, user, "es")
        row, created = service.decide(s, user, assignment, service.get_item(s, assignment, item_id), decision, **kw)
        return dict(service.decision_dict(row)), created


def _history(sessions, email: str) -> list[dict]:
    with sessions() as s:
        user = _user(s, email)
        return [dict(h) for h in service.history(s, user, service.get_assignment(s, user, "es"))]


def _count(sessions) -> int:
    with sessions() as s:
        return s.scalar(select(func.count()).select_from(Decision))


def test_reject_and_unsure_keep_the_reason_trimmed_and_otherwise_as_typed(review_app, sessions):
    items = [i for i, _, _ in review_sample(sessions, "ana@example.org", "es")]
    rejected, created = _decide(sessions, "ana@example.org", items[0], "reject", reason=WHY)
    assert created and rejected["reason"] == WHY.strip()  # line break, tab, quotes and markup kept
    unsure, _ = _decide(sessions, "ana@example.org", items[1], "unsure", reason=" لست متأكدة ")
    assert unsure["reason"] == "لست متأكدة"
    blank, _ = _decide(sessions, "ana@example.org", items[2], "reject", reason=" \n ")
    assert blank["reason"] is None  # blank is no reason
    plain, _ = _decide(sessions, "ana@example.org", items[3], "accept", reason="   ")
    assert plain["reason"] is None and plain["decision"] == "accept"
    with sessions() as s:
        stored = dict(s.execute(select(Decision.item_id, Decision.reason)).all())
    assert stored == {items[0]: WHY.strip(), items[1]: "لست متأكدة", items[2]: None, items[3]: None}
    history = {h["item_id"]: h for h in _history(sessions, "ana@example.org")}
    assert history[items[0]]["reason"] == WHY.strip() and history[items[2]]["reason"] is None
    longest = "x" * service.REASON_MAX
    assert _decide(sessions, "ana@example.org", items[4], "reject", reason=f" {longest} ")[0]["reason"] == longest


@pytest.mark.parametrize(
    ("decision", "extra", "reason", "message"),
    [
        ("accept", {}, "fine by me", "Only a Reject or an Unsure decision can have a reason."),
        ("amend", {"correction": "[X] vino al mundo en [Y]"}, "typo", "Only a Reject or an Unsure decision"),
        ("reject", {}, "x" * 2001, "That reason is too long (2000 characters at most)."),
        ("unsure", {}, "ok \u202e\u0634\u0631\u062d", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("reject", {}, "ok\x00nul", "U+0000 NULL"),
        ("reject", {}, 42, "must be text"),
    ],
)
def test_a_refused_reason_names_the_field_and_stores_nothing(review_app, sessions, decision, extra, reason, message):
    item = review_sample(sessions, "ana@example.org", "es")[0][0]
    with pytest.raises(InputError) as refused:
        _decide(sessions, "ana@example.org", item, decision, reason=reason, **extra)
    assert refused.value.field == "reason" and message in refused.value.message
    assert str(refused.value).startswith("field 'reason': ") and "\n" not in str(refused.value)
    assert _count(sessions) == 0


def test_a_replay_returns_the_stored_row_and_a_new_reason_supersedes(review_app, sessions):
    item = review_sample(sessions, "ana@example.org", "es")[0][0]
    first, created = _decide(sessions, "ana@example.org", item, "reject", reason="word order", request_id="r-1")
    assert created
    # the same request again, whatever it now says: the stored row, unchanged, stored once
    again, created = _decide(sessions, "ana@example.org", item, "reject", reason="something else", request_id="r-1")
    assert not created and again == first and _count(sessions) == 1
    # the same decision with the same reason: a no-op, as any identical decision is
    same, created = _decide(sessions, "ana@example.org", item, "reject", reason=" word order ")
    assert not created and same["id"] == first["id"] and _count(sessions) == 1
    # another reason: a new decision that supersedes the first (kept in history)
    second, created = _decide(sessions, "ana@example.org", item, "reject", reason="the object is wrong")
    assert created and second["reason"] == "the object is wrong"
    # an accept afterwards stands without one; the rejects keep theirs
    third, _ = _decide(sessions, "ana@example.org", item, "accept")
    history = _history(sessions, "ana@example.org")
    assert [(h["decision"], h["reason"], h["standing"], h["superseded"]) for h in history] == [
        ("accept", None, True, False),
        ("reject", "the object is wrong", False, True),
        ("reject", "word order", False, True),
    ]
    # undo: the reject before stands again, with its reason
    with sessions.begin() as s:
        user = _user(s, "ana@example.org")
        undone, _ = service.undo(s, user, service.get_assignment(s, user, "es"))
        assert undone is not None and undone.id == third["id"]
    standing = [h for h in _history(sessions, "ana@example.org") if h["standing"]]
    assert [(h["id"], h["reason"]) for h in standing] == [(second["id"], "the object is wrong")]


def test_the_legacy_import_reads_an_optional_reason(review_app, sessions, tmp_path):
    born = {"reviewer": "ana@example.org", "language": "es", "relation": "P19", "template": "[X] nació en [Y]"}
    path = tmp_path / "reviews.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(r, ensure_ascii=False)
            for r in (
                {**born, "decision": "reject", "reason": " se lee como 'murió' "},
                {**born, "reviewer": "bo@example.org", "decision": "accept"},
            )
        )
        + "\n",
        encoding="utf-8",
    )
    with sessions.begin() as s:
        assert import_reviews(s, path).stored == 2
    with sessions() as s:
        rows = s.execute(select(User.email, Decision.decision, Decision.reason, Decision.source).join(User)).all()
    assert sorted(map(tuple, rows)) == [
        ("ana@example.org", "reject", "se lee como 'murió'", "import"),
        ("bo@example.org", "accept", None, "import"),
    ]
    for bad in ({**born, "decision": "accept", "reason": "why not"}, {**born, "decision": "suggest", "reason": "x"}):
        path.write_text(json.dumps(born | {"decision": "unsure"}) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
        with pytest.raises(InputError) as refused, sessions.begin() as s:
            import_reviews(s, path)
        assert (
            str(refused.value)
            == f"{path}, line 2: field 'reason': Only a Reject or an Unsure decision can have a reason."
        )
    with sessions() as s:  # one transaction: the good first line of a refused file is not kept either
        assert s.scalar(select(func.count()).select_from(Decision).where(Decision.decision == "unsure")) == 0


def test_the_migration_adds_the_column_to_a_database_with_decisions(empty_db_url):
    """0018 on a database of 0017 that holds a decision: the decision keeps everything and has no
    reason; a reject with one is stored after it; downgrading drops the column and keeps the rows."""
    from curator.core.db import make_engine, make_session_factory
    from curator.core.migrate import alembic_config, upgrade
    from curator.demo import load_seed
    from curator.review.accounts import create_user
    from curator.review.sampling import assign
    from tests.conftest import SEED

    engine = make_engine(empty_db_url)
    try:
        upgrade(engine, "0017")
        sessions = make_session_factory(engine)
        with sessions.begin() as s:
            load_seed(s, SEED)
        with sessions.begin() as s:
            ana = create_user(s, "ana@example.org", None, "reviewer", "Ana")
            assignment = assign(s, ana, "es")
            first, other = s.scalars(
                select(AssignmentItem)
                .where(AssignmentItem.assignment_id == assignment.id)
                .order_by(AssignmentItem.position)
                .limit(2)
            ).all()
            # a decision as 0017 stores it: every column but the reason (which does not exist yet)
            s.execute(
                insert(Decision).values(
                    item_id=first.id,
                    user_id=ana.id,
                    template_id=first.template_id,
                    language="es",
                    relation_id=first.relation_id,
                    decision="reject",
                    seconds=4.0,
                    request_id="old-1",
                )
            )
            other_id = other.id
        assert "reason" not in {c["name"] for c in inspect(engine).get_columns("decisions")}
        upgrade(engine)
        assert "reason" in {c["name"] for c in inspect(engine).get_columns("decisions")}
        with sessions.begin() as s:
            user = _user(s, "ana@example.org")
            assignment = service.get_assignment(s, user, "es")
            old = service.history(s, user, assignment)
            assert [(h["decision"], h["reason"], h["seconds"]) for h in old] == [("reject", None, 4.0)]
            row, created = service.decide(
                s, user, assignment, service.get_item(s, assignment, other_id), "reject", reason="word order"
            )
            assert created and row.reason == "word order"
        cfg = alembic_config(engine.url.render_as_string(hide_password=False))
        with engine.begin() as connection:
            cfg.attributes["connection"] = connection
            command.downgrade(cfg, "0017")
        assert "reason" not in {c["name"] for c in inspect(engine).get_columns("decisions")}
        with engine.connect() as conn:
            assert conn.execute(select(func.count()).select_from(Decision.__table__)).scalar() == 2
        upgrade(engine)  # and up again: the column back, empty
        with sessions() as s:
            assert s.scalars(select(Decision.reason)).all() == [None, None]
    finally:
        engine.dispose()

"""Reviewing through the JSON API the page uses: sample, context, decisions, undo, suggestions."""

from __future__ import annotations

import math

import pytest
from sqlalchemy import func, select

from curator.core.models import Decision, Suggestion, Template
from curator.review.sampling import sample_size, sample_templates
from tests.plugins.databases import PASSWORD
from tests.plugins.servers import Browser, csrf_from

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_sample_is_reproducible_and_sized_per_relation(review_app, sessions):
    ana = Browser(review_app).login("ana@example.org")
    items = ana.get("/api/v1/languages/es/queue").get_json()["items"]
    with sessions() as s:
        candidates = dict(
            s.execute(
                select(Template.relation_id, func.count())
                .where(Template.language == "es", Template.is_candidate)
                .group_by(Template.relation_id)
            ).all()
        )
    per_relation = {}
    for i in items:
        per_relation[i["relation"]] = per_relation.get(i["relation"], 0) + 1
    assert per_relation == {r: min(n, max(2, math.ceil(0.5 * n))) for r, n in candidates.items()}
    # grouped by relation, in order
    relations = [i["relation"] for i in items]
    assert relations == sorted(relations, key=lambda r: int(r[1:]))
    # Same seed, same sample; another reviewer gets an independent one.
    pool = {"P1": list(range(10)), "P2": list(range(20, 40))}
    assert sample_templates(pool, 0.5, "es:1") == sample_templates(pool, 0.5, "es:1")
    assert sample_templates(pool, 0.5, "es:1") != sample_templates(pool, 0.5, "es:2")
    assert [sample_size(n, 0.5) for n in (1, 2, 3, 4, 5)] == [1, 2, 2, 2, 3]


def test_item_context_has_what_the_reviewer_needs(review_app):
    ana = Browser(review_app).login("ana@example.org")
    queue = ana.get("/api/v1/languages/es/queue").get_json()
    ctx = ana.get(f"/api/v1/languages/es/items/{queue['next']}").get_json()
    assert ctx["relation"]["english"] and ctx["relation"]["lemma"]
    assert ctx["template"]["systems"] and ctx["template"]["votes"] >= 2
    assert len(ctx["examples"]) == 3
    first = ctx["examples"][0]
    filled = "".join(p["text"] for p in first["parts"])
    assert first["subject"] in filled and first["object"] in filled and "[X]" not in filled
    assert any(s["english"] for s in ctx["sources"])
    assert ctx["language"] == {"code": "es", "name": "Spanish", "dir": "ltr"}
    # ids past PostgreSQL's integer (and bigint) are simply not found
    for huge in (2**31, 2**63, 10**30):
        assert ana.get(f"/api/v1/languages/es/items/{huge}").status_code == 404
        assert ana.post(f"/api/v1/languages/es/items/{huge}/decision", {"decision": "accept"}).status_code == 404


def test_decisions_progress_history_and_undo(review_app, sessions):
    ana = Browser(review_app).login("ana@example.org")
    queue = ana.get("/api/v1/languages/es/queue").get_json()
    first, second = queue["items"][0]["id"], queue["items"][1]["id"]
    r = ana.post(f"/api/v1/languages/es/items/{first}/decision", {"decision": "accept", "seconds": 12.5})
    assert r.status_code == 201 and r.get_json()["next"] == second
    assert r.get_json()["progress"]["done"] == 1
    # changing a decision keeps its history
    r = ana.post(f"/api/v1/languages/es/items/{first}/decision", {"decision": "reject", "seconds": 3})
    assert r.status_code == 201
    ctx = ana.get(f"/api/v1/languages/es/items/{first}").get_json()
    assert ctx["decision"]["decision"] == "reject"
    assert [h["decision"] for h in ctx["history"]] == ["accept", "reject"]
    # undo retracts the latest; the previous one stands again
    undone = ana.post("/api/v1/languages/es/undo").get_json()["undone"]
    assert undone["decision"] == "reject" and undone["item_id"] == first
    ctx = ana.get(f"/api/v1/languages/es/items/{first}").get_json()
    assert ctx["decision"]["decision"] == "accept"
    assert [h["retracted"] for h in ctx["history"]] == [False, True]
    past = ana.get("/api/v1/languages/es/history").get_json()["decisions"]
    assert [(d["decision"], d["retracted"]) for d in past] == [("reject", True), ("accept", False)]
    with sessions() as s:
        row = s.scalar(select(Decision).where(Decision.item_id == first, Decision.retracted.is_(False)))
        assert row.seconds == 12.5 and row.source == "web" and row.user_id is not None


def test_an_undo_sent_again_undoes_nothing_more(review_app):
    # the review screen sends an undo through its outbox with a request id; when the answer is
    # lost it sends it again: the decision before must not be undone too
    ana = Browser(review_app).login("ana@example.org")
    first, second = [i["id"] for i in ana.get("/api/v1/languages/es/queue").get_json()["items"][:2]]
    assert ana.post(f"/api/v1/languages/es/items/{first}/decision", {"decision": "accept"}).status_code == 201
    assert ana.post(f"/api/v1/languages/es/items/{second}/decision", {"decision": "reject"}).status_code == 201
    once = ana.post("/api/v1/languages/es/undo", {"request_id": "u-1"}).get_json()
    again = ana.post("/api/v1/languages/es/undo", {"request_id": "u-1"}).get_json()
    assert (once["undone"]["item_id"], once["created"]) == (second, True)
    assert (again["undone"]["id"], again["created"]) == (once["undone"]["id"], False)
    past = ana.get("/api/v1/languages/es/history").get_json()["decisions"]
    assert [(d["item_id"], d["retracted"]) for d in past] == [(second, True), (first, False)]
    # another request id is another undo; a request id is per reviewer and checked like the others
    assert ana.post("/api/v1/languages/es/undo", {"request_id": "u-2"}).get_json()["undone"]["item_id"] == first
    assert ana.post("/api/v1/languages/es/undo", {"request_id": "x" * 65}).status_code == 422
    bo = Browser(review_app).login("bo@example.org")
    assert bo.post("/api/v1/languages/es/undo", {"request_id": "u-1"}).get_json()["undone"] is None


def test_an_undo_names_the_template_last_decided(review_app):
    # the same decision again stores nothing new: undoing it undoes that template's, not the latest row
    ana = Browser(review_app).login("ana@example.org")
    first, second = [i["id"] for i in ana.get("/api/v1/languages/es/queue").get_json()["items"][:2]]
    ana.post(f"/api/v1/languages/es/items/{first}/decision", {"decision": "accept"})
    ana.post(f"/api/v1/languages/es/items/{second}/decision", {"decision": "reject"})
    again = ana.post(f"/api/v1/languages/es/items/{first}/decision", {"decision": "accept"})
    assert again.status_code == 200 and again.get_json()["created"] is False
    undone = ana.post("/api/v1/languages/es/undo", {"item": first}).get_json()["undone"]
    assert undone["item_id"] == first
    assert ana.get(f"/api/v1/languages/es/items/{second}").get_json()["decision"]["decision"] == "reject"
    assert ana.post("/api/v1/languages/es/undo", {"item": first}).get_json()["undone"] is None  # none left there
    assert ana.post("/api/v1/languages/es/undo", {"item": "x"}).status_code == 422


def test_amend_is_validated_and_nothing_is_lost(review_app, sessions):
    ana = Browser(review_app).login("ana@example.org")
    item = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["id"]
    bad = ana.post(f"/api/v1/languages/es/items/{item}/decision", {"decision": "amend", "correction": "[X] nació"})
    assert bad.status_code == 422 and "[Y]" in bad.get_json()["error"]
    same = ana.post(
        f"/api/v1/languages/es/items/{item}/decision",
        {
            "decision": "amend",
            "correction": ana.get(f"/api/v1/languages/es/items/{item}").get_json()["template"]["text"],
        },
    )
    assert same.status_code == 422 and "accept" in same.get_json()["error"]
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Decision)) == 0
    good = ana.post(
        f"/api/v1/languages/es/items/{item}/decision",
        {"decision": "amend", "correction": "  [X] vino al mundo en [y]. "},
    )
    assert good.status_code == 201
    assert good.get_json()["decision"]["correction"] == "[X] vino al mundo en [Y]"
    live = ana.post("/api/v1/validate", {"text": "[X] y [X] en [Y]", "language": "es"}).get_json()
    assert live["valid"] is False and "[X]" in live["message"]
    assert ana.post("/api/v1/validate", {"text": "[X] es de [Y]", "language": "es"}).get_json()["valid"]


def test_suggestions(review_app, sessions):
    ana = Browser(review_app).login("ana@example.org")
    r = ana.post("/api/v1/languages/es/relations/P19/suggestions", {"text": "[X] vio la luz en [Y]."})
    assert r.status_code == 201 and r.get_json()["suggestion"]["text"] == "[X] vio la luz en [Y]"
    again = ana.post("/api/v1/languages/es/relations/P19/suggestions", {"text": "[X] vio la luz en [Y]"})
    assert again.status_code == 200 and again.get_json()["created"] is False
    bad = ana.post("/api/v1/languages/es/relations/P19/suggestions", {"text": "vio la luz"})
    assert bad.status_code == 422
    assert ana.post("/api/v1/languages/es/relations/P999/suggestions", {"text": "[X] y [Y]"}).status_code == 404
    # request ids PostgreSQL would refuse (too long, not text) are bad input on both backends, not a 500
    for request_id in ("x" * 65, 12345):
        r = ana.post(
            "/api/v1/languages/es/relations/P19/suggestions", {"text": "[X] nació en [Y]", "request_id": request_id}
        )
        assert r.status_code == 422 and "request_id" in r.get_json()["error"]
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Suggestion)) == 1


def test_double_submit_is_idempotent(review_app, sessions):
    ana = Browser(review_app).login("ana@example.org")
    item = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["id"]
    body = {"decision": "reject", "request_id": "abc-123"}
    assert ana.post(f"/api/v1/languages/es/items/{item}/decision", body).status_code == 201
    assert ana.post(f"/api/v1/languages/es/items/{item}/decision", body).status_code == 200
    # the same decision again without a request id changes nothing either
    assert ana.post(f"/api/v1/languages/es/items/{item}/decision", {"decision": "reject"}).status_code == 200
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Decision)) == 1


def test_scripts_use_a_bearer_token_without_csrf(review_app, cli):
    token = cli("user", "token", "bo@example.org").output.strip()
    client = review_app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    me = client.get("/api/v1/me", headers=headers).get_json()
    assert me["email"] == "bo@example.org" and me["languages"][0]["code"] == "es"
    item = client.get("/api/v1/languages/es/queue", headers=headers).get_json()["items"][0]["id"]
    r = client.post(f"/api/v1/languages/es/items/{item}/decision", json={"decision": "accept"}, headers=headers)
    assert r.status_code == 201 and r.get_json()["decision"]["source"] == "api"
    bad = client.get("/api/v1/me", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401
    assert client.get("/api/v1/me").status_code == 401  # no cookie, no token


def test_sample_fraction_is_configurable_per_language(cli, sessions):
    from curator.core.models import AssignmentItem
    from curator.review.accounts import create_user
    from curator.review.sampling import assign

    cli("seed")
    cli("review", "fraction", "el", "1")
    assert cli("review", "fraction", "el", "1.5", ok=False).exit_code == 1
    with sessions.begin() as s:
        user = create_user(s, "f@example.org", None)
        greek = assign(s, user, "el")
        spanish = assign(s, user, "es")
        counts = {a.language: s.query(AssignmentItem).filter_by(assignment_id=a.id).count() for a in (greek, spanish)}
        total_el = s.scalar(
            select(func.count()).select_from(Template).where(Template.language == "el", Template.is_candidate)
        )
        assert greek.fraction == 1.0 and counts["el"] == total_el
        per_relation = (
            s.execute(
                select(func.count())
                .select_from(Template)
                .where(Template.language == "es", Template.is_candidate)
                .group_by(Template.relation_id)
            )
            .scalars()
            .all()
        )
        assert spanish.fraction == 0.5 and counts["es"] == sum(sample_size(n, 0.5) for n in per_relation)


def test_control_characters_in_sign_in_or_urls_are_bad_input_on_every_backend(review_app):
    """PostgreSQL cannot compare text holding a NUL: such values must never reach a query as a 500."""
    client = review_app.test_client()
    token = csrf_from(client.get("/login").get_data(as_text=True))
    r = client.post("/login", data={"email": "ana@example.org\x00", "password": PASSWORD, "csrf_token": token})
    assert r.status_code == 401
    boss = Browser(review_app).login("boss@example.org")
    assert boss.get("/admin/languages/%00").status_code == 422
    assert boss.get("/admin/languages/es").status_code == 200

"""A reject's or an unsure's reason through the JSON API the review page posts to (`reason` in the
body, `decision.reason` in the answer), refused with an accept or an amend as a 422 naming the
field, stored once on a resend; and shown, escaped, wherever the decision is shown: the
Disagreements page and its JSON, the Proposals page and its JSON, a language's page, My
decisions, and `curator review disagreements` / `review proposals --json` — on SQLite and
PostgreSQL."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from curator.core.models import Decision, User
from tests.plugins.databases import review_sample
from tests.plugins.servers import Browser

pytestmark = pytest.mark.backends("sqlite", "postgresql")

API = "/api/v1/languages/es"
SCRIPT = "<script>alert('x')</script> dice «murió», no «nació»"
ESCAPED = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; dice «murió», no «nació»"


def _count(sessions) -> int:
    with sessions() as s:
        return s.scalar(select(func.count()).select_from(Decision))


def _decide(browser: Browser, item: int, body: dict):
    return browser.post(f"{API}/items/{item}/decision", json=body)


def test_the_api_stores_and_answers_the_reason(review_app, sessions):
    ana = Browser(review_app).login("ana@example.org")
    items = [i for i, _, _ in review_sample(sessions, "ana@example.org", "es")]
    r = _decide(ana, items[0], {"decision": "reject", "reason": "  el orden de las palabras\n  ", "seconds": 3})
    assert r.status_code == 201 and r.get_json()["decision"]["reason"] == "el orden de las palabras"
    r = _decide(ana, items[1], {"decision": "unsure", "reason": "¿[Y] es un país o una ciudad?"})
    assert r.status_code == 201 and r.get_json()["decision"]["reason"] == "¿[Y] es un país o una ciudad?"
    r = _decide(ana, items[2], {"decision": "accept"})
    assert r.status_code == 201 and r.get_json()["decision"]["reason"] is None
    r = _decide(ana, items[3], {"decision": "reject", "reason": ""})  # empty: no reason
    assert r.status_code == 201 and r.get_json()["decision"]["reason"] is None
    context = ana.get(f"{API}/items/{items[0]}").get_json()
    assert context["decision"]["reason"] == "el orden de las palabras"
    assert [h["reason"] for h in context["history"]] == ["el orden de las palabras"]
    past = {d["item_id"]: d["reason"] for d in ana.get(f"{API}/history").get_json()["decisions"]}
    assert past == {
        items[0]: "el orden de las palabras",
        items[1]: "¿[Y] es un país o una ciudad?",
        items[2]: None,
        items[3]: None,
    }
    with sessions() as s:
        assert s.scalar(select(Decision.reason).where(Decision.item_id == items[0])) == "el orden de las palabras"


def test_a_reason_with_an_accept_or_an_amend_is_a_422_naming_the_field(review_app, sessions):
    ana = Browser(review_app).login("ana@example.org")
    item = review_sample(sessions, "ana@example.org", "es")[0][0]
    refused = "field 'reason': Only a Reject or an Unsure decision can have a reason."
    cases: list[tuple[dict[str, object], str]] = [
        ({"decision": "accept", "reason": "está bien"}, refused),
        ({"decision": "amend", "correction": "[X] vino al mundo en [Y]", "reason": "una errata"}, refused),
        ({"decision": "reject", "reason": 42}, "reason must be a string"),
        ({"decision": "reject", "reason": ["a", "list"]}, "reason must be a string"),
        ({"decision": "reject", "reason": "x" * 2001}, "reason must be at most 2000 characters"),
        ({"decision": "unsure", "reason": "ok \u202e"}, "field 'reason': Not saved: the reason contains an invisible"),
    ]
    for body, error in cases:
        r = _decide(ana, item, body)
        assert r.status_code == 422 and r.is_json, (body, r.get_data(as_text=True))
        assert r.get_json()["error"].startswith(error), (body, r.get_json())
    assert _count(sessions) == 0
    # said in the reviewer's interface language, the field named as the command line names it
    with sessions.begin() as s:
        s.scalar(select(User).where(User.email == "ana@example.org")).locale = "es"
    r = _decide(ana, item, {"decision": "accept", "reason": "está bien"})
    assert r.status_code == 422
    assert r.get_json()["error"] == "campo 'reason': Solo una decisión «Rechazar» o «Con dudas» puede llevar un motivo."
    assert _count(sessions) == 0


def test_a_resend_stores_the_decision_and_its_reason_once(review_app, sessions):
    ana = Browser(review_app).login("ana@example.org")
    item = review_sample(sessions, "ana@example.org", "es")[0][0]
    body = {"decision": "reject", "reason": "no es una paráfrasis", "request_id": "offline-1", "seconds": 5}
    first = _decide(ana, item, body)
    assert first.status_code == 201
    again = _decide(ana, item, {**body, "reason": "edited in the meantime"})
    assert again.status_code == 200 and again.get_json()["created"] is False
    assert again.get_json()["decision"] == first.get_json()["decision"]
    assert _count(sessions) == 1
    # a new reason on the same verdict is a new decision: it supersedes, the first stays in history
    changed = _decide(ana, item, {"decision": "reject", "reason": "el objeto está mal"})
    assert changed.status_code == 201
    history = ana.get(f"{API}/items/{item}").get_json()["history"]
    assert [(h["reason"], h["retracted"]) for h in history] == [
        ("no es una paráfrasis", False),
        ("el objeto está mal", False),
    ]
    undone = ana.post(f"{API}/undo").get_json()["undone"]
    assert undone["reason"] == "el objeto está mal"
    assert ana.get(f"{API}/items/{item}").get_json()["decision"]["reason"] == "no es una paráfrasis"


@pytest.fixture
def reasoned(review_app, sessions):
    """Ana accepts a template Bo rejects with SCRIPT (a disagreement); Bo amends another, and
    Ana, given it for a second look, is unsure of the amendment with SCRIPT too."""
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    mine = {text: i for i, _, text in review_sample(sessions, "ana@example.org", "es")}
    theirs = {text: i for i, _, text in review_sample(sessions, "bo@example.org", "es")}
    shared, amended = [text for text in theirs if text in mine][:2]
    assert _decide(ana, mine[shared], {"decision": "accept"}).status_code == 201
    assert _decide(bo, theirs[shared], {"decision": "reject", "reason": SCRIPT}).status_code == 201
    r = _decide(bo, theirs[amended], {"decision": "amend", "correction": f"{amended} hoy"})
    assert r.status_code == 201
    proposal = r.get_json()["decision"]["correction"]
    second_look = next(i for i, _, text in review_sample(sessions, "ana@example.org", "es") if text == proposal)
    assert _decide(ana, second_look, {"decision": "unsure", "reason": SCRIPT}).status_code == 201
    return {"shared": shared, "proposal": proposal}


def test_the_maintainer_pages_show_the_reason_escaped(review_app, reasoned):
    boss = Browser(review_app).login("boss@example.org")
    page = boss.get("/admin/languages/es/disagreements")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and ESCAPED in html and "<script>alert" not in html
    assert f'<td class="decision-reason"><q><bdi dir="auto">{ESCAPED}</bdi></q></td>' in html
    api = boss.get(f"{API}/disagreements").get_json()
    (shared,) = [item for item in api["items"] if item["template"] == reasoned["shared"]]
    assert [(d["reviewer"], d["decision"], d["reason"]) for d in shared["decisions"]] == [
        ("ana@example.org", "accept", None),
        ("bo@example.org", "reject", SCRIPT),
    ]
    page = boss.get("/admin/languages/es/proposals?status=all")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and ESCAPED in html and "<script>alert" not in html
    assert f'<q class="decision-reason"><bdi dir="auto">{ESCAPED}</bdi></q>' in html
    listed = boss.get(f"{API}/proposals").get_json()["proposals"]
    (proposal,) = [p for p in listed if p["text"] == reasoned["proposal"]]
    assert proposal["verdicts"] == [
        {"reviewer": "ana@example.org", "decision": "unsure", "correction": None, "reason": SCRIPT}
    ]
    page = boss.get("/admin/languages/es?disagreement=1")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and ESCAPED in html and "<script>alert" not in html


def test_my_decisions_show_the_reason_escaped(review_app, reasoned):
    bo = Browser(review_app).login("bo@example.org")
    page = bo.get("/review/es/history")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "<script>alert" not in html
    assert f'<p class="history-reason">Reason: <q><bdi dir="auto">{ESCAPED}</bdi></q></p>' in html
    assert html.count('class="history-reason"') == 1  # the amend has none


def test_the_cli_prints_the_reason_beside_the_decision(reasoned, cli):
    text = cli("review", "disagreements", "es").output
    assert f"reject  bo@example.org: {SCRIPT}" in text and "accept  ana@example.org\n" in text
    listed = json.loads(cli("review", "disagreements", "es", "--json").output)
    (shared,) = [item for item in listed["items"] if item["template"] == reasoned["shared"]]
    assert {d["reviewer"]: d["reason"] for d in shared["decisions"]} == {
        "ana@example.org": None,
        "bo@example.org": SCRIPT,
    }
    proposals = json.loads(cli("review", "proposals", "es", "--json").output)
    (proposal,) = [p for p in proposals if p["text"] == reasoned["proposal"]]
    assert proposal["verdicts"] == [
        {"reviewer": "ana@example.org", "decision": "unsure", "correction": None, "reason": SCRIPT}
    ]


def test_a_multi_line_reason_stays_on_its_line_in_the_cli(review_app, sessions, cli):
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    mine = {text: i for i, _, text in review_sample(sessions, "ana@example.org", "es")}
    shared = next(text for _, _, text in review_sample(sessions, "bo@example.org", "es") if text in mine)
    theirs = {text: i for i, _, text in review_sample(sessions, "bo@example.org", "es")}
    assert _decide(ana, mine[shared], {"decision": "accept"}).status_code == 201
    assert _decide(bo, theirs[shared], {"decision": "reject", "reason": "uno\ndos"}).status_code == 201
    text = cli("review", "disagreements", "es").output
    assert "reject  bo@example.org: uno⟨" in text and "⟩dos\n" in text

"""Issue 28 §1: a reviewer's amendment or suggestion is a proposal, put in front of the other
reviewers of the language ("Proposed by another reviewer") — through the JSON API, the import,
a later assignment, a rebuilt candidate set, and in Chromium by keyboard."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from curator.core.models import Assignment, AssignmentItem, Decision, Template, User
from curator.review.accounts import create_user
from curator.review.sampling import assign
from tests.plugins.databases import PASSWORD, review_sample
from tests.plugins.servers import Browser
from tests.web.test_review_ui import sign_in, start_reviewing, wait_for_item

pytestmark = pytest.mark.backends("sqlite", "postgresql")

AMENDED = "[X] vio la luz en [Y]"
SUGGESTED = "[X] tiene su origen en [Y]"


def items_with(sessions, email: str, lang: str, text: str) -> list[tuple[int, int, bool]]:
    """(item id, position, extra) of the reviewer's items whose template has this text."""
    with sessions() as s:
        return s.execute(
            select(AssignmentItem.id, AssignmentItem.position, AssignmentItem.extra)
            .join(Template, Template.id == AssignmentItem.template_id)
            .join(Assignment, Assignment.id == AssignmentItem.assignment_id)
            .join(User, User.id == Assignment.user_id)
            .where(User.email == email, Assignment.language == lang, Template.text == text)
        ).all()


def amend_first(ana: Browser, request_id: str) -> tuple[int, str]:
    """Ana amends her first Spanish item; returns (item id, the template she amended)."""
    first = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]
    body = {"decision": "amend", "correction": AMENDED, "request_id": request_id}
    r = ana.post(f"/api/v1/languages/es/items/{first['id']}/decision", body)
    assert r.status_code in (200, 201), r.get_json()
    return first["id"], first["template"]


def test_an_amendment_reaches_the_other_reviewer_once_and_his_accept_stands(review_app, sessions, cli, tmp_path):
    ana = Browser(review_app).login("ana@example.org")
    bo = Browser(review_app).login("bo@example.org")
    before = bo.get("/api/v1/languages/es/queue").get_json()
    # a refused correction (no [Y]) is a JSON error naming the field, and enqueues nothing
    first = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["id"]
    r = ana.post(f"/api/v1/languages/es/items/{first}/decision", {"decision": "amend", "correction": "[X] vio la luz"})
    assert r.status_code == 422 and "[Y]" in r.get_json()["error"]
    assert bo.get("/api/v1/languages/es/queue").get_json()["items"] == before["items"]
    ana_item, original = amend_first(ana, "amend-1")
    amend_first(ana, "amend-1")  # the same request resent
    amend_first(ana, "amend-2")  # the same decision again, another request id: it stands already

    [(item_id, position, extra)] = items_with(sessions, "bo@example.org", "es", AMENDED)
    # Bo has decided nothing: the proposal (P19) comes with his remaining P19 items, after the
    # last of them, not between them (issue 37 §2: a relation's items stay together)
    assert [i["relation"] for i in before["items"][:4]] == ["P19", "P19", "P19", "P30"]
    assert extra and position == 3
    queue = bo.get("/api/v1/languages/es/queue").get_json()
    assert [i["id"] for i in queue["items"]][:5] == [
        *(i["id"] for i in before["items"][:3]),
        item_id,
        before["items"][3]["id"],
    ]
    assert queue["progress"]["total"] == before["progress"]["total"] + 1
    with sessions() as s:
        template = s.scalars(select(Template).where(Template.language == "es", Template.text == AMENDED)).one()
        assert (template.is_candidate, template.votes, template.systems) == (False, 0, [])
    # the proposer and the Greek reviewer do not get it; Ana's own item is no proposal to her
    assert items_with(sessions, "ana@example.org", "es", AMENDED) == []
    assert items_with(sessions, "eleni@example.org", "el", AMENDED) == []
    assert ana.get(f"/api/v1/languages/es/items/{ana_item}").get_json()["proposal"] is None

    r = bo.get(f"/api/v1/languages/es/items/{item_id}")
    ctx = r.get_json()
    assert ctx["proposal"]["kind"] == "amend" and ctx["proposal"]["amends"] == original
    # what it changes, segment by segment (review/text_diff.py): the equal and deleted parts
    # give the original, the equal and inserted ones the proposal
    diff = ctx["proposal"]["diff"]
    assert "".join(d["text"] for d in diff if d["op"] != "insert") == original
    assert "".join(d["text"] for d in diff if d["op"] != "delete") == AMENDED
    assert ctx["template"] == {"id": template.id, "text": AMENDED, "votes": 0, "systems": []}
    assert ctx["sources"] == [] and ctx["decision"] is None and len(ctx["examples"]) == 3
    assert "ana@example.org" not in r.get_data(as_text=True) and '"Ana"' not in r.get_data(as_text=True)

    # end to end with the release (review/proposals.py's rule): one reviewer's amendment waits...
    cli("release", "build", "v0")
    preview = json.loads(cli("release", "preview", "--json").output)
    waiting = [w["pattern"] for p in preview["relations"] if p["language"] == "es" for w in p["waiting"]]
    assert AMENDED in waiting
    r = bo.post(f"/api/v1/languages/es/items/{item_id}/decision", {"decision": "accept", "request_id": "bo-1"})
    assert r.status_code == 201 and r.get_json()["progress"]["done"] == 1
    # ...and ships, checked by a human, once the second reviewer accepted it in his queue
    cli("release", "build", "reviewed", "--from-review")
    cli("release", "export", "reviewed", tmp_path / "reviewed")
    lines = [json.loads(line) for f in (tmp_path / "reviewed" / "patterns" / "es").glob("*.jsonl") for line in f.open()]
    assert {"pattern": AMENDED, "checked-by-human": True} in [
        {k: line[k] for k in ("pattern", "checked-by-human")} for line in lines
    ]
    manifest = json.loads((tmp_path / "reviewed" / "manifest.json").read_text())
    assert manifest["params"]["proposals"]["reviewers"] >= 1
    with sessions() as s:
        bo_id = s.scalar(select(User.id).where(User.email == "bo@example.org"))
        accepted = s.execute(
            select(Decision.user_id, Decision.decision, Decision.retracted).where(Decision.template_id == template.id)
        ).all()
    assert accepted == [(bo_id, "accept", False)]  # the second reviewer's standing accept

    # rebuilding the candidates keeps the proposal's template, Bo's item and his decision
    cli("candidates", "build")
    assert items_with(sessions, "bo@example.org", "es", AMENDED) == [(item_id, 3, True)]
    queue = bo.get("/api/v1/languages/es/queue").get_json()
    assert next(i for i in queue["items"] if i["id"] == item_id)["decision"] == "accept"
    assert queue["progress"]["total"] == before["progress"]["total"] + 1 and queue["progress"]["done"] == 1
    with sessions() as s:
        assert s.get(Template, template.id).text == AMENDED


def test_suggestions_imports_and_a_later_reviewer(review_app, sessions, cli, tmp_path):
    ana = Browser(review_app).login("ana@example.org")
    relation = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["relation"]
    for _ in range(2):  # sent twice: stored once, enqueued once
        r = ana.post(f"/api/v1/languages/es/relations/{relation}/suggestions", {"text": SUGGESTED, "request_id": "s-1"})
        assert r.status_code in (200, 201)
    [(item_id, _, _)] = items_with(sessions, "bo@example.org", "es", SUGGESTED)
    bo = Browser(review_app).login("bo@example.org")
    assert bo.get(f"/api/v1/languages/es/items/{item_id}").get_json()["proposal"] == {
        "kind": "suggest",
        "amends": None,
        "diff": [],
    }
    # editing the suggestion on "My decisions" (a form) proposes the new text; a refused one changes nothing
    suggestion_id = r.get_json()["suggestion"]["id"]
    edited = "[X] procede de [Y]"
    for text in ("[X] procede de", edited, edited):
        r = ana.client.post(
            f"/review/es/suggestions/{suggestion_id}/edit", data={"text": text, "csrf_token": ana.token}
        )
        assert r.status_code == 302
    assert len(items_with(sessions, "bo@example.org", "es", edited)) == 1
    assert items_with(sessions, "bo@example.org", "es", "[X] procede de") == []
    amend_first(ana, "amend-1")

    # an imported amendment is confirmed by import: nobody gets it for a second look
    bo_first = review_sample(sessions, "bo@example.org", "es")[0]
    line = {
        "reviewer": "Carla",
        "language": "es",
        "relation": bo_first[1],
        "template": bo_first[2],
        "decision": "amend",
        "correction": "[X] fue dado a luz en [Y]",
    }
    path = tmp_path / "import.jsonl"
    path.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    cli("review", "import", path)
    assert items_with(sessions, "bo@example.org", "es", line["correction"]) == []
    assert items_with(sessions, "ana@example.org", "es", line["correction"]) == []

    # a reviewer assigned later gets the standing proposals (not the imported one), both of P19:
    # after her P19 items, together
    with sessions.begin() as s:
        dee = create_user(s, "dee@example.org", PASSWORD, "reviewer", "Dee")
        assign(s, dee, "es")
    got = {text: items_with(sessions, "dee@example.org", "es", text) for text in (edited, AMENDED)}
    assert sorted(position for [(_, position, _)] in got.values()) == [3, 4]
    assert items_with(sessions, "dee@example.org", "es", SUGGESTED) == []  # withdrawn by the edit
    assert items_with(sessions, "dee@example.org", "es", line["correction"]) == []
    # Carla (imported, assigned by the import after Ana's proposals) got them too, once each
    assert len(items_with(sessions, "carla@imported.invalid", "es", AMENDED)) == 1


@pytest.mark.backends("sqlite")
def test_bo_meets_the_proposal_and_accepts_it_by_keyboard(chromium, live, review_app, sessions):
    bo_items = review_sample(sessions, "bo@example.org", "es")
    context = chromium.new_context(viewport={"width": 1100, "height": 900}, bypass_csp=True)
    page = context.new_page()
    sign_in(page, live.url, "bo@example.org")
    bo = Browser(review_app).login("bo@example.org")
    for n, (done, _, _) in enumerate(bo_items[:2]):  # his first two P19 items: his current one is the last
        r = bo.post(f"/api/v1/languages/es/items/{done}/decision", {"decision": "accept", "request_id": f"bo-{n}"})
        assert r.status_code == 201
    page.goto(live.url + "/review/es")
    start_reviewing(page)
    wait_for_item(page, bo_items[2][0])
    assert page.locator("#proposal").is_hidden()

    # Ana amends (P19) while Bo's page is open: the item after his current one (his last P19) is
    # now her proposal
    ana = Browser(review_app).login("ana@example.org")
    _, original = amend_first(ana, "amend-1")
    [(item_id, _, _)] = items_with(sessions, "bo@example.org", "es", AMENDED)
    assert review_sample(sessions, "bo@example.org", "es")[3][0] == item_id
    page.keyboard.press("a")  # his current item; the proposal comes next, though his page did not list it
    wait_for_item(page, item_id)
    assert f"4 of {len(bo_items) + 1} overall" in page.locator("#position").inner_text()
    assert page.locator("#proposal .badge").inner_text() == "Proposed by another reviewer"
    assert page.locator("#proposal-original").inner_text() == original
    assert page.locator("#template").inner_text() == AMENDED
    assert "Ana" not in page.locator("#item-card").inner_text()

    # in Arabic: the badge translated and right to left; the Spanish template keeps its direction
    context.add_cookies([{"name": "curator_locale", "value": "ar", "url": live.url}])
    page.reload()  # the address is /review/es#item-<id> already: the page opens that item again
    page.wait_for_selector("html[lang='ar']")
    wait_for_item(page, item_id)
    badge = page.locator("#proposal .badge")
    assert badge.inner_text() == "اقترحه مراجع آخر"
    assert badge.evaluate("el => getComputedStyle(el).direction") == "rtl"
    assert page.locator("#proposal-original").evaluate("el => getComputedStyle(el).direction") == "ltr"
    page.keyboard.press("a")
    page.wait_for_function(f"document.getElementById('item-card').dataset.item !== '{item_id}'")
    context.close()
    with sessions() as s:
        decisions = s.execute(
            select(User.email, Decision.decision, Decision.source)
            .join(User, User.id == Decision.user_id)
            .join(Template, Template.id == Decision.template_id)
            .where(Template.text == AMENDED, Decision.retracted.is_(False))
        ).all()
    assert decisions == [("bo@example.org", "accept", "web")]

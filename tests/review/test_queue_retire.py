"""Issue 36 §4: queues stay true. A proposal that stops existing — a suggestion withdrawn or
edited to another text, an amendment undone or replaced by another decision — leaves the other
reviewers' queues at once (its second-look items retire), unless someone else still proposes the
same text; proposed again, the same items come back. A retired item is out of the queue, the
progress and the statistics, its decisions stay in history, and a decision sent on it (the page
still open on it) stores nothing: 409 `retired`, and the page moves on with a note — in Chromium."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from sqlalchemy import select

from curator.core.db import unit_of_work
from curator.core.models import Assignment, AssignmentItem, Decision, Template, User
from curator.review import progress as queueing
from curator.review.accounts import create_user
from curator.review.sampling import assign
from curator.review.service import decide, get_assignment, get_item, history, undo
from curator.review.stats import review_summary
from curator.review.suggestions import edit_suggestion, suggest, withdraw_suggestion
from tests.plugins.databases import PASSWORD, review_sample
from tests.plugins.servers import Browser
from tests.web.test_review_ui import sign_in, start_reviewing, wait_for_item

pytestmark = pytest.mark.backends("sqlite", "postgresql")

SUGGESTED = "[X] tiene su origen en [Y]"
EDITED = "[X] procede de [Y]"
FIRST = "[X] vio la luz en [Y]"
SECOND = "[X] fue dado a luz en [Y]"

ANA, BO, DEE = "ana@example.org", "bo@example.org", "dee@example.org"


@contextmanager
def reviewer(sessions, email: str):
    """(session, user, Spanish assignment) of one reviewer, in a unit of work of its own."""
    with unit_of_work(sessions) as s:
        user = s.scalars(select(User).where(User.email == email)).one()
        yield s, user, get_assignment(s, user, "es")


def items_of(sessions, email: str, text: str) -> list[tuple[int, bool, bool]]:
    """(item id, extra, retired) of the reviewer's Spanish items whose template has this text."""
    with sessions() as s:
        rows = s.execute(
            select(AssignmentItem.id, AssignmentItem.extra, AssignmentItem.retired_at)
            .join(Template, Template.id == AssignmentItem.template_id)
            .join(Assignment, Assignment.id == AssignmentItem.assignment_id)
            .join(User, User.id == Assignment.user_id)
            .where(User.email == email, Assignment.language == "es", Template.text == text)
        ).all()
    return [(item_id, extra, retired_at is not None) for item_id, extra, retired_at in rows]


def queued(sessions, email: str) -> tuple[list[str], dict]:
    """The reviewer's queue (template texts in order) and progress, as the screens read them."""
    with sessions() as s:
        user = s.scalars(select(User).where(User.email == email)).one()
        assignment = get_assignment(s, user, "es")
        items = queueing.queue(s, assignment)
        return [i.template for i in items], dict(queueing.progress(s, assignment))


def decide_on(sessions, email: str, item_id: int, kind: str, correction: str | None = None):
    with reviewer(sessions, email) as (s, user, assignment):
        return decide(s, user, assignment, get_item(s, assignment, item_id), kind, correction)[0].id


def test_a_withdrawn_suggestion_leaves_the_other_queue_and_comes_back_when_suggested_again(review_app, sessions):
    bo_items = review_sample(sessions, BO, "es")
    texts_before, before = queued(sessions, BO)
    with reviewer(sessions, ANA) as (s, ana, assignment):
        suggestion_id = suggest(s, ana, assignment, bo_items[0][1], SUGGESTED)[0].id
    [(item_id, extra, retired)] = items_of(sessions, BO, SUGGESTED)
    assert extra and not retired
    texts, progress = queued(sessions, BO)
    assert texts[3] == SUGGESTED and progress["total"] == before["total"] + 1  # after Bo's three P19 items

    with reviewer(sessions, ANA) as (s, ana, assignment):
        withdraw_suggestion(s, ana, assignment, suggestion_id)
    assert items_of(sessions, BO, SUGGESTED) == [(item_id, True, True)]  # at once, in the same unit of work
    assert queued(sessions, BO) == (texts_before, before)
    with sessions() as s:
        bo_assignment = s.scalars(select(Assignment).join(User).where(User.email == BO)).one()
        _, upcoming = queueing.progress_and_next(s, bo_assignment, after=0)
    _, upcoming_after_block = queueing.progress_and_next(s, bo_assignment, after=2)
    assert upcoming == bo_items[1][0]
    assert upcoming_after_block == bo_items[3][0]  # not the retired item, which was next
    # a reviewer who joins now does not get the withdrawn text
    with unit_of_work(sessions) as s:
        assign(s, create_user(s, DEE, PASSWORD, "reviewer", "Dee"), "es")
    assert items_of(sessions, DEE, SUGGESTED) == []

    # Bo goes on; Ana suggests the same text again: the same item comes back, next in his queue
    decide_on(sessions, BO, bo_items[0][0], "accept")
    with reviewer(sessions, ANA) as (s, ana, assignment):
        suggest(s, ana, assignment, bo_items[0][1], SUGGESTED)
    assert items_of(sessions, BO, SUGGESTED) == [(item_id, True, False)]
    texts, progress = queued(sessions, BO)
    assert texts[:5] == [*(text for _, _, text in bo_items[:3]), SUGGESTED, bo_items[3][2]]
    assert (progress["done"], progress["total"]) == (1, before["total"] + 1)
    assert len(items_of(sessions, DEE, SUGGESTED)) == 1 and not items_of(sessions, DEE, SUGGESTED)[0][2]


def test_an_edited_suggestion_retires_the_old_text_and_proposes_the_new(review_app, sessions):
    relation = review_sample(sessions, BO, "es")[0][1]
    with reviewer(sessions, ANA) as (s, ana, assignment):
        suggestion_id = suggest(s, ana, assignment, relation, SUGGESTED)[0].id
    with reviewer(sessions, ANA) as (s, ana, assignment):
        edit_suggestion(s, ana, assignment, suggestion_id, EDITED)
    [(_, _, retired)] = items_of(sessions, BO, SUGGESTED)
    [(_, _, edited_retired)] = items_of(sessions, BO, EDITED)
    assert retired and not edited_retired
    texts, _ = queued(sessions, BO)
    assert EDITED in texts and SUGGESTED not in texts


def test_an_amendment_replaced_or_undone_retires_and_one_standing_again_comes_back(review_app, sessions):
    ana_items = review_sample(sessions, ANA, "es")
    bo_items = review_sample(sessions, BO, "es")
    item, relation, amended = ana_items[0]
    decide_on(sessions, ANA, item, "amend", FIRST)
    [(first_item, _, retired)] = items_of(sessions, BO, FIRST)
    assert not retired
    decide_on(sessions, ANA, item, "amend", SECOND)  # another text: the first is no proposal any more
    assert items_of(sessions, BO, FIRST) == [(first_item, True, True)]
    [(second_item, _, retired)] = items_of(sessions, BO, SECOND)
    assert not retired
    with reviewer(sessions, ANA) as (s, ana, assignment):
        assert undo(s, ana, assignment)[0].correction == SECOND
    # undone: the second text leaves; the first amendment stands again and comes back
    assert items_of(sessions, BO, SECOND) == [(second_item, True, True)]
    assert items_of(sessions, BO, FIRST) == [(first_item, True, False)]
    decide_on(sessions, ANA, item, "accept")  # replaced by another kind of decision
    assert items_of(sessions, BO, FIRST) == [(first_item, True, True)]
    texts, _ = queued(sessions, BO)
    assert FIRST not in texts and SECOND not in texts

    # an amendment to the text of a candidate Bo has in his sample: that sampled item is no
    # second look (nothing added), and undoing the amendment never retires it
    candidate = next(t for i, r, t in bo_items if r == relation and t != amended)
    [(sampled, extra, _)] = items_of(sessions, BO, candidate)
    decide_on(sessions, ANA, item, "amend", candidate)
    with reviewer(sessions, ANA) as (s, ana, assignment):
        undo(s, ana, assignment)
    assert not extra and items_of(sessions, BO, candidate) == [(sampled, False, False)]


def test_the_item_stays_while_someone_else_proposes_the_same_text(review_app, sessions):
    with unit_of_work(sessions) as s:
        assign(s, create_user(s, DEE, PASSWORD, "reviewer", "Dee"), "es")
    bo_items = review_sample(sessions, BO, "es")
    bo_item, relation, _ = bo_items[0]
    with reviewer(sessions, ANA) as (s, ana, assignment):
        suggestion_id = suggest(s, ana, assignment, relation, SUGGESTED)[0].id
    decide_on(sessions, BO, bo_item, "amend", SUGGESTED)  # Bo proposes the same text: Ana gets it too
    [(dee_item, _, _)] = items_of(sessions, DEE, SUGGESTED)
    [(ana_item, _, _)] = items_of(sessions, ANA, SUGGESTED)
    [(bo_own, _, _)] = items_of(sessions, BO, SUGGESTED)  # Ana's proposal in front of Bo

    with reviewer(sessions, ANA) as (s, ana, assignment):
        withdraw_suggestion(s, ana, assignment, suggestion_id)
    # Bo's amendment still proposes it to Dee and Ana; to Bo only his own proposal is left
    assert items_of(sessions, DEE, SUGGESTED) == [(dee_item, True, False)]
    assert items_of(sessions, ANA, SUGGESTED) == [(ana_item, True, False)]
    assert items_of(sessions, BO, SUGGESTED) == [(bo_own, True, True)]

    with reviewer(sessions, BO) as (s, bo, assignment):
        assert undo(s, bo, assignment)[0].item_id == bo_item
    assert items_of(sessions, DEE, SUGGESTED) == [(dee_item, True, True)]
    assert items_of(sessions, ANA, SUGGESTED) == [(ana_item, True, True)]


def test_a_retired_item_leaves_progress_and_stats_and_its_decision_stays_in_history(review_app, sessions):
    bo_items = review_sample(sessions, BO, "es")
    _, before = queued(sessions, BO)
    assigned_before = review_summary(sessions(), ["es"]).languages[0].assigned
    with reviewer(sessions, ANA) as (s, ana, assignment):
        suggestion_id = suggest(s, ana, assignment, bo_items[0][1], SUGGESTED)[0].id
    [(item_id, _, _)] = items_of(sessions, BO, SUGGESTED)
    decide_on(sessions, BO, bo_items[0][0], "accept")
    accepted = decide_on(sessions, BO, item_id, "accept")  # Bo accepts Ana's suggestion...
    _, progress = queued(sessions, BO)
    assert (progress["done"], progress["total"]) == (2, before["total"] + 1)
    summary = review_summary(sessions(), ["es"]).languages[0]
    assert (summary.assigned, summary.done, summary.accepted) == (assigned_before + 1, 2, 2)

    with reviewer(sessions, ANA) as (s, ana, assignment):  # ...then she withdraws it
        withdraw_suggestion(s, ana, assignment, suggestion_id)
    _, progress = queued(sessions, BO)
    assert (progress["done"], progress["total"]) == (1, before["total"])
    summary = review_summary(sessions(), ["es"]).languages[0]
    # out of the queues' counts; what Bo said of the template is still what he said
    assert (summary.assigned, summary.done, summary.accepted) == (assigned_before, 1, 2)
    with reviewer(sessions, BO) as (s, bo, assignment):
        [row] = [h for h in history(s, bo, assignment) if h["id"] == accepted]
        assert (row["retired"], row["standing"], row["retracted"]) == (True, True, False)
        assert undo(s, bo, assignment)[0].item_id == bo_items[0][0]  # not the retired item's decision
    with sessions() as s:
        assert s.get(Decision, accepted).retracted is False
    # suggested again: Bo's item comes back where it was, with his accept standing
    with reviewer(sessions, ANA) as (s, ana, assignment):
        suggest(s, ana, assignment, bo_items[0][1], SUGGESTED)
    texts, progress = queued(sessions, BO)
    assert texts[3] == SUGGESTED and (progress["done"], progress["total"]) == (1, before["total"] + 1)


def test_the_api_refuses_a_decision_on_a_retired_item_and_names_the_next(review_app, sessions):
    ana = Browser(review_app).login(ANA)
    bo = Browser(review_app).login(BO)
    relation = bo.get("/api/v1/languages/es/queue").get_json()["items"][0]["relation"]
    made = {}
    for text in (SUGGESTED, EDITED):
        r = ana.post(f"/api/v1/languages/es/relations/{relation}/suggestions", {"text": text})
        made[text] = r.get_json()["suggestion"]["id"]
    queue = bo.get("/api/v1/languages/es/queue").get_json()
    ids = [i["id"] for i in queue["items"]]
    [(item_id, _, _)] = items_of(sessions, BO, SUGGESTED)
    [(edited_item, _, _)] = items_of(sessions, BO, EDITED)
    # Bo accepts the second one (stored), then Ana withdraws both
    r = bo.post(f"/api/v1/languages/es/items/{edited_item}/decision", {"decision": "accept", "request_id": "bo-1"})
    assert r.status_code == 201
    for suggestion_id in made.values():
        assert ana.post(f"/api/v1/languages/es/suggestions/{suggestion_id}/withdraw").status_code == 200

    r = bo.post(
        f"/api/v1/languages/es/items/{item_id}/decision",
        {"decision": "accept", "request_id": "bo-2"},
        headers={"Accept-Language": "es"},
    )
    body = r.get_json()
    assert r.status_code == 409 and body["code"] == "retired"
    assert body["error"].startswith("Quien hizo esta propuesta la retiró")  # in the page's language
    later = [i for i in ids[ids.index(item_id) + 1 :] if i != edited_item]
    assert body["next"] == later[0]
    assert body["progress"]["total"] == queue["progress"]["total"] - 2
    assert body["progress"]["done"] == 0
    with sessions() as s:
        assert s.scalars(select(Decision).where(Decision.item_id == item_id)).all() == []
    r = bo.get(f"/api/v1/languages/es/items/{item_id}")
    assert r.status_code == 409 and r.get_json()["code"] == "retired" and r.get_json()["next"] == later[0]
    assert item_id not in [i["id"] for i in bo.get("/api/v1/languages/es/queue").get_json()["items"]]
    # the resend of the decision stored before the item retired is answered as before: stored once
    r = bo.post(f"/api/v1/languages/es/items/{edited_item}/decision", {"decision": "accept", "request_id": "bo-1"})
    assert r.status_code == 200 and r.get_json()["created"] is False
    # a new decision on it is refused like any other on a retired item
    r = bo.post(f"/api/v1/languages/es/items/{edited_item}/decision", {"decision": "reject", "request_id": "bo-3"})
    assert r.status_code == 409 and r.get_json()["code"] == "retired"
    with sessions() as s:
        assert s.scalars(select(Decision.decision).where(Decision.item_id == edited_item)).all() == ["accept"]
    # "My decisions" keeps that accept, marked, with no link back to an item no longer in the queue
    page = bo.get("/review/es/history").get_data(as_text=True)
    assert page.count("proposal withdrawn by its author: no longer in your queue") == 1
    assert f"#item-{edited_item}" not in page


@pytest.mark.backends("sqlite")
def test_the_page_open_on_a_withdrawn_suggestion_moves_on_with_a_note(chromium, live, review_app, sessions):
    bo_items = review_sample(sessions, BO, "es")
    for done, _, _ in bo_items[:2]:  # Bo's first two P19 items: his current one is his last P19
        decide_on(sessions, BO, done, "accept")
    with reviewer(sessions, ANA) as (s, ana, assignment):
        suggestion_id = suggest(s, ana, assignment, bo_items[0][1], SUGGESTED)[0].id
    [(item_id, _, _)] = items_of(sessions, BO, SUGGESTED)
    context = chromium.new_context(viewport={"width": 1100, "height": 900}, bypass_csp=True)
    page = context.new_page()
    sign_in(page, live.url, BO)
    page.goto(live.url + "/review/es")
    start_reviewing(page)
    wait_for_item(page, bo_items[2][0])
    page.keyboard.press("a")
    wait_for_item(page, item_id)  # Ana's suggestion, for a second look
    context.add_cookies([{"name": "curator_locale", "value": "es", "url": live.url}])
    page.reload()  # in Spanish: the address is /review/es#item-<id>, the page opens that item again
    page.wait_for_selector("html[lang='es']")
    wait_for_item(page, item_id)
    assert page.locator("#template").inner_text() == SUGGESTED
    assert page.locator("#proposal").is_visible()

    with reviewer(sessions, ANA) as (s, ana, assignment):  # Ana withdraws it while Bo looks at it
        withdraw_suggestion(s, ana, assignment, suggestion_id)
    page.locator("#accept").click()
    wait_for_item(page, bo_items[3][0])  # on to the next item
    page.wait_for_function("document.getElementById('status').textContent.length > 0")
    status = page.locator("#status").inner_text()
    assert status == "Quien hizo esta propuesta la retiró; pasamos a la siguiente plantilla."
    assert page.locator("#status").is_visible()
    total = len(bo_items)
    assert f"3 de {total} revisadas" in page.locator("#progress-text").inner_text()
    assert f"4 de {total} en total" in page.locator("#position").inner_text()
    context.close()
    with sessions() as s:
        assert s.scalars(select(Decision).where(Decision.item_id == item_id)).all() == []

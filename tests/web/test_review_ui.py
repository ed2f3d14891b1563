"""The review screen in headless Chromium, driven like a volunteer with the keyboard."""

from __future__ import annotations

import re

from sqlalchemy import select

from curator.core.models import AssignmentItem, Decision, Suggestion, Template
from tests.plugins.databases import PASSWORD, WriteLock, review_sample
from tests.plugins.servers import signed_in_state


def sign_in(page, base: str, email: str) -> None:
    state = signed_in_state(base, email)  # signed in once per session (conftest.browser_template)
    if state is not None:
        page.context.add_cookies(state["cookies"])
        page.goto(base + "/")
        page.wait_for_url(base + "/")
        return
    page.goto(base + "/login")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(base + "/")


def focused(locator) -> bool:
    return locator.evaluate("el => el === document.activeElement")


def current_template(page) -> str:
    return page.locator("#template").inner_text()


def wait_for_item(page, item_id: int) -> None:
    page.wait_for_function(f"document.getElementById('item-card').dataset.item === '{item_id}'")


def start_reviewing(page) -> None:
    """A first visit shows the guidelines; "Start reviewing" leads to the first item."""
    page.wait_for_selector("#review[data-ready='1']")
    if page.locator("#intro").is_visible():
        page.get_by_role("button", name="Start reviewing").click()
        page.wait_for_selector("#intro", state="hidden")


sample = review_sample


def test_keyboard_review_of_a_relation_then_resume(chromium, live, sessions):
    items = sample(sessions, "ana@example.org", "es")
    relation = items[0][1]
    in_relation = [i for i in items if i[1] == relation]
    assert len(in_relation) >= 3

    context = chromium.new_context(viewport={"width": 1100, "height": 900}, bypass_csp=True)
    page = context.new_page()
    sign_in(page, live.url, "ana@example.org")
    page.locator("li.card", has_text="Spanish").get_by_role("link", name="Start").click()
    start_reviewing(page)
    wait_for_item(page, in_relation[0][0])
    assert current_template(page) == in_relation[0][2]
    assert "Template 1 of" in page.locator("#position").inner_text()

    page.keyboard.press("a")  # accept
    wait_for_item(page, in_relation[1][0])
    page.keyboard.press("r")  # reject
    wait_for_item(page, in_relation[2][0])

    # amend: an invalid correction is refused with a message and the text stays
    page.keyboard.press("e")
    field = page.locator("#amend-text")
    assert focused(field) and field.input_value() == in_relation[2][2]
    field.fill("[X] nació")
    page.keyboard.press("Enter")
    page.wait_for_function("document.getElementById('amend-msg').textContent.includes('[Y]')")
    assert field.input_value() == "[X] nació" and field.is_visible()
    assert page.locator("#item-card").get_attribute("data-item") == str(in_relation[2][0])
    # the live check shows the form that will be stored (lower-cased, as in mParaRel)
    assert "stored in lower case" in page.locator("#amend-case").inner_text()
    field.fill("[X] vino al mundo en [Y] Central.")
    page.wait_for_function("document.getElementById('amend-msg').textContent.includes('saved as')")
    assert (
        page.locator("#amend-msg").inner_text()
        == "✓ valid template — will be saved as “[X] vino al mundo en [Y] central”"
    )
    field.fill("[X] vino al mundo en [Y]")
    page.wait_for_function("document.getElementById('amend-msg').textContent === '✓ valid template'")
    page.keyboard.press("Enter")
    for item_id, _, _text in in_relation[3:]:  # the rest of the relation, accepted
        wait_for_item(page, item_id)
        page.keyboard.press("a")
    nxt = items[len(in_relation)]
    wait_for_item(page, nxt[0])
    assert page.locator("#amend-form").is_hidden() and page.locator("#decision-badge").is_hidden()

    # suggest another paraphrase for the relation now shown
    page.keyboard.press("s")
    assert focused(page.locator("#suggest-text"))
    page.keyboard.type("[X] tiene su origen en [Y]")
    page.keyboard.press("Enter")
    page.wait_for_function("document.getElementById('suggest-msg').textContent.includes('saved')")
    progress = page.locator("#progress-text").inner_text()
    assert progress.startswith(f"{len(in_relation)} of {len(items)} reviewed")
    context.close()  # the volunteer closes the browser

    with sessions() as s:
        rows = s.execute(
            select(Decision.item_id, Decision.decision, Decision.correction, Decision.seconds)
            .where(Decision.retracted.is_(False))
            .order_by(Decision.id)
        ).all()
        assert [(r[0], r[1]) for r in rows] == (
            [(in_relation[0][0], "accept"), (in_relation[1][0], "reject"), (in_relation[2][0], "amend")]
            + [(i[0], "accept") for i in in_relation[3:]]
        )
        assert rows[2][2] == "[X] vino al mundo en [Y]"
        assert all(r[3] is not None and r[3] >= 0 for r in rows)
        assert s.scalar(select(Suggestion.text)) == "[X] tiene su origen en [Y]"
        assert s.scalar(select(Suggestion.relation_id)) == nxt[1]

    # sign in again: "Continue" resumes at the first undecided item
    context = chromium.new_context(bypass_csp=True)
    page = context.new_page()
    sign_in(page, live.url, "ana@example.org")
    page.locator("li.card", has_text="Spanish").get_by_role("link", name="Continue").click()
    wait_for_item(page, nxt[0])
    assert current_template(page) == nxt[2]
    # undo brings back the last decision's item, decision retracted
    page.keyboard.press("u")
    wait_for_item(page, in_relation[-1][0])
    page.wait_for_function("document.getElementById('status').textContent.includes('Undone')")
    context.close()


def test_right_to_left_and_escaping_in_the_browser(chromium, live, sessions):
    items = sample(sessions, "ana@example.org", "ar")
    with sessions.begin() as s:
        es_item = sample(sessions, "ana@example.org", "es")[0]
        template = s.get(Template, s.get(AssignmentItem, es_item[0]).template_id)
        template.text = "<img src=x onerror=alert(1)> [X] [Y]"
    context = chromium.new_context(bypass_csp=True)  # no safety net: escaping alone must hold
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    sign_in(page, live.url, "ana@example.org")
    page.goto(live.url + "/review/ar")
    start_reviewing(page)
    wait_for_item(page, items[0][0])
    assert page.locator("#template").evaluate("el => el.matches(':dir(rtl)')")
    assert page.locator("#template").get_attribute("lang") == "ar"
    assert page.locator("#examples li").count() == 3
    page.goto(live.url + f"/review/es#item-{es_item[0]}")
    wait_for_item(page, es_item[0])
    assert current_template(page) == "<img src=x onerror=alert(1)> [X] [Y]"
    assert page.locator("#template img").count() == 0 and dialogs == []
    context.close()


def test_phone_sized_screen(chromium, live):
    context = chromium.new_context(
        viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True, bypass_csp=True
    )
    page = context.new_page()
    sign_in(page, live.url, "ana@example.org")
    page.goto(live.url + "/review/es")
    start_reviewing(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"page scrolls sideways ({width}px)"
    page.get_by_role("button", name=re.compile("Accept")).tap()
    page.wait_for_function("document.getElementById('status').textContent.includes('Saved')")
    context.close()


def test_busy_database_the_page_retries_the_same_request(chromium, review_app, sessions, db_url):
    """While another writer holds the write lock the server answers 503; the page says so, waits
    as told by Retry-After and sends the same request again: the decision is stored once. The
    lock is released only once the page has said 'busy' (not after a fixed time that a busy
    machine could outlast before the first request)."""
    from curator.web import create_app
    from curator.web.testing import LiveServer

    items = sample(sessions, "ana@example.org", "es")
    app = create_app({"DATABASE_URL": db_url, "SECRET_KEY": "test-secret", "BUSY_TIMEOUT": 0.2})
    with LiveServer(app) as live:
        page = chromium.new_context(viewport={"width": 1100, "height": 900}, bypass_csp=True).new_page()
        sign_in(page, live.url, "ana@example.org")
        page.goto(live.url + "/review/es")
        start_reviewing(page)
        wait_for_item(page, items[0][0])
        holder = WriteLock(db_url)
        try:
            page.keyboard.press("a")
            page.wait_for_function("document.getElementById('status').textContent.includes('busy')")
        finally:
            holder.release()
        wait_for_item(page, items[1][0])  # saved after the retry, and on to the next item
    with sessions() as s:
        assert s.scalars(select(Decision.decision).where(Decision.item_id == items[0][0])).all() == ["accept"]

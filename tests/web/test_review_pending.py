"""What a volunteer typed is what gets stored: the four ways typed work used to be lost or turned into
a verdict the volunteer did not mean, each walked in Chromium on the real server and database
(Spanish on a phone with touch, Arabic on a desktop):

- a typed correction and then Accept: asked in one step (save the correction as Amend, accept
  without it, or go back), never a silent "accept";
- a reason typed for Reject is stored with the decision, and a comment typed beside a decision is
  sent with it;
- offline, a comment and a suggestion wait in the same outbox as decisions, say so next to their
  button and in the item's card, and are stored once each when the connection is back;
- a double tap (or double click) on Accept decides one template, not two.

Waits are on states (the page's data, the database), never on time; the double tap's 250 ms is
the page's own clock (Playwright's), moved by hand."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from curator.core.models import AssignmentItem, Comment, Decision, Suggestion
from tests.plugins.databases import review_sample
from tests.web.test_review_ui import sign_in, wait_for_item

DESKTOP = {"viewport": {"width": 1366, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
GUARD_MS = 30_000  # a guard against a lost answer (the test fails instead of hanging), not a speed limit

pytestmark = pytest.mark.backends("sqlite")

CORRECTION = {"es": "[X] vino al mundo en [Y]", "ar": "[X] وُلد في مدينة [Y]"}
REASON = {"es": "No es una paráfrasis: cambia el sentido.", "ar": "ليست إعادة صياغة: تغيّر المعنى."}


# nothing waits in the outbox (every write stored or refused)
SENT = "() => !Object.keys(localStorage).some(k => k.startsWith('curator.outbox.') && localStorage.getItem(k) !== '[]')"
READ_MS = 1000  # page time a volunteer looks at a template before deciding (over review.js REPEAT_MS)


def _open(chromium, live, lang: str, phone: bool):
    """Ana's review screen in `lang` on the page's own clock (Playwright's: time flows, and the test
    moves it on where a volunteer would take time to read, so no tap is taken for a repeat)."""
    context = chromium.new_context(bypass_csp=True, **(PHONE if phone else DESKTOP))
    context.set_default_timeout(120_000)  # a hang guard on a busy machine, not a speed limit
    page = context.new_page()
    page.clock.install()
    sign_in(page, live.url, "ana@example.org")
    context.add_cookies([{"name": "curator_locale", "value": lang, "url": live.url}])
    page.goto(f"{live.url}/review/{lang}")
    page.wait_for_selector("#review[data-ready='1']")
    if page.locator("#intro").is_visible():
        page.locator("#start").click()
        page.wait_for_selector("#intro", state="hidden")
    return context, page


def pause(page) -> None:
    """The page's clock stands still from now (Playwright's pause_at, at the page's own now)."""
    now = page.evaluate("Date.now()")
    page.clock.pause_at(datetime.fromtimestamp(now / 1000 + 0.01, tz=UTC))


def until(page, predicate: str) -> None:
    """Wait for `predicate` (JS) by asking the page again and again: Playwright's own waits poll on
    the page's timers, which stand still while its clock is paused."""
    give_up = time.monotonic() + GUARD_MS / 1000 * 4  # a hang guard, not a speed limit
    while not page.evaluate(predicate):
        assert time.monotonic() < give_up, f"never true: {predicate}"


def _press(page, selector: str, phone: bool) -> None:
    if selector in ("#accept", "#reject", "#unsure"):
        page.clock.run_for(READ_MS)
    locator = page.locator(selector)
    locator.tap() if phone else locator.click()


def _template_of(s, item: int) -> int:
    return s.scalar(select(AssignmentItem.template_id).where(AssignmentItem.id == item))


def _decisions(sessions):
    with sessions() as s:
        return s.execute(
            select(Decision.item_id, Decision.decision, Decision.correction).where(Decision.retracted.is_(False))
        ).all()


def _in_view(page, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not displayed"
    size = page.viewport_size
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (selector, box)


@pytest.mark.parametrize("lang,phone", [("es", True), ("ar", False)])
def test_a_typed_correction_never_becomes_an_accept(chromium, live, sessions, lang, phone):
    items = review_sample(sessions, "ana@example.org", lang)
    context, page = _open(chromium, live, lang, phone)
    wait_for_item(page, items[0][0])
    _press(page, "#amend", phone)
    page.fill("#amend-text", CORRECTION[lang])
    # Accept with the correction typed: asked, in the volunteer's language; going back stores nothing
    _press(page, "#accept", phone)
    page.wait_for_selector("#settle[open]")
    assert CORRECTION[lang] in page.locator("#settle-drafts").inner_text()
    _in_view(page, "#settle-keep")
    page.locator("#settle-back").click()
    page.wait_for_selector("#settle", state="hidden")
    assert _decisions(sessions) == []
    assert page.locator("#amend-text").input_value() == CORRECTION[lang]
    # asked again; "save the correction" stores an amendment with it
    _press(page, "#accept", phone)
    page.wait_for_selector("#settle[open]")
    page.locator("#settle-keep").click()
    wait_for_item(page, items[1][0])
    with sessions() as s:
        stored = s.execute(select(Decision.item_id, Decision.decision, Decision.correction_raw)).all()
    assert stored == [(items[0][0], "amend", CORRECTION[lang])]
    # the next one: a correction typed, then Reject, and "without it": the reject, and the draft is gone
    _press(page, "#amend", phone)
    page.fill("#amend-text", CORRECTION[lang] + " 2")
    _press(page, "#reject", phone)
    page.wait_for_selector("#settle[open]")
    page.locator("#settle-discard").click()
    wait_for_item(page, items[2][0])
    assert (items[1][0], "reject", None) in _decisions(sessions)
    assert page.evaluate("Object.keys(localStorage).filter(k => k.includes('.amend-text.')).length") == 0
    context.close()


@pytest.mark.parametrize("lang,phone", [("es", True), ("ar", False)])
def test_a_reject_reason_is_stored_with_it_and_a_comment_is_sent_beside(chromium, live, sessions, lang, phone):
    items = review_sample(sessions, "ana@example.org", lang)
    context, page = _open(chromium, live, lang, phone)
    wait_for_item(page, items[0][0])
    page.fill("#reason-text", REASON[lang])
    page.fill("#item-comment-text", "un comentario" if lang == "es" else "تعليق")
    _press(page, "#reject", phone)
    wait_for_item(page, items[1][0])
    page.wait_for_function("document.getElementById('bar-status-text').textContent.length > 0")
    _in_view(page, "#bar-status-text")
    _in_view(page, "#bar-undo")
    page.wait_for_function(SENT)
    with sessions() as s:
        assert s.execute(select(Decision.item_id, Decision.decision, Decision.reason)).all() == [
            (items[0][0], "reject", REASON[lang])
        ]
        # the comment went beside the decision, on that template
        assert s.execute(select(Comment.template_id, Comment.text)).all() == [
            (_template_of(s, items[0][0]), "un comentario" if lang == "es" else "تعليق")
        ]
    assert page.locator("#reason-text").input_value() == ""
    # a reason typed and then Accept: asked; "accept, and send the reason as a comment"
    page.fill("#reason-text", REASON[lang] + "!")
    _press(page, "#accept", phone)
    page.wait_for_selector("#settle[open]")
    page.locator("#settle-keep").click()
    wait_for_item(page, items[2][0])
    page.wait_for_function(SENT)
    with sessions() as s:
        assert (items[1][0], "accept", None) in s.execute(
            select(Decision.item_id, Decision.decision, Decision.reason)
        ).all()
        assert (_template_of(s, items[1][0]), REASON[lang] + "!") in s.execute(
            select(Comment.template_id, Comment.text)
        ).all()
    # Undo from the bar, in reach of the thumb
    _press(page, "#bar-undo", phone)
    wait_for_item(page, items[1][0])
    assert (items[1][0], "accept", None) not in _decisions(sessions)
    context.close()


@pytest.mark.parametrize("lang,phone", [("es", True), ("ar", False)])
def test_offline_comments_and_suggestions_wait_say_so_and_are_sent_once(chromium, live, sessions, lang, phone):
    items = review_sample(sessions, "ana@example.org", lang)
    context, page = _open(chromium, live, lang, phone)
    wait_for_item(page, items[0][0])
    context.set_offline(True)
    page.fill("#item-comment-text", "sin conexión" if lang == "es" else "دون اتصال")
    _press(page, "#item-comment-form button[type=submit]", phone)
    # next to the button, in view: it waits in this browser
    page.wait_for_function("document.getElementById('item-comment-msg').className.includes('warn')")
    _in_view(page, "#item-comment-msg")
    assert page.locator("#item-comments .waiting").count() == 1
    page.wait_for_function("!document.getElementById('item-pending').hidden")
    page.fill("#suggest-text", CORRECTION[lang])
    _press(page, "#suggest-form button[type=submit]", phone)
    page.wait_for_function("document.getElementById('suggest-msg').className.includes('warn')")
    assert page.locator("#suggestions .waiting").count() == 1
    with sessions() as s:
        assert s.scalars(select(Comment.id)).all() == [] and s.scalars(select(Suggestion.id)).all() == []
    # a reload while offline keeps them in the outbox (the page itself comes from the server: online)
    context.set_offline(False)
    page.wait_for_function(SENT, timeout=GUARD_MS * 4)
    with sessions() as s:
        assert len(s.scalars(select(Comment.id)).all()) == 1
        assert s.scalars(select(Suggestion.text_raw)).all() == [CORRECTION[lang]]
    page.wait_for_function("document.getElementById('item-comment-msg').className.includes('valid')")
    assert page.locator("#item-comments .waiting").count() == 0
    context.close()


@pytest.mark.parametrize("lang,phone", [("es", True), ("ar", False)])
def test_a_double_tap_decides_one_template(chromium, live, sessions, lang, phone):
    items = review_sample(sessions, "ana@example.org", lang)
    context, page = _open(chromium, live, lang, phone)
    wait_for_item(page, items[0][0])
    page.clock.run_for(READ_MS)
    # the page's clock stands still but for the quarter second between the taps, however long the
    # machine takes to show the next template
    pause(page)
    page.locator("#accept").tap() if phone else page.locator("#accept").click()
    until(page, f"document.getElementById('item-card').dataset.item === '{items[1][0]}'")
    until(page, "document.getElementById('review').dataset.busy === '0'")
    page.clock.run_for(250)  # the second tap of a finger, a quarter of a second later
    page.locator("#accept").tap() if phone else page.locator("#accept").click()
    # a tap taken as a decision marks the page busy in its own handler: not so here
    assert page.evaluate("document.getElementById('review').dataset.busy") == "0"
    page.clock.run_for(50)
    page.clock.resume()
    assert page.locator("#item-card").get_attribute("data-item") == str(items[1][0])
    assert _decisions(sessions) == [(items[0][0], "accept", None)]
    # a double click is one gesture too
    page.clock.run_for(2000)
    page.locator("#accept").dblclick()
    wait_for_item(page, items[2][0])
    page.clock.run_for(2000)
    page.wait_for_function(f"() => document.getElementById('review').dataset.busy === '0' && ({SENT})()")
    assert [d[0] for d in _decisions(sessions)] == [items[0][0], items[1][0]]
    context.close()

"""Drafts on the review screen after the issue 37 review, walked in Chromium (Spanish on a phone
in the light scheme, Arabic on a desktop in the dark one):

- a suggestion saved after the reviewer moved on to another relation does not come back as a
  draft (its draft goes when the answer comes, whatever is shown then);
- drafts untouched for more than 7 days are dropped when the review screen loads (a draft kept
  before drafts had a time is given one), younger ones come back;
- signing out (the form on every page) removes the reviewer's drafts from the browser, and only
  theirs;
- the keyboard help lists Alt+X / Alt+Y and Enter / Ctrl+Enter, translated.

One browser context per language walks all four, so the file stays at seconds."""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import select

from curator.core.models import Suggestion, User
from tests.plugins.databases import review_sample
from tests.web.test_review_ui import sign_in, wait_for_item

DESKTOP = {"viewport": {"width": 1366, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
GUARD_MS = 30_000  # a guard against a lost answer (the test fails instead of hanging), not a speed limit
DAY_MS = 24 * 3600 * 1000

pytestmark = pytest.mark.backends("sqlite")

SUGGESTION = {"es": "[X] vino al mundo en [Y]", "ar": "[X] وُلد في مدينة [Y]"}
KEPT = {"es": "Borrador de hace seis días", "ar": "مسودة من ستة أيام"}


def _keys(page, prefix: str) -> dict[str, str]:
    return page.evaluate(
        """prefix => Object.fromEntries(Object.keys(localStorage).filter(k => k.startsWith(prefix))
                                         .map(k => [k, localStorage.getItem(k)]))""",
        prefix,
    )


def _press(page, selector: str, phone: bool) -> None:
    if phone:
        page.locator(selector).tap()
    else:
        page.locator(selector).click()


@pytest.mark.parametrize(("lang", "scheme", "phone"), [("es", "light", True), ("ar", "dark", False)])
def test_drafts_go_when_saved_after_moving_on_when_a_week_old_and_on_sign_out(
    chromium, live, sessions, lang, scheme, phone
):
    from curator.web.i18n import load_catalogue

    items = review_sample(sessions, "ana@example.org", lang)
    with sessions() as s:
        uid = s.scalar(select(User.id).where(User.email == "ana@example.org"))
    first_relation = items[0][1]
    other = next(i for i in items if i[1] != first_relation)  # a template of another relation
    mine = f"curator.draft.{uid}."
    here = f"{mine}{lang}."
    someone_else = f"curator.draft.{uid + 1000}.{lang}.item-comment-text.{items[0][0]}"
    context = chromium.new_context(color_scheme=scheme, bypass_csp=True, **(PHONE if phone else DESKTOP))
    context.set_default_timeout(120_000)  # a guard against a hang on a busy machine, not a speed limit
    page = context.new_page()
    try:
        sign_in(page, live.url, "ana@example.org")
        context.add_cookies([{"name": "curator_locale", "value": lang, "url": live.url}])
        # drafts left in this browser earlier: 8 days old, 6 days old, one without a time, and
        # another reviewer's (a shared device)
        now = page.evaluate("Date.now()")
        stored = {
            f"{here}item-comment-text.{items[1][0]}": json.dumps({"text": "old", "at": now - 8 * DAY_MS}),
            f"{here}item-comment-text.{items[2][0]}": json.dumps({"text": KEPT[lang], "at": now - 6 * DAY_MS}),
            f"{here}relation-comment-text.{other[1]}": "kept before drafts had a time",
            someone_else: json.dumps({"text": "not Ana's", "at": now - 30 * DAY_MS}),
        }
        page.evaluate("drafts => Object.entries(drafts).forEach(([k, v]) => localStorage.setItem(k, v))", stored)
        page.goto(f"{live.url}/review/{lang}")
        page.wait_for_selector("#review[data-ready='1']")
        if page.locator("#intro").is_visible():
            _press(page, "#start", phone)
            page.wait_for_selector("#intro", state="hidden")
        assert page.locator("html").get_attribute("dir") == ("rtl" if lang == "ar" else "ltr")
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
        wait_for_item(page, items[0][0])

        # ---- a week untouched: dropped on load; younger: kept; without a time: given one now
        left = _keys(page, mine)
        assert f"{here}item-comment-text.{items[1][0]}" not in left
        assert json.loads(left[f"{here}item-comment-text.{items[2][0]}"])["text"] == KEPT[lang]
        legacy = json.loads(left[f"{here}relation-comment-text.{other[1]}"])
        assert legacy["text"] == "kept before drafts had a time" and legacy["at"] >= now
        assert _keys(page, someone_else) == {someone_else: stored[someone_else]}  # not Ana's to drop
        page.evaluate(f"location.hash = '#item-{items[2][0]}'")
        wait_for_item(page, items[2][0])
        assert page.locator("#item-comment-text").input_value() == KEPT[lang]
        assert page.locator("#item-comment-text-draft").is_visible()
        page.evaluate(f"location.hash = '#item-{items[1][0]}'")
        wait_for_item(page, items[1][0])
        assert page.locator("#item-comment-text").input_value() == ""

        # ---- a suggestion whose answer comes after the reviewer moved on to another relation
        page.evaluate(f"location.hash = '#item-{items[0][0]}'")
        wait_for_item(page, items[0][0])
        held = []
        pattern = re.compile(r".*/relations/[^/]+/suggestions$")

        def hold(route) -> None:  # the answer waits until the reviewer has moved on
            held.append(route)

        page.route(pattern, hold)
        page.locator("#suggest-text").fill(SUGGESTION[lang])
        draft = f"{here}suggest-text.{first_relation}"
        assert json.loads(_keys(page, draft)[draft])["text"] == SUGGESTION[lang]
        with page.expect_request(lambda r: r.method == "POST" and pattern.match(r.url)):
            page.locator("#suggest-text").press("Enter")
        page.evaluate(f"location.hash = '#item-{other[0]}'")
        wait_for_item(page, other[0])
        # sent, not answered yet: kept in the outbox (every write waits there until stored), no
        # longer a draft — a reload would otherwise show it twice and invite a second send
        outbox = "() => Object.keys(localStorage).filter(k => k.startsWith('curator.outbox.')).map(k => localStorage.getItem(k)).join('')"
        assert len(held) == 1 and draft not in _keys(page, draft)
        assert json.dumps(SUGGESTION[lang], ensure_ascii=False)[1:-1] in page.evaluate(outbox)
        with page.expect_response(lambda r: pattern.match(r.url) is not None):
            held[0].continue_()
        page.unroute(pattern)
        page.wait_for_function(f"({outbox})() === ''", timeout=GUARD_MS)
        with sessions() as s:
            assert s.scalars(select(Suggestion.text)).all() == [SUGGESTION[lang]]
        page.evaluate(f"location.hash = '#item-{items[0][0]}'")
        wait_for_item(page, items[0][0])
        assert page.locator("#suggest-text").input_value() == ""
        assert page.locator("#suggest-text-draft").is_hidden()

        # ---- the keyboard help: Alt+X / Alt+Y and Enter / Ctrl+Enter, in the interface's language
        catalogue = load_catalogue(lang)
        page.locator("#template").click()  # the page has the keys, not a field
        page.keyboard.press("h")
        page.wait_for_selector("#help:not([hidden])")
        for keys, msgid in (
            ("Alt+X / Alt+Y", "put [X] or [Y] at the cursor while amending or suggesting"),
            ("Enter / Ctrl+Enter", "save the correction or suggestion you are typing (Ctrl+Enter: a comment)"),
        ):
            row = page.locator("#help dl.keys-hint dt", has_text=keys)
            assert row.count() == 1, keys
            meaning = row.evaluate("dt => dt.nextElementSibling.textContent")
            assert meaning == catalogue.gettext(msgid) != msgid
            # the keys read left to right in an Arabic interface too
            assert row.locator("bdi").evaluate("el => getComputedStyle(el).direction") == "ltr"
        page.keyboard.press("h")
        page.wait_for_selector("#help", state="hidden")

        # ---- sign out: a draft typed just now and the kept ones go; another reviewer's stay
        page.locator("#item-comment-text").fill("typed on a shared device")
        assert len(_keys(page, here)) >= 3
        with page.expect_navigation():
            _press(page, "#sign-out button[type=submit]", phone)
        page.wait_for_url(re.compile(r".*/login.*"))
        assert _keys(page, mine) == {}
        assert _keys(page, someone_else) == {someone_else: stored[someone_else]}
    finally:
        context.close()


REPLY = {"es": "Gracias: «nació en» suena mejor", "ar": "شكرًا، «وُلد في» أفضل هنا"}


@pytest.mark.parametrize(("lang", "phone"), [("es", True), ("ar", False)])
def test_a_reply_draft_is_kept_by_its_thread_until_it_is_sent(chromium, live, sessions, lang, phone):
    """A reply typed in a thread's box and not sent is kept in this browser under its thread: after
    a reload, and after moving to another relation and back, it is in its box again with the
    drafts' note (the other thread's box stays empty); a reply the server refuses comes back as
    that draft, with the server's words; once sent and stored it goes, and a reload shows the box
    empty."""
    from curator.core.models import AssignmentItem, Comment
    from curator.review.comments import add_comment
    from curator.review.service import get_assignment
    from curator.web.i18n import load_catalogue

    items = review_sample(sessions, "ana@example.org", lang)
    first, relation = items[0][0], items[0][1]
    other = next(i for i in items if i[1] != relation)  # neither thread is shown there
    with sessions.begin() as s:
        ana = s.scalar(select(User).where(User.email == "ana@example.org"))
        assignment = get_assignment(s, ana, lang)
        on_template, _ = add_comment(s, ana, assignment, "¿«nació» o «nacida»?", item=s.get(AssignmentItem, first))
        on_relation, _ = add_comment(s, ana, assignment, "una relación clara", relation=relation)
        s.flush()
        thread, relation_thread, uid = on_template.id, on_relation.id, ana.id
    note_text = load_catalogue(lang).gettext("Unsaved reply, kept from before: it is sent when you press “Reply”.")
    assert note_text != "Unsaved reply, kept from before: it is sent when you press “Reply”."
    draft = f"curator.draft.{uid}.{lang}.reply.{thread}"
    box = f'[data-thread="{thread}"] .reply-text-input'
    note = f'[data-thread="{thread}"] .reply-form .draft-note'
    context = chromium.new_context(bypass_csp=True, **(PHONE if phone else DESKTOP))
    page = context.new_page()

    def shown(item: int) -> None:
        page.wait_for_selector("#review[data-ready='1']")
        wait_for_item(page, item)

    try:
        sign_in(page, live.url, "ana@example.org")
        context.add_cookies([{"name": "curator_locale", "value": lang, "url": live.url}])
        page.goto(f"{live.url}/review/{lang}")
        page.wait_for_selector("#review[data-ready='1']")
        _press(page, "#start", phone)
        page.wait_for_selector("#intro", state="hidden")
        wait_for_item(page, first)
        assert page.locator(note).is_hidden()

        # ---- typed, not sent: kept under its thread, back after a reload with the note
        page.locator(box).fill(REPLY[lang])
        assert json.loads(_keys(page, draft)[draft])["text"] == REPLY[lang]
        assert page.locator(note).is_hidden()  # typed just now: nothing "kept from before" yet
        page.reload()
        shown(first)
        assert page.locator(box).input_value() == REPLY[lang]
        assert page.locator(note).is_visible() and page.locator(note).inner_text() == note_text
        other_box = f'[data-thread="{relation_thread}"] .reply-text-input'
        assert page.locator(other_box).input_value() == ""
        assert page.locator(f'[data-thread="{relation_thread}"] .reply-form .draft-note').is_hidden()

        # ---- moving away (the threads are not on screen) and back
        page.evaluate(f"location.hash = '#item-{other[0]}'")
        wait_for_item(page, other[0])
        assert page.locator(box).count() == 0
        page.evaluate(f"location.hash = '#item-{first}'")
        wait_for_item(page, first)
        assert page.locator(box).input_value() == REPLY[lang]
        assert page.locator(note).is_visible()

        # ---- refused by the server (a control character): the text comes back as the draft
        refused = REPLY[lang] + "\u0007"
        page.locator(box).fill(refused)
        _press(page, f'[data-thread="{thread}"] .reply-form button[type=submit]', phone)
        page.wait_for_selector(f'[data-thread="{thread}"] .reply-form .validation.invalid')
        assert "U+0007" in page.locator(f'[data-thread="{thread}"] .reply-form .validation').inner_text()
        assert page.locator(box).input_value() == refused
        assert page.locator(note).is_visible()
        assert json.loads(_keys(page, draft)[draft])["text"] == refused
        page.reload()
        shown(first)
        assert page.locator(box).input_value() == refused

        # ---- sent and stored: the draft goes; after a reload the box is empty, the reply listed
        page.locator(box).fill(REPLY[lang])
        _press(page, f'[data-thread="{thread}"] .reply-form button[type=submit]', phone)
        page.locator(f'[data-thread="{thread}"] li.reply', has_text=REPLY[lang]).wait_for()
        page.wait_for_function(f"localStorage.getItem('{draft}') === null", timeout=GUARD_MS)
        assert page.locator(box).input_value() == "" and page.locator(note).is_hidden()
        with sessions() as s:
            assert s.scalars(select(Comment.text).where(Comment.parent_id == thread)).all() == [REPLY[lang]]
        page.reload()
        shown(first)
        page.locator(f'[data-thread="{thread}"] li.reply', has_text=REPLY[lang]).wait_for()
        assert page.locator(box).input_value() == "" and page.locator(note).is_hidden()
        assert _keys(page, draft) == {}
    finally:
        context.close()

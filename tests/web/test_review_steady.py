"""Issue 37 §1, work lost or mis-aimed on the review screen, walked in Chromium in the Spanish and
the Arabic interface, light and dark, phone (390×844, touch) and desktop (1366×800):

- on a phone ONE tap on "Add comment", "Add suggestion" or "Save correction" saves (the button
  does not move when the field loses the focus), and a draft left unsaved comes back, with a
  note, when its template is shown again;
- on a desktop the decision buttons stay in one place over 20+ transitions (a proposal badge,
  the "new relation" banner, two-line messages);
- C and S keep the template and the buttons in view; Ctrl+Enter / Enter save;
- a machine line equal to the template after cleaning is "the same", never "valid", and after
  the refused save the keys decide again (A accepts, it does not type "a");
- offline, the machine-translation panel and the glossary are the current template's or say
  they are not available, and the live check never says an action was not saved.

Each browser context walks several checks (one per language × scheme × size), so the file stays
at tens of seconds."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from curator.core.models import Comment, Decision, EnglishPattern, Suggestion
from curator.review.glossary import add_term
from tests.plugins.databases import review_sample
from tests.plugins.servers import Browser
from tests.web.test_review_ui import sign_in, wait_for_item

DESKTOP = {"width": 1366, "height": 800}
PHONE = {"width": 390, "height": 844}
GUARD_MS = 30_000  # a guard against a lost request (the test fails instead of hanging), not a speed limit

pytestmark = pytest.mark.backends("sqlite")


def _open(chromium, live, *, lang: str, scheme: str, phone: bool, locale: str | None = None):
    """Ana's review screen for `lang` with the interface in `locale` (by default `lang`)."""
    size = {"viewport": PHONE, "is_mobile": True, "has_touch": True} if phone else {"viewport": DESKTOP}
    context = chromium.new_context(color_scheme=scheme, bypass_csp=True, **size)
    context.set_default_timeout(120_000)  # a guard against a hang on a busy machine, not a speed limit
    page = context.new_page()
    sign_in(page, live.url, "ana@example.org")
    context.add_cookies([{"name": "curator_locale", "value": locale or lang, "url": live.url}])
    page.goto(f"{live.url}/review/{lang}")
    page.wait_for_selector("#review[data-ready='1']")
    if page.locator("#intro").is_visible():
        page.locator("#start").click()
        page.wait_for_selector("#intro", state="hidden")
    assert page.locator("html").get_attribute("lang") == (locale or lang)
    assert page.locator("html").get_attribute("dir") == ("rtl" if (locale or lang) == "ar" else "ltr")
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
    return context, page


def _in_view(page, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None, f"{selector} is not displayed"
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"] + 0.5, (selector, box, size)
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5, (selector, box, size)


def _posted(page, path_part: str):
    """Wait for the POST whose URL ends with `path_part` (what the tap or key sent)."""
    return page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith(path_part), timeout=GUARD_MS)


def _still_on_blur(page, field: str, button: str) -> None:
    """The button is where it was while the field had the focus, once the field loses it."""
    page.locator(field).focus()
    before = page.locator(button).bounding_box()
    page.locator(field).evaluate("el => el.blur()")
    assert page.locator(button).bounding_box() == before, (button, before)
    page.locator(field).focus()


def _comments(sessions) -> list[tuple[str, int | None]]:
    with sessions() as s:
        return [tuple(r) for r in s.execute(select(Comment.text, Comment.template_id).order_by(Comment.id))]


def _template_id(sessions, item_id: int) -> int:
    from curator.core.models import AssignmentItem

    with sessions() as s:
        return s.get_one(AssignmentItem, item_id).template_id


# ---------------------------------------------------------------- 1 and 3 on a phone

WORDS = {
    "es": ("Suena anticuado aquí", "[X] vino al mundo en [Y]", "[X] nació en la ciudad de [Y]", "Borrador: revisar"),
    "ar": ("تبدو قديمة هنا", "[X] وُلد في مدينة [Y]", "[X] أصله من مدينة [Y]", "مسودة: للمراجعة"),
}


@pytest.mark.parametrize(("lang", "scheme"), [("es", "light"), ("ar", "dark")])
def test_on_a_phone_one_tap_saves_and_a_draft_is_never_lost(chromium, live, sessions, lang, scheme):
    items = review_sample(sessions, "ana@example.org", lang)
    comment, suggestion, correction, draft = WORDS[lang]
    context, page = _open(chromium, live, lang=lang, scheme=scheme, phone=True)
    try:
        wait_for_item(page, items[0][0])
        # C and S (a keyboard on a tablet): the template and the decision bar stay in view
        for key, field in (("c", "#item-comment-text"), ("s", "#suggest-text")):
            page.locator("#template").click()  # the page has the keys, not a field
            page.keyboard.press(key)
            page.wait_for_function(f"document.activeElement === document.querySelector('{field}')")
            _in_view(page, "#template")
            _in_view(page, "#accept")
            _in_view(page, field)
        # a comment: typed, then one tap on its button
        page.locator("#item-comment-text").tap()
        page.keyboard.type(comment)
        _still_on_blur(page, "#item-comment-text", "#item-comment-form button[type=submit]")
        with _posted(page, f"/items/{items[0][0]}/comments"):
            page.locator("#item-comment-form button[type=submit]").tap()
        page.wait_for_selector("#item-comments li")
        assert _comments(sessions) == [(comment, _template_id(sessions, items[0][0]))]
        # a suggestion: typed, then one tap
        page.locator("#suggest-text").tap()
        page.keyboard.type(suggestion)
        _still_on_blur(page, "#suggest-text", "#suggest-form button[type=submit]")
        with _posted(page, f"/relations/{items[0][1]}/suggestions"):
            page.locator("#suggest-form button[type=submit]").tap()
        page.wait_for_selector("#suggestions li")
        with sessions() as s:
            assert s.scalars(select(Suggestion.text)).all() == [suggestion]
        # a correction: Amend, the text typed, one tap on "Save correction"
        page.locator("#amend").tap()
        page.wait_for_selector("#amend-form:not([hidden])")
        page.locator("#amend-text").fill(correction)
        _still_on_blur(page, "#amend-text", "#amend-form button[type=submit]")
        with _posted(page, f"/items/{items[0][0]}/decision"):
            page.locator("#amend-form button[type=submit]").tap()
        wait_for_item(page, items[1][0])
        with sessions() as s:
            assert s.execute(select(Decision.item_id, Decision.decision, Decision.correction)).all() == [
                (items[0][0], "amend", correction)
            ]
        # a draft left on the second template: on to the third, back, and it is there with a note
        assert page.locator("#item-comment-text").input_value() == ""
        page.locator("#item-comment-text").tap()
        page.keyboard.type(draft)
        page.locator("#next").tap()
        wait_for_item(page, items[2][0])
        assert page.locator("#item-comment-text").input_value() == ""
        assert page.locator("#item-comment-text-draft").is_hidden()
        page.locator("#prev").tap()
        wait_for_item(page, items[1][0])
        assert page.locator("#item-comment-text").input_value() == draft
        assert page.locator("#item-comment-text-draft").is_visible()
        with _posted(page, f"/items/{items[1][0]}/comments"):
            page.locator("#item-comment-form button[type=submit]").tap()
        page.wait_for_selector("#item-comments li")
        assert page.locator("#item-comment-text-draft").is_hidden()
        assert _comments(sessions)[-1] == (draft, _template_id(sessions, items[1][0]))
        # saved: it does not come back
        page.locator("#next").tap()
        wait_for_item(page, items[2][0])
        page.locator("#prev").tap()
        wait_for_item(page, items[1][0])
        assert page.locator("#item-comment-text").input_value() == ""
        assert page.locator("#item-comment-text-draft").is_hidden()
    finally:
        context.close()


# ---------------------------------------------------------------- 2 and 3 on a desktop

LONG = (
    "A message long enough to take two lines on a desktop screen: it says what happened and what to "
    "do next, and a reviewer reads it, but it must not push the buttons down from where the mouse is. "
) * 2


@pytest.mark.parametrize(("lang", "scheme"), [("es", "light"), ("ar", "dark")])
def test_on_a_desktop_the_buttons_keep_their_place(chromium, live, review_app, sessions, lang, scheme):
    # another reviewer's amendment: a proposal in Ana's queue, shown with its badge
    bo_items = review_sample(sessions, "bo@example.org", "es")
    if lang == "es":
        bo = Browser(review_app).login("bo@example.org")
        r = bo.post(
            f"/api/v1/languages/es/items/{bo_items[1][0]}/decision",
            {"decision": "amend", "correction": "[X] era oriundo de [Y]", "request_id": "bo-1"},
        )
        assert r.status_code in (200, 201), r.get_json()
    context, page = _open(chromium, live, lang=lang, scheme=scheme, phone=False)
    try:
        page.wait_for_selector("#item-card[data-item]")
        home = page.locator("#accept").bounding_box()
        _in_view(page, "#accept")
        seen = {"badge": False, "banner": False, "two lines": False}
        transitions = 0
        queued = page.evaluate("fetch(document.getElementById('review').dataset.api + '/queue').then(r => r.json())")
        count = len(queued["items"])  # the sample, with the proposal when there is one
        keys = ["j"] * (count - 1) + ["k"] * 8 + ["a", "n"]  # to the last template, back, two decisions
        for step, key in enumerate(keys):
            before = page.locator("#item-card").get_attribute("data-item")
            if step % 4 == 1:  # a two-line message stays up while the next template comes
                page.evaluate(
                    "t => { const el = document.getElementById('connection'); el.textContent = t; el.hidden = false; }",
                    LONG,
                )
            page.keyboard.press(key)
            page.wait_for_function(f"document.getElementById('item-card').dataset.item !== '{before}'")
            transitions += 1
            seen["badge"] |= page.locator("#proposal").is_visible()
            seen["banner"] |= bool(page.locator("#relation-note").inner_text().strip())
            status = page.locator("#connection")
            seen["two lines"] |= status.is_visible() and status.bounding_box()["height"] > 40
            assert page.locator("#accept").bounding_box() == home, (
                step,
                key,
                page.locator("#accept").bounding_box(),
                home,
            )
            if step % 4 == 2:
                page.evaluate(
                    "() => { const el = document.getElementById('connection'); el.textContent = ''; el.hidden = true; }"
                )
        assert transitions >= 20
        assert seen == {"badge": lang == "es", "banner": True, "two lines": True}, seen
        current = int(page.locator("#item-card").get_attribute("data-item"))
        # C: the template and the buttons stay in view; Ctrl+Enter saves the comment
        page.keyboard.press("c")
        page.wait_for_function("document.activeElement.id === 'item-comment-text'")
        _in_view(page, "#template")
        _in_view(page, "#accept")
        page.keyboard.type("línea uno" if lang == "es" else "السطر الأول")
        page.keyboard.press("Shift+Enter")
        page.keyboard.type("línea dos" if lang == "es" else "السطر الثاني")
        with _posted(page, f"/items/{current}/comments"):
            page.keyboard.press("Control+Enter")
        page.wait_for_selector("#item-comments li")
        _in_view(page, "#template")
        assert len(_comments(sessions)) == 1 and "\n" in _comments(sessions)[0][0]
        # S: the same; Enter saves the suggestion
        page.keyboard.press("s")
        page.wait_for_function("document.activeElement.id === 'suggest-text'")
        _in_view(page, "#template")
        _in_view(page, "#accept")
        page.keyboard.type("[X] vino al mundo en [Y]" if lang == "es" else "[X] وُلد في مدينة [Y]")
        with _posted(page, "/suggestions"):
            page.keyboard.press("Enter")
        page.wait_for_selector("#suggestions li")
        _in_view(page, "#template")
        assert page.locator("#accept").bounding_box() == home
        with sessions() as s:
            assert len(s.scalars(select(Suggestion.id)).all()) == 1
    finally:
        context.close()


# ---------------------------------------------------------------- 4. the amend trap


def test_the_check_says_same_for_a_line_equal_after_cleaning(review_app, sessions):
    """POST /validate with `item`: the decision's own rule (review/validation.py)."""
    items = review_sample(sessions, "ana@example.org", "es")
    ana = Browser(review_app).login("ana@example.org")
    line = items[0][2] + "."
    plain = ana.post("/api/v1/validate", {"text": line, "language": "es"}).get_json()
    assert plain == {"valid": True, "cleaned": items[0][2]}  # a suggestion: valid as it stands
    same = ana.post("/api/v1/validate", {"text": line, "language": "es", "item": items[0][0]}).get_json()
    assert same["valid"] is False and same["same"] is True and "accept it instead" in same["message"]
    other = ana.post("/api/v1/validate", {"text": "[X] vio la luz en [Y]", "language": "es", "item": items[0][0]})
    assert other.get_json() == {"valid": True, "cleaned": "[X] vio la luz en [Y]"}
    decided = ana.post(f"/api/v1/languages/es/items/{items[0][0]}/decision", {"decision": "amend", "correction": line})
    assert decided.status_code == 422 and decided.get_json()["error"] == same["message"]
    for bad in ("1", True, 1.5):
        r = ana.post("/api/v1/validate", {"text": line, "language": "es", "item": bad})
        assert r.status_code == 422, bad
    bo_item = review_sample(sessions, "bo@example.org", "es")[0][0]
    assert ana.post("/api/v1/validate", {"text": line, "language": "es", "item": bo_item}).status_code == 404


@pytest.mark.parametrize(("lang", "scheme", "line"), [("es", "dark", 2), ("ar", "light", 1)])
def test_amending_with_a_machine_line_equal_after_cleaning_does_not_trap_the_keys(
    chromium, live, sessions, lang, scheme, line
):
    """The panel offers no amendment from such a line (tests/web/test_review_context.py); typed
    or pasted into the field, it is refused and the keys still decide."""
    items = review_sample(sessions, "ana@example.org", lang)
    context, page = _open(chromium, live, lang=lang, scheme=scheme, phone=False)
    try:
        wait_for_item(page, items[0][0])
        page.keyboard.press("m")
        row = page.locator(f"#ctx-mt-lines li[data-n='{line}']")
        row.wait_for()
        text = row.locator("bdi").inner_text()
        assert text != items[0][2] and text.rstrip(".") == items[0][2]  # the template but for the period
        assert row.locator(".tag.state-standing").count() == 1  # marked "same as the template"
        assert row.locator(".ctx-amend").count() == 0 and row.locator("kbd").count() == 0  # not offered
        page.keyboard.press("e")
        page.wait_for_selector("#amend-form:not([hidden])")

        def checking(r) -> bool:  # the check of the line's text, not of the template the field opened with
            return r.url.endswith("/api/v1/validate") and text in (r.request.post_data or "")

        with page.expect_response(checking, timeout=GUARD_MS) as checked:
            page.locator("#amend-text").fill(text)
        assert checked.value.json()["same"] is True
        message = page.locator("#amend-msg")
        page.wait_for_function("document.getElementById('amend-msg').classList.contains('same')")
        assert "✓" not in message.inner_text() and "invalid" in message.get_attribute("class")
        said = message.inner_text()
        with _posted(page, f"/items/{items[0][0]}/decision"):
            page.keyboard.press("Enter")
        page.wait_for_function("document.activeElement !== document.getElementById('amend-text')")
        assert message.inner_text() == said  # the refusal says the same
        with _posted(page, f"/items/{items[0][0]}/decision"):
            page.keyboard.press("a")
        wait_for_item(page, items[1][0])
        with sessions() as s:
            assert s.execute(select(Decision.item_id, Decision.decision, Decision.correction)).all() == [
                (items[0][0], "accept", None)
            ]
        # the correction given up with the decision: no "unsaved correction" note coming back
        page.keyboard.press("k")
        wait_for_item(page, items[0][0])
        assert page.locator("#amend-text-draft").is_hidden()
    finally:
        context.close()


# ---------------------------------------------------------------- 5. offline


def _known(page, box: str, attribute: str, items) -> None:
    """Wait until the glossary or the context panels hold these items (read ahead, for offline)."""
    ids = [str(i[0]) for i in items]
    page.wait_for_function(
        f"(ids) => {{ const known = (document.getElementById('{box}').dataset.{attribute} || '').split(' ');"
        " return ids.every((id) => known.includes(id)); }",
        arg=ids,
    )


@pytest.mark.parametrize(("lang", "scheme", "phone"), [("ar", "dark", False), ("es", "light", True)])
def test_offline_the_context_is_the_current_templates(chromium, live, review_app, sessions, lang, scheme, phone):
    items = review_sample(sessions, "ana@example.org", lang)
    first, other, after = items[0], items[3], items[4]  # the next relation's first two templates
    assert first[1] == items[2][1] != other[1] == after[1]
    ana = Browser(review_app).login("ana@example.org")
    machine = {i[0]: ana.get(f"/api/v1/languages/{lang}/items/{i[0]}/context").get_json()["machine"] for i in items[:5]}
    english = {i: m[0]["english"] for i, m in machine.items()}
    assert english[other[0]] != english[after[0]]
    # a glossary term of the first relation (its first English pattern) only
    with sessions() as s:
        pattern = s.scalars(
            select(EnglishPattern.pattern)
            .where(EnglishPattern.relation_id == first[1])
            .order_by(EnglishPattern.position)
        ).first()
    term = max(re.findall(r"[a-z]{4,}", pattern), key=len)
    word = max(re.findall(r"\w{3,}", re.sub(r"\[[XY]\]", "", first[2])), key=len)
    with sessions.begin() as s:
        add_term(s, lang, term, word, "")
    context, page = _open(chromium, live, lang=lang, scheme=scheme, phone=phone)
    try:
        wait_for_item(page, first[0])
        page.wait_for_selector("#glossary:not([hidden]) .glossary-entry")
        # the next templates loaded ahead, with their glossary
        page.wait_for_function("Number(document.getElementById('review').dataset.ahead) >= 4")
        _known(page, "glossary", "known", items[1:4])
        context.set_offline(True)
        for item in items[1:4]:  # on to the next relation, with what was loaded ahead
            page.keyboard.press("j")
            wait_for_item(page, item[0])
        page.wait_for_selector("#glossary", state="hidden")  # no term of its own: none of the last relation's
        # the panel was never read for this template: it says so, with nothing of another one
        page.keyboard.press("m")
        page.wait_for_selector("#context[data-ready='offline'] #ctx-mt-lines .ctx-failed")
        assert page.locator("#ctx-mt-lines li[data-n]").count() == 0
        assert page.locator("#ctx-mt-english").inner_text() == ""
        # the live check: nothing was attempted, so nothing "was not saved"
        page.locator("#template").click()
        page.keyboard.press("s")
        page.keyboard.type("[X] y [Y]")
        page.wait_for_function("document.getElementById('suggest-msg').classList.contains('warn')")
        assert "error" not in (page.locator("#status").get_attribute("class") or "")
        assert page.locator("#status").inner_text() == ""
        page.keyboard.press("Control+a")
        page.keyboard.press("Delete")
        page.keyboard.press("Escape")
        # back online: the panel reads this template's context and those loaded ahead
        context.set_offline(False)
        page.wait_for_selector("#connection", state="hidden")
        page.keyboard.press("m")
        page.keyboard.press("m")
        page.wait_for_selector("#context[data-ready='1'] #ctx-mt-lines li[data-n]")
        assert page.locator("#ctx-mt-english").inner_text() == english[other[0]]
        _known(page, "context", "cached", [after])
        # offline again: the next template shows its own machine translations
        context.set_offline(True)
        page.keyboard.press("j")
        wait_for_item(page, after[0])
        page.wait_for_selector("#context[data-ready='1'] #ctx-mt-lines li[data-n]")
        assert page.locator("#ctx-mt-english").inner_text() == english[after[0]]
        shown = page.locator("#ctx-mt-lines li[data-n] bdi").all_inner_texts()
        assert shown == [m["text"] for m in machine[after[0]]]
        context.set_offline(False)
    finally:
        context.close()

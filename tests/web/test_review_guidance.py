"""Review guidance (issue 15, reviewer part): guidelines before the first item and behind the help
key, maintainers' per-language guidelines (escaped), one screen that follows the reviewer
(viewport, scroll, relation-change note, stale messages), unsure decisions (counted apart,
never merged), comments, right-to-left labels, plain session expiry, history with superseded
decisions and editable suggestions, no sideways scrolling on phones."""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import select

from curator.core.models import Assignment, Comment, Decision, Guideline, Suggestion, User
from curator.release.merge import latest_candidates, plan
from curator.review.guidelines import DEFAULT_GUIDELINES, blocks
from curator.review.policy import stays
from curator.review.stats import CSV_COLUMNS, review_summary, summary_csv
from tests.plugins.databases import review_sample
from tests.plugins.servers import Browser, csrf_from
from tests.web.test_review_ui import sign_in, start_reviewing, wait_for_item

DESKTOP = {"width": 1366, "height": 800}
PHONE = {"width": 390, "height": 844}


def phone(chromium):
    return chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True, bypass_csp=True)


def open_review(chromium, live, email="ana@example.org", lang="es", viewport=DESKTOP, start=True, clock=False):
    """A new context on the review page; `clock`: Playwright's page clock installed first (the
    test then moves the page's time)."""
    context = phone(chromium) if viewport == PHONE else chromium.new_context(viewport=viewport, bypass_csp=True)
    page = context.new_page()
    if clock:
        page.clock.install()
    sign_in(page, live.url, email)
    page.goto(f"{live.url}/review/{lang}")
    page.wait_for_selector("#review[data-ready='1']")
    if start:
        start_reviewing(page)
    return context, page


def no_sideways_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    inner = page.evaluate("window.innerWidth")
    assert width <= inner, f"{page.url} scrolls sideways ({width}px > {inner}px)"


def inside_viewport(page, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None, f"{selector} is not displayed"
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= size["width"] + 0.5, (selector, box, size)
    assert box["y"] + box["height"] <= size["height"] + 0.5, (selector, box, size)


def scrolled_to_top(page) -> None:
    page.wait_for_function("window.scrollY === 0")


# ---------------------------------------------------------------- guidelines


def test_guideline_blocks_are_paragraphs_and_bullets():
    assert blocks("One\ntwo\n\n- a\n- b\n\nafter") == [
        {"kind": "p", "lines": ["One two"]},
        {"kind": "ul", "lines": ["a", "b"]},
        {"kind": "p", "lines": ["after"]},
    ]
    # a line of spaces (or a tab) separates paragraphs like an empty one
    assert blocks("One\n   \ntwo\r\n\t\r\nthree") == [
        {"kind": "p", "lines": ["One"]},
        {"kind": "p", "lines": ["two"]},
        {"kind": "p", "lines": ["three"]},
    ]
    # a plain line after a bullet continues that bullet (a wrapped bullet), not a new paragraph
    assert blocks("Accept when:\n- it means the same\n  as the English\n* it is fluent\nonce filled in") == [
        {"kind": "p", "lines": ["Accept when:"]},
        {"kind": "ul", "lines": ["it means the same as the English", "it is fluent once filled in"]},
    ]
    assert blocks("   \n\n") == []
    text = " ".join(line for b in blocks(DEFAULT_GUIDELINES) for line in b["lines"])
    for needle in (
        "[X]",
        "[Y]",
        "lower case",
        "originaria",
        "swapped",
        "Unsure",
        "votes",
        "m2m100_big",
        "Placeholder repaired: [y] → [Y]",
    ):
        assert needle in text, needle


def test_new_reviewer_sees_the_guidelines_before_the_first_item(chromium, live, sessions):
    items = review_sample(sessions, "ana@example.org", "es")
    context, page = open_review(chromium, live, start=False)
    intro = page.locator("#intro")
    assert intro.is_visible() and page.locator("#work").is_hidden()
    assert "Before you start" in intro.inner_text() and "Choose Unsure" in intro.inner_text()
    page.keyboard.press("a")  # the review keys wait for "Start reviewing"
    page.wait_for_timeout(300)
    with sessions() as s:
        assert s.scalar(select(Decision.id)) is None
        assert (
            s.scalar(
                select(Assignment.guidelines_seen_at)
                .join(User)
                .where(User.email == "ana@example.org", Assignment.language == "es")
            )
            is None
        )
    page.get_by_role("button", name="Start reviewing").click()
    page.wait_for_selector("#intro", state="hidden")
    wait_for_item(page, items[0][0])
    assert page.locator("#template").is_visible()
    page.keyboard.press("a")
    wait_for_item(page, items[1][0])
    with sessions() as s:
        assert (
            s.scalar(
                select(Assignment.guidelines_seen_at)
                .join(User)
                .where(User.email == "ana@example.org", Assignment.language == "es")
            )
            is not None
        )
        assert s.scalars(select(Decision.decision)).all() == ["accept"]

    # next visit: straight to the work; the guidelines behind the help key and the button
    page.reload()
    page.wait_for_selector("#review[data-ready='1']")
    assert page.locator("#intro").is_hidden() and page.locator("#work").is_visible()
    assert page.locator("#help").is_hidden()
    page.keyboard.press("?")
    assert page.locator("#help").is_visible() and "Choose Unsure" in page.locator("#help").inner_text()
    page.keyboard.press("h")
    assert page.locator("#help").is_hidden()
    page.get_by_role("button", name=re.compile("Guidelines")).click()
    assert page.locator("#help").is_visible()
    assert page.locator("#help-toggle").get_attribute("aria-expanded") == "true"
    page.get_by_role("button", name="Close").click()
    assert page.locator("#help").is_hidden()
    context.close()


# the point at the centre of an element: the element itself or inside it (nothing drawn over it)
UNCOVERED = """el => {
    const box = el.getBoundingClientRect();
    const at = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return at === el || el.contains(at);
}"""


@pytest.mark.parametrize("lang", ["es", "ar"])
def test_start_reviewing_is_in_reach_on_a_phone(chromium, live, sessions, lang):
    """On a phone the guidelines run to about two screens: their one "Start reviewing" button stays
    in a bar at the bottom of the screen, in view and uncovered from the first load, after the
    guidelines in the reading (and Tab) order; at the end of the guidelines it covers no line of
    them; a tap on it starts the review."""
    from curator.web.i18n import load_catalogue

    items = review_sample(sessions, "ana@example.org", lang)
    start = load_catalogue(lang).gettext("Start reviewing")
    assert start != "Start reviewing"
    context = phone(chromium)
    page = context.new_page()
    sign_in(page, live.url, "ana@example.org")
    context.add_cookies([{"name": "curator_locale", "value": lang, "url": live.url}])
    page.goto(f"{live.url}/review/{lang}")
    page.wait_for_selector("#review[data-ready='1']")
    assert page.locator("html").get_attribute("lang") == lang
    intro = page.locator("#intro")
    assert intro.is_visible() and page.locator("#work").is_hidden()
    # what this is about: the guidelines are longer than the screen, and the page is at its top
    assert intro.bounding_box()["height"] > 1.5 * PHONE["height"]
    assert page.evaluate("window.scrollY") == 0
    button = page.get_by_role("button", name=start)
    assert button.count() == 1 and button.get_attribute("id") == "start"
    inside_viewport(page, "#start")
    assert button.evaluate(UNCOVERED)
    # read (and reached with Tab) after the last line of the guidelines, inside the intro
    after_the_text = """el => {
        const lines = [...document.querySelectorAll('#intro p, #intro li')].filter(n => !n.contains(el));
        return lines.every(n => n.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
    }"""
    assert button.evaluate(after_the_text)

    # at the end of the guidelines the bar is in its place, under the last line, not over it
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_function("window.scrollY + innerHeight >= document.documentElement.scrollHeight - 1")
    last = page.locator("#intro > :is(p, ul):not(.intro-start)").last
    bar = page.locator("#intro .intro-start").bounding_box()
    assert last.bounding_box()["y"] + last.bounding_box()["height"] <= bar["y"] + 0.5
    assert last.evaluate(UNCOVERED)
    inside_viewport(page, "#start")
    assert button.evaluate(UNCOVERED)

    # from the first screen: one tap starts
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_function("window.scrollY === 0")
    inside_viewport(page, "#start")
    button.tap()
    page.wait_for_selector("#intro", state="hidden")
    wait_for_item(page, items[0][0])
    with sessions() as s:
        seen = select(Assignment.guidelines_seen_at).join(User)
        assert s.scalar(seen.where(User.email == "ana@example.org", Assignment.language == lang)) is not None
    context.close()


def test_maintainer_edits_a_languages_guidelines_shown_escaped(chromium, live, review_app, sessions):
    boss = Browser(review_app).login("boss@example.org")
    page = boss.get("/admin/languages/es/guidelines").get_data(as_text=True)
    assert "default guidelines" in page and "Choose Unsure" in page
    text = "Spanish rule: <b>bold</b> stays text.\n\n- keep [X] first\n- mind “originaria”"
    r = boss.client.post(
        "/admin/languages/es/guidelines", data={"text": text, "action": "save", "csrf_token": csrf_from(page)}
    )
    assert r.status_code == 302
    with sessions() as s:
        assert s.get(Guideline, "es").text.startswith("Spanish rule: <b>bold</b>")
    page = boss.get("/admin/languages/es/guidelines").get_data(as_text=True)
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold</b>" not in page
    # control characters are refused, nothing changes
    r = boss.client.post(
        "/admin/languages/es/guidelines",
        data={"text": "bad\u202e text", "action": "save", "csrf_token": csrf_from(page)},
    )
    assert r.status_code == 422
    # a reviewer may not edit them
    ana = Browser(review_app).login("ana@example.org")
    assert ana.get("/admin/languages/es/guidelines").status_code == 403

    context, page = open_review(chromium, live, start=False)
    intro = page.locator("#intro")
    assert "Spanish rule: <b>bold</b> stays text." in intro.inner_text()
    assert intro.locator("b").count() == 0
    assert intro.locator("li", has_text="keep [X] first").count() == 1
    # another language keeps the default
    page.goto(live.url + "/review/ar")
    page.wait_for_selector("#review[data-ready='1']")
    assert "Choose Unsure" in page.locator("#intro").inner_text()
    context.close()

    page = boss.get("/admin/languages/es/guidelines").get_data(as_text=True)
    boss.client.post("/admin/languages/es/guidelines", data={"action": "reset", "csrf_token": csrf_from(page)})
    with sessions() as s:
        assert s.get(Guideline, "es") is None


# ---------------------------------------------------------------- one screen that follows you


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1366x800", "390x844"])
def test_first_item_fits_one_screen(chromium, live, viewport):
    context, page = open_review(chromium, live, viewport=viewport)
    page.wait_for_selector("#item-card[data-item]")
    for selector in ("#relation-title", "#template", "#examples", "#accept", "#amend", "#reject", "#unsure"):
        inside_viewport(page, selector)
    assert page.locator("#relation-title").inner_text() == "place of birth"
    assert page.locator("#relation-id").inner_text() == "P19"
    assert "Spanish" in page.locator(".review-lang").inner_text()
    details = page.locator("#details")
    assert details.get_attribute("open") is None  # a reviewer opens the details when wanted
    assert page.locator("#sources").is_hidden()
    if viewport == PHONE:
        assert page.locator("#accept kbd").is_hidden()  # no key hints on a touch screen
        no_sideways_scroll(page)
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # the action bar stays on screen
        for selector in ("#accept", "#unsure"):
            inside_viewport(page, selector)
    else:
        assert page.locator("#accept kbd").is_visible()
    context.close()


def test_details_open_for_maintainers(chromium, live, sessions):
    from curator.review.sampling import assign

    with sessions.begin() as s:
        assign(s, s.scalar(select(User).where(User.email == "boss@example.org")), "es")
    context, page = open_review(chromium, live, email="boss@example.org")
    page.wait_for_selector("#item-card[data-item]")
    assert page.locator("#details").get_attribute("open") is not None
    assert page.locator("#sources").is_visible()
    context.close()


def test_a_suggestion_sent_at_once_keeps_its_message(chromium, live, sessions):
    """Sent before the live check's moment (150 ms after the last keystroke): the check still
    waiting is dropped with the sending, so it does not empty "Suggestion saved" when it comes
    (the sending empties the field). The page's clock stands still from the typing on, and is then
    moved past the check's moment: no race with the machine's speed."""
    items = review_sample(sessions, "ana@example.org", "es")
    context, page = open_review(chromium, live, clock=True)
    wait_for_item(page, items[0][0])
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)  # no timer fires until the test says so
    page.fill("#suggest-text", "[X] vio la luz en [Y]")
    page.locator("#suggest-form").get_by_role("button", name="Add suggestion").click()
    page.wait_for_function("document.getElementById('suggest-msg').textContent.includes('saved')", polling=50)
    assert page.locator("#suggest-text").input_value() == ""
    page.clock.run_for(1000)  # the live check's moment, long past
    page.clock.resume()
    page.wait_for_function("document.getElementById('suggestions').textContent.includes('vio la luz')", polling=50)
    assert page.locator("#suggest-msg").inner_text() == "Suggestion saved. Thank you!"
    context.close()


def test_the_next_item_is_shown_from_the_top(chromium, live, sessions):
    items = review_sample(sessions, "ana@example.org", "es")
    relation = items[0][1]
    in_relation = [i for i in items if i[1] == relation]
    context, page = open_review(chromium, live, viewport={"width": 1000, "height": 480})
    wait_for_item(page, items[0][0])

    # a suggestion's message does not linger on the next item
    page.fill("#suggest-text", "[X] vio la luz en [Y]")
    page.locator("#suggest-form").get_by_role("button", name="Add suggestion").click()
    page.wait_for_function("document.getElementById('suggest-msg').textContent.includes('saved')")
    assert page.evaluate("window.scrollY") > 0
    page.keyboard.press("a")
    wait_for_item(page, items[1][0])
    scrolled_to_top(page)
    assert page.locator("#suggest-msg").inner_text() == ""
    assert "Accepted. Saved." in page.locator("#status").inner_text()

    # amend from further down the page
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.locator("#amend").click()
    page.fill("#amend-text", "[X] vino al mundo en [Y]")
    page.keyboard.press("Enter")
    wait_for_item(page, items[2][0])
    scrolled_to_top(page)

    # undo from further down
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.locator("#undo").click()
    wait_for_item(page, items[1][0])
    page.wait_for_function("document.getElementById('status').textContent.includes('Undone')")
    scrolled_to_top(page)
    # the live region is always in the page (one shown from hidden is not announced): empty here
    assert page.locator("#relation-note").get_attribute("hidden") is None
    assert page.locator("#relation-note").inner_text() == ""

    # the last template of the relation, then the first of the next: announced
    page.goto(f"{live.url}/review/es#item-{in_relation[-1][0]}")
    page.wait_for_selector("#review[data-ready='1']")
    wait_for_item(page, in_relation[-1][0])
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.locator("#reject").click()
    nxt = items[len(in_relation)]
    wait_for_item(page, nxt[0])
    scrolled_to_top(page)
    note = page.locator("#relation-note")
    assert note.is_visible() and note.get_attribute("aria-live") == "polite"
    assert note.get_attribute("hidden") is None
    from curator.ingest.relations import relation_title

    title = relation_title(nxt[1])
    assert note.inner_text() == f"New relation: {title}"
    assert page.locator("#relation-title").inner_text() == title
    # within the relation, the note goes away
    page.keyboard.press("j")
    wait_for_item(page, items[len(in_relation) + 1][0])
    assert note.inner_text() == "" and note.get_attribute("hidden") is None
    context.close()


# ---------------------------------------------------------------- unsure


def test_unsure_is_stored_counted_apart_and_never_merged(review_app, cli, sessions, tmp_path):
    assert stays(["accept", "unsure"], "unanimous") and stays(["accept", "unsure", "unsure"], "majority")
    assert stays(["unsure"], "unanimous") and stays(["unsure", "unsure"], "any")  # as if undecided
    assert not stays(["reject", "unsure"], "any")

    cli("release", "build", "v0")
    rows = [  # Ana and Bo, Spanish; unsure comes in through `curator review import` too
        ("ana@example.org", "P19", "[X] nació en [Y]", "accept"),
        ("bo@example.org", "P19", "[X] nació en [Y]", "unsure"),
        ("bo@example.org", "P19", "[X] es nativo de [Y]", "unsure"),
        ("ana@example.org", "P36", "la capital de [X] es [Y]", "reject"),
        ("bo@example.org", "P36", "la capital de [X] es [Y]", "unsure"),
    ]
    path = tmp_path / "decisions.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {"reviewer": r, "language": "es", "relation": rel, "template": t, "decision": d}, ensure_ascii=False
            )
            + "\n"
            for r, rel, t, d in rows
        ),
        encoding="utf-8",
    )
    assert "3 unsure" in cli("review", "import", path).output

    # the API takes it too (and the page's N key, see the UI test)
    ana = Browser(review_app).login("ana@example.org")
    imported = {t for _, _, t, _ in rows}
    item = next(i for i in review_sample(sessions, "ana@example.org", "es") if i[1] == "P19" and i[2] not in imported)
    r = ana.post(f"/api/v1/languages/es/items/{item[0]}/decision", {"decision": "unsure", "request_id": "u-1"})
    assert r.status_code == 201 and r.get_json()["decision"]["decision"] == "unsure"

    with sessions() as s:
        es = next(row for row in review_summary(s).languages if row.language == "es")
        assert (es.accepted, es.rejected, es.amended, es.unsure, es.done) == (1, 1, 0, 4, 6)
        assert es.share("accepted") == 0.5  # unsure is in neither the shares
        assert es.pairs_compared == 0  # nor the agreement
        csv_text = summary_csv(review_summary(s))
        header, line = (
            csv_text.splitlines()[0].split(","),
            next(ln for ln in csv_text.splitlines() if ln.startswith("es,")).split(","),
        )
        assert "unsure" in CSV_COLUMNS and line[header.index("unsure")] == "4"

        base = latest_candidates(s)
        plans = {(p.language, p.relation): p for p in plan(s, base, "unanimous", ["es"])}
        p19, p36 = plans["es", "P19"], plans["es", "P36"]
        kept = {k.pattern: k for k in p19.kept}
        assert kept["[X] nació en [Y]"].checked  # one accept + one unsure: the accept decides
        # only unsure: unchanged, as if nobody had decided it (not human-checked)
        assert "[X] es nativo de [Y]" in kept and not kept["[X] es nativo de [Y]"].checked
        assert item[2] in kept and not kept[item[2]].checked
        assert [r["pattern"] for r in p36.removed] == ["la capital de [X] es [Y]"]
        assert p36.removed[0]["decisions"] == ["reject"]  # the unsure is not listed as a verdict

        # the maintainer's overview: accept + unsure, reject + unsure are no disagreement
        from curator.review.overview import ReviewerDecision, RowFilter, TemplateRow, language_rows

        rows_ = {r.text: r for r in language_rows(s, "es", RowFilter(), page_size=1000).rows}
        assert {d.decision for d in rows_["[X] nació en [Y]"].decisions} == {"accept", "unsure"}
        assert not rows_["[X] nació en [Y]"].disagreement and rows_["[X] nació en [Y]"].unsure
        assert not rows_["la capital de [X] es [Y]"].disagreement
        assert language_rows(s, "es", RowFilter(disagreement=True), page_size=1000).rows == []
        row = rows_["[X] nació en [Y]"]
        row.decisions.append(ReviewerDecision("Eleni", "eleni@example.org", "reject", None))
        assert row.disagreement  # accept + reject is one, unsure or not
        assert isinstance(row, TemplateRow)
    stats = cli("review", "stats").output
    assert "unsure" in stats


def test_unsure_by_button_and_key(chromium, live, sessions):
    items = review_sample(sessions, "ana@example.org", "es")
    context, page = open_review(chromium, live)
    wait_for_item(page, items[0][0])
    page.keyboard.press("n")
    wait_for_item(page, items[1][0])
    page.get_by_role("button", name=re.compile("Unsure")).click()
    wait_for_item(page, items[2][0])
    page.keyboard.press("k")
    wait_for_item(page, items[1][0])
    assert "Marked unsure" in page.locator("#decision-badge").inner_text()
    context.close()
    with sessions() as s:
        assert s.scalars(select(Decision.decision).order_by(Decision.id)).all() == ["unsure", "unsure"]


# ---------------------------------------------------------------- comments


def test_comments_through_the_api(review_app, sessions):
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    item = review_sample(sessions, "ana@example.org", "es")[0]
    url = f"/api/v1/languages/es/items/{item[0]}/comments"
    r = ana.post(url, {"text": "The article is odd here.", "request_id": "c-1"})
    assert r.status_code == 201 and r.get_json()["created"]
    comment = r.get_json()["comment"]
    assert ana.post(url, {"text": "The article is odd here.", "request_id": "c-1"}).get_json()["created"] is False
    r = ana.post("/api/v1/languages/es/relations/P19/comments", {"text": "Line one\nline two", "request_id": "c-2"})
    assert r.status_code == 201 and r.get_json()["comment"]["template_id"] is None
    assert ana.post(url, {"text": "sneaky \u202e text"}).status_code == 422
    assert ana.post(url, {"text": "x" * 2001}).status_code == 422
    assert ana.post(url, {"text": "   "}).status_code == 422
    assert ana.post("/api/v1/languages/es/relations/P999/comments", {"text": "hm"}).status_code == 404
    assert bo.post(url, {"text": "not my item"}).status_code == 404
    listed = ana.get("/api/v1/languages/es/comments").get_json()["comments"]
    assert [c["text"] for c in listed] == ["The article is odd here.", "Line one\nline two"]
    context = ana.get(f"/api/v1/languages/es/items/{item[0]}").get_json()
    assert [c["id"] for c in context["comments"]["item"]] == [comment["id"]]
    assert context["relation"]["title"] == "place of birth"
    # only the author withdraws
    assert bo.post(f"/api/v1/languages/es/comments/{comment['id']}/withdraw").status_code == 404
    r = ana.post(f"/api/v1/languages/es/comments/{comment['id']}/withdraw")
    assert r.status_code == 200 and r.get_json()["comment"]["retracted"]
    assert len(ana.get("/api/v1/languages/es/comments").get_json()["comments"]) == 1
    with sessions() as s:
        assert s.get(Comment, comment["id"]).retracted  # kept, marked


@pytest.mark.parametrize("control", ["\t", "\r", "\x0b", "\x0c", "\x1c", "\x85"])
def test_a_comment_holds_line_breaks_and_no_other_control(review_app, sessions, control):
    """The API docs: line breaks allowed, no other control character — a tab or a lone carriage
    return (whitespace to Python, invisible to a maintainer reading the comment) included. A
    browser's CRLF is a line break, stored as LF."""
    ana = Browser(review_app).login("ana@example.org")
    url = "/api/v1/languages/es/relations/P19/comments"
    r = ana.post(url, {"text": f"one{control}two"})
    assert r.status_code == 422, control
    assert f"U+{ord(control):04X}" in r.get_json()["error"] and "invisible character" in r.get_json()["error"]
    r = ana.post(url, {"text": "first line\r\nsecond line\n\nthird"})
    assert r.status_code == 201 and r.get_json()["comment"]["text"] == "first line\nsecond line\n\nthird"
    with sessions() as s:
        assert [c.text for c in s.scalars(select(Comment))] == ["first line\nsecond line\n\nthird"]


def test_comments_on_the_review_screen(chromium, live, sessions):
    items = review_sample(sessions, "ana@example.org", "es")
    context, page = open_review(chromium, live)
    wait_for_item(page, items[0][0])
    page.keyboard.press("c")
    page.keyboard.type("Sounds old-fashioned <i>here</i>")
    page.locator("#item-comment-form").get_by_role("button", name="Add comment").click()
    page.wait_for_selector("#item-comments li")
    assert page.locator("#item-comments li span").inner_text() == "Sounds old-fashioned <i>here</i>"
    page.fill("#relation-comment-text", "Most of these say 'native', not 'born'.")
    page.locator("#relation-comment-form").get_by_role("button", name="Add comment").click()
    page.wait_for_selector("#relation-comments li")
    # the relation's comment follows to the next template of the relation; the template's does not
    page.keyboard.press("j")
    wait_for_item(page, items[1][0])
    assert page.locator("#item-comments li").count() == 0 and page.locator("#relation-comments li").count() == 1
    page.locator("#relation-comments").get_by_role("button", name="Withdraw").click()
    page.wait_for_function("document.querySelectorAll('#relation-comments li').length === 0")
    context.close()
    with sessions() as s:
        rows = s.execute(
            select(Comment.text, Comment.template_id.is_(None), Comment.retracted).order_by(Comment.id)
        ).all()
    assert [tuple(r) for r in rows] == [
        ("Sounds old-fashioned <i>here</i>", False, False),
        ("Most of these say 'native', not 'born'.", True, True),
    ]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_draft_stays_with_its_template(chromium, live, sessions, viewport):
    """A comment typed on one template is not carried to the next one: deciding the template sends
    it beside the decision (docs/review-app.md, "Pending work"); the relation's drafts stay."""
    items = review_sample(sessions, "ana@example.org", "es")
    relation = items[0][1]
    assert items[1][1] == relation
    context, page = open_review(chromium, live, viewport=viewport)
    wait_for_item(page, items[0][0])
    # typing letters that are shortcuts elsewhere into a comment decides nothing
    page.locator("#item-comment-text").click()
    page.keyboard.type("a r n u")
    page.fill("#relation-comment-text", "about the whole relation")
    page.fill("#suggest-text", "[X] vio la luz en [Y]")
    page.wait_for_timeout(300)
    assert page.locator("#item-card").get_attribute("data-item") == str(items[0][0])
    with sessions() as s:
        assert s.scalars(select(Decision.id)).all() == []
    page.fill("#item-comment-text", "about the first template")
    page.locator("#item-comment-text").focus()
    if viewport == PHONE:
        page.locator("#accept").tap()
    else:
        page.locator("#accept").click()
    wait_for_item(page, items[1][0])
    assert page.locator("#item-comment-text").input_value() == ""
    page.wait_for_function("() => document.getElementById('review').dataset.busy !== '1'")
    # the relation is the same: its drafts stay
    assert page.locator("#relation-comment-text").input_value() == "about the whole relation"
    assert page.locator("#suggest-text").input_value() == "[X] vio la luz en [Y]"
    page.locator("#item-comment-form").get_by_role("button", name="Add comment").click()  # empty: refused
    page.wait_for_timeout(300)
    assert page.locator("#item-comment-msg").inner_text().strip() != ""  # said beside the button
    with sessions() as s:
        # the comment typed on the first template went with its decision, on that template
        assert s.execute(select(Comment.text, Comment.template_id.is_not(None))).all() == [
            ("about the first template", True)
        ]
        assert s.execute(select(Decision.item_id, Decision.decision)).all() == [(items[0][0], "accept")]
    # on to another relation: the relation's drafts go too
    other = next(i for i in items if i[1] != relation)
    page.goto(f"{page.url.split('#')[0]}#item-{other[0]}")
    wait_for_item(page, other[0])
    assert page.locator("#relation-comment-text").input_value() == ""
    assert page.locator("#suggest-text").input_value() == ""
    context.close()


def test_the_footer_is_reachable_above_the_phone_action_bar(chromium, live):
    context, page = open_review(chromium, live, viewport=PHONE)
    page.wait_for_selector("#item-card[data-item]")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_timeout(100)
    switcher = page.locator("footer.site .locale-switch button").first
    hit = switcher.evaluate("""el => {
        const box = el.getBoundingClientRect();
        const at = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        return at === el || el.contains(at) ? "switcher" : (at && at.closest('#actions') ? "actions" : String(at && at.id));
    }""")
    assert hit == "switcher"
    assert page.locator("#actions").evaluate("el => getComputedStyle(el).position") == "fixed"
    # while typing, the bar stays where it is: nothing moves when the field loses the focus (issue 37)
    page.locator("#item-comment-text").focus()
    assert page.locator("#actions").evaluate("el => getComputedStyle(el).position") == "fixed"
    context.close()


# ---------------------------------------------------------------- right to left, expiry, estimate


def test_right_to_left_navigation_labels(chromium, live, sessions):
    items = review_sample(sessions, "ana@example.org", "ar")
    context, page = open_review(chromium, live, lang="ar")
    wait_for_item(page, items[0][0])
    prev, nxt = page.locator("#prev"), page.locator("#next")
    assert prev.inner_text().startswith("→") and "Previous" in prev.inner_text()
    assert nxt.inner_text().rstrip().endswith("←") and "Next" in nxt.inner_text()
    assert prev.bounding_box()["x"] > nxt.bounding_box()["x"]  # previous on the right
    page.keyboard.press("ArrowLeft")  # forward in reading direction
    wait_for_item(page, items[1][0])
    page.keyboard.press("ArrowRight")
    wait_for_item(page, items[0][0])
    page.goto(live.url + "/review/es")
    start_reviewing(page)
    page.wait_for_selector("#item-card[data-item]")
    assert page.locator("#prev").inner_text().startswith("←")
    assert page.locator("#prev").bounding_box()["x"] < page.locator("#next").bounding_box()["x"]
    context.close()


def test_session_expiry_is_said_plainly(chromium, live, sessions):
    items = review_sample(sessions, "ana@example.org", "es")
    context, page = open_review(chromium, live)
    wait_for_item(page, items[0][0])
    context.clear_cookies()
    page.keyboard.press("j")  # a GET: 401
    page.wait_for_function("document.getElementById('status').textContent.includes('session ended')")
    page.evaluate("document.getElementById('status').textContent = ''")
    page.keyboard.press("a")  # a POST: its CSRF token went with the session, said the same way
    page.wait_for_function("document.getElementById('status').textContent.includes('session ended')")
    status = page.locator("#status")
    assert status.inner_text().startswith("Your session ended — sign in again; your place is kept.")
    link = page.locator("#sign-in-again")
    assert link.get_attribute("href") == f"/login?next=%2Freview%2Fes%23item-{items[0][0]}"
    link.click()
    page.fill("input[name=email]", "ana@example.org")
    page.fill("input[name=password]", "correct horse battery")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/review/es"))
    wait_for_item(page, items[0][0])
    context.close()


def test_the_same_time_estimate_on_home_and_review(chromium, live):
    context = chromium.new_context(viewport=DESKTOP, bypass_csp=True)
    page = context.new_page()
    sign_in(page, live.url, "ana@example.org")
    home = page.locator("li.card", has_text="Spanish").locator(".time-left").inner_text()
    estimate = re.search(r"about \d+ minutes? left", home)
    assert estimate, home
    page.goto(live.url + "/review/es")
    start_reviewing(page)
    assert estimate.group(0) in page.locator("#progress-text").inner_text()
    context.close()


# ---------------------------------------------------------------- my decisions


def test_history_marks_superseded_and_edits_suggestions(chromium, live, review_app, sessions):
    ana = Browser(review_app).login("ana@example.org")
    items = review_sample(sessions, "ana@example.org", "es")
    # a one-line helper that reads best beside its uses
    decide = lambda item, kind: ana.post(f"/api/v1/languages/es/items/{item}/decision", {"decision": kind})  # noqa: E731
    decide(items[0][0], "accept")
    decide(items[0][0], "reject")  # supersedes the accept
    decide(items[1][0], "accept")
    ana.post("/api/v1/languages/es/undo")  # retracts the accept of items[1]
    decide(items[2][0], "unsure")
    assert (
        ana.post("/api/v1/languages/es/relations/P19/suggestions", {"text": "[X] vio la luz en [Y]"}).status_code == 201
    )
    ana.post(f"/api/v1/languages/es/items/{items[0][0]}/comments", {"text": "odd word order"})

    context = phone(chromium)
    page = context.new_page()
    sign_in(page, live.url, "ana@example.org")
    page.goto(live.url + "/review/es/history")
    no_sideways_scroll(page)
    rows = page.locator(".history-row")
    assert rows.count() == 4
    unsure, newest, reject, accept = rows.nth(0), rows.nth(1), rows.nth(2), rows.nth(3)
    # a standing unsure is not counted for or against the template
    assert "standing" in unsure.get_attribute("class") and "not counted (unsure)" in unsure.inner_text()
    assert "counts" not in unsure.inner_text()
    assert "retracted" in newest.get_attribute("class") and "undone" in newest.inner_text()
    assert "standing" in reject.get_attribute("class") and "counts" in reject.inner_text()
    assert "superseded" in accept.get_attribute("class") and "replaced by a later decision" in accept.inner_text()
    assert "place of birth" in reject.inner_text()

    # edit the suggestion: the old one withdrawn, the new one added
    suggestion = page.locator(".suggestion-row")
    suggestion.locator("input[name=text]").fill("[X] vio la primera luz en [Y]")
    suggestion.get_by_role("button", name="Save change").click()
    page.wait_for_selector(".flash")
    assert "Suggestion changed." in page.locator(".flash").inner_text()
    # an invalid edit is refused with the reason and changes nothing
    page.locator(".suggestion-row input[name=text]").fill("[X] sin objeto")
    page.locator(".suggestion-row").get_by_role("button", name="Save change").click()
    page.wait_for_selector(".flash.error")
    assert "[Y]" in page.locator(".flash.error").inner_text()
    with sessions() as s:
        assert s.execute(select(Suggestion.text, Suggestion.retracted).order_by(Suggestion.id)).all() == [
            ("[X] vio la luz en [Y]", True),
            ("[X] vio la primera luz en [Y]", False),
        ]
    page.locator(".suggestion-row").get_by_role("button", name="Withdraw").click()
    page.wait_for_selector(".flash")
    assert page.locator(".suggestion-row").count() == 0
    # comments are listed and can be withdrawn
    assert "odd word order" in page.locator(".comment-row").inner_text()
    page.locator(".comment-row").get_by_role("button", name="Withdraw").click()
    page.wait_for_selector(".flash")
    assert page.locator(".comment-row").count() == 0
    no_sideways_scroll(page)
    context.close()
    with sessions() as s:
        assert s.scalars(select(Suggestion.retracted)).all() == [True, True]
        assert s.scalars(select(Comment.retracted)).all() == [True]


def test_history_edit_sent_twice_or_unchanged(review_app, sessions):
    ana = Browser(review_app).login("ana@example.org")
    made = ana.post("/api/v1/languages/es/relations/P19/suggestions", {"text": "[X] vio la luz en [Y]"}).get_json()
    sid = made["suggestion"]["id"]
    url = f"/review/es/suggestions/{sid}/edit"
    csrf = csrf_from(ana.get("/review/es/history").get_data(as_text=True))

    def send(text):
        return ana.client.post(url, data={"csrf_token": csrf, "text": text}, follow_redirects=True).get_data(
            as_text=True
        )

    page = send("[X] vio la luz en [Y]")  # the same text: nothing to do, and said so
    assert "Nothing changed." in page and "Suggestion changed." not in page
    assert "Suggestion changed." in send("[X] vio la primera luz en [Y]")
    page = send("[X] vio la primera luz en [Y]")  # the form sent again: its change stands
    assert "Suggestion changed." in page and "withdrawn already" not in page
    assert "withdrawn already" in send("[X] otro texto en [Y]")  # a different text on a withdrawn one
    with sessions() as s:
        assert s.execute(select(Suggestion.text, Suggestion.retracted).order_by(Suggestion.id)).all() == [
            ("[X] vio la luz en [Y]", True),
            ("[X] vio la primera luz en [Y]", False),
        ]


@pytest.mark.parametrize("kind", ["comment", "suggestion"])
def test_a_resend_racing_in_is_stored_once(review_app, sessions, kind):
    """The same request id arriving on two threads at once: the loser finds the winner's row
    through the unique constraint, as decide does, instead of failing."""
    from curator.core.models import AssignmentItem
    from curator.review import comments as comment_service
    from curator.review import suggestions
    from curator.review.service import get_assignment

    items = review_sample(sessions, "ana@example.org", "es")
    model = Comment if kind == "comment" else Suggestion
    with sessions.begin() as s:
        ana = s.scalar(select(User).where(User.email == "ana@example.org"))
        assignment = get_assignment(s, ana, "es")
        item = s.get(AssignmentItem, items[0][0])

        def send():
            if kind == "comment":
                return comment_service.add_comment(s, ana, assignment, "odd here", item=item, request_id="race-1")
            return suggestions.suggest(s, ana, assignment, "P19", "[X] vio la luz en [Y]", request_id="race-1")

        first, created = send()
        assert created
        real = s.scalar
        missed = []

        def scalar(statement, *args, **kwargs):  # the other thread's row is not seen yet, once
            if not missed and "request_id" in str(statement) and model.__tablename__ in str(statement):
                missed.append(statement)
                return None
            return real(statement, *args, **kwargs)

        s.scalar = scalar
        if kind == "suggestion":  # the same text would be found as standing: another text, same request
            again, created = suggestions.suggest(
                s, ana, assignment, "P19", "[X] vio otra luz en [Y]", request_id="race-1"
            )
        else:
            again, created = send()
        del s.scalar
        assert missed and not created and again.id == first.id
    with sessions() as s:
        assert len(s.scalars(select(model.id)).all()) == 1


def test_history_changes_only_your_own(review_app, sessions):
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    made = ana.post("/api/v1/languages/es/relations/P19/suggestions", {"text": "[X] vio la luz en [Y]"}).get_json()
    page = bo.get("/review/es/history").get_data(as_text=True)
    r = bo.client.post(
        f"/review/es/suggestions/{made['suggestion']['id']}/withdraw",
        data={"csrf_token": csrf_from(page)},
        follow_redirects=True,
    )
    assert "no such suggestion of yours" in r.get_data(as_text=True)
    eleni = Browser(review_app).login("eleni@example.org")
    page = eleni.get("/").get_data(as_text=True)
    r = eleni.client.post(
        f"/review/es/suggestions/{made['suggestion']['id']}/withdraw", data={"csrf_token": csrf_from(page)}
    )
    assert r.status_code == 403
    with sessions() as s:
        assert s.scalar(select(Suggestion.retracted)) is False


# ---------------------------------------------------------------- phones, strings


def test_no_sideways_scrolling_on_a_phone(chromium, live):
    context, page = open_review(chromium, live, viewport=PHONE)
    page.wait_for_selector("#item-card[data-item]")
    page.locator("#details summary").tap()
    no_sideways_scroll(page)
    page.goto(live.url + "/")
    no_sideways_scroll(page)
    page.goto(live.url + "/review/es/history")
    no_sideways_scroll(page)
    context.close()


def test_every_string_of_review_js_is_translatable():
    from pathlib import Path

    from curator.web.i18n import JS_MESSAGES

    # review.js and its modules (static/review/*.js: every script of the screen that calls t())
    static = Path(__file__).resolve().parents[2] / "curator" / "web" / "static"
    modules = [static / "review.js", *sorted((static / "review").glob("*.js"))]
    source = "\n".join(path.read_text(encoding="utf-8") for path in modules)
    joined = re.sub(r'"\s*\+\s*\n\s*"', "", source)
    used = set(re.findall(r'\bt\("((?:[^"\\]|\\.)*)"', joined))
    labels = re.search(r"const LABELS = \{([^}]*)\}", source).group(1)
    used |= set(re.findall(r':\s*"([^"]*)"', labels))
    assert used and not used - set(JS_MESSAGES), sorted(used - set(JS_MESSAGES))
    # no English sentence shown without t(): textContent/say() only take t(...) or data
    assert not re.search(r'(say|textContent\s*=)\s*\(?\s*[`"][A-Z]', source)


def test_titles_fall_back_to_the_lemma_and_guidelines_must_be_text(review_app, sessions):
    from curator.core.errors import InputError
    from curator.core.models import Relation
    from curator.review.guidelines import set_guidelines
    from curator.review.service import get_assignment
    from curator.review.suggestions import list_suggestions

    with sessions.begin() as s:
        with pytest.raises(InputError):
            set_guidelines(s, "es", 42, None)  # not text: refused, not an AttributeError
        s.add(Relation(id="P99999", lemma="was-born-near"))  # no Wikidata title known
        ana = s.scalar(select(User).where(User.email == "ana@example.org"))
        assignment = get_assignment(s, ana, "es")
        s.flush()
        s.add(
            Suggestion(
                user_id=ana.id,
                language="es",
                relation_id="P99999",
                text_raw="[X] nació cerca de [Y]",
                text="[X] nació cerca de [Y]",
                source="web",
            )
        )
        s.flush()
        titles = {r["relation"]: r["relation_title"] for r in list_suggestions(s, ana, assignment)}
        assert titles == {"P99999": "was born near"}

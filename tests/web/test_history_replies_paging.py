"""Issue 38 §2: the history page's "Replies to your comments" is paged like every other listing
(`replies_page`, review.threads.PER_PAGE a page; review.waiting.waiting_page, which the JSON API
/api/v1/me/replies reads too), not cut at 20 with the rest unreachable.

The rule of what waits is checked against a reference written from review.threads' docstring: in
an open thread the reviewer opened or wrote in, every reply by someone else after the reviewer's
own latest post there (withdrawn posts are no posts; a withdrawn opening takes its thread with it),
in the languages the reviewer reviews, the oldest first."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, select

from curator.core.models import AssignmentItem, Comment, User
from curator.core.models.base import utcnow
from curator.review import threads, waiting
from tests.plugins.databases import review_sample
from tests.plugins.servers import Browser, signed_in_state

WAITING = re.compile(r'<li class="card waiting-reply" data-reply="(\d+)"')
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 800}


@dataclass
class Place:
    """Where Ana's comments go in a language: a template of her sample and its relation."""

    relation: str
    template_id: int


@pytest.fixture
def world(review_app, sessions):
    """(people by name, places by language, Ana signed in) of the seeded database: Ana reviews es
    and ar, Bo es, Boss is a maintainer."""
    with sessions() as s:
        people = {email.split("@")[0]: uid for uid, email in s.execute(select(User.id, User.email))}
        places = {}
        for lang in ("es", "ar"):
            item_id, relation, _text = review_sample(sessions, "ana@example.org", lang)[0]
            places[lang] = Place(relation, s.get_one(AssignmentItem, item_id).template_id)
    return people, places, Browser(review_app).login("ana@example.org")


def _store(sessions, world, threads_: list[dict], posts: list[tuple[int, str, bool]]) -> list[dict]:
    """Replace every comment with `threads_` (language, opener, resolved, withdrawn) and `posts`
    ((thread index, author, withdrawn), in the order written; Bo does not review Arabic, so his
    posts there are the maintainer's). Returns the threads with their ids: {"language",
    "resolved", "withdrawn", "posts": [(id, author, withdrawn)], opening first}."""
    people, places, _ana = world
    with sessions() as s:
        s.execute(delete(Comment).where(Comment.parent_id.is_not(None)))
        s.execute(delete(Comment))
        stored = []
        for t in threads_:
            place = places[t["language"]]
            root = Comment(
                user_id=people[t["opener"]],
                language=t["language"],
                relation_id=place.relation,
                template_id=place.template_id,
                text=f"hilo de {t['opener']}",
                retracted=t["withdrawn"],
                resolved_at=utcnow() if t["resolved"] else None,
                resolved_by=people["boss"] if t["resolved"] else None,
            )
            s.add(root)
            s.flush()
            stored.append({**t, "root": root, "posts": [(root.id, t["opener"], t["withdrawn"])]})
        written = []
        for n, (index, author, withdrawn) in enumerate(posts):
            t = stored[index % len(stored)]
            place = places[t["language"]]
            author = "boss" if t["language"] == "ar" and author == "bo" else author
            row = Comment(
                user_id=people[author],
                language=t["language"],
                relation_id=place.relation,
                template_id=place.template_id,
                parent_id=t["root"].id,
                text=f"respuesta {n} de {author}",
                retracted=withdrawn,
            )
            s.add(row)
            written.append((t, row, author, withdrawn))
        s.flush()  # one INSERT for them all; the reference reads the ids they were given
        for t, row, author, withdrawn in written:
            t["posts"].append((row.id, author, withdrawn))
        s.commit()
    return stored


def reference_waiting(stored: list[dict], reader: str = "ana") -> dict[str, list[int]]:
    """{language: ids of the replies waiting for `reader`}, oldest first, from the rule alone."""
    out: dict[str, list[int]] = {"es": [], "ar": []}
    for t in stored:
        if t["resolved"] or t["withdrawn"]:
            continue
        own = [pid for pid, who, withdrawn in t["posts"] if who == reader and not withdrawn]
        if not own:
            continue  # never took part (or only with withdrawn posts)
        out[t["language"]] += [
            pid for pid, who, withdrawn in t["posts"][1:] if who != reader and not withdrawn and pid > max(own)
        ]
    return {lang: sorted(ids) for lang, ids in out.items()}


PAGER = re.compile(r'<nav class="pager" id="replies-pager".*?</nav>', re.S)


def _history_pages(ana: Browser) -> tuple[list[int], int]:
    """Every reply the history page lists, following its replies pager's "next" to the end; and
    how many pages that took."""
    got, page = [], 1
    while True:
        html = ana.get(f"/review/es/history?replies_page={page}").get_data(as_text=True)
        got += [int(i) for i in WAITING.findall(html)]
        pager = PAGER.search(html)
        if pager is None or 'rel="next"' not in pager.group(0):
            return got, page
        page += 1


THREAD = st.fixed_dictionaries(
    {
        "language": st.sampled_from(["es", "es", "ar"]),
        "opener": st.sampled_from(["ana", "ana", "ana", "bo", "boss"]),
        "resolved": st.sampled_from([False, False, False, True]),
        "withdrawn": st.sampled_from([False] * 9 + [True]),
    }
).map(lambda t: {**t, "opener": "boss" if t["language"] == "ar" and t["opener"] == "bo" else t["opener"]})
WITHDRAWN = st.sampled_from([False] * 7 + [True])
# who writes the replies: the others only (every reply in Ana's threads waits: counts of several
# pages) or Ana among them (her posts clear what came before)
AUTHORS = st.sampled_from([("bo", "bo", "boss"), ("bo", "bo", "bo", "boss", "ana")])
POSTS = st.tuples(st.integers(0, 70), AUTHORS).flatmap(
    lambda p: st.lists(st.tuples(st.integers(0, 3), st.sampled_from(p[1]), WITHDRAWN), min_size=p[0], max_size=p[0])
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(threads_=st.lists(THREAD, min_size=1, max_size=4), posts=POSTS, per_page=st.integers(1, 25))
def test_every_waiting_reply_is_listed_once_page_after_page(review_app, sessions, world, threads_, posts, per_page):
    """Walking the pages lists the reference's replies in its order, each once, whatever the count
    and the page size: the service for one language (the history page's) and every language (the
    API's, over HTTP), and the history page itself, 20 a page; the page after the last is empty."""
    stored = _store(sessions, world, threads_, posts)
    expected = reference_waiting(stored)
    with sessions() as s:
        ana = s.scalars(select(User).where(User.email == "ana@example.org")).one()
        got, page = [], 1
        while True:
            listing = waiting.waiting_page(s, ana, page, per_page, language="es")
            assert listing["count"] == len(expected["es"]) and listing["per_page"] == per_page
            assert listing["pages"] == max(1, -(-len(expected["es"]) // per_page))
            got += [w["reply"] for w in listing["languages"].get("es", [])]
            if page == listing["pages"]:
                break
            page += 1
        assert waiting.waiting_page(s, ana, page + 1, per_page, language="es")["languages"] == {}
    assert got == expected["es"]
    browser = world[2]
    everything, page = [], 1
    while True:
        answer = browser.get(f"/api/v1/me/replies?page={page}&per_page={per_page}").get_json()
        assert answer["count"] == len(expected["es"]) + len(expected["ar"])
        everything += [w["reply"] for lang in sorted(answer["languages"]) for w in answer["languages"][lang]]
        if page >= answer["pages"]:
            break
        page += 1
    assert sorted(everything) == sorted(expected["es"] + expected["ar"]) and len(set(everything)) == len(everything)
    shown, pages = _history_pages(browser)
    assert shown == expected["es"] and pages == max(1, -(-len(expected["es"]) // threads.PER_PAGE))


def _many(sessions, world, es: int, ar: int = 0) -> dict[str, list[int]]:
    """An open thread of Ana's in each language with `es` and `ar` replies by others, all waiting."""
    stored = _store(
        sessions,
        world,
        [{"language": lang, "opener": "ana", "resolved": False, "withdrawn": False} for lang in ("es", "ar")],
        [(0, "bo", False)] * es + [(1, "boss", False)] * ar,
    )
    return reference_waiting(stored)


def test_45_waiting_replies_on_three_pages(review_app, sessions, world):
    """A named case of the property: 45 waiting in Spanish (and 3 in Arabic, not on the Spanish
    page): 20, 20 and 5, the pager on each, the count said; the page after the last lists none
    (and says so without claiming there are none); the comments listing's page is kept."""
    ana = world[2]
    expected = _many(sessions, world, 45, 3)
    pages = [ana.get(f"/review/es/history?replies_page={n}").get_data(as_text=True) for n in (1, 2, 3, 4)]
    lists = [[int(i) for i in WAITING.findall(html)] for html in pages]
    assert lists == [expected["es"][:20], expected["es"][20:40], expected["es"][40:], []]
    assert all(PAGER.search(html) for html in pages) and "45 replies waiting for you, the oldest first." in pages[0]
    assert "No new replies." not in pages[3]
    assert 'href="/review/es/history?replies_page=2#replies" rel' not in pages[0]  # rel= comes first
    assert re.search(r'<a rel="next" href="/review/es/history\?replies_page=2#replies">', pages[0])
    assert re.search(r'<a rel="prev" href="/review/es/history\?replies_page=2#replies">', pages[2])
    # each pager keeps the other listing's page
    kept = ana.get("/review/es/history?replies_page=2&page=3").get_data(as_text=True)
    assert re.search(r'<a rel="next" href="/review/es/history\?page=3&amp;replies_page=3#replies">', kept)
    # the API's listing, every language: 48
    answer = ana.get("/api/v1/me/replies?per_page=100").get_json()
    assert answer["count"] == 48 and [w["reply"] for w in answer["languages"]["es"]] == expected["es"]


@pytest.fixture
def waiting_25(review_app, sessions, world) -> Browser:
    """Ana, signed in, with 25 replies waiting in Spanish (two pages)."""
    _many(sessions, world, 25)
    return world[2]


MAX_PAGE = 2**63 - 1  # the largest number a page may be given (web.fields.MAX_ID)
HOSTILE = st.sampled_from(
    ["0", "-1", "x", "1.5", "1e3", "２", str(MAX_PAGE), str(MAX_PAGE + 1), "9" * 30, " 2 ", "%00"]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.integers() | st.text(max_size=24) | HOSTILE)
def test_hostile_page_values_are_never_a_500(waiting_25, value):
    """Whatever `replies_page` (history) or `page` (the API) says: a whole number from 1 answers
    200 (past the last page: an empty listing), anything refused answers 422, never a 500."""
    text = str(value)
    whole = re.fullmatch(r"\s*([0-9]+)\s*", text)
    for path, name in (("/review/es/history", "replies_page"), ("/api/v1/me/replies", "page")):
        status = waiting_25.client.get(path, query_string={name: text}).status_code
        assert status in (200, 422), (path, text, status)
        if whole and 1 <= int(whole.group(1)) <= MAX_PAGE:
            assert status == 200, (path, text)
        if isinstance(value, int) and not 1 <= value <= MAX_PAGE:
            assert status == 422, (path, text)


# what the interface says about the waiting replies (the catalogues' translations, by hand)
SAYS = {
    "es": (
        "25 respuestas te esperan, las más antiguas primero.",
        "Páginas de respuestas a tus comentarios",
        "anterior",
    ),
    "ar": ("الردود التي تنتظرك: 25، الأقدم أولًا.", "صفحات الردود على تعليقاتك", "السابق"),
}


def test_the_replies_pager_in_chromium(chromium, live, sessions, world):
    """Ana's 25 waiting replies in one browser walked through Spanish and Arabic, phone and
    desktop, light and dark: the first 20 and the count, a pager of its own with its own name; its
    "next" opens the last 5, its "previous" goes back; in Arabic the pager runs right to left
    ("previous" on the right of the current page); nothing is wider than the screen."""
    from playwright.sync_api import expect

    expected = _many(sessions, world, 25)["es"]
    context = chromium.new_context(storage_state=signed_in_state(live.url, "ana@example.org"))
    page = context.new_page()
    replies, pager = page.locator("li.waiting-reply"), page.locator("#replies-pager")
    try:
        for locale, viewport, scheme in (
            ("es", PHONE, "light"),
            ("ar", PHONE, "dark"),
            ("es", DESKTOP, "dark"),
            ("ar", DESKTOP, "light"),
        ):
            count, label, previous = SAYS[locale]
            page.set_viewport_size(viewport)
            page.emulate_media(color_scheme=scheme)
            context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
            page.goto(live.url + "/review/es/history")
            expect(page.locator("html")).to_have_attribute("lang", locale)
            expect(replies).to_have_count(20)
            expect(page.locator(".replies-count")).to_have_text(count)
            expect(pager).to_have_attribute("aria-label", label)
            expect(page.locator("#comments-pager")).to_have_count(0)  # one thread: no second pager
            pager.locator('a[rel="next"]').click()
            page.wait_for_url("**/review/es/history?replies_page=2#replies")
            expect(replies).to_have_count(5)
            shown = replies.evaluate_all("nodes => nodes.map(n => Number(n.dataset.reply))")
            assert shown == expected[20:], (locale, shown)
            expect(pager.locator('a[rel="prev"]')).to_contain_text(previous)
            back, current = (
                pager.locator('a[rel="prev"]').bounding_box(),
                pager.locator("[aria-current=page]").bounding_box(),
            )
            assert back and current
            rtl = locale == "ar"
            assert pager.evaluate("n => getComputedStyle(n).direction") == ("rtl" if rtl else "ltr")
            assert (back["x"] > current["x"]) if rtl else (back["x"] < current["x"]), (locale, back, current)
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], (locale, viewport)
            pager.locator('a[rel="prev"]').click()
            page.wait_for_url("**/review/es/history?replies_page=1#replies")
            expect(replies).to_have_count(20)
    finally:
        context.close()

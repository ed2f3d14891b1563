"""Replies without bounds (issue 38 §2, medium): a reply POST answers the reply alone, every
thread listing — the maintainers' threads page, /api/v1/languages/<l>/threads, /api/v1/me/replies,
the reviewer's history threads — comes a page at a time with a capped page size, each thread
listed with only its latest replies, and replies are rate-limited per account."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from curator.core.models import AssignmentItem, Comment, User
from curator.review import threads
from curator.web import create_app
from tests.plugins.databases import review_sample
from tests.plugins.servers import Browser, csrf_from

pytestmark = pytest.mark.backends("sqlite", "postgresql")  # the listings' window function on both

API = "/api/v1/languages"


def _ids(sessions) -> dict[str, int]:
    with sessions() as s:
        return {email.split("@")[0]: uid for uid, email in s.execute(select(User.id, User.email))}


def _seed(sessions, threads_count: int, replies: int) -> tuple[list[int], list[int]]:
    """`threads_count` threads opened by Ana on her first item, the first with `replies` replies
    by Bo (all waiting for Ana). Returns (thread ids, reply ids), oldest first."""
    item_id, relation, _text = review_sample(sessions, "ana@example.org", "es")[0]
    people = _ids(sessions)
    with sessions() as s:
        template_id = s.get_one(AssignmentItem, item_id).template_id
        roots = [
            Comment(
                user_id=people["ana"], language="es", relation_id=relation, template_id=template_id, text=f"hilo {n}"
            )
            for n in range(threads_count)
        ]
        s.add_all(roots)
        s.flush()
        rows = [
            Comment(
                user_id=people["bo"],
                language="es",
                relation_id=relation,
                template_id=template_id,
                parent_id=roots[0].id,
                text=f"respuesta {n} " + "x" * 1900,
            )
            for n in range(replies)
        ]
        s.add_all(rows)
        s.commit()
        return [r.id for r in roots], [r.id for r in rows]


def test_a_reply_post_answers_the_reply_not_the_thread(review_app, sessions):
    roots, replies = _seed(sessions, 1, 30)
    bo = Browser(review_app).login("bo@example.org")
    r = bo.post(f"{API}/es/comments/{roots[0]}/replies", {"text": "Una más.", "request_id": "bound-1"})
    assert r.status_code == 201
    body = r.get_json()
    assert set(body) == {"reply", "thread", "created"} and body["thread"] == roots[0]
    assert body["reply"]["text"] == "Una más." and body["reply"]["mine"] and body["reply"]["author"] == "Bo"
    assert len(r.get_data()) < 1000  # 30 replies of ~1.9 KB in the thread: none of them sent back
    again = bo.post(f"{API}/es/comments/{replies[3]}/replies", {"text": "Una más.", "request_id": "bound-1"})
    assert again.status_code == 200 and again.get_json()["reply"]["id"] == body["reply"]["id"]


def test_every_thread_listing_is_paged_with_a_capped_size(review_app, sessions):
    roots, replies = _seed(sessions, 25, 30)
    ana, boss = Browser(review_app).login("ana@example.org"), Browser(review_app).login("boss@example.org")

    # the API's listing: 20 a page, at most 100; each thread with its latest 20 replies
    first = boss.get(f"{API}/es/threads?state=all").get_json()
    assert (first["matched"], first["page"], first["pages"], first["per_page"]) == (25, 1, 2, threads.PER_PAGE)
    assert [t["id"] for t in first["threads"]] == roots[:20]
    busy = first["threads"][0]
    assert busy["reply_count"] == 30 and [r["id"] for r in busy["replies"]] == replies[-threads.REPLIES_SHOWN :]
    assert [t["id"] for t in boss.get(f"{API}/es/threads?page=2").get_json()["threads"]] == roots[20:]
    assert boss.get(f"{API}/es/threads?page=3").get_json()["threads"] == []
    assert len(boss.get(f"{API}/es/threads?per_page=100").get_json()["threads"]) == 25
    for bad in ("per_page=101", "per_page=0", "page=0", "page=x", "page=99999999999999999999999"):
        assert boss.get(f"{API}/es/threads?{bad}").status_code == 422, bad
    mine = ana.get(f"{API}/es/threads?mine=1&per_page=10&page=3").get_json()
    assert [t["id"] for t in mine["threads"]] == roots[20:] and mine["pages"] == 3

    # one thread's replies, a page at a time, oldest first
    paged = ana.get(f"{API}/es/threads/{roots[0]}?page=2&per_page=20").get_json()
    assert [r["id"] for r in paged["thread"]["replies"]] == replies[20:]
    assert (paged["page"], paged["pages"], paged["thread"]["reply_count"]) == (2, 2, 30)
    assert ana.get(f"{API}/es/threads/{roots[0]}?per_page=101").status_code == 422

    # the replies waiting for Ana: all counted, 20 a page
    waiting = ana.get("/api/v1/me/replies").get_json()
    assert waiting["count"] == 30 and waiting["pages"] == 2
    assert [w["reply"] for w in waiting["languages"]["es"]] == replies[:20]
    assert [w["reply"] for w in ana.get("/api/v1/me/replies?page=2").get_json()["languages"]["es"]] == replies[20:]
    assert ana.get("/api/v1/me/replies?per_page=101").status_code == 422

    # the maintainers' threads page and the reviewer's history: 20 threads a page, with a pager
    page = boss.get("/admin/languages/es/threads?state=all").get_data(as_text=True)
    assert re.findall(r'data-thread="(\d+)"', page) == [str(t) for t in roots[:20]]
    assert 'rel="next"' in page and "The latest 20 of 30 replies." in page
    assert page.count('class="post reply"') == 20
    page2 = boss.get("/admin/languages/es/threads?state=all&page=2").get_data(as_text=True)
    assert re.findall(r'data-thread="(\d+)"', page2) == [str(t) for t in roots[20:]]
    assert 'name="page" value="2"' in page2  # a reply from page 2 goes back to page 2
    assert boss.get("/admin/languages/es/threads?page=0").status_code == 422
    history = ana.get("/review/es/history").get_data(as_text=True)
    assert re.findall(r'class="card comment-row" id="thread-(\d+)"', history) == [str(t) for t in roots[:20]]
    history2 = ana.get("/review/es/history?page=2").get_data(as_text=True)
    assert re.findall(r'class="card comment-row" id="thread-(\d+)"', history2) == [str(t) for t in roots[20:]]
    assert len(history) < 200_000  # 30 replies of ~1.9 KB: the latest 20 shown, once


def test_a_reply_from_the_second_page_goes_back_to_it(review_app, sessions):
    roots, _replies = _seed(sessions, 25, 0)
    boss = Browser(review_app).login("boss@example.org")
    page = boss.get("/admin/languages/es/threads?page=2").get_data(as_text=True)
    r = boss.client.post(
        f"/admin/languages/es/threads/{roots[22]}/reply",
        data={"text": "Visto.", "request_id": "p2-1", "state": "open", "page": "2", "csrf_token": csrf_from(page)},
    )
    assert r.status_code == 302 and "page=2" in r.headers["Location"]


@pytest.mark.backends("sqlite")
def test_replies_are_rate_limited_per_account(review_app, db_url, tmp_path, sessions):
    roots, _replies = _seed(sessions, 1, 0)
    app = create_app(
        {
            "DATABASE_URL": db_url,
            "SECRET_KEY": "test-secret",
            "RUNS_DIR": str(tmp_path / "runs"),
            "RATELIMIT_ENABLED": True,
            "RATELIMIT_REPLY": "3/minute",
        }
    )
    ana, bo = Browser(app).login("ana@example.org"), Browser(app).login("bo@example.org")
    history = ana.get("/review/es/history").get_data(as_text=True)
    answers = [ana.post(f"{API}/es/comments/{roots[0]}/replies", {"text": f"r{n}"}).status_code for n in range(2)]
    form = ana.client.post(
        f"/review/es/threads/{roots[0]}/reply", data={"text": "desde el historial", "csrf_token": csrf_from(history)}
    )
    assert answers == [201, 201] and form.status_code == 302  # the history form and the API share one count
    limited = ana.post(f"{API}/es/comments/{roots[0]}/replies", {"text": "una de más"})
    assert limited.status_code == 429 and limited.headers.get("Retry-After")
    with sessions() as s:
        assert "una de más" not in s.scalars(select(Comment.text)).all()
    assert bo.post(f"{API}/es/comments/{roots[0]}/replies", {"text": "otra cuenta"}).status_code == 201
    assert ana.get(f"{API}/es/threads").status_code == 200  # reading is not limited


@pytest.mark.backends("sqlite")
def test_the_paged_threads_and_history_in_chromium(chromium, live, sessions, review_app):
    """The maintainers' threads page and Ana's history, 25 threads: 20 on the first page, the
    hint about the earlier replies in the interface's language, the pager leads to the rest, and
    nothing overflows; on Ana's review screen the busy thread shows its latest replies and the
    same hint — Spanish on a phone (light), Arabic on a desktop (dark)."""
    from playwright.sync_api import expect

    from tests.web.test_maintainer_ui import sign_in

    roots, _replies = _seed(sessions, 25, 22)
    walks = (
        ("es", {"width": 390, "height": 844}, "light", "Las últimas 20 de 22 respuestas.", "anterior"),
        ("ar", {"width": 1366, "height": 800}, "dark", "آخر 20 من أصل 22 ردًّا.", "السابق"),
    )
    for email, path, card, pager in (
        ("boss@example.org", "/admin/languages/es/threads?state=all", "article.thread", "nav.pager"),
        ("ana@example.org", "/review/es/history", "li.comment-row", "#comments-pager"),  # the replies have theirs
    ):
        context = chromium.new_context()
        page = context.new_page()
        try:
            sign_in(page, live.url, email, "correct horse battery")
            for locale, viewport, scheme, hint, previous in walks:
                page.set_viewport_size(viewport)
                page.emulate_media(color_scheme=scheme)
                context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
                page.goto(live.url + path)
                assert page.locator("html").get_attribute("dir") == ("rtl" if locale == "ar" else "ltr")
                expect(page.locator(card)).to_have_count(20)
                expect(page.locator(f"#thread-{roots[0]} .earlier-replies")).to_have_text(hint)
                assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
                page.locator(f'{pager} a[rel="next"]').click()
                expect(page.locator(card)).to_have_count(5)
                expect(page.locator(f"#thread-{roots[24]}")).to_be_visible()
                assert previous in page.locator(pager).inner_text()
                assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
                if email == "ana@example.org":  # the review screen: the item's threads, latest replies only
                    page.goto(live.url + "/review/es")
                    page.wait_for_selector("#review[data-ready='1']")
                    if page.locator("#intro").is_visible():
                        page.locator("#start").click()
                    busy = page.locator(f'#item-comments li[data-thread="{roots[0]}"]')
                    expect(busy.locator(".earlier-replies")).to_have_text(hint)
                    expect(busy.locator("li.reply")).to_have_count(threads.REPLIES_SHOWN)
                    expect(page.locator("#item-comments li.comment")).to_have_count(25)
        finally:
            context.close()

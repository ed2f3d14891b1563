"""Comment threads (issue 28 §3): replies, resolve / reopen, the replies waiting for a reviewer,
the maintainers' threads page and the dashboard's counts — through the JSON API, the pages and,
once, in Chromium; on SQLite and PostgreSQL."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from curator.core.enums import Activity
from curator.core.models import ActivityEntry, Comment, Decision
from tests.plugins.databases import PASSWORD, review_sample, table_snapshot
from tests.plugins.servers import Browser, signed_in_state

pytestmark = pytest.mark.backends("sqlite", "postgresql")

API = "/api/v1/languages"
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(2)>'


def _first_item(sessions, email: str = "ana@example.org", lang: str = "es") -> tuple[int, str, str]:
    return review_sample(sessions, email, lang)[0]


def _open_thread(ana: Browser, item_id: int, text: str = "¿Es «nació en» correcto aquí?") -> int:
    r = ana.post(f"{API}/es/items/{item_id}/comments", {"text": text, "request_id": "open-1"})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["comment"]["id"]


def _reply(who: Browser, thread: int, text: str, request_id: str | None = None, lang: str = "es"):
    body = {"text": text} if request_id is None else {"text": text, "request_id": request_id}
    return who.post(f"{API}/{lang}/comments/{thread}/replies", body)


def _resolve_entries(sessions) -> list[ActivityEntry]:
    with sessions() as s:
        return list(s.scalars(select(ActivityEntry).where(ActivityEntry.action == Activity.COMMENT_RESOLVE)))


def test_replies_attach_to_the_thread_and_only_people_of_the_language_reply(review_app, sessions, engine):
    item_id, relation, _text = _first_item(sessions)
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    boss, eleni = Browser(review_app).login("boss@example.org"), Browser(review_app).login("eleni@example.org")
    thread = _open_thread(ana, item_id)

    # another reviewer of the language and a maintainer reply; a reply to a reply joins the thread
    first = _reply(bo, thread, "Yo diría «nació en la ciudad de».", "bo-1")
    assert first.status_code == 201 and first.get_json()["created"]
    again = _reply(bo, thread, "Yo diría «nació en la ciudad de».", "bo-1")  # the same request resent
    assert again.status_code == 200 and not again.get_json()["created"]
    nested = _reply(boss, first.get_json()["reply"]["id"], "De acuerdo.", "boss-1")
    assert nested.status_code == 201
    assert nested.get_json()["thread"] == thread and nested.get_json()["reply"]["text"] == "De acuerdo."
    shown = boss.get(f"{API}/es/threads/{thread}").get_json()["thread"]
    assert [r["text"] for r in shown["replies"]] == ["Yo diría «nació en la ciudad de».", "De acuerdo."]
    assert [r["author"] for r in shown["replies"]] == ["Bo", "boss"]  # the name, else the address's local part
    with sessions() as s:
        replies = s.scalars(select(Comment).where(Comment.parent_id.is_not(None)).order_by(Comment.id)).all()
        root = s.get_one(Comment, thread)
        assert len(replies) == 2
        assert {(r.parent_id, r.language, r.relation_id, r.template_id) for r in replies} == {
            (thread, "es", relation, root.template_id)
        }

    # a reviewer of another language: 403 in that language, 404 from their own
    before = table_snapshot(engine)
    assert _reply(eleni, thread, "hola").status_code == 403
    assert _reply(eleni, thread, "hola", lang="el").status_code == 404
    assert eleni.get(f"{API}/es/threads/{thread}").status_code == 403
    assert eleni.get(f"{API}/el/threads/{thread}").status_code == 404
    assert eleni.post(f"{API}/es/comments/{thread}/resolve").status_code == 403
    # bad input names the field, and stores nothing
    for body, field in (({}, "text"), ({"text": 5}, "text"), ({"text": ""}, "text"), ({"text": "x" * 2001}, "text")):
        r = bo.post(f"{API}/es/comments/{thread}/replies", body)
        assert r.status_code == 422 and field in r.get_json()["error"], (body, r.get_json())
    r = bo.post(f"{API}/es/comments/{thread}/replies", {"text": "   "})
    assert r.status_code == 422 and r.get_json()["error"] == "Write a comment first."
    r = bo.post(f"{API}/es/comments/{thread}/replies", {"text": "ok", "request_id": 7})
    assert r.status_code == 422 and "request_id" in r.get_json()["error"]
    r = bo.get(f"{API}/es/threads?state=maybe")
    assert r.status_code == 422 and "state" in r.get_json()["error"]
    assert _reply(bo, 10**6, "nada").status_code == 404
    r = _reply(ana, thread, "otra vez", "open-1")  # the request id of Ana's comment, not of a reply
    assert r.status_code == 409 and "request_id" in r.get_json()["error"]
    assert table_snapshot(engine) == before

    # a withdrawn reply leaves the thread; a withdrawn opening comment takes the thread along
    assert bo.post(f"{API}/es/comments/{first.get_json()['reply']['id']}/withdraw").status_code == 200
    assert [r["text"] for r in bo.get(f"{API}/es/threads/{thread}").get_json()["thread"]["replies"]] == ["De acuerdo."]
    assert ana.post(f"{API}/es/comments/{thread}/withdraw").status_code == 200
    assert bo.get(f"{API}/es/threads/{thread}").status_code == 404
    assert _reply(boss, thread, "¿Sigue ahí?").status_code == 404
    assert boss.get(f"{API}/es/threads").get_json()["threads"] == []


def test_resolve_and_reopen_who_may_and_the_activity_log(review_app, sessions):
    item_id, _relation, _text = _first_item(sessions)
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    boss = Browser(review_app).login("boss@example.org")
    thread = _open_thread(ana, item_id)
    reply_id = _reply(bo, thread, "Una respuesta.").get_json()["reply"]["id"]

    assert bo.post(f"{API}/es/comments/{thread}/resolve").status_code == 403  # not the one who opened it
    r = ana.post(f"{API}/es/comments/{thread}/resolve")  # the reviewer who opened it: no log entry
    assert r.status_code == 200 and r.get_json()["thread"]["state"] == "resolved"
    assert r.get_json()["thread"]["resolved_by"] == "Ana"
    assert _resolve_entries(sessions) == []
    assert [t["id"] for t in boss.get(f"{API}/es/threads?state=resolved").get_json()["threads"]] == [thread]
    assert boss.get(f"{API}/es/threads?state=open").get_json()["threads"] == []

    # a maintainer reopens (by a reply's id too: it names its thread) and resolves: both logged
    r = boss.post(f"{API}/es/comments/{reply_id}/reopen")
    assert r.status_code == 200 and r.get_json()["thread"] | {"replies": []} == r.get_json()["thread"] | {
        "replies": [],
        "id": thread,
        "state": "open",
        "resolved_at": None,
        "resolved_by": None,
    }
    assert boss.post(f"{API}/es/comments/{thread}/resolve").get_json()["thread"]["state"] == "resolved"
    assert boss.post(f"{API}/es/comments/{thread}/resolve").status_code == 200  # already resolved: a no-op
    entries = _resolve_entries(sessions)
    assert [(e.language, e.details) for e in entries] == [
        ("es", {"thread": thread, "state": "open"}),
        ("es", {"thread": thread, "state": "resolved"}),
    ]
    assert f"thread #{thread}" in entries[0].target
    # a resolved thread still takes replies, and stays resolved
    assert _reply(ana, thread, "Gracias.").status_code == 201
    assert ana.get(f"{API}/es/threads/{thread}").get_json()["thread"]["state"] == "resolved"


def test_replies_waiting_for_a_reviewer_and_the_item_json(review_app, sessions):
    item_id, _relation, _text = _first_item(sessions)
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    boss = Browser(review_app).login("boss@example.org")
    thread = _open_thread(ana, item_id)

    def waiting(who: Browser) -> int:
        return who.get("/api/v1/me/replies").get_json()["count"]

    assert waiting(ana) == 0
    _reply(bo, thread, "Primera respuesta.")
    _reply(boss, thread, "Segunda respuesta.")
    assert (waiting(ana), waiting(bo)) == (2, 1)  # Bo wrote in the thread: the maintainer's reply is newer
    home = ana.get("/").get_data(as_text=True)
    assert "2 replies to your comments" in home and "/review/es/history#replies" in home
    listed = ana.get("/api/v1/me/replies").get_json()["languages"]["es"]
    assert [(w["author"], w["item_id"], w["thread"]) for w in listed] == [
        ("Bo", item_id, thread),
        ("boss", item_id, thread),
    ]

    # the review screen's item JSON: the thread with its replies and state
    ctx = ana.get(f"{API}/es/items/{item_id}").get_json()
    (shown,) = ctx["comments"]["item"]
    assert shown["id"] == thread and shown["state"] == "open" and shown["mine"]
    assert [(r["author"], r["text"], r["mine"]) for r in shown["replies"]] == [
        ("Bo", "Primera respuesta.", False),
        ("boss", "Segunda respuesta.", False),
    ]
    assert ctx["comments"]["relation"] == []

    _reply(ana, thread, "Gracias a los dos.")  # answering clears them
    assert waiting(ana) == 0 and "replies to your comments" not in ana.get("/").get_data(as_text=True)
    _reply(boss, thread, "Una cosa más.")
    assert waiting(ana) == 1 and "1 reply to your comments" in ana.get("/").get_data(as_text=True)
    boss.post(f"{API}/es/comments/{thread}/resolve")  # a resolved thread waits for nobody
    assert waiting(ana) == 0
    boss.post(f"{API}/es/comments/{thread}/reopen")
    assert waiting(ana) == 1
    # a reply on the relation as a whole waits too, opened at the relation's first item
    r = ana.post(f"{API}/es/relations/{_relation}/comments", {"text": "Sobre la relación."})
    relation_thread = r.get_json()["comment"]["id"]
    _reply(boss, relation_thread, "Visto.")
    assert waiting(ana) == 2
    assert ana.get(f"{API}/es/items/{item_id}").get_json()["comments"]["relation"][0]["replies"][0]["text"] == "Visto."
    # the history page lists the waiting replies with a link to the item, and the threads
    history = ana.get("/review/es/history").get_data(as_text=True)
    assert f"/review/es#item-{item_id}" in history and "Una cosa más." in history and "Visto." in history


def test_replies_in_a_language_taken_off_the_reviewer_wait_no_more(review_app, sessions, cli):
    """The API's count of waiting replies agrees with the home page: a language the reviewer was
    unassigned from counts nothing; assigned again, the replies wait again."""
    item_id, _relation, _text = _first_item(sessions)
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    _reply(bo, _open_thread(ana, item_id), "Primera respuesta.")
    assert ana.get("/api/v1/me/replies").get_json()["count"] == 1
    cli("user", "unassign", "ana@example.org", "es")
    assert ana.get("/api/v1/me/replies").get_json() == {
        "count": 0,
        "languages": {},
        "page": 1,
        "pages": 1,
        "per_page": 20,
    }
    assert "replies to your comments" not in ana.get("/").get_data(as_text=True)
    cli("user", "assign", "ana@example.org", "es")
    assert ana.get("/api/v1/me/replies").get_json()["count"] == 1


def test_hostile_text_is_escaped_everywhere_it_is_shown(review_app, sessions):
    item_id, _relation, _text = _first_item(sessions)
    ana, boss = Browser(review_app).login("ana@example.org"), Browser(review_app).login("boss@example.org")
    thread = _open_thread(ana, item_id, HOSTILE)
    assert _reply(boss, thread, HOSTILE).status_code == 201
    pages = [
        boss.get("/admin/languages/es/threads").get_data(as_text=True),
        ana.get("/review/es/history").get_data(as_text=True),
    ]
    for html in pages:
        assert "<script>alert" not in html and "<img src=x" not in html
        assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert ana.get(f"{API}/es/threads/{thread}").get_json()["thread"]["replies"][0]["text"] == HOSTILE


def test_maintainers_threads_page_forms_and_the_dashboard_counts(review_app, sessions, engine):
    item_id, _relation, _text = _first_item(sessions)
    ana, boss = Browser(review_app).login("ana@example.org"), Browser(review_app).login("boss@example.org")
    thread = _open_thread(ana, item_id)
    assert ana.get("/admin/languages/es/threads").status_code == 403  # reviewers: not their page
    page = boss.get("/admin/languages/es/threads?state=open").get_data(as_text=True)
    assert f'id="thread-{thread}"' in page and "¿Es «nació en» correcto aquí?" in page
    assert boss.get("/admin/languages/es/threads?state=maybe").status_code == 422

    url = f"/admin/languages/es/threads/{thread}/reply"
    before = table_snapshot(engine)
    assert boss.client.post(url, data={"text": "Sin token."}).status_code == 400  # CSRF
    refused = boss.client.post(url, data={"text": "  ", "csrf_token": boss.token, "state": "open"})
    assert refused.status_code == 422 and "Write a comment first." in refused.get_data(as_text=True)
    assert table_snapshot(engine) == before
    data = {"text": "Correcto, gracias.", "csrf_token": boss.token, "request_id": "form-1", "state": "open"}
    r = boss.client.post(url, data=data)
    assert r.status_code == 302 and r.headers["Location"].endswith(
        f"/admin/languages/es/threads?state=open#thread-{thread}"
    )
    assert boss.client.post(url, data=data).status_code == 302  # the form sent twice: stored once
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Comment).where(Comment.parent_id == thread)) == 1

    # one unsure decision and one open thread in Spanish, counted on the dashboard with links
    unsure_item = review_sample(sessions, "ana@example.org", "es")[1][0]
    assert ana.post(f"{API}/es/items/{unsure_item}/decision", {"decision": "unsure"}).status_code == 201
    counts = _dashboard_counts(boss)
    assert counts["es"] == {"open-threads": "1", "unsure": "1", "unconfirmed-proposals": "0"}
    dashboard = boss.get("/admin/").get_data(as_text=True)
    assert "/admin/languages/es/threads?state=open" in dashboard and "/admin/languages/es?unsure=1" in dashboard
    # and one suggestion nobody has confirmed: a proposal waiting, linked to the Proposals page
    relation = review_sample(sessions, "ana@example.org", "es")[0][1]
    body = {"text": "[X] vino al mundo en [Y]", "request_id": "suggest-1"}
    assert ana.post(f"{API}/es/relations/{relation}/suggestions", body).status_code == 201
    assert _dashboard_counts(boss)["es"]["unconfirmed-proposals"] == "1"
    assert "/admin/languages/es/proposals?status=unconfirmed" in boss.get("/admin/").get_data(as_text=True)

    r = boss.client.post(f"/admin/languages/es/threads/{thread}/resolve", data={"csrf_token": boss.token})
    assert r.status_code == 302
    assert _dashboard_counts(boss)["es"] == {"open-threads": "0", "unsure": "1", "unconfirmed-proposals": "1"}
    assert len(_resolve_entries(sessions)) == 1
    assert f'id="thread-{thread}"' not in boss.get("/admin/languages/es/threads").get_data(as_text=True)
    assert f'id="thread-{thread}"' in boss.get("/admin/languages/es/threads?state=resolved").get_data(as_text=True)
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Decision).where(Decision.decision == "unsure")) == 1


def test_the_dashboard_counts_the_unsure_candidates_its_link_lists(review_app, sessions):
    """A reviewer unsure about a proposal in their second-look queue (not a candidate) is not
    counted as an unsure candidate: the count is what the language page's unsure filter lists."""
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    boss = Browser(review_app).login("boss@example.org")
    unsure_item = review_sample(sessions, "ana@example.org", "es")[0][0]
    assert ana.post(f"{API}/es/items/{unsure_item}/decision", {"decision": "unsure"}).status_code == 201
    relation = review_sample(sessions, "ana@example.org", "es")[0][1]
    body = {"text": "[X] vino al mundo en [Y]", "request_id": "suggest-1"}
    assert ana.post(f"{API}/es/relations/{relation}/suggestions", body).status_code == 201
    (proposal_item,) = [i for i, _r, text in review_sample(sessions, "bo@example.org", "es") if text == body["text"]]
    assert bo.post(f"{API}/es/items/{proposal_item}/decision", {"decision": "unsure"}).status_code == 201
    listed = boss.get("/admin/languages/es?unsure=1").get_data(as_text=True)
    matched = re.search(r'id="result-count" data-matched="(\d+)"', listed)
    assert matched and matched.group(1) == "1"
    assert _dashboard_counts(boss)["es"]["unsure"] == "1"


def _dashboard_counts(boss: Browser) -> dict[str, dict[str, str]]:
    html = boss.get("/admin/").get_data(as_text=True)
    table = html[html.index('id="follow-up"') :]
    table = table[: table.index("</table>")]
    out: dict[str, dict[str, str]] = {}
    for lang, row in re.findall(r'<tr data-language="([^"]+)">(.*?)</tr>', table, re.S):
        out[lang] = dict(re.findall(r'data-count="([^"]+)"><a [^>]*>(\d+)</a>', row))
    return out


def _sign_in(page, base: str, email: str) -> None:
    state = signed_in_state(base, email)  # signed in once per session (conftest.browser_template)
    if state is not None:
        page.context.add_cookies(state["cookies"])
        return
    page.goto(base + "/login")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/login" not in url)


def test_a_maintainer_replies_and_the_reviewer_answers_in_the_browser(chromium, live, review_app, sessions):
    item_id, _relation, _text = _first_item(sessions)
    thread = _open_thread(Browser(review_app).login("ana@example.org"), item_id, "¿«nació en» o «es de»?")
    dialogs: list[str] = []

    # the maintainer: dashboard count → threads page → reply
    boss = chromium.new_context(bypass_csp=True).new_page()
    boss.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    _sign_in(boss, live.url, "boss@example.org")
    boss.goto(live.url + "/admin/")
    row = boss.locator('#follow-up tr[data-language="es"]')
    assert row.locator('[data-count="open-threads"]').inner_text() == "1"
    row.locator('[data-count="open-threads"] a').click()
    boss.wait_for_selector(f"#thread-{thread}")
    boss.fill(f"#reply-{thread}", "Mejor «nació en». " + HOSTILE)
    boss.locator(f"#thread-{thread} .reply-form button").click()
    boss.wait_for_selector(f"#thread-{thread} li.reply")
    assert "Reply saved." in boss.locator(".flash").inner_text()

    # the reviewer: the count on home, the reply under the item, and an answer
    ana = chromium.new_context(bypass_csp=True).new_page()
    ana.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    _sign_in(ana, live.url, "ana@example.org")
    ana.goto(live.url + "/")
    ana.get_by_role("link", name="1 reply to your comments").click()
    ana.wait_for_selector("#replies")
    ana.locator("a.open-reply").first.click()
    ana.wait_for_selector("#review[data-ready='1']")
    if ana.locator("#intro").is_visible():
        ana.get_by_role("button", name="Start reviewing").click()
    ana.wait_for_function(f"document.getElementById('item-card').dataset.item === '{item_id}'")
    reply = ana.locator(f'#item-comments li[data-thread="{thread}"] li.reply')
    reply.wait_for()
    assert reply.locator(".reply-author").inner_text() == "boss"
    assert reply.locator(".reply-text").inner_text() == "Mejor «nació en». " + HOSTILE
    assert ana.locator("#item-comments script, #item-comments img").count() == 0
    ana.locator(f'#item-comments li[data-thread="{thread}"] textarea').fill("¡Gracias! Lo cambio.")
    ana.locator(f'#item-comments li[data-thread="{thread}"] .reply-form button').click()
    ana.wait_for_function("document.getElementById('status').textContent.includes('Reply saved.')")
    assert ana.locator(f'#item-comments li[data-thread="{thread}"] li.reply').count() == 2
    ana.goto(live.url + "/")
    assert ana.locator(".replies-waiting").count() == 0

    # the maintainer sees the answer on the threads page
    boss.reload()
    assert boss.locator(f"#thread-{thread} li.reply").nth(1).locator(".comment-text").inner_text() == (
        "¡Gracias! Lo cambio."
    )
    assert dialogs == []
    boss.context.close()
    ana.context.close()

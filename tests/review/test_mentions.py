"""@mentions in comment threads (issue 37 §5): the rule (a hypothesis property against a
reference written from the rule's words, and named cases), who is notified and who is not (no
thread leaks to someone without its language), the home page's notifications over HTTP and in
Chromium (es and ar, phone and desktop, light and dark), and the e-mail through a real SMTP
server, rate-limited."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from curator.core.models import Mention, User
from curator.review.mentions import Account, handles, recipients
from curator.web.mailer import mailer
from tests.plugins.databases import review_sample
from tests.plugins.servers import Browser
from tests.support.mailbox import running_inbox

pytestmark = pytest.mark.backends("sqlite")

API = "/api/v1/languages"


# ---------------------------------------------------------------- the rule
def reference(text: str, author: int, language: str, accounts: list[Account]) -> list[int]:
    """The rule read literally: scan for '@' not after a letter/digit/'@'; take the longest run
    of handle characters (word characters, . _ + -), plus '@domain' when a dotted domain
    follows; drop final dots of a bare handle; a whole address names that account, a bare
    handle the one account whose address starts with it + '@'; then keep readers of the
    language other than the author, once each."""
    out: list[int] = []
    i = 0
    while i < len(text):
        if text[i] != "@" or (i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_@")):
            i += 1
            continue
        j = i + 1
        while j < len(text) and (text[j].isalnum() or text[j] in "._+-_"):
            j += 1
        handle = text[i + 1 : j]
        domain = re.match(r"@[\w-]+(?:\.[\w-]+)+", text[j:])
        if handle and domain:
            handle += domain.group(0)
            j += len(domain.group(0))
        else:
            handle = handle.rstrip(".")
        i = max(j, i + 1)
        handle = handle.lower()
        if "@" in handle:
            named = [a for a in accounts if a.email.lower() == handle]
        else:
            named = [a for a in accounts if a.email.lower().startswith(handle + "@")]
        if len(named) != 1 or not handle or set(handle) <= set(".+-"):
            continue
        who = named[0]
        if who.id != author and (who.maintainer or language in who.languages) and who.id not in out:
            out.append(who.id)
    return out


LOCALS = ["ana", "bo", "eleni", "ana.maria", "Zoë", "علي", "x-y"]
accounts_st = st.lists(
    st.tuples(
        st.sampled_from(LOCALS),
        st.sampled_from(["example.org", "b.example.org"]),
        st.booleans(),
        st.frozensets(st.sampled_from(["es", "ar", "el"])),
    ),
    max_size=6,
    unique_by=lambda t: (t[0].lower(), t[1]),
).map(lambda rows: [Account(i + 1, f"{loc}@{dom}", m, langs) for i, (loc, dom, m, langs) in enumerate(rows)])
pieces = st.sampled_from(
    [
        "@",
        " ",
        ".",
        ",",
        "x",
        "é",
        "@@",
        "\n",
        "(",
        "ana",
        "bo",
        "eleni",
        "ana.maria",
        "zoë",
        "ZOË",
        "علي",
        "x-y",
        "@example.org",
        "@b.example.org",
        "+",
        "-",
    ]
)


@settings(max_examples=300, deadline=None)
@given(accounts_st, st.lists(pieces, max_size=14).map("".join), st.integers(0, 7), st.sampled_from(["es", "ar"]))
def test_who_a_text_mentions_follows_the_rule(accounts, text, author, language):
    assert recipients(text, author, language, accounts) == reference(text, author, language, accounts)


def test_named_cases_of_the_rule():
    people = [
        Account(1, "ana@example.org", False, frozenset({"es"})),
        Account(2, "bo@example.org", False, frozenset({"es"})),
        Account(3, "eleni@example.org", False, frozenset({"el"})),
        Account(4, "boss@example.org", True, frozenset()),
        Account(5, "ana@b.example.org", False, frozenset({"es"})),
    ]
    assert recipients("Hola @bo, ¿y @boss?", 1, "es", people) == [2, 4]
    assert recipients("@eleni mira esto", 1, "es", people) == []  # cannot read an es thread
    assert recipients("@ana y @ana", 2, "es", people) == []  # two accounts share "ana": plain text
    assert recipients("@ana@b.example.org.", 2, "es", people) == [5]  # the whole address disambiguates
    assert recipients("write to bo@example.org", 1, "es", people) == []  # an address is not a mention
    assert recipients("@bo @BO @bo.", 1, "es", people) == [2]  # once, whatever the case
    assert recipients("@bo", 2, "es", people) == []  # not oneself
    assert recipients("@nadie", 1, "es", people) == []
    assert handles("¡@bo!") == [(1, 4, "bo")]


# ---------------------------------------------------------------- service and HTTP
def _comment(who: Browser, item_id: int, text: str, request_id: str):
    r = who.post(f"{API}/es/items/{item_id}/comments", {"text": text, "request_id": request_id})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["comment"]["id"]


def _mentioned(sessions) -> set[tuple[int, str]]:
    with sessions() as s:
        return set(s.execute(select(Mention.comment_id, User.email).join(User, User.id == Mention.user_id)).all())


HOSTILE = "<img src=x onerror=alert(1)> @bo"


def test_who_is_notified_and_the_home_page(review_app, sessions):
    item_id = review_sample(sessions, "ana@example.org", "es")[0][0]
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    eleni, boss = Browser(review_app).login("eleni@example.org"), Browser(review_app).login("boss@example.org")
    text = f"{HOSTILE} y @boss: ¿«nació en»? @eleni @nadie @ana"
    thread = _comment(ana, item_id, text, "m-1")
    assert _mentioned(sessions) == {(thread, "bo@example.org"), (thread, "boss@example.org")}
    # a reply mentions too; resending the same request does not mention twice
    for _ in range(2):
        r = bo.post(f"{API}/es/comments/{thread}/replies", {"text": "@ana mira", "request_id": "m-2"})
        assert r.status_code in (200, 201)
    assert len(_mentioned(sessions)) == 3

    home = bo.get("/").get_data(as_text=True)
    assert 'id="mentions-unread">1<' in home and "1 unread mention" in home
    assert '<mark class="mention"><bdi dir="ltr">@bo</bdi></mark>' in home
    assert '<mark class="mention"><bdi dir="ltr">@boss</bdi></mark>' in home
    assert "@nadie" in home and '<mark class="mention"><bdi dir="ltr">@nadie' not in home  # unknown: plain
    assert "<img src=x" not in home and "&lt;img src=x onerror=alert(1)&gt;" in home
    # eleni learns nothing of the Spanish thread
    assert "mentions" not in eleni.get("/").get_data(as_text=True).split("<main", 1)[1].split("</main>")[0]
    with sessions() as s:
        bo_mention = s.scalar(
            select(Mention.id).join(User, User.id == Mention.user_id).where(User.email == "bo@example.org")
        )
    assert eleni.get(f"/mentions/{bo_mention}").status_code == 404
    # the link opens the thread: a reviewer's history page (listed there though Bo never wrote in it
    # before: being mentioned brings it), a maintainer's threads page
    r = bo.get(f"/mentions/{bo_mention}")
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/review/es/history#thread-{thread}")
    assert f'id="thread-{thread}"' in bo.get("/review/es/history").get_data(as_text=True)
    # a maintainer with no language of their own lands on the home page while a mention is unread
    assert 'id="mentions"' in boss.get("/").get_data(as_text=True)
    # mark as read: CSRF checked, then the count is gone
    assert bo.client.post("/mentions/read", data={"mention": str(bo_mention)}).status_code == 400
    r = bo.client.post("/mentions/read", data={"mention": str(bo_mention), "csrf_token": bo.token})
    assert r.status_code == 302
    home = bo.get("/").get_data(as_text=True)
    assert 'id="mentions-unread"' not in home and "mention-row unread" not in home
    boss.client.post("/mentions/read", data={"csrf_token": boss.token})
    assert boss.get("/").status_code == 302  # back to the dashboard


def test_a_mention_is_emailed_once_and_rate_limited(review_app, db_url, tmp_path, sessions):
    from curator.web import create_app

    item_id = review_sample(sessions, "ana@example.org", "es")[0][0]
    with running_inbox() as inbox:
        app = create_app(
            {
                "DATABASE_URL": db_url,
                "SECRET_KEY": "test-secret",
                "RUNS_DIR": str(tmp_path / "runs"),
                "RATELIMIT_ENABLED": True,
                "RATELIMIT_MAIL": "2/hour",
                "SMTP_HOST": "127.0.0.1",
                "SMTP_PORT": inbox.port,
                "SMTP_FROM": "curator@example.org",
                "SMTP_STARTTLS": False,
                "BASE_URL": "https://review.example.org",
            }
        )
        ana = Browser(app).login("ana@example.org")
        thread = _comment(ana, item_id, "@bo ¿qué opinas?", "mail-1")
        for n in range(3):
            r = ana.post(f"{API}/es/comments/{thread}/replies", {"text": f"@bo otra vez {n}", "request_id": f"r{n}"})
            assert r.status_code == 201
        mailer(app).drain()
        assert [m["To"] for m in inbox.messages] == ["bo@example.org", "bo@example.org"]  # 2/hour
        body = inbox.messages[0].get_payload(decode=True).decode()
        assert "Ana mentioned you" in inbox.messages[0]["Subject"] and "> @bo ¿qué opinas?" in body
        link = re.search(r"https://review\.example\.org/mentions/(\d+)", body)
        with sessions() as s:
            mailed = s.execute(select(Mention.id, Mention.mailed_at).order_by(Mention.id)).all()
        assert link and int(link[1]) == mailed[0][0]
        assert [at is not None for _id, at in mailed] == [True, True, False, False]
        app.extensions["curator.engine"].dispose()


def test_the_home_page_notification_in_chromium(chromium, live, sessions, review_app):
    """Spanish on a phone (light) and Arabic on a desktop (dark): the mention is listed with the
    handle highlighted and the page laid out in the interface's direction; marking it read works."""
    from playwright.sync_api import expect

    from tests.web.test_maintainer_ui import sign_in

    item_id = review_sample(sessions, "ana@example.org", "es")[0][0]
    ana = Browser(review_app).login("ana@example.org")
    thread = _comment(ana, item_id, "@bo ¿«nació en» o «natural de»?", "c-1")
    ana.post(f"{API}/es/comments/{thread}/replies", {"text": "@bo ما رأيك؟", "request_id": "c-2"})
    walks = (
        ("es", {"width": 390, "height": 844}, "light", "2 menciones sin leer", "te ha mencionado"),
        ("ar", {"width": 1366, "height": 800}, "dark", "الإشارات غير المقروءة: 1", "أشار إليك"),
    )
    for locale, viewport, scheme, count, said in walks:
        context = chromium.new_context(viewport=viewport, color_scheme=scheme)
        context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
        page = context.new_page()
        try:
            sign_in(page, live.url, "bo@example.org", "correct horse battery")
            page.goto(live.url + "/")
            section = page.locator("#mentions")
            expect(section).to_be_visible()
            expect(page.locator("#mentions-count")).to_have_text(count)
            assert page.locator("html").get_attribute("dir") == ("rtl" if locale == "ar" else "ltr")
            row = section.locator(".mention-row.unread").first
            expect(row).to_contain_text(said)
            mark = row.locator("mark.mention")
            expect(mark).to_have_text("@bo")
            assert mark.evaluate("m => getComputedStyle(m).backgroundColor") != "rgba(0, 0, 0, 0)"
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            row.locator("button.mark-read").click()
            page.wait_for_url(re.compile(r"/#mentions$"))
            expect(page.locator(".flash.info")).to_be_visible()
            row = page.locator("#mentions .mention-row").first
            row.locator("a.open-mention").click()
            page.wait_for_url(re.compile(rf"/review/es/history#thread-{thread}$"))
            expect(page.locator(f"#thread-{thread} mark.mention").first).to_have_text("@bo")
        finally:
            context.close()

"""Issue 37's review findings on accounts, e-mail and @mentions: a page highlights only the
mentions a comment stored (no page tells which accounts exist), e-mailed links only from
CURATOR_BASE_URL (one rule, `mail.may_mail_links`, for the pages and the commands), a mentioned
reviewer answers from the history page, mails in the asker's language, a per-client mail limit
above the per-address one, one "may read a thread" rule, and the mention-read form's input."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from curator.core.models import Mention, User
from curator.core.models.base import utcnow
from curator.web.mailer import mailer
from tests.plugins.databases import review_sample
from tests.plugins.servers import Browser, csrf_from
from tests.review.test_people import LINK, _form, _user_id
from tests.support.mailbox import BASE, mail_app, running_inbox

pytestmark = pytest.mark.backends("sqlite")

API = "/api/v1/languages"
MARK = re.compile(r'<mark class="mention"><bdi dir="ltr">(@[^<]+)</bdi></mark>')


def _comment(who: Browser, item_id: int, text: str, request_id: str) -> int:
    r = who.post(f"{API}/es/items/{item_id}/comments", {"text": text, "request_id": request_id})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["comment"]["id"]


def _mention_id(sessions, email: str) -> int:
    with sessions() as s:
        return s.scalar(
            select(Mention.id).join(User, User.id == Mention.user_id).where(User.email == email).order_by(Mention.id)
        )


# ---------------------------------------------------------------- 1. highlight the stored mentions only
def test_pages_highlight_only_the_mentions_a_comment_stored(review_app, sessions):
    """Ana names herself, Eleni (Greek only: cannot read the thread), Bo, the maintainer and
    nobody: her own history page and Bo's home page mark only @bo and @boss, the people
    `record` notified; a handle that names an account is otherwise plain, like an unknown one."""
    item_id = review_sample(sessions, "ana@example.org", "es")[0][0]
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    thread = _comment(ana, item_id, "@ana @eleni @bo @boss @nadie @eleni@example.org", "h-1")
    bo.post(f"{API}/es/comments/{thread}/replies", {"text": "@ana @eleni", "request_id": "h-2"})
    history = ana.get("/review/es/history").get_data(as_text=True)
    section = history.split(f'id="thread-{thread}"', 1)[1]
    opening, reply = section.split('class="reply"', 1)
    assert MARK.findall(opening) == ["@bo", "@boss"]
    assert MARK.findall(reply.split("</ol>")[0]) == ["@ana"]  # Bo's reply mentions Ana (stored), not Eleni
    assert "@eleni@example.org" in opening  # shown, as plain text
    home = bo.get("/").get_data(as_text=True)
    assert MARK.findall(home.split('id="mentions"', 1)[1].split("</section>")[0]) == ["@bo", "@boss"]


def _subject(message) -> str:
    from email.header import decode_header, make_header

    return str(make_header(decode_header(message["Subject"])))


def _forging(browser: Browser) -> Browser:
    """Every request of this browser names another Host (a forged header reaching the app)."""
    browser.client.environ_base["HTTP_HOST"] = "evil.example.com"
    return browser


# ---------------------------------------------------------------- 2. e-mailed links only from the base URL
def test_no_email_carries_a_link_from_the_requests_host(review_app, db_url, tmp_path, sessions, cli, monkeypatch):
    """SMTP without CURATOR_BASE_URL: a maintainer's reset link and invitation are shown to copy,
    never e-mailed, with a translated message asking for CURATOR_BASE_URL; with it, the e-mail's
    link starts with the base URL whatever Host the request forged. The command refuses the same."""
    ana_id = _user_id(sessions, "ana@example.org")
    with running_inbox() as inbox:
        app = mail_app(db_url, tmp_path, inbox.port, BASE_URL=None)
        boss = _forging(Browser(app)).login("boss@example.org")
        _form(boss, "/locale", locale="es")  # the maintainer reads Spanish
        r = boss.client.post(f"/admin/users/{ana_id}/reset", data={"csrf_token": boss.token})
        page = r.get_data(as_text=True)
        assert r.status_code == 200 and "CURATOR_BASE_URL" in page and "Copia el enlace" in page
        assert re.search(r"<code class=\"reset-link\">[^<]*/reset/", page), page  # to copy, on the page
        r = _form(boss, "/admin/reviewers", follow_redirects=True, email="new@example.org", languages="es")
        assert r.status_code == 200 and "CURATOR_BASE_URL" in r.get_data(as_text=True)
        mailer(app).drain()
        assert inbox.messages == []  # nothing e-mailed
        monkeypatch.setenv("CURATOR_SMTP_HOST", "127.0.0.1")
        monkeypatch.setenv("CURATOR_SMTP_PORT", str(inbox.port))
        monkeypatch.setenv("CURATOR_SMTP_FROM", "curator@example.org")
        monkeypatch.setenv("CURATOR_SMTP_STARTTLS", "0")
        result = cli("user", "reset-link", "bo@example.org", ok=False, env={"CURATOR_BASE_URL": None})
        assert result.exit_code != 0 and "CURATOR_BASE_URL" in result.output and inbox.messages == []
        app.extensions["curator.engine"].dispose()

        app = mail_app(db_url, tmp_path, inbox.port)
        boss = _forging(Browser(app)).login("boss@example.org")
        r = _form(boss, f"/admin/users/{ana_id}/reset")
        assert r.status_code == 200
        r = _form(boss, "/admin/reviewers", follow_redirects=True, email="new2@example.org", languages="es")
        assert r.status_code == 200
        links = [LINK.search(m.get_payload(decode=True).decode())[0] for m in inbox.messages]
        assert len(links) == 2 and all(link.startswith(BASE + "/") for link in links), links
        app.extensions["curator.engine"].dispose()


# ---------------------------------------------------------------- 3 and 9. answer from the history page
def test_a_mentioned_reviewer_answers_from_the_notification_in_chromium(chromium, live, sessions, review_app):
    """Bo, mentioned by Ana, opens the notification's link (the history page), sees who can be
    mentioned there, replies @ana, and the reply (her handle highlighted) is in the thread and
    notifies her; Spanish on a phone (light), then Arabic on a desktop (dark)."""
    from playwright.sync_api import expect

    from tests.web.test_maintainer_ui import sign_in

    item_id = review_sample(sessions, "ana@example.org", "es")[0][0]
    ana = Browser(review_app).login("ana@example.org")
    thread = _comment(ana, item_id, "@bo ¿«nació en» o «natural de»?", "x-1")
    mention = _mention_id(sessions, "bo@example.org")
    walks = (
        ("es", {"width": 390, "height": 844}, "light", "Respuesta guardada.", "@ana de acuerdo"),
        ("ar", {"width": 1366, "height": 800}, "dark", "حُفظ الرد.", "@ana موافق"),
    )
    context = chromium.new_context()
    page = context.new_page()
    try:
        sign_in(page, live.url, "bo@example.org", "correct horse battery")
        for n, (locale, viewport, scheme, saved, text) in enumerate(walks):
            page.set_viewport_size(viewport)
            page.emulate_media(color_scheme=scheme)
            context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
            page.goto(f"{live.url}/mentions/{mention}")
            page.wait_for_url(re.compile(rf"/review/es/history#thread-{thread}$"))
            assert page.locator("html").get_attribute("dir") == ("rtl" if locale == "ar" else "ltr")
            card = page.locator(f"#thread-{thread}")
            hint = card.locator(".mention-hint")
            expect(hint).to_be_visible()
            assert hint.locator(".handle").all_inner_texts() == ["@ana", "@boss"]  # not Bo, not Eleni (Greek)
            card.locator("textarea[name=text]").fill(text)
            card.locator("button.reply-button").click()
            expect(page.locator(".flash.info")).to_have_text(saved)
            reply = page.locator(f"#thread-{thread} li.reply").nth(n)
            expect(reply).to_contain_text(text.split(" ", 1)[1])
            expect(reply.locator("mark.mention")).to_have_text("@ana")
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    finally:
        context.close()
    with sessions() as s:
        to_ana = s.scalar(
            select(func.count())
            .select_from(Mention)
            .join(User, User.id == Mention.user_id)
            .where(User.email == "ana@example.org")
        )
    assert to_ana == 2


def test_the_history_reply_form_checks_csrf_and_the_language(review_app, sessions):
    item_id = review_sample(sessions, "ana@example.org", "es")[0][0]
    ana, eleni = Browser(review_app).login("ana@example.org"), Browser(review_app).login("eleni@example.org")
    thread = _comment(ana, item_id, "@bo mira", "y-1")
    path = f"/review/es/threads/{thread}/reply"
    assert ana.client.post(path, data={"text": "sin token"}).status_code == 400  # CSRF
    r = _form(eleni, path, follow_redirects=True, text="¿y yo?")  # Eleni does not review Spanish
    assert r.status_code == 403
    for _ in range(2):  # a resent form stores its reply once
        r = _form(ana, path, text="otra vez", request_id="same")
        assert r.status_code == 302 and r.headers["Location"].endswith(f"/review/es/history#thread-{thread}")
    history = ana.get("/review/es/history").get_data(as_text=True)
    assert history.count("otra vez") == 1


# ---------------------------------------------------------------- 4. mails in the reader's language
def test_mails_speak_the_language_of_the_request_or_the_reader(review_app, db_url, tmp_path, sessions):
    item_id = review_sample(sessions, "ana@example.org", "es")[0][0]
    with running_inbox() as inbox:
        app = mail_app(db_url, tmp_path, inbox.port)
        client = app.test_client()
        client.set_cookie("curator_locale", "es")
        page = client.get("/forgot").get_data(as_text=True)
        assert (
            client.post("/forgot", data={"email": "ana@example.org", "csrf_token": csrf_from(page)}).status_code == 303
        )
        mailer(app).drain()
        [reset] = inbox.messages
        assert _subject(reset) == "Elige una contraseña nueva para curator"
        body = reset.get_payload(decode=True).decode()
        assert "Abre este enlace" in body and f"{BASE}/reset/" in body
        # mentions: Ana writes on a Spanish page; Bo chose no language (the page's), Boss chose Arabic
        _form(Browser(app).login("boss@example.org"), "/locale", locale="ar")
        ana = Browser(app).login("ana@example.org")
        _form(ana, "/locale", locale="es")
        _comment(ana, item_id, "@bo @boss ¿«nació en»?", "z-1")
        mailer(app).drain()
        subjects = {m["To"]: _subject(m) for m in inbox.messages[1:]}
        assert subjects == {
            "bo@example.org": "Ana te ha mencionado en un comentario (español) en curator",
            "boss@example.org": "أشار إليك Ana في تعليق (الإسبانية) على curator",
        }
        app.extensions["curator.engine"].dispose()


# ---------------------------------------------------------------- 6. a higher per-client mail limit
def test_a_classroom_behind_one_address_is_not_stopped_by_the_per_address_limit(review_app, db_url, tmp_path):
    with running_inbox() as inbox:
        app = mail_app(
            db_url,
            tmp_path,
            inbox.port,
            RATELIMIT_ENABLED=True,
            RATELIMIT_MAIL="1/hour",
            RATELIMIT_MAIL_CLIENT="3/hour",
        )
        answers = []
        for email in ("ana@example.org", "bo@example.org", "eleni@example.org", "boss@example.org"):
            client = app.test_client()  # four pupils, one client address
            page = client.get("/forgot").get_data(as_text=True)
            answers.append(client.post("/forgot", data={"email": email, "csrf_token": csrf_from(page)}).status_code)
        assert answers == [303, 303, 303, 429]
        mailer(app).drain()
        assert len(inbox.messages) == 3
        app.extensions["curator.engine"].dispose()


# ---------------------------------------------------------------- 7. one "may read a thread" rule
def test_the_sql_rule_and_its_pure_twin_agree(review_app, sessions):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from curator.core.models import Assignment, Language
    from curator.review.mentions import active_accounts
    from curator.review.readers import may_read, may_read_language

    with sessions() as s:
        codes = sorted(s.scalars(select(Language.code)).all())[:5]
        users = s.scalars(select(User).order_by(User.id)).all()
        s.expunge_all()
    rows = st.lists(
        st.tuples(st.sampled_from(users), st.sampled_from(codes), st.booleans()),
        max_size=6,
        unique_by=lambda t: (t[0].id, t[1]),
    )

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(rows)
    def agree(extra):
        with sessions() as s:
            s.execute(Assignment.__table__.update().values(unassigned_at=None))
            for user, code, gone in extra:  # assign, or take off, these languages
                row = s.scalar(select(Assignment).where(Assignment.user_id == user.id, Assignment.language == code))
                if row is None:
                    row = Assignment(user_id=user.id, language=code, fraction=1.0, seed="x")
                    s.add(row)
                row.unassigned_at = utcnow() if gone else None
            s.flush()
            accounts = {a.id: a for a in active_accounts(s)}
            for user in users:
                for code in codes:
                    assert may_read_language(s, s.get(User, user.id), code) == may_read(accounts[user.id], code)
            s.rollback()

    agree()


# ---------------------------------------------------------------- 8. the read form's input
def test_marking_read_takes_an_id_or_nothing(review_app, sessions):
    item_id = review_sample(sessions, "ana@example.org", "es")[0][0]
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    _comment(ana, item_id, "@bo uno", "r-1")
    _comment(ana, item_id, "@bo dos", "r-2")
    for junk in ("1x", "-1", "٣", "all"):
        assert _form(bo, "/mentions/read", mention=junk).status_code == 400
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Mention).where(Mention.read_at.is_not(None))) == 0
    assert _form(bo, "/mentions/read", mention=str(_mention_id(sessions, "bo@example.org"))).status_code == 302
    assert _form(bo, "/mentions/read", mention="").status_code == 302
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Mention).where(Mention.read_at.is_(None))) == 0


def test_forgot_password_keeps_a_link_a_maintainer_handed_over(review_app, sessions):
    """Anyone may type Ana's address on "Forgot password?": that replaces her own earlier
    requests only, never the link a maintainer gave her; using any link spends the others."""
    from curator.core.errors import Gone
    from curator.review import people

    with sessions.begin() as s:
        boss, ana = people.get_person(s, "boss@example.org"), people.get_person(s, "ana@example.org")
        given = people.create_reset(s, boss, ana)[1]
        first = people.request_reset(s, "ana@example.org")[1]
        second = people.request_reset(s, "ana@example.org")[1]
    with sessions.begin() as s:
        people.open_reset(s, given)  # still works
        people.open_reset(s, second)
        with pytest.raises(Gone):
            people.open_reset(s, first)  # her own earlier request: replaced
        people.use_reset(s, second, "a brand new passphrase 37")
    with sessions.begin() as s, pytest.raises(Gone):
        people.open_reset(s, given)  # spent with the password change

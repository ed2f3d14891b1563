"""Issue 37's review findings on accounts, e-mail and @mentions: a page highlights only the
mentions a comment stored (no page tells which accounts exist), e-mailed links only from
CURATOR_BASE_URL (one rule, `mail.may_mail_links`, for the pages and the commands), a mentioned
reviewer answers from the history page, mails in the asker's language, a per-client mail limit
above the per-address one, one "may read a thread" rule, and the mention-read form's input."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from curator.core.models import Mention, User
from curator.web.mailer import mailer

from .conftest import Browser, review_sample
from .mailbox import running_inbox
from .test_people import LINK, _form, _user_id

pytestmark = pytest.mark.backends("sqlite")

API = "/api/v1/languages"
BASE = "https://review.example.org"
MARK = re.compile(r'<mark class="mention"><bdi dir="ltr">(@[^<]+)</bdi></mark>')


def _app(db_url, tmp_path, port: int | None = None, **extra):
    from curator.web import create_app

    config = {
        "DATABASE_URL": db_url,
        "SECRET_KEY": "test-secret",
        "RUNS_DIR": str(tmp_path / "runs"),
        "RATELIMIT_ENABLED": False,
    }
    if port is not None:
        config |= {
            "SMTP_HOST": "127.0.0.1",
            "SMTP_PORT": port,
            "SMTP_FROM": "curator@example.org",
            "SMTP_STARTTLS": False,
            "BASE_URL": BASE,
        }
    return create_app(config | extra)


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
        app = _app(db_url, tmp_path, inbox.port, BASE_URL=None)
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

        app = _app(db_url, tmp_path, inbox.port)
        boss = _forging(Browser(app)).login("boss@example.org")
        r = _form(boss, f"/admin/users/{ana_id}/reset")
        assert r.status_code == 200
        r = _form(boss, "/admin/reviewers", follow_redirects=True, email="new2@example.org", languages="es")
        assert r.status_code == 200
        links = [LINK.search(m.get_payload(decode=True).decode())[0] for m in inbox.messages]
        assert len(links) == 2 and all(link.startswith(BASE + "/") for link in links), links
        app.extensions["curator.engine"].dispose()

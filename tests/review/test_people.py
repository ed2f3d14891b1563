"""People management (issue 28 §4): deactivate / reactivate, roles, assigning and unassigning
languages, one-time password-reset links, and e-mail through a real SMTP server (aiosmtpd,
started here) — in the browser's forms, as `curator user …` commands, and one Chromium walk of
the people pages. Each maintainer action leaves one activity entry; each refusal changes nothing."""

from __future__ import annotations

import re
from datetime import timedelta
from email import message_from_bytes
from email.message import Message

import pytest
from sqlalchemy import func, select

from curator.core.models import ActivityEntry, Assignment, AssignmentItem, Decision, PasswordReset, User
from curator.core.models.base import utcnow
from tests.plugins.databases import PASSWORD, review_sample
from tests.plugins.servers import Browser, csrf_from, signed_in_state

pytestmark = pytest.mark.backends("sqlite", "postgresql")

NEW_PASSWORD = "violet tractor umbrella"
LINK = re.compile(r"https?://[^\s<\"]+/(?:reset|invite)/[\w-]+")


def _user_id(sessions, email: str) -> int:
    with sessions() as s:
        return s.scalar(select(User.id).where(User.email == email))


def _activity(sessions) -> list[tuple[str | None, str, str, str | None, dict]]:
    """(actor e-mail, action, target, language, details), oldest first."""
    with sessions() as s:
        rows = s.execute(
            select(
                User.email, ActivityEntry.action, ActivityEntry.target, ActivityEntry.language, ActivityEntry.details
            )
            .outerjoin(User, User.id == ActivityEntry.actor_id)
            .order_by(ActivityEntry.id)
        ).all()
    return [tuple(r) for r in rows]


def _form(browser: Browser, path: str, follow_redirects: bool = False, **data):
    return browser.client.post(path, data={**data, "csrf_token": browser.token}, follow_redirects=follow_redirects)


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# ---------------------------------------------------------------- deactivate / reactivate
def test_deactivation_on_the_page_signs_out_at_once_and_keeps_the_decisions(review_app, sessions, cli):
    ana_id = _user_id(sessions, "ana@example.org")
    ana = Browser(review_app).login("ana@example.org")
    item = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["id"]
    assert ana.post(f"/api/v1/languages/es/items/{item}/decision", json={"decision": "accept"}).status_code == 201
    token = cli("user", "token", "ana@example.org").output.strip()
    script = review_app.test_client()
    assert script.get("/api/v1/me", headers=_bearer(token)).status_code == 200

    boss = Browser(review_app).login("boss@example.org")
    r = _form(boss, f"/admin/users/{ana_id}/active", action="deactivate", confirm="1")
    assert r.status_code == 302, r.get_data(as_text=True)
    # at once: the signed-in browser's next request, the API and the token are refused
    assert ana.get("/api/v1/me").status_code == 401
    page = ana.get("/review/es")
    assert page.status_code == 302 and "/login" in page.headers["Location"]
    assert script.get("/api/v1/me", headers=_bearer(token)).status_code == 401
    with sessions() as s:
        kept = s.scalars(select(Decision).where(Decision.item_id == item)).all()
        assert [(d.user_id, d.decision) for d in kept] == [(ana_id, "accept")]  # kept, still Ana's
    shown = boss.get(f"/admin/users/{ana_id}").get_data(as_text=True)
    assert 'id="person-state">deactivated' in shown and 'id="reactivate"' in shown
    assert "deactivated" in boss.get("/admin/users").get_data(as_text=True)

    r = _form(boss, f"/admin/users/{ana_id}/active", action="reactivate")
    assert r.status_code == 302
    Browser(review_app).login("ana@example.org")  # the password works again
    assert script.get("/api/v1/me", headers=_bearer(token)).status_code == 401  # the old token does not
    assert _activity(sessions) == [
        (None, "api-token", "ana@example.org", None, {}),  # `curator user token`
        ("boss@example.org", "deactivate", "ana@example.org", None, {}),
        ("boss@example.org", "reactivate", "ana@example.org", None, {}),
    ]
    # the same from the command line (actor: none)
    cli("user", "deactivate", "bo@example.org")
    cli("user", "reactivate", "bo@example.org")
    assert [a[:3] for a in _activity(sessions)[3:]] == [
        (None, "deactivate", "bo@example.org"),
        (None, "reactivate", "bo@example.org"),
    ]


def test_refusals_change_nothing(review_app, sessions, cli):
    boss_id, ana_id = _user_id(sessions, "boss@example.org"), _user_id(sessions, "ana@example.org")
    boss = Browser(review_app).login("boss@example.org")
    refusals = [
        (f"/admin/users/{boss_id}/active", {"action": "deactivate", "confirm": "1"}, 409, "your own account"),
        (f"/admin/users/{boss_id}/role", {"role": "reviewer"}, 409, "your own account"),
        (f"/admin/users/{ana_id}/role", {"role": "admin"}, 422, "field &#39;role&#39;: must be one of"),
        (f"/admin/users/{ana_id}/role", {"role": "reviewer"}, 409, "already a reviewer"),
        (f"/admin/users/{ana_id}/active", {"action": "reactivate"}, 409, "already active"),
        (f"/admin/users/{ana_id}/active", {"action": "explode"}, 422, "action: choose"),
        (
            f"/admin/users/{ana_id}/languages",
            {"action": "assign", "language": "zz"},
            422,
            "field &#39;language&#39;: unknown language",
        ),
        (f"/admin/users/{ana_id}/languages", {"action": "assign", "language": "es"}, 409, "already reviews es"),
        (f"/admin/users/{ana_id}/languages", {"action": "unassign", "language": "el"}, 409, "does not review el"),
        (f"/admin/users/{ana_id}/languages", {"action": "", "language": "el"}, 422, "action: choose"),
        ("/admin/users/99999/active", {"action": "deactivate", "confirm": "1"}, 404, "no user"),
    ]
    for path, data, status, message in refusals:
        r = _form(boss, path, **data)
        text = r.get_data(as_text=True)
        assert r.status_code == status and message in text, (path, data, r.status_code)
        assert "Traceback" not in text
    # the last active maintainer, from the command line: one line, exit 1
    for args, message in [
        (("deactivate", "boss@example.org"), "boss@example.org is the last active maintainer"),
        (("role", "boss@example.org", "reviewer"), "boss@example.org is the last active maintainer"),
        (("deactivate", "nobody@example.org"), "no user nobody@example.org"),
        (("assign", "ana@example.org", "zz"), "unknown language 'zz'"),
        (("unassign", "nobody@example.org", "es"), "no user nobody@example.org"),
        (("reset-link", "nobody@example.org"), "no user nobody@example.org"),
    ]:
        result = cli("user", *args, ok=False)
        assert result.exit_code == 1 and message in result.output and len(result.output.strip().splitlines()) == 1
    assert _activity(sessions) == []
    with sessions() as s:
        boss_row, ana_row = s.get(User, boss_id), s.get(User, ana_id)
        assert (boss_row.role, boss_row.active, ana_row.role, ana_row.active) == ("maintainer", True, "reviewer", True)
    # with a second maintainer, either may take the other's rights (never their own)
    cli("user", "role", "bo@example.org", "maintainer")
    assert _form(boss, f"/admin/users/{_user_id(sessions, 'bo@example.org')}/role", role="reviewer").status_code == 302
    assert [a[1:] for a in _activity(sessions)] == [
        ("role", "bo@example.org", None, {"from": "reviewer", "to": "maintainer"}),
        ("role", "bo@example.org", None, {"from": "maintainer", "to": "reviewer"}),
    ]


# ---------------------------------------------------------------- languages
def _reviewer_urls(app, item: int) -> list[tuple[str, str]]:
    """(method, URL) of every route a reviewer reaches about a language: the pages and the API."""
    values = {"lang": "es", "item_id": item, "relation": "P19", "suggestion_id": 1, "comment_id": 1, "thread_id": 1}
    out = []
    for rule in app.url_map.iter_rules():
        if "lang" not in rule.arguments or rule.rule.startswith("/admin"):
            continue
        url = rule.rule
        for match in re.finditer(r"<(?:[^:>]+:)?([^>]+)>", rule.rule):
            url = url.replace(match.group(0), str(values[match.group(1)]))
        out += [(method, url) for method in sorted(rule.methods - {"HEAD", "OPTIONS"})]
    return out


def test_an_unassigned_language_is_hidden_and_refused_everywhere_and_comes_back(review_app, sessions, cli):
    from curator.review.stats import review_summary

    ana_id = _user_id(sessions, "ana@example.org")
    sample = review_sample(sessions, "ana@example.org", "es")
    ana = Browser(review_app).login("ana@example.org")
    item = sample[0][0]
    assert ana.post(f"/api/v1/languages/es/items/{item}/decision", json={"decision": "reject"}).status_code == 201
    with sessions() as s:
        before = [r for r in review_summary(s).to_dict()["languages"] if r["language"] == "es"]

    boss = Browser(review_app).login("boss@example.org")
    r = _form(boss, f"/admin/users/{ana_id}/languages", action="unassign", language="es")
    assert r.status_code == 302
    urls = _reviewer_urls(review_app, item)
    assert len(urls) >= 15  # the pages, the queue, items, decisions, suggestions, comments, glossary…
    for method, url in urls:
        if method == "GET":
            response = ana.get(url)
        elif url.startswith("/api/"):
            response = ana.post(url, json={"decision": "accept", "text": "[X] nació en [Y]"})
        else:
            response = _form(ana, url, text="[X] nació en [Y]")
        assert response.status_code == 403, (method, url, response.status_code)
    assert [lang["code"] for lang in ana.get("/api/v1/me").get_json()["languages"]] == ["ar"]
    home = ana.get("/").get_data(as_text=True)
    assert "/review/ar" in home and "/review/es" not in home
    with sessions() as s:  # nothing was stored by the refused requests; the decision still counts
        assert s.scalar(select(func.count()).select_from(Decision).where(Decision.user_id == ana_id)) == 1
        after = [r for r in review_summary(s).to_dict()["languages"] if r["language"] == "es"]
    assert after == before
    person = boss.get(f"/admin/users/{ana_id}").get_data(as_text=True)
    assert re.search(r'data-language="es">.*?unassigned.*?Assign again', person, re.S)

    # assigned again (from the command line): the same sample, the decision still there
    assert "again (the same sample)" in cli("user", "assign", "ana@example.org", "es").output
    assert review_sample(sessions, "ana@example.org", "es") == sample
    assert ana.get("/review/es").status_code == 200
    queue = ana.get("/api/v1/languages/es/queue").get_json()
    assert next(i for i in queue["items"] if i["id"] == item)["decision"] == "reject"
    # a language new to the account: a new sample; then unassigned from the command line
    assert "(a new sample)" in cli("user", "assign", "ana@example.org", "el").output
    assert ana.get("/review/el").status_code == 200
    cli("user", "unassign", "ana@example.org", "el")
    assert ana.get("/review/el").status_code == 403
    assert [a[:4] for a in _activity(sessions)] == [
        ("boss@example.org", "unassign", "ana@example.org", "es"),
        (None, "assign", "ana@example.org", "es"),
        (None, "assign", "ana@example.org", "el"),
        (None, "unassign", "ana@example.org", "el"),
    ]
    assert [a[4] for a in _activity(sessions)][1:3] == [{"sample": "restored"}, {"sample": "new"}]


def test_a_language_assigned_again_brings_the_proposals_made_meanwhile(review_app, sessions, cli):
    """Proposals made while a reviewer was off the language reach them when it comes back — by
    `curator user assign` (or the people page) and by accepting a new invitation to it."""
    from tests.review.test_second_look import AMENDED, SUGGESTED, amend_first, items_with

    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    cli("user", "unassign", "bo@example.org", "es")
    amend_first(ana, "while-away")
    assert items_with(sessions, "bo@example.org", "es", AMENDED) == []  # not his to review now
    cli("user", "assign", "bo@example.org", "es")
    [(item_id, _position, extra)] = items_with(sessions, "bo@example.org", "es", AMENDED)
    assert extra and bo.get(f"/api/v1/languages/es/items/{item_id}").get_json()["proposal"]["kind"] == "amend"

    cli("user", "unassign", "bo@example.org", "es")
    relation = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["relation"]
    r = ana.post(f"/api/v1/languages/es/relations/{relation}/suggestions", {"text": SUGGESTED, "request_id": "s-1"})
    assert r.status_code == 201
    link = cli("user", "invite", "--language", "es", "--email", "bo@example.org").output.strip()
    path = link[link.index("/invite/") :]
    assert _form(bo, path).status_code == 302  # Bo, signed in, accepts the invitation
    assert bo.get("/review/es").status_code == 200
    [(_item, _position, extra)] = items_with(sessions, "bo@example.org", "es", SUGGESTED)
    assert extra


def test_a_deactivated_maintainer_is_refused_as_by_on_the_command_line(review_app, sessions, cli):
    from curator.core.models import Resolution, Template

    strong = "violet tractor umbrella"
    cli("user", "create", "dora@example.org", "--role", "maintainer", "--password", strong)
    cli("user", "deactivate", "dora@example.org")
    with sessions() as s:
        template = s.scalars(select(Template.id).where(Template.language == "es", Template.is_candidate)).first()
    result = cli("review", "resolve", str(template), "accept", "--reason", "r", "--by", "dora@example.org", ok=False)
    assert result.exit_code == 1 and "--by: dora@example.org is deactivated" in result.output
    assert "Traceback" not in result.output
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Resolution)) == 0
    cli("review", "resolve", str(template), "accept", "--reason", "r")  # the only active maintainer: boss
    with sessions() as s:
        assert s.scalar(select(User.email).join(Resolution, Resolution.user_id == User.id)) == "boss@example.org"


def test_the_reviewers_page_lists_an_account_with_every_language_unassigned(review_app, sessions, cli):
    ana_id = _user_id(sessions, "ana@example.org")
    boss = Browser(review_app).login("boss@example.org")
    cli("user", "unassign", "ana@example.org", "es")
    cli("user", "unassign", "ana@example.org", "ar")
    page = boss.get("/admin/reviewers").get_data(as_text=True)
    accounts = page[page.index('id="accounts-table"') :]
    row = re.search(r"<tr><td>ana@example.org</td>.*?</tr>", accounts, re.S)
    assert row, "ana is not listed"
    assert re.findall(r'<a href="/admin/users/(\d+)">(\w+)</a> \(unassigned\)', row.group(0)) == [
        (str(ana_id), "ar"),
        (str(ana_id), "es"),
    ]
    assert "/admin/languages/" not in row.group(0)  # no progress row for a language taken off
    cli("user", "assign", "ana@example.org", "ar")  # one language back: its usual row, no mark
    page = boss.get("/admin/reviewers").get_data(as_text=True)
    rows = re.findall(r"<tr><td>ana@example.org</td>.*?</tr>", page[page.index('id="accounts-table"') :], re.S)
    assert len(rows) == 1 and "/admin/languages/ar" in rows[0] and "unassigned" not in rows[0]


# ---------------------------------------------------------------- password resets
def _reset_link(html: str) -> str:
    match = re.search(r'<code class="reset-link">([^<]+)</code>', html)
    assert match, "no reset link on the page"
    return match.group(1)


def _path(link: str) -> str:
    return "/" + link.split("/", 3)[3]


def _choose(app, path: str, password: str, again: str | None = None):
    client = app.test_client()
    page = client.get(path)
    if page.status_code != 200:
        return page
    csrf = csrf_from(page.get_data(as_text=True))
    return client.post(path, data={"password": password, "password2": again or password, "csrf_token": csrf})


def test_a_reset_link_works_once_and_expires(review_app, sessions, cli):
    ana_id = _user_id(sessions, "ana@example.org")
    ana = Browser(review_app).login("ana@example.org")
    boss = Browser(review_app).login("boss@example.org")
    r = _form(boss, f"/admin/users/{ana_id}/reset")
    assert r.status_code == 200
    path = _path(_reset_link(r.get_data(as_text=True)))
    assert path.startswith("/reset/")

    page = review_app.test_client().get(path)
    assert page.status_code == 200 and "ana@example.org" in page.get_data(as_text=True)
    assert _choose(review_app, path, NEW_PASSWORD, "something else").status_code == 422
    weak = _choose(review_app, path, "password")
    assert weak.status_code == 422 and "most common" in weak.get_data(as_text=True)
    done = _choose(review_app, path, NEW_PASSWORD)
    assert done.status_code == 302 and done.headers["Location"].endswith("/")
    assert ana.get("/api/v1/me").status_code == 401  # her other sign-ins are revoked
    Browser(review_app).login("ana@example.org", NEW_PASSWORD)
    used = review_app.test_client().get(path)
    assert used.status_code == 410 and "already been used" in used.get_data(as_text=True)
    assert _choose(review_app, path, "another fine passphrase").status_code == 410

    # from the command line: a link; a newer one replaces it; expiry; a deactivated account
    first = _path(cli("user", "reset-link", "ana@example.org").output.strip())
    second = _path(cli("user", "reset-link", "ana@example.org", "--base-url", "https://curator.example").output.strip())
    assert review_app.test_client().get(first).status_code == 410
    with sessions.begin() as s:
        for reset in s.scalars(select(PasswordReset).where(PasswordReset.used_at.is_(None))):
            reset.expires_at = utcnow() - timedelta(minutes=1)
    expired = review_app.test_client().get(second)
    assert expired.status_code == 410 and "expired" in expired.get_data(as_text=True)
    third = _path(cli("user", "reset-link", "ana@example.org").output.strip())
    cli("user", "deactivate", "ana@example.org")
    gone = review_app.test_client().get(third)
    assert gone.status_code == 410 and "deactivated" in gone.get_data(as_text=True)
    refused = _form(boss, f"/admin/users/{ana_id}/reset")
    assert refused.status_code == 409 and "reactivate it first" in refused.get_data(as_text=True)
    bad = review_app.test_client().get("/reset/not-a-real-token")
    assert bad.status_code == 404 and "not valid" in bad.get_data(as_text=True)
    for response in (used, expired, gone, bad):
        assert "Traceback" not in response.get_data(as_text=True)
    assert [a[:3] for a in _activity(sessions) if a[1] == "password-reset"] == [
        ("boss@example.org", "password-reset", "ana@example.org"),
        (None, "password-reset", "ana@example.org"),
        (None, "password-reset", "ana@example.org"),
        (None, "password-reset", "ana@example.org"),
    ]


def test_deactivation_and_a_new_password_expire_open_reset_links(review_app, sessions, cli):
    """A link made before a deactivation does not work again after the reactivation; a link made
    before any password change (the command, the account page) stops working too."""
    link = _path(cli("user", "reset-link", "ana@example.org").output.strip())
    cli("user", "deactivate", "ana@example.org")
    cli("user", "reactivate", "ana@example.org")
    expired = review_app.test_client().get(link)
    assert expired.status_code == 410 and "expired" in expired.get_data(as_text=True)
    assert _choose(review_app, link, NEW_PASSWORD).status_code == 410
    Browser(review_app).login("ana@example.org")  # the password is unchanged

    link = _path(cli("user", "reset-link", "ana@example.org").output.strip())
    cli("user", "password", "ana@example.org", "--password", NEW_PASSWORD)
    assert review_app.test_client().get(link).status_code == 410
    link = _path(cli("user", "reset-link", "ana@example.org").output.strip())
    ana = Browser(review_app).login("ana@example.org", NEW_PASSWORD)
    form = {"current": NEW_PASSWORD, "password": PASSWORD, "password2": PASSWORD, "csrf_token": ana.token}
    assert ana.client.post("/account", data=form).status_code == 302
    assert review_app.test_client().get(link).status_code == 410
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(PasswordReset).where(PasswordReset.used_at.is_not(None))) == 0


# ---------------------------------------------------------------- e-mail
class Inbox:
    """An aiosmtpd handler keeping every message it receives."""

    def __init__(self):
        self.messages: list[Message] = []

    async def handle_DATA(self, server, session, envelope):  # aiosmtpd calls this hook by name
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"


@pytest.fixture
def smtp():
    """A real SMTP server on a free local port for this test (stopped afterwards)."""
    aiosmtpd = pytest.importorskip("aiosmtpd.controller", reason="aiosmtpd is not installed (the test extra)")
    inbox = Inbox()
    inbox.port = _closed_port()  # a free port (aiosmtpd's start-up check cannot use port 0)
    controller = aiosmtpd.Controller(inbox, hostname="127.0.0.1", port=inbox.port)
    controller.start()  # returns once the server answers
    yield inbox
    controller.stop()


def _closed_port() -> int:
    """A port nothing listens on (the socket that found it is closed)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _mail_app(db_url, tmp_path, port: int):
    from curator.web import create_app

    return create_app(
        {
            "DATABASE_URL": db_url,
            "SECRET_KEY": "test-secret",
            "RUNS_DIR": str(tmp_path / "runs"),
            "RATELIMIT_ENABLED": False,
            "SMTP_HOST": "127.0.0.1",
            "SMTP_PORT": port,
            "SMTP_FROM": "curator@example.org",
            "SMTP_STARTTLS": False,
            "BASE_URL": "https://review.example.org",  # e-mailed links start with it (mail.may_mail_links)
        }
    )


@pytest.mark.backends("sqlite")
def test_reset_links_and_invitations_by_email(review_app, db_url, sessions, tmp_path, smtp, cli, monkeypatch):
    app = _mail_app(db_url, tmp_path, smtp.port)
    ana_id = _user_id(sessions, "ana@example.org")
    boss = Browser(app).login("boss@example.org")
    r = _form(boss, f"/admin/users/{ana_id}/reset")
    assert r.status_code == 200 and "Sent to ana@example.org" in r.get_data(as_text=True)
    [message] = smtp.messages
    assert (message["To"], message["From"]) == ("ana@example.org", "curator@example.org")
    link = LINK.search(message.get_payload(decode=True).decode())[0]
    assert link == _reset_link(r.get_data(as_text=True))
    assert _choose(app, _path(link), NEW_PASSWORD).status_code == 302  # the link in the e-mail works
    Browser(app).login("ana@example.org", NEW_PASSWORD)

    # the reviewers page's invitation, bound to an address: e-mailed, and its link opens the invitation
    r = _form(boss, "/admin/reviewers", follow_redirects=True, email="new@example.org", languages="es")
    assert r.status_code == 200 and "E-mailed" in r.get_data(as_text=True)
    invitation = smtp.messages[-1]
    assert invitation["To"] == "new@example.org"
    invite_link = LINK.search(invitation.get_payload(decode=True).decode())[0]
    assert app.test_client().get(_path(invite_link)).status_code == 200
    # an invitation without an address: nothing to send, the link shown as before
    r = _form(boss, "/admin/reviewers", follow_redirects=True, languages="es")
    assert r.status_code == 200 and "Send this link" in r.get_data(as_text=True) and len(smtp.messages) == 2

    # the commands e-mail too (settings from the environment)
    for name, value in {
        "CURATOR_SMTP_HOST": "127.0.0.1",
        "CURATOR_SMTP_PORT": str(smtp.port),
        "CURATOR_SMTP_FROM": "curator@example.org",
        "CURATOR_SMTP_STARTTLS": "0",
    }.items():
        monkeypatch.setenv(name, value)
    out = cli("user", "invite", "--language", "es", "--email", "cli@example.org").output
    assert smtp.messages[-1]["To"] == "cli@example.org" and LINK.search(out)[0] in smtp.messages[-1].get_payload()
    out = cli("user", "reset-link", "bo@example.org").output
    assert smtp.messages[-1]["To"] == "bo@example.org" and LINK.search(out)[0] in smtp.messages[-1].get_payload()
    assert len(smtp.messages) == 4


@pytest.mark.backends("sqlite")
def test_a_failed_send_is_one_message_and_the_link_still_works(
    review_app, db_url, sessions, tmp_path, cli, monkeypatch
):
    app = _mail_app(db_url, tmp_path, _closed_port())
    ana_id = _user_id(sessions, "ana@example.org")
    boss = Browser(app).login("boss@example.org")
    r = _form(boss, f"/admin/users/{ana_id}/reset")
    text = r.get_data(as_text=True)
    assert r.status_code == 200 and text.count("was not sent") == 1 and "Traceback" not in text
    assert _choose(app, _path(_reset_link(text)), NEW_PASSWORD).status_code == 302  # the link was made and works
    r = _form(boss, "/admin/reviewers", follow_redirects=True, email="new@example.org", languages="es")
    text = r.get_data(as_text=True)
    assert r.status_code == 200 and "was not sent" in text and "Send this link" in text
    monkeypatch.setenv("CURATOR_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("CURATOR_SMTP_PORT", str(_closed_port()))
    monkeypatch.setenv("CURATOR_SMTP_FROM", "curator@example.org")
    result = cli("user", "reset-link", "bo@example.org", ok=False)
    assert result.exit_code == 1 and "/reset/" in result.stdout and "was not sent" in result.output
    # the printed link works
    assert app.test_client().get(_path(LINK.search(result.stdout)[0])).status_code == 200
    monkeypatch.setenv("CURATOR_SMTP_FROM", "")
    result = cli("user", "reset-link", "bo@example.org", ok=False)
    assert result.exit_code == 1 and "CURATOR_SMTP_FROM" in result.output


# ---------------------------------------------------------------- the browser
@pytest.mark.backends("sqlite")
def test_people_pages_in_chromium(chromium, live, sessions):
    base = live.url
    context = chromium.new_context()
    page = context.new_page()
    state = signed_in_state(base, "boss@example.org")
    if state is not None:
        context.add_cookies(state["cookies"])
    else:
        page.goto(base + "/login")
        page.fill("input[name=email]", "boss@example.org")
        page.fill("input[name=password]", PASSWORD)
        page.keyboard.press("Enter")
        page.wait_for_url(lambda url: "/login" not in url)
    try:
        page.goto(base + "/admin/reviewers")
        page.click("#people-link")
        page.wait_for_selector("#people-table")
        assert page.locator("#people-table tbody tr").count() == 4
        page.click("text=ana@example.org")
        page.wait_for_selector("#person-facts")
        page.click('tr[data-language="ar"] button.unassign')
        page.wait_for_selector('tr[data-language="ar"] button.assign')
        assert "unassigned" in page.locator('tr[data-language="ar"]').inner_text()
        page.click('tr[data-language="ar"] button.assign')
        page.wait_for_selector('tr[data-language="ar"] button.unassign')
        page.select_option("#assign-form select", "el")
        page.click('#assign-form button[value="assign"]')
        page.wait_for_selector('tr[data-language="el"]')
        page.click("#make-reset")
        link = page.locator("code.reset-link").inner_text()
        assert "/reset/" in link
        page.select_option("#role-section select", "maintainer")
        page.click("#change-role")
        page.wait_for_function("document.getElementById('person-role').textContent === 'maintainer'")
        page.check("#confirm-deactivate")
        page.click("#deactivate")
        page.wait_for_selector("#reactivate")
        assert page.locator("#person-state").inner_text() == "deactivated"
        page.goto(base + "/admin/users/" + str(_user_id(sessions, "boss@example.org")))
        page.check("#confirm-deactivate")
        page.click("#deactivate")  # one's own account: refused on the page
        page.wait_for_selector(".flash.error")
        assert "your own account" in page.locator(".flash.error").inner_text()
        assert page.locator("#person-state").inner_text() == "active"
    finally:
        context.close()
    with sessions() as s:
        ana = s.scalar(select(User).where(User.email == "ana@example.org"))
        assert (ana.role, ana.active) == ("maintainer", False)
        assert (
            s.scalar(
                select(func.count())
                .select_from(Assignment)
                .where(Assignment.user_id == ana.id, Assignment.unassigned_at.is_(None))
            )
            == 3
        )
        assert s.scalar(select(func.count()).select_from(AssignmentItem)) > 0

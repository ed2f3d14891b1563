"""Self-service "Forgot password?" (issue 37 §3) through a real SMTP server (aiosmtpd, as in
tests/review/test_people.py): the same answer for known, unknown and deactivated addresses, the link
from CURATOR_BASE_URL whatever Host the request names, rate limits per address and per client,
CSRF, the page without e-mail configured; and the whole walk in Chromium, in Spanish and
Arabic, on a phone and a desktop, light and dark."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from curator.core.models import PasswordReset
from curator.web.mailer import mailer
from tests.plugins.servers import Browser, csrf_from
from tests.review.test_people import LINK, NEW_PASSWORD
from tests.support.mailbox import BASE, mail_app, running_inbox

pytestmark = pytest.mark.backends("sqlite")


@pytest.fixture
def smtp():
    with running_inbox() as inbox:
        yield inbox


def _ask(client, email: str, headers: dict | None = None, locale: str | None = None):
    if locale:
        client.set_cookie("curator_locale", locale)
    csrf = csrf_from(client.get("/forgot", headers=headers or {}).get_data(as_text=True))
    return client.post("/forgot", data={"email": email, "csrf_token": csrf}, headers=headers or {})


def _resets(sessions) -> int:
    with sessions() as s:
        return s.scalar(select(func.count()).select_from(PasswordReset)) or 0


def test_the_same_answer_for_every_address_and_a_mail_only_to_an_active_account(
    review_app, db_url, tmp_path, smtp, sessions, cli
):
    cli("user", "deactivate", "bo@example.org")
    app = mail_app(db_url, tmp_path, smtp.port)
    answers = []
    for email in ("ana@example.org", "nobody@example.org", "bo@example.org", "ANA@example.org "):
        client = app.test_client()
        r = _ask(client, email, headers={"Host": "evil.example.com"})  # a forged Host
        answers.append((r.status_code, r.headers["Location"]))
        page = client.get(r.headers["Location"], headers={"Host": "evil.example.com"}).get_data(as_text=True)
        assert 'id="forgot-sent"' in page and "evil" not in page
    assert set(answers) == {(303, "/forgot?sent=1")}
    mailer(app).drain()
    assert [m["To"] for m in smtp.messages] == ["ana@example.org", "ana@example.org"]  # not Bo (deactivated)
    first, second = (LINK.search(m.get_payload(decode=True).decode())[0] for m in smtp.messages)
    assert first.startswith(BASE + "/reset/") and second.startswith(BASE + "/reset/")  # never the forged Host
    path = "/" + second.split("/", 3)[3]
    client = app.test_client()
    assert client.get("/" + first.split("/", 3)[3]).status_code == 410  # the second request replaced it
    csrf = csrf_from(client.get(path).get_data(as_text=True))
    r = client.post(path, data={"password": NEW_PASSWORD, "password2": NEW_PASSWORD, "csrf_token": csrf})
    assert r.status_code == 302
    assert client.get("/api/v1/me").get_json()["email"] == "ana@example.org"  # signed in
    assert client.get(path).status_code == 410  # once
    # without the CSRF token: refused, nothing made
    before = _resets(sessions)
    r = app.test_client().post("/forgot", data={"email": "ana@example.org"})
    assert r.status_code == 400
    mailer(app).drain()
    assert _resets(sessions) == before and len(smtp.messages) == 2


def test_without_email_configured_the_page_says_whom_to_ask(review_app, db_url, tmp_path, sessions):
    app = mail_app(db_url, tmp_path, None)
    client = app.test_client()
    login = client.get("/login").get_data(as_text=True)
    assert 'id="forgot-link"' in login
    page = client.get("/forgot").get_data(as_text=True)
    assert 'id="forgot-ask"' in page and 'id="forgot-form"' not in page
    r = client.post("/forgot", data={"email": "ana@example.org", "csrf_token": csrf_from(page)})
    assert r.status_code == 200 and 'id="forgot-ask"' in r.get_data(as_text=True)
    assert _resets(sessions) == 0
    # SMTP without a base URL: no link could be made safely, so no form either
    app = mail_app(db_url, tmp_path, 25, BASE_URL=None)
    assert 'id="forgot-ask"' in app.test_client().get("/forgot").get_data(as_text=True)
    # Spanish, tú
    client = app.test_client()
    client.set_cookie("curator_locale", "es")
    assert "Pide a un responsable" in client.get("/forgot").get_data(as_text=True)


def test_rate_limited_per_address_and_per_client_in_the_pages_language(review_app, db_url, tmp_path, smtp):
    app = mail_app(
        db_url, tmp_path, smtp.port, RATELIMIT_ENABLED=True, RATELIMIT_MAIL="2/hour", RATELIMIT_MAIL_CLIENT="2/hour"
    )
    client = app.test_client()
    assert [_ask(client, "ana@example.org").status_code for _ in range(3)] == [303, 303, 429]
    other = app.test_client()  # the same client address, another typed address: the per-client limit
    r = _ask(other, "nobody@example.org", locale="es")
    assert r.status_code == 429 and "Demasiados intentos" in r.get_data(as_text=True)
    assert "Retry-After" in r.headers
    mailer(app).drain()
    assert len(smtp.messages) == 2


def test_forgot_password_walk_in_chromium(chromium, review_app, db_url, tmp_path, smtp, sessions):
    """Request → mail → link → new password → signed in; an unknown address answers the same;
    es on a phone (light), ar on a desktop (dark)."""
    from playwright.sync_api import expect

    from curator.web.testing import LiveServer

    app = mail_app(db_url, tmp_path, smtp.port)
    expected = {
        "es": ("¿Has olvidado tu contraseña?", "Mis idiomas"),
        "ar": ("هل نسيت كلمة المرور؟", "لغاتي"),
    }
    walks = (("es", {"width": 390, "height": 844}, "light"), ("ar", {"width": 1366, "height": 800}, "dark"))
    with LiveServer(app) as server:
        for n, (locale, viewport, scheme) in enumerate(walks):
            context = chromium.new_context(viewport=viewport, color_scheme=scheme)
            context.add_cookies([{"name": "curator_locale", "value": locale, "url": server.url}])
            page = context.new_page()
            try:
                page.goto(server.url + "/login")
                assert page.locator("html").get_attribute("dir") == ("rtl" if locale == "ar" else "ltr")
                link = page.locator("#forgot-link")
                expect(link).to_have_text(expected[locale][0])
                link.click()
                # an unknown address first: the same page as a known one
                page.fill("input[name=email]", "nobody@example.org")
                page.locator("#send-reset").click()
                unknown = page.locator("#forgot-sent").text_content()
                page.goto(server.url + "/forgot")
                page.fill("input[name=email]", "ana@example.org")
                page.locator("#send-reset").click()
                assert page.locator("#forgot-sent").text_content() == unknown
                assert page.url.endswith("/forgot?sent=1")
                mailer(app).drain()
                assert len(smtp.messages) == n + 1
                url = LINK.search(smtp.messages[-1].get_payload(decode=True).decode())[0]
                page.goto(server.url + "/" + url.split("/", 3)[3])
                new = f"{NEW_PASSWORD} {locale}"
                page.fill("input[name=password]", new)
                page.fill("input[name=password2]", new)
                page.locator("button[type=submit].primary").click()
                expect(page.locator("h1")).to_have_text(expected[locale][1])  # the home page, signed in
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= viewport["width"], width  # nothing overflows the phone
            finally:
                context.close()
    Browser(app).login("ana@example.org", f"{NEW_PASSWORD} ar")

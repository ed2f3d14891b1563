"""Self-service "Forgot password?" (issue 37 §3) through a real SMTP server (aiosmtpd, as in
tests/review/test_people.py): the same answer for known, unknown and deactivated addresses, the link
from CURATOR_BASE_URL whatever Host the request names, rate limits per address and per client,
CSRF; without e-mail configured, a request the maintainers of the account's languages see in the
app and answer with a link, with the operator's contact (CURATOR_HELP_CONTACT); and the whole
walk in Chromium, in Spanish and Arabic, on a phone and a desktop, light and dark."""

from __future__ import annotations

import re

import pytest
import requests
from sqlalchemy import func, select

from curator.core.models import PasswordReset, ResetRequest, User
from curator.web.mailer import mailer
from tests.plugins.databases import PASSWORD
from tests.plugins.servers import Browser, csrf_from
from tests.review.test_people import LINK, NEW_PASSWORD, _activity, _path, _reset_link, _user_id
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


def _http_login(server, email: str) -> requests.Session:
    """A signed-in browser over real HTTP (the sign-in form, its CSRF token)."""
    browser = requests.Session()
    page = browser.get(f"{server.url}/login").text
    r = browser.post(f"{server.url}/login", data={"email": email, "password": PASSWORD, "csrf_token": csrf_from(page)})
    assert r.status_code == 200 and "/login" not in r.url, r.url
    return browser


def _http_ask(server, email: str, note: str = "", locale: str | None = None) -> requests.Response:
    visitor = requests.Session()
    if locale:
        visitor.cookies.set("curator_locale", locale)
    page = visitor.get(f"{server.url}/forgot").text
    data = {"email": email, "note": note, "csrf_token": csrf_from(page)}
    return visitor.post(f"{server.url}/forgot", data=data, allow_redirects=False)


def _open_requests(sessions) -> dict[str, str]:
    with sessions() as s:
        rows = s.execute(
            select(User.email, ResetRequest.note)
            .join(User, User.id == ResetRequest.user_id)
            .where(ResetRequest.closed_at.is_(None))
        ).all()
    return dict(rows)


def _listed(html: str, list_id: str) -> list[str]:
    """The addresses a list of password-reset requests names, in order."""
    if f'id="{list_id}"' not in html:
        return []
    part = html.split(f'id="{list_id}"', 1)[1].split("</ul>", 1)[0]
    return re.findall(r'class="open-reset-request" href="[^"]+">([^<]+)</a>', part)


def test_without_email_the_request_reaches_the_maintainers_of_its_languages(
    review_app, db_url, tmp_path, sessions, cli
):
    """No SMTP: the page is a form (address, optional note) and the operator's contact; every
    address gets the same answer, a request is kept for an active account only, once however
    often it asks; it shows on the dashboard of the maintainers of the account's languages (of
    every maintainer when none reviews them) and on the People page, where a reset link answers
    it and a dismissal closes it. Over real HTTP on the test's SQLite database."""
    from curator.review.accounts import create_user
    from curator.review.sampling import assign
    from curator.web.testing import LiveServer

    cli("user", "deactivate", "bo@example.org")
    with sessions.begin() as s:  # Mara, a maintainer who reviews Spanish; Boss reviews nothing
        assign(s, create_user(s, "mara@example.org", PASSWORD, "maintainer", "Mara"), "es")
    app = mail_app(db_url, tmp_path, None, HELP_CONTACT="help@example.org")
    with LiveServer(app) as server:
        page = requests.get(f"{server.url}/forgot").text
        assert 'id="forgot-form"' in page and 'name="note"' in page and 'id="send-request"' in page
        assert 'id="forgot-sent"' not in page and 'id="forgot-asked"' not in page
        assert '<a href="mailto:help@example.org" id="help-contact" dir="auto">help@example.org</a>' in page
        answers = set()
        for email, note in (
            ("ana@example.org", "Call me: <b>+34 600</b>"),  # Spanish and Arabic
            ("nobody@example.org", "no account"),
            ("bo@example.org", "deactivated"),
            ("eleni@example.org", ""),  # Greek: no maintainer reviews it
            (" ANA@example.org", ""),  # again, without a note: still one request, its note kept
        ):
            r = _http_ask(server, email, note)
            answers.add((r.status_code, r.headers["Location"]))
            sent = requests.get(server.url + r.headers["Location"]).text
            assert 'id="forgot-asked"' in sent and 'id="forgot-form"' not in sent
        assert answers == {(303, "/forgot?sent=1")}  # the same answer whatever the address
        mailer(app).drain()
        assert _open_requests(sessions) == {"ana@example.org": "Call me: <b>+34 600</b>", "eleni@example.org": ""}
        # without the CSRF token: refused, nothing recorded
        r = requests.post(f"{server.url}/forgot", data={"email": "boss@example.org"}, allow_redirects=False)
        assert r.status_code == 400
        mailer(app).drain()
        assert "boss@example.org" not in _open_requests(sessions)

        mara, boss = _http_login(server, "mara@example.org"), _http_login(server, "boss@example.org")
        dashboard = mara.get(f"{server.url}/admin/").text
        assert _listed(dashboard, "dashboard-reset-requests") == ["ana@example.org", "eleni@example.org"]
        assert "Call me: &lt;b&gt;+34 600&lt;/b&gt;" in dashboard  # the note, escaped
        # Boss reviews no Spanish or Arabic: Ana's request is Mara's; Eleni's (Greek) is everyone's
        assert _listed(boss.get(f"{server.url}/admin/").text, "dashboard-reset-requests") == ["eleni@example.org"]
        people_page = boss.get(f"{server.url}/admin/users").text  # every open request
        assert _listed(people_page, "people-reset-requests") == ["ana@example.org", "eleni@example.org"]

        ana_id, eleni_id = _user_id(sessions, "ana@example.org"), _user_id(sessions, "eleni@example.org")
        person = boss.get(f"{server.url}/admin/users/{ana_id}").text
        assert 'id="reset-request"' in person and "Call me: &lt;b&gt;" in person
        r = boss.post(f"{server.url}/admin/users/{ana_id}/reset", data={"csrf_token": csrf_from(person)})
        link = _reset_link(r.text)  # shown to pass on (no e-mail)
        assert 'id="reset-request"' not in r.text  # answered
        assert requests.get(server.url + _path(link)).status_code == 200
        person = boss.get(f"{server.url}/admin/users/{eleni_id}").text
        r = boss.post(f"{server.url}/admin/users/{eleni_id}/reset-request", data={"csrf_token": csrf_from(person)})
        assert r.status_code == 200 and 'id="reset-request"' not in r.text and "Request dismissed" in r.text
        again = boss.post(f"{server.url}/admin/users/{eleni_id}/reset-request", data={"csrf_token": csrf_from(person)})
        assert again.status_code == 409  # nothing left to dismiss
        assert _open_requests(sessions) == {}
        assert 'id="reset-requests"' not in mara.get(f"{server.url}/admin/").text
        assert 'id="reset-requests"' not in boss.get(f"{server.url}/admin/users").text
    log = [(action, target, details) for _, action, target, _, details in _activity(sessions)]
    assert ("password-reset", "ana@example.org", {"requested": True}) in log
    assert ("reset-request-dismiss", "eleni@example.org", {}) in log


def test_without_email_the_page_speaks_the_visitors_language(review_app, db_url, tmp_path, sessions):
    """Spanish (tú) and Arabic: the form, the answer and a contact that is a sentence, not a link;
    SMTP without CURATOR_BASE_URL mails nothing, so it asks the maintainers too."""
    app = mail_app(db_url, tmp_path, 25, BASE_URL=None, HELP_CONTACT="Nuria, sala 3")
    client = app.test_client()
    client.set_cookie("curator_locale", "es")
    page = client.get("/forgot").get_data(as_text=True)
    assert 'id="forgot-form"' in page and "Avisar a los responsables" in page
    assert '<bdi id="help-contact">Nuria, sala 3</bdi>' in page
    r = client.post("/forgot", data={"email": "ana@example.org", "csrf_token": csrf_from(page)})
    assert r.status_code == 303
    assert "los responsables de los idiomas de esa cuenta" in client.get(r.headers["Location"]).get_data(as_text=True)
    client.set_cookie("curator_locale", "ar")
    assert "اطلب من المشرفين" in client.get("/forgot").get_data(as_text=True)
    mailer(app).drain()
    assert _open_requests(sessions) == {"ana@example.org": ""}
    assert _resets(sessions) == 0  # no link until a maintainer makes one
    # without a contact set, none is shown
    assert 'id="forgot-contact"' not in mail_app(db_url, tmp_path).test_client().get("/forgot").get_data(as_text=True)


def test_without_email_requests_are_rate_limited_like_the_mailed_ones(review_app, db_url, tmp_path, sessions):
    """The same limits as with e-mail, over real HTTP: CURATOR_RATELIMIT_MAIL per typed address,
    CURATOR_RATELIMIT_MAIL_CLIENT per client address; past them 429 with Retry-After, in the
    page's language, and nothing more recorded."""
    from curator.web.testing import LiveServer

    per_address = mail_app(db_url, tmp_path, None, RATELIMIT_ENABLED=True, RATELIMIT_MAIL="2/hour")
    with LiveServer(per_address) as server:
        statuses = [_http_ask(server, "ana@example.org", f"try {n}").status_code for n in range(3)]
        assert statuses == [303, 303, 429]
        assert _http_ask(server, "eleni@example.org").status_code == 303  # another address: its own count
    per_client = mail_app(db_url, tmp_path, None, RATELIMIT_ENABLED=True, RATELIMIT_MAIL_CLIENT="2/hour")
    with LiveServer(per_client) as server:
        assert [_http_ask(server, email).status_code for email in ("bo@example.org", "boss@example.org")] == [303, 303]
        r = _http_ask(server, "nobody@example.org", locale="es")  # the client's third
        assert r.status_code == 429 and "Retry-After" in r.headers and "Demasiados intentos" in r.text
    mailer(per_address).drain()
    mailer(per_client).drain()
    assert _open_requests(sessions) == {
        "ana@example.org": "try 1",
        "eleni@example.org": "",
        "bo@example.org": "",
        "boss@example.org": "",
    }


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


def test_without_email_the_walk_in_chromium(chromium, review_app, db_url, tmp_path):
    """A reviewer asks on a phone in Arabic (dark), with a note; the maintainer sees the request
    on the dashboard, makes the link on the account's page and passes it on; the link signs the
    reviewer in with the new password. The form and its answer pass axe."""
    from playwright.sync_api import expect

    from curator.web.testing import LiveServer
    from tests.support.axe import assert_accessible

    app = mail_app(db_url, tmp_path, None, HELP_CONTACT="https://help.example.org/curator")
    phone = {"width": 390, "height": 844}
    with LiveServer(app) as server:
        context = chromium.new_context(viewport=phone, color_scheme="dark", bypass_csp=True)
        context.add_cookies([{"name": "curator_locale", "value": "ar", "url": server.url}])
        page = context.new_page()
        page.goto(server.url + "/login")
        page.locator("#forgot-link").click()
        expect(page.locator("#help-contact")).to_have_attribute("href", "https://help.example.org/curator")
        assert_accessible(page, "/forgot without e-mail [ar, dark, 390 px]")
        page.fill("input[name=email]", "eleni@example.org")
        page.fill("textarea[name=note]", "هاتفي 0123")
        page.locator("#send-request").click()
        expect(page.locator("#forgot-asked")).to_be_visible()
        assert page.url.endswith("/forgot?sent=1")
        assert_accessible(page, "/forgot?sent=1 without e-mail [ar, dark, 390 px]")
        mailer(app).drain()

        boss = chromium.new_context(viewport=phone)
        admin = boss.new_page()
        admin.goto(server.url + "/login")
        admin.fill("input[name=email]", "boss@example.org")
        admin.fill("input[name=password]", PASSWORD)
        admin.keyboard.press("Enter")
        admin.wait_for_url(lambda url: "/login" not in url)
        admin.goto(server.url + "/admin/")
        request = admin.locator("#dashboard-reset-requests li")
        expect(request).to_have_count(1)
        expect(request.locator(".reset-note")).to_have_text("هاتفي 0123")
        request.locator("a.open-reset-request").click()
        expect(admin.locator("#reset-request")).to_be_visible()
        admin.locator("#make-reset").click()
        link = admin.locator("code.reset-link").inner_text()
        expect(admin.locator("#reset-request")).to_have_count(0)
        boss.close()

        page.goto(server.url + _path(link))
        page.fill("input[name=password]", NEW_PASSWORD)
        page.fill("input[name=password2]", NEW_PASSWORD)
        page.locator("button[type=submit].primary").click()
        expect(page.locator("h1")).to_have_text("لغاتي")  # signed in, on the home page
        assert page.evaluate("document.documentElement.scrollWidth") <= phone["width"]
        context.close()

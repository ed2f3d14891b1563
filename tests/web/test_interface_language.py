"""The interface language switcher, session expiry in plain words, the error pages and the
favicon (web/auth.py, web/context.py, web/errors.py, base.html)."""

from __future__ import annotations

from sqlalchemy import select

from curator.core.models import User
from tests.plugins.databases import PASSWORD
from tests.plugins.servers import Browser, csrf_from

SIGNED_OUT = "Your session ended — sign in again; your place is kept."


def _switch(client, locale, next_path="/login", page="/login"):
    token = csrf_from(client.get(page).get_data(as_text=True))
    return client.post("/locale", data={"locale": locale, "next": next_path, "csrf_token": token})


def _lang(client, path="/login") -> str:
    html = client.get(path).get_data(as_text=True)
    return html.split("<html ", 1)[1].split(">", 1)[0]


def test_every_page_offers_the_languages_in_their_own_names(review_app):
    html = review_app.test_client().get("/login").get_data(as_text=True)
    assert 'action="/locale"' in html
    for code, name in (("en", "English"), ("es", "Español"), ("ar", "العربية")):
        assert f'value="{code}" lang="{code}"' in html and name in html


def test_anonymous_choice_is_a_cookie_and_the_page_follows_it(review_app):
    client = review_app.test_client()
    r = _switch(client, "ar", "/login?x=1")
    assert r.status_code == 302 and r.location == "/login?x=1"
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith("curator_locale=ar;")
    for part in ("Max-Age=31536000", "HttpOnly", "SameSite=Lax", "Path=/"):
        assert part in cookie, cookie
    assert _lang(client) == 'lang="ar" dir="rtl"'
    assert "تسجيل الدخول" in client.get("/login").get_data(as_text=True)
    assert _switch(client, "es").status_code == 302 and _lang(client) == 'lang="es" dir="ltr"'


def test_the_redirect_stays_on_the_site_and_the_language_must_be_offered(review_app):
    client = review_app.test_client()
    for bad in ("https://evil.example/", "//evil.example/", "/\\evil.example", "/\t/evil.example", "", None):
        r = _switch(client, "es", bad)
        assert r.status_code == 302 and r.location == "/", (bad, r.location)
    r = _switch(client, "xx")
    assert r.status_code == 422 and "Set-Cookie" not in r.headers
    token = csrf_from(client.get("/login").get_data(as_text=True))
    assert client.post("/locale", data={"locale": "es"}).status_code == 400  # no CSRF token
    assert client.post("/locale", data={"locale": "es", "csrf_token": token}).status_code == 302


def test_signed_in_choice_is_stored_and_outlives_sign_out_and_other_browsers(review_app, sessions):
    ana = Browser(review_app).login("ana@example.org")
    r = _switch(ana.client, "es", "/account", page="/account")
    assert r.status_code == 302 and r.location == "/account"
    with sessions() as s:
        assert s.scalar(select(User.locale).where(User.email == "ana@example.org")) == "es"
    assert "Tu cuenta" in ana.get("/account").get_data(as_text=True)
    # signing out keeps the language on the sign-in page
    r = ana.client.post("/logout", data={"csrf_token": ana.token})
    assert "curator_locale=es" in r.headers["Set-Cookie"]
    page = ana.get("/login").get_data(as_text=True)
    assert 'lang="es"' in page and "Has cerrado la sesión. ¡Gracias!" in page
    # another browser, never switched: English until she signs in, then hers
    other = Browser(review_app)
    assert _lang(other.client) == 'lang="en" dir="ltr"'
    other.login("ana@example.org")
    assert _lang(other.client, "/account") == 'lang="es" dir="ltr"'
    assert other.client.get_cookie("curator_locale").value == "es"  # the sign-in set the cookie too
    # the stored choice wins over a browser's cookie while signed in
    bo = Browser(review_app)
    _switch(bo.client, "ar")
    bo.login("bo@example.org")
    assert _lang(bo.client, "/account") == 'lang="ar" dir="rtl"'
    _switch(ana.client, "en")  # signed out: only the cookie changes
    with sessions() as s:
        assert s.scalar(select(User.locale).where(User.email == "ana@example.org")) == "es"


def test_the_account_page_offers_the_choice(review_app):
    ana = Browser(review_app).login("ana@example.org")
    html = ana.get("/account").get_data(as_text=True)
    assert '<select name="locale">' in html and '<option value="en" lang="en" selected>' in html


def test_session_expiry_in_plain_words_and_back_to_the_same_page(review_app, sessions):
    from curator.core.models import LoginSession

    ana = Browser(review_app).login("ana@example.org")
    assert ana.get("/review/es/history").status_code == 200
    with sessions.begin() as s:  # the login session ends on the server (expired, or revoked elsewhere)
        for login in s.scalars(select(LoginSession)):
            s.delete(login)
    api = ana.get("/api/v1/me")
    assert api.status_code == 401 and api.get_json() == {"error": SIGNED_OUT, "code": "signed_out"}
    r = ana.get("/review/es/history?page=2")
    assert r.status_code == 302 and r.location.startswith("/login?next=")
    page = ana.client.get(r.location).get_data(as_text=True)
    assert SIGNED_OUT in page
    back = ana.client.post(
        r.location, data={"email": "ana@example.org", "password": PASSWORD, "csrf_token": csrf_from(page)}
    )
    assert back.status_code == 302 and back.location == "/review/es/history?page=2"
    # a first visit is simply sent to the sign-in page, without talk of a session
    fresh = review_app.test_client()
    r = fresh.get("/review/es")
    assert r.status_code == 302 and SIGNED_OUT not in fresh.get(r.location).get_data(as_text=True)


def test_session_expiry_message_in_the_visitors_language(review_app):
    client = review_app.test_client()
    client.set_cookie("curator_locale", "es")
    r = client.get("/api/v1/me")
    assert r.status_code == 401 and r.get_json()["code"] == "signed_out"
    assert r.get_json()["error"].startswith("Tu sesión ha terminado")


def test_error_pages_have_a_title_an_explanation_and_a_way_on(review_app):
    client = review_app.test_client()
    r = client.get("/no-such-page", headers={"Referer": "http://localhost/login"})
    html = r.get_data(as_text=True)
    assert r.status_code == 404 and "<title>Page not found — curator</title>" in html
    assert "<h1>Page not found</h1>" in html and "mistyped" in html
    assert 'href="/login"' in html and "Back to the previous page" in html
    assert "Back to the previous page" not in client.get(
        "/no-such-page", headers={"Referer": "https://evil.example/x"}
    ).get_data(as_text=True)
    ana = Browser(review_app).login("ana@example.org")
    r = ana.get("/admin/")
    html = r.get_data(as_text=True)
    assert r.status_code == 403 and "<h1>No access to this page</h1>" in html
    assert "Go to my languages" in html
    ana.client.set_cookie("curator_locale", "ar")  # her stored choice is none: the cookie decides
    html = ana.get("/admin/").get_data(as_text=True)
    assert 'dir="rtl"' in html and "لا يمكنك الوصول إلى هذه الصفحة" in html
    # JSON errors keep their shape
    r = ana.get("/api/v1/languages/zz/queue")
    assert r.is_json and set(r.get_json()) == {"error"}


def test_favicon(review_app):
    client = review_app.test_client()
    r = client.get("/favicon.ico")
    assert r.status_code == 301 and r.location == "/static/favicon.svg"
    icon = client.get("/static/favicon.svg")
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml" and b"<svg" in icon.data
    assert 'rel="icon" href="/static/favicon.svg" type="image/svg+xml"' in client.get("/login").get_data(as_text=True)

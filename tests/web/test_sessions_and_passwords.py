"""Login sessions on the server (sign-out and a password change revoke copied cookies), the
remember cookie's flags, CSRF with a junk Bearer header, common passwords and e-mail syntax."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

import pytest
from sqlalchemy import select

from curator.core.errors import InputError
from curator.core.models import LoginSession, User
from tests.plugins.databases import PASSWORD
from tests.plugins.servers import Browser, csrf_from

NEW_PASSWORD = "tawny owl fjord lantern"


def _sign_in(app, email="ana@example.org", password=PASSWORD, remember=False):
    client = app.test_client()
    token = csrf_from(client.get("/login").get_data(as_text=True))
    data = {"email": email, "password": password, "csrf_token": token, **({"remember": "1"} if remember else {})}
    response = client.post("/login", data=data)
    assert response.status_code == 302, response.get_data(as_text=True)
    return client, response


def _replay(app, name, value):
    """A fresh client holding only the copied cookie."""
    client = app.test_client()
    client.set_cookie(name, value)
    return client


def test_passwords_are_hashed_with_scrypt_outside_the_test_suite(review_app, db_url, sessions):
    """The suite hashes with a cheap method for speed (tests/conftest.py); this test keeps the
    real one end to end: `curator user create` in a fresh process stores a scrypt hash, that
    account signs in (and not with a wrong password), and so do the suite's cheap-hash accounts."""
    env = {**os.environ, "CURATOR_PASSWORD": NEW_PASSWORD}
    command = [sys.executable, "-m", "curator.cli", "--database", db_url, "user", "create", "sc@example.org"]
    created = subprocess.run([*command, "--language", "es"], env=env, capture_output=True, text=True)
    assert created.returncode == 0, created.stdout + created.stderr
    with sessions() as s:
        stored = dict(s.execute(select(User.email, User.password_hash)).all())
    assert stored["sc@example.org"].startswith("scrypt:32768:8:1$")
    assert stored["ana@example.org"].startswith("pbkdf2:sha256:1$")
    client, _ = _sign_in(review_app, "sc@example.org", NEW_PASSWORD)
    assert "Spanish" in client.get("/").get_data(as_text=True)
    _sign_in(review_app, "ana@example.org")
    stranger = review_app.test_client()
    token = csrf_from(stranger.get("/login").get_data(as_text=True))
    wrong = {"email": "sc@example.org", "password": PASSWORD, "csrf_token": token}
    assert stranger.post("/login", data=wrong).status_code != 302


def test_remember_cookie_flags(review_app):
    _, response = _sign_in(review_app, remember=True)
    remember = next(c for c in response.headers.getlist("Set-Cookie") if c.startswith("remember_token="))
    assert "HttpOnly" in remember and "SameSite=Lax" in remember and "Secure" not in remember
    expires = parsedate_to_datetime(re.search(r"Expires=([^;]+)", remember).group(1))
    # the cookie lives as long as a sign-in may (CURATOR_SESSION_LIFETIME, 30 days), not a year; the
    # idle limit (CURATOR_REMEMBER_DAYS) is the server's (tests/web/test_session_lifetime.py)
    assert timedelta(days=29, hours=23) < expires - datetime.now(UTC) <= timedelta(days=30)


def test_secure_cookies_setting_covers_the_remember_cookie(db_url, tmp_path):
    from curator.core.settings import Settings

    settings = Settings.from_env(
        {"CURATOR_SECURE_COOKIES": "1", "CURATOR_SESSION_LIFETIME": "2"}, database_url=db_url, instance_path=tmp_path
    )
    config = settings.flask_config()
    assert config["REMEMBER_COOKIE_SECURE"] and config["SESSION_COOKIE_SECURE"]
    assert config["REMEMBER_COOKIE_SAMESITE"] == "Lax" and config["REMEMBER_COOKIE_HTTPONLY"]
    assert config["REMEMBER_COOKIE_DURATION"].days == 2


def test_sign_out_revokes_the_session_and_remember_cookies(review_app, sessions):
    client, _ = _sign_in(review_app, remember=True)
    session_cookie = client.get_cookie("session").value
    remember_cookie = client.get_cookie("remember_token").value
    assert _replay(review_app, "session", session_cookie).get("/api/v1/me").status_code == 200
    assert _replay(review_app, "remember_token", remember_cookie).get("/api/v1/me").status_code == 200
    token = csrf_from(client.get("/").get_data(as_text=True))
    assert client.post("/logout", data={"csrf_token": token}).status_code == 302
    for name, value in (("session", session_cookie), ("remember_token", remember_cookie)):
        replayed = _replay(review_app, name, value)
        assert replayed.get("/api/v1/me").status_code == 401, name
        page = replayed.get("/review/es")
        assert page.status_code == 302 and "/login" in page.headers["Location"], name
    with sessions() as s:
        assert s.scalar(select(LoginSession.revoked_at)) is not None


def test_password_change_revokes_every_sign_in(review_app, sessions):
    other, _ = _sign_in(review_app, remember=True)  # another browser
    stolen = other.get_cookie("remember_token").value
    me, _ = _sign_in(review_app)
    page = me.get("/account")
    assert page.status_code == 200
    token = csrf_from(page.get_data(as_text=True))
    wrong = me.post(
        "/account", data={"csrf_token": token, "current": "not it", "password": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )
    assert wrong.status_code == 422 and other.get("/api/v1/me").status_code == 200
    common = me.post(
        "/account", data={"csrf_token": token, "current": PASSWORD, "password": "iloveyou1", "password2": "iloveyou1"}
    )
    assert common.status_code == 422 and "most common" in common.get_data(as_text=True)
    ok = me.post(
        "/account", data={"csrf_token": token, "current": PASSWORD, "password": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )
    assert ok.status_code == 302
    assert me.get("/api/v1/me").status_code == 200  # this browser got a fresh session
    assert other.get("/api/v1/me").status_code == 401
    assert _replay(review_app, "remember_token", stolen).get("/api/v1/me").status_code == 401
    Browser(review_app).login("ana@example.org", NEW_PASSWORD)


def test_cli_password_reset_revokes_sessions(review_app, cli, monkeypatch):
    client, _ = _sign_in(review_app)
    monkeypatch.setenv("CURATOR_PASSWORD", NEW_PASSWORD)
    cli("user", "password", "ana@example.org")
    assert client.get("/api/v1/me").status_code == 401
    Browser(review_app).login("ana@example.org", NEW_PASSWORD)
    monkeypatch.setenv("CURATOR_PASSWORD", "password123")
    assert "most common" in cli("user", "password", "ana@example.org", ok=False).output


def _bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_password_change_on_the_account_page_revokes_the_api_token(review_app, cli):
    token = cli("user", "token", "ana@example.org").output.strip()
    script = review_app.test_client()
    assert script.get("/api/v1/me", headers=_bearer(token)).status_code == 200
    me, _ = _sign_in(review_app)
    csrf = csrf_from(me.get("/account").get_data(as_text=True))
    wrong = me.post(
        "/account", data={"csrf_token": csrf, "current": "not it", "password": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )
    assert wrong.status_code == 422
    assert script.get("/api/v1/me", headers=_bearer(token)).status_code == 200  # a refused change revokes nothing
    ok = me.post(
        "/account", data={"csrf_token": csrf, "current": PASSWORD, "password": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )
    assert ok.status_code == 302
    r = script.get("/api/v1/me", headers=_bearer(token))
    assert r.status_code == 401 and r.get_json()["code"] == "signed_out"
    fresh = cli("user", "token", "ana@example.org").output.strip()  # a new one works
    assert script.get("/api/v1/me", headers=_bearer(fresh)).status_code == 200


def test_cli_password_reset_revokes_the_api_token(review_app, cli, sessions, monkeypatch):
    token = cli("user", "token", "ana@example.org").output.strip()
    bo_token = cli("user", "token", "bo@example.org").output.strip()
    script = review_app.test_client()
    assert script.get("/api/v1/me", headers=_bearer(token)).status_code == 200
    monkeypatch.setenv("CURATOR_PASSWORD", NEW_PASSWORD)
    assert "API token" in cli("user", "password", "ana@example.org").output
    assert script.get("/api/v1/me", headers=_bearer(token)).status_code == 401
    assert script.get("/api/v1/me", headers=_bearer(bo_token)).status_code == 200  # another account's stays
    with sessions() as s:
        assert s.scalar(select(User.api_token_hash).where(User.email == "ana@example.org")) is None


def test_deactivation_signs_out_and_revokes_the_api_token(review_app, cli):
    token = cli("user", "token", "ana@example.org").output.strip()
    browser, _ = _sign_in(review_app, remember=True)
    remember = browser.get_cookie("remember_token").value
    script = review_app.test_client()
    assert script.get("/api/v1/me", headers=_bearer(token)).status_code == 200
    cli("user", "deactivate", "ana@example.org")
    assert script.get("/api/v1/me", headers=_bearer(token)).status_code == 401
    assert browser.get("/api/v1/me").status_code == 401
    client = review_app.test_client()
    r = client.post(
        "/login",
        data={
            "email": "ana@example.org",
            "password": PASSWORD,
            "csrf_token": csrf_from(client.get("/login").get_data(as_text=True)),
        },
    )
    assert r.status_code == 403 and "deactivated" in r.get_data(as_text=True)  # cannot sign in again
    assert "deactivated" in cli("user", "token", "ana@example.org", ok=False).output  # nor get a token
    cli("user", "deactivate", "--undo", "ana@example.org")
    # reactivated: the password works again, but neither the old token nor the old cookies do
    assert script.get("/api/v1/me", headers=_bearer(token)).status_code == 401
    assert _replay(review_app, "remember_token", remember).get("/api/v1/me").status_code == 401
    _sign_in(review_app)
    assert "no user" in cli("user", "deactivate", "nobody@example.org", ok=False).output


def test_a_token_opens_the_json_api_only(review_app, cli, sessions):
    """A leaked maintainer's token must not drive the pages and their forms: a page sent with a
    token has no session (the sign-in redirect), and a form POST with a token still needs its
    CSRF token (no invitation made); the JSON API answers the token as before."""
    from curator.core.models import Invite

    token = cli("user", "token", "boss@example.org").output.strip()
    script = review_app.test_client()
    assert script.get("/api/v1/me", headers=_bearer(token)).get_json()["role"] == "maintainer"
    for path in ("/", "/admin/", "/admin/reviewers", "/account"):
        r = script.get(path, headers=_bearer(token))
        assert r.status_code == 302 and "/login" in r.headers["Location"], path
    r = script.post(
        "/admin/reviewers", data={"languages": "es", "email": "mallory@example.org"}, headers=_bearer(token)
    )
    assert r.status_code == 400 and "CSRF" in r.get_data(as_text=True)
    # even with a CSRF token the form is not the token's: no session, so the sign-in redirect
    csrf = csrf_from(script.get("/login").get_data(as_text=True))
    r = script.post(
        "/admin/reviewers",
        data={"languages": "es", "email": "mallory@example.org", "csrf_token": csrf},
        headers=_bearer(token),
    )
    assert r.status_code == 302 and "/login" in r.headers["Location"]
    with sessions() as s:
        assert s.scalar(select(Invite).where(Invite.email == "mallory@example.org")) is None
    ana_token = cli("user", "token", "ana@example.org").output.strip()
    item = script.get("/api/v1/languages/es/queue", headers=_bearer(ana_token)).get_json()["items"][0]["id"]
    r = script.post(
        f"/api/v1/languages/es/items/{item}/decision", json={"decision": "accept"}, headers=_bearer(ana_token)
    )
    assert r.status_code == 201 and r.get_json()["decision"]["source"] == "api"


def test_old_cookie_without_login_session_is_refused(review_app):
    """A session cookie that names only a user id (forged with the key, or from before login
    sessions) signs nobody in."""
    client = review_app.test_client()
    with client.session_transaction() as flask_session:
        flask_session["_user_id"] = "2"
        flask_session["_fresh"] = True
    assert client.get("/api/v1/me").status_code == 401


def test_deactivated_user_is_signed_out(review_app, sessions):
    client, _ = _sign_in(review_app, remember=True)
    with sessions.begin() as s:
        s.scalar(select(User).where(User.email == "ana@example.org")).active = False
    assert client.get("/api/v1/me").status_code == 401


def test_junk_bearer_header_does_not_lift_csrf(review_app, cli):
    ana = Browser(review_app).login("ana@example.org")
    item = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["id"]
    url = f"/api/v1/languages/es/items/{item}/decision"
    r = ana.client.post(url, json={"decision": "accept"}, headers={"Authorization": "Bearer junk"})
    assert r.status_code == 400 and "CSRF" in r.get_json()["error"]
    r = ana.client.post("/logout", headers={"Authorization": "Bearer junk"})
    assert r.status_code == 400
    # a valid token of someone else beside the cookie: still a cookie request, still needs CSRF
    bo_token = cli("user", "token", "bo@example.org").output.strip()
    r = ana.client.post(url, json={"decision": "accept"}, headers={"Authorization": f"Bearer {bo_token}"})
    assert r.status_code == 400
    # a token alone (no cookie) needs none, and is recorded as from the API
    script = review_app.test_client()
    ana_token = cli("user", "token", "ana@example.org").output.strip()
    r = script.post(url, json={"decision": "accept"}, headers={"Authorization": f"Bearer {ana_token}"})
    assert r.status_code == 201 and r.get_json()["decision"]["source"] == "api"


@pytest.mark.parametrize("password", ["password", "12345678", "Password1", "iloveyou1", "qwertyuiop", "  Baseball "])
def test_common_passwords_are_refused(sessions, password):
    from curator.review.accounts import check_password_strength, create_user

    with pytest.raises(InputError, match=r"most common|at least"):
        check_password_strength(password)
    with sessions() as s, pytest.raises(InputError):
        create_user(s, "new@example.org", password)
    check_password_strength(PASSWORD)
    check_password_strength("curator-demo")  # the demo accounts' default stays allowed


def test_common_password_list_ships_as_package_data():
    import tomllib
    from pathlib import Path

    from curator.review.accounts import common_passwords

    assert len(common_passwords()) > 3000 and "password" in common_passwords()
    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert "review/common_passwords.txt" in pyproject["tool"]["setuptools"]["package-data"]["curator"]


BAD_EMAILS = [
    "no-at-sign",
    "a@b",
    "two@@example.org",
    "<script>@example.org",
    "ana@exa mple.org",
    "ana@example..org",
    "x" * 330 + "@example.org",
    "ana@-example.org",
]


@pytest.mark.parametrize("email", BAD_EMAILS)
def test_bad_emails_are_refused_everywhere(review_app, sessions, cli, email):
    from curator.review.accounts import create_user
    from curator.review.invitations import create_invite

    with sessions() as s:
        with pytest.raises(InputError):
            create_user(s, email, PASSWORD)
        with pytest.raises(InputError):
            create_invite(s, ["es"], email=email)
    assert cli("user", "invite", "--language", "es", "--email", email, ok=False).exit_code != 0
    boss = Browser(review_app).login("boss@example.org")
    token = csrf_from(boss.get("/admin/reviewers").get_data(as_text=True))
    r = boss.client.post("/admin/reviewers", data={"csrf_token": token, "languages": ["es"], "email": email})
    assert r.status_code == 422 and "/invite/" not in r.get_data(as_text=True)
    link = cli("user", "invite", "--language", "el").output.strip()
    path = link[link.index("/invite/") :]
    client = review_app.test_client()
    token = csrf_from(client.get(path).get_data(as_text=True))
    r = client.post(
        path, data={"csrf_token": token, "email": email, "password": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )
    assert r.status_code == 422
    with sessions() as s:
        assert s.scalar(select(User).where(User.email == email)) is None

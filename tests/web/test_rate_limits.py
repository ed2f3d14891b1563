"""Sign-in and invitation rate limits (web/limits.py): per submitted e-mail and per client
address, 429 with Retry-After, JSON under /api/ and the error page elsewhere; the address is
the real client only when CURATOR_PROXY_FIX trusts a proxy."""

from __future__ import annotations

import time
import types

import pytest

from curator.web import create_app
from tests.plugins.databases import PASSWORD
from tests.plugins.servers import csrf_from


@pytest.fixture
def limited(review_app, db_url, tmp_path):
    """The seeded database behind an app with the default limits on (review_app turns them off)."""

    def make(**config):
        return create_app(
            {
                "DATABASE_URL": db_url,
                "SECRET_KEY": "test-secret",
                "RUNS_DIR": str(tmp_path / "runs"),
                "RATELIMIT_ENABLED": True,
                **config,
            }
        )

    return make


@pytest.fixture
def clock(monkeypatch):
    """Move the limit storage's clock forward (the windows are wall-clock time)."""
    import limits.storage.memory as memory

    offset = [0.0]
    fake = types.SimpleNamespace(**{name: getattr(time, name) for name in dir(time) if not name.startswith("_")})
    fake.time = lambda: time.time() + offset[0]
    monkeypatch.setattr(memory, "time", fake)
    return offset


def _attempt(client, email, password, headers=None):
    token = csrf_from(client.get("/login").get_data(as_text=True))
    return client.post(
        "/login", data={"email": email, "password": password, "csrf_token": token}, headers=headers or {}
    )


def test_guessing_one_accounts_password_is_stopped(limited, clock):
    app = limited()
    client = app.test_client()
    statuses = [_attempt(client, "ana@example.org", f"guess {i}").status_code for i in range(40)]
    assert statuses[:10] == [401] * 10  # 10/minute per account
    assert set(statuses[10:]) == {429}  # refused early: no password is checked any more
    refused = _attempt(client, "ana@example.org", PASSWORD)  # even the right one, until the window passes
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    page = refused.get_data(as_text=True)
    assert "text/html" in refused.content_type and "Too many attempts (10 per 1 minute)" in page
    assert app.test_client().get("/api/v1/me").status_code == 401
    clock[0] += 61
    assert _attempt(client, "ana@example.org", PASSWORD).status_code == 302


def test_the_account_limit_holds_across_addresses(limited):
    client = limited().test_client()
    for i in range(10):
        r = _attempt(client, "Ana@Example.org ", "wrong", {"X-Forwarded-For": f"198.51.100.{i}"})
        assert r.status_code == 401
    # a new address (and another spelling of the e-mail) does not start over
    r = client.post(
        "/login",
        data={
            "email": "ana@example.org",
            "password": PASSWORD,
            "csrf_token": csrf_from(client.get("/login").get_data(as_text=True)),
        },
        environ_base={"REMOTE_ADDR": "203.0.113.9"},
    )
    assert r.status_code == 429
    assert _attempt(client, "bo@example.org", PASSWORD).status_code == 302  # another account is not affected


def test_one_address_trying_many_accounts_is_stopped(limited):
    client = limited().test_client()
    statuses = [_attempt(client, f"user{i}@example.org", "wrong").status_code for i in range(31)]
    assert statuses[:30] == [401] * 30 and statuses[30] == 429  # 30/minute per address
    other = limited().test_client()  # a fresh app's storage: counts are per app (per process)
    assert _attempt(other, "ana@example.org", PASSWORD).status_code == 302


def test_proxy_fix_takes_the_client_address_from_the_trusted_proxy(limited):
    app = limited(PROXY_FIX=1, RATELIMIT_ADDRESS="3/minute")
    client = app.test_client()
    for n in range(3):
        assert _attempt(client, f"a{n}@example.org", "wrong", {"X-Forwarded-For": "203.0.113.1"}).status_code == 401
    assert _attempt(client, "b@example.org", "wrong", {"X-Forwarded-For": "203.0.113.1"}).status_code == 429
    assert _attempt(client, "b@example.org", "wrong", {"X-Forwarded-For": "203.0.113.2"}).status_code == 401
    # without ProxyFix the header is ignored: a forged X-Forwarded-For does not buy new attempts
    client = limited(RATELIMIT_ADDRESS="3/minute").test_client()
    statuses = [
        _attempt(client, f"c{n}@example.org", "wrong", {"X-Forwarded-For": f"203.0.113.{n}"}).status_code
        for n in range(4)
    ]
    assert statuses == [401, 401, 401, 429]


def test_invitation_attempts_are_limited_per_link(limited, cli):
    app = limited(RATELIMIT_ACCOUNT="3/minute")
    link = cli("user", "invite", "--language", "el").output.strip()
    path = link[link.index("/invite/") :]
    client = app.test_client()
    token = csrf_from(client.get(path).get_data(as_text=True))
    form = {"csrf_token": token, "email": "new@example.org", "password": "short", "password2": "short"}
    assert [client.post(path, data=form).status_code for _ in range(4)] == [422, 422, 422, 429]
    assert client.get(path).status_code == 200  # reading the page is not limited


def _change_password(client, current, new, address):
    token = csrf_from(client.get("/account").get_data(as_text=True))
    return client.post(
        "/account",
        data={"csrf_token": token, "current": current, "password": new, "password2": new},
        environ_base={"REMOTE_ADDR": address},
    )


def _signed_in(app, email):
    client = app.test_client()
    assert _attempt(client, email, PASSWORD).status_code == 302
    return client


def test_password_changes_on_the_account_page_are_limited(limited, clock):
    """Someone at an unattended signed-in browser guessing its password (to change it): every
    password-change POST counts, per account and per address (5/minute by default), before the
    view runs; past the limit even the right one waits."""
    app = limited()
    ana, bo = _signed_in(app, "ana@example.org"), _signed_in(app, "bo@example.org")
    new = "tawny owl fjord lantern"
    assert _change_password(ana, PASSWORD, "iloveyou1", "192.0.2.1").status_code == 422  # a common new one: counted too
    statuses = [_change_password(ana, f"guess {i}", new, "192.0.2.1").status_code for i in range(6)]
    assert statuses == [422] * 4 + [429] * 2
    refused = _change_password(ana, PASSWORD, new, "192.0.2.2")  # the account's limit: another address too
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert "text/html" in refused.content_type and "Too many attempts" in refused.get_data(as_text=True)
    assert (
        _change_password(bo, "wrong", new, "192.0.2.3").status_code == 422
    )  # another account elsewhere: counted apart
    assert _change_password(bo, PASSWORD, new, "192.0.2.1").status_code == 429  # the address's limit
    assert ana.get("/account").status_code == 200  # the page itself is not limited
    clock[0] += 61
    assert _change_password(ana, PASSWORD, new, "192.0.2.1").status_code == 302


def test_parallel_password_guesses_stop_at_the_limit(limited):
    """Guesses sent at once: each is counted before its view runs, so exactly the limit gets
    through (a count taken after the view let a burst of 16 pass 8, with a limit of 5)."""
    from concurrent.futures import ThreadPoolExecutor

    from curator.web.testing import LiveServer

    app = limited()
    with LiveServer(app) as server:
        import requests

        session = requests.Session()
        login = session.get(f"{server.url}/login").text
        assert (
            session.post(
                f"{server.url}/login",
                data={"email": "ana@example.org", "password": PASSWORD, "csrf_token": csrf_from(login)},
            ).status_code
            == 200
        )
        token = csrf_from(session.get(f"{server.url}/account").text)

        def guess(i):
            return session.post(
                f"{server.url}/account",
                data={"csrf_token": token, "current": f"guess {i}", "password": "x" * 20, "password2": "x" * 20},
                allow_redirects=False,
            ).status_code

        with ThreadPoolExecutor(16) as pool:
            statuses = sorted(pool.map(guess, range(16)))
    assert statuses == [422] * 5 + [429] * 11


def test_refused_api_tokens_are_limited_per_address(limited, cli, clock):
    """Guessing tokens: refused `Authorization: Bearer` calls count per client address (10/minute
    by default), counted before the view, answered 429 in JSON; accepted tokens and cookie calls
    are never counted nor limited."""
    app = limited()
    token = cli("user", "token", "ana@example.org").output.strip()
    script = app.test_client()

    def me(bearer, address="192.0.2.1"):
        return script.get(
            "/api/v1/me", headers={"Authorization": f"Bearer {bearer}"}, environ_base={"REMOTE_ADDR": address}
        )

    def undo(bearer, address="192.0.2.1"):
        return script.post(
            "/api/v1/languages/es/undo",
            json={},
            headers={"Authorization": f"Bearer {bearer}"},
            environ_base={"REMOTE_ADDR": address},
        )

    assert all(me(token, "192.0.2.9").status_code == 200 for _ in range(15))  # a working script is never limited
    # a POST counts too: a refused token is a 401 like on a GET (not the CSRF check's 400 first)
    statuses = [(me if i % 2 else undo)(f"cur_guess{i}").status_code for i in range(12)]
    assert statuses == [401] * 10 + [429] * 2
    refused = me("cur_guess-next")
    assert refused.status_code == 429 and refused.is_json and int(refused.headers["Retry-After"]) > 0
    assert refused.get_json()["error"].startswith("Too many attempts")
    assert undo("cur_guess-post").status_code == 429  # one count across the API's endpoints
    # the right token from that address still works: a guesser sharing a script's address (NAT, a
    # CI runner) cannot lock the script out, and a 256-bit token is not found by 10 guesses a minute
    assert me(token).status_code == 200 and undo(token).status_code in (200, 404, 409)
    assert me("cur_guess-other", "192.0.2.2").status_code == 401  # another address counts on its own
    browser = app.test_client()  # a cookie session from the same address, no token: not limited
    assert _attempt(browser, "bo@example.org", PASSWORD).status_code == 302
    assert browser.get("/api/v1/me", environ_base={"REMOTE_ADDR": "192.0.2.1"}).status_code == 200
    clock[0] += 61
    assert me(token).status_code == 200


def test_a_429_under_api_is_json(limited):
    """The limits sit on the form endpoints; the error handler answers JSON for /api/ paths."""
    from flask_limiter.errors import RateLimitExceeded  # noqa: F401 (the class the handler maps)

    app = limited()

    @app.get("/api/v1/_limited_probe")
    def _probe():
        from werkzeug.exceptions import TooManyRequests

        raise TooManyRequests()

    r = app.test_client().get("/api/v1/_limited_probe")
    assert r.status_code == 429 and r.is_json and r.get_json()["error"].startswith("Too many attempts")


def test_settings_read_the_limits(tmp_path):
    from curator.core.settings import Settings

    settings = Settings.from_env(
        {
            "CURATOR_RATELIMIT_STORAGE": "redis://cache:6379",
            "CURATOR_PROXY_FIX": "2",
            "CURATOR_RATELIMIT_ENABLED": "0",
            "CURATOR_RATELIMIT_ACCOUNT": "5/minute",
        },
        instance_path=tmp_path,
    )
    config = settings.flask_config()  # what Flask-Limiter reads itself
    assert config["RATELIMIT_STORAGE_URI"] == "redis://cache:6379" and config["RATELIMIT_ENABLED"] is False
    assert settings.proxy_fix == 2 and settings.ratelimit_account == "5/minute"
    assert Settings.from_env({}, instance_path=tmp_path).flask_config()["RATELIMIT_STORAGE_URI"] == "memory://"
    settings = Settings.from_env(
        {"CURATOR_RATELIMIT_PASSWORD": "3/minute", "CURATOR_RATELIMIT_TOKEN": "4/hour"}, instance_path=tmp_path
    )
    assert settings.ratelimit_password == "3/minute" and settings.ratelimit_token == "4/hour"
    defaults = Settings.from_env({}, instance_path=tmp_path)
    assert defaults.ratelimit_password == "5/minute;20/hour" and defaults.ratelimit_token == "10/minute;50/hour"


def test_every_api_route_limits_refused_tokens(limited):
    """Every route under /api/ counts refused Bearer tokens, whatever blueprint it lives in (the
    adjudication and glossary routes were left out when endpoints were chosen by the `api.` name):
    the URL map is walked, so a new /api/ route cannot be forgotten."""
    from werkzeug.routing import IntegerConverter

    app = limited(RATELIMIT_TOKEN="1/minute")
    client = app.test_client()
    guess = {"Authorization": "Bearer cur_guess"}
    assert client.get("/api/v1/me", headers=guess).status_code == 401
    assert client.get("/api/v1/me", headers=guess).status_code == 429  # the address's one attempt is spent
    checked = []
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        values = {name: 1 if isinstance(rule._converters[name], IntegerConverter) else "es" for name in rule.arguments}
        path = rule.build(values)[1]
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            r = client.open(path, method=method, json={} if method != "GET" else None, headers=guess)
            assert r.status_code == 429 and r.is_json, (rule.endpoint, method, path, r.status_code)
            checked.append(rule.endpoint)
    assert {"adjudication.api_disagreements", "adjudication.api_resolve", "glossary.item_terms"} <= set(checked)

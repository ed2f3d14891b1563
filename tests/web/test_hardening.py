"""Issue 38 §2, the hardening a security review asks for (ASVS L2): Secure cookies when the app
is told it is behind HTTPS (else a warning on a public bind), `serve --dev` and weak secret keys
refused beyond loopback, links never from a forged Host.

(`Cache-Control: no-store` is checked over the whole route table in test_route_security.py;
session lifetimes in test_session_lifetime.py; the rate-limit store in test_rate_limits.py.)
"""

from __future__ import annotations

import pytest

from curator.web.testing import ServeProcess
from tests.plugins.servers import Browser
from tests.web.test_serve_config import serve

STRONG = "k7Qz2vX9pL4mN8rT1wY6bH3jF5sD0gAe"  # 32 characters, many different


def _cookies(app, remember: bool = True) -> list[str]:
    from tests.plugins.databases import PASSWORD
    from tests.plugins.servers import csrf_from

    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    data = {"email": "ana@example.org", "password": PASSWORD, "csrf_token": csrf_from(page)}
    r = client.post("/login", data={**data, "remember": "1"} if remember else data)
    assert r.status_code == 302
    return r.headers.getlist("Set-Cookie")


def test_cookies_are_secure_when_the_base_url_is_https(review_app, db_url, tmp_path):
    from curator.web import create_app

    plain = _cookies(review_app)
    assert plain and not any("Secure" in c for c in plain)  # http: as before
    app = create_app(
        {
            "DATABASE_URL": db_url,
            "SECRET_KEY": "test-secret",
            "RUNS_DIR": str(tmp_path / "runs"),
            "RATELIMIT_ENABLED": False,
            "BASE_URL": "https://review.example.org",
        }
    )
    cookies = _cookies(app)
    names = {c.split("=", 1)[0] for c in cookies}
    assert {"session", "remember_token"} <= names, names
    assert all("Secure" in c for c in cookies), cookies


def test_the_public_bind_warning(db_url, tmp_path):
    from curator.core.settings import Settings
    from curator.web.preflight import cookie_warning

    plain = Settings.from_env({}, database_url=db_url, instance_path=tmp_path)
    assert cookie_warning(plain, "127.0.0.1") is None and cookie_warning(plain, "localhost") is None
    assert cookie_warning(plain, "0.0.0.0").startswith("Warning: the server listens on 0.0.0.0")  # type: ignore[union-attr]
    for env in ({"CURATOR_BASE_URL": "https://review.example.org"}, {"CURATOR_SECURE_COOKIES": "1"}):
        assert cookie_warning(Settings.from_env(env, database_url=db_url, instance_path=tmp_path), "0.0.0.0") is None


def test_serve_on_a_public_host_without_https_warns_in_one_line(engine, db_url):
    with ServeProcess(db_url, "--host", "0.0.0.0", "--workers", "1", env={"CURATOR_SECRET_KEY": STRONG}) as proc:
        log = proc.read_log()
    warnings = [line for line in log.splitlines() if line.startswith("Warning:")]
    assert len(warnings) == 1 and "cookies are not Secure" in warnings[0], log


def test_dev_server_refuses_a_public_host(engine, db_url):
    code, lines = serve(db_url, "--dev", "--host", "0.0.0.0")
    assert code == 1
    assert len(lines) == 1 and lines[0].startswith("Error: --dev: the debugger runs any code sent to it"), lines


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("changeme", "a well-known example key"),
        ("x" * 40, "too few different characters"),
        ("abc123", "shorter than 32"),
    ],
)
def test_a_weak_secret_key_is_refused_beyond_loopback(engine, db_url, key, reason):
    code, lines = serve(db_url, "--host", "0.0.0.0", env={"CURATOR_SECRET_KEY": key})
    assert code == 1
    assert len(lines) == 1 and lines[0].startswith(f"Error: CURATOR_SECRET_KEY: {reason}"), lines
    assert key not in lines[0]  # the key itself is never printed


def test_a_weak_secret_key_is_fine_on_loopback(db_url, tmp_path):
    from dataclasses import replace

    from curator.core.settings import Settings
    from curator.web.preflight import check_key_strength

    settings = replace(Settings.from_env({}, database_url=db_url, instance_path=tmp_path), secret_key="changeme")
    check_key_strength(settings, "127.0.0.1")  # a laptop, the tests: any key
    check_key_strength(replace(settings, secret_key=STRONG), "0.0.0.0")


def test_no_link_is_built_from_a_forged_host(review_app):
    """Already fixed in issue 37 (links from CURATOR_BASE_URL; e-mails: test_forgot_password and
    test_mention_mail_fixes): the maintainer's invitation page under `Host: evil.example` too."""
    boss = Browser(review_app).login("boss@example.org")
    boss.client.environ_base["HTTP_HOST"] = "evil.example"
    r = boss.client.post(
        "/admin/reviewers",
        data={"email": "new@example.org", "languages": "es", "csrf_token": boss.token},
        follow_redirects=True,
    )
    page = r.get_data(as_text=True)
    assert r.status_code == 200 and "/invite/" in page
    assert "evil.example" not in page

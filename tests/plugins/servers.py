"""Live HTTP: the review app (`review_app`, its Flask test client `Browser`), the app served on a
real port (`live`), and a folder served over HTTP (`http_root`)."""

from __future__ import annotations

import functools
import http.server
import re
import threading
from pathlib import Path

import pytest

from tests.plugins.databases import PASSWORD


def csrf_from(html: str) -> str:
    match = re.search(r'name="csrf-token" content="([^"]+)"', html) or re.search(
        r'name="csrf_token" value="([^"]+)"', html
    )
    assert match, "no CSRF token in page"
    return match.group(1)


class Browser:
    """A Flask test client that signs in like a person and calls the JSON API like the page."""

    def __init__(self, app):
        self.client = app.test_client()
        self.token = None

    def login(self, email: str, password: str = PASSWORD):
        page = self.client.get("/login").get_data(as_text=True)
        response = self.client.post(
            "/login", data={"email": email, "password": password, "csrf_token": csrf_from(page)}
        )
        assert response.status_code == 302, response.get_data(as_text=True)
        self.token = csrf_from(self.client.get("/", follow_redirects=True).get_data(as_text=True))
        return self

    def get(self, path: str):
        return self.client.get(path)

    def post(self, path: str, json=None, headers=None):
        return self.client.post(
            path, json=json if json is not None else {}, headers={"X-CSRFToken": self.token or "", **(headers or {})}
        )


@pytest.fixture
def review_app(cli, db_url, sessions, tmp_path):
    """The seeded app with a maintainer and two Spanish reviewers (one also Arabic) and a Greek
    one: `db_url` is already a copy of the seeded template (seed_review_database)."""
    from curator.web import create_app

    # an empty runs folder of its own: a developer's instance/runs must not reach the tests
    # RATELIMIT_ENABLED: tests sign in often; tests/web/test_rate_limits.py turns the limits on
    return create_app(
        {
            "DATABASE_URL": db_url,
            "SECRET_KEY": "test-secret",
            "RUNS_DIR": str(tmp_path / "runs"),
            "RATELIMIT_ENABLED": False,
        }
    )


@pytest.fixture
def http_root():
    """Serve a folder over real HTTP on localhost: yields a function folder -> base URL."""
    servers = []

    def serve(folder: Path) -> str:
        handler = functools.partial(_QuietHandler, directory=str(folder))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


# live server URL -> its accounts' storage states, while it runs on a copy of browser_template
SIGNED_IN: dict[str, dict[str, dict]] = {}


def signed_in_state(base: str, email: str) -> dict | None:
    """The storage state of a browser signed in as `email` on the live server at `base`, or None
    (then sign in through the form)."""
    return SIGNED_IN.get(base, {}).get(email)


@pytest.fixture
def live(review_app, request):
    from curator.web.testing import LiveServer

    with LiveServer(review_app) as server:
        copied = "chromium" in request.fixturenames and request.getfixturevalue("db_backend") == "sqlite"
        if copied:
            SIGNED_IN[server.url] = request.getfixturevalue("browser_template").states
        yield server
        SIGNED_IN.pop(server.url, None)

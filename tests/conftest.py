"""Shared fixtures: real SQLite files migrated through Alembic, the CLI, the real data."""
from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from curator.cli import main
from curator.core.db import make_engine, make_session_factory
from curator.core.migrate import upgrade

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
SEED = ROOT / "curator" / "demo" / "data"


def need_shared() -> Path:
    if not (SHARED_DATA / "pararel" / "patterns").is_dir():
        pytest.skip(f"real data not found at {SHARED_DATA} (../shared beside the checkout)")
    return SHARED_DATA


@pytest.fixture
def shared_data() -> Path:
    return need_shared()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'curator.sqlite'}"


@pytest.fixture
def engine(db_url: str):
    engine = make_engine(db_url)
    upgrade(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def sessions(engine):
    return make_session_factory(engine)


class Cli:
    """Runs `curator --database URL …` in-process and returns the click result."""

    def __init__(self, url: str):
        self.url = url
        self.runner = CliRunner()

    def __call__(self, *args: str, ok: bool = True):
        result = self.runner.invoke(main, ["--database", self.url, *map(str, args)], catch_exceptions=False)
        if ok:
            assert result.exit_code == 0, result.output
        return result


@pytest.fixture
def cli(db_url: str) -> Cli:
    return Cli(db_url)


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


def table_snapshot(engine) -> dict[str, list[tuple]]:
    """Every row of every table, for 'nothing changed' assertions."""
    from sqlalchemy import inspect, text

    with engine.connect() as conn:
        return {name: sorted(map(tuple, conn.execute(text(f'SELECT * FROM "{name}"'))), key=repr)
                for name in inspect(conn).get_table_names()}


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------- review app helpers
import re  # noqa: E402

PASSWORD = "correct horse battery"


def csrf_from(html: str) -> str:
    match = re.search(r'name="csrf-token" content="([^"]+)"', html) or re.search(
        r'name="csrf_token" value="([^"]+)"', html)
    assert match, "no CSRF token in page"
    return match.group(1)


def review_sample(sessions, email: str, lang: str) -> list[tuple[int, str, str]]:
    """(item id, relation, template text) of a reviewer's assignment, in review order."""
    from sqlalchemy import select

    from curator.core.models import Assignment, AssignmentItem, Template, User

    with sessions() as s:
        return s.execute(select(AssignmentItem.id, AssignmentItem.relation_id, Template.text)
                         .join(Template, Template.id == AssignmentItem.template_id)
                         .join(Assignment).join(User)
                         .where(User.email == email, Assignment.language == lang)
                         .order_by(AssignmentItem.position)).all()


class Browser:
    """A Flask test client that signs in like a person and calls the JSON API like the page."""

    def __init__(self, app):
        self.client = app.test_client()
        self.token = None

    def login(self, email: str, password: str = PASSWORD):
        page = self.client.get("/login").get_data(as_text=True)
        response = self.client.post("/login", data={"email": email, "password": password,
                                                    "csrf_token": csrf_from(page)})
        assert response.status_code == 302, response.get_data(as_text=True)
        self.token = csrf_from(self.client.get("/", follow_redirects=True).get_data(as_text=True))
        return self

    def get(self, path: str):
        return self.client.get(path)

    def post(self, path: str, json=None, headers=None):
        return self.client.post(path, json=json if json is not None else {},
                                headers={"X-CSRFToken": self.token or "", **(headers or {})})


@pytest.fixture
def review_app(cli, db_url, sessions, tmp_path):
    """The seeded app with a maintainer and two Spanish reviewers (one also Arabic)."""
    from curator.web import create_app
    from curator.review.accounts import create_user
    from curator.review.sampling import assign

    cli("seed")
    with sessions.begin() as s:
        create_user(s, "boss@example.org", PASSWORD, "maintainer")
        ana = create_user(s, "ana@example.org", PASSWORD, "reviewer", "Ana")
        assign(s, ana, "es")
        assign(s, ana, "ar")
        bo = create_user(s, "bo@example.org", PASSWORD, "reviewer", "Bo")
        assign(s, bo, "es")
        el = create_user(s, "eleni@example.org", PASSWORD, "reviewer", "Eleni")
        assign(s, el, "el")
    # an empty runs folder of its own: a developer's instance/runs must not reach the tests
    # RATELIMIT_ENABLED: tests sign in often; tests/test_rate_limits.py turns the limits on
    return create_app({"DATABASE_URL": db_url, "SECRET_KEY": "test-secret", "RUNS_DIR": str(tmp_path / "runs"),
                       "RATELIMIT_ENABLED": False})


CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")


@pytest.fixture(scope="session")
def chromium():
    """Debian's chromium driven by Playwright; skips with the reason when either is missing."""
    import shutil

    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    path = next((p for p in CHROMIUM_PATHS if shutil.which(p)), None)
    if path is None:
        pytest.skip("no chromium binary (apt-get install chromium)")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture
def live(review_app):
    from curator.web.testing import LiveServer

    with LiveServer(review_app) as server:
        yield server

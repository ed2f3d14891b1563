"""Shared fixtures: real databases migrated through Alembic, the CLI, the real data.

Database-facing tests take `db_url` (or `engine`, `sessions`, `cli`, `review_app`, which
build on it). A module marked `pytest.mark.backends("sqlite", "postgresql")` runs each such
test on both — ids `[sqlite]` and `[postgresql]` — the PostgreSQL one on a throwaway server
(tests/postgres.py), skipped with the reason when its binaries are missing. Unmarked
modules run on SQLite only: their tests are not about the database, or about SQLite itself
(`CURATOR_TEST_BACKENDS=sqlite,postgresql` runs them on both as well).

Speed without weaker checks (issue 26 §5): migrating and seeding are done once per session
(per xdist worker) into template databases, and each test gets a copy of its own — an SQLite
file copy, a PostgreSQL `CREATE DATABASE … TEMPLATE`. Passwords are hashed with a cheap method
in this process (`TEST_PASSWORD_METHOD`); tests/test_sessions_and_passwords.py keeps one test
on the real scrypt end to end.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from curator.cli import main
from curator.core.db import make_engine, make_session_factory
from curator.core.migrate import upgrade
from curator.review import accounts

# in CI (CURATOR_STRICT_SKIPS=1) a skip whose reason is not in tests/skips_allowed.txt fails the run
pytest_plugins = ("tests.skip_policy",)

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


BACKENDS = ("sqlite", "postgresql")
# unmarked modules: SQLite; CURATOR_TEST_BACKENDS=sqlite,postgresql runs them on both too (exploring)
DEFAULT_BACKENDS = tuple(
    b for b in os.environ.get("CURATOR_TEST_BACKENDS", "sqlite").replace(",", " ").split() if b in BACKENDS
) or ("sqlite",)


# werkzeug's pbkdf2 with one iteration: microseconds instead of scrypt's ~0.1 s per hash (a
# review_app made four, and every sign-in checks one). Set here, in the test process only:
# production has no way to change accounts.PASSWORD_METHOD (scrypt).
TEST_PASSWORD_METHOD = "pbkdf2:sha256:1"


def pytest_configure(config) -> None:
    config.addinivalue_line(
        "markers", "backends(*names): run the module's database tests on these backends (default: sqlite only)"
    )
    accounts.PASSWORD_METHOD = TEST_PASSWORD_METHOD
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:  # each xdist worker's share of the cores: torch's threads would oversubscribe them
        share = str(max(1, (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1) // workers))
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, share)


def pytest_generate_tests(metafunc) -> None:
    if "db_backend" in metafunc.fixturenames:
        marker = metafunc.definition.get_closest_marker("backends")
        metafunc.parametrize("db_backend", marker.args if marker else DEFAULT_BACKENDS, indirect=True)


def pytest_collection_modifyitems(items) -> None:
    """The `browser` and `postgresql` markers (pyproject.toml), from what each test uses."""
    for item in items:
        names = getattr(item, "fixturenames", ())
        if "chromium" in names:
            item.add_marker(pytest.mark.browser)
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "postgres" in names or params.get("db_backend") == "postgresql":
            item.add_marker(pytest.mark.postgresql)
    # the longest files first: pytest-xdist hands files to workers in collection order, so the
    # wheel test (a fresh venv, then torch and [probe] installed into it) and the multi-process
    # runs start at once beside the rest instead of last, alone, on the critical path
    first = ("packaging", "distributed", "slow")

    def rank(item: pytest.Item) -> int:
        return next((i for i, name in enumerate(first) if item.get_closest_marker(name)), len(first))

    items.sort(key=rank)  # stable: the order within each file and among the rest is kept


def _started(make, *prepare):
    """A throwaway server of the session, started (and prepared), or the test skipped with the
    reason when its binaries are missing; stopped again if starting or preparing fails."""
    try:
        server = make()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    try:
        server.start()
        for step in prepare:
            step(server)
    except BaseException:
        server.stop()
        raise
    return server


@pytest.fixture(scope="session")
def postgres():
    """The session's PostgreSQL server (tests/postgres.py) with a migrated template database."""
    from tests.postgres import Server

    server = _started(Server, Server.make_template)
    yield server
    server.stop()


# ---------------------------------------------------------------- template databases
REVIEW_TEMPLATE = "curator_review_template"


def seed_review_database(url: str) -> None:
    """What `review_app` serves: the demo seed (`curator seed`) with a maintainer and two
    Spanish reviewers (Ana also Arabic) and a Greek one; every connection closed afterwards."""
    from curator.demo import load_seed
    from curator.review.accounts import create_user
    from curator.review.sampling import assign

    engine = make_engine(url)
    try:
        upgrade(engine)
        with make_session_factory(engine).begin() as s:
            load_seed(s, SEED)
        with make_session_factory(engine).begin() as s:
            create_user(s, "boss@example.org", PASSWORD, "maintainer")
            ana = create_user(s, "ana@example.org", PASSWORD, "reviewer", "Ana")
            assign(s, ana, "es")
            assign(s, ana, "ar")
            bo = create_user(s, "bo@example.org", PASSWORD, "reviewer", "Bo")
            assign(s, bo, "es")
            el = create_user(s, "eleni@example.org", PASSWORD, "reviewer", "Eleni")
            assign(s, el, "el")
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def sqlite_templates(tmp_path_factory):
    """Template SQLite files made on first use: "migrated" (empty, at head) and "review"
    (seeded with review_app's accounts). Each is checkpointed and closed, so copying the one
    file copies the whole database."""
    root = tmp_path_factory.mktemp("templates")
    made: dict[str, Path] = {}

    def template(kind: str) -> Path:
        if kind not in made:
            path = root / f"{kind}.sqlite"
            url = f"sqlite:///{path}"
            if kind == "review":
                seed_review_database(url)
            else:
                engine = make_engine(url)
                upgrade(engine)
                engine.dispose()
            with sqlite3.connect(path) as conn:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.close()
            made[kind] = path
        return made[kind]

    return template


def postgres_template(server, kind: str) -> str:
    """The server's template database of that kind ("migrated" or "review"), made on first use."""
    from tests.postgres import TEMPLATE

    if kind == "migrated":
        return TEMPLATE
    if not getattr(server, "review_template", False):
        server.admin(f"CREATE DATABASE {REVIEW_TEMPLATE} TEMPLATE {TEMPLATE}")
        seed_review_database(server.url(REVIEW_TEMPLATE))
        server.review_template = True
    return REVIEW_TEMPLATE


@pytest.fixture(scope="session")
def redis_server():
    """The session's redis-server (tests/redis_server.py: a Unix socket in a temporary folder)."""
    from tests.redis_server import RedisServer

    try:
        import redis  # noqa: F401 - the client Flask-Limiter's redis storage needs
    except ImportError:
        pytest.skip("the redis Python package is not installed (pip install redis)")
    server = _started(RedisServer)
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server) -> str:
    """CURATOR_RATELIMIT_STORAGE of an empty redis (flushed before each test)."""
    redis_server.flush()
    return redis_server.url


@pytest.fixture
def db_backend(request) -> str:
    return request.param


@pytest.fixture
def db_url(db_backend: str, tmp_path: Path, request):
    """A migrated database of its own for this test: an SQLite file, or a PostgreSQL database,
    copied from the session's template (dropped afterwards). A test that uses `review_app`
    gets the seeded template, so the app, `sessions` and `cli` all see the same database (and
    with `chromium`, on SQLite, the seeded one with the accounts signed in: browser_template)."""
    kind = "review" if "review_app" in request.fixturenames else "migrated"
    if db_backend == "sqlite":
        path = tmp_path / "curator.sqlite"
        if kind == "review" and "chromium" in request.fixturenames:
            template = request.getfixturevalue("browser_template").path
        else:
            template = request.getfixturevalue("sqlite_templates")(kind)
        shutil.copyfile(template, path)
        yield f"sqlite:///{path}"
        return
    server = request.getfixturevalue("postgres")
    name = server.new_database(template=postgres_template(server, kind))
    yield server.url(name)
    server.drop_database(name)


@pytest.fixture
def empty_db_url(db_backend: str, tmp_path: Path, request):
    """Like `db_url`, but an empty database: it exists, nothing migrated yet."""
    if db_backend == "sqlite":
        import sqlite3

        sqlite3.connect(tmp_path / "empty.sqlite").close()
        yield f"sqlite:///{tmp_path / 'empty.sqlite'}"
        return
    server = request.getfixturevalue("postgres")
    name = server.new_database(template=None)
    yield server.url(name)
    server.drop_database(name)


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
        # where the links of `curator user invite` and `reset-link` point (the developer's own
        # environment does not leak in); a test of the path-only default passes env=
        self.runner = CliRunner(env={"CURATOR_BASE_URL": "http://127.0.0.1:5000"})

    def __call__(self, *args: str, ok: bool = True, env: dict[str, str | None] | None = None):
        result = self.runner.invoke(main, ["--database", self.url, *map(str, args)], catch_exceptions=False, env=env)
        if ok:
            assert result.exit_code == 0, result.output
        return result


@pytest.fixture
def cli(db_url: str) -> Cli:
    return Cli(db_url)


@pytest.fixture
def loaded(cli, tmp_path) -> Path:
    """A database with the seed loaded, and a private copy of the seed to break."""
    cli("init")
    cli("ingest", "pararel", SEED / "pararel" / "patterns")
    cli("ingest", "translations", SEED / "translations")
    cli("ingest", "tuples", SEED / "tuples")
    copy = tmp_path / "seed"
    shutil.copytree(SEED, copy)
    return copy


@pytest.fixture
def release(cli, tmp_path) -> Path:
    """The demo seed built into version v0 and exported in the mParaRel layout: the probe tests' source."""
    cli("seed")
    cli("release", "build", "v0")
    cli("release", "export", "v0", tmp_path / "v0")
    return tmp_path / "v0"


@pytest.fixture
def bert(cli, release, tmp_path) -> Path:
    """A tiny real BERT (random weights, a tokenizer trained on the release) saved as a model folder."""
    path = tmp_path / "bert"
    cli("models", "tiny", path, "--kind", "bert", "--corpus", release)
    return path


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
        return {
            name: sorted(map(tuple, conn.execute(text(f'SELECT * FROM "{name}"'))), key=repr)
            for name in inspect(conn).get_table_names()
        }


def libpq_url(db_url: str) -> str:
    """The libpq form (postgresql://…) of a SQLAlchemy PostgreSQL URL, for psycopg and pg_* tools."""
    from sqlalchemy.engine import make_url

    return make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False)


class WriteLock:
    """Another process's writer mid-transaction, holding the one writer lock until `release()`:
    SQLite's write lock (BEGIN IMMEDIATE) or PostgreSQL's advisory lock (core/db.py)."""

    def __init__(self, db_url: str):
        if db_url.startswith("sqlite"):
            import sqlite3

            self.conn = sqlite3.connect(
                db_url.removeprefix("sqlite:///"), isolation_level=None, timeout=300, check_same_thread=False
            )  # may be released from a timer thread
            self.conn.execute("BEGIN IMMEDIATE")
        else:
            import psycopg

            from curator.core.db import WRITER_LOCK

            self.conn = psycopg.connect(libpq_url(db_url))
            self.conn.execute(f"SELECT pg_advisory_xact_lock({WRITER_LOCK})")

    def release(self) -> None:
        self.conn.rollback() if hasattr(self.conn, "pgconn") else self.conn.execute("ROLLBACK")
        self.conn.close()

    def __enter__(self) -> WriteLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------- review app helpers
PASSWORD = "correct horse battery"


def csrf_from(html: str) -> str:
    match = re.search(r'name="csrf-token" content="([^"]+)"', html) or re.search(
        r'name="csrf_token" value="([^"]+)"', html
    )
    assert match, "no CSRF token in page"
    return match.group(1)


def review_sample(sessions, email: str, lang: str) -> list[tuple[int, str, str]]:
    """(item id, relation, template text) of a reviewer's assignment, in review order."""
    from sqlalchemy import select

    from curator.core.models import Assignment, AssignmentItem, Template, User

    with sessions() as s:
        return s.execute(
            select(AssignmentItem.id, AssignmentItem.relation_id, Template.text)
            .join(Template, Template.id == AssignmentItem.template_id)
            .join(Assignment)
            .join(User)
            .where(User.email == email, Assignment.language == lang)
            .order_by(AssignmentItem.position)
        ).all()


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
    # RATELIMIT_ENABLED: tests sign in often; tests/test_rate_limits.py turns the limits on
    return create_app(
        {
            "DATABASE_URL": db_url,
            "SECRET_KEY": "test-secret",
            "RUNS_DIR": str(tmp_path / "runs"),
            "RATELIMIT_ENABLED": False,
        }
    )


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
        yield PatientBrowser(browser)
        browser.close()


# Playwright's default wait (30 s) is a wall-clock limit on the path under test: a busy machine
# exceeded it. Each context waits up to this instead; a guard against a hang, not a speed limit.
BROWSER_GUARD_MS = 300_000


class PatientBrowser:
    """The Playwright browser, whose contexts wait on selectors, functions and navigations up to
    BROWSER_GUARD_MS; everything else is the browser's own."""

    def __init__(self, browser):
        self._browser = browser

    def new_context(self, **options):
        context = self._browser.new_context(**options)
        context.set_default_timeout(BROWSER_GUARD_MS)
        return context

    def __getattr__(self, name: str):
        return getattr(self._browser, name)


REVIEW_ACCOUNTS = ("boss@example.org", "ana@example.org", "bo@example.org", "eleni@example.org")


class BrowserTemplate:
    """The "review" template after each of its accounts signed in once, through the sign-in form
    in Chromium: `path`, and `states` (e-mail -> Playwright storage state of that browser)."""

    def __init__(self, path: Path, states: dict[str, dict]):
        self.path, self.states = path, states


@pytest.fixture(scope="session")
def browser_template(chromium, sqlite_templates, tmp_path_factory) -> BrowserTemplate:
    """Browser tests skip the sign-in form (Playwright storage_state): their database is a copy
    of this one, which holds the sign-ins their cookies name. A template of its own, so that the
    other tests do not see these sign-ins (login sessions are counted)."""
    from curator.web import create_app
    from curator.web.testing import LiveServer

    root = tmp_path_factory.mktemp("browser-template")
    path = root / "browser.sqlite"
    shutil.copyfile(sqlite_templates("review"), path)
    app = create_app({"DATABASE_URL": f"sqlite:///{path}", "SECRET_KEY": "test-secret", "RUNS_DIR": str(root / "runs")})
    states = {}
    with LiveServer(app) as server:
        for email in REVIEW_ACCOUNTS:
            context = chromium.new_context()
            page = context.new_page()
            page.goto(server.url + "/login")
            page.fill("input[name=email]", email)
            page.fill("input[name=password]", PASSWORD)
            page.keyboard.press("Enter")
            page.wait_for_url(lambda url: "/login" not in url)  # a maintainer lands on /admin/
            states[email] = context.storage_state()
            context.close()
    app.extensions["curator.engine"].dispose()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return BrowserTemplate(path, states)


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

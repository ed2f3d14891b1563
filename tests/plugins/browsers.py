"""Headless Chromium driven by Playwright (`chromium`, skipped with the reason when either is
missing) and `browser_template`: the seeded database whose accounts have signed in once, so that
browser tests start signed in (Playwright storage state). Pages are checked by axe-core with
tests/support/axe.py."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.plugins.databases import PASSWORD, REVIEW_ACCOUNTS

# Debian's chromium-headless-shell first: Chromium's engine in the old headless mode, without the
# full browser's window and compositing machinery — what Playwright runs for headless tests with its
# own browsers. On the same pages it took about half the CPU of the full browser in --headless
# (docs/development.md, "Where the time goes"). The full chromium is the fallback.
HEADLESS_SHELLS = ("/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium-headless-shell")
CHROMIUM_PATHS = (*HEADLESS_SHELLS, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
MISSING = "no chromium binary (apt-get install chromium-headless-shell)"  # bin/dev test installs it


def chromium_path() -> str | None:
    """The first browser of CHROMIUM_PATHS this machine has, or None."""
    import shutil

    return next((p for p in CHROMIUM_PATHS if shutil.which(p)), None)


@pytest.fixture(scope="session")
def chromium():
    """Debian's chromium-headless-shell (else chromium) driven by Playwright; skips with the
    reason when neither or Playwright is missing."""
    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    path = chromium_path()
    if path is None:
        pytest.skip(MISSING)
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

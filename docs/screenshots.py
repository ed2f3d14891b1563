"""Regenerate every screenshot in docs/ (headless Chromium): one script for all nine PNGs.

Usage: .venv/bin/python docs/screenshots.py   (needs playwright and Debian's chromium or
chromium-headless-shell, which `bash bin/dev test` installs; ~20 s)

- the six review-screen shots (review-*.png but review-signals.png), from the demo seed, here;
- report.png, report-web.png and review-signals.png, from the probe report's browser test
  (tests/analysis/test_report.py, run with CURATOR_UPDATE_SCREENSHOTS=1), which builds the run and
  the signals those pictures show and checks the pages before it writes them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner
from playwright.sync_api import sync_playwright

from curator.cli import main
from curator.web import create_app
from curator.web.testing import LiveServer

DOCS = Path(__file__).resolve().parent
PASSWORD = "curator-demo"


def main_() -> None:
    work = Path(tempfile.mkdtemp())
    url = f"sqlite:///{work / 'shots.sqlite'}"
    result = CliRunner().invoke(main, ["--database", url, "seed", "--demo-users", "--demo-password", PASSWORD])
    assert result.exit_code == 0, result.output
    chromium = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "chromium-headless-shell"))), None)
    with LiveServer(create_app({"DATABASE_URL": url})) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        # (file, language reviewed, interface language, viewport, what to show)
        shots = (
            ("review-guidelines.png", "es", "es", (1366, 800), "guidelines"),  # first: shown before item 1
            ("review-ltr.png", "es", "en", (1366, 800), "amend"),
            ("review-rtl.png", "ar", "ar", (1366, 800), "item"),
            ("review-phone.png", "es", "en", (390, 844), "item"),
            ("review-phone-rtl.png", "ar", "ar", (390, 844), "item"),
            ("review-spanish-ui.png", "es", "es", (1366, 800), "item"),
        )
        for name, lang, ui, (width, height), what in shots:
            context = browser.new_context(
                viewport={"width": width, "height": height},
                device_scale_factor=1,
                bypass_csp=True,
                has_touch=width < 500,
                is_mobile=width < 500,
            )
            context.add_cookies([{"name": "curator_locale", "value": ui, "url": server.url}])
            page = context.new_page()
            page.goto(server.url + "/login")
            page.fill("input[name=email]", "reviewer@demo.invalid")
            page.fill("input[name=password]", PASSWORD)
            page.keyboard.press("Enter")
            page.wait_for_url(server.url + "/")
            page.goto(f"{server.url}/review/{lang}")
            page.wait_for_selector("#review[data-ready='1']")
            if what != "guidelines" and page.locator("#intro").is_visible():
                page.click("#start")
                page.wait_for_selector("#intro", state="hidden")
            if what == "amend":
                first = page.locator("#item-card").get_attribute("data-item")
                page.keyboard.press("a")
                page.wait_for_function(f"document.getElementById('item-card').dataset.item !== '{first}'")
                page.keyboard.press("e")
            page.screenshot(path=str(DOCS / name), full_page=False)
            print("wrote", DOCS / name)
            context.close()
        browser.close()
    shutil.rmtree(work, ignore_errors=True)


def report_shots() -> None:
    """report.png, report-web.png, review-signals.png: the report test writes them."""
    test = "tests/analysis/test_report.py::test_reports_and_review_line_in_chromium"
    env = {**os.environ, "CURATOR_UPDATE_SCREENSHOTS": "1"}
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test], cwd=DOCS.parent, env=env, check=True
    )
    for name in ("report.png", "report-web.png", "review-signals.png"):
        print("wrote", DOCS / name)


if __name__ == "__main__":
    main_()
    report_shots()

"""Regenerate the review-screen screenshots in docs/ (headless Chromium, demo seed).

Usage: python docs/screenshots.py   (needs playwright and Debian's chromium)
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from click.testing import CliRunner
from playwright.sync_api import sync_playwright

from curator import create_app
from curator.cli import main
from curator.testing import LiveServer

DOCS = Path(__file__).resolve().parent
PASSWORD = "curator-demo"


def main_() -> None:
    work = Path(tempfile.mkdtemp())
    url = f"sqlite:///{work / 'shots.sqlite'}"
    result = CliRunner().invoke(main, ["--database", url, "seed", "--demo-users", "--demo-password", PASSWORD])
    assert result.exit_code == 0, result.output
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with LiveServer(create_app({"DATABASE_URL": url})) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for name, lang, viewport in (("review-ltr.png", "es", (1100, 1250)), ("review-rtl.png", "ar", (1100, 1250)),
                                     ("review-phone.png", "ar", (390, 1500))):
            page = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]},
                                       device_scale_factor=1, bypass_csp=True).new_page()
            page.goto(server.url + "/login")
            page.fill("input[name=email]", "reviewer@demo.invalid")
            page.fill("input[name=password]", PASSWORD)
            page.keyboard.press("Enter")
            page.wait_for_url(server.url + "/")
            page.goto(f"{server.url}/review/{lang}")
            page.wait_for_selector("#review[data-ready='1']")
            first = page.locator("#item-card").get_attribute("data-item")
            page.keyboard.press("a")
            page.wait_for_function(f"document.getElementById('item-card').dataset.item !== '{first}'")
            page.keyboard.press("e")
            page.screenshot(path=str(DOCS / name), full_page=False)
            print("wrote", DOCS / name)
        browser.close()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main_()

"""A maintainer's own home page ("My languages") when they review no language: what a maintainer
can do (the admin pages, and how to assign themselves a language), never the reviewer's "ask a
maintainer for an invitation"; a reviewer without languages still reads that. Over real HTTP on
the seeded SQLite database, in English and Spanish; the page at 390 px passes axe in Chromium."""

from __future__ import annotations

import re

import pytest
import requests

from tests.plugins.databases import PASSWORD, review_sample
from tests.plugins.servers import csrf_from
from tests.review.test_people import _user_id

pytestmark = pytest.mark.backends("sqlite")

INVITATION = "Ask a maintainer for an invitation"


def _sign_in(server, email: str, locale: str | None = None) -> requests.Session:
    browser = requests.Session()
    if locale:
        browser.cookies.set("curator_locale", locale)
    page = browser.get(f"{server.url}/login").text
    r = browser.post(f"{server.url}/login", data={"email": email, "password": PASSWORD, "csrf_token": csrf_from(page)})
    assert r.status_code == 200 and "/login" not in r.url, r.url
    return browser


def _mention_boss(server, sessions) -> None:
    """Ana names the maintainer in a comment: an unread mention keeps Boss on the home page
    (without one, a maintainer with no language goes straight to the dashboard)."""
    ana = _sign_in(server, "ana@example.org")
    token = csrf_from(ana.get(f"{server.url}/").text)
    item_id = review_sample(sessions, "ana@example.org", "es")[0][0]
    r = ana.post(
        f"{server.url}/api/v1/languages/es/items/{item_id}/comments",
        json={"text": "@boss ¿«nació en»?", "request_id": "home-1"},
        headers={"X-CSRFToken": token},
    )
    assert r.status_code == 201, r.text


def test_a_maintainer_without_languages_is_shown_what_a_maintainer_can_do(live, sessions, cli):
    _mention_boss(live, sessions)
    boss_id = _user_id(sessions, "boss@example.org")
    boss = _sign_in(live, "boss@example.org")
    home = boss.get(f"{live.url}/")
    assert home.url == f"{live.url}/"  # kept on the home page: the mention
    page = home.text
    assert 'id="maintainer-start"' in page and 'id="mentions"' in page
    assert INVITATION not in page
    section = page.split('id="maintainer-start"', 1)[1].split("</section>", 1)[0]
    links = re.findall(r'href="([^"]+)"', section)
    assert links == [
        "/admin/",
        "/admin/coverage",
        "/admin/reviewers",
        "/admin/users",
        f"/admin/users/{boss_id}#languages-section",
    ]
    assert all(boss.get(live.url + link).status_code == 200 for link in links)
    # the way it says: assign yourself a language on your own page, and it is on the home page
    person = boss.get(f"{live.url}/admin/users/{boss_id}").text
    r = boss.post(
        f"{live.url}/admin/users/{boss_id}/languages",
        data={"action": "assign", "language": "es", "csrf_token": csrf_from(person)},
    )
    assert r.status_code == 200 and "Spanish assigned." in r.text
    page = boss.get(f"{live.url}/").text
    assert 'id="maintainer-start"' not in page and 'href="/review/es"' in page
    # in Spanish, before the assignment (a second maintainer with a mention would do as well)
    cli("user", "unassign", "boss@example.org", "es")
    spanish = _sign_in(live, "boss@example.org", "es").get(f"{live.url}/").text
    assert 'id="maintainer-start"' in spanish and "Diriges esta revisión" in spanish
    assert "Pide una invitación" not in spanish


def test_a_reviewer_without_languages_still_asks_for_an_invitation(live, cli):
    cli("user", "create", "nueva@example.org", "--role", "reviewer", env={"CURATOR_PASSWORD": PASSWORD})
    page = _sign_in(live, "nueva@example.org").get(f"{live.url}/").text
    assert INVITATION in page and 'id="maintainer-start"' not in page


def test_the_maintainers_home_page_on_a_phone_passes_axe(chromium, live, sessions):
    from playwright.sync_api import expect

    from tests.plugins.servers import signed_in_state
    from tests.support.axe import assert_accessible

    _mention_boss(live, sessions)
    for locale, scheme in (("en", "light"), ("ar", "dark")):
        context = chromium.new_context(
            viewport={"width": 390, "height": 844},
            color_scheme=scheme,
            bypass_csp=True,
            storage_state=signed_in_state(live.url, "boss@example.org"),
        )
        context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
        page = context.new_page()
        page.goto(live.url + "/")
        expect(page.locator("#maintainer-start")).to_be_visible()
        assert_accessible(page, f"a maintainer's home page [{locale}, {scheme}, 390 px]")
        assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        context.close()

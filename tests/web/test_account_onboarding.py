"""Account and onboarding (issue 37 §3): a deactivated account told so (only with the right
password), one start button from invitation to first decision, signed in after a password
reset, invitations made once however often the page is reloaded (post/redirect/get, the link
never whole in a cookie or the URL), deactivation confirmed, and `curator user invite` links
built from the configured base URL."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from curator.core.models import Invite, User
from tests.plugins.databases import PASSWORD
from tests.plugins.servers import Browser, csrf_from

pytestmark = pytest.mark.backends("sqlite")

NEW_PASSWORD = "violet tractor umbrella"


def _sign_in(app, email: str, password: str):
    client = app.test_client()
    csrf = csrf_from(client.get("/login").get_data(as_text=True))
    return client.post("/login", data={"email": email, "password": password, "csrf_token": csrf})


def test_a_deactivated_account_is_told_so_only_with_the_right_password(review_app, cli):
    cli("user", "deactivate", "ana@example.org")
    right = _sign_in(review_app, "ana@example.org", PASSWORD)
    text = right.get_data(as_text=True)
    assert right.status_code == 403 and "This account is deactivated" in text and "Ask a maintainer" in text
    assert "do not match" not in text
    wrong = _sign_in(review_app, "ana@example.org", "not her password")
    text = wrong.get_data(as_text=True)
    assert wrong.status_code == 401 and "do not match" in text and "deactivated" not in text
    # in Spanish too
    client = review_app.test_client()
    client.set_cookie("curator_locale", "es")
    csrf = csrf_from(client.get("/login").get_data(as_text=True))
    r = client.post("/login", data={"email": "ana@example.org", "password": PASSWORD, "csrf_token": csrf})
    assert "Esta cuenta está desactivada" in r.get_data(as_text=True)


def test_an_invitation_leads_to_one_start_button(review_app, cli):
    link = cli("user", "invite", "--language", "es", "--fraction", "1").output.strip()
    path = link[link.index("/invite/") :]
    client = review_app.test_client()
    page = client.get(path).get_data(as_text=True)
    assert "Start reviewing" not in page and "Create my account" in page
    form = {"email": "new@example.org", "password": NEW_PASSWORD, "password2": NEW_PASSWORD}
    r = client.post(path, data={**form, "csrf_token": csrf_from(page)})
    assert r.status_code == 302 and r.headers["Location"].endswith("/review/es")  # not the home page's "Start"
    screen = client.get("/review/es").get_data(as_text=True)
    assert screen.count("Start reviewing") == 1


def test_a_password_reset_signs_the_volunteer_in(review_app, cli):
    link = cli("user", "reset-link", "ana@example.org").output.strip()
    path = link[link.index("/reset/") :]
    client = review_app.test_client()
    csrf = csrf_from(client.get(path).get_data(as_text=True))
    r = client.post(path, data={"password": NEW_PASSWORD, "password2": NEW_PASSWORD, "csrf_token": csrf})
    assert r.status_code == 302 and not r.headers["Location"].endswith("/login")
    assert client.get("/api/v1/me").get_json()["email"] == "ana@example.org"


def test_reloading_after_making_an_invitation_makes_no_second_one(review_app, sessions):
    boss = Browser(review_app).login("boss@example.org")
    data = {"csrf_token": boss.token, "languages": "es", "email": "kim@example.org"}
    r = boss.client.post("/admin/reviewers", data=data)
    assert r.status_code == 303
    where = r.headers["Location"]
    shown = boss.client.get(where).get_data(as_text=True)
    link = re.search(r'<code class="invite-link" id="invite-link">([^<]+)</code>', shown)[1]
    token = link.rsplit("/", 1)[1]
    assert token not in where  # neither the URL ...
    cookies = " ".join(c.value for c in boss.client._cookies.values())
    assert token not in cookies  # ... nor the cookie holds the link
    assert 'class="copy-link"' in shown
    again = boss.client.get(where).get_data(as_text=True)  # the reload
    assert token not in again and 'id="invite-link-gone"' in again
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Invite).where(Invite.email == "kim@example.org")) == 1
    assert review_app.test_client().get(link[link.index("/invite/") :]).status_code == 200


def test_deactivation_needs_the_confirmation(review_app, sessions):
    boss = Browser(review_app).login("boss@example.org")
    with sessions() as s:
        ana_id = s.scalar(select(User.id).where(User.email == "ana@example.org"))
    page = boss.get(f"/admin/users/{ana_id}").get_data(as_text=True)
    assert 'name="confirm"' in page
    r = boss.client.post(f"/admin/users/{ana_id}/active", data={"action": "deactivate", "csrf_token": boss.token})
    assert r.status_code == 422 and "tick the box" in r.get_data(as_text=True)
    with sessions() as s:
        assert s.get(User, ana_id).active
    r = boss.client.post(
        f"/admin/users/{ana_id}/active", data={"action": "deactivate", "confirm": "1", "csrf_token": boss.token}
    )
    assert r.status_code == 302
    with sessions() as s:
        assert not s.get(User, ana_id).active


def test_invite_link_from_the_configured_base_url(review_app, cli):
    out = cli("user", "invite", "--language", "es", env={"CURATOR_BASE_URL": "https://review.example.org/"})
    assert re.fullmatch(r"https://review\.example\.org/invite/[\w-]+", out.stdout.strip())
    bare = cli("user", "invite", "--language", "es", env={"CURATOR_BASE_URL": None})
    assert re.fullmatch(r"/invite/[\w-]+", bare.stdout.strip())
    assert "5000" not in bare.output and len(bare.stderr.strip().splitlines()) == 1
    assert "CURATOR_BASE_URL" in bare.stderr
    reset = cli("user", "reset-link", "ana@example.org", env={"CURATOR_BASE_URL": None})
    assert re.fullmatch(r"/reset/[\w-]+", reset.stdout.strip())


def test_the_invitation_pages_error_isolates_the_typed_address_in_arabic(review_app, cli):
    """Issue 37 §4: the address inside the flashed refusal is in a <bdi>, so it keeps its place
    (and its punctuation) inside the Arabic sentence; still escaped."""
    link = cli("user", "invite", "--language", "es").output.strip()
    path = link[link.index("/invite/") :]
    client = review_app.test_client()
    client.set_cookie("curator_locale", "ar")
    page = client.get(path).get_data(as_text=True)
    typed = "<b>ana</b>@"
    form = {"email": typed, "password": NEW_PASSWORD, "password2": NEW_PASSWORD, "csrf_token": csrf_from(page)}
    r = client.post(path, data=form)
    html = r.get_data(as_text=True)
    assert r.status_code == 422
    flash = re.search(r'<p class="flash error" role="status">(.*?)</p>', html)[1]
    assert flash == (
        '<bdi dir="auto">&#39;&lt;b&gt;ana&lt;/b&gt;@&#39;</bdi> ليس عنوان بريد إلكتروني: '
        "تحقّق من أنه مكتوب مثل name@example.org."
    ), flash
    assert "<b>ana</b>" not in html

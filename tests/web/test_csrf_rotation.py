"""The CSRF secret is rotated at sign-in and sign-out and tokens expire (issue 38 §2, low): a
token planted in a browser before its owner signs in works no more after; a token lives
CSRF_LIFETIME; the review screen, open longer than that, fetches a fresh token (GET
/api/v1/csrf) and sends its decision again, so nothing is lost."""

from __future__ import annotations

import time

from itsdangerous import TimestampSigner, URLSafeTimedSerializer
from sqlalchemy import select

from curator.core.models import Decision, User
from curator.web.context import CSRF_LIFETIME
from tests.plugins.databases import PASSWORD, review_sample
from tests.plugins.servers import Browser, csrf_from

SEEN = "/api/v1/languages/es/guidelines/seen"  # a small POST any reviewer of Spanish may send


def _post(client, token: str):
    return client.post(SEEN, json={}, headers={"X-CSRFToken": token})


def _sign_in(client, email: str, token: str):
    r = client.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": token})
    assert r.status_code == 302, r.get_data(as_text=True)


def test_a_token_planted_before_sign_in_is_refused_after(review_app):
    client = review_app.test_client()
    planted = csrf_from(client.get("/login").get_data(as_text=True))  # what an attacker's visit left
    _sign_in(client, "ana@example.org", planted)
    refused = _post(client, planted)
    assert refused.status_code == 400 and "CSRF" in refused.get_json()["error"]
    fresh = csrf_from(client.get("/").get_data(as_text=True))
    assert fresh != planted and _post(client, fresh).status_code == 200


def test_sign_out_rotates_it_too(review_app):
    ana = Browser(review_app).login("ana@example.org")
    before = ana.token
    r = ana.client.post("/logout", data={"csrf_token": before})
    assert r.status_code == 302
    login_page = ana.client.get("/login").get_data(as_text=True)
    assert csrf_from(login_page) != before
    # the token of the signed-out session does not work for the next sign-in on this browser
    assert (
        ana.client.post(
            "/login", data={"email": "ana@example.org", "password": PASSWORD, "csrf_token": before}
        ).status_code
        == 400
    )
    _sign_in(ana.client, "ana@example.org", csrf_from(login_page))
    assert _post(ana.client, before).status_code == 400


def _raw_secret(client) -> str:
    with client.session_transaction() as session:
        return session["csrf_token"]


def dated(app, raw: str, seconds_ago: int) -> str:
    """A token for the session's secret as Flask-WTF signs it, made `seconds_ago`."""

    class Earlier(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - seconds_ago

    return URLSafeTimedSerializer(app.config["SECRET_KEY"], salt="wtf-csrf-token", signer=Earlier).dumps(raw)


def test_a_token_expires_and_a_fresh_one_comes_from_the_api(review_app, sessions):
    assert review_app.config["WTF_CSRF_TIME_LIMIT"] == CSRF_LIFETIME and CSRF_LIFETIME > 0
    ana = Browser(review_app).login("ana@example.org")
    raw = _raw_secret(ana.client)
    assert _post(ana.client, dated(review_app, raw, CSRF_LIFETIME - 60)).status_code == 200
    expired = _post(ana.client, dated(review_app, raw, CSRF_LIFETIME + 60))
    assert expired.status_code == 400 and "expired" in expired.get_json()["error"]
    fresh = ana.get("/api/v1/csrf").get_json()
    with sessions() as s:
        ana_id = s.scalar(select(User.id).where(User.email == "ana@example.org"))
    assert fresh["user"] == ana_id and _post(ana.client, fresh["token"]).status_code == 200
    assert review_app.test_client().get("/api/v1/csrf").status_code == 401


def test_the_review_screen_renews_an_expired_token_and_keeps_the_decision(chromium, live, review_app, sessions):
    """A decision sent with a token that expired under the open page is stored (the page fetched
    a fresh token and sent it again), and the page carries the fresh token from then on."""
    from tests.web.test_review_guidance import PHONE, open_review
    from tests.web.test_review_ui import wait_for_item

    sample = review_sample(sessions, "ana@example.org", "es")
    context, page = open_review(chromium, live, viewport=PHONE)
    try:
        wait_for_item(page, sample[0][0])
        cookie = next(
            c for c in context.cookies() if c["name"] == review_app.config.get("SESSION_COOKIE_NAME", "session")
        )
        raw = review_app.session_interface.get_signing_serializer(review_app).loads(cookie["value"])["csrf_token"]
        stale = dated(review_app, raw, CSRF_LIFETIME + 60)
        page.evaluate("t => { document.querySelector('meta[name=\"csrf-token\"]').content = t; }", stale)
        with page.expect_response(lambda r: r.url.endswith("/api/v1/csrf")) as renewed:
            page.keyboard.press("a")  # accept
        assert renewed.value.status == 200
        wait_for_item(page, sample[1][0])
        assert page.evaluate("document.querySelector('meta[name=\"csrf-token\"]').content") not in ("", stale)
        assert page.locator("#sign-in-again").count() == 0
    finally:
        context.close()
    with sessions() as s:
        assert s.scalar(select(Decision.decision).where(Decision.item_id == sample[0][0])) == "accept"

"""`login_sessions` keeps about the live sign-ins: each sign-in deletes the rows no cookie can
use any more (revoked by a sign-out or a password change, or older than the remember
lifetime), and the sign-ins still alive keep working."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from curator.core.models import LoginSession, User
from curator.core.models.base import utcnow
from tests.web.test_sessions_and_passwords import _replay, _sign_in

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_sign_in_prunes_revoked_and_expired_rows(review_app, sessions):
    live, _ = _sign_in(review_app, remember=True)  # a browser that stays signed in
    live_cookie = live.get_cookie("remember_token").value
    other, _ = _sign_in(review_app, "bo@example.org")  # another account's live sign-in
    with sessions.begin() as s:
        ana = s.scalar(select(User).where(User.email == "ana@example.org"))
        bo = s.scalar(select(User).where(User.email == "bo@example.org"))
        now, days = utcnow(), review_app.config["REMEMBER_COOKIE_DURATION"]
        s.add_all(
            [
                LoginSession(token_hash="a" * 64, user_id=ana.id, created_at=now - timedelta(days=1), revoked_at=now),
                LoginSession(token_hash="b" * 64, user_id=bo.id, created_at=now - days - timedelta(hours=1)),
                LoginSession(
                    token_hash="c" * 64,
                    user_id=bo.id,
                    created_at=now - timedelta(days=40),
                    revoked_at=now - timedelta(days=30),
                ),
            ]
        )
    with sessions() as s:
        before = {row.token_hash for row in s.scalars(select(LoginSession))}
    assert len(before) == 5

    _sign_in(review_app)  # anyone's sign-in prunes every account's dead rows

    with sessions() as s:
        after = {row.token_hash for row in s.scalars(select(LoginSession))}
        assert not after & {"a" * 64, "b" * 64, "c" * 64}
        assert len(after) == 3  # the two live sign-ins and the new one
    assert _replay(review_app, "remember_token", live_cookie).get("/api/v1/me").status_code == 200
    assert live.get("/api/v1/me").status_code == 200
    assert other.get("/api/v1/me").status_code == 200


def test_signed_out_rows_go_at_the_next_sign_in(review_app, sessions):
    from tests.plugins.servers import csrf_from

    client, _ = _sign_in(review_app)
    token = csrf_from(client.get("/").get_data(as_text=True))
    assert client.post("/logout", data={"csrf_token": token}).status_code == 302
    with sessions() as s:
        assert [r.revoked_at is not None for r in s.scalars(select(LoginSession))] == [True]
    again, _ = _sign_in(review_app)
    with sessions() as s:
        rows = list(s.scalars(select(LoginSession)))
        assert len(rows) == 1 and rows[0].revoked_at is None
    assert again.get("/api/v1/me").status_code == 200


def test_a_hash_made_another_way_is_stored_again_the_current_way_at_sign_in(review_app, sessions):
    """A password hash of another method or cost than new ones (an older werkzeug default, say)
    still signs in, and that sign-in stores it again the current way; a wrong password changes
    nothing. Here "another way" is PBKDF2 at 2 rounds against the suite's 1 (conftest)."""
    from werkzeug.security import generate_password_hash

    from curator.review import accounts
    from tests.plugins.databases import PASSWORD
    from tests.plugins.servers import Browser, csrf_from

    old = generate_password_hash(PASSWORD, method="pbkdf2:sha256:2")
    with sessions.begin() as s:
        s.scalar(select(User).where(User.email == "ana@example.org")).password_hash = old
    assert accounts.needs_rehash(old) and not accounts.needs_rehash(accounts.hash_password("x"))
    client = review_app.test_client()
    token = csrf_from(client.get("/login").get_data(as_text=True))
    wrong = client.post("/login", data={"email": "ana@example.org", "password": "nope", "csrf_token": token})
    assert wrong.status_code == 401
    with sessions() as s:
        assert s.scalar(select(User.password_hash).where(User.email == "ana@example.org")) == old
    Browser(review_app).login("ana@example.org")
    with sessions() as s:
        stored = s.scalar(select(User.password_hash).where(User.email == "ana@example.org"))
    assert stored != old and not accounts.needs_rehash(stored)
    Browser(review_app).login("ana@example.org")  # the new hash checks the same password

"""Issue 38 §2: a sign-in ends when unused for CURATOR_SESSION_IDLE hours (CURATOR_REMEMBER_DAYS
with "remember me") and, used or not, CURATOR_SESSION_LIFETIME days after it was made — on the
server: the stored times are moved back in the database (no sleeping), then the next request is
signed out and the next sign-in deletes the row."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update

from curator.core.models import LoginSession, User
from curator.core.models.base import utcnow
from tests.plugins.databases import PASSWORD
from tests.plugins.servers import csrf_from


def _sign_in(app, email="ana@example.org", remember=False):
    client = app.test_client()
    token = csrf_from(client.get("/login").get_data(as_text=True))
    data = {"email": email, "password": PASSWORD, "csrf_token": token}
    assert client.post("/login", data={**data, "remember": "1"} if remember else data).status_code == 302
    return client


def _age(sessions, email, *, used=None, made=None) -> None:
    """Move the stored last use and start of `email`'s sign-ins back by the given times."""
    with sessions.begin() as s:
        user_id = s.scalar(select(User.id).where(User.email == email))
        values = {}
        if used is not None:
            values["last_seen_at"] = utcnow() - used
        if made is not None:
            values["created_at"] = utcnow() - made
        s.execute(update(LoginSession).where(LoginSession.user_id == user_id).values(**values))


def _signed_in(client) -> bool:
    status = client.get("/api/v1/me").status_code
    assert status in (200, 401)
    return status == 200


@pytest.mark.parametrize(
    ("remember", "used", "made", "signed_in"),
    [
        (False, timedelta(hours=7, minutes=50), timedelta(hours=8), True),  # within the 8 h idle limit
        (False, timedelta(hours=8, minutes=10), timedelta(hours=9), False),  # idle too long
        (True, timedelta(hours=9), timedelta(days=2), True),  # remember me: 14 days unused allowed
        (True, timedelta(days=14, hours=1), timedelta(days=15), False),  # remember me, idle too long
        (True, timedelta(minutes=1), timedelta(days=30, hours=1), False),  # used, but past the lifetime
        (False, timedelta(minutes=1), timedelta(days=30, hours=1), False),
    ],
)
def test_idle_and_absolute_limits(review_app, sessions, remember, used, made, signed_in):
    client = _sign_in(review_app, remember=remember)
    assert _signed_in(client)
    _age(sessions, "ana@example.org", used=used, made=made)
    assert _signed_in(client) is signed_in
    if not signed_in:  # the next page goes to the sign-in page with the "session ended" note
        r = client.get("/review/es")
        assert r.status_code == 302 and "/login" in r.headers["Location"]


def test_each_use_moves_the_idle_limit_and_expired_rows_are_pruned(review_app, sessions):
    client = _sign_in(review_app)
    _age(sessions, "ana@example.org", used=timedelta(hours=7))
    assert _signed_in(client)  # used now: stored (at most once a minute)
    with sessions() as s:
        seen = s.scalar(select(LoginSession.last_seen_at).join(User).where(User.email == "ana@example.org"))
    assert utcnow() - seen < timedelta(minutes=1)
    _age(sessions, "ana@example.org", used=timedelta(hours=7))
    assert _signed_in(client)  # 7 h + a moment: still within 8 h
    _age(sessions, "ana@example.org", used=timedelta(hours=9))
    assert not _signed_in(client)
    _sign_in(review_app, "bo@example.org")  # any sign-in deletes the rows no cookie can use
    with sessions() as s:
        rows = s.scalars(select(LoginSession).join(User).where(User.email == "ana@example.org")).all()
    assert rows == []


def test_the_limits_are_settings(db_url, tmp_path, sessions, review_app):
    from curator.web import create_app

    app = create_app(
        {
            "DATABASE_URL": db_url,
            "SECRET_KEY": "test-secret",
            "RUNS_DIR": str(tmp_path / "runs"),
            "RATELIMIT_ENABLED": False,
            "SESSION_IDLE": 0.5,
            "SESSION_LIFETIME": 2,
        }
    )
    client = _sign_in(app)
    _age(sessions, "ana@example.org", used=timedelta(minutes=40))
    assert not _signed_in(client)  # half an hour
    client = _sign_in(app, remember=True)
    _age(sessions, "ana@example.org", used=timedelta(minutes=5), made=timedelta(days=2, minutes=1))
    assert not _signed_in(client)  # two days in all

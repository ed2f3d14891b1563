"""Login sessions: one row per sign-in. The cookies carry "user_id:secret"; the row keeps only the
secret's sha256, so signing out, a password change or a revocation ends a copied cookie on the
server too. Old and revoked rows are pruned as new ones start.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import ColumnElement, CursorResult, Select, delete, select, update
from sqlalchemy.orm import Session

from curator.core.models import LoginSession, User
from curator.core.models.base import utcnow


def digest(token: str) -> str:
    """sha256 of a long random secret (login session, invitation, API token): enough for them."""
    return hashlib.sha256(token.encode()).hexdigest()


def start_login_session(session: Session, user: User, max_age: timedelta | None = None) -> str:
    """A new sign-in for `user`; returns (and sets as `user.login_session`) "user_id:secret".
    Every sign-in first removes the rows no cookie can use any more (`prune_login_sessions`),
    so the table holds about the live sign-ins, not one row per sign-in ever made."""
    prune_login_sessions(session, max_age)
    secret = secrets.token_urlsafe(32)
    session.add(LoginSession(token_hash=digest(secret), user_id=user.id))
    session.flush()
    value = f"{user.id}:{secret}"
    user.login_session = value
    return value


def prune_login_sessions(session: Session, max_age: timedelta | None = None) -> int:
    """Delete every revoked login session and, with `max_age`, every one older than that (the
    user loader refuses both, so deleting one changes nothing a cookie can do); the count.
    Cheap enough for each sign-in: the table holds only the live sign-ins plus those that
    ended since the last sign-in of anyone."""
    dead: ColumnElement[bool] = LoginSession.revoked_at.is_not(None)
    if max_age is not None:
        dead = dead | (LoginSession.created_at < utcnow() - max_age)
    # a DELETE's result is a CursorResult (what has rowcount); Session.execute is typed for any statement
    result = cast(
        "CursorResult[Any]",
        session.execute(delete(LoginSession).where(dead).execution_options(synchronize_session=False)),
    )
    return result.rowcount or 0


def _login_query(value: str, *also: type[User]) -> Select[*tuple[Any, ...]] | None:
    """The select of the login session "user_id:secret" names (with `also` joined to it), or None
    for a malformed value; the caller checks that the row's user is the one named."""
    user_id, _, secret = (value or "").partition(":")
    if not user_id.isdigit() or not secret:
        return None
    return select(LoginSession, *also).where(LoginSession.token_hash == digest(secret))


def _login_row(session: Session, value: str) -> LoginSession | None:
    query = _login_query(value)
    row = session.scalar(query) if query is not None else None
    return row if row is not None and value.partition(":")[0] == str(row.user_id) else None


def user_for_login_session(session: Session, value: str, max_age: timedelta | None = None) -> User | None:
    """The active user of an unrevoked (and, with `max_age`, not too old) login session, else None.
    Every request asks this, so the session and its user come in one query."""
    query = _login_query(value, User)
    found = session.execute(query.join(User, User.id == LoginSession.user_id)).first() if query is not None else None
    if found is None:
        return None
    row: LoginSession
    user: User
    row, user = found
    if (
        value.partition(":")[0] != str(row.user_id)
        or row.revoked_at is not None
        or (max_age is not None and row.created_at + max_age < utcnow())
    ):
        return None
    if not user.active:
        return None
    user.login_session = value
    return user


def end_login_session(session: Session, value: str) -> None:
    """Sign-out: this browser's session and remember cookies are refused from now on."""
    row = _login_row(session, value)
    if row is not None and row.revoked_at is None:
        row.revoked_at = utcnow()
        session.flush()


def revoke_login_sessions(session: Session, user: User) -> None:
    """Every sign-in of `user`, on every device (after a password change)."""
    session.execute(
        update(LoginSession)
        .where(LoginSession.user_id == user.id, LoginSession.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    session.flush()

"""Login sessions: one row per sign-in. The cookies carry "user_id:secret"; the row keeps only the
secret's sha256, so signing out, a password change or a revocation ends a copied cookie on the
server too. Old and revoked rows are pruned as new ones start.

Issue 38 §2: a sign-in also ends when it is not used for a while (`SessionLimits.idle`, or
`remember_idle` when "remember me" was ticked) and, used or not, a fixed time after it was made
(`lifetime`). `expired` is the one rule; `prune_login_sessions` deletes by its SQL twin. The last
use is stored at most once a minute (`TOUCH_EVERY`), so a reader's requests stay reads.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import ColumnElement, CursorResult, Select, and_, delete, func, select, update
from sqlalchemy.orm import Session

from curator.core.models import LoginSession, User
from curator.core.models.base import utcnow

TOUCH_EVERY = timedelta(minutes=1)  # how fresh the stored last use is kept


@dataclass(frozen=True)
class SessionLimits:
    """How long a sign-in lasts (None: no such limit): unused without / with "remember me", and
    in all from its start."""

    idle: timedelta | None = None
    remember_idle: timedelta | None = None
    lifetime: timedelta | None = None


def _limits(given: SessionLimits | timedelta | None) -> SessionLimits:
    """A bare timedelta (the older callers' `max_age`) is the absolute lifetime."""
    if isinstance(given, SessionLimits):
        return given
    return SessionLimits(lifetime=given)


def expired(row: LoginSession, limits: SessionLimits, now: datetime) -> bool:
    """Whether the sign-in `row` has ended by time (the one rule; revocation is apart)."""
    if limits.lifetime is not None and row.created_at + limits.lifetime < now:
        return True
    idle = limits.remember_idle if row.remember else limits.idle
    return idle is not None and (row.last_seen_at or row.created_at) + idle < now


def _expired_sql(limits: SessionLimits, now: datetime) -> ColumnElement[bool] | None:
    """`expired` as an SQL condition (None: no limit at all)."""
    last_use = func.coalesce(LoginSession.last_seen_at, LoginSession.created_at)
    parts: list[ColumnElement[bool]] = []
    if limits.lifetime is not None:
        parts.append(LoginSession.created_at < now - limits.lifetime)
    if limits.idle is not None:
        parts.append(and_(LoginSession.remember.is_(False), last_use < now - limits.idle))
    if limits.remember_idle is not None:
        parts.append(and_(LoginSession.remember.is_(True), last_use < now - limits.remember_idle))
    if not parts:
        return None
    condition = parts[0]
    for part in parts[1:]:
        condition = condition | part
    return condition


def digest(token: str) -> str:
    """sha256 of a long random secret (login session, invitation, API token): enough for them."""
    return hashlib.sha256(token.encode()).hexdigest()


def start_login_session(
    session: Session, user: User, max_age: SessionLimits | timedelta | None = None, remember: bool = False
) -> str:
    """A new sign-in for `user`; returns (and sets as `user.login_session`) "user_id:secret".
    Every sign-in first removes the rows no cookie can use any more (`prune_login_sessions`),
    so the table holds about the live sign-ins, not one row per sign-in ever made."""
    prune_login_sessions(session, max_age)
    secret = secrets.token_urlsafe(32)
    now = utcnow()
    session.add(
        LoginSession(token_hash=digest(secret), user_id=user.id, created_at=now, last_seen_at=now, remember=remember)
    )
    session.flush()
    value = f"{user.id}:{secret}"
    user.login_session = value
    return value


def prune_login_sessions(session: Session, max_age: SessionLimits | timedelta | None = None) -> int:
    """Delete every revoked login session and, with `max_age`, every one older than that (the
    user loader refuses both, so deleting one changes nothing a cookie can do); the count.
    Cheap enough for each sign-in: the table holds only the live sign-ins plus those that
    ended since the last sign-in of anyone."""
    dead: ColumnElement[bool] = LoginSession.revoked_at.is_not(None)
    too_old = _expired_sql(_limits(max_age), utcnow())
    if too_old is not None:
        dead = dead | too_old
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


def user_for_login_session(
    session: Session, value: str, max_age: SessionLimits | timedelta | None = None
) -> User | None:
    """The active user of an unrevoked login session that has not `expired` under `max_age`, else
    None. Every request asks this, so the session and its user come in one query. When the stored
    last use is older than TOUCH_EVERY, `user.stale_login_session` names the row to `touch`."""
    query = _login_query(value, User)
    found = session.execute(query.join(User, User.id == LoginSession.user_id)).first() if query is not None else None
    if found is None:
        return None
    row: LoginSession
    user: User
    row, user = found
    now = utcnow()
    if value.partition(":")[0] != str(row.user_id) or row.revoked_at is not None or not user.active:
        return None
    if expired(row, _limits(max_age), now):
        return None
    user.login_session = value
    user.stale_login_session = row.id if (row.last_seen_at or row.created_at) + TOUCH_EVERY < now else None
    return user


def touch(session: Session, row_id: int) -> None:
    """Store that the login session `row_id` was used now (the idle limits count from it)."""
    session.execute(update(LoginSession).where(LoginSession.id == row_id).values(last_seen_at=utcnow()))


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

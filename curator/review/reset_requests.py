"""Password-reset requests made in the app, where it sends no e-mail: "Forgot password?" without
SMTP (or without CURATOR_BASE_URL) takes an address and an optional note, and the maintainers of
that account's languages see the request on their dashboard (and every maintainer on the People
page), where they make a one-time reset link (review.people.create_reset) and hand it over
themselves — or dismiss a request the account did not make.

Only an active account's request is kept; the page answers the same whatever the address
(web/auth.py: the request is stored after the answer, as the mailed link is sent). One open
request per account: asking again refreshes it (its time, and its note when one is given), so
repeated asks never fill the maintainers' list — and the rate limits of "Forgot password?"
(web/limits.py) bound how often that can happen at all.

Whose dashboard shows a request: every active maintainer who reviews one of the account's
languages; a request that no such maintainer would see (an account without languages, or
languages no maintainer reviews) is shown to every maintainer, so that none is lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import Activity, Role
from curator.core.errors import N_, Conflict
from curator.core.models import Assignment, ResetRequest, User
from curator.core.models.base import utcnow
from curator.review import activity
from curator.review.accounts import find_user

NOTE_MAX = 500  # characters of the asker's note (the form's maxlength; longer is cut)
LINK, DISMISSED = "link", "dismissed"  # how a request was closed (`ResetRequest.outcome`)


@dataclass(frozen=True)
class RequestRow:
    """An open request as the maintainers' pages show it."""

    user_id: int
    email: str
    name: str
    languages: tuple[str, ...]  # the account's assigned languages (codes)
    note: str
    asked_at: datetime


def clean_note(note: object) -> str:
    """The note as stored: text only, control characters but newlines dropped, at most NOTE_MAX."""
    if not isinstance(note, str):
        return ""
    kept = "".join(c for c in note.replace("\r\n", "\n") if c == "\n" or (ord(c) >= 32 and ord(c) != 127))
    return kept.strip()[:NOTE_MAX]


def ask(session: Session, email: str, note: str = "") -> bool:
    """Record a request for the active account using `email` (its note cleaned): True when one
    was recorded or refreshed, False for an unknown or deactivated address (the caller answers
    the same either way)."""
    user = find_user(session, email)
    if user is None or not user.active:
        return False
    note = clean_note(note)
    existing = open_request(session, user.id)
    if existing is None:
        session.add(ResetRequest(user_id=user.id, note=note, asked_at=utcnow()))
    else:
        existing.asked_at = utcnow()
        existing.note = note or existing.note
    session.flush()
    return True


def open_request(session: Session, user_id: int) -> ResetRequest | None:
    return session.scalar(
        select(ResetRequest)
        .where(ResetRequest.user_id == user_id, ResetRequest.closed_at.is_(None))
        .order_by(ResetRequest.id.desc())
    )


def _assigned(session: Session, user_ids: set[int]) -> dict[int, set[str]]:
    found: dict[int, set[str]] = {}
    query = select(Assignment.user_id, Assignment.language).where(
        Assignment.user_id.in_(user_ids), Assignment.unassigned_at.is_(None)
    )
    for user_id, code in session.execute(query):
        found.setdefault(user_id, set()).add(code)
    return found


def open_requests(session: Session, maintainer: User | None = None) -> list[RequestRow]:
    """The open requests of active accounts, in the order they were first made: all of them (`maintainer` None: the
    People page), or those `maintainer` should answer (the dashboard: see the module's rule)."""
    rows = session.execute(
        select(ResetRequest, User)
        .join(User, User.id == ResetRequest.user_id)
        .where(ResetRequest.closed_at.is_(None), User.active.is_(True))
        .order_by(ResetRequest.id)
    ).all()
    if not rows:
        return []
    maintainers = set(session.scalars(select(User.id).where(User.role == Role.MAINTAINER.value, User.active.is_(True))))
    assigned = _assigned(session, {user.id for _, user in rows} | maintainers)
    shown = []
    for request, user in rows:
        codes = assigned.get(user.id, set())
        if maintainer is not None:
            others = maintainers - {user.id}  # a maintainer's own request goes to the others
            covered = any(codes & assigned.get(m, set()) for m in others)
            if covered and not codes & assigned.get(maintainer.id, set()):
                continue
        shown.append(RequestRow(user.id, user.email, user.name, tuple(sorted(codes)), request.note, request.asked_at))
    return shown


def close(session: Session, actor: User | None, user: User, outcome: str = LINK) -> bool:
    """Close the account's open request (a reset link was made for it, or it is dismissed):
    True when there was one."""
    request = open_request(session, user.id)
    if request is None:
        return False
    request.closed_at = utcnow()
    request.closed_by = actor.id if actor is not None else None
    request.outcome = outcome
    session.flush()
    return True


def dismiss(session: Session, actor: User | None, user: User) -> None:
    """A maintainer closes the request without a link (someone else typed the address, or it
    was settled another way): recorded in the activity log."""
    if not close(session, actor, user, DISMISSED):
        raise Conflict(N_("%(email)s has no open password-reset request."), params={"email": user.email})
    activity.record(session, actor, Activity.RESET_REQUEST_DISMISS, user.email)

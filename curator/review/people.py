"""People management (issue 28 §4): deactivate and reactivate accounts, assign and unassign
languages, change roles, and one-time password-reset links. Each change is a maintainer's and
is recorded in the activity log in the same unit of work (`activity.record`); `actor` None is
the command line.

Two rules keep the app manageable: a maintainer cannot deactivate or demote themselves (another
maintainer must), and the last active maintainer can be neither deactivated nor demoted.
Deactivating revokes every sign-in and the API token at once (`accounts.set_active`); the
account's decisions, suggestions and comments stay, attributed to it. Unassigning a language
sets `Assignment.unassigned_at`: the reviewer no longer sees it or reviews it
(`service.get_assignment` and `find_item` refuse it), their decisions keep counting; assigning
it again clears the mark and the same sample comes back, with the proposals made meanwhile
(`proposal_queue.catch_up`, as for a new assignment).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from curator.core.enums import Activity, Role, values
from curator.core.errors import N_, Conflict, Gone, InputError, NotFound
from curator.core.models import Assignment, Decision, Language, LoginSession, PasswordReset, User
from curator.core.models.base import utcnow
from curator.review import activity, reset_requests
from curator.review.accounts import expire_resets, find_user, set_active, set_password
from curator.review.login_sessions import digest
from curator.review.proposal_queue import catch_up
from curator.review.sampling import assign

RESET_HOURS = 72  # a reset link is a password: short-lived (an invitation lasts 14 days)


def get_person(session: Session, email: str) -> User:
    """The account with this e-mail address, or NotFound naming it (one line in the CLI)."""
    user = find_user(session, email)
    if user is None:
        raise NotFound(f"no user {email}")
    return user


def get_person_by_id(session: Session, user_id: int) -> User:
    user = session.get(User, user_id)
    if user is None:
        raise NotFound(f"no user #{user_id}")
    return user


def _active_maintainers(session: Session) -> int:
    return (
        session.scalar(
            select(func.count()).select_from(User).where(User.role == Role.MAINTAINER.value, User.active.is_(True))
        )
        or 0
    )


def _keep_a_maintainer(session: Session, actor: User | None, user: User, doing: str) -> None:
    """Refuse to take away the last active maintainer, or a maintainer's own rights."""
    if actor is not None and actor.id == user.id:
        raise Conflict(f"you cannot {doing} your own account: ask another maintainer")
    if user.role == Role.MAINTAINER and user.active and _active_maintainers(session) <= 1:
        raise Conflict(f"{user.email} is the last active maintainer: make another maintainer first")


def deactivate(session: Session, actor: User | None, user: User) -> None:
    """Stop the account: every sign-in and its API token revoked now; its work kept."""
    if not user.active:
        raise Conflict(f"{user.email} is already deactivated")
    _keep_a_maintainer(session, actor, user, "deactivate")
    set_active(session, user, False)
    activity.record(session, actor, Activity.DEACTIVATE, user.email)


def reactivate(session: Session, actor: User | None, user: User) -> None:
    """The account signs in again with its password (a script needs a new API token)."""
    if user.active:
        raise Conflict(f"{user.email} is already active")
    set_active(session, user, True)
    activity.record(session, actor, Activity.REACTIVATE, user.email)


def change_role(session: Session, actor: User | None, user: User, role: str) -> None:
    if role not in values(Role):
        raise InputError(f"must be one of {', '.join(values(Role))}, not {role!r}", field="role")
    if user.role == role:
        raise Conflict(f"{user.email} is already a {role}")
    if role != Role.MAINTAINER:
        _keep_a_maintainer(session, actor, user, "demote")
    previous, user.role = user.role, role
    session.flush()
    activity.record(session, actor, Activity.ROLE, user.email, details={"from": previous, "to": role})


def _language(session: Session, code: str) -> str:
    code = (code or "").strip() if isinstance(code, str) else ""
    if not code or session.get(Language, code) is None:
        raise InputError(f"unknown language {code!r}", field="language")
    return code


def _assignment(session: Session, user: User, code: str) -> Assignment | None:
    return session.scalar(select(Assignment).where(Assignment.user_id == user.id, Assignment.language == code))


def assign_language(session: Session, actor: User | None, user: User, code: str) -> tuple[Assignment, bool]:
    """Give the account a language: a new sample, or (taken off it before) the same one back
    (then True)."""
    code = _language(session, code)
    existing = _assignment(session, user, code)
    if existing is not None and existing.unassigned_at is None:
        raise Conflict(f"{user.email} already reviews {code}")
    if existing is not None:
        existing.unassigned_at = None
        catch_up(session, existing)  # proposals made while they were off the language
        assignment, details = existing, {"sample": "restored"}
    else:
        assignment, details = assign(session, user, code), {"sample": "new"}
    session.flush()
    activity.record(session, actor, Activity.ASSIGN, user.email, language=code, details=details)
    return assignment, existing is not None


def unassign_language(session: Session, actor: User | None, user: User, code: str) -> Assignment:
    """Take the language off the account: hidden from it and refused; its decisions still count."""
    code = _language(session, code)
    existing = _assignment(session, user, code)
    if existing is None or existing.unassigned_at is not None:
        raise Conflict(f"{user.email} does not review {code}")
    existing.unassigned_at = utcnow()
    session.flush()
    activity.record(session, actor, Activity.UNASSIGN, user.email, language=code)
    return existing


# ---------------------------------------------------------------- password resets
def create_reset(session: Session, actor: User | None, user: User) -> tuple[PasswordReset, str]:
    """A one-time link's row and its secret (shown or mailed once, stored hashed). A maintainer's
    (or the command's) link replaces every earlier unused one; the account's own request
    (`request_reset`) replaces only its own earlier requests, so that anyone typing the address
    on "Forgot password?" cannot spoil a link a maintainer handed over. Whichever link is used
    spends the others (a new password signs out everywhere: accounts.set_password). A link made
    for the account by someone else answers its open request made in the app (review.reset_requests)."""
    if not user.active:
        raise Conflict(f"{user.email} is deactivated: reactivate it first")
    own = actor is not None and actor.id == user.id
    expire_resets(session, user, own_requests_only=own)
    answered = not own and reset_requests.close(session, actor, user)
    now = utcnow()
    token = secrets.token_urlsafe(24)
    reset = PasswordReset(
        token_hash=digest(token),
        user_id=user.id,
        created_by=actor.id if actor is not None else None,
        expires_at=now + timedelta(hours=RESET_HOURS),
    )
    session.add(reset)
    session.flush()
    activity.record(
        session, actor, Activity.PASSWORD_RESET, user.email, details={"requested": True} if answered else None
    )
    return reset, token


def reset_path(token: str) -> str:
    """The app's path a reset link opens (the web page /reset/<token>); `Settings.link` makes it whole."""
    return f"/reset/{token}"


def request_reset(session: Session, email: str) -> tuple[str, str] | None:
    """ "Forgot password?": (address, secret) of a new one-time link for the active account with
    this address, recorded as the account's own request; None for an unknown or deactivated
    address. The caller answers the same whichever it is (no account enumeration)."""
    user = find_user(session, email)
    if user is None or not user.active:
        return None
    _, token = create_reset(session, user, user)
    return user.email, token


def open_reset(session: Session, token: str) -> tuple[PasswordReset, User]:
    """The link's row and account, or why the link no longer works (a page, not a traceback)."""
    reset = session.scalar(select(PasswordReset).where(PasswordReset.token_hash == digest(token or "")))
    if reset is None:
        raise NotFound(N_("This password-reset link is not valid."), params={})
    if reset.used_at is not None:
        raise Gone(
            N_("This password-reset link has already been used. Sign in, or ask a maintainer for a new one."), params={}
        )
    user = session.get(User, reset.user_id)
    if user is None or not user.active:  # said before "expired": deactivating expires the links too
        raise Gone(N_("This account is deactivated. Ask a maintainer."), params={})
    if reset.expires_at < utcnow():
        raise Gone(N_("This password-reset link has expired. Ask a maintainer for a new one."), params={})
    return reset, user


def use_reset(session: Session, token: str, password: str) -> User:
    """Set the new password (strength checked as everywhere), revoke every sign-in and the API
    token, and spend the link."""
    reset, user = open_reset(session, token)
    set_password(session, user, password)
    reset.used_at = utcnow()
    session.flush()
    return user


# ---------------------------------------------------------------- listing
@dataclass
class LanguageRow:
    code: str
    trusted: bool
    assigned: bool  # False: unassigned (hidden from the reviewer, decisions kept)
    decisions: int = 0  # items decided (an undone decision not counted)


@dataclass
class PersonRow:
    id: int
    email: str
    name: str
    role: str
    active: bool
    created_at: datetime
    last_sign_in: datetime | None  # the newest live sign-in (ended ones are pruned): None if unknown
    languages: list[LanguageRow] = field(default_factory=list)

    @property
    def assigned(self) -> list[LanguageRow]:
        return [row for row in self.languages if row.assigned]


def people(session: Session, user_id: int | None = None) -> list[PersonRow]:
    """Every account (or one), maintainers first, with its languages and last sign-in."""
    query = select(User).order_by(User.role.desc(), User.email)
    if user_id is not None:
        query = query.where(User.id == user_id)
    users = session.scalars(query).all()
    ids = [u.id for u in users]
    last = dict(
        session.execute(
            select(LoginSession.user_id, func.max(LoginSession.created_at))
            .where(LoginSession.user_id.in_(ids))
            .group_by(LoginSession.user_id)
        ).all()
    )
    counts = {
        (uid, code): n
        for uid, code, n in session.execute(
            select(Decision.user_id, Decision.language, func.count(func.distinct(Decision.item_id)))
            .where(Decision.user_id.in_(ids), Decision.retracted.is_(False))
            .group_by(Decision.user_id, Decision.language)
        ).all()
    }
    assignments = session.scalars(select(Assignment).where(Assignment.user_id.in_(ids)).order_by(Assignment.language))
    by_user: dict[int, list[LanguageRow]] = {}
    for a in assignments:
        by_user.setdefault(a.user_id, []).append(
            LanguageRow(a.language, a.trusted, a.unassigned_at is None, counts.get((a.user_id, a.language), 0))
        )
    return [
        PersonRow(u.id, u.email, u.name, u.role, u.active, u.created_at, last.get(u.id), by_user.get(u.id, []))
        for u in users
    ]

"""Invitations: links that make an account (or extend a signed-in one) for a role and languages,
revocable and resendable (accounts: passwords and API tokens).

An invitation's token is stored as its sha256 (review.login_sessions.digest), like a login session's.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import Activity, Role
from curator.core.errors import N_, Conflict, Forbidden, Gone, InputError, NotFound
from curator.core.models import Invite, Language, User
from curator.core.models.base import utcnow
from curator.review import activity
from curator.review.accounts import ROLES, check_email, check_password_strength, create_user
from curator.review.login_sessions import digest as _digest
from curator.review.proposal_queue import catch_up
from curator.review.sampling import assign

INVITE_DAYS = 14


def _check_languages(session: Session, codes: list[str]) -> list[str]:
    codes = sorted({c.strip() for c in codes if c.strip()})
    known = set(session.scalars(select(Language.code).where(Language.code.in_(codes))))
    unknown = [c for c in codes if c not in known]
    if unknown:
        raise InputError(f"unknown language(s): {', '.join(unknown)}")
    return codes


def invite_path(token: str) -> str:
    """The app's path an invitation link opens (the web page /invite/<token>); `Settings.link` makes it whole."""
    return f"/invite/{token}"


def create_invite(
    session: Session,
    languages: list[str],
    created_by: User | None = None,
    email: str | None = None,
    role: str = Role.REVIEWER,
    fraction: float | None = None,
) -> tuple[Invite, str]:
    """An invitation and the secret token for its link (shown once, stored hashed)."""
    if role not in ROLES:
        raise InputError(f"role must be one of {', '.join(ROLES)}")
    codes = _check_languages(session, languages)
    if role == Role.REVIEWER and not codes:
        raise InputError("invite a reviewer for at least one language")
    if fraction is not None and not 0 < fraction <= 1:
        raise InputError("the sample fraction must be in (0, 1]")
    email = check_email(email) if email and email.strip() else None
    token = secrets.token_urlsafe(24)
    invite = Invite(
        token_hash=_digest(token),
        email=email,
        role=role,
        languages=codes,
        fraction=fraction,
        created_by=created_by.id if created_by else None,
        expires_at=utcnow() + timedelta(days=INVITE_DAYS),
    )
    session.add(invite)
    session.flush()
    _log_invite(session, created_by, Activity.INVITE, invite)
    return invite, token


def _log_invite(session: Session, actor: User | None, action: Activity, invite: Invite) -> None:
    """The activity entry of an invitation made, withdrawn or resent (its one language, if one)."""
    activity.record(
        session,
        actor,
        action,
        invite.email or f"invitation #{invite.id}",
        invite.languages[0] if len(invite.languages) == 1 else None,
        {
            "invitation": invite.id,
            "role": invite.role,
            "languages": list(invite.languages),
            "fraction": invite.fraction,
        },
    )


def open_invite(session: Session, token: str) -> Invite:
    invite = session.scalar(select(Invite).where(Invite.token_hash == _digest(token or "")))
    if invite is None:
        raise NotFound(N_("This invitation link is not valid."), params={})
    if invite.used_at is not None:
        raise Gone(N_("This invitation has already been used. Sign in instead."), params={})
    if invite.revoked_at is not None:
        raise Gone(N_("This invitation was withdrawn. Ask a maintainer for a new one."), params={})
    if invite.expires_at < utcnow():
        raise Gone(N_("This invitation has expired. Ask a maintainer for a new one."), params={})
    return invite


def pending_invites(session: Session) -> list[Invite]:
    """Invitations not used and not withdrawn, newest first (expired ones too: they can be resent)."""
    return list(
        session.scalars(
            select(Invite).where(Invite.used_at.is_(None), Invite.revoked_at.is_(None)).order_by(Invite.id.desc())
        )
    )


def _open_for_change(session: Session, invite_id: int) -> Invite:
    invite = session.get(Invite, invite_id)
    if invite is None:
        raise NotFound(f"no invitation #{invite_id}")
    if invite.used_at is not None:
        raise Conflict(f"invitation #{invite_id} has already been used")
    if invite.revoked_at is not None:
        raise Conflict(f"invitation #{invite_id} was withdrawn: create a new one")
    return invite


def revoke_invite(session: Session, invite_id: int, actor: User | None = None) -> Invite:
    """Withdraw an unused invitation: its link is refused from now on (`open_invite`).
    `actor`: the maintainer, for the activity log (None: the command line)."""
    invite = _open_for_change(session, invite_id)
    invite.revoked_at = utcnow()
    session.flush()
    _log_invite(session, actor, Activity.INVITE_REVOKE, invite)
    return invite


def resend_invite(session: Session, invite_id: int, actor: User | None = None) -> tuple[Invite, str]:
    """A fresh link for the same invitation (same e-mail, role, languages, fraction), valid
    INVITE_DAYS from now; the old link stops working (its token's hash is replaced)."""
    invite = _open_for_change(session, invite_id)
    token = secrets.token_urlsafe(24)
    invite.token_hash = _digest(token)
    invite.expires_at = utcnow() + timedelta(days=INVITE_DAYS)
    session.flush()
    _log_invite(session, actor, Activity.INVITE_RESEND, invite)
    return invite, token


def _log_promotion(session: Session, user: User, previous: str | None, invite: Invite) -> None:
    """Becoming a maintainer through an invitation (an open link: anyone who holds it) is a role
    change, in the activity log as `curator user role` records one (people.change_role), done by
    the account that used the link: `from` is None for an account the invitation made."""
    session.flush()  # the new account's id, for the entry's actor
    activity.record(
        session,
        user,
        Activity.ROLE,
        user.email,
        details={"from": previous, "to": Role.MAINTAINER.value, "invitation": invite.id},
    )


def accept_invite(
    session: Session, token: str, email: str, name: str, password: str, current: User | None = None
) -> User:
    """Create the account (or extend the signed-in one) and sample its languages."""
    invite = open_invite(session, token)
    if current is not None:
        if invite.email and invite.email.strip().lower() != current.email.strip().lower():
            raise Forbidden(
                N_("This invitation is for %(email)s: sign out and open the link again."),
                params={"email": invite.email},
            )
        user, previous = current, current.role
    else:
        email = (invite.email or email or "").strip()
        check_password_strength(password)
        user, previous = create_user(session, email, password, Role.REVIEWER, name), None
    if invite.role == Role.MAINTAINER and user.role != Role.MAINTAINER:
        user.role = Role.MAINTAINER
        _log_promotion(session, user, previous, invite)
    for code in invite.languages:
        try:
            assignment = assign(session, user, code, invite.fraction)
            if assignment.unassigned_at is not None:  # invited again: the sample is back, with the proposals
                assignment.unassigned_at = None  # made while they were off the language
                catch_up(session, assignment)
        except Conflict:  # e.g. no candidate templates in the language (yet): a 422, not a 500
            raise InputError(
                N_(
                    "There is nothing to review in %(language)s yet. Ask the maintainer who invited you: "
                    "this link works once the language has candidates."
                ),
                params={"language": code},
            ) from None
    invite.used_at, invite.used_by = utcnow(), user.id
    session.flush()
    return user

"""Accounts: hashed passwords, invitation links and API tokens for scripts.

Secrets are only ever stored as hashes: a password with werkzeug's scrypt, an invitation
or API token as its sha256 (they are long random strings, so a fast hash is enough).
"""
from __future__ import annotations

import hashlib
import re
import secrets
from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from curator.core.enums import Role, values
from curator.core.errors import Conflict, Gone, InputError, NotFound
from curator.core.models import Invite, Language, User
from curator.core.models.base import utcnow
from curator.review.sampling import assign

ROLES = values(Role)
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")
MIN_PASSWORD = 8
INVITE_DAYS = 14


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def find_user(session: Session, email: str) -> User | None:
    return session.scalar(select(User).where(func.lower(User.email) == email.strip().lower()))


def check_password_strength(password: str) -> None:
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise InputError(f"Choose a password of at least {MIN_PASSWORD} characters.")


def create_user(session: Session, email: str, password: str | None, role: str = "reviewer", name: str = "") -> User:
    email = email.strip()
    if not EMAIL.match(email):
        raise InputError(f"{email!r} is not an e-mail address")
    if role not in ROLES:
        raise InputError(f"role must be one of {', '.join(ROLES)}")
    if find_user(session, email) is not None:
        raise Conflict(f"a user with e-mail {email} already exists")
    user = User(email=email, name=name.strip(), role=role)
    if password is not None:
        check_password_strength(password)
        user.password_hash = generate_password_hash(password)
    session.add(user)
    session.flush()
    return user


def authenticate(session: Session, email: str, password: str) -> User | None:
    user = find_user(session, email or "")
    if user is None or not user.active or not user.password_hash:
        generate_password_hash("timing-equaliser")  # same cost whether or not the user exists
        return None
    return user if check_password_hash(user.password_hash, password or "") else None


def _check_languages(session: Session, codes: list[str]) -> list[str]:
    codes = sorted({c.strip() for c in codes if c.strip()})
    known = set(session.scalars(select(Language.code).where(Language.code.in_(codes))))
    unknown = [c for c in codes if c not in known]
    if unknown:
        raise InputError(f"unknown language(s): {', '.join(unknown)}")
    return codes


def create_invite(session: Session, languages: list[str], created_by: User | None = None, email: str | None = None,
                  role: str = "reviewer", fraction: float | None = None) -> tuple[Invite, str]:
    """An invitation and the secret token for its link (shown once, stored hashed)."""
    if role not in ROLES:
        raise InputError(f"role must be one of {', '.join(ROLES)}")
    codes = _check_languages(session, languages)
    if role == "reviewer" and not codes:
        raise InputError("invite a reviewer for at least one language")
    if fraction is not None and not 0 < fraction <= 1:
        raise InputError("the sample fraction must be in (0, 1]")
    token = secrets.token_urlsafe(24)
    invite = Invite(token_hash=_digest(token), email=(email or "").strip() or None, role=role, languages=codes,
                    fraction=fraction, created_by=created_by.id if created_by else None,
                    expires_at=utcnow() + timedelta(days=INVITE_DAYS))
    session.add(invite)
    session.flush()
    return invite, token


def open_invite(session: Session, token: str) -> Invite:
    invite = session.scalar(select(Invite).where(Invite.token_hash == _digest(token or "")))
    if invite is None:
        raise NotFound("This invitation link is not valid.")
    if invite.used_at is not None:
        raise Gone("This invitation has already been used. Sign in instead.")
    if invite.expires_at < utcnow():
        raise Gone("This invitation has expired. Ask a maintainer for a new one.")
    return invite


def accept_invite(session: Session, token: str, email: str, name: str, password: str,
                  current: User | None = None) -> User:
    """Create the account (or extend the signed-in one) and sample its languages."""
    invite = open_invite(session, token)
    if current is not None:
        user = current
    else:
        email = (invite.email or email or "").strip()
        check_password_strength(password)
        user = create_user(session, email, password, invite.role, name)
    if invite.role == "maintainer" and user.role != "maintainer":
        user.role = "maintainer"
    for code in invite.languages:
        try:
            assign(session, user, code, invite.fraction)
        except Conflict as exc:  # e.g. no candidate templates in the language (yet): a 422, not a 500
            raise InputError(f"{exc.message}. Ask the maintainer who invited you: this link works once "
                             "the language has candidates.") from None
    invite.used_at, invite.used_by = utcnow(), user.id
    session.flush()
    return user


def issue_api_token(session: Session, user: User) -> str:
    """A new token for scripts (replaces the old one)."""
    token = "cur_" + secrets.token_urlsafe(32)
    user.api_token_hash = _digest(token)
    session.flush()
    return token


def user_for_token(session: Session, token: str) -> User | None:
    if not token:
        return None
    user = session.scalar(select(User).where(User.api_token_hash == _digest(token)))
    return user if user is not None and user.active else None

"""Accounts: hashed passwords and API tokens for scripts (invitation links: review.invitations;
login sessions: review.login_sessions).

Secrets are only ever stored as hashes: a password with werkzeug's scrypt, an invitation,
login session or API token as its sha256 (they are long random strings, so a fast hash is
enough). A login session is one sign-in: the cookies carry "user_id:secret", and signing out
or changing the password revokes the row, so a copied cookie stops working on the server.
A password change and a deactivation also revoke the account's API token: whoever may have
learnt the old password (or held the account) may have issued one.
"""

from __future__ import annotations

import secrets
from functools import lru_cache
from importlib.resources import files

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from curator.core.enums import Role, values
from curator.core.errors import N_, Conflict, Forbidden, InputError
from curator.core.models import PasswordReset, User
from curator.core.models.base import utcnow
from curator.core.text import describe_char, first_control
from curator.review.login_sessions import digest as _digest
from curator.review.login_sessions import revoke_login_sessions

ROLES = values(Role)
MIN_PASSWORD = 8
MAX_PASSWORD = 1024  # hashing a megabyte of "password" per request is a cheap denial of service
MAX_EMAIL = 320
# accounts that receive no mail (the demo's, legacy reviewers from `review import`) use the TLD
# reserved for exactly that (RFC 2606); the validator refuses special-use names otherwise
PLACEHOLDER_DOMAIN = ".invalid"
# How new password hashes are made: werkzeug's scrypt at its default cost. Only the test suite
# changes it (tests/conftest.py sets a cheap method, for speed); there is deliberately no setting
# or environment variable for it, so no deployment can weaken it by mistake. Checking reads the
# method from the stored hash, so hashes made either way (and older ones) are checked right.
PASSWORD_METHOD = "scrypt"


def hash_password(password: str) -> str:
    return generate_password_hash(password, method=PASSWORD_METHOD)


def needs_rehash(password_hash: str) -> bool:
    """Whether a stored hash was made another way than new ones are (an older method or cost,
    e.g. werkzeug's defaults of a past release): signing in with the right password then
    stores it again the current way, so old hashes do not stay weaker than new ones."""
    return password_hash.split("$", 1)[0] != _method_prefix(PASSWORD_METHOD)


@lru_cache(maxsize=4)
def _method_prefix(method: str) -> str:
    """What new hashes start with ("scrypt:32768:8:1"): werkzeug spells the defaults out, so it
    is read from one hash, made once per method (scrypt costs ~0.1 s), not at every sign-in."""
    return generate_password_hash("", method=method).split("$", 1)[0]


def author_name(user: User) -> str:
    """What others see of a comment's author: the name, else the e-mail address's local part
    (the whole address would tell every reviewer of the language who the others are)."""
    return user.name or user.email.split("@", 1)[0]


def find_user(session: Session, email: str) -> User | None:
    if not isinstance(email, str) or any(ord(c) < 32 for c in email):
        return None  # no address holds a control character (and PostgreSQL cannot compare a NUL)
    return session.scalar(select(User).where(func.lower(User.email) == email.strip().lower()))


@lru_cache(maxsize=1)
def common_passwords() -> frozenset[str]:
    """The few thousand passwords tried first by anyone guessing (package data, lower-cased)."""
    text = (files("curator.review") / "common_passwords.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def check_password_strength(password: str) -> None:
    # catalogue messages: a volunteer reads them on the invitation and account pages
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise InputError(N_("Choose a password of at least %(count)s characters."), params={"count": MIN_PASSWORD})
    if len(password) > MAX_PASSWORD:
        raise InputError(N_("Choose a password of at most %(count)s characters."), params={"count": MAX_PASSWORD})
    if password.strip().lower() in common_passwords():
        raise InputError(
            N_(
                "That password is one of the most common ones, the first an attacker tries: "
                "choose another (a few unrelated words make a good one)."
            ),
            params={},
        )


NOT_AN_EMAIL = N_("%(email)s is not an e-mail address: check it is written like name@example.org.")


def check_email(email: str) -> str:
    """The address, normalised, or an InputError: a real syntax check (no DNS lookup), so that an
    invitation bound to a typo or a user named '<script>@x' is refused where it is made."""
    if not isinstance(email, str) or not email.strip() or len(email.strip()) > MAX_EMAIL:
        raise InputError(NOT_AN_EMAIL, params={"email": repr(email)})
    email = email.strip()
    try:
        if email.lower().endswith(PLACEHOLDER_DOMAIN):  # same syntax rules, on the reserved test name instead
            checked = validate_email(
                email[: -len(PLACEHOLDER_DOMAIN)] + ".test", check_deliverability=False, test_environment=True
            )
            return checked.normalized[: -len(".test")] + PLACEHOLDER_DOMAIN
        return validate_email(email, check_deliverability=False).normalized
    except EmailNotValidError:  # the validator's own reason is English only: the page says what to do
        raise InputError(NOT_AN_EMAIL, params={"email": repr(email.strip())}) from None


MAX_NAME = 200


def check_name(name: object) -> str:
    """A display name as typed, refused when it holds a control/format character: names are shown
    beside comments and decisions, where a RIGHT-TO-LEFT OVERRIDE would reorder what a
    maintainer reads (core/text.py)."""
    if name is None:
        return ""
    if not isinstance(name, str):
        raise InputError("the name must be text")
    name = name.strip()
    if len(name) > MAX_NAME:
        raise InputError(N_("Choose a name of at most %(count)s characters."), params={"count": MAX_NAME})
    control = first_control(name)
    if control is not None:
        raise InputError(
            N_(
                "Not saved: the name contains an invisible character (%(character)s). "
                "Type it without invisible characters."
            ),
            params={"character": describe_char(control)},
        )
    return name


def create_user(session: Session, email: str, password: str | None, role: str = Role.REVIEWER, name: str = "") -> User:
    email = check_email(email)
    if role not in ROLES:
        raise InputError(f"role must be one of {', '.join(ROLES)}")
    if find_user(session, email) is not None:
        raise Conflict(N_("A user with e-mail %(email)s already exists."), params={"email": email})
    name = check_name(name)
    user = User(email=email, name=name, role=role)
    if password is not None:
        check_password_strength(password)
        user.password_hash = hash_password(password)
    session.add(user)
    session.flush()
    return user


DEACTIVATED = N_("This account is deactivated: it cannot sign in. Ask a maintainer of this review to reactivate it.")


def authenticate(session: Session, email: str, password: str) -> User | None:
    """The account whose password this is, or None. A deactivated account is a Forbidden
    (DEACTIVATED) only when the password is right: a wrong one gets the same None as an unknown
    address, so the answer tells nobody without the password that the account exists."""
    if not isinstance(email, str) or not isinstance(password, str) or len(password) > MAX_PASSWORD:
        email, password = "", ""
    user = find_user(session, email or "")
    if user is None or not user.password_hash:
        hash_password("timing-equaliser")  # same cost whether or not the user exists
        return None
    if not check_password_hash(user.password_hash, password or ""):
        return None
    if not user.active:
        raise Forbidden(DEACTIVATED, params={})
    return user


def issue_api_token(session: Session, user: User) -> str:
    """A new token for scripts (replaces the old one); none for a deactivated account."""
    if not user.active:
        raise Conflict(f"{user.email} is deactivated: reactivate it first (curator user deactivate --undo)")
    token = "cur_" + secrets.token_urlsafe(32)
    user.api_token_hash = _digest(token)
    session.flush()
    return token


def user_for_token(session: Session, token: str) -> User | None:
    if not token or not isinstance(token, str):
        return None
    user = session.scalar(select(User).where(User.api_token_hash == _digest(token)))
    return user if user is not None and user.active else None


# ---------------------------------------------------------------- login sessions
def _sign_out_everywhere(session: Session, user: User) -> None:
    """Every sign-in of `user` revoked, the API token (a script must be given a new one) and the
    open password-reset links: one made before a deactivation or a new password must not work
    after a reactivation (a maintainer makes a new one)."""
    user.api_token_hash = None
    revoke_login_sessions(session, user)
    expire_resets(session, user)


def expire_resets(session: Session, user: User, *, own_requests_only: bool = False) -> None:
    """The account's unused password-reset links stop working now (people.create_reset, and
    every sign-out everywhere); `own_requests_only`: only those its own "Forgot password?"
    requests made (people.request_reset keeps a maintainer's link)."""
    now = utcnow()
    query = select(PasswordReset).where(
        PasswordReset.user_id == user.id, PasswordReset.used_at.is_(None), PasswordReset.expires_at > now
    )
    if own_requests_only:
        query = query.where(PasswordReset.created_by == user.id)
    for reset in session.scalars(query):
        reset.expires_at = now


def set_password(session: Session, user: User, password: str) -> None:
    """A new password (checked); every existing sign-in of the account and its API token revoked."""
    check_password_strength(password)
    user.password_hash = hash_password(password)
    _sign_out_everywhere(session, user)


class WrongPassword(InputError):
    """The current password typed on the account page is not the account's (rate-limited: web/limits.py)."""


def change_password(session: Session, user: User, current: str, new: str) -> None:
    """The account page: the current password is asked, so an unattended browser cannot lock its owner out."""
    if (
        not user.password_hash
        or not isinstance(current, str)
        or len(current) > MAX_PASSWORD
        or not check_password_hash(user.password_hash, current)
    ):
        raise WrongPassword(N_("The current password is not right."), params={})
    set_password(session, user, new)


def set_active(session: Session, user: User, active: bool) -> None:
    """Deactivate (signed out everywhere, API token revoked, nothing of theirs deleted) or reactivate
    an account; a reactivated account signs in with its password and needs a new token."""
    user.active = active
    if not active:
        _sign_out_everywhere(session, user)
    session.flush()

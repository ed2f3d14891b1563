"""Accounts: hashed passwords, invitation links and API tokens for scripts (login sessions:
review.login_sessions).

Secrets are only ever stored as hashes: a password with werkzeug's scrypt, an invitation,
login session or API token as its sha256 (they are long random strings, so a fast hash is
enough). A login session is one sign-in: the cookies carry "user_id:secret", and signing out
or changing the password revokes the row, so a copied cookie stops working on the server.
A password change and a deactivation also revoke the account's API token: whoever may have
learnt the old password (or held the account) may have issued one.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from functools import lru_cache
from importlib.resources import files

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from curator.core.enums import Activity, Role, values
from curator.core.errors import N_, Conflict, Forbidden, Gone, InputError, NotFound
from curator.core.models import Invite, Language, PasswordReset, User
from curator.core.models.base import utcnow
from curator.core.text import describe_char, first_control
from curator.review import activity
from curator.review.login_sessions import digest as _digest
from curator.review.login_sessions import revoke_login_sessions
from curator.review.proposal_queue import catch_up
from curator.review.sampling import assign

ROLES = values(Role)
MIN_PASSWORD = 8
MAX_PASSWORD = 1024  # hashing a megabyte of "password" per request is a cheap denial of service
MAX_EMAIL = 320
# accounts that receive no mail (the demo's, legacy reviewers from `review import`) use the TLD
# reserved for exactly that (RFC 2606); the validator refuses special-use names otherwise
PLACEHOLDER_DOMAIN = ".invalid"
INVITE_DAYS = 14
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

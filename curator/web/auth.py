"""Sign in, sign out, "Forgot password?" (a mailed link, or a request to the maintainers in the
app), the account page (password change) and accepting an invitation (pages with
CSRF-protected forms). Each sign-in is a login session on the server (review.accounts):
signing out revokes it, a password change revokes all of the account's, so a copied session
or remember cookie stops working (web/context.py's user loader), and the API token is revoked.
Sign-in, invitations and wrong current passwords on the account page are rate-limited
(web/limits.py)."""

from __future__ import annotations

import logging
import re
from functools import partial, wraps
from urllib.parse import urlsplit

from flask import Blueprint, Flask, abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required, login_user, logout_user

from curator.core.db import unit_of_work
from curator.core.errors import Busy, CuratorError, Forbidden
from curator.review import mail, people, reset_requests
from curator.review.accounts import authenticate, change_password, hash_password, needs_rehash
from curator.review.invitations import accept_invite, open_invite
from curator.review.login_sessions import end_login_session, start_login_session
from curator.web.context import db, new_csrf_secret, session_limits, write
from curator.web.errors import status_for, translated
from curator.web.i18n import LOCALES, remember_locale, select_locale, speaking
from curator.web.mailer import mailer
from curator.web.settings import current_settings, settings_of

bp = Blueprint("auth", __name__)
log = logging.getLogger("curator.mail")


def maintainer_required(view):
    @wraps(view)
    @login_required
    def wrapper(*args, **kwargs):
        if not current_user.is_maintainer:
            abort(403)
        return view(*args, **kwargs)

    return wrapper


def _safe_next(target: str | None) -> str:
    """Only same-site paths: an open redirect would let a link send people elsewhere after sign-in."""
    # a backslash too: browsers read "/\\evil.org" as "//evil.org"; control characters (a tab or
    # newline inside "/\t/evil.org") are dropped by browsers before they read the URL
    if (
        target
        and target.startswith("/")
        and not target.startswith("//")
        and "\\" not in target
        and not any(ord(c) < 32 or ord(c) == 127 for c in target)
        and not urlsplit(target).netloc
    ):
        return target
    return url_for("review.home")


def sign_in(user, remember: bool = False, password: str | None = None) -> None:
    """A new login session on the server, then Flask-Login's cookies carrying it. With the
    password just checked, a hash made another way than new ones (accounts.needs_rehash) is
    stored again the current way in the same write."""
    with write() as session:  # (also removes login sessions no cookie can use: revoked or too old)
        if password is not None and needs_rehash(user.password_hash):
            user.password_hash = hash_password(password)
        start_login_session(session, user, session_limits(), remember=remember)
    login_user(user, remember=remember)
    new_csrf_secret()  # a token from before the sign-in (planted by someone else) is refused from now on


@bp.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "POST":
        try:
            user = authenticate(db(), request.form.get("email", ""), request.form.get("password", ""))
        except Forbidden as exc:  # deactivated, and the password right: say so, and whom to ask
            flash(translated(exc), "error")
            return render_template("login.html", email=request.form.get("email", "")), 403
        if user is None:
            flash(_("That e-mail and password do not match."), "error")
            return render_template("login.html", email=request.form.get("email", "")), 401
        sign_in(user, remember=bool(request.form.get("remember")), password=request.form.get("password", ""))
        response = redirect(_safe_next(request.args.get("next")))
        # the account's language (chosen in another browser) becomes this browser's too
        return remember_locale(response, user.locale) if user.locale in LOCALES else response
    if current_user.is_authenticated:
        return redirect(url_for("review.home"))
    return render_template("login.html", email="")


@bp.route("/forgot", methods=["GET", "POST"])
def forgot():
    """ "Forgot password?": with e-mail configured (an SMTP server and CURATOR_BASE_URL), an
    address typed here gets a one-time reset link by e-mail if an active account uses it.
    Without it, the address (and an optional note) becomes a request the maintainers of the
    account's languages see in the app (review.reset_requests), who make the link and hand it
    over. Every POST gets the same answer, a redirect to the same "sent" page, whatever the
    address; the lookup, the sending or the recording happen after the answer (web/mailer.py),
    so not even its time tells. Rate-limited per typed address and per client address
    (web/limits.py), CSRF-checked like every form. CURATOR_HELP_CONTACT, when set, is shown."""
    settings = current_settings()
    by_mail = mail.may_mail_links(settings)
    if request.method == "POST":
        address = request.form.get("email", "").strip()[:320]
        if address and by_mail:
            mailer().submit(partial(send_reset, address, select_locale()))  # the mail speaks the page's language
        elif address:
            mailer().submit(partial(ask_maintainers, address, request.form.get("note", "")))
        return redirect(url_for("auth.forgot", sent=1), code=303)
    return render_template(
        "forgot.html",
        by_mail=by_mail,
        sent=request.args.get("sent") == "1",
        hours=people.RESET_HOURS,
        note_max=reset_requests.NOTE_MAX,
        contact=help_contact(settings.help_contact),
    )


CONTACT_ADDRESS = re.compile(r"[^\s@<>\"']+@[^\s@<>\"']+")
CONTACT_URL = re.compile(r"https?://[^\s<>\"']+")


def help_contact(value: str | None) -> tuple[str, str | None] | None:
    """(text, link) of CURATOR_HELP_CONTACT: an e-mail address gets a mailto: link, an http(s)
    address itself, anything else (a sentence, a phone number) no link; None when unset."""
    if not value:
        return None
    if CONTACT_ADDRESS.fullmatch(value):
        return value, "mailto:" + value
    if CONTACT_URL.fullmatch(value):
        return value, value
    return value, None


def ask_maintainers(address: str, note: str, app: Flask) -> None:
    """The background half of "Forgot password?" without e-mail: a request the maintainers see,
    for an active account; nothing for any other address (logged without it)."""
    with unit_of_work(app.extensions["curator.sessions"]) as session:
        asked = reset_requests.ask(session, address, note)
    if not asked:
        log.info("password reset asked for an address without an active account")


def send_reset(address: str, locale: str, app: Flask) -> None:
    """The background half of "Forgot password?": a link for an active account, e-mailed in the
    language the request's page spoke (`locale`); nothing for any other address (logged without it)."""
    settings = settings_of(app)
    with unit_of_work(app.extensions["curator.sessions"]) as session:
        made = people.request_reset(session, address)
    if made is None:
        log.info("password reset asked for an address without an active account")
        return
    to, token = made
    link = settings.link(people.reset_path(token))
    assert link is not None  # mail.may_mail_links: a base URL is set
    with speaking(locale):
        message = mail.self_service_reset(link, to, people.RESET_HOURS, _)
    try:
        mail.send(settings, to, *message)
    except mail.MailNotSent as exc:
        log.warning("%s", exc)


@bp.post("/logout")
@login_required
def logout():
    with write() as session:
        end_login_session(session, current_user.get_id())
    locale = select_locale()
    logout_user()
    new_csrf_secret()
    flash(_("Signed out. Thank you!"), "info")
    return remember_locale(redirect(url_for("auth.login")), locale)  # the sign-in page keeps the language


@bp.post("/locale")
def set_locale():
    """The language switcher: the cookie (anyone) and `users.locale` (signed in), then back to the
    page the form was on (a same-site path only)."""
    locale = request.form.get("locale", "")
    if locale not in LOCALES:
        abort(422, _("Choose one of the languages offered."))
    if current_user.is_authenticated and current_user.locale != locale:
        with write():
            current_user.locale = locale
    return remember_locale(redirect(_safe_next(request.form.get("next"))), locale)


@bp.route("/invite/<token>", methods=["GET", "POST"])
def invite(token: str):
    session = db()
    invitation = open_invite(session, token)
    signed_in = current_user if current_user.is_authenticated else None
    if request.method == "POST":
        form = request.form
        if signed_in is None and form.get("password") != form.get("password2"):
            flash(_("The two passwords differ."), "error")
            return render_template("invite.html", invite=invitation, form=form, signed_in=None), 422
        try:
            with write() as session:
                user = accept_invite(
                    session, token, form.get("email", ""), form.get("name", ""), form.get("password", ""), signed_in
                )
        except Busy:
            raise  # a 503 with Retry-After (web/errors.py)
        except CuratorError as exc:  # the typed address isolated in the message (an Arabic page)
            flash(translated(exc, html=True), "error")
            return render_template("invite.html", invite=invitation, form=form, signed_in=signed_in), status_for(exc)
        if signed_in is None:  # a signed-in reviewer keeps their login session
            sign_in(user)
        flash(_("Welcome! Your sample is ready."), "info")
        # one language: straight to its review screen, whose guidelines end with the one
        # "Start reviewing" button (not a home page with a "Start" of its own in between)
        codes = list(invitation.languages)
        if len(codes) == 1:
            return redirect(url_for("review.screen", lang=codes[0]))
        return redirect(url_for("review.home"))
    return render_template("invite.html", invite=invitation, form={}, signed_in=signed_in)


@bp.route("/account", methods=["GET", "POST"])
@login_required
def account():
    """Change one's password: every sign-in of the account (other browsers, a remember cookie
    left on a shared computer) is revoked; this browser gets a fresh one."""
    if request.method == "POST":
        form = request.form
        if form.get("password") != form.get("password2"):
            flash(_("The two new passwords differ."), "error")
            return render_template("account.html"), 422
        try:
            with write() as session:
                change_password(session, current_user, form.get("current", ""), form.get("password", ""))
        except Busy:
            raise
        except CuratorError as exc:  # every POST here counted by the account page's rate limit (web/limits.py)
            flash(translated(exc), "error")
            return render_template("account.html"), status_for(exc)
        remember = request.cookies.get(current_app.config.get("REMEMBER_COOKIE_NAME", "remember_token")) is not None
        sign_in(current_user._get_current_object(), remember=remember)
        flash(_("Password changed. Other browsers are signed out."), "info")
        return redirect(url_for("auth.account"))
    return render_template("account.html")

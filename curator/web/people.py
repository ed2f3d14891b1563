"""People (issue 28 §4): every account with its role, languages, state and last sign-in
(/admin/users) with the open password-reset requests made in the app (review.reset_requests),
one account's page with the forms that change it (/admin/users/<id>: deactivate or reactivate,
role, assign or unassign a language, a password-reset link, dismissing its request), and the
page a reset link opens (/reset/<token>, rate-limited like an invitation: web/limits.py).

The changes are review.people's (each recorded in the activity log); a refusal (the last
maintainer, one's own account, an unknown language) is a message on the account's page and
changes nothing. A reset link is shown once on the page, and e-mailed as well when SMTP is
configured (review.mail); a failed send says so and the link is still shown."""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, logout_user
from sqlalchemy import select

from curator.core.enums import Role, values
from curator.core.errors import Busy, CuratorError
from curator.core.models import Language
from curator.review import mail, people, reset_requests
from curator.review.accounts import MIN_PASSWORD
from curator.web import fields
from curator.web.auth import maintainer_required, sign_in
from curator.web.context import db, write
from curator.web.errors import status_for, translated
from curator.web.i18n import language_name
from curator.web.labels import label
from curator.web.settings import current_settings

bp = Blueprint("people", __name__)


@bp.get("/admin/users")
@maintainer_required
def index():
    session = db()
    return render_template("people.html", rows=people.people(session), requests=reset_requests.open_requests(session))


def _person_page(user_id: int, status: int = 200, link: str | None = None, mailed: bool = False):
    session = db()
    rows = people.people(session, user_id)
    if not rows:
        people.get_person_by_id(session, user_id)  # 404
    codes = session.scalars(select(Language.code).order_by(Language.code)).all()
    person = rows[0]
    assigned = {row.code for row in person.assigned}
    return render_template(
        "person.html",
        person=person,
        codes=[c for c in codes if c not in assigned],
        roles=values(Role),
        link=link,
        mailed=mailed,
        hours=people.RESET_HOURS,
        is_self=person.id == current_user.id,
        asked=reset_requests.open_request(session, person.id) if person.active else None,
    ), status


@bp.get("/admin/users/<int:user_id>")
@maintainer_required
def person(user_id: int):
    return _person_page(fields.row_id(user_id))


def _change(user_id: int, action, done: str):
    """Run one change of the account's page: done, back to the page with a message; refused, the
    page with the reason (and the status of the refusal), nothing changed."""
    try:
        with write() as session:
            action(session, people.get_person_by_id(session, user_id))
    except Busy:
        raise  # 503 with Retry-After (web/errors.py)
    except CuratorError as exc:
        flash(translated(exc), "error")
        return _person_page(user_id, status=status_for(exc))
    flash(done, "info")
    return redirect(url_for("people.person", user_id=user_id))


@bp.post("/admin/users/<int:user_id>/active")
@maintainer_required
def active(user_id: int):
    user_id = fields.row_id(user_id)
    action = request.form.get("action", "")
    if action == "deactivate":
        if request.form.get("confirm") != "1":  # the page's checkbox, checked here (not only by the browser)
            flash(_("Not deactivated: tick the box to confirm first."), "error")
            return _person_page(user_id, status=422)
        return _change(
            user_id,
            lambda s, u: people.deactivate(s, current_user, u),
            _("Deactivated: signed out everywhere, API token revoked; the account's decisions are kept."),
        )
    if action == "reactivate":
        return _change(
            user_id,
            lambda s, u: people.reactivate(s, current_user, u),
            _("Reactivated: the account signs in with its password."),
        )
    flash(_("action: choose deactivate or reactivate."), "error")
    return _person_page(user_id, status=422)


@bp.post("/admin/users/<int:user_id>/role")
@maintainer_required
def role(user_id: int):
    user_id = fields.row_id(user_id)
    new = request.form.get("role", "")
    return _change(
        user_id,
        lambda s, u: people.change_role(s, current_user, u, new),
        _("Role changed to %(role)s.", role=label("role", new)),
    )


@bp.post("/admin/users/<int:user_id>/languages")
@maintainer_required
def language(user_id: int):
    user_id = fields.row_id(user_id)
    action, code = request.form.get("action", ""), request.form.get("language", "")
    if action == "assign":
        return _change(
            user_id,
            lambda s, u: people.assign_language(s, current_user, u, code),
            _("%(language)s assigned.", language=language_name(code, standalone=True)),
        )
    if action == "unassign":
        return _change(
            user_id,
            lambda s, u: people.unassign_language(s, current_user, u, code),
            _(
                "%(language)s unassigned: hidden from the reviewer; their decisions still count.",
                language=language_name(code, standalone=True),
            ),
        )
    flash(_("action: choose assign or unassign."), "error")
    return _person_page(user_id, status=422)


@bp.post("/admin/users/<int:user_id>/reset")
@maintainer_required
def reset_link(user_id: int):
    """A one-time link, shown once on the page (never in a cookie) and e-mailed when configured."""
    user_id = fields.row_id(user_id)
    try:
        with write() as session:
            user = people.get_person_by_id(session, user_id)
            token = people.create_reset(session, current_user, user)[1]
            email = user.email
    except Busy:
        raise
    except CuratorError as exc:
        flash(translated(exc), "error")
        return _person_page(user_id, status=status_for(exc))
    path = people.reset_path(token)
    mailed = send_link(email, path, lambda link: mail.password_reset(link, email, people.RESET_HOURS))
    return _person_page(user_id, link=public_link(path), mailed=mailed)


@bp.post("/admin/users/<int:user_id>/reset-request")
@maintainer_required
def dismiss_request(user_id: int):
    """Close the account's open password-reset request without a link (a request it did not
    make, or one settled another way); recorded in the activity log."""
    user_id = fields.row_id(user_id)
    return _change(
        user_id,
        lambda s, u: reset_requests.dismiss(s, current_user, u),
        _("Request dismissed: no link was made."),
    )


def public_link(path: str) -> str:
    """A link a maintainer copies from the page (an invitation, a reset link): `Settings.link` —
    the configured base URL (CURATOR_BASE_URL) and the app's path; without one, the address this
    maintainer's request came to, which they see on the page before passing it on. Never
    e-mailed: `send_link` builds its own from the base URL alone."""
    return current_settings().link(path) or request.url_root.rstrip("/") + path


def send_link(to: str | None, path: str, compose: Callable[[str], tuple[str, str]]) -> bool:
    """E-mail the link to `path` (`compose(link)` gives the subject and body) when there is an
    address and e-mail may carry links (review.mail.may_mail_links: SMTP and CURATOR_BASE_URL):
    True when sent. With SMTP but no base URL nothing is sent and the page asks the maintainer to
    set CURATOR_BASE_URL (the link is shown to copy); a failed send is one message on the page."""
    settings = current_settings()
    if not to or not mail.configured(settings):
        return False
    link = settings.link(path)
    if link is None or not mail.may_mail_links(settings):
        flash(
            _(
                "Not e-mailed: set CURATOR_BASE_URL (the address the app is served at) so that e-mailed links work. Copy the link below instead."
            ),
            "error",
        )
        return False
    try:
        mail.send(settings, to, *compose(link))
    except mail.MailNotSent as exc:
        flash(translated(exc), "error")
        return False
    return True


@bp.route("/reset/<token>", methods=["GET", "POST"])
def reset(token: str):
    """Choose a new password from a reset link: every sign-in of the account (this browser's
    too) and its API token are revoked; this browser is then signed in with a new login session."""
    user = people.open_reset(db(), token)[1]  # a used, expired or deactivated link: its page (404/410)
    email = user.email
    if request.method == "POST":
        form = request.form
        if form.get("password") != form.get("password2"):
            flash(_("The two passwords differ."), "error")
            return render_template("reset.html", email=email, minimum=MIN_PASSWORD), 422
        try:
            with write() as session:
                user = people.use_reset(session, token, form.get("password", ""))
        except Busy:
            raise
        except CuratorError as exc:
            flash(translated(exc), "error")
            return render_template("reset.html", email=email, minimum=MIN_PASSWORD), status_for(exc)
        if current_user.is_authenticated:
            logout_user()  # whoever was signed in here: their login session may be one just revoked
        sign_in(user)  # the one who chose the password is signed in with it (a new login session)
        flash(_("Password changed. You are signed in."), "info")
        return redirect(url_for("review.home"))
    return render_template("reset.html", email=email, minimum=MIN_PASSWORD)

"""Maintainer pages: coverage overview, a language's candidates, reviewers and invitations."""

from __future__ import annotations

import base64
import binascii
import secrets
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask import session as browser_session
from flask_babel import gettext as _
from flask_login import current_user
from sqlalchemy import func, select

from curator.core import languages
from curator.core.errors import Busy, CuratorError
from curator.core.models import Language, LanguageCoverage, Relation, TranslationLine, User
from curator.core.models.base import utcnow
from curator.quality.checks import WARN_SIMILARITY
from curator.quality.signals import QUEUE_ORDERS
from curator.review import mail
from curator.review.invitations import (
    INVITE_DAYS,
    create_invite,
    invite_path,
    pending_invites,
    resend_invite,
    revoke_invite,
)
from curator.review.overview import DECISION_FILTERS, RISK_BANDS, RowFilter, language_counts, language_rows
from curator.review.policy import language_policy
from curator.review.progress import progress, queue
from curator.review.sampling import set_queue_order
from curator.web import fields
from curator.web.auth import maintainer_required
from curator.web.context import db, write
from curator.web.errors import status_for, translated
from curator.web.i18n import language_name
from curator.web.people import public_link, send_link

bp = Blueprint("admin", __name__, url_prefix="/admin")


@bp.get("/coverage")
@maintainer_required
def overview():
    session = db()
    coverage = session.scalars(select(LanguageCoverage).order_by(LanguageCoverage.language)).all()
    lines = dict(
        session.execute(select(TranslationLine.language, func.count()).group_by(TranslationLine.language)).all()
    )
    return render_template(
        "overview.html",
        coverage=coverage,
        lines=lines,
        languages=languages,
        counts=language_counts(session),
        relations=session.scalar(select(func.count()).select_from(Relation)),
    )


FILTER_KEYS = ("q", "decision", "disagreement", "unsure", "band", "relation", "order")


def _filter_args() -> dict:
    """The page's filters as they are in the URL (for the form and the page links)."""
    return {k: request.args.get(k, "") for k in FILTER_KEYS if request.args.get(k)}


def _switch(args: dict, key: str) -> bool:
    """A checkbox filter: on for 1, on or true (what the form and hand-written URLs send), off otherwise."""
    return args.get(key, "").strip().lower() in ("1", "on", "true")


@bp.get("/languages/<code>")
@maintainer_required
def language(code: str):
    languages.check_code(code, "the URL")
    session = db()
    args = _filter_args()
    page_number = fields.query_int("page", 1)  # absent or empty `page=`: the first page
    flt = RowFilter(
        q=args.get("q", ""),
        decision=args.get("decision", ""),
        disagreement=_switch(args, "disagreement"),
        unsure=_switch(args, "unsure"),
        band=args.get("band", ""),
        relation=args.get("relation", ""),
        order=args.get("order", "relation"),
        page=page_number,
    )
    result = language_rows(session, code, flt)
    counts = language_counts(session, [code]).get(code)
    language_row = session.get(Language, code)
    return render_template(
        "language.html",
        code=code,
        name=language_name(code),
        dir=languages.direction(code),
        coverage=session.get(LanguageCoverage, code),
        counts=counts,
        result=result,
        args=args,
        decisions=DECISION_FILTERS,
        bands=RISK_BANDS,
        queue_order=language_row.queue_order if language_row else "random",
        merge_policy=language_policy(session, code),
        policy_override=language_row is not None and language_row.merge_policy is not None,
        warn=WARN_SIMILARITY,
        orders=QUEUE_ORDERS,
    )


@bp.post("/languages/<code>/queue-order")
@maintainer_required
def queue_order(code: str):
    languages.check_code(code, "the URL")
    try:
        with write() as session:
            set_queue_order(session, code, request.form.get("order", ""), current_user)
    except Busy:
        raise  # a 503 with Retry-After (web/errors.py), not a flash
    except CuratorError as exc:
        flash(translated(exc), "error")
    else:
        if request.form["order"] == "risk":
            message = _("New reviewers of %(language)s get their sample riskiest first.", language=language_name(code))
        else:
            message = _("New reviewers of %(language)s get their sample in random order.", language=language_name(code))
        flash(message, "info")
    return redirect(url_for("admin.language", code=code))


def _reviewers_page(
    link: str | None = None,
    form: dict | None = None,
    status: int = 200,
    resent: int | None = None,
    mailed: bool = False,
    gone: bool = False,
):
    session = db()
    users = session.scalars(select(User).order_by(User.role.desc(), User.email)).all()
    rows = []
    for user in users:
        for assignment in user.assignments:
            if assignment.unassigned_at is not None:  # taken off the language: on the people page
                continue
            rows.append(
                dict(
                    user=user, language=assignment.language, **progress(session, assignment, queue(session, assignment))
                )
            )
        if all(a.unassigned_at is not None for a in user.assignments):  # none, or every one taken off: listed, marked
            rows.append(dict(user=user, language=None, unassigned=sorted(a.language for a in user.assignments)))
    codes = session.scalars(
        select(LanguageCoverage.language).where(LanguageCoverage.included).order_by(LanguageCoverage.language)
    ).all()
    return render_template(
        "reviewers.html",
        rows=rows,
        invites=pending_invites(session),
        link=link,
        codes=codes,
        languages=languages,
        form=form or {},
        now=utcnow(),
        resent=resent,
        mailed=mailed,
        gone=gone,
    ), status


PAD = "invite_link_pad"  # the session key of the one-time pad of the link just made (below)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _show_link_once(token: str, mailed: bool, resent: int | None = None):
    """Post/redirect/get for a link just made: reloading the page it lands on makes no second
    invitation (nor a second new link). The token crosses the redirect in two halves, neither
    of which is the link: a one-time pad in the (signed) session cookie, and the token XOR the
    pad in the URL. The page that shows the link pops the pad, so a reload, the URL in the
    history or a server log show nothing."""
    raw = token.encode()
    pad = secrets.token_bytes(len(raw))
    browser_session[PAD] = _b64(pad)
    sealed = _b64(bytes(a ^ b for a, b in zip(raw, pad, strict=True)))
    args: dict[str, Any] = {"link": sealed}
    if mailed:
        args["mailed"] = 1
    if resent is not None:
        args["resent"] = resent
    return redirect(url_for("admin.reviewers", **args), code=303)


def _link_shown_once() -> str | None:
    """The link `_show_link_once` handed over, the first time the page is shown (else None)."""
    sealed, pad = request.args.get("link"), browser_session.pop(PAD, None)
    if not sealed or not isinstance(pad, str):
        return None
    try:
        raw, key = _unb64(sealed), _unb64(pad)
    except (binascii.Error, ValueError):
        return None
    if len(raw) != len(key):
        return None
    token = bytes(a ^ b for a, b in zip(raw, key, strict=True)).decode("ascii", "replace")
    return public_link(invite_path(token))


@bp.route("/reviewers", methods=["GET", "POST"])
@maintainer_required
def reviewers():
    if request.method == "GET":
        link = _link_shown_once()
        gone = link is None and bool(request.args.get("link"))  # a reload: the link was shown once
        resent = request.args.get("resent", type=int) if link else None
        return _reviewers_page(link=link, mailed=bool(link and request.args.get("mailed")), resent=resent, gone=gone)
    codes = request.form.getlist("languages") or request.form.get("language_codes", "").replace(",", " ").split()
    fraction = request.form.get("fraction", "").strip()
    email, role = request.form.get("email", ""), request.form.get("role", "reviewer")
    form = {"email": email, "languages": codes, "fraction": fraction, "role": role}
    try:
        with write() as session:
            token = create_invite(session, codes, current_user, email, role, float(fraction) if fraction else None)[1]
    except Busy:
        raise
    except CuratorError as exc:
        flash(translated(exc), "error")
        return _reviewers_page(form=form, status=status_for(exc))
    except ValueError:
        flash(_("Invalid sample fraction: %(value)s", value=fraction), "error")
        return _reviewers_page(form=form, status=422)
    mailed = send_link(email.strip(), invite_path(token), lambda link: mail.invitation(link, role, codes, INVITE_DAYS))
    return _show_link_once(token, mailed)


@bp.post("/invites/<int:invite_id>/revoke")
@maintainer_required
def revoke(invite_id: int):
    try:
        with write() as session:
            invite = revoke_invite(session, invite_id, current_user)
            who = invite.email or _("invitation #%(id)s", id=invite.id)
    except Busy:
        raise
    except CuratorError as exc:
        flash(translated(exc), "error")
    else:
        flash(_("Withdrew the invitation for %(who)s: its link no longer works.", who=who), "info")
    return redirect(url_for("admin.reviewers"))


@bp.post("/invites/<int:invite_id>/resend")
@maintainer_required
def resend(invite_id: int):
    """A fresh link for the same invitation; shown once, on the page the POST redirects to (never
    whole in a cookie nor in the URL: `_show_link_once`)."""
    try:
        with write() as session:
            invite, token = resend_invite(session, invite_id, current_user)
            invite_id, email, role, codes = invite.id, invite.email, invite.role, list(invite.languages)
    except Busy:
        raise
    except CuratorError as exc:
        flash(translated(exc), "error")
        return _reviewers_page(status=status_for(exc))
    mailed = send_link(email, invite_path(token), lambda link: mail.invitation(link, role, codes, INVITE_DAYS))
    return _show_link_once(token, mailed, resent=invite_id)

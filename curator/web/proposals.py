"""A language's Proposals page (issue 28 §1): the amendments and suggestions of its reviewers with
their status, for maintainers to accept, edit or drop with a reason, and each reviewer's
"trusted" toggle (curator/review/proposals.py holds the rules)."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user
from sqlalchemy import select

from curator.core import languages
from curator.core.enums import Policy, ProposalStatus, ProposalVerdict, values
from curator.core.errors import Busy, CuratorError, InputError
from curator.core.models import Assignment, User
from curator.core.paging import page_count
from curator.review import proposal_answers as answers
from curator.review import proposals as service
from curator.review.policy import language_policy
from curator.web import fields
from curator.web.auth import maintainer_required
from curator.web.context import db, write
from curator.web.errors import status_for, translated
from curator.web.i18n import language_name

bp = Blueprint("proposals", __name__, url_prefix="/admin")

ACTIONS = ("confirm", "edit", "drop")
ALL = "all"  # the filter's choice of every status
DEFAULT_STATUS = ProposalStatus.UNCONFIRMED.value  # what waits on a maintainer; imports are thousands
PAGE_SIZE = 50


def _status_filter(strict: bool = False) -> str:
    """The status shown: `status` of the query (a GET) or the form's hidden `filter` (after an
    answer), "all", or by default the unconfirmed ones. `strict`: an unknown one is a 422 naming
    the field (a GET); after an answer is stored it falls back to the default instead."""
    status = request.args.get("status", "") or request.form.get("filter", "")
    if not status:
        return DEFAULT_STATUS
    if status == ALL or status in service.STATUSES:
        return status
    if strict:
        raise InputError(_("Choose a status to show, or “all” (field “status”)."))
    return DEFAULT_STATUS


def _page_number() -> int:
    """The page asked for (query `page`, or the form's hidden `page` after an answer)."""
    if "page" in request.args:
        return fields.query_int("page", 1)
    raw = request.form.get("page", "")
    return int(raw) if raw.isdigit() and 0 < len(raw) <= 9 and int(raw) > 0 else 1


def _policy() -> str | None:
    """The merge policy the statuses are judged under: `policy` of the query or the form (the
    preview's links pass theirs), else None: the language's stored one (review/policy.py), as is
    one the page does not know. Under majority or unanimous a second reviewer's accept may not be
    enough, and the page then shows such a proposal as waiting, as a build with that policy
    withholds it."""
    policy = request.args.get("policy", "") or request.form.get("policy", "")
    return policy if policy in values(Policy) else None


def _page(code: str, status: int = 200, form: dict[str, str] | None = None, strict: bool = False):
    session = db()
    policy = _policy()
    every = service.proposals(session, code, policy=policy)  # None: the language's stored policy
    wanted = _status_filter(strict)
    reviewers = session.execute(
        select(User.email, Assignment.trusted)
        .join(Assignment, Assignment.user_id == User.id)
        .where(Assignment.language == code, Assignment.unassigned_at.is_(None))
        .order_by(User.email)
    ).all()
    counts: dict[str, int] = {}
    for p in every:
        counts[p.status.value] = counts.get(p.status.value, 0) + 1
    shown = [p for p in every if wanted == ALL or p.status == wanted]
    pages = page_count(len(shown), PAGE_SIZE)
    page = min(_page_number(), pages)  # past the end (the last rows answered): the last page
    return render_template(
        "proposals.html",
        code=code,
        name=language_name(code),
        dir=languages.direction(code),
        proposals=shown[(page - 1) * PAGE_SIZE : page * PAGE_SIZE],
        matched=len(shown),
        page=page,
        pages=pages,
        total=len(every),
        counts=counts,
        statuses=service.STATUSES,
        wanted=wanted,
        policy=policy,
        stored_policy=language_policy(session, code),
        policies=values(Policy),
        reviewers=reviewers,
        form=form or {},
    ), status


@bp.get("/languages/<code>/proposals")
@maintainer_required
def index(code: str):
    languages.check_code(code, "the URL")
    return _page(code, strict=True)


@bp.post("/languages/<code>/proposals")
@maintainer_required
def answer(code: str):
    """Accept, edit or drop one proposal (its relation and text in the form)."""
    languages.check_code(code, "the URL")
    form = {k: request.form.get(k, "") for k in ("relation", "text", "action", "edited", "reason")}
    action = form["action"]
    try:
        if action not in ACTIONS:
            raise InputError(_("Choose accept, edit or drop (field “action”)."))
        if action == "edit" and not form["edited"].strip():
            raise InputError(_("Write the edited template (field “edited”)."))
        with write() as session:
            proposal = answers.review_proposal(
                session,
                current_user,
                code,
                form["relation"],
                form["text"],
                ProposalVerdict.DROP if action == "drop" else ProposalVerdict.CONFIRM,
                form["reason"],
                edited_to=form["edited"] if action == "edit" else None,
            )
            text = proposal.text
    except Busy:
        raise  # 503 with Retry-After (web/errors.py), not a message
    except CuratorError as exc:
        flash(translated(exc), "error")
        return _page(code, status_for(exc), form)
    messages = {
        "confirm": _("Accepted “%(text)s”: it ships as checked by a human.", text=text),
        "edit": _("Edited: “%(text)s” replaces the proposal and ships as checked by a human.", text=text),
        "drop": _("Dropped “%(text)s”: it does not ship.", text=text),
    }
    flash(messages[action], "info")
    return redirect(
        url_for("proposals.index", code=code, status=_status_filter(), page=_page_number(), policy=_policy())
    )


@bp.post("/languages/<code>/trusted")
@maintainer_required
def trusted(code: str):
    """Trust a reviewer of the language (their proposals count as confirmed), or stop trusting them."""
    languages.check_code(code, "the URL")
    email, value = request.form.get("email", ""), request.form.get("trusted", "")
    try:
        if value not in ("0", "1"):
            raise InputError(_("Choose trusted or not (field “trusted”)."))
        with write() as session:
            answers.set_trusted(session, current_user, email, code, value == "1")
    except Busy:
        raise
    except CuratorError as exc:
        flash(translated(exc), "error")
        return _page(code, status_for(exc))
    if value == "1":
        flash(_("%(email)s is trusted in this language: their proposals count as confirmed.", email=email), "info")
    else:
        flash(_("%(email)s is no longer trusted: their proposals wait for a second look.", email=email), "info")
    return redirect(
        url_for("proposals.index", code=code, status=_status_filter(), page=_page_number(), policy=_policy())
    )

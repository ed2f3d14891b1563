"""Maintainer pages for comment threads (review.threads): a language's threads, open or
resolved, a page at a time (review.threads.PER_PAGE), each with its latest replies, a reply box and
resolve / reopen. Every form carries the CSRF
token and a request id (a resent form stores its reply once); a refused reply re-renders the
page (422) with the draft kept and the reason shown, nothing stored."""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from curator.core import languages
from curator.core.errors import Busy, CuratorError
from curator.review import threads
from curator.web import fields
from curator.web.auth import maintainer_required
from curator.web.context import db, write
from curator.web.errors import status_for, translated
from curator.web.i18n import language_name
from curator.web.mentions import notify as notify_mentions

bp = Blueprint("threads", __name__, url_prefix="/admin")

STATE_CHOICES = ("open", "resolved", "all")


def _state(value: str | None) -> str:
    """The page's filter: open (the default), resolved or all; anything else is bad input."""
    threads.check_state(value)
    return value or "open"


def _page_number() -> int:
    """The listing's page (`page`, from 1; review.threads.PER_PAGE threads a page), else 422."""
    return fields.query_int("page", 1)


def _page(code: str, state: str, draft: dict[int, str] | None = None, status: int = 200, page: int = 1):
    session = db()
    listing = threads.language_threads(session, current_user, code, threads.check_state(state), page=page)
    return render_template(
        "threads.html",
        code=code,
        name=language_name(code),
        dir=languages.direction(code),
        state=state,
        states=STATE_CHOICES,
        threads=listing["threads"],
        listing=listing,
        draft=draft or {},
        request_id=uuid.uuid4().hex,
    ), status


@bp.get("/languages/<code>/threads")
@maintainer_required
def index(code: str):
    languages.check_code(code, "the URL")
    return _page(code, _state(request.args.get("state")), page=_page_number())


def _form_page() -> int:
    """The listing page a form was sent from (back to it), 1 when absent or malformed."""
    raw = request.form.get("page", "")
    return int(raw) if raw.isdigit() and 0 < len(raw) <= 6 and int(raw) > 0 else 1


def _back(code: str, thread_id: int):
    state = request.form.get("state", "open")
    state = state if state in STATE_CHOICES else "open"
    page = _form_page()
    anchor = f"thread-{thread_id}"
    if page > 1:
        return redirect(url_for("threads.index", code=code, state=state, page=page, _anchor=anchor))
    return redirect(url_for("threads.index", code=code, state=state, _anchor=anchor))


@bp.post("/languages/<code>/threads/<int:thread_id>/reply")
@maintainer_required
def reply(code: str, thread_id: int):
    languages.check_code(code, "the URL")
    thread_id = fields.row_id(thread_id)
    text = request.form.get("text", "")
    request_id = request.form.get("request_id") or None
    try:
        with write() as session:
            row, created = threads.reply(session, current_user, code, thread_id, text, request_id=request_id)
    except Busy:
        raise  # 503 with Retry-After (web/errors.py)
    except CuratorError as exc:
        flash(translated(exc), "error")
        state = request.form.get("state", "open")
        state = state if state in STATE_CHOICES else "open"
        return _page(code, state, {thread_id: text}, status_for(exc), _form_page())
    if created:
        notify_mentions(row.id)  # e-mailed when configured (web/mentions.py)
    flash(_("Reply saved."), "info")
    return _back(code, thread_id)


def _set_state(code: str, thread_id: int, resolved: bool):
    languages.check_code(code, "the URL")
    thread_id = fields.row_id(thread_id)
    try:
        with write() as session:
            (threads.resolve if resolved else threads.reopen)(session, current_user, code, thread_id)
    except Busy:
        raise
    except CuratorError as exc:
        flash(translated(exc), "error")
    else:
        flash(_("Thread resolved.") if resolved else _("Thread reopened."), "info")
    return _back(code, thread_id)


@bp.post("/languages/<code>/threads/<int:thread_id>/resolve")
@maintainer_required
def resolve(code: str, thread_id: int):
    return _set_state(code, thread_id, True)


@bp.post("/languages/<code>/threads/<int:thread_id>/reopen")
@maintainer_required
def reopen(code: str, thread_id: int):
    return _set_state(code, thread_id, False)

"""Reviewer pages: my languages, the review screen, my decisions (with my suggestions and
comments, which can be edited or withdrawn here)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from flask_login import current_user, login_required

from curator.core import languages
from curator.core.enums import DecisionKind
from curator.core.errors import Busy, CuratorError, Forbidden, InputError
from curator.review import comments as comment_service
from curator.review import find as finding
from curator.review import guidelines, threads
from curator.review.progress import Progress, progress, queue
from curator.review.service import get_assignment
from curator.review.suggestions import edit_suggestion, list_suggestions, withdraw_suggestion
from curator.review.validation import keeps_case
from curator.review.waiting import waiting_counts, waiting_page
from curator.web import check_text, fields
from curator.web import find as find_pages
from curator.web.context import db, write
from curator.web.errors import translated
from curator.web.i18n import language_name, select_locale
from curator.web.mentions import home_context as mention_notes
from curator.web.mentions import notify as notify_mentions

bp = Blueprint("review", __name__)
# relation titles and quality checks in the page's language, for every page (web/check_text.py)
bp.add_app_template_global(check_text.relation_title, "relation_title")
bp.add_app_template_global(check_text.check_name, "check_name")
bp.add_app_template_global(check_text.check_description, "check_description")


@bp.app_template_global()
def decision_kinds() -> dict[str, str]:
    """The decision kinds by member name, for review.js (a JSON block of the review page): the
    script compares with `KINDS.AMEND`, never a raw "amend" (tests/core/test_enums.py)."""
    return {kind.name: kind.value for kind in DecisionKind}


@bp.app_template_global()
def time_left(p: Mapping[str, object]) -> str:
    """The one wording of the time left, on the home page and the review screen (the API sends
    it with every `progress` as `time_left`): from progress()'s `estimate_minutes`."""
    if not p.get("remaining"):
        return ""
    minutes = p.get("estimate_minutes") or 1
    return ngettext("about %(num)s minute left", "about %(num)s minutes left", minutes)


def with_time_left(p: Progress) -> dict[str, object]:
    return {**p, "time_left": time_left(p)}


@bp.get("/")
@login_required
def home():
    session = db()
    rows = []
    waiting = waiting_counts(session, current_user)  # replies to your comments (review.waiting)
    for assignment in current_user.assignments:
        if assignment.unassigned_at is not None:  # taken off the language (review.people)
            continue
        items = queue(session, assignment)
        rows.append(
            dict(
                code=assignment.language,
                name=language_name(assignment.language),
                dir=languages.direction(assignment.language),
                replies=waiting.get(assignment.language, 0),
                **progress(session, assignment, items),
            )
        )
    notes = mention_notes()  # @mentions (web/mentions.py)
    if not rows and current_user.is_maintainer and not notes["mentions_unread"]:
        return redirect(url_for("release.dashboard"))
    return render_template("home.html", rows=rows, **notes)


@bp.get("/review/<lang>")
@login_required
def screen(lang: str):
    session = db()
    assignment = get_assignment(session, current_user, lang)
    text = guidelines.get_guidelines(session, lang, select_locale())
    return render_template(
        "review.html",
        lang=lang,
        name=language_name(lang),
        dir=languages.direction(lang),
        assignment=assignment,
        keep_case=keeps_case(session),
        has_case=languages.has_case(lang),  # the hint about capitals: only for a script with letter case
        guidelines=guidelines.blocks(text),
        guidelines_seen=assignment.guidelines_seen_at is not None,
    )


@bp.get("/review/<lang>/history")
@login_required
def past(lang: str):
    session = db()
    assignment = get_assignment(session, current_user, lang)
    # your threads a page at a time (`page`), the replies waiting for you the oldest first, a page
    # at a time too (`replies_page`): each listing of review.threads, its own pager
    mine = threads.language_threads(session, current_user, lang, mine=True, page=fields.query_int("page", 1))
    waiting = waiting_page(session, current_user, fields.query_int("replies_page", 1), language=lang)
    # your decisions, by verdict and a search (review.find, as the API's): a refused filter is
    # said above the list, which then lists nothing
    error, status = None, 200
    try:
        decisions = finding.past_decisions(session, current_user, assignment, find_pages.past_query_from_request())
    except InputError as exc:
        error, status = find_pages.refused(exc), 422
        decisions = {"decisions": [], "matched": 0, "total": 0}
    return render_template(
        "history.html",
        lang=lang,
        name=language_name(lang),
        dir=languages.direction(lang),
        rows=decisions["decisions"],
        past=decisions,
        past_error=error,
        past_args=find_pages.filter_args(find_pages.PAST_FILTERS),
        verdicts=finding.VERDICTS,
        suggestions=list_suggestions(session, current_user, assignment),
        comments=mine["threads"],
        comments_page=mine,
        waiting=waiting["languages"].get(lang, []),
        waiting_page=waiting,
        request_id=uuid.uuid4().hex,
    ), status


def _act(lang: str, action, done):
    """Run a change from the history page's forms; refusals come back as a message. `done` is
    the message, or a function of what the action returned that gives it."""
    get_assignment(db(), current_user, lang)  # another language: 403, not a message
    try:
        with write() as session:
            assignment = get_assignment(session, current_user, lang)
            result = action(session, assignment)
    except Busy:
        raise  # 503 with Retry-After (web/errors.py)
    except CuratorError as exc:
        flash(translated(exc), "error")
    else:
        flash(done(result) if callable(done) else done, "info")
    return redirect(url_for("review.past", lang=lang))


@bp.post("/review/<lang>/threads/<int:thread_id>/reply")
@login_required
def reply_form(lang: str, thread_id: int):
    """A reply from the history page (a thread the reviewer wrote in or was mentioned in):
    review.threads.reply, the rule of the review screen, the API and the maintainers' threads
    page (reviewers of the language and maintainers, else 403; a resent form stores its reply
    once, by its request id). Back to the thread, with a refusal as a message."""
    lang, thread_id = fields.url_part("language", lang, 32), fields.row_id(thread_id)
    text, request_id = request.form.get("text", ""), request.form.get("request_id") or None
    if current_user.is_maintainer:
        back = url_for("threads.index", code=lang, state="all", _anchor=f"thread-{thread_id}")
    else:
        back = url_for("review.past", lang=lang, _anchor=f"thread-{thread_id}")
    try:
        with write() as session:
            row, created = threads.reply(session, current_user, lang, thread_id, text, request_id=request_id)
    except (Busy, Forbidden):
        raise  # 503 with Retry-After; 403 for a language one does not review (web/errors.py)
    except CuratorError as exc:
        flash(translated(exc), "error")
        return redirect(back)
    if created:
        notify_mentions(row.id)  # e-mailed when configured (web/mentions.py)
    flash(_("Reply saved."), "info")
    return redirect(back)


@bp.post("/review/<lang>/suggestions/<int:suggestion_id>/edit")
@login_required
def edit_suggestion_form(lang: str, suggestion_id: int):
    lang, suggestion_id = fields.url_part("language", lang, 32), fields.row_id(suggestion_id)
    text = request.form.get("text", "")
    # the same suggestion back: the text did not change (a resent form gets the one it made)
    return _act(
        lang,
        lambda s, a: edit_suggestion(s, current_user, a, suggestion_id, text),
        lambda result: _("Nothing changed.") if result[0].id == suggestion_id else _("Suggestion changed."),
    )


@bp.post("/review/<lang>/suggestions/<int:suggestion_id>/withdraw")
@login_required
def withdraw_suggestion_form(lang: str, suggestion_id: int):
    lang, suggestion_id = fields.url_part("language", lang, 32), fields.row_id(suggestion_id)
    return _act(lang, lambda s, a: withdraw_suggestion(s, current_user, a, suggestion_id), _("Suggestion withdrawn."))


@bp.post("/review/<lang>/comments/<int:comment_id>/withdraw")
@login_required
def withdraw_comment_form(lang: str, comment_id: int):
    lang, comment_id = fields.url_part("language", lang, 32), fields.row_id(comment_id)
    return _act(
        lang, lambda s, a: comment_service.withdraw_comment(s, current_user, a, comment_id), _("Comment withdrawn.")
    )

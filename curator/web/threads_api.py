"""The JSON API of comment threads (review.threads; docs/review-api.md): reply, resolve and
reopen, a language's threads and one thread a page at a time, and the replies waiting for you
(review.waiting). The same `/api/v1` as the review screen's API (web/api.py), whose field
helpers it shares."""

from __future__ import annotations

from flask import Blueprint, jsonify, request
from flask_login import current_user, login_required

from curator.core.paging import MAX_PER_PAGE
from curator.review import threads, waiting
from curator.web import fields
from curator.web.api import TEXT, decision_source, language_part, request_id_of
from curator.web.context import db, write
from curator.web.mentions import notify as notify_mentions

bp = Blueprint("threads_api", __name__, url_prefix="/api/v1")


def _thread_state() -> threads.State | None:
    return threads.check_state(request.args.get("state"))


@bp.post("/languages/<lang>/comments/<int:comment_id>/replies")
@login_required
def reply_to_comment(lang: str, comment_id: int):
    """A reply in the thread of that comment (reviewers of the language and maintainers). The
    answer is the reply alone (`thread`: its thread's id), never the whole thread; rate-limited
    per account (web/limits.py, CURATOR_RATELIMIT_REPLY)."""
    lang, comment_id, body = language_part(lang), fields.row_id(comment_id), fields.body()
    text, request_id = fields.text(body, "text", TEXT, allow_empty=False), request_id_of(body)
    with write() as session:
        row, created = threads.reply(
            session, current_user, lang, comment_id, text, request_id=request_id, source=decision_source()
        )
        answer = threads.reply_record(session, current_user, row)
    if created:
        notify_mentions(row.id)  # e-mailed when configured (web/mentions.py)
    return jsonify(reply=answer, thread=row.parent_id, created=created), 201 if created else 200


def _page_args() -> tuple[int, int]:
    """`page` and `per_page` of a thread listing (review.threads: per_page at most MAX_PER_PAGE), else 422."""
    return (
        fields.query_int("page", 1),
        fields.query_int("per_page", threads.PER_PAGE, 1, MAX_PER_PAGE),
    )


def _thread_state_change(change, lang: str, comment_id: int):
    """Resolve or reopen the thread (`change`: threads.resolve or threads.reopen); the thread as it is now."""
    lang, comment_id = language_part(lang), fields.row_id(comment_id)
    with write() as session:
        root = change(session, current_user, lang, comment_id)
        thread = threads.get_thread(session, current_user, lang, root.id)
    return jsonify(thread=thread)


@bp.post("/languages/<lang>/comments/<int:comment_id>/resolve")
@login_required
def resolve_thread(lang: str, comment_id: int):
    return _thread_state_change(threads.resolve, lang, comment_id)


@bp.post("/languages/<lang>/comments/<int:comment_id>/reopen")
@login_required
def reopen_thread(lang: str, comment_id: int):
    return _thread_state_change(threads.reopen, lang, comment_id)


@bp.get("/languages/<lang>/threads")
@login_required
def list_threads(lang: str):
    """One page of the language's threads (`state`: open, resolved or all; `mine=1`: those you
    opened or wrote in; `page`, `per_page`), each with its latest replies and `reply_count`."""
    lang, state = language_part(lang), _thread_state()
    mine = request.args.get("mine", "") in ("1", "true", "on")
    page, per_page = _page_args()
    return jsonify(threads.language_threads(db(), current_user, lang, state, mine=mine, page=page, per_page=per_page))


@bp.get("/languages/<lang>/threads/<int:comment_id>")
@login_required
def get_thread(lang: str, comment_id: int):
    """The thread with one page of its replies, oldest first (`page`, `per_page`)."""
    lang, comment_id = language_part(lang), fields.row_id(comment_id)
    page, per_page = _page_args()
    return jsonify(threads.thread_page(db(), current_user, lang, comment_id, page, per_page))


@bp.get("/me/replies")
@login_required
def waiting_replies():
    """One page of the replies by others waiting for you (review.waiting: newer than your own
    latest post in an open thread); `count` counts them all."""
    page, per_page = _page_args()
    return jsonify(waiting.waiting_page(db(), current_user, page, per_page))

"""The Activity page: the activity log of every maintainer action (curator/review/activity.py),
newest first, filtered by action, actor, language and date through GET parameters (so a filtered
view is a link to share), paged by the id of the last entry shown, and as JSON for scripts."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, render_template, request
from sqlalchemy import select

from curator.core import languages
from curator.core.errors import InputError
from curator.core.models import Language
from curator.review import activity
from curator.web import fields
from curator.web.auth import maintainer_required
from curator.web.context import db
from curator.web.errors import translated

bp = Blueprint("activity", __name__, url_prefix="/admin")

PAGE_SIZE = 50
FILTERS = ("action", "actor", "language", "since")


def _args() -> dict[str, str]:
    """The filters as they are in the URL (for the form and the page links)."""
    return {k: request.args.get(k, "").strip()[:400] for k in FILTERS if request.args.get(k, "").strip()}


def _row(e: activity.ActivityRow) -> dict[str, Any]:
    return {
        "id": e.id,
        "at": e.at.isoformat(timespec="seconds") + "Z",  # stored as UTC
        "actor": e.actor,
        "action": e.action,
        "language": e.language,
        "target": e.target,
        "details": e.details,
    }


def detail(value: object) -> str:
    """A detail's value as a person reads it: a list joined by commas, none as a dash."""
    if value is None:
        return "–"
    if isinstance(value, list | tuple):
        return ", ".join(detail(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={detail(v)}" for k, v in value.items())
    return str(value)


# actions whose target ends with a template of the entry's language ("ar/P19: [X] وُلِد في [Y]"),
# and the details that hold one: shown isolated in the language's own direction, so an Arabic
# template keeps [X] and [Y] where they belong on any page (dir="auto" would take a template
# that starts with "[X]" for left-to-right)
TEMPLATE_TARGETS = frozenset({"resolution", "proposal", "line-drop", "line-restore"})
TEMPLATE_DETAILS = frozenset({"text", "pattern", "correction", "translation"})


def target_parts(e: activity.ActivityRow) -> tuple[str, str | None]:
    """(what it is about, the template) for an entry whose target ends with a template of its
    language; (the whole target, None) for any other."""
    head, sep, text = e.target.partition(": ")
    if e.action in TEMPLATE_TARGETS and e.language and sep:
        return head, text
    return e.target, None


@bp.get("/activity")
@maintainer_required
def index():
    session = db()
    args = _args()
    before = fields.query_int("before", 0) or None
    error: str | None = None
    rows: list[activity.ActivityRow] = []
    older: int | None = None
    try:
        filters = activity.check_filters(session, **args)
        rows, older = activity.page(session, filters, PAGE_SIZE, before)
    except InputError as exc:
        error = translated(exc)  # with the field it names, as the CLI says it
    return render_template(
        "activity.html",
        args=args,
        error=error,
        rows=rows,
        older=older,
        before=before,
        actions=activity.ACTIONS,
        actors=activity.actors(session),
        codes=session.scalars(select(Language.code).order_by(Language.code)).all(),
        languages=languages,
        command_line=activity.COMMAND_LINE,
        detail=detail,
        target_parts=target_parts,
        template_details=TEMPLATE_DETAILS,
    ), (422 if error else 200)


@bp.get("/activity.json")
@maintainer_required
def as_json() -> tuple[Response, int]:
    """The same entries as JSON: `entries` newest first, and `older` (the `before` of the next
    page, or null). Bad filters: 422 with `{"error": …}` naming the field."""
    session = db()
    try:
        before = fields.query_int("before", 0) or None
        limit = fields.query_int("limit", 200, 1, activity.MAX_LIMIT)
        filters = activity.check_filters(session, **_args())
        rows, older = activity.page(session, filters, limit, before)
    except InputError as exc:
        return jsonify(error=translated(exc)), 422
    return jsonify(entries=[_row(e) for e in rows], older=older), 200

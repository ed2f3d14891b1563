"""The Activity page: the activity log of every maintainer action (curator/review/activity.py),
newest first, filtered by action, actor, language and date through GET parameters (so a filtered
view is a link to share), paged by the id of the last entry shown, and as JSON for scripts."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, jsonify, render_template, request
from flask_babel import gettext as _
from sqlalchemy import select

from curator.core.enums import Activity
from curator.core.errors import InputError
from curator.core.models import Language
from curator.review import activity
from curator.review.policy import PROJECT
from curator.web import fields
from curator.web.auth import maintainer_required
from curator.web.context import db
from curator.web.errors import translated
from curator.web.labels import detail_value, label

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
# and the glossary's English terms: data in English (`lang="en"`), whatever the page's language
ENGLISH_DETAILS = frozenset({"term"})


def target_lang(e: activity.ActivityRow) -> str | None:
    """The language of an entry's target when it is an English glossary term ("en"), else None."""
    return "en" if e.action == Activity.GLOSSARY and e.target == e.details.get("term") else None


def target_parts(e: activity.ActivityRow) -> tuple[str, str | None]:
    """(what it is about, the template) for an entry whose target ends with a template of its
    language; (the whole target, None) for any other, said in the page's language where the
    log wrote it in words (`target_text`)."""
    head, sep, text = e.target.partition(": ")
    if e.action in TEMPLATE_TARGETS and e.language and sep:
        return head, text
    return target_text(e), None


def target_text(e: activity.ActivityRow) -> str:
    """An entry's target as a person reads it: the words the services log ("invitation #3",
    "thread #1 on template #66 (P19)", "guidelines", a policy or a queue order) in the page's
    language; an e-mail address, a version or a file name as it is."""
    target = e.target
    if e.action in (Activity.INVITE, Activity.INVITE_REVOKE, Activity.INVITE_RESEND):
        invitation = re.fullmatch(r"invitation #(\d+)", target)
        return _("invitation #%(id)s", id=invitation.group(1)) if invitation else target
    if e.action == Activity.COMMENT_RESOLVE:
        on_template = re.fullmatch(r"thread #(\d+) on template #(\d+) \((.*)\)", target)
        if on_template:
            thread, template, relation = on_template.groups()
            return _(
                "thread #%(thread)s on template #%(template)s (%(relation)s)",
                thread=thread,
                template=template,
                relation=relation,
            )
        on_relation = re.fullmatch(r"thread #(\d+) on the relation \((.*)\)", target)
        if on_relation:
            return _(
                "thread #%(thread)s on the relation (%(relation)s)", thread=on_relation[1], relation=on_relation[2]
            )
        return target
    if e.action == Activity.GUIDELINES:
        return {"guidelines": _("guidelines"), "default guidelines": _("default guidelines")}.get(target, target)
    if e.action == Activity.QUEUE_ORDER:
        return label("queue_order", target)
    if e.action == Activity.POLICY:
        return _("the project's policy") if target == PROJECT else label("policy", target)
    return target


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
        command_line=activity.COMMAND_LINE,
        detail=detail,
        detail_value=detail_value,
        target_parts=target_parts,
        template_details=TEMPLATE_DETAILS,
        english_details=ENGLISH_DETAILS,
        target_lang=target_lang,
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

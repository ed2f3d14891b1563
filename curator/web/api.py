"""JSON API behind the review screen, also usable by scripts (see docs/review-api.md).

Every value from the URL or the body goes through `fields` (type, length, range) before a
service sees it, so a malformed request is a JSON 422/404/400, never a 500."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, request
from flask_babel import gettext as _
from flask_login import current_user, login_required
from flask_wtf.csrf import generate_csrf

from curator.core.enums import DecisionSource
from curator.core.errors import N_, InputError, Retired
from curator.core.models import Template
from curator.quality.probe_hint import probe_hint
from curator.review import annotations as annotated_review
from curator.review import comments, guidelines, service, suggestions
from curator.review import context as item_extras
from curator.review import find as finding
from curator.review import progress as queueing
from curator.review.validation import SameAsTemplate, keeps_case, validate_correction, validate_template
from curator.web import fields
from curator.web.check_text import relation_title, translate_item
from curator.web.context import db, token_authenticated, write
from curator.web.errors import translated
from curator.web.find import past_query_from_request, query_from_request
from curator.web.i18n import language_name, select_locale
from curator.web.mentions import notify as notify_mentions
from curator.web.review import with_time_left
from curator.web.settings import current_settings

bp = Blueprint("api", __name__, url_prefix="/api/v1")


TEXT = 2000  # an amendment or suggestion (the service refuses templates over 500 with its own words)
CODE = 32  # a language code or relation id, as stored
REQUEST_ID = 64
DAY = 86400  # `seconds` beyond a day is not a measurement (the service caps what it stores at an hour)


def language_part(lang: str) -> str:
    """A language code from the URL, checked as a field (also web/threads_api.py)."""
    return fields.url_part("language", lang, CODE)


def request_id_of(body: dict[str, Any]) -> str | None:
    """The optional `request_id` that makes a write idempotent."""
    return fields.text(body, "request_id", REQUEST_ID, required=False, allow_empty=False)


def decision_source() -> DecisionSource:
    """Where a write came from: the API (a Bearer token) or the web page."""
    return DecisionSource.API if token_authenticated() else DecisionSource.WEB


@bp.get("/me")
@login_required
def me():
    session = db()
    return jsonify(
        id=current_user.id,
        email=current_user.email,
        name=current_user.name,
        role=current_user.role,
        languages=[
            dict(
                code=a.language, name=language_name(a.language), progress=with_time_left(queueing.progress(session, a))
            )
            for a in current_user.assignments
            if a.unassigned_at is None  # taken off the language (review.people)
        ],
    )


@bp.get("/csrf")
@login_required
def fresh_csrf_token():
    """A fresh CSRF token for a page open longer than a token lives (web/context.py,
    CSRF_LIFETIME): the review screen asks for one when its own is refused, checks that `user` is
    still the account it was opened for, and sends its request again (static/review/server.js)."""
    return jsonify(token=generate_csrf(), user=current_user.id)


@bp.get("/languages/<lang>/queue")
@login_required
def queue(lang: str):
    session = db()
    assignment = service.get_assignment(session, current_user, language_part(lang))
    items = queueing.queue(session, assignment)
    upcoming = queueing.next_undecided(items)
    return jsonify(
        items=[i.to_dict() for i in items],
        progress=with_time_left(queueing.progress(session, assignment, items)),
        next=upcoming.id if upcoming else None,
        guidelines_seen=assignment.guidelines_seen_at is not None,
    )


def _retired(lang: str, exc: Retired):
    """409 for an item retired from the queue meanwhile (its proposal withdrawn by its author):
    `{"error", "code": "retired", "progress", "next"}` — nothing stored, and where to go on: the
    next undecided item after it (wrapping round), `null` when none is left."""
    session = db()
    assignment = service.get_assignment(session, current_user, lang)
    progress, upcoming = queueing.progress_and_next(session, assignment, after=exc.position)
    return jsonify(error=translated(exc), code=exc.code, progress=with_time_left(progress), next=upcoming), 409


@bp.get("/languages/<lang>/items/<int:item_id>")
@login_required
def item(lang: str, item_id: int):
    session = db()
    lang = language_part(lang)
    try:
        found = service.find_item(session, current_user, lang, fields.row_id(item_id))
    except Retired as exc:
        return _retired(lang, exc)
    assignment = found.assignment
    context = service.item_context(session, current_user, assignment, found.item, found)
    probe = probe_hint(
        current_settings().runs, assignment.language, context["relation"]["id"], context["template"]["text"]
    )
    language = {**context["language"], "name": language_name(assignment.language)}  # in the page's language
    return jsonify({**translate_item(dict(context)), "language": language, "probe": probe})


@bp.get("/languages/<lang>/find")
@login_required
def find_items(lang: str):
    """Your queue's items that the filters and the text search ask for, one page (review.find;
    the Find page's query string: show, verdict, relation, q, page, per_page). Rate-limited with the page."""
    return jsonify(finding.find_items(db(), current_user, language_part(lang), query_from_request()))


@bp.get("/languages/<lang>/items/<int:item_id>/context")
@login_required
def item_context_panels(lang: str, item_id: int):
    """The review screen's context panels: machine translations, other languages, memory."""
    session = db()
    found = service.find_item(session, current_user, language_part(lang), fields.row_id(item_id))
    template = session.get_one(Template, found.item.template_id)
    chosen = [c for c in item_extras.chosen_languages(session, current_user) if c != template.language]
    return jsonify(
        machine=item_extras.machine_translations(session, template),
        languages=[
            {**entry, "name": language_name(entry["code"])}
            for entry in item_extras.other_languages(session, template.relation_id, chosen)
        ],
        memory=[_memory_in_ui_language(dict(m)) for m in item_extras.translation_memory(session, template)],
    )


def _memory_in_ui_language(match: dict[str, Any]) -> dict[str, Any]:
    """A translation-memory match with its relation's title in the interface language when there
    is one, else the English title; `title_lang` says which (the page marks English as such)."""
    title = relation_title(match["relation"])
    if title.lang == "en":
        return {**match, "title_lang": "en"}
    return {**match, "title": title.text, "title_lang": title.lang}


@bp.get("/me/context-languages")
@login_required
def context_languages():
    session = db()
    return jsonify(
        chosen=item_extras.chosen_languages(session, current_user),
        available=sorted(
            ({**entry, "name": language_name(entry["code"])} for entry in item_extras.available_languages(session)),
            key=lambda entry: (entry["name"].casefold(), entry["code"]),
        ),
    )


@bp.post("/me/context-languages")
@login_required
def choose_context_languages():
    body = fields.body()
    codes = body.get("languages")
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
        raise InputError(N_("Send the languages as a list of language codes."), params={})
    codes = [fields.text({"language": c}, "language", CODE) for c in codes]
    with write() as session:
        chosen = item_extras.choose_languages(session, current_user, codes)
    return jsonify(chosen=chosen)


@bp.post("/languages/<lang>/items/<int:item_id>/decision")
@login_required
def decide(lang: str, item_id: int):
    lang, item_id, body = language_part(lang), fields.row_id(item_id), fields.body()
    kind = fields.text(body, "decision", CODE)
    correction = fields.text(body, "correction", TEXT, required=False)
    reason = fields.text(body, "reason", TEXT, required=False)  # reject and unsure only (service.check_reason)
    seconds = fields.number(body, "seconds", 0, DAY)
    request_id = request_id_of(body)
    source = decision_source()
    # one unit of work: the item with what deciding needs (one statement), the decision, then
    # progress and the next item (one statement) — 8 round trips in all with the sign-in check
    try:
        with write() as session:
            found = service.find_item(session, current_user, lang, item_id, request_id=request_id, deciding=True)
            decision, created = service.decide(
                session,
                current_user,
                found.assignment,
                found.item,
                kind,
                correction,
                seconds,
                request_id,
                source,
                standing=found.standing,
                reason=reason,
            )
            progress, upcoming = queueing.progress_and_next(session, found.assignment, after=found.item.position)
    except Retired as exc:  # its proposal was withdrawn meanwhile: nothing stored, on to the next one
        return _retired(lang, exc)
    return jsonify(
        decision=service.decision_dict(decision), created=created, progress=with_time_left(progress), next=upcoming
    ), 201 if created else 200


@bp.post("/languages/<lang>/undo")
@login_required
def undo(lang: str):
    lang = language_part(lang)
    # the body is optional (an undo without one is not idempotent): {"request_id": …}
    sent = request.get_json(silent=True) if request.content_length else None
    request_id = request_id_of(sent) if isinstance(sent, dict) else None
    item = sent.get("item") if isinstance(sent, dict) else None
    if item is not None and (not isinstance(item, int) or isinstance(item, bool)):
        raise InputError("item must be an item id")
    with write() as session:
        assignment = service.get_assignment(session, current_user, lang)
        undone, created = service.undo(
            session, current_user, assignment, request_id, fields.row_id(item) if item is not None else None
        )
    return jsonify(
        undone=service.decision_dict(undone) if undone else None,
        created=created,
        progress=with_time_left(queueing.progress(session, assignment)),
    )


@bp.post("/languages/<lang>/relations/<relation>/suggestions")
@login_required
def suggest(lang: str, relation: str):
    lang, relation, body = language_part(lang), fields.url_part("relation", relation, CODE), fields.body()
    text, request_id = fields.text(body, "text", TEXT), request_id_of(body)
    with write() as session:
        assignment = service.get_assignment(session, current_user, lang)
        suggestion, created = suggestions.suggest(
            session, current_user, assignment, relation, text, request_id, decision_source()
        )
    return jsonify(
        suggestion={"id": suggestion.id, "relation": suggestion.relation_id, "text": suggestion.text}, created=created
    ), 201 if created else 200


@bp.post("/languages/<lang>/suggestions/<int:suggestion_id>/withdraw")
@login_required
def withdraw_suggestion(lang: str, suggestion_id: int):
    lang, suggestion_id = language_part(lang), fields.row_id(suggestion_id)
    with write() as session:
        assignment = service.get_assignment(session, current_user, lang)
        row = suggestions.withdraw_suggestion(session, current_user, assignment, suggestion_id)
    return jsonify(suggestion={"id": row.id, "relation": row.relation_id, "text": row.text, "retracted": True})


@bp.get("/languages/<lang>/guidelines")
@login_required
def get_guidelines(lang: str):
    session = db()
    assignment = service.get_assignment(session, current_user, language_part(lang))
    return jsonify(
        text=guidelines.get_guidelines(session, assignment.language, select_locale()),
        seen=assignment.guidelines_seen_at is not None,
    )


@bp.post("/languages/<lang>/guidelines/seen")
@login_required
def guidelines_seen(lang: str):
    lang = language_part(lang)
    with write() as session:
        assignment = service.get_assignment(session, current_user, lang)
        guidelines.mark_seen(session, assignment)
        assert assignment.guidelines_seen_at is not None  # mark_seen set it
        seen_at = assignment.guidelines_seen_at.isoformat(timespec="seconds")
    return jsonify(seen=True, seen_at=seen_at)


def _comment_reply(comment, created: bool):
    """The answer to a new comment (after its unit of work): its @mentions e-mailed when configured."""
    if created:
        notify_mentions(comment.id)
    return jsonify(comment=comments.comment_dict(comment), created=created), 201 if created else 200


@bp.post("/languages/<lang>/items/<int:item_id>/comments")
@login_required
def comment_item(lang: str, item_id: int):
    lang, item_id, body = language_part(lang), fields.row_id(item_id), fields.body()
    text, request_id = fields.text(body, "text", TEXT), request_id_of(body)
    with write() as session:
        assignment = service.get_assignment(session, current_user, lang)
        found = service.get_item(session, assignment, item_id)
        comment, created = comments.add_comment(
            session, current_user, assignment, text, item=found, request_id=request_id, source=decision_source()
        )
    return _comment_reply(comment, created)


@bp.post("/languages/<lang>/relations/<relation>/comments")
@login_required
def comment_relation(lang: str, relation: str):
    lang, relation, body = language_part(lang), fields.url_part("relation", relation, CODE), fields.body()
    text, request_id = fields.text(body, "text", TEXT), request_id_of(body)
    with write() as session:
        assignment = service.get_assignment(session, current_user, lang)
        comment, created = comments.add_comment(
            session, current_user, assignment, text, relation=relation, request_id=request_id, source=decision_source()
        )
    return _comment_reply(comment, created)


@bp.get("/languages/<lang>/comments")
@login_required
def list_comments(lang: str):
    session = db()
    assignment = service.get_assignment(session, current_user, language_part(lang))
    return jsonify(comments=comments.list_comments(session, current_user, assignment))


@bp.post("/languages/<lang>/comments/<int:comment_id>/withdraw")
@login_required
def withdraw_comment(lang: str, comment_id: int):
    lang, comment_id = language_part(lang), fields.row_id(comment_id)
    with write() as session:
        assignment = service.get_assignment(session, current_user, lang)
        row = comments.withdraw_comment(session, current_user, assignment, comment_id)
        return jsonify(comment=comments.comment_dict(row))


@bp.get("/languages/<lang>/history")
@login_required
def past(lang: str):
    """Your decisions in the language, newest first (service.history), those the query string asks
    for (My decisions' filters: verdict, q; web/find.py), with how many matched of how many."""
    session = db()
    assignment = service.get_assignment(session, current_user, language_part(lang))
    return jsonify(finding.past_decisions(session, current_user, assignment, past_query_from_request()))


def _item_field(body: dict[str, Any]) -> int | None:
    """The optional `item` of /validate: an item id (a JSON integer), or None."""
    value = body.get("item")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError("item must be an item id")
    return fields.row_id(value)


@bp.post("/validate")
@login_required
def validate():
    """Live validation for the amend and suggest fields: the server's rules, not a copy in JS.
    With `item` (an amendment of that item of the reviewer's sample), a line that cleans to the
    item's template is refused as the decision refuses it (`same: true`, review/validation.py)."""
    body = fields.body()
    lang, text = fields.text(body, "language", CODE), fields.text(body, "text", TEXT)
    item_id = _item_field(body)
    session = db()
    service.get_assignment(session, current_user, lang)
    try:
        if item_id is None:
            cleaned = validate_template(text, lang, keeps_case(session))
        else:
            found = service.find_item(session, current_user, lang, item_id)
            cleaned = validate_correction(text, lang, keeps_case(session), found.template.text)
    except SameAsTemplate as exc:
        return jsonify(valid=False, same=True, message=translated(exc))
    except InputError as exc:
        return jsonify(valid=False, message=translated(exc), **_annotation_help(text, lang, None))
    return jsonify(valid=True, cleaned=cleaned, **_annotation_help(text, lang, cleaned))


def _annotation_help(text: str, lang: str, cleaned: str | None) -> dict[str, Any]:
    """For a text holding an annotation (review/annotations.py): `syntax`, the parser's sentences on
    the supported syntax in the page's language, and, once it is valid, `genders`: the
    template as filled in for a man and for a woman ({gender, label, text})."""
    sentences = annotated_review.syntax_help(text, lang)
    if sentences is None:
        return {}
    help_text = " ".join(_(msgid, **params) if params else _(msgid) for msgid, params in sentences)
    labels = {"MASC": _("for a man"), "FEM": _("for a woman")}
    shown = annotated_review.realised_forms(cleaned, lang) if cleaned is not None else []
    return {
        "syntax": _("Annotated template. %(help)s", help=help_text),
        "genders": [{"gender": g, "label": labels[g], "text": t} for g, t in shown],
    }

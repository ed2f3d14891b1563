"""Adjudication pages (issue 28 §2), maintainers only: a language's disagreements side by side
with the resolve form, the same as JSON for scripts, and dropping or restoring a single line of
the release from the preview. The services are review/resolutions.py and release/line_drops.py."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from curator.core import languages
from curator.core.errors import Busy, CuratorError, NotFound
from curator.core.models import Template
from curator.release.line_drops import drop_line, restore_line
from curator.review.context import template_context
from curator.review.policy import POLICIES
from curator.review.resolutions import (
    KINDS,
    VERDICTS,
    Disagreement,
    check_kind,
    disagreements,
    kind_counts,
    of_kind,
    resolve,
    retract_resolution,
    standing_resolutions,
)
from curator.web import fields
from curator.web.auth import maintainer_required
from curator.web.context import db, write
from curator.web.errors import status_for, translated
from curator.web.i18n import language_name
from curator.web.labels import label
from curator.web.release import preview_page

bp = Blueprint("adjudication", __name__)

TEXT = 2000  # a reason or a correction (the services refuse what is too long in their own words)
CODE = 32


def _current(items: list[Disagreement], wanted: int | None) -> Disagreement | None:
    """The item the page opens: the one asked for (`?item=`, or the form that failed) when it is
    listed, else the first without a resolution, else the first."""
    listed = {item["template_id"]: item for item in items}
    if wanted in listed:
        return listed[wanted]
    return next((item for item in items if item["resolution"] is None), items[0] if items else None)


def _page(code: str, status: int = 200, form: dict[str, str] | None = None, failed: int | None = None):
    """One disagreement at a time (issue 37 §2): every listed item a collapsed <details>, the
    current one open with the context a reviewer sees (English pattern, machine lines, examples:
    `review.context.template_context`), filtered by kind (`?kind=`, `resolutions.of_kind`)."""
    session = db()
    kind = check_kind(request.values.get("kind") or None)
    everything = disagreements(session, code)
    items = of_kind(everything, kind)
    wanted = failed if failed is not None else request.args.get("item", type=int)
    current = _current(items, wanted)
    context = None
    if current is not None:
        context = template_context(session, session.get_one(Template, current["template_id"]))
    at = items.index(current) if current is not None else 0
    return render_template(
        "disagreements.html",
        code=code,
        name=language_name(code),
        dir=languages.direction(code),
        items=items,
        total=len(everything),
        counts=kind_counts(everything),
        kinds=KINDS,
        kind=kind or "",
        current=current,
        context=context,
        previous=items[at - 1] if at > 0 else None,
        following=items[at + 1] if current is not None and at + 1 < len(items) else None,
        verdicts=VERDICTS,
        form=form or {},
        failed=failed,
    ), status


def _back(code: str, template_id: int):
    """To the page, on the same filter, with this item open."""
    kind = request.form.get("kind", "")
    args: dict[str, Any] = {"kind": kind} if kind in KINDS else {}
    return redirect(url_for("adjudication.page", code=code, item=template_id, **args) + f"#t{template_id}")


def _in_language(session, template_id: int, code: str) -> None:
    """A template of another language is not on this language's page: 404, nothing changed."""
    template = session.get(Template, template_id)
    if template is None or template.language != code:
        raise NotFound(f"template: no template {template_id} in {code}")


@bp.get("/admin/languages/<code>/disagreements")
@maintainer_required
def page(code: str):
    languages.check_code(code, "the URL")
    return _page(code)


@bp.post("/admin/languages/<code>/disagreements/<int:template_id>/resolve")
@maintainer_required
def resolve_form(code: str, template_id: int):
    languages.check_code(code, "the URL")
    template_id = fields.row_id(template_id)
    form = {k: request.form.get(k, "") for k in ("verdict", "correction", "reason")}
    try:
        with write() as session:
            _in_language(session, template_id, code)
            resolve(session, current_user, template_id, form["verdict"], form["reason"], form["correction"] or None)
    except Busy:
        raise  # 503 with Retry-After (web/errors.py), not a message
    except CuratorError as exc:
        flash(translated(exc), "error")
        return _page(code, status_for(exc), form, template_id)
    flash(_("Resolved: %(verdict)s.", verdict=label("decision", form["verdict"])), "info")
    return _back(code, template_id)


@bp.post("/admin/languages/<code>/disagreements/<int:template_id>/retract")
@maintainer_required
def retract_form(code: str, template_id: int):
    languages.check_code(code, "the URL")
    template_id = fields.row_id(template_id)
    try:
        with write() as session:
            _in_language(session, template_id, code)
            retract_resolution(session, current_user, template_id)
    except Busy:
        raise
    except CuratorError as exc:
        flash(translated(exc), "error")
        return _page(code, status_for(exc), failed=template_id)
    flash(_("Resolution withdrawn: the reviewers' decisions count again."), "info")
    return _back(code, template_id)


# ---------------------------------------------------------------- JSON (docs/review-api.md)
@bp.get("/api/v1/languages/<lang>/disagreements")
@maintainer_required
def api_disagreements(lang: str):
    code = languages.check_code(fields.url_part("language", lang, CODE), "language")
    kind = check_kind(request.args.get("kind") or None)
    return jsonify(language=code, kind=kind, items=of_kind(disagreements(db(), code), kind))


@bp.post("/api/v1/templates/<int:template_id>/resolution")
@maintainer_required
def api_resolve(template_id: int):
    template_id = fields.row_id(template_id)
    body: dict[str, Any] = fields.body()
    verdict = fields.text(body, "verdict", 10)
    reason = fields.text(body, "reason", TEXT)
    correction = fields.text(body, "correction", TEXT, required=False)
    with write() as session:
        row = resolve(session, current_user, template_id, verdict, reason, correction)
        record = standing_resolutions(session, row.language)[template_id]
    return jsonify(resolution=record)


@bp.post("/api/v1/templates/<int:template_id>/resolution/retract")
@maintainer_required
def api_retract(template_id: int):
    template_id = fields.row_id(template_id)
    with write() as session:
        row = retract_resolution(session, current_user, template_id)
    return jsonify(retracted=row.id, template_id=template_id)


# ---------------------------------------------------------------- a single line, from the preview
def _preview_args() -> tuple[str | None, str | None]:
    """The preview's policy (None, empty or unknown: each language's stored one) and parent."""
    policy = request.form.get("policy", "")
    return (policy if policy in POLICIES else None), (request.form.get("parent") or None)


def _back_to_preview(policy: str | None, parent: str | None, language: str, relation: str):
    args: dict[str, Any] = {**({"policy": policy} if policy else {}), **({"parent": parent} if parent else {})}
    target = url_for("release.preview", **args)
    return redirect(f"{target}#plan-{language}-{relation}")


@bp.post("/admin/release/drop-line")
@maintainer_required
def drop():
    policy, parent = _preview_args()
    line = {k: request.form.get(k, "") for k in ("language", "relation", "pattern", "reason")}
    try:
        with write() as session:
            drop_line(session, current_user, line["language"], line["relation"], line["pattern"], line["reason"])
    except Busy:
        raise
    except CuratorError as exc:
        flash(translated(exc), "error")
        return preview_page(db(), policy, parent, status=status_for(exc))
    flash(_("Dropped from the builds from reviews: %(pattern)s", pattern=line["pattern"]), "info")
    return _back_to_preview(policy, parent, line["language"], line["relation"])


@bp.post("/admin/release/restore-line")
@maintainer_required
def restore():
    policy, parent = _preview_args()
    line = {k: request.form.get(k, "") for k in ("language", "relation", "pattern")}
    try:
        with write() as session:
            restore_line(session, current_user, line["language"], line["relation"], line["pattern"])
    except Busy:
        raise
    except CuratorError as exc:
        flash(translated(exc), "error")
        return preview_page(db(), policy, parent, status=status_for(exc))
    flash(_("Restored: %(pattern)s", pattern=line["pattern"]), "info")
    return _back_to_preview(policy, parent, line["language"], line["relation"])

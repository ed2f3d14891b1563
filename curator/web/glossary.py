"""A language's glossary: the maintainers' page to list, add, edit and delete terms, and the
review screen's endpoint with the terms of an item's English pattern (curator/review/glossary.py)."""

from __future__ import annotations

from flask import Blueprint, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required
from sqlalchemy import select

from curator.core import languages
from curator.core.errors import Busy, CuratorError
from curator.core.folding import fold
from curator.core.models import EnglishPattern
from curator.review import glossary, service
from curator.web import fields
from curator.web.auth import maintainer_required
from curator.web.context import db, write

bp = Blueprint("glossary", __name__)


def _page(code: str, status: int = 200, form: dict[str, str] | None = None, editing: int | None = None):
    session = db()
    q = request.args.get("q", "").strip()[:200]
    rows = glossary.terms(session, code)
    if q:
        needle = fold(q)
        rows = [r for r in rows if any(needle in fold(v) for v in (r.term, r.translation, r.note))]
    return render_template(
        "glossary.html",
        code=code,
        name=languages.name(code),
        dir=languages.direction(code),
        terms=[glossary.record(r) for r in rows],
        q=q,
        form=form or {},
        editing=editing,
    ), status


def _form() -> dict[str, str]:
    return {k: request.form.get(k, "") for k in ("term", "translation", "note")}


@bp.get("/admin/languages/<code>/glossary")
@maintainer_required
def index(code: str):
    languages.check_code(code, "the URL")
    return _page(code)


@bp.post("/admin/languages/<code>/glossary")
@maintainer_required
def add(code: str):
    languages.check_code(code, "the URL")
    form = _form()
    try:
        with write() as session:
            glossary.add_term(session, code, form["term"], form["translation"], form["note"], current_user)
    except Busy:
        raise  # 503 with Retry-After (web/errors.py), not a message
    except CuratorError as exc:
        flash(exc.message, "error")
        return _page(code, 422, form)
    flash(_("“%(term)s” added to the glossary.", term=" ".join(form["term"].split())), "info")
    return redirect(url_for("glossary.index", code=code))


@bp.post("/admin/languages/<code>/glossary/<int:term_id>")
@maintainer_required
def change(code: str, term_id: int):
    languages.check_code(code, "the URL")
    term_id = fields.row_id(term_id)
    form = _form()
    try:
        with write() as session:
            if request.form.get("action") == "delete":
                glossary.delete_term(session, code, term_id, current_user)
                message = _("The term was deleted from the glossary.")
            else:
                glossary.edit_term(
                    session, code, term_id, form["term"], form["translation"], form["note"], current_user
                )
                message = _("“%(term)s” saved.", term=" ".join(form["term"].split()))
    except Busy:
        raise
    except CuratorError as exc:
        flash(exc.message, "error")
        return _page(code, 422, form, editing=term_id)
    flash(message, "info")
    return redirect(url_for("glossary.index", code=code))


@bp.get("/api/v1/languages/<lang>/items/<int:item_id>/glossary")
@login_required
def item_terms(lang: str, item_id: int):
    """The glossary terms of the item's English pattern (the one the screen shows), each with its
    preferred translation, note and the template's spellings of it (docs/review-api.md)."""
    session = db()
    found = service.find_item(session, current_user, fields.url_part("language", lang, 32), fields.row_id(item_id))
    english = session.scalars(
        select(EnglishPattern.pattern)
        .where(EnglishPattern.relation_id == found.item.relation_id)
        .order_by(EnglishPattern.position)
        .limit(1)
    ).first()
    return jsonify(terms=glossary.matches(session, found.assignment.language, english or "", found.template.text))

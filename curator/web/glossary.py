"""A language's glossary: the maintainers' page to list, add, edit and delete terms, and the
review screen's endpoint with the terms of an item's English pattern (curator/review/glossary.py)."""

from __future__ import annotations

import contextlib

from flask import Blueprint, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required
from sqlalchemy import select

from curator.core import languages
from curator.core.errors import Busy, CuratorError
from curator.core.models import EnglishPattern
from curator.review import glossary, service
from curator.web import fields
from curator.web.auth import maintainer_required
from curator.web.context import db, write
from curator.web.errors import translated
from curator.web.i18n import language_name

bp = Blueprint("glossary", __name__)


def _where() -> tuple[str, int]:
    """The search and page shown: the query's (a GET, a bad page a 422) or, after a POST, the
    form's hidden copies of them (an unusable one: the first page)."""
    if request.method == "GET":
        return request.args.get("q", "").strip()[:200], fields.query_int("page", 1)
    raw = request.form.get("page", "")
    page = int(raw) if raw.isdigit() and len(raw) <= 9 and int(raw) > 0 else 1
    return request.form.get("q", "").strip()[:200], page


def _page(code: str, status: int = 200, form: dict[str, str] | None = None, editing: int | None = None):
    """The page: one page of the terms the search keeps, filtered and paged in SQL
    (review/glossary.py `listing`); the term being edited stays shown with its typed text."""
    session = db()
    q, page = _where()
    shown = glossary.listing(session, code, q, page)
    if editing is not None and all(t["id"] != editing for t in shown["terms"]):
        with contextlib.suppress(CuratorError):  # deleted meanwhile: nothing to keep on screen
            shown["terms"].insert(0, glossary.record(glossary.get_term(session, code, editing)))
    return render_template(
        "glossary.html",
        code=code,
        name=language_name(code),
        dir=languages.direction(code),
        shown=shown,
        terms=shown["terms"],
        q=q,
        form=form or {},
        editing=editing,
    ), status


def _back(code: str):
    """After a change: the page and search the maintainer was on."""
    q, page = _where()
    return redirect(url_for("glossary.index", code=code, q=q or None, page=page if page > 1 else None))


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
        flash(translated(exc), "error")
        return _page(code, 422, form)
    term = " ".join(form["term"].split())
    flash(_("“%(term)s” added to the glossary.", term=term), "info")
    return redirect(url_for("glossary.index", code=code, q=term))  # the new term, wherever it sorts


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
        flash(translated(exc), "error")
        return _page(code, 422, form, editing=term_id)
    flash(message, "info")
    return _back(code)


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

"""Maintainers edit a language's review guidelines (the default text until they do)."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user

from curator.core import languages
from curator.core.errors import Busy, CuratorError
from curator.review import guidelines
from curator.web.auth import maintainer_required
from curator.web.context import db, write
from curator.web.errors import translated
from curator.web.i18n import language_name, select_locale

bp = Blueprint("guidance", __name__)


@bp.route("/admin/languages/<code>/guidelines", methods=["GET", "POST"])
@maintainer_required
def edit(code: str):
    languages.check_code(code, "the URL")
    name = language_name(code)
    if request.method == "POST":
        reset = request.form.get("action") == "reset"
        text = None if reset else request.form.get("text", "")
        try:
            with write() as session:
                guidelines.set_guidelines(session, code, text, current_user)
        except Busy:
            raise  # 503 with Retry-After (web/errors.py), not a message
        except CuratorError as exc:
            flash(translated(exc), "error")
            return render_template(
                "guidelines_edit.html",
                code=code,
                name=name,
                text=text or "",
                custom=True,
                default=guidelines.DEFAULT_GUIDELINES,
            ), 422
        flash(
            _("The guidelines for %(language)s are back to the default.", language=name)
            if reset
            else _("Guidelines for %(language)s saved.", language=name),
            "info",
        )
        return redirect(url_for("guidance.edit", code=code))
    session = db()
    # the default as the reviewers of this interface language read it (the maintainers' own text as written)
    text = guidelines.get_guidelines(session, code, select_locale())
    return render_template(
        "guidelines_edit.html",
        code=code,
        name=name,
        text=text,
        custom=guidelines.is_custom(session, code),
        default=guidelines.DEFAULT_GUIDELINES,
        preview=guidelines.blocks(text),
    )

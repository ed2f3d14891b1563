"""Reviewer pages: my languages, the review screen, my decisions."""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, url_for
from flask_login import current_user, login_required

from curator.core import languages
from curator.web.context import db
from curator.review.service import get_assignment, history, keeps_case, progress, queue

bp = Blueprint("review", __name__)


@bp.get("/")
@login_required
def home():
    session = db()
    rows = []
    for assignment in current_user.assignments:
        items = queue(session, assignment)
        rows.append(dict(code=assignment.language, name=languages.name(assignment.language),
                         dir=languages.direction(assignment.language), **progress(session, assignment, items)))
    if not rows and current_user.is_maintainer:
        return redirect(url_for("release.dashboard"))
    return render_template("home.html", rows=rows)


@bp.get("/review/<lang>")
@login_required
def screen(lang: str):
    session = db()
    assignment = get_assignment(session, current_user, lang)
    return render_template("review.html", lang=lang, name=languages.name(lang), dir=languages.direction(lang),
                           assignment=assignment, keep_case=keeps_case(session))


@bp.get("/review/<lang>/history")
@login_required
def past(lang: str):
    session = db()
    assignment = get_assignment(session, current_user, lang)
    return render_template("history.html", lang=lang, name=languages.name(lang), dir=languages.direction(lang),
                           rows=history(session, current_user, assignment))

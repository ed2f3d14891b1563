"""Read-only overview pages: what has been ingested and which languages qualify."""
from __future__ import annotations

from flask import Blueprint, current_app, g, render_template
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from . import languages
from .models import LanguageCoverage, Relation, RelationCoverage, Template, TranslationLine

bp = Blueprint("web", __name__)


def db() -> Session:
    if "db" not in g:
        g.db = current_app.extensions["curator.sessions"]()
    return g.db


def teardown_session(_exc: BaseException | None) -> None:
    session = g.pop("db", None)
    if session is not None:
        session.close()


@bp.get("/")
def index():
    session = db()
    coverage = session.scalars(select(LanguageCoverage).order_by(LanguageCoverage.language)).all()
    lines = dict(session.execute(select(TranslationLine.language, func.count())
                                 .group_by(TranslationLine.language)).all())
    return render_template("index.html", coverage=coverage, lines=lines, languages=languages,
                           relations=session.scalar(select(func.count()).select_from(Relation)))


@bp.get("/languages/<code>")
def language(code: str):
    session = db()
    coverage = session.get(LanguageCoverage, code)
    relations = session.scalars(select(RelationCoverage).where(RelationCoverage.language == code)
                                .order_by(RelationCoverage.relation_id)).all()
    templates = session.scalars(select(Template).where(Template.language == code, Template.is_candidate)
                                .order_by(Template.relation_id, Template.first_position, Template.text)).all()
    by_relation: dict[str, list[Template]] = {}
    for t in templates:
        by_relation.setdefault(t.relation_id, []).append(t)
    return render_template("language.html", code=code, name=languages.name(code), dir=languages.direction(code),
                           coverage=coverage, relations=relations, by_relation=by_relation)


@bp.get("/healthz")
def healthz():
    db().execute(select(1))
    return {"status": "ok"}

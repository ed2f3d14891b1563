"""Maintainer pages: coverage overview, a language's candidates, reviewers and invitations."""
from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user
from sqlalchemy import func, select

from curator.core import languages
from curator.core.errors import Busy, CuratorError
from curator.core.models import (Invite, Language, LanguageCoverage, Relation, RelationCoverage, Template, TemplateSignal,
                      TranslationLine, User)
from curator.quality.signals import QUEUE_ORDERS, WARN_SIMILARITY, risks, set_queue_order
from curator.core.models.base import utcnow
from curator.web.context import db, write
from curator.web.errors import status_for
from curator.review.accounts import create_invite
from curator.web.auth import maintainer_required
from curator.review.service import progress, queue

bp = Blueprint("admin", __name__, url_prefix="/admin")


@bp.get("/coverage")
@maintainer_required
def overview():
    session = db()
    coverage = session.scalars(select(LanguageCoverage).order_by(LanguageCoverage.language)).all()
    lines = dict(session.execute(select(TranslationLine.language, func.count())
                                 .group_by(TranslationLine.language)).all())
    return render_template("overview.html", coverage=coverage, lines=lines, languages=languages,
                           relations=session.scalar(select(func.count()).select_from(Relation)))


@bp.get("/languages/<code>")
@maintainer_required
def language(code: str):
    languages.check_code(code, "the URL")
    session = db()
    coverage = session.get(LanguageCoverage, code)
    templates = session.scalars(select(Template).where(Template.language == code, Template.is_candidate)
                                .order_by(Template.relation_id, Template.first_position, Template.text)).all()
    by_relation: dict[str, list[Template]] = {}
    for t in templates:
        by_relation.setdefault(t.relation_id, []).append(t)
    usable = set(session.scalars(select(RelationCoverage.relation_id).where(RelationCoverage.language == code,
                                                                            RelationCoverage.usable)))
    signals = {s.template_id: s for s in session.scalars(
        select(TemplateSignal).join(Template, Template.id == TemplateSignal.template_id)
        .where(Template.language == code))}
    risk = risks(session, code)
    by_risk = request.args.get("order") == "risk"
    if by_risk:
        by_relation = {"all relations, riskiest first": sorted(templates, key=lambda t: -risk.get(t.id, 0.0))}
    language_row = session.get(Language, code)
    return render_template("language.html", code=code, name=languages.name(code), dir=languages.direction(code),
                           coverage=coverage, by_relation=by_relation, usable=usable, signals=signals, risk=risk,
                           by_risk=by_risk, queue_order=language_row.queue_order if language_row else "random",
                           warn=WARN_SIMILARITY, orders=QUEUE_ORDERS)


@bp.post("/languages/<code>/queue-order")
@maintainer_required
def queue_order(code: str):
    languages.check_code(code, "the URL")
    try:
        with write() as session:
            set_queue_order(session, code, request.form.get("order", ""))
    except Busy:
        raise  # a 503 with Retry-After (web/errors.py), not a flash
    except CuratorError as exc:
        flash(exc.message, "error")
    else:
        flash(f"New reviewers of {languages.name(code)} get a {request.form['order']}-ordered sample.", "info")
    return redirect(url_for("admin.language", code=code))


@bp.route("/reviewers", methods=["GET", "POST"])
@maintainer_required
def reviewers():
    session = db()
    link, status = None, 200
    if request.method == "POST":
        codes = request.form.getlist("languages") or request.form.get("language_codes", "").replace(",", " ").split()
        fraction = request.form.get("fraction", "").strip()
        try:
            with write() as session:
                invite, token = create_invite(session, codes, current_user, request.form.get("email"),
                                              request.form.get("role", "reviewer"),
                                              float(fraction) if fraction else None)
        except Busy:
            raise
        except (CuratorError, ValueError) as exc:
            flash(getattr(exc, "message", f"Invalid sample fraction: {fraction}"), "error")
            status = status_for(exc) if isinstance(exc, CuratorError) else 422
        else:
            link = url_for("auth.invite", token=token, _external=True)
    users = session.scalars(select(User).order_by(User.role.desc(), User.email)).all()
    rows = []
    for user in users:
        for assignment in user.assignments:
            rows.append(dict(user=user, language=assignment.language, **progress(session, assignment,
                                                                                  queue(session, assignment))))
        if not user.assignments:
            rows.append(dict(user=user, language=None))
    invites = session.scalars(select(Invite).where(Invite.used_at.is_(None), Invite.expires_at > utcnow())
                              .order_by(Invite.id.desc())).all()
    codes = session.scalars(select(LanguageCoverage.language).where(LanguageCoverage.included)
                            .order_by(LanguageCoverage.language)).all()
    return render_template("reviewers.html", rows=rows, invites=invites, link=link, codes=codes,
                           languages=languages), status

"""Maintainer pages for releases: the review dashboard, merge preview, build, diff, charts."""
from __future__ import annotations

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for

from curator.core import languages
from curator.core.enums import VersionKind
from curator.core.errors import Busy, CuratorError
from curator.core.models import DatasetVersion
from curator.analysis.outcomes import risk_outcomes
from curator.quality.checks import CHECKS
from curator.quality.signals import signal_summary
from curator.web.auth import maintainer_required
from curator.review.stats import review_summary, summary_csv
from curator.web.context import db, write
from curator.release.charts import language_bars
from curator.release.diff import diff_rules, diff_versions
from curator.release.merge import POLICIES, build_from_review, latest_candidates, plan
from curator.release.versions import get_version, language_counts, list_versions

bp = Blueprint("release", __name__, url_prefix="/admin")


@bp.get("/")
@maintainer_required
def dashboard():
    session = db()
    summary = review_summary(session)
    versions = list_versions(session)
    return render_template("dashboard.html", summary=summary, versions=versions, languages=languages,
                           policies=POLICIES, outcomes=risk_outcomes(session),
                           signal_rows=signal_summary(session), checks=CHECKS)


@bp.get("/dashboard.csv")
@maintainer_required
def dashboard_csv():
    return Response(summary_csv(review_summary(db())), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=review-statistics.csv"})


@bp.get("/versions/<name>/chart.svg")
@maintainer_required
def chart(name: str):
    session = db()
    patterns, phrases = language_counts(session, _version(session, name))
    if not patterns:
        abort(404)
    return Response(language_bars(patterns, phrases, "svg"), mimetype="image/svg+xml")


@bp.get("/release/preview")
@maintainer_required
def preview():
    session = db()
    policy = request.args.get("policy", "any")
    if policy not in POLICIES:
        abort(404)
    parent = request.args.get("parent")
    base = _version(session, parent) if parent else latest_candidates(session)
    plans = [p for p in plan(session, base, policy, request.args.getlist("language") or None) if p.changed()]
    candidates = [v["name"] for v in list_versions(session) if v["kind"] == VersionKind.CANDIDATES]
    return render_template("preview.html", base=base, policy=policy, plans=plans, policies=POLICIES,
                           candidates=candidates)


@bp.post("/release/build")
@maintainer_required
def build():
    session = db()
    name = request.form.get("name", "").strip()
    policy = request.form.get("policy", "any")
    parent = request.form.get("parent") or None
    if not name:
        flash("Give the new version a name.", "error")
        return redirect(url_for("release.preview", policy=policy, parent=parent))
    try:
        with write() as session:
            result = build_from_review(session, name, policy, parent)
    except Busy:
        raise  # a 503 with Retry-After (web/errors.py), not a flash
    except CuratorError as exc:
        flash(exc.message, "error")
        return redirect(url_for("release.preview", policy=policy, parent=parent))
    flash(f"Built version {result.name}: {result.languages} languages, {result.patterns} patterns. "
          f"Export it with `curator release export {result.name} OUT`.", "info")
    return redirect(url_for("release.diff", a=session.get(DatasetVersion, _version(session, name).parent_id).name,
                            b=name))


@bp.get("/diff")
@maintainer_required
def diff():
    session = db()
    a, b = request.args.get("a", ""), request.args.get("b", "")
    diffs = diff_versions(session, a, b)
    return render_template("diff.html", a=a, b=b, diffs=diffs, rules=diff_rules(session, a, b))


def _version(session, name: str) -> DatasetVersion:
    return get_version(session, name)  # NotFound (404) for an unknown name

"""Maintainer pages for releases: the review dashboard (with the stored merge policy and its
form), the candidates snapshot, merge preview, build (named and confirmed), diff, charts and the
release as a zip download."""

from __future__ import annotations

import importlib.util
import tempfile

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, send_file, url_for
from flask_babel import gettext as _
from flask_login import current_user

from curator.analysis.outcomes import risk_outcomes
from curator.core import languages
from curator.core.enums import VersionKind
from curator.core.errors import Busy, CuratorError, InputError, NotFound
from curator.core.extras import EXTRAS
from curator.core.models import DatasetVersion
from curator.quality.checks import CHECKS
from curator.quality.signals import signal_summary
from curator.release.charts import language_bars
from curator.release.diff import diff_rules, diff_versions
from curator.release.export import export_zip, log_export, zip_prefix
from curator.release.merge import build_from_review, latest_candidates, plan, proposal_counts
from curator.release.versions import build_from_candidates, check_version_name, get_version, list_versions, suggest_name
from curator.release.versions import language_counts as version_language_counts
from curator.review.follow_up import follow_up
from curator.review.overview import language_counts
from curator.review.policy import (
    POLICIES,
    language_overrides,
    language_policies,
    language_policy,
    project_policy,
    set_language_policy,
    set_project_policy,
)
from curator.review.proposals import status_counts
from curator.review.reset_requests import open_requests
from curator.review.stats import ReviewSummary, review_summary, summary_csv
from curator.web.auth import maintainer_required
from curator.web.context import db, write
from curator.web.errors import status_for, translated
from curator.web.i18n import language_name
from curator.web.labels import label

bp = Blueprint("release", __name__, url_prefix="/admin")


@bp.get("/")
@maintainer_required
def dashboard():
    return _dashboard_page(db())


def _dashboard_page(session, form: dict | None = None, error: str | None = None, status: int = 200):
    """The dashboard; `form` and `error` refill the snapshot form after a refused snapshot (422)."""
    show_all = request.args.get("languages") == "all"
    counts = language_counts(session)
    included = {code for code, c in counts.items() if c.included}

    def keep(code: str) -> bool:  # "all" filters nothing, not even languages without a coverage row
        return show_all or code in included

    summary = review_summary(session)
    summary = ReviewSummary(languages=[r for r in summary.languages if keep(r.language)])
    versions = list_versions(session)
    proposal_counts = status_counts(session)  # read once (each language's stored policy): the follow-up uses it too
    return render_template(
        "dashboard.html",
        summary=summary,
        versions=versions,
        languages=languages,
        policies=POLICIES,
        outcomes=[o for o in risk_outcomes(session) if keep(o.language)],
        proposal_counts=proposal_counts,  # issue 28 §1: unconfirmed proposals per language
        signal_rows=[r for r in signal_summary(session) if keep(r.language)],
        checks=CHECKS,
        counts=[c for code, c in counts.items() if keep(code)],
        show_all=show_all,
        hidden=0 if show_all else len(counts) - len(included & set(counts)),
        snapshot_form=form or {},
        snapshot_error=error,
        name_rule=name_rule(),
        snapshot_name=suggest_name(session, "candidates"),
        hf_missing=hf_missing(),
        follow_up=[f for code, f in follow_up(session, proposal_counts).items() if keep(code)],
        project_policy=project_policy(session),
        overrides=language_overrides(session),
        policy_languages=list(language_policies(session)),
        reset_requests=open_requests(session, current_user),  # "Forgot password?" without e-mail
    ), status


@bp.post("/merge-policy")
@maintainer_required
def merge_policy():
    """The dashboard's merge-policy forms: the project's policy (no `language`), a language's
    override (`language` and `policy`), or its override cleared (`language`, empty `policy`)."""
    language = request.form.get("language", "").strip() or None
    policy = request.form.get("policy", "").strip() or None  # with a language, none clears its override
    try:
        if (policy is not None or language is None) and policy not in POLICIES:
            refused = policy or ""
            raise InputError(
                _("“%(policy)s” is not a merge policy: choose any, majority or unanimous.", policy=refused)
            )
        with write() as session:
            if language is None:
                set_project_policy(session, current_user, policy or "")
            else:
                set_language_policy(session, current_user, language, policy)
            now = language_policy(session, language) if language else project_policy(session)
    except Busy:
        raise  # a 503 with Retry-After (web/errors.py), not a flash
    except CuratorError as exc:
        flash(translated(exc), "error")
        return _dashboard_page(db(), status=status_for(exc))
    if language is None:
        flash(_("The project's merge policy is now %(policy)s.", policy=label("policy", now)), "info")
    elif policy is None:
        flash(
            _(
                "%(language)s follows the project's merge policy again (%(policy)s).",
                language=language_name(language, standalone=True),
                policy=label("policy", now),
            ),
            "info",
        )
    else:
        flash(
            _(
                "%(language)s is now merged under %(policy)s.",
                language=language_name(language, standalone=True),
                policy=label("policy", now),
            ),
            "info",
        )
    return redirect(url_for("release.dashboard", _anchor="merge-policy"))


@bp.get("/dashboard.csv")
@maintainer_required
def dashboard_csv():
    return Response(
        summary_csv(review_summary(db())),
        mimetype="text/csv",
        headers={"Content-Disposition": "attachment; filename=review-statistics.csv"},
    )


@bp.get("/versions/<name>/chart.svg")
@maintainer_required
def chart(name: str):
    session = db()
    patterns, phrases = version_language_counts(session, _version(session, name))
    if not patterns:
        abort(404)
    return Response(language_bars(patterns, phrases, "svg"), mimetype="image/svg+xml")


@bp.get("/versions/<name>/download.zip")
@maintainer_required
def download(name: str):
    """The version exported by the same service as `curator release export`, zipped under `<name>/`;
    `?hf=1`: with the Hugging Face files as `release export --hf` writes them (hf/*.jsonl,
    hf/*.parquet; the [hf] extra, else a 501 page that names it). In the activity log."""
    hf = request.args.get("hf", "") == "1"
    session = db()
    version = _version(session, name)
    # deleted when closed, i.e. once the response is sent: send_file owns it, so no `with` here
    out = tempfile.TemporaryFile()  # noqa: SIM115
    try:
        info = export_zip(session, version.name, out, hf=hf)
        with write() as w:  # once the zip is made: a short write, not the writer lock for the whole export
            log_export(w, current_user, info, {"download": True, "hf": hf})
    except BaseException:
        out.close()
        raise
    out.seek(0)
    filename = f"{zip_prefix(version.name)}{'-hf' if hf else ''}.zip"
    return send_file(out, mimetype="application/zip", as_attachment=True, download_name=filename)


def hf_missing() -> str | None:
    """Why the download with the Hugging Face files cannot be offered (the [hf] extra is not
    installed: what to install), or None when it can. Looked up, not imported: showing a link
    must not load pyarrow into every worker."""
    if all(importlib.util.find_spec(module) is not None for module in EXTRAS["hf"]):
        return None
    return _(
        "The download with the Hugging Face files needs the %(extra)s extra: %(command)s",
        extra="hf",
        command="pip install 'curator[hf]'",
    )


@bp.post("/release/snapshot")
@maintainer_required
def snapshot():
    """`curator release build NAME` from the browser: a candidates version to apply reviews to.
    Permanent like a build, so it asks for the same confirmation; a refusal re-renders the form."""
    name = request.form.get("name", "").strip()
    back = request.form.get("next") if request.form.get("next") in ("preview", "dashboard") else "dashboard"
    form = {"name": name, "confirm": bool(request.form.get("confirm"))}
    try:
        _check_form(name, request.form.get("confirm"))
        with write() as session:
            result = build_from_candidates(session, name, actor=current_user)
    except Busy:
        raise  # a 503 with Retry-After (web/errors.py), not a flash
    except (_Refused, CuratorError) as exc:
        message, status = (str(exc), 422) if isinstance(exc, _Refused) else (translated(exc), status_for(exc))
        if back == "preview":
            return preview_page(db(), None, None, snapshot_form=form, snapshot_error=message, status=status)
        return _dashboard_page(db(), form, message, status)
    flash(
        _(
            "Snapshot %(name)s of the candidates: %(languages)s languages, %(patterns)s patterns. "
            "Reviews are applied to it in the preview below.",
            name=result.name,
            languages=result.languages,
            patterns=result.patterns,
        ),
        "info",
    )
    return redirect(url_for("release.preview", parent=result.name))


def name_rule() -> str:
    """VERSION_NAME_RULE (English, for the CLI) in the reader's language."""
    return _(
        "1 to 64 characters: letters, digits, “.”, “_” and “-”, starting with a letter or a digit and not "
        "ending with “.” (no spaces or slashes, and not a name Windows reserves such as CON or LPT1)."
    )


def _check_form(name: str, confirm) -> None:
    """The checks both version forms make before any service runs, as translated _Refused messages."""
    if not name:
        raise _Refused(_("Give the new version a name."))
    try:
        check_version_name(name)
    except InputError:
        raise _Refused(_("“%(name)s” is not a valid version name: %(rule)s", name=name, rule=name_rule())) from None
    if not confirm:
        raise _Refused(
            _(
                "Tick “I understand a version is permanent” to build it: a version never changes "
                "and its name cannot be used again."
            )
        )


def preview_page(
    session,
    policy: str | None,
    parent: str | None,
    form: dict | None = None,
    error: str | None = None,
    status: int = 200,
    snapshot_form: dict | None = None,
    snapshot_error: str | None = None,
):
    base = None
    if parent:
        base = _version(session, parent)
    else:
        try:
            base = latest_candidates(session)
        except NotFound:
            base = None  # the page says how to make one: the snapshot button
    plans = (
        []
        if base is None
        else [p for p in plan(session, base, policy, request.args.getlist("language") or None) if p.changed()]
    )
    candidates = [v["name"] for v in list_versions(session) if v["kind"] == VersionKind.CANDIDATES]
    form = form or {}
    return render_template(
        "preview.html",
        base=base,
        policy=policy,  # None: each language's stored policy (the plan reads it)
        project_policy=project_policy(session),
        overrides=language_overrides(session),
        plans=plans,
        proposals=proposal_counts(plans),
        policies=POLICIES,
        candidates=candidates,
        languages=languages,
        form=form,
        error=error,
        name_rule=name_rule(),
        snapshot_form=snapshot_form or {},
        snapshot_error=snapshot_error,
        suggested=suggest_name(session, "reviewed"),
        snapshot_name=suggest_name(session, "candidates"),
    ), status


@bp.get("/release/preview")
@maintainer_required
def preview():
    """`?policy=` judges every language under it; without one (or empty), each language's stored policy."""
    policy = request.args.get("policy", "") or None
    if policy is not None and policy not in POLICIES:
        abort(404)
    return preview_page(db(), policy, request.args.get("parent"))


@bp.post("/release/build")
@maintainer_required
def build():
    session = db()
    name = request.form.get("name", "").strip()
    policy = request.form.get("policy", "") or None  # None: each language's stored policy
    parent = request.form.get("parent") or None
    form = {"name": name, "confirm": bool(request.form.get("confirm"))}
    if policy is not None and policy not in POLICIES:
        message = _("“%(policy)s” is not a merge policy: choose any, majority or unanimous.", policy=policy)
        return preview_page(session, None, parent, form, message, 422)
    try:
        _check_form(name, request.form.get("confirm"))
        with write() as session:
            result = build_from_review(session, name, policy, parent, current_user)
    except Busy:
        raise  # a 503 with Retry-After (web/errors.py), not a flash
    except _Refused as exc:
        return preview_page(db(), policy, parent, form, str(exc), 422)
    except CuratorError as exc:
        return preview_page(db(), policy, parent, form, translated(exc), status_for(exc))
    flash(
        _(
            "Built version %(name)s: %(languages)s languages, %(patterns)s patterns. Download it as a zip below.",
            name=result.name,
            languages=result.languages,
            patterns=result.patterns,
        ),
        "info",
    )
    return redirect(
        url_for("release.diff", a=session.get(DatasetVersion, _version(session, name).parent_id).name, b=name)
    )


class _Refused(Exception):
    """A build form the view refuses before any service runs (shown on the form, 422)."""


@bp.get("/diff")
@maintainer_required
def diff():
    session = db()
    a, b = request.args.get("a", ""), request.args.get("b", "")
    diffs = diff_versions(session, a, b)
    downloadable = bool(version_language_counts(session, _version(session, b))[0])  # the export needs patterns
    return render_template(
        "diff.html",
        a=a,
        b=b,
        diffs=diffs,
        rules=diff_rules(session, a, b),
        languages=languages,
        downloadable=downloadable,
        hf_missing=hf_missing(),
    )


def _version(session, name: str) -> DatasetVersion:
    return get_version(session, name)  # NotFound (404) for an unknown name

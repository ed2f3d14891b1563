"""Maintainer pages for probe runs: the runs folder as a list, each run as its report.

Reports and charts are computed on first view and cached by the run's signature (newest mtime
of its folders), so a finished run costs one computation, and a run rewritten by a resumed
`curator probe` is recomputed on the next view. `?convention=mpararel` shows the run under the
published mParaRel evaluation's averaging (convention.py); the page says which one it uses.
`/probe/compare?run=a&run=b…` shows runs side by side, models × languages (analysis/models.py),
cached by the runs' signatures in the same way. A decoded run's page shows the first queries of
each relation with their word pieces; `/probe/runs/<name>/decoded/<language>/<relation>` shows
every query of one relation, a page at a time.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, Response, abort, render_template, request, url_for

from curator.analysis.convention import CHOICES, DEFAULT, parse
from curator.analysis.decoding import relation_queries
from curator.analysis.models import ModelsTable, models_table
from curator.analysis.report import ReportData, chart_png, report_data
from curator.core.errors import Unreadable
from curator.core.formats.run_catalog import list_runs, resolve_run, run_signature
from curator.core.formats.runs import RunError, read_stored, relation_files
from curator.core.languages import direction
from curator.core.paging import page_count
from curator.web.auth import maintainer_required
from curator.web.settings import current_settings

bp = Blueprint("probe", __name__, url_prefix="/probe")
MAX_COMPARED = 20  # runs on one comparison page
QUERIES_PAGE = 50  # decoded queries on one page of a relation's queries
_LOCK = threading.Lock()  # one computation per run at a time, not one per concurrent request


@lru_cache(maxsize=8)
def _data(path: str, signature: int, convention: str) -> ReportData:
    return report_data(path, convention=parse(convention))


@lru_cache(maxsize=32)
def _chart(path: str, signature: int, convention: str, chart: str) -> bytes:
    return chart_png(_data(path, signature, convention), chart)


@lru_cache(maxsize=8)
def _table(runs: tuple[tuple[str, int], ...], convention: str) -> ModelsTable:
    return models_table([path for path, _signature in runs], convention=parse(convention))


def _convention() -> str:
    """The ?convention= of the request (default: the CLI's default); 400 for an unknown one."""
    value = request.args.get("convention", DEFAULT.value)
    if value not in CHOICES:
        abort(400, f"Unknown convention {value!r}: choose {' or '.join(CHOICES)}.")
    return value


def _query(convention: str) -> dict:
    return {} if convention == DEFAULT.value else {"convention": convention}


def _run(name: str) -> Path:
    run = resolve_run(current_settings().runs, name)
    if run is None:
        abort(404)
    return run


def _cached(fn, run: Path, *args):
    try:
        with _LOCK:
            return fn(str(run), run_signature(run), *args)
    except RunError as exc:
        raise Unreadable(f"This run cannot be read: {exc}") from None


@bp.get("/runs")
@maintainer_required
def runs():
    runs_dir = current_settings().runs
    return render_template("probe_runs.html", runs=list_runs(runs_dir), runs_dir=runs_dir)


@bp.get("/runs/<name>")
@maintainer_required
def run(name: str):
    path = _run(name)
    convention = _convention()
    report = _cached(_data, path, convention)
    charts = {chart: url_for("probe.chart", name=name, chart=chart, **_query(convention)) for chart in report["charts"]}
    conventions = [(c, url_for("probe.run", name=name, **_query(c))) for c in CHOICES]
    decoding = report["decoding"]
    queries_links = {
        f"{rel['language']}/{rel['relation']}": url_for(
            "probe.decoded", name=name, language=rel["language"], relation=rel["relation"]
        )
        for rel in (decoding["queries"] if decoding else [])
    }
    return render_template(
        "probe_run.html",
        report=report,
        charts=charts,
        conventions=conventions,
        direction=direction,
        queries_links=queries_links,
    )


@bp.get("/runs/<name>/decoded/<language>/<relation>")
@maintainer_required
def decoded(name: str, language: str, relation: str) -> str:
    """Every decoded query of one relation with its word pieces, QUERIES_PAGE at a time (`?page=`)."""
    path = _run(name)
    page = request.args.get("page", 1, type=int)
    try:  # only a relation the run lists: the names never make a path of their own
        known = (language, relation) in relation_files(path, [language], [relation])
    except RunError:  # no such language or relation in the run
        abort(404)
    try:
        stored = read_stored(path, language, relation) if known else None
        rel = relation_queries(stored[0], QUERIES_PAGE, (page - 1) * QUERIES_PAGE) if stored is not None else None
    except (RunError, KeyError, TypeError) as exc:
        raise Unreadable(f"This run cannot be read: {exc}") from None
    pages = page_count(rel["total"], QUERIES_PAGE) if rel is not None else 0
    if rel is None or not 1 <= page <= pages:
        abort(404)

    def at(n: int) -> str:
        return url_for("probe.decoded", name=name, language=language, relation=relation, page=n)

    return render_template(
        "probe_decoded.html",
        name=name,
        rel=rel,
        start=(page - 1) * QUERIES_PAGE,
        page=page,
        pages=pages,
        previous=at(page - 1) if page > 1 else None,
        next=at(page + 1) if page < pages else None,
        direction=direction,
    )


@bp.get("/runs/<name>/<chart>.png")
@maintainer_required
def chart(name: str, chart: str):
    path = _run(name)
    convention = _convention()
    report = _cached(_data, path, convention)
    if chart not in report["charts"]:
        abort(404)
    return Response(
        _cached(_chart, path, convention, chart), mimetype="image/png", headers={"Cache-Control": "private, max-age=60"}
    )


@bp.get("/compare")
@maintainer_required
def compare():
    """The models × languages table of the runs ticked on the runs page (`?run=a&run=b…`)."""
    names = list(dict.fromkeys(request.args.getlist("run")))
    if len(names) > MAX_COMPARED:
        abort(400, f"Compare at most {MAX_COMPARED} runs at a time.")
    convention = _convention()
    paths = [_run(name) for name in names]
    table = None
    if paths:
        try:
            with _LOCK:
                table = _table(tuple((str(p), run_signature(p)) for p in paths), convention)
        except RunError as exc:
            raise Unreadable(f"This run cannot be read: {exc}") from None
    links = [url_for("probe.run", name=name, **_query(convention)) for name in names]
    conventions = [(c, url_for("probe.compare", run=names, **_query(c))) for c in CHOICES]
    return render_template(
        "probe_compare.html", table=table, links=links, conventions=conventions, convention=convention
    )

"""Maintainer pages for probe runs: the runs folder as a list, each run as its report.

Reports and charts are computed on first view and cached by the run's signature (newest mtime
of its folders), so a finished run costs one computation, and a run rewritten by a resumed
`curator probe` is recomputed on the next view.
"""
from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, Response, abort, current_app, render_template, url_for

from ..review.auth import maintainer_required
from ..review.service import ReviewError
from .catalog import list_runs, resolve_run, run_signature
from .report import chart_png, report_data
from .results import RunError

bp = Blueprint("probe", __name__, url_prefix="/probe")
_LOCK = threading.Lock()  # one computation per run at a time, not one per concurrent request


@lru_cache(maxsize=8)
def _data(path: str, signature: int) -> dict:
    return report_data(path)


@lru_cache(maxsize=32)
def _chart(path: str, signature: int, chart: str) -> bytes:
    return chart_png(_data(path, signature), chart)


def _run(name: str) -> Path:
    run = resolve_run(current_app.config["RUNS_DIR"], name)
    if run is None:
        abort(404)
    return run


def _cached(fn, run: Path, *args):
    try:
        with _LOCK:
            return fn(str(run), run_signature(run), *args)
    except RunError as exc:
        raise ReviewError(f"This run cannot be read: {exc}", 500) from None


@bp.get("/runs")
@maintainer_required
def runs():
    runs_dir = current_app.config["RUNS_DIR"]
    return render_template("probe_runs.html", runs=list_runs(runs_dir), runs_dir=runs_dir)


@bp.get("/runs/<name>")
@maintainer_required
def run(name: str):
    path = _run(name)
    report = _cached(_data, path)
    charts = {chart: url_for("probe.chart", name=name, chart=chart) for chart in report["charts"]}
    return render_template("probe_run.html", report=report, charts=charts)


@bp.get("/runs/<name>/<chart>.png")
@maintainer_required
def chart(name: str, chart: str):
    path = _run(name)
    report = _cached(_data, path)
    if chart not in report["charts"]:
        abort(404)
    return Response(_cached(_chart, path, chart), mimetype="image/png",
                    headers={"Cache-Control": "private, max-age=60"})

"""The probe report: what a run says, per language and relation, as one static HTML folder.

`report_data` computes everything once into plain values (NaN as None); the static report
(`build_report`) and the web pages render the same Jinja partial from it, so the two never
drift apart.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypedDict

import numpy as np
from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup

from curator.analysis.charts import metric_bars, rankc_heatmap
from curator.analysis.convention import DEFAULT, Convention, ConventionRecord, as_record, parse
from curator.analysis.decoding import QUERIES as QUERIES
from curator.analysis.decoding import QUERY_ROWS as QUERY_ROWS
from curator.analysis.decoding import Accuracy, RelationQueries
from curator.analysis.metrics import DEFAULT_NM_RELATIONS, LABELS, MAIN, METRICS, run_metrics
from curator.analysis.rankc import run_rankc
from curator.core import languages as langs
from curator.core.formats.atomic import atomic_write
from curator.core.formats.run_catalog import created
from curator.core.formats.runs import RankingMissing, RelationPredictions, iter_relations, run_info
from curator.quality.agreement import template_agreement

TEMPLATES = Path(__file__).resolve().parent / "templates"
# the same stylesheet the web app serves, read as a file (the report never imports the web layer)
CSS = Path(__file__).resolve().parent.parent / "web" / "static" / "curator.css"
WORST = 20  # templates in the run-wide list
WORST_PER_LANGUAGE = 5
CHARTS = ("metrics", "rankc")

# run.json fields shown in the header, in this order
SUMMARY_FIELDS = (
    ("model", "Model"),
    ("kind", "Kind"),
    ("release", "Release"),
    ("revision", "Revision"),
    ("device", "Device"),
    ("cuda_device", "GPU"),
    ("dtype", "Dtype"),
    ("options", "Options"),
    ("seconds", "Seconds"),
    ("queries_scored", "Queries scored"),
    ("phrases_per_second", "Queries / s"),
    ("decoding", "Decoding"),
    ("aliases", "Aliases"),
    ("format", "Format"),
    ("source", "Source"),
)


class Agreement(TypedDict):
    """One template's agreement with the other templates of its relation."""

    language: str
    relation: str
    nm: bool
    template: str
    agreement: float
    relation_mean: float


class Summary(TypedDict):
    """A metric of a language: the macro average over relations and its population std."""

    mean: float | None
    std: float | None
    relations: int


class RelationRow(TypedDict):
    relation: str
    nm: bool
    templates: int
    tuples: int
    values: dict[str, float | None]  # {metric: value}


class LanguageRow(TypedDict):
    code: str
    name: str
    dir: str
    metrics: dict[str, Summary]
    relations: list[RelationRow]
    worst: list[Agreement]


class RankCView(TypedDict):
    languages: list[str]
    matrix: list[list[float | None]]
    accuracy: dict[str, float]
    queries: list[list[int]]


class DecodingView(TypedDict):
    """X-FACTR's accuracies of a run decoded without candidates."""

    columns: list[str]
    labels: dict[str, str]
    by_language: dict[str, dict[str, Accuracy]]
    queries: list[RelationQueries]  # per relation its first `limit` queries, with their word pieces
    limit: int | None  # queries per relation asked (None: all)


class ReportData(TypedDict):
    """What `report_data` returns: the static report and the web page render it."""

    name: str
    info: dict[str, Any]  # run.json
    summary: list[tuple[str, str]]
    created: str
    convention: ConventionRecord
    nm_relations: list[str]
    main: list[str]
    metrics: list[str]
    labels: dict[str, str]
    languages: list[LanguageRow]
    relations: int
    worst: list[Agreement]
    rankc: RankCView | None
    rankc_note: str | None
    decoding: DecodingView | None
    charts: list[str]


def _clean(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)


def _summary(info: Mapping[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for key, label in SUMMARY_FIELDS:
        value = info.get(key)
        if value is None or value == "":
            continue
        if isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items())
        rows.append((label, str(value)))
    return rows


def _agreements(rel: RelationPredictions, nm: bool) -> list[Agreement]:
    agreement = template_agreement(rel)
    if not len(agreement) or np.isnan(agreement).all():
        return []
    mean = float(np.nanmean(agreement))
    return [  # neither value is NaN here, so both are rounded as _clean rounds
        {
            "language": rel.language,
            "relation": rel.relation,
            "nm": nm,
            "template": text,
            "agreement": round(float(a), 6),
            "relation_mean": round(mean, 6),
        }
        for text, a in zip(rel.templates, agreement)
        if not np.isnan(a)
    ]


def _worst(rows: Iterable[Agreement], n: int) -> list[Agreement]:
    return sorted(
        rows,
        key=lambda r: (
            r["agreement"],
            r["agreement"] - r["relation_mean"],
            r["language"],
            r["relation"],
            r["template"],
        ),
    )[:n]


def _consistency_first(metrics: Mapping[str, Mapping[str, float]], code: str) -> tuple[bool, float, str]:
    """Sort key: consistency descending (figure 2 of mParaRel), languages without it last."""
    c = metrics["consistency"]["mean"]
    return (math.isnan(c), 0.0 if math.isnan(c) else -c, code)


def _rankc(run: Path, languages: list[str] | None, found: list[str]) -> tuple[RankCView | None, str | None]:
    if len(found) < 2:
        return None, "RankC compares languages: this report has only one."
    try:
        result = run_rankc(run, languages)
    except RankingMissing:
        if run_info(run).get("decoding"):
            return None, "RankC needs candidate rankings; this run decoded its answers without candidates."
        return None, (
            "RankC needs the full candidate rankings, which this run does not store (predictions "
            "imported from the mParaRel format keep only the top answer)."
        )
    matrix = [[_clean(x) for x in row] for row in result.rankc]
    return {
        "languages": result.languages,
        "matrix": matrix,
        "accuracy": result.accuracy,
        "queries": result.queries.tolist(),
    }, None


def _capped(relations: list[RelationQueries], rows: int | None) -> list[RelationQueries]:
    """The relations' queries, the first `rows` of them in all (None: every one): later relations keep their count."""
    if rows is None:
        return relations
    out: list[RelationQueries] = []
    for rel in relations:
        out.append({**rel, "queries": rel["queries"][:rows]})
        rows -= len(out[-1]["queries"])
    return out


def _language_row(
    code: str,
    metrics: dict[str, dict[str, float]],
    relations: dict[str, dict[str, float]],
    agreements: list[Agreement],
    set_apart: set[str],
) -> LanguageRow:
    """One language's row of the report: its averages, its relations and its worst agreements."""
    mine = [a for a in agreements if a["language"] == code]
    return {
        "code": code,
        "name": langs.name(code),
        "dir": langs.direction(code),
        "metrics": {
            m: {"mean": _clean(v["mean"]), "std": _clean(v["std"]), "relations": int(v["relations"])}
            for m, v in metrics.items()
        },
        "relations": [
            {
                "relation": rel,
                "nm": rel in set_apart,
                "templates": int(v["templates"]),
                "tuples": int(v["tuples"]),
                "values": {m: _clean(v[m]) for m in METRICS},
            }
            for rel, v in sorted(relations.items())
        ],
        "worst": _worst(mine, WORST_PER_LANGUAGE),
    }


def _decoding_view(run: Path, languages: list[str] | None, queries: int | None, query_rows: int | None) -> DecodingView:
    """A run decoded without candidates: X-FACTR's accuracies too (analysis/decoding.py)."""
    from curator.analysis import decoding as xfactr

    return {
        "columns": list(xfactr.COLUMNS),
        "labels": xfactr.LABELS,
        "by_language": xfactr.decoding_accuracy(run, languages),
        "queries": _capped(xfactr.decoded_queries(run, languages, limit=queries), query_rows) if queries != 0 else [],
        "limit": queries,
    }


def report_data(
    run_dir: str | Path,
    nm_relations: Iterable[str] = DEFAULT_NM_RELATIONS,
    languages: list[str] | None = None,
    convention: Convention = DEFAULT,
    queries: int | None = QUERIES,
    query_rows: int | None = QUERY_ROWS,
) -> ReportData:
    """Everything the report shows, as plain values; raises RunError for an unreadable run.
    The convention is recorded with the numbers: the same run reads differently under each.
    A decoded run shows its first `queries` queries per relation (None: all, 0: none), at most
    `query_rows` in all (None: no limit)."""
    run = Path(run_dir)
    convention = parse(convention)
    nm = set(nm_relations)
    set_apart = nm if convention is Convention.PARAREL else set()  # relations shown as N-M
    info = run_info(run)
    agreements: list[Agreement] = []

    def visit() -> Iterator[RelationPredictions]:
        for rel in iter_relations(run, languages):
            agreements.extend(_agreements(rel, rel.relation in set_apart))
            yield rel

    by_language, by_relation = run_metrics(visit(), nm, convention)
    order = sorted(by_language, key=lambda code: _consistency_first(by_language[code], code))
    rows = [_language_row(code, by_language[code], by_relation[code], agreements, set_apart) for code in order]
    rankc, rankc_note = _rankc(run, languages, order)
    decoding = _decoding_view(run, languages, queries, query_rows) if info.get("decoding") else None
    return {
        "name": run.name,
        "info": info,
        "summary": _summary(info),
        "created": created(run),
        "convention": as_record(convention, nm),
        "nm_relations": sorted(set_apart),
        "main": list(MAIN),
        "metrics": list(METRICS),
        "labels": LABELS,
        "languages": rows,
        "relations": len({r for rels in by_relation.values() for r in rels}),
        "worst": _worst(agreements, WORST),
        "rankc": rankc,
        "rankc_note": rankc_note,
        "decoding": decoding,
        "charts": [c for c in CHARTS if c != "rankc" or rankc is not None],
    }


def chart_png(data: ReportData, chart: str) -> bytes:
    """One of `data["charts"]` as PNG bytes; KeyError for a chart the data does not have."""
    if chart not in data["charts"]:
        raise KeyError(chart)
    if chart == "metrics":
        codes = [row["code"] for row in data["languages"]]
        return metric_bars(
            codes, {row["code"]: {m: row["metrics"][m]["mean"] for m in MAIN} for row in data["languages"]}
        )
    rankc = data["rankc"]
    assert rankc is not None  # "rankc" is among the charts only when there is a RankC
    return rankc_heatmap(rankc["languages"], rankc["matrix"], rankc["accuracy"])


def environment() -> Environment:
    """Plain Jinja (no Flask): the static report is built from the CLI, without the app."""
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]  # added by jinja2.ext.i18n; the templates mark their strings with _() for the web app
    env.globals["direction"] = langs.direction  # a template cell's dir, from its language
    return env


def render_static(data: ReportData) -> str:
    charts = {name: f"{name}.png" for name in data["charts"]}
    css = Markup(CSS.read_text(encoding="utf-8"))  # our own stylesheet, inlined so the folder stands alone
    # no page of a relation's queries beside a static report: `curator report --queries all` shows them all
    return environment().get_template("probe_report.html").render(report=data, charts=charts, css=css, queries_links={})


def build_report(
    run_dir: str | Path,
    out_dir: str | Path,
    nm_relations: Iterable[str] = DEFAULT_NM_RELATIONS,
    languages: list[str] | None = None,
    convention: Convention = DEFAULT,
    queries: int | None = QUERIES,
    query_rows: int | None = QUERY_ROWS,
) -> Path:
    """Write out_dir/index.html and its PNGs (each file atomically); returns the index path.
    Charts go first, so an index.html never points at a chart that is not there."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = report_data(run_dir, nm_relations, languages, convention, queries, query_rows)
    for chart in CHARTS:
        path = out / f"{chart}.png"
        if chart in data["charts"]:
            atomic_write(path, chart_png(data, chart))
        elif path.exists():  # a stale heatmap from an earlier report of another run
            path.unlink()
    index = out / "index.html"
    atomic_write(index, render_static(data).encode("utf-8"))
    return index

"""Models × languages: several runs side by side, as figure 2 of the mParaRel paper across
models and releases.

For every run and language: consistency, accuracy and consistency-accuracy exactly as
`curator metrics` computes them (`run_metrics`: macro average over relations, under the
convention asked), and the language's mean RankC — the mean of RankC(language, other) over
the run's other languages that share facts with it, from the matrix `curator rankc` prints
(RankC does not depend on the convention). A run without stored rankings (imported from the
mParaRel format) has no RankC. The mean row averages each column over the languages every
run has, so that the columns compare the same languages.

`models_table` computes it as plain values (NaN as None); the CLI (`curator models-table`),
the static page (`curator report RUN_A RUN_B … OUT`, `build_models_report`) and the web page
(`/probe/compare`) all render that one dict, the pages through one template partial.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TypedDict

import numpy as np
from markupsafe import Markup

from curator.analysis.convention import DEFAULT, Convention, ConventionRecord, as_record, parse
from curator.analysis.decoding import QUERIES, QUERY_ROWS
from curator.analysis.metrics import DEFAULT_NM_RELATIONS, MAIN, run_metrics
from curator.analysis.metrics import LABELS as METRIC_LABELS
from curator.analysis.rankc import RankCResult, run_rankc
from curator.core import languages as langs
from curator.core.formats.atomic import atomic_write
from curator.core.formats.runs import RankingMissing, RunError, iter_relations, run_info

COLUMNS = MAIN + ("rankc",)
LABELS = {**{m: METRIC_LABELS[m] for m in MAIN}, "rankc": "RankC (mean)"}

Values = dict[str, float | None]  # {column: value}


class RunColumns(TypedDict):
    """One run's columns of the table."""

    run: str
    name: str
    model: str | None
    release: str | None
    note: str | None  # why a column is missing (no RankC)
    by_language: dict[str, Values]
    label: str  # its heading
    mean: Values  # over the languages every run has


class LanguageHeading(TypedDict):
    code: str
    name: str
    dir: str


class ModelsTable(TypedDict):
    """What `models_table` returns and the pages render."""

    convention: ConventionRecord
    columns: list[str]
    labels: dict[str, str]
    languages: list[LanguageHeading]
    common: list[str]
    runs: list[RunColumns]


class RunJson(TypedDict):
    run: str
    model: str | None
    release: str | None
    label: str
    note: str | None
    by_language: dict[str, Values]
    mean: Values


class ModelsJson(TypedDict):
    """`curator models-table --json`."""

    convention: ConventionRecord
    columns: list[str]
    common_languages: list[str]
    languages: list[str]
    runs: list[RunJson]


def _clean(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 6)


def rankc_means(result: RankCResult) -> dict[str, float | None]:
    """Each language's mean RankC against the run's other languages (pairs without shared facts
    left out; None when no other language shares one)."""
    out: dict[str, float | None] = {}
    for i, lang in enumerate(result.languages):
        values = [
            float(result.rankc[i, j])
            for j in range(len(result.languages))
            if j != i and result.queries[i, j] > 0 and not np.isnan(result.rankc[i, j])
        ]
        out[lang] = _clean(float(np.mean(values))) if values else None
    return out


def run_values(
    run: str | Path,
    languages: list[str] | None = None,
    relations: list[str] | None = None,
    nm_relations: Iterable[str] = DEFAULT_NM_RELATIONS,
    convention: Convention = DEFAULT,
) -> tuple[dict[str, Values], str | None]:
    """({language: {column: value}}, a note when the run has no RankC) of one run."""
    by_language, _ = run_metrics(iter_relations(run, languages, relations), nm_relations, convention)
    note = None
    try:
        means = rankc_means(run_rankc(run, languages, relations))
    except RankingMissing:
        means, note = {}, "no stored rankings: no RankC"
    return {
        lang: {**{m: _clean(values[m]["mean"]) for m in MAIN}, "rankc": means.get(lang)}
        for lang, values in by_language.items()
    }, note


def _short(model: str) -> str:
    """A model as a column heading: a long path's last two components."""
    parts = [p for p in re.split(r"[/\\]+", model) if p]
    return "/".join(parts[-2:]) if len(parts) > 2 else model


def labels(runs: Sequence[RunColumns]) -> list[str]:
    """A heading per run: its model, plus its release when the runs differ in release, plus the run
    folder's name where that still leaves two alike."""
    with_release = len({r["release"] for r in runs}) > 1
    out = [_short(r["model"] or r["name"]) + (f" · {r['release'] or '–'}" if with_release else "") for r in runs]
    if len(set(out)) < len(out):
        out = [label if out.count(label) == 1 else f"{label} ({r['name']})" for label, r in zip(out, runs)]
    if len(set(out)) < len(out):
        out = [f"{label} #{i + 1}" for i, label in enumerate(out)]
    return out


def models_table(
    runs: Iterable[str | Path],
    languages: list[str] | None = None,
    relations: list[str] | None = None,
    nm_relations: Iterable[str] = DEFAULT_NM_RELATIONS,
    convention: Convention = DEFAULT,
) -> ModelsTable:
    """Everything the models × languages table shows, as plain values; RunError for an unreadable run.

    {"convention", "columns", "labels", "languages": [{code, name, dir}], "common": [codes in every
    run], "runs": [{run, name, model, release, label, note, by_language: {code: {column: value}},
    mean: {column: value}}]}; languages by mean consistency over the runs, descending."""
    convention = parse(convention)
    nm = tuple(nm_relations)
    paths = [Path(r) for r in runs]
    if not paths:
        raise RunError("no runs to compare")
    rows: list[RunColumns] = []
    for path in paths:
        info = run_info(path)
        values, note = run_values(path, languages, relations, nm, convention)
        rows.append(
            RunColumns(
                run=str(path),
                name=path.name,
                model=info.get("model"),
                release=info.get("release"),
                note=note,
                by_language=values,
                label="",  # below, from all the rows
                mean={},
            )
        )
    for row, label in zip(rows, labels(rows)):
        row["label"] = label
    codes = sorted({code for row in rows for code in row["by_language"]})
    common = [code for code in codes if all(code in row["by_language"] for row in rows)]
    for row in rows:
        row["mean"] = {}
        for column in COLUMNS:
            got = [v for code in common if (v := row["by_language"][code][column]) is not None]
            row["mean"][column] = _clean(float(np.mean(got))) if got else None

    def order(code: str) -> tuple[bool, float, str]:
        got = [
            v
            for row in rows
            if code in row["by_language"] and (v := row["by_language"][code]["consistency"]) is not None
        ]
        return (not got, -float(np.mean(got)) if got else 0.0, code)

    return {
        "convention": as_record(convention, nm),
        "columns": list(COLUMNS),
        "labels": LABELS,
        "languages": [
            LanguageHeading(code=c, name=langs.name(c), dir=langs.direction(c)) for c in sorted(codes, key=order)
        ],
        "common": common,
        "runs": rows,
    }


def as_json(table: ModelsTable) -> ModelsJson:
    """The table as `curator models-table --json` prints it."""
    return {
        "convention": table["convention"],
        "columns": table["columns"],
        "common_languages": table["common"],
        "languages": [lang["code"] for lang in table["languages"]],
        "runs": [
            RunJson(
                run=row["run"],
                model=row["model"],
                release=row["release"],
                label=row["label"],
                note=row["note"],
                by_language=row["by_language"],
                mean=row["mean"],
            )
            for row in table["runs"]
        ],
    }


# ---------------------------------------------------------------- the static page
def _folder(i: int, name: str) -> str:
    return f"{i + 1}-" + (re.sub(r"[^A-Za-z0-9._-]+", "_", name).lstrip("._-") or "run")


def render_static(table: ModelsTable, links: list[str]) -> str:
    from curator.analysis.report import CSS, environment

    css = Markup(CSS.read_text(encoding="utf-8"))  # our own stylesheet, inlined so the folder stands alone
    return environment().get_template("models_report.html").render(table=table, links=links, css=css)


def build_models_report(
    runs: list[str | Path],
    out_dir: str | Path,
    nm_relations: Iterable[str] = DEFAULT_NM_RELATIONS,
    languages: list[str] | None = None,
    convention: Convention = DEFAULT,
    queries: int | None = QUERIES,
    query_rows: int | None = QUERY_ROWS,
) -> Path:
    """out_dir/index.html with the models × languages table, and each run's own report in
    out_dir/<n>-<run folder name>/ (linked from the table's headings); returns the index path.
    The run reports go first, so the index never links a report that is not there. `queries`
    and `query_rows`: a decoded run's queries shown per relation and in all (None: every one),
    as build_report takes them."""
    from curator.analysis.report import build_report

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    nm = tuple(nm_relations)
    table = models_table(runs, languages, None, nm, convention)
    links = []
    for i, run in enumerate(runs):
        folder = _folder(i, Path(run).name)
        build_report(run, out / folder, nm, languages, convention, queries, query_rows)
        links.append(f"{folder}/index.html")
    index = out / "index.html"
    atomic_write(index, render_static(table, links).encode("utf-8"))
    return index

"""`curator metrics`, `rankc`, `compare`, `report` and `models-table`: the analysis of probe runs (no database)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from curator.cli.common import (
    Column,
    checked_convention,
    convention_option,
    echo_table,
    languages_option,
    nm_option,
    nm_relations_or_default,
    percent,
    relations_option,
)
from curator.cli.decoded_output import QUERIES_SHOWN, QueriesType, decoded_summary, echo_decoded
from curator.core.errors import InputError

Metrics = dict[str, dict[str, dict[str, float]]]  # run_metrics' two tables

_run_option = click.argument("run_dir", type=click.Path(exists=True, file_okay=False))


@click.command()
@_run_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="One JSON object: the convention, then by_language (or by_relation) keyed by language, then metric "
    "(and, for a decoded run, decoding: its settings, X-FACTR's accuracies by language and its queries: per "
    "relation, per query the word pieces, string and v(m) of every number of masks and the chosen m).",
)
@click.option("--by", type=click.Choice(["language", "relation"]), default="language", show_default=True)
@languages_option
@relations_option
@nm_option
@convention_option
@click.option(
    "--queries",
    type=QueriesType(),
    default=None,
    help=f"Decoded runs: the queries shown per relation, each with the word pieces of every number of masks "
    f"and the chosen m: a count, 0 for none or all (default: {QUERIES_SHOWN} in the text output, all in --json).",
)
def metrics(
    run_dir: str,
    as_json: bool,
    by: str,
    languages: list[str],
    relations: list[str],
    nm_relations: list[str] | None,
    convention: str,
    queries: int | None,
) -> None:
    """Consistency, accuracy, consistency-accuracy and friends of a probe run (ours or mParaRel format)."""
    from curator.analysis.convention import as_record, describe
    from curator.analysis.metrics import LABELS, METRICS, SHORT, run_metrics
    from curator.core.formats.runs import iter_relations

    chosen = checked_convention(convention, nm_relations)
    nm = nm_relations_or_default(nm_relations)
    by_language, by_relation = run_metrics(iter_relations(run_dir, languages or None, relations or None), nm, chosen)
    asked = click.get_current_context().get_parameter_source("queries") is not ParameterSource.DEFAULT
    decoded = decoded_summary(run_dir, languages, relations, queries if asked or as_json else QUERIES_SHOWN)

    if as_json:
        _echo_metrics_json(by, by_language, by_relation, as_record(chosen, nm), decoded)
        return
    click.echo(describe(chosen, nm))
    _echo_metrics_table(by, by_language, by_relation)
    click.echo(
        "values in %, mean±std over relations; " + ", ".join(f"{SHORT[m]} = {LABELS[m]}" for m in METRICS), err=True
    )
    if decoded:
        echo_decoded(decoded, asked)
    elif asked:  # said, not silently ignored: a ranking run has no decoded queries to show
        click.echo("--queries: this run ranks candidates; only runs decoded with --decode have queries", err=True)


def _clean(v: Any) -> Any:
    """NaN as null in JSON."""
    return None if isinstance(v, float) and v != v else v


def _echo_metrics_json(by: str, by_language: Metrics, by_relation: Metrics, convention: Any, decoded: Any) -> None:
    """`curator metrics --json`: the convention, then the metrics by language or relation."""
    if by == "language":
        data = {
            lang: {m: {k: _clean(v) for k, v in values.items()} for m, values in ms.items()}
            for lang, ms in by_language.items()
        }
    else:
        data = {
            lang: {rel: {m: _clean(v) for m, v in values.items()} for rel, values in rels.items()}
            for lang, rels in by_relation.items()
        }
    extra = {"decoding": decoded} if decoded else {}
    click.echo(json.dumps({"convention": convention, f"by_{by}": data, **extra}, indent=2, ensure_ascii=False))


def _echo_metrics_table(by: str, by_language: Metrics, by_relation: Metrics) -> None:
    """`curator metrics`'s table: by language (mean±std over relations) or by relation."""
    from curator.analysis.metrics import METRICS, SHORT

    if by == "language":

        def mean_std(m: dict) -> str:
            return percent(m["mean"]) + ("" if m["relations"] == 0 else "±" + percent(m["std"]))

        echo_table(
            [Column("lang", 6), Column("rels", 5, ">"), *(Column(SHORT[m], 14, ">") for m in METRICS)],
            [
                (
                    lang,
                    ms["accuracy"]["relations"] + ms["determinism"]["relations"],
                    *(mean_std(ms[m]) for m in METRICS),
                )
                for lang, ms in by_language.items()
            ],
            sep="",
        )
    else:
        echo_table(
            [
                Column("lang", 6),
                Column("relation", 9),
                Column("T", 4, ">"),
                Column("D", 6, ">"),
                *(Column(SHORT[m], 9, ">") for m in METRICS),
            ],
            [
                (lang, rel, row["templates"], row["tuples"], *(percent(row[m]) for m in METRICS))
                for lang, rels in by_relation.items()
                for rel, row in sorted(rels.items())
            ],
            sep="",
        )


@click.command()
@_run_option
@languages_option
@relations_option
@click.option("--json", "as_json", is_flag=True, help="RankC, COverlap and shared queries as JSON.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="Write the RankC heatmap (.png).")
def rankc(run_dir: str, languages: list[str], relations: list[str], as_json: bool, plot: str | None) -> None:
    """RankC (and COverlap) between the languages of a run, on the facts both languages ask."""
    import numpy as np

    from curator.analysis.rankc import run_rankc

    result = run_rankc(run_dir, languages or None, relations or None)
    if as_json:
        click.echo(json.dumps(result.as_dict(), indent=2, ensure_ascii=False))
    else:
        langs = result.languages
        for title, matrix in (("RankC %", result.rankc), ("COverlap %", result.coverlap)):
            click.echo(title)
            echo_table(
                [Column("", 6), *(Column(lang, 7, ">") for lang in langs)],
                [(a, *(percent(matrix[i, j]) for j in range(len(langs)))) for i, a in enumerate(langs)],
                sep="",
            )
        off = result.rankc[~np.eye(len(langs), dtype=bool)]
        if off.size:
            click.echo(f"mean RankC over language pairs: {percent(float(off.mean()))}%")
    if plot:
        from curator.analysis.charts import rankc_heatmap

        if Path(plot).suffix.lower() != ".png":
            raise InputError(f"--plot must end in .png: {plot}")
        Path(plot).write_bytes(rankc_heatmap(result.languages, result.rankc.tolist(), result.accuracy))
        click.echo(f"wrote {plot}", err=True)


@click.command()
@click.argument("run_a", type=click.Path(exists=True, file_okay=False))
@click.argument("run_b", type=click.Path(exists=True, file_okay=False))
@languages_option
@relations_option
@nm_option
@click.option(
    "--bootstrap",
    "replicates",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Bootstrap replicates.",
)
@click.option(
    "--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95, show_default=True
)
@click.option("--seed", default=0, show_default=True)
@click.option(
    "--json", "as_json", is_flag=True, help="The convention, then by_language keyed by language, then metric."
)
@convention_option
def compare(
    run_a: str,
    run_b: str,
    languages: list[str],
    relations: list[str],
    nm_relations: list[str] | None,
    replicates: int,
    confidence: float,
    seed: int,
    as_json: bool,
    convention: str,
) -> None:
    """Per language and metric: RUN_A, RUN_B, B − A and a paired bootstrap interval over shared tuples."""
    from curator.analysis.compare import as_json as compare_json
    from curator.analysis.compare import compare_runs
    from curator.analysis.convention import describe
    from curator.analysis.metrics import LABELS

    chosen = checked_convention(convention, nm_relations)
    nm = nm_relations_or_default(nm_relations)
    rows = compare_runs(run_a, run_b, languages or None, relations or None, nm, replicates, confidence, seed, chosen)
    if as_json:
        click.echo(json.dumps(compare_json(rows, chosen, nm), indent=2, ensure_ascii=False))
        return
    click.echo(describe(chosen, nm))
    pct = f"{100 * confidence:g}% CI"
    echo_table(
        [
            Column("lang", 6),
            Column("metric", 22),
            Column("A", 7, ">"),
            Column("B", 7, ">"),
            Column("B−A", 8, ">"),
            Column(pct, 18, ">"),
            Column("tuples", 8, ">"),
            Column(""),
        ],
        [
            (
                r.language,
                LABELS[r.metric],
                percent(r.a),
                percent(r.b),
                percent(r.diff),
                f"[{percent(r.low)}, {percent(r.high)}]",
                r.tuples,
                " *" if r.significant else "",
            )
            for r in rows
        ],
        sep="",
    )
    click.echo(f"values in %; * = the {pct} excludes 0; tuples paired by relation, subject and object", err=True)


COMMANDS = (metrics, rankc, compare)

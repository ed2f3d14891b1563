"""`curator report` (a run's HTML report, or several runs' models × languages page with each run's
report beside it) and `curator models-table` (that table in the terminal or as JSON): what puts
runs side by side. The per-run analyses (metrics, rankc, compare) are in cli/analysis.py, whose
options these commands share."""

from __future__ import annotations

import json

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
from curator.cli.decoded_output import QueriesType


@click.command()
@click.argument("run_dirs", metavar="RUN...", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.argument("out", type=click.Path(file_okay=False))
@languages_option
@nm_option
@convention_option
@click.option(
    "--queries",
    type=QueriesType(),
    default=None,
    help="A decoded run's report: the queries shown per relation with the word pieces of every number of "
    "masks: a count, 0 for none or all (default: 5 per relation and 200 in all; with several runs, in "
    "each run's report).",
)
def report(
    run_dirs: tuple[str, ...],
    out: str,
    languages: list[str],
    nm_relations: list[str] | None,
    convention: str,
    queries: int | None,
) -> None:
    """Write an HTML report (and PNG charts) of a probe run to OUT; the page names its convention.
    With several runs: OUT/index.html is their models × languages table, each run's report
    beside it in OUT/<n>-<run name>/."""
    from curator.analysis.report import QUERIES, QUERY_ROWS, build_report

    rows: int | None = None  # the count asked, for every relation
    if click.get_current_context().get_parameter_source("queries") is ParameterSource.DEFAULT:
        queries, rows = QUERIES, QUERY_ROWS

    chosen = checked_convention(convention, nm_relations)
    # the same arguments, in the same order, for one run's report and for several runs' index
    settings = (nm_relations_or_default(nm_relations), languages or None, chosen, queries, rows)
    if len(run_dirs) > 1:
        from curator.analysis.models import build_models_report

        path = build_models_report(list(run_dirs), out, *settings)
    else:
        path = build_report(run_dirs[0], out, *settings)
    click.echo(f"wrote {path} (convention {chosen.value})")


MODEL_COLUMNS = {"consistency": "Cons", "accuracy": "Acc", "consistency_accuracy": "C-A", "rankc": "RankC"}


@click.command("models-table")
@click.argument("run_dirs", metavar="RUN...", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@languages_option
@relations_option
@nm_option
@convention_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="One JSON object: the convention, the languages, then per run its model, release, label, "
    "by_language (language, then column) and mean.",
)
def models_table(
    run_dirs: tuple[str, ...],
    languages: list[str],
    relations: list[str],
    nm_relations: list[str] | None,
    convention: str,
    as_json: bool,
) -> None:
    """Models × languages: consistency, accuracy, consistency-accuracy and mean RankC per language for
    each run (figure 2 of the mParaRel paper across models and releases)."""
    from curator.analysis.convention import describe
    from curator.analysis.models import as_json as table_json
    from curator.analysis.models import models_table as compute

    chosen = checked_convention(convention, nm_relations)
    nm = nm_relations_or_default(nm_relations)
    table = compute(list(run_dirs), languages or None, relations or None, nm, chosen)
    if as_json:
        click.echo(json.dumps(table_json(table), indent=2, ensure_ascii=False))
        return
    click.echo(describe(chosen, nm))
    width, gap = 6, "  │ "
    span = len(MODEL_COLUMNS) * width + len(MODEL_COLUMNS) - 1
    columns = [Column("lang", 6)]
    for _run in table["runs"]:
        columns += [
            Column(short, width, ">", gap=gap if i == 0 else None) for i, short in enumerate(MODEL_COLUMNS.values())
        ]

    def fit(label: str) -> str:
        return (label if len(label) <= span else label[: span - 1] + "…").center(span)

    heading = "".join(gap + fit(run["label"]) for run in table["runs"])
    click.echo(" " * 6 + heading.rstrip())

    def cells(values: dict | None) -> list[str]:
        return [percent(values[c]) if values else "" for c in MODEL_COLUMNS]

    rows = [
        (lang["code"], *(v for run in table["runs"] for v in cells(run["by_language"].get(lang["code"]))))
        for lang in table["languages"]
    ]
    rows.append(("mean", *(v for run in table["runs"] for v in cells(run["mean"]))))
    echo_table(columns, rows, sep=" ")
    for run in table["runs"]:
        click.echo(f"{run['label']}: {run['run']}" + (f" ({run['note']})" if run["note"] else ""), err=True)
    click.echo(
        f"values in %; RankC = the language's mean RankC against the run's other languages; mean over the "
        f"languages every run has ({len(table['common'])})",
        err=True,
    )


COMMANDS = (report, models_table)

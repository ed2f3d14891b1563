"""What `curator metrics` (and `curator report`'s --queries) shows of a run decoded without
candidates (X-FACTR, `curator probe --decode`): its settings, X-FACTR's accuracies by language,
and per relation its queries with the word pieces predicted for every number of masks and the
chosen m. Kept apart from cli/analysis.py, whose commands read every kind of run."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from curator.cli.common import Column, echo_table, format_table, percent

if TYPE_CHECKING:
    from curator.analysis.decoding import RelationQueries

QUERIES_SHOWN = 5  # decoded queries per relation in `curator metrics`' text output unless --queries says


class QueriesType(click.ParamType):
    """`--queries`: a count of decoded queries per relation (0 = none) or `all`; `all` is None."""

    name = "N|all"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int | None:
        if value is None or isinstance(value, int):
            return value
        if str(value).strip().lower() == "all":
            return None
        try:
            count = int(value)
        except ValueError:
            count = -1
        if count < 0:
            self.fail(f"{value!r} is neither a count of queries (0 or more) nor 'all'", param, ctx)
        return count


def decoded_summary(run_dir: str, languages: list[str], relations: list[str], queries: int | None) -> dict | None:
    """X-FACTR's accuracies of a run decoded without candidates, and its first `queries` queries
    per relation (all with None; none with 0); None for a ranking run."""
    from curator.analysis.decoding import decoded_queries, decoding_accuracy
    from curator.core.formats.runs import run_info

    settings = run_info(run_dir).get("decoding")
    if not settings:
        return None
    shown = decoded_queries(run_dir, languages or None, relations or None, queries) if queries != 0 else []
    return {
        "settings": settings,
        "by_language": decoding_accuracy(run_dir, languages or None, relations or None),
        "queries": shown,
    }


def echo_queries(relations: list[RelationQueries], asked: bool) -> None:
    """Per relation, its queries as a table: one line per number of masks, the chosen m starred."""
    for rel in relations:
        shown, total = len(rel["queries"]), rel["total"]
        more = "" if shown == total else "; --queries N or --queries all (with --languages/--relations) for more"
        click.echo(f"\n{rel['language']} {rel['relation']}: {shown} of {total} queries{more}")
        if not rel["pieces_stored"]:
            click.echo("  word pieces not stored (decoded before curator kept them): strings only")
        rows = []
        for i, query in enumerate(rel["queries"], 1):
            click.echo(
                f"  #{i} {query['template']}  X = {query['subject']}  gold = {query['object']}  "
                f"chosen m = {query['chosen']} ({'right' if query['correct'] else 'wrong'})"
            )
            rows = [
                (
                    "*" if mask["m"] == query["chosen"] else "",
                    mask["m"],
                    f"{mask['confidence']:.4f}",
                    "—" if mask["pieces"] is None else " ".join(mask["pieces"]),
                    mask["string"],
                )
                for mask in query["masks"]
            ]
            for line in format_table(
                [
                    Column("", 5, ">"),
                    Column("m", 3, ">"),
                    Column("v(m)", 10, ">"),
                    Column("pieces", 30),
                    Column("string"),
                ],
                rows,
            )[0 if i == 1 else 1 :]:
                click.echo(line.rstrip())
    if relations and not asked:
        click.echo(f"\n(* = the chosen m; {QUERIES_SHOWN} queries per relation by default, --queries N|all|0)")


def _settings(settings: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in settings.items())


def _share(cell: dict) -> str:
    return "—" if cell["value"] is None else f"{percent(cell['value'])} ({cell['correct']}/{cell['total']})"


def echo_decoded(decoded: dict, asked: bool) -> None:
    """The text output's decoding part: settings, accuracies by language, then the queries."""
    from curator.analysis.decoding import COLUMNS, LABELS

    click.echo(
        f"\ndecoded without candidates ({_settings(decoded['settings'])}); X-FACTR accuracy, pooled over "
        "(template, tuple) pairs:"
    )
    echo_table(
        [Column("lang", 6), *(Column(LABELS[c], 24, ">") for c in COLUMNS)],
        [(lang, *(_share(cols[c]) for c in COLUMNS)) for lang, cols in decoded["by_language"].items()],
        sep="",
    )
    echo_queries(decoded["queries"], asked)

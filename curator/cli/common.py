"""What the command modules share: the context object, list options, progress and tables.

List options, one convention. Every option that takes several values (languages, relations)
uses `list_option`: click's own `multiple=True` (the option may be repeated), the type `LIST`
splits each value on commas and whitespace, and the callback joins them into one list, in
order, without duplicates (empty when the option is not given). So `--languages es,ar`,
`--languages "es ar"` and `--languages es --languages ar` all mean [es, ar], as do
`--language es,ar` and `--language es --language ar`. Values after the option without a comma
(`--languages es ar`) are not taken: click gives an option a fixed number of values, and
rewriting argv to get around that would be code of our own for one spelling.
A non-repeatable option may use `LIST` alone (`--nm-relations`: None when not given, so the
command can tell "not given" from "given empty").

Tables: `echo_table` prints aligned columns from `Column`s and rows of values; each column
pads to a fixed width (like an f-string's `{value:>9}`), so the output does not depend on
the values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import click
from sqlalchemy import Engine, inspect

from curator.analysis.convention import CHOICES as CONVENTIONS
from curator.analysis.convention import DEFAULT as DEFAULT_CONVENTION
from curator.analysis.convention import Convention
from curator.core.db import make_engine, make_session_factory
from curator.core.errors import Conflict, InputError
from curator.core.languages import check_code
from curator.core.progress import watching
from curator.core.settings import Settings


class Context:
    """What every command gets: the settings (read once, in `main`) and a lazily made engine."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.url = settings.database_url
        self._engine: Engine | None = None

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            from sqlalchemy.exc import ArgumentError

            try:
                self._engine = make_engine(self.url, busy_timeout=self.settings.busy_timeout)
            except ArgumentError as exc:  # a URL SQLAlchemy cannot parse, or an unknown dialect/driver
                raise InputError(
                    f"not a database URL curator can use: {exc}", location="CURATOR_DATABASE_URL (or --database)"
                ) from None
        return self._engine

    def sessions(self):
        if not inspect(self.engine).has_table("alembic_version"):
            raise Conflict(
                f"the database at {self.engine.url.render_as_string(hide_password=True)} "
                "is not initialised: run `curator init`"
            )
        return make_session_factory(self.engine)


pass_ctx = click.make_pass_decorator(Context)


def progress() -> bool:
    """Show progress bars (on stderr, core/progress.py) only when a person is watching."""
    return watching()


# ---------------------------------------------------------------- list options
class ListType(click.ParamType):
    """A list of values separated by commas and/or whitespace."""

    name = "text"  # the metavar help shows, as for a plain string option

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> list[str]:
        if isinstance(value, (list, tuple)):
            return [str(v) for v in value]
        return [v for v in re.split(r"[,\s]+", str(value)) if v]


LIST = ListType()


def _joined(ctx: click.Context, param: click.Parameter, value: tuple[list[str], ...]) -> list[str]:
    """The values in order without duplicates; a language list (`--language(s)`) is checked
    here, once for every command, with `languages.check_code`."""
    joined = list(dict.fromkeys(v for values in value for v in values))
    if any(opt.startswith("--lang") for opt in param.opts):
        for code in joined:
            check_code(code, param.opts[0])
    return joined


def language_argument(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Callback of a LANGUAGE argument: the code, checked."""
    return None if value is None else check_code(value, param.human_readable_name)


def list_option(*param_decls: str, **kwargs):
    """A repeatable `LIST` option; the command gets one de-duplicated list."""
    return click.option(*param_decls, type=LIST, multiple=True, callback=_joined, **kwargs)


# ---------------------------------------------------------------- output
def percent(value: float | None, digits: int = 1) -> str:
    """A share as a percentage without the sign; — for none (or NaN)."""
    return "—" if value is None or value != value else f"{100 * value:.{digits}f}"


@dataclass(frozen=True)
class Column:
    """One column of `echo_table`: its header, width, alignment ('<' or '>'), the format spec
    of its values (e.g. '.3f') and the text before it (default: the table's separator)."""

    header: str
    width: int = 0
    align: str = "<"
    spec: str = ""
    gap: str | None = None

    def cell(self, value: Any, spec: str | None = None) -> str:
        return format(value, f"{self.align}{self.width or ''}{self.spec if spec is None else spec}")


def format_table(columns: Sequence[Column], rows: Iterable[Sequence[Any]], sep: str = " ") -> list[str]:
    """The header line, then one line per row; values are formatted with the column's spec
    (headers without it)."""

    def line(cells: Iterable[str]) -> str:
        return "".join(
            (sep if c.gap is None else c.gap) * (i > 0) + text for i, (c, text) in enumerate(zip(columns, cells))
        )

    return [
        line(c.cell(c.header, "") for c in columns),
        *(line(c.cell(v) for c, v in zip(columns, row)) for row in rows),
    ]


def echo_table(columns: Sequence[Column], rows: Iterable[Sequence[Any]], sep: str = " ") -> None:
    for text in format_table(columns, rows, sep):
        click.echo(text)


# The analysis commands' shared options (cli/analysis.py and cli/reports.py).
languages_option = list_option("--languages", help="Comma-separated language codes (default: all).")
relations_option = list_option("--relations", help="Comma-separated relation ids (default: all).")
nm_option = click.option(
    "--nm-relations",
    type=LIST,
    default=None,
    metavar="P47,P530,…",
    help="N-M relations, reported as determinism and kept out of the other metrics "
    "(default: those LAMA types N-M; '' for none). Convention pararel only.",
)
convention_option = click.option(
    "--convention",
    type=click.Choice(CONVENTIONS),
    default=DEFAULT_CONVENTION.value,
    show_default=True,
    help="What the averages take. pararel: N-M relations only as determinism, left out of every other "
    "average. mpararel: every relation with ≥ 2 templates, N-M included, in every average, subjects "
    "with several objects dropped — the published mParaRel run_evaluation.py --remove_repeated_subjects.",
)


def nm_relations_or_default(value: list[str] | None) -> tuple[str, ...]:
    from curator.analysis.metrics import DEFAULT_NM_RELATIONS

    if value is None:
        return DEFAULT_NM_RELATIONS
    return tuple(value)


def checked_convention(convention: str, nm_relations: list[str] | None) -> Convention:
    """The Convention, refusing an N-M list it would ignore (mpararel sets no relation apart)."""
    chosen = Convention(convention)
    if chosen is Convention.MPARAREL and nm_relations is not None:
        raise click.UsageError(
            "--nm-relations applies to --convention pararel only: mpararel averages every relation alike"
        )
    return chosen

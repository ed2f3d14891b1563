"""`curator glossary import|export`: each language's glossary as CSV (curator/review/glossary.py)."""

from __future__ import annotations

from pathlib import Path

import click

from curator.cli.common import Context, pass_ctx
from curator.core.db import reading, unit_of_work


@click.group("glossary")
def glossary() -> None:
    """Glossaries: English terms and each language's preferred translation (CSV)."""


@glossary.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@pass_ctx
def glossary_import(ctx: Context, file: Path) -> None:
    """Load FILE (UTF-8 CSV: language,term,translation,note), all or nothing: a bad line names
    its line and field and stores nothing. A term already there takes the line's translation."""
    from curator.review.glossary_csv import import_csv

    with unit_of_work(ctx.sessions()) as session:
        added, updated = import_csv(session, file)
    click.echo(f"{file}: {added} terms added, {updated} updated")


@glossary.command("export")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--language", default=None, metavar="CODE", help="Only this language's glossary (default: every one).")
@pass_ctx
def glossary_export(ctx: Context, file: Path, language: str | None) -> None:
    """Write the glossaries to FILE as UTF-8 CSV (language,term,translation,note)."""
    from curator.review.glossary_csv import export_csv

    with reading(ctx.sessions()) as session:
        count = export_csv(session, file, language)
    click.echo(f"{count} terms written to {file}")


COMMANDS = (glossary,)

"""`curator translate`: machine-translate the English patterns into new languages and ingest them.

Its list options take comma-separated values or repeat (`--languages is,fo`, see `curator.cli.common`).
"""

from __future__ import annotations

from pathlib import Path

import click

from curator.cli.common import Context, list_option, progress
from curator.core.settings import Settings

__all__ = ["translate_command"]


@click.command("translate")
@list_option(
    "--languages",
    required=True,
    metavar="LANG…",
    help="Target languages: `--languages is,fo` or repeated (`--languages is --languages fo`).",
)
@click.option(
    "--system",
    required=True,
    metavar="NAME",
    help="microsoft, google, deepl, libretranslate, or local:<model name or path> "
    "(`{tgt}` in the name loads one model per target, e.g. local:Helsinki-NLP/opus-mt-en-{tgt}).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Where <system>/<lang>/<REL>.jsonl are written (default: instance/translations).",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=None,
    help="Texts per request or forward pass (default: the system's limit, 16 for local models).",
)
@click.option(
    "--rate",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Most HTTP requests per second (default: no limit).",
)
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=None,
    help="Retries after 429, 5xx and network errors, with exponential backoff "
    f"[default: $CURATOR_TRANSLATE_RETRIES, else {Settings.translate_retries}].",
)
@list_option(
    "--relations", metavar="REL…", help="Only these relations: `--relations P19,P36` or repeated (default: all)."
)
@click.option(
    "--device",
    type=click.Choice(["auto", "cpu", "cuda"]),
    default="auto",
    show_default=True,
    help="Local models: where to run.",
)
@click.option("--name", default=None, help="Store the translations under this system name instead.")
@click.pass_context
def translate_command(
    click_ctx: click.Context,
    languages: list[str],
    system: str,
    out: str | None,
    batch_size: int | None,
    rate: float | None,
    retries: int | None,
    relations: list[str],
    device: str,
    name: str | None,
) -> None:
    """Translate the English ParaRel patterns into LANGUAGES with SYSTEM, then ingest the output."""
    from curator.core.db import reading, unit_of_work
    from curator.core.formats.sources import FolderSource
    from curator.core.progress import write
    from curator.ingest.translations import ingest_translations
    from curator.translate.backends import get_translator
    from curator.translate.runner import failure_table, languages_without_tuples, load_english, translate_to_files

    ctx = click_ctx.find_object(Context)
    if ctx is None:
        raise click.UsageError("run as `curator translate` (it needs the database option of `curator`)")
    targets = languages
    out_dir = Path(out) if out else ctx.settings.instance_path / "translations"
    sessions = ctx.sessions()
    # the system first: a local model whose 'translate' extra is missing stops before anything is read
    translator = get_translator(
        system, batch_size=batch_size, rate=rate, retries=retries, device=device, name=name, settings=ctx.settings
    )
    with reading(sessions) as session:
        english = load_english(session, relations or None)
    click.echo(
        f"system {translator.name}: {len(english)} relations into {', '.join(targets)};"
        f" files in {out_dir / translator.name}"
    )
    show_progress = progress()  # a bar and one line per relation on a terminal; the summary below always

    def echo(message: str) -> None:
        if show_progress:
            write(message)  # above the bar

    summary = translate_to_files(translator, english, targets, out_dir, echo=echo, progress=show_progress)
    click.echo(
        f"files: {summary.written} written, {summary.skipped} already complete, {summary.failed} failed;"
        f" {summary.lines} templates translated, {summary.fallbacks} by segments (placeholder lost)"
    )

    if any(out_dir.rglob("*.jsonl")):
        with unit_of_work(sessions) as session:
            ingested = ingest_translations(session, FolderSource(out_dir), trusted=None)
            valid, invalid = _line_counts(session, translator.name, targets)
            missing_tuples = languages_without_tuples(session, targets)
        click.echo(
            f"ingested {ingested.files} files ({ingested.skipped_unchanged} unchanged) from {out_dir};"
            f" {translator.name} lines in {', '.join(targets)}: {valid} valid, {invalid} invalid"
        )
        for reason, n in ingested.reasons.most_common(5):
            click.echo(f"  invalid: {reason}: {n}")
        if missing_tuples:
            click.echo(f"no tuples yet for {', '.join(missing_tuples)}: load them with `curator ingest tuples SRC`")
        click.echo("next: `curator candidates build` to vote the new lines into candidates")
    if summary.failures:
        click.echo(f"{summary.failed} relation(s) failed (re-run the same command to retry only those):", err=True)
        for line in failure_table(summary.failures):
            click.echo("  " + line, err=True)
        click_ctx.exit(1)


def _line_counts(session, system: str, targets: list[str]) -> tuple[int, int]:
    """(valid, invalid) stored lines of `system` in the target languages."""
    from sqlalchemy import func, select

    from curator.core import languages as language_codes
    from curator.core.models import TranslationLine

    codes = [language_codes.canonical(c) for c in targets]
    counts = dict(
        session.execute(
            select(TranslationLine.valid, func.count())
            .where(TranslationLine.system == system, TranslationLine.language.in_(codes))
            .group_by(TranslationLine.valid)
        ).all()
    )
    return counts.get(True, 0), counts.get(False, 0)


COMMANDS = (translate_command,)

"""`curator init`, `curator ingest …` (raw inputs) and `curator candidates …` (voting)."""

from __future__ import annotations

import json
from dataclasses import asdict

import click

from curator.cli.common import Column, Context, echo_table, list_option, pass_ctx, progress
from curator.core.db import unit_of_work
from curator.core.errors import NotFound
from curator.core.languages import canonical
from curator.ingest.candidates import CandidateParams
from curator.ingest.profiles import PROFILES as RULE_PROFILES


@click.command()
@pass_ctx
def init(ctx: Context) -> None:
    """Create or upgrade the database schema (Alembic migrations)."""
    from curator.core.maintenance import display_url
    from curator.core.migrate import current_revision, upgrade

    upgrade(ctx.engine)
    click.echo(f"database {display_url(ctx.engine)} at revision {current_revision(ctx.engine)}")


# ---------------------------------------------------------------- ingest
@click.group()
def ingest() -> None:
    """Import raw inputs from a local folder or an http(s) URL."""


@ingest.command("pararel")
@click.argument("src")
@pass_ctx
def ingest_pararel_cmd(ctx: Context, src: str) -> None:
    """English ParaRel patterns: SRC holds <REL>.jsonl files."""
    from curator.core.formats.sources import open_source
    from curator.ingest.pararel import ingest_pararel

    with unit_of_work(ctx.sessions()) as session:
        s = ingest_pararel(
            session, open_source(src, ctx.settings.fetch_timeout, ctx.settings.fetch_max_bytes), progress=progress()
        )
    click.echo(
        f"ParaRel: {s.relations} relations, {s.patterns} patterns stored ({s.skipped_unchanged} files unchanged)"
    )
    _echo_invisible(s.invisible)


@ingest.command("mlama")
@click.argument("src")
@pass_ctx
def ingest_mlama_cmd(ctx: Context, src: str) -> None:
    """mLAMA templates: SRC holds <lang>/templates.jsonl (used by `candidates build --rules mpararel`)."""
    from curator.core.formats.sources import open_source
    from curator.ingest.mlama import ingest_mlama

    with unit_of_work(ctx.sessions()) as session:
        s = ingest_mlama(session, open_source(src, ctx.settings.fetch_timeout, ctx.settings.fetch_max_bytes))
    click.echo(
        f"mLAMA: {s.templates} templates of ParaRel relations in {len(s.languages)} languages stored"
        f" ({s.skipped_relations} lines of other relations skipped, {s.skipped_unchanged} files unchanged)"
    )
    _echo_invisible(s.invisible)


@ingest.command("xfactr")
@click.argument("file", type=click.Path(dir_okay=False))
@pass_ctx
def ingest_xfactr_cmd(ctx: Context, file: str) -> None:
    """X-FACTR's native-speaker prompts (TREx_prompts.csv: a row per relation, a column per
    language) as candidate templates of the source X-FACTR; prompts whose annotation cannot be
    filled here are listed per language and not stored."""
    from curator.ingest.xfactr import ingest_xfactr

    with unit_of_work(ctx.sessions()) as session:
        s = ingest_xfactr(session, file)
    state = "unchanged, nothing written" if s.unchanged else "stored"
    click.echo(
        f"X-FACTR: {s.templates} prompts in {len(s.stored)} languages {state} "
        f"({sum(s.annotated.values())} annotated; {sum(map(len, s.unsupported.values()))} refused for an "
        f"unsupported annotation, {sum(map(len, s.invalid.values()))} not valid templates, "
        f"{len(s.skipped_relations)} relations ParaRel has not got skipped, {s.empty} empty cells)"
    )
    for title, refused in (("unsupported annotation", s.unsupported), ("not a valid template", s.invalid)):
        for lang in sorted(refused):
            # the relation and what was refused in it: the token the parser named, else its reason
            listed = ", ".join(f"{r.relation} {r.reason.split(': ', 1)[0]}" for r in refused[lang])
            click.echo(f"  {lang}: {len(refused[lang])} {title}: {listed}")


@ingest.command("translations")
@click.argument("src")
@click.option(
    "--trusted",
    default="pararel_bing",
    show_default=True,
    help="System whose vote counts twice (mParaRel trusted Microsoft Translator).",
)
@pass_ctx
def ingest_translations_cmd(ctx: Context, src: str, trusted: str) -> None:
    """Raw MT output: SRC holds <system>/<lang>/<REL>.jsonl."""
    from curator.core.formats.sources import open_source
    from curator.ingest.translations import ingest_translations

    with unit_of_work(ctx.sessions()) as session:
        s = ingest_translations(
            session,
            open_source(src, ctx.settings.fetch_timeout, ctx.settings.fetch_max_bytes),
            trusted=trusted,
            progress=progress(),
        )
    click.echo(
        f"translations: {s.files} files from {len(s.systems)} systems in {len(s.languages)} languages"
        f" ({s.skipped_unchanged} unchanged); {s.lines} lines stored, {s.valid} valid, {s.repaired} repaired"
    )
    for reason, n in s.reasons.most_common(5):
        click.echo(f"  invalid: {reason}: {n}")
    if trusted and trusted not in s.systems:
        click.echo(f"warning: trusted system {trusted!r} is not among the imported systems", err=True)


@ingest.command("tuples")
@click.argument("src")
@pass_ctx
def ingest_tuples_cmd(ctx: Context, src: str) -> None:
    """Subject/object tuples: SRC holds <lang>/<REL>.jsonl, cleaned or raw (from_english) form."""
    from curator.core.formats.sources import open_source
    from curator.ingest.tuples import import_tuples

    s = import_tuples(
        ctx.sessions(), open_source(src, ctx.settings.fetch_timeout, ctx.settings.fetch_max_bytes), progress=progress()
    )
    click.echo(
        f"tuples: {s.files} files, {len(s.languages)} languages, {len(s.relations)} relations"
        f" ({s.skipped_unchanged} unchanged); {s.rows} rows stored"
        + (
            f"; {s.raw_files} raw files, {s.from_english} rows without a label in their language kept aside"
            if s.raw_files
            else ""
        )
    )
    _echo_invisible(s.invisible)


@ingest.command("genders")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@pass_ctx
def ingest_genders_cmd(ctx: Context, files: tuple[str, ...]) -> None:
    """Entity genders: X-FACTR's `<id>\\t<male|female|none>` files (TREx_gender.txt, mTREx_gender.txt),
    which annotated templates agree with (docs/agreement.md). Every file is checked before anything
    is stored; running it again changes nothing."""
    from curator.ingest.genders import ingest_genders

    with unit_of_work(ctx.sessions()) as session:
        s = ingest_genders(session, list(files))
    click.echo(
        f"genders: {s.rows} entities in {s.files} files; {s.added} added, {s.changed} changed, {s.unchanged} unchanged"
    )


@ingest.command("instanceof")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@pass_ctx
def ingest_instanceof_cmd(ctx: Context, files: tuple[str, ...]) -> None:
    """Entity classes: X-FACTR's `<id>\\t<class id>,<class label>[\\t…]` files (TREx_instanceof.txt),
    read by the per-language gender rules of entities without one (docs/agreement.md)."""
    from curator.ingest.genders import ingest_classes

    with unit_of_work(ctx.sessions()) as session:
        s = ingest_classes(session, list(files))
    click.echo(
        f"classes: {s.rows} entities in {s.files} files; {s.added} added, {s.changed} changed, {s.unchanged} unchanged"
    )


def _echo_invisible(tally) -> None:
    """Invisible characters kept from a dataset (core/text.py), per file, when there are any."""
    if tally:
        for line in tally.report(limit=20):
            click.echo(line)


# ---------------------------------------------------------------- candidates
@click.group()
def candidates() -> None:
    """Candidate templates: agreement voting and coverage filters."""


# the options' defaults are CandidateParams' own: one source for each
_CANDIDATE_DEFAULTS = CandidateParams()


@candidates.command("build")
@click.option(
    "--min-votes",
    default=_CANDIDATE_DEFAULTS.min_votes,
    show_default=True,
    help="Votes a template needs (trusted system counts twice).",
)
@click.option(
    "--min-relations",
    default=_CANDIDATE_DEFAULTS.min_relations,
    show_default=True,
    help="Share of English relations a language must cover.",
)
@click.option(
    "--min-phrases",
    default=_CANDIDATE_DEFAULTS.min_phrases,
    show_default=True,
    help="Share of English phrases a language must cover.",
)
@click.option(
    "--min-templates",
    default=_CANDIDATE_DEFAULTS.min_templates,
    show_default=True,
    help="Candidates a relation needs to be usable.",
)
@click.option(
    "--rules",
    type=click.Choice(list(RULE_PROFILES)),
    default=_CANDIDATE_DEFAULTS.rules,
    show_default=True,
    help="Rule profile: 'mpararel' = the published procedure exactly (reproduces the published candidate "
    "sets); 'curator' = broader placeholder repairs.",
)
@click.option(
    "--keep-case",
    is_flag=True,
    help="curator profile: vote on a case-folded key but keep the most frequent cased form "
    "(German nouns); the published rule lower-cases.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the per-language summary as JSON.")
@pass_ctx
def candidates_build(
    ctx: Context,
    min_votes: int,
    min_relations: float,
    min_phrases: float,
    min_templates: int,
    rules: str,
    keep_case: bool,
    as_json: bool,
) -> None:
    """Vote, find usable relations and languages; print a per-language summary."""
    from curator.ingest.coverage import build_candidates

    if keep_case and rules != "curator":
        raise click.UsageError("--keep-case is an option of the curator profile; mpararel lower-cases as published")
    params = CandidateParams(min_votes, min_relations, min_phrases, min_templates, rules=rules, keep_case=keep_case)
    with unit_of_work(ctx.sessions()) as session:
        s = build_candidates(session, params)
    if rules == "mpararel" and (params != CandidateParams(rules=rules) or s.trusted != ["pararel_bing"]):
        click.echo(
            "note: the published procedure used --min-votes 2 --min-relations 0.6 --min-phrases 0.2 "
            "--min-templates 2 with pararel_bing trusted; these candidates differ from it",
            err=True,
        )
    if as_json:
        click.echo(
            json.dumps(
                {
                    "params": asdict(s.params),
                    "trusted": s.trusted,
                    "english_relations": s.english_relations,
                    "english_phrases": s.english_phrases,
                    "languages": [asdict(r) for r in s.languages],
                },
                indent=2,
            )
        )
        return
    echo_table(
        [
            Column("lang", 8),
            Column("templates", 9, ">"),
            Column("candidates", 10, ">"),
            Column("relations", 9, ">"),
            Column("rel%", 5, ">", ".0f"),
            Column("phrases", 9, ">"),
            Column("phr%", 5, ">", ".0f"),
            Column("included", gap="  "),
        ],
        [
            (
                r.language,
                r.templates,
                r.candidates,
                r.usable_relations,
                100 * r.relation_share,
                r.phrases,
                100 * r.phrase_share,
                "yes" if r.included else "no",
            )
            for r in s.languages
        ],
    )
    click.echo(
        f"{len(s.included)} of {len(s.languages)} languages included (rules: {s.params.rules}"
        f"{', case kept' if s.params.keep_case else ''}; trusted: {', '.join(s.trusted) or 'none'};"
        f" English: {s.english_relations} relations, {s.english_phrases} phrases)"
    )


@candidates.command("compare-rules")
@list_option("--language", "languages", help="Only this language (repeatable).")
@click.option("--base", type=click.Choice(list(RULE_PROFILES)), default="mpararel", show_default=True)
@click.option("--other", type=click.Choice(list(RULE_PROFILES)), default="curator", show_default=True)
@click.option("--keep-case", is_flag=True, help="Compare with the case-preserving curator profile.")
@click.option(
    "--examples",
    default=2,
    show_default=True,
    type=click.IntRange(0),
    help="Examples per kind of difference and language.",
)
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def candidates_compare_rules(
    ctx: Context, languages: list[str], base: str, other: str, keep_case: bool, examples: int, as_json: bool
) -> None:
    """What the improved rules add, drop and merge relative to the published ones, per language.

    Counts candidate templates under both profiles (nothing is written) with the default
    thresholds, on case-folded text; 'merged' = templates of OTHER whose lines BASE spreads over
    several candidates; 'apart' = candidates in relations only one profile takes part in (P1001),
    left out of the other columns; relations and included: BASE→OTHER.
    """
    from curator.ingest.compare_rules import compare_rules

    if keep_case and other != "curator":
        raise click.UsageError("--keep-case is an option of the curator profile")
    with ctx.sessions()() as session:
        rows = compare_rules(
            session, CandidateParams(rules=other, keep_case=keep_case), base, other, languages or None, examples
        )
    missing = sorted({canonical(x) for x in languages} - {r.language for r in rows})
    if missing:
        raise NotFound(f"no translations for {', '.join(missing)}")
    if as_json:
        click.echo(
            json.dumps(
                {"base": base, "other": other, "keep_case": keep_case, "languages": [r.to_dict() for r in rows]},
                indent=2,
                ensure_ascii=False,
            )
        )
        return

    def yes(included: bool) -> str:
        return "yes" if included else "no"

    echo_table(
        [
            Column("lang", 8),
            Column(base, 9, ">"),
            Column(other, 9, ">"),
            Column("added", 6, ">"),
            Column("dropped", 7, ">"),
            Column("merged", 6, ">"),
            Column("apart", 6, ">"),
            Column("relations", 10, ">"),
            Column("included", 9, ">"),
        ],
        [
            (
                r.language,
                r.base_candidates,
                r.other_candidates,
                r.added,
                r.dropped,
                r.merged,
                r.out_of_scope,
                f"{r.base_relations}→{r.other_relations}",
                f"{yes(r.base_included)}→{yes(r.other_included)}",
            )
            for r in rows
        ],
    )
    if examples:
        for r in rows:
            shown = [(kind, e) for kind, items in r.examples.items() for e in items]
            if shown:
                click.echo(f"\n{r.language}:")
            for kind, e in shown:
                source = f"  [{e.system}: {e.raw!r}]" if e.raw is not None else ""
                click.echo(f"  {kind:<7} {e.relation:<6} {e.template!r} — {e.detail}{source}")


COMMANDS = (init, ingest, candidates)

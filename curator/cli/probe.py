"""`curator probe` (score a model on a release), `curator models …` (tiny test models) and
`curator runs …` (predictions from other tools). torch and transformers load inside the commands."""
from __future__ import annotations

from pathlib import Path

import click

from curator.cli.common import Context, list_option, pass_ctx, progress
from curator.core.db import reading
from curator.core.enums import ModelKind, ScoreMode, values
from curator.core.errors import InputError, NotFound


@click.command()
@click.argument("src")
@click.option("--model", required=True, help="Hugging Face model name or local path.")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Run folder (resumed if it exists).")
@list_option("--languages", help="Comma-separated language codes (default: all).")
@list_option("--relations", help="Comma-separated relation ids (default: all).")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True)
@click.option("--dtype", type=click.Choice(["auto", "float32", "bfloat16", "float16"]), default="auto",
              show_default=True)
@click.option("--batch-tokens", default=8192, show_default=True, help="Tokens per forward pass (halved on OOM).")
@click.option("--final-punct", is_flag=True, help="End every query with sentence-final punctuation.")
@click.option("--keep-repeated-subjects", is_flag=True, help="Keep subjects that occur with several objects.")
@click.option("--score-mode", type=click.Choice(values(ScoreMode)), default="log-prob", show_default=True,
              help="mean-logit reproduces the published mParaRel code (mean of raw logits).")
@pass_ctx
def probe(ctx: Context, src: str, model: str, out: str, languages: list[str], relations: list[str], device: str,
          dtype: str, batch_tokens: int, final_punct: bool, keep_repeated_subjects: bool, score_mode: str) -> None:
    """Score MODEL on SRC (a release folder or a version name) and store predictions in OUT."""
    from curator.probe import data as probe_data
    from curator.probe.distributed import Ranks
    from curator.probe.runner import run_probe
    from curator.probe.scorers import load_scorer
    from curator.probe.scorers.base import Options

    langs, rels = languages or None, relations or None
    drop = not keep_repeated_subjects
    try:  # FileNotFoundError: SRC is not a release folder, or a file of one is missing
        # the input is read first: a broken release file is reported before a big model loads
        if Path(src).is_dir():
            items = list(probe_data.from_directory(src, langs, rels, drop))
        else:
            with reading(ctx.sessions()) as session:
                items = list(probe_data.from_version(session, src, langs, rels, drop))
        if not items:
            raise NotFound(f"nothing to probe in {src} for the languages/relations asked")
        ranks = Ranks.from_env()  # torchrun / accelerate launch: one process per device (docs/probe.md)
        scorer = load_scorer(model, ranks.device(device), dtype, Options(score_mode, batch_tokens, final_punct))
        summary = run_probe(scorer, items, out, model, src, progress=progress(), ranks=ranks)
    except FileNotFoundError as exc:
        raise InputError(str(exc)) from None
    if not ranks.leader:
        return
    click.echo(f"probed {len(summary.relations)} relations ({summary.skipped} already done), "
               f"{summary.scored} queries scored on {scorer.device}; results in {out}")


# ---------------------------------------------------------------- models
@click.group()
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


COMMANDS = (probe, models, runs)

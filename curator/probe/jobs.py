"""The loop that probes one model after another (`curator probe --model A --model B`, `--plan`):
the jobs `plan.py` makes, each model loaded once for all its releases and freed before the next
loads (`del`, `gc.collect()`, `torch.cuda.empty_cache()` on CUDA), under one process group for a
torchrun or accelerate launch; and `read_release`, the relations a job probes. torch is imported
only when a model is loaded."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.core.errors import CuratorError, NotFound
from curator.core.extras import require_extra
from curator.probe.plan import Job

if TYPE_CHECKING:
    from curator.core.aliases import Aliases
    from curator.probe.data import RelationData
    from curator.probe.decoding import DecodeOptions, MaskedDecoder
    from curator.probe.scorers.base import Scorer
    from curator.probe.summary import RunSummary


def stored_genders(session: Any) -> bool:
    """Whether the database has the genders table (a release folder may be probed beside an
    empty or older database: then the label rules alone decide)."""
    from sqlalchemy import inspect

    return bool(inspect(session.get_bind()).has_table("entity_genders"))


def read_release(
    src: str, languages: list[str] | None, relations: list[str] | None, drop_repeated: bool, sessions: Callable[[], Any]
) -> list[RelationData]:
    """Every relation of SRC (a release folder, else a version name read through `sessions()`)
    as `RelationData`; NotFound when the languages/relations asked leave nothing."""
    from curator.core.db import reading
    from curator.probe import data as probe_data

    if Path(src).is_dir():
        items = list(probe_data.from_directory(src, languages, relations, drop_repeated))
        stored = probe_data.folder_entities(src) if any(data.annotated for data in items) else None
        if stored is not None:  # the folder's own genders.tsv / instanceof.tsv (docs/agreement.md)
            probe_data.with_agreement(items, None, stored)
        elif any(data.annotated for data in items):  # the genders are in the database, if there is one
            try:
                factory = sessions()
            except CuratorError:  # none initialised: the label rules alone (docs/agreement.md)
                probe_data.with_agreement(items, None)
            else:
                with reading(factory) as session:
                    probe_data.with_agreement(items, session if stored_genders(session) else None)
    else:
        with reading(sessions()) as session:
            items = list(probe_data.from_version(session, src, languages, relations, drop_repeated))
            probe_data.with_agreement(items, session)
    if not items:
        raise NotFound(f"nothing to probe in {src} for the languages/relations asked")
    return items


@dataclass
class Finished:
    job: Job
    summary: RunSummary
    device: str


def _decoding(
    options: dict[str, Any], items: dict[str, list[RelationData]], names_from: dict[str, list[RelationData]] | None
) -> tuple[DecodeOptions | None, dict[str, Aliases]]:
    """The decoding settings, checked, and each release's entity names (its labels, and the
    aliases file if one is given): None and no names when the candidates are ranked."""
    if options.get("decoding") is None:
        return None, {}
    from curator.core.aliases import Aliases
    from curator.probe.decoding import DecodeOptions

    decoding = DecodeOptions(**options["decoding"])
    decoding.validate()
    aliases: dict[str, Aliases] = {}
    for release, relations in items.items():
        aliases[release] = Aliases.from_labels((names_from or {}).get(release, relations))
        if options.get("aliases"):
            aliases[release].read(options["aliases"])
    return decoding, aliases


def _decoder(scorer: Scorer, model: str, decoding: DecodeOptions | None) -> MaskedDecoder | None:
    """The decoder of a loaded model when decoding (masked models only), else None."""
    if decoding is None:
        return None
    from curator.probe.decoding import MaskedDecoder
    from curator.probe.scorers.base import ProbeError

    if scorer.kind != "masked":
        raise ProbeError(f"--decode needs a masked language model; {model} is {scorer.kind}")
    return MaskedDecoder(scorer, decoding)


def probe_jobs(
    jobs: list[Job],
    items: dict[str, list[RelationData]],
    options: dict[str, Any],
    progress: bool = False,
    on_finished: Callable[[Finished], None] | None = None,
    names_from: dict[str, list[RelationData]] | None = None,
) -> list[Finished]:
    """Run every job, loading each model once (jobs of one model in a row) and freeing it before
    the next loads; `items[job.release]` are the relations to probe (read before any model).
    When decoding, `names_from[release]` are the relations whose labels name the entities (every
    relation of the languages probed, so that which relations are probed does not change what a
    decoded string names; by default `items`)."""
    import gc

    require_extra("probe", "curator probe")

    from curator.probe.distributed import Ranks, process_group
    from curator.probe.runner import run_probe
    from curator.probe.scorers import load_scorer
    from curator.probe.scorers.base import Options

    ranks = Ranks.from_env()  # torchrun / accelerate launch: one process per device (docs/probe.md)

    scorer_options = Options(
        score_mode=options["score_mode"],
        batch_tokens=options["batch_tokens"],
        final_punct=options["final_punct"],
        pll_variant=options.get("pll_variant", "original"),
    )
    decoding, aliases = _decoding(options, items, names_from)  # checked, aliases read, before a model loads
    groups: dict[str, list[Job]] = {}
    for job in jobs:
        groups.setdefault(job.model, []).append(job)
    finished: list[Finished] = []
    # one process group for every run of the plan: tearing one down and starting the next under the
    # same rendezvous lets a rank reach a stale peer address (gloo connection refused, or a hang)
    with process_group(ranks):
        for model, group in groups.items():
            scorer = load_scorer(
                model,
                ranks.device(options["device"]),
                options["dtype"],
                scorer_options,
                kind=options.get("kind"),
                attention=options.get("attention", "auto"),
                compile=options.get("compile", False),
            )
            device = scorer.device
            try:
                decoder = _decoder(scorer, model, decoding)
                for job in group:
                    summary = run_probe(
                        scorer,
                        items[job.release],
                        job.out,
                        job.model,
                        job.release,
                        progress=progress,
                        ranks=ranks,
                        decoder=decoder,
                        aliases=aliases.get(job.release),
                        aliases_file=options.get("aliases"),
                    )
                    where = f"{ranks.world} ranks ({device} on rank 0)" if ranks.distributed else str(device)
                    finished.append(Finished(job, summary, where))
                    if on_finished and ranks.leader:  # one summary line per run, from rank 0
                        on_finished(finished[-1])
            finally:
                del scorer  # the only reference: the model's memory goes before the next model loads
                gc.collect()
                if device.type == "cuda":
                    import torch

                    torch.cuda.empty_cache()
    return finished

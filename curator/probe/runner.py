"""Run a probe over a release and store predictions, resumably.

Per (language, relation) the run writes `<lang>/<REL>.npz` (rankings as int32 arrays) and
`<lang>/<REL>.json` (what the rows mean: templates, subjects, candidates by entity id), the
JSON last, atomically: a relation whose JSON matches the input digest is done and skipped.
When a relation's input changed (a new release version), rows whose template, subject and
candidate set are unchanged are copied from the previous result and only the rest is scored.

Every file is written through `curator.core.formats.runs`, under the run folder's lock
(`run_lock`): a second `curator probe` on the same folder stops at once with one line saying
the run is in use, instead of interleaving its files with the first one's.
"""

from __future__ import annotations

import hashlib
import json
import platform
import time
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from curator.core.aliases import Aliases
from curator.core.annotated import accepts
from curator.core.formats.runs import (
    RUN_INFO,
    RelationPredictions,
    RunInUse,
    read_stored,
    run_info,
    run_lock,
    save_relation,
    write_run_info,
)
from curator.core.progress import progress_bar
from curator.probe.data import RelationData
from curator.probe.distributed import Ranks, broadcast, gather, process_group
from curator.probe.scorers.base import Options, ProbeError, Scorer
from curator.probe.summary import RelationResult, RunSummary

if TYPE_CHECKING:
    from curator.probe.decoding import MaskedDecoder

# a stored relation: its index (the JSON) and its arrays
Stored = tuple[dict[str, Any], dict[str, np.ndarray]]
# how one relation is probed into the run folder: its result, None when the stored one is current
Task = Callable[[RelationData, Path], RelationResult | None]


def rank(scores: np.ndarray, gold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ranking: candidate indices best first, gold_rank: 0-based position of the gold object)."""
    ranking = np.argsort(-scores, axis=1, kind="stable").astype(np.int32)
    gold_rank = np.argmax(ranking == gold[:, None], axis=1).astype(np.int32)
    return ranking, gold_rank


def options_key(model: str, options: Options, kind: str) -> str:
    """What a stored relation was scored with: a resumed run re-scores a relation whose key differs.
    pll's variant counts only when it is not the original, so earlier runs keep their keys."""
    key: list[Any] = [model, kind, options.score_mode, options.final_punct]
    if options.score_mode == "pll" and options.pll_variant != "original":
        key.append(options.pll_variant)
    return hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]


def load_result(out: Path, language: str, relation: str) -> Stored | None:
    """(index, arrays) of a stored relation, None when there is none (`runs.read_stored`)."""
    return read_stored(out, language, relation)


def _reuse(previous: Stored | None, data: RelationData, okey: str) -> dict[tuple[str, str], np.ndarray]:
    """Ranking rows of the previous result that are still valid, keyed by (template, subject)."""
    if previous is None:
        return {}
    index, arrays = previous
    if index.get("options_key") != okey or [tuple(c) for c in index["candidates"]] != data.candidates:
        return {}
    n = len(index["subjects"])
    annotated = {t for t in index["templates"] if accepts(t, data.language)}
    # an annotated template's rows are never reused: their text also depends on the entities'
    # genders (the relation's digest holds them, so an unchanged relation is skipped whole)
    return {
        (index["templates"][q // n], index["subjects"][q % n][0] + "\x1f" + index["subjects"][q % n][1]): arrays[
            "ranking"
        ][q]
        for q in range(len(index["templates"]) * n)
        if index["templates"][q // n] not in annotated
    }


def probe_relation(scorer: Scorer, data: RelationData, out: Path, model: str) -> RelationResult | None:
    okey = options_key(model, scorer.options, scorer.kind)
    digest = hashlib.sha256((data.digest() + okey).encode()).hexdigest()
    previous = load_result(out, data.language, data.relation)
    if previous is not None and previous[0].get("digest") == digest:
        return None
    start = time.perf_counter()
    known = _reuse(previous, data, okey)
    n = len(data.subjects)
    keys = [(t, uri + "\x1f" + label) for t in data.templates for uri, label in data.subjects]
    ranking = np.zeros((len(keys), len(data.candidates)), dtype=np.int32)
    missing = [q for q, key in enumerate(keys) if key not in known]
    for q, key in enumerate(keys):
        if key in known:
            ranking[q] = known[key]
    gold = np.array(data.gold * len(data.templates), dtype=np.int32)
    if missing:
        todo_templates = sorted({q // n for q in missing})
        todo_subjects = sorted({q % n for q in missing})
        # score the smallest cross product covering the missing rows
        part = data.part(todo_templates, todo_subjects)
        scores = scorer.score_relation(part)
        part_ranking, _ = rank(scores, np.zeros(len(scores), dtype=np.int32))
        for i, t in enumerate(todo_templates):
            for j, s in enumerate(todo_subjects):
                ranking[t * n + s] = part_ranking[i * len(todo_subjects) + j]
        del scores
    gold_rank = np.argmax(ranking == gold[:, None], axis=1).astype(np.int32) if len(gold) else gold
    T, N = len(data.templates), len(data.candidates)
    predicted = ranking[:, 0] if N else np.zeros(len(keys), dtype=np.int32)
    save_relation(
        out,
        RelationPredictions(
            data.language,
            data.relation,
            data.templates,
            data.subjects,
            data.objects,
            data.candidates,
            predicted.reshape(T, n),
            (gold_rank == 0).reshape(T, n),
            np.array(data.gold, dtype=np.int32),
            ranking.reshape(T, n, N),
            gold_rank.reshape(T, n),
        ),
        index_extra={"digest": digest, "options_key": okey},
    )
    accuracy = float((gold_rank == 0).mean()) if len(gold_rank) else 0.0
    return RelationResult(
        data.language,
        data.relation,
        len(keys),
        len(data.candidates),
        len(missing),
        round(time.perf_counter() - start, 3),
        round(accuracy, 4),
    )


def run_probe(
    scorer: Scorer,
    relations: Iterable[RelationData],
    out: str | Path,
    model: str,
    release: str,
    progress: bool = True,
    wait: float | None = 0,
    ranks: Ranks | None = None,
    decoder: MaskedDecoder | None = None,
    aliases: Aliases | None = None,
    aliases_file: str | None = None,
) -> RunSummary:
    """Probe every relation into the run folder `out`, holding its lock throughout (`wait`: seconds
    to wait for another writer, 0 = fail at once with RunInUse, None = as long as it takes).

    With a `decoder` (decoding.MaskedDecoder) relations are decoded without candidates instead
    of ranked (decoded.py); a prediction names an entity by `aliases` (by default the labels
    the release gives each entity; `aliases_file`, recorded in run.json, is where more came from).

    Under a launcher (`ranks`, by default from the environment: distributed.py) each rank probes
    its share of the relations and rank 0, which holds the lock, writes run.json for all of them;
    rank 0 gets the whole run's summary, the other ranks their own."""
    ranks = ranks or Ranks.from_env()
    out = Path(out)
    items = [d for d in relations if d.subjects and len(d.candidates)]
    task = (
        _ranked(scorer, model) if decoder is None else _decoded(decoder, model, aliases or Aliases.from_labels(items))
    )
    extra = (
        {}
        if decoder is None
        else {  # a decoded run scores no candidates: no score mode
            "decoding": asdict(decoder.options),
            "aliases": aliases_file,
            "options": {k: v for k, v in asdict(scorer.options).items() if k not in ("score_mode", "pll_variant")},
        }
    )
    if not ranks.distributed:
        with run_lock(out, wait):
            summary, wall = _probe_items(task, items, out, progress)
            _write_run(out, scorer, model, release, summary, wall, [str(scorer.device)], extra)
            return summary
    return _run_distributed(scorer, task, items, out, model, release, progress, wait, ranks, decoder is None, extra)


def _run_distributed(
    scorer: Scorer,
    task: Task,
    items: list[RelationData],
    out: Path,
    model: str,
    release: str,
    progress: bool,
    wait: float | None,
    ranks: Ranks,
    ranked: bool,
    extra: dict[str, Any],
) -> RunSummary:
    """run_probe under a launcher: rank 0 takes the lock, each rank probes its share (`ranked`:
    weighed by candidates), and rank 0 writes run.json for them all."""
    with process_group(ranks), ExitStack() as held:
        refused = None
        if ranks.leader:  # rank 0 has the lock, or has failed to get it, before any rank writes
            try:
                held.enter_context(run_lock(out, wait))
            except RunInUse as exc:
                refused = str(exc)
        refused = broadcast(refused, ranks)
        if refused:
            raise RunInUse(refused)
        # work per item: ranking scores every candidate, decoding's cost does not depend on them
        mine = ranks.share(
            items, [len(d.templates) * len(d.subjects) * (len(d.candidates) if ranked else 1) for d in items]
        )
        try:
            summary, wall = _probe_items(task, mine, out, progress and ranks.leader)
            failure = None
        except Exception as exc:  # every rank must still reach the gather, or the others wait for it
            summary, wall, failure = RunSummary(), 0.0, (str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            error = exc
        everyone = gather((summary, wall, str(scorer.device), failure), ranks)
        if failure is not None:
            raise error
        failed = [(r, f) for r, (_, _, _, f) in enumerate(everyone) if f is not None]
        if failed:  # the same one line on every rank; relations already stored are kept for a resume
            raise ProbeError("; ".join(f"rank {r}: {message}" for r, message in failed))
        if not ranks.leader:
            return summary
        merged = RunSummary([r for s, *_ in everyone for r in s.relations], sum(s.skipped for s, *_ in everyone))
        merged.relations.sort(key=lambda r: (r.language, r.relation))
        _write_run(
            out,
            scorer,
            model,
            release,
            merged,
            max(w for _, w, *_ in everyone),
            [device for _, _, device, _ in everyone],
            extra,
        )
        return merged


def _ranked(scorer: Scorer, model: str) -> Task:
    return lambda data, out: probe_relation(scorer, data, out, model)


def _decoded(decoder: MaskedDecoder, model: str, aliases: Aliases) -> Task:
    from curator.probe.decoded import decode_relation

    return lambda data, out: decode_relation(decoder, data, out, model, aliases)


def _probe_items(task: Task, items: list[RelationData], out: Path, progress: bool) -> tuple[RunSummary, float]:
    summary = RunSummary()
    started = time.perf_counter()
    bar = progress_bar(items, "probe", "relation", progress)
    for data in bar:
        result = task(data, out)
        if result is None:
            summary.skipped += 1
            continue
        summary.relations.append(result)
        elapsed = time.perf_counter() - started
        bar.set_postfix(
            lang=data.language, rel=data.relation, queries_per_s=f"{summary.scored / max(elapsed, 1e-9):.0f}"
        )
    return summary, time.perf_counter() - started


def _write_run(
    out: Path,
    scorer: Scorer,
    model: str,
    release: str,
    summary: RunSummary,
    wall: float,
    devices: list[str],
    extra: dict[str, Any] | None = None,
) -> None:
    """run.json: what ran, where and how fast; a resumed run keeps the history of earlier ones."""
    run: dict[str, Any] = {  # run.json
        "model": model,
        "kind": scorer.kind,
        "release": release,
        "revision": getattr(scorer.model.config, "_commit_hash", None)
        or getattr(scorer.model.config, "_name_or_path", None),
        "options": asdict(scorer.options),
        "device": devices[0],
        "dtype": str(next(scorer.model.parameters()).dtype),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "cuda_device": torch.cuda.get_device_name(scorer.device) if scorer.device.type == "cuda" else None,
        "ranks": len(devices),
        "devices": devices,
        "compiled": scorer.compiled,
        "attention": getattr(scorer.model.config, "_attn_implementation", None),
        "seconds": round(wall, 3),
        "queries_scored": summary.scored,
        "relations_skipped": summary.skipped,
        "phrases_per_second": round(summary.scored / wall, 1) if wall > 0 else None,
        "relations": [asdict(r) for r in summary.relations],
        **(extra or {}),
    }
    if (out / RUN_INFO).exists():  # keep the history of resumed runs
        old = run_info(out)
        run["relations"] = old.get("relations", []) + run["relations"]
        run["history"] = old.get("history", []) + [
            {k: old.get(k) for k in ("seconds", "queries_scored", "release", "ranks")}
        ]
    write_run_info(out, run)

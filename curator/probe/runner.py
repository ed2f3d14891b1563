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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np
import torch
from tqdm import tqdm

from curator.core.formats.runs import (RUN_INFO, RelationPredictions, read_stored, run_info, run_lock, save_relation,
                                       write_run_info)
from curator.probe.data import RelationData
from curator.probe.scorers.base import Options, Scorer



@dataclass
class RelationResult:
    language: str
    relation: str
    queries: int
    candidates: int
    scored: int  # queries scored in this run (the rest were done or reused)
    seconds: float
    accuracy: float


@dataclass
class RunSummary:
    relations: list[RelationResult] = field(default_factory=list)
    skipped: int = 0

    @property
    def scored(self) -> int:
        return sum(r.scored for r in self.relations)


def rank(scores: np.ndarray, gold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ranking: candidate indices best first, gold_rank: 0-based position of the gold object)."""
    ranking = np.argsort(-scores, axis=1, kind="stable").astype(np.int32)
    gold_rank = np.argmax(ranking == gold[:, None], axis=1).astype(np.int32)
    return ranking, gold_rank


def options_key(model: str, options: Options, kind: str) -> str:
    return hashlib.sha256(json.dumps([model, kind, options.score_mode, options.final_punct]).encode()).hexdigest()[:16]


def load_result(out: Path, language: str, relation: str) -> tuple[dict, dict[str, np.ndarray]] | None:
    """(index, arrays) of a stored relation, None when there is none (`runs.read_stored`)."""
    return read_stored(out, language, relation)


def _reuse(previous: tuple[dict, dict] | None, data: RelationData, okey: str) -> dict[tuple[str, str], np.ndarray]:
    """Ranking rows of the previous result that are still valid, keyed by (template, subject)."""
    if previous is None:
        return {}
    index, arrays = previous
    if index.get("options_key") != okey or [tuple(c) for c in index["candidates"]] != data.candidates:
        return {}
    n = len(index["subjects"])
    return {(index["templates"][q // n], tuple(index["subjects"][q % n])[0] + "\x1f" + index["subjects"][q % n][1]):
            arrays["ranking"][q] for q in range(len(index["templates"]) * n)}


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
        part = RelationData(data.language, data.relation, [data.templates[t] for t in todo_templates],
                            [data.subjects[s] for s in todo_subjects], [data.objects[s] for s in todo_subjects],
                            data.candidates)
        scores = scorer.score_relation(part)
        part_ranking, _ = rank(scores, np.zeros(len(scores), dtype=np.int32))
        for i, t in enumerate(todo_templates):
            for j, s in enumerate(todo_subjects):
                ranking[t * n + s] = part_ranking[i * len(todo_subjects) + j]
        del scores
    gold_rank = np.argmax(ranking == gold[:, None], axis=1).astype(np.int32) if len(gold) else gold
    T, N = len(data.templates), len(data.candidates)
    predicted = ranking[:, 0] if N else np.zeros(len(keys), dtype=np.int32)
    save_relation(out, RelationPredictions(
        data.language, data.relation, data.templates, data.subjects, data.objects, data.candidates,
        predicted.reshape(T, n), (gold_rank == 0).reshape(T, n), np.array(data.gold, dtype=np.int32),
        ranking.reshape(T, n, N), gold_rank.reshape(T, n)), index_extra={"digest": digest, "options_key": okey})
    accuracy = float((gold_rank == 0).mean()) if len(gold_rank) else 0.0
    return RelationResult(data.language, data.relation, len(keys), len(data.candidates), len(missing),
                          round(time.perf_counter() - start, 3), round(accuracy, 4))


def run_probe(scorer: Scorer, relations: Iterable[RelationData], out: str | Path, model: str, release: str,
              progress: bool = True, wait: float | None = 0) -> RunSummary:
    """Probe every relation into the run folder `out`, holding its lock throughout (`wait`: seconds
    to wait for another writer, 0 = fail at once with RunInUse, None = as long as it takes)."""
    with run_lock(out, wait):
        return _run_probe(scorer, relations, Path(out), model, release, progress)


def _run_probe(scorer: Scorer, relations: Iterable[RelationData], out: Path, model: str, release: str,
               progress: bool) -> RunSummary:
    summary = RunSummary()
    started = time.perf_counter()
    items = list(relations)
    bar = tqdm(items, desc="probe", unit="relation", disable=not progress)
    for data in bar:
        if not data.subjects or len(data.candidates) == 0:
            continue
        result = probe_relation(scorer, data, out, model)
        if result is None:
            summary.skipped += 1
            continue
        summary.relations.append(result)
        elapsed = time.perf_counter() - started
        bar.set_postfix(lang=data.language, rel=data.relation, queries_per_s=f"{summary.scored / max(elapsed, 1e-9):.0f}")
    wall = time.perf_counter() - started
    run = {
        "model": model, "kind": scorer.kind, "release": release,
        "revision": getattr(scorer.model.config, "_commit_hash", None) or getattr(scorer.model.config,
                                                                                 "_name_or_path", None),
        "options": asdict(scorer.options), "device": str(scorer.device), "dtype": str(next(scorer.model.parameters()).dtype),
        "torch": torch.__version__, "python": platform.python_version(),
        "cuda_device": torch.cuda.get_device_name(0) if scorer.device.type == "cuda" else None,
        "seconds": round(wall, 3), "queries_scored": summary.scored, "relations_skipped": summary.skipped,
        "phrases_per_second": round(summary.scored / wall, 1) if wall > 0 else None,
        "relations": [asdict(r) for r in summary.relations],
    }
    if (out / RUN_INFO).exists():  # keep the history of resumed runs
        old = run_info(out)
        run["relations"] = old.get("relations", []) + run["relations"]
        run["history"] = old.get("history", []) + [{k: old.get(k) for k in ("seconds", "queries_scored", "release")}]
    write_run_info(out, run)
    return summary

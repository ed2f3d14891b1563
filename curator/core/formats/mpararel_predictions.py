"""The published mParaRel code's prediction files, read into `RelationPredictions`.

One JSON per relation maps "subject-object" to `[[template, prediction, rank], ...]`, with the
gold object's rank as a string ("0" = correct). There are no entity ids: labels stand in for
them, and a key is split back into subject and object by the known object labels (both may
contain '-').
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from curator.core.formats.predictions import RelationPredictions, RunError


def _split_key(key: str, known: set[str]) -> tuple[str, str]:
    """'subject-object' back into its parts; both may contain '-', so prefer a known object label."""
    best = None
    for obj in known:
        if key.endswith("-" + obj) and (best is None or len(obj) > len(best)):
            best = obj
    if best is not None:
        return key[: -len(best) - 1], best
    subject, _, obj = key.rpartition("-")
    return subject, obj


def _templates(path: Path, data: dict[str, Any]) -> tuple[list[str], set[str]]:
    """The templates in first-seen order and the labels predicted at rank 0 (the known objects);
    stops on an entry that is not a list of [template, prediction, rank]."""
    templates: dict[str, None] = {}  # insertion-ordered
    known_objects: set[str] = set()
    for key, rows in data.items():
        if not isinstance(rows, list):
            raise RunError(f"{path}: entry {key!r}: expected a list of [template, prediction, rank]")
        for i, row in enumerate(rows):
            if not (isinstance(row, list) and len(row) == 3):
                raise RunError(f"{path}: entry {key!r}, item {i + 1}: expected [template, prediction, rank]")
            template, prediction, rank = row
            templates.setdefault(template)
            if str(rank) == "0":
                known_objects.add(str(prediction))
    return list(templates), known_objects


def _grid(
    path: Path, data: dict[str, Any], templates: list[str], cand_index: dict[str, int]
) -> tuple[np.ndarray, np.ndarray]:
    """[templates, entries] predicted candidate and gold rank; stops on a rank that is not an
    integer or an entry without a prediction for some template."""
    keys = list(data)
    template_index = {template: t for t, template in enumerate(templates)}
    predicted = np.full((len(templates), len(keys)), -1, dtype=np.int32)
    gold_rank = np.full((len(templates), len(keys)), -1, dtype=np.int32)
    for d, key in enumerate(keys):
        for template, prediction, rank in data[key]:
            t = template_index[template]
            predicted[t, d] = cand_index[str(prediction)]
            try:
                gold_rank[t, d] = int(rank)
            except (TypeError, ValueError):
                raise RunError(f"{path}: entry {key!r}: rank {rank!r} is not an integer") from None
    if (predicted < 0).any():
        t, d = map(int, np.argwhere(predicted < 0)[0])
        raise RunError(f"{path}: entry {keys[d]!r} has no prediction for template {templates[t]!r}")
    return predicted, gold_rank


def load_mpararel(path: Path, data: object, language: str, relation: str) -> RelationPredictions:
    """Labels stand in for entity ids: the published format has no ids."""
    if not isinstance(data, dict):
        raise RunError(f"{path}: expected an object mapping 'subject-object' to predictions")
    templates, known_objects = _templates(path, data)
    parts = []
    for key in data:
        own = [str(p) for _, p, r in data[key] if str(r) == "0" and key.endswith("-" + str(p))]
        parts.append((key[: -len(own[0]) - 1], own[0]) if own else _split_key(key, known_objects))
    labels = sorted({str(row[1]) for rows in data.values() for row in rows} | {o for _, o in parts})
    cand_index = {label: i for i, label in enumerate(labels)}
    predicted, gold_rank = _grid(path, data, templates, cand_index)
    gold = np.array([cand_index[o] for _, o in parts], dtype=np.int32)
    return RelationPredictions(
        language,
        relation,
        templates,
        [(s, s) for s, _ in parts],
        [o for _, o in parts],
        [(label, label) for label in labels],
        predicted,
        gold_rank == 0,
        gold,
        None,
        gold_rank,
    )

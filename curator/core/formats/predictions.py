"""What a probe run holds for one relation, in memory: `RelationPredictions`, whichever format
(ours or the published mParaRel code's) it was read from, and the errors of reading a run.

Every metric, report and comparison takes this one shape, so they are computed by the same code
whatever wrote the predictions (runs.py reads ours, mpararel_predictions.py the published one).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from curator.core.errors import InputError


class RunError(InputError):
    """A run folder or one of its files cannot be read; the message names the file."""


class RankingMissing(RunError):
    """The run stores only top-1 predictions where full rankings are needed."""


@dataclass
class RelationPredictions:
    language: str
    relation: str
    templates: list[str]
    subjects: list[tuple[str, str]]  # (entity id, label) per tuple
    objects: list[str]  # gold object id per tuple
    candidates: list[tuple[str, str]]  # (entity id, label)
    predicted: np.ndarray  # [T, D] candidate index predicted for (template, tuple)
    correct: np.ndarray  # [T, D] bool
    gold: np.ndarray  # [D] candidate index of the gold object (-1 when not a candidate)
    ranking: np.ndarray | None = None  # [T, D, N] candidate indices, best first; None when not stored
    gold_rank: np.ndarray | None = None  # [T, D] 0-based rank of the gold object, when known

    @property
    def shape(self) -> tuple[int, int]:
        return self.predicted.shape

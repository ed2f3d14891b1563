"""Model disagreement (SPEC §7): how often a template predicts what its relation's other
templates predict. It lives in `quality` because it is a quality signal first; the analysis
report shows it too. Inputs are predictions read from a stored run (core.formats.runs)."""

from __future__ import annotations

import numpy as np

from curator.core.formats.runs import RelationPredictions


def template_agreement(rel: RelationPredictions) -> np.ndarray:
    """[T] for each template, the share of (tuple, other template) whose prediction equals its own."""
    T, D = rel.shape
    if T < 2 or D == 0:
        return np.full(T, np.nan)
    same = np.zeros((T, D))
    for t in range(T):  # T is small (≤ ~20); each step is vectorised over tuples and templates
        same[t] = (rel.predicted == rel.predicted[t]).sum(axis=0) - 1
    shares: np.ndarray = same.mean(axis=1) / (T - 1)
    return shares

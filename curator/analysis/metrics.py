"""The metrics of ParaRel and mParaRel (SPEC §6), vectorised over a relation's [T, D] predictions.

Per relation with templates T and tuples D:
  consistency           mean over tuples of the share of template pairs (i<j) predicting the same object
  accuracy              share of (template, tuple) predicting the gold object
  consistency_accuracy  like consistency, counting a pair only if both predictions are also correct
  succ_patt / succ_objs share of templates correct for at least one tuple / tuples correct
                        under at least one template
  know_const / unk_const consistency over tuples with / without any correct prediction
  majority              accuracy of always answering the relation's most common gold object
N-M relations (several objects may be right) are kept apart: their consistency is reported
as `determinism`, and they are left out of the other metrics, as ParaRel does. Per language
the value of a metric is the macro average over relations, with the population std.
Which relations and tuples go into those averages is the convention's (convention.py):
ParaRel's, above, by default, or the published mParaRel evaluation's.

Equal pairs are counted from per-tuple object counts (Σ n·(n-1)/2), so a relation costs
O(T·D), not O(T²·D).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from curator.analysis.convention import DEFAULT, Convention, select
from curator.core.formats.runs import RelationPredictions
from curator.quality.agreement import template_agreement as template_agreement  # a metric of the report too

if TYPE_CHECKING:
    import numpy.typing as npt

# LAMA types these relations of ParaRel as N-M (its `relations.jsonl`); ParaRel's determinism
# split comes from that typing. Configurable with --nm-relations.
DEFAULT_NM_RELATIONS = (
    "P1001",
    "P101",
    "P106",
    "P108",
    "P1303",
    "P1412",
    "P178",
    "P190",
    "P27",
    "P39",
    "P463",
    "P47",
    "P530",
    "P937",
)

MAIN = ("consistency", "accuracy", "consistency_accuracy")
METRICS = MAIN + ("succ_patt", "succ_objs", "know_const", "unk_const", "majority", "determinism")
LABELS = {
    "consistency": "Consistency",
    "accuracy": "Accuracy",
    "consistency_accuracy": "Consistency-accuracy",
    "succ_patt": "Succ-Patt",
    "succ_objs": "Succ-Objs",
    "know_const": "Know-Const",
    "unk_const": "Unk-Const",
    "majority": "Majority baseline",
    "determinism": "Determinism (N-M)",
}


@dataclass
class TupleScores:
    """Per-tuple parts of the main metrics: what a bootstrap over tuples resamples."""

    consistency: np.ndarray  # [D] share of equal template pairs (nan when T < 2)
    accuracy: np.ndarray  # [D] share of templates correct
    consistency_accuracy: np.ndarray  # [D] share of template pairs equal and correct (nan when T < 2)


def equal_pairs(predicted: np.ndarray) -> npt.NDArray[np.float64]:
    """[D] number of template pairs (i<j) with the same prediction, per tuple."""
    T, D = predicted.shape
    if T < 2 or D == 0:
        return np.zeros(D)
    ordered = np.sort(predicted, axis=0)
    # in a sorted column, row i equals exactly the rows between its run's start and i
    row = np.arange(T)[:, None]
    starts = np.ones((T, D), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    run_start = np.maximum.accumulate(np.where(starts, row, 0), axis=0)
    counts: npt.NDArray[np.float64] = (row - run_start).sum(axis=0).astype(float)
    return counts


def tuple_scores(rel: RelationPredictions) -> TupleScores:
    T, D = rel.shape
    pairs = T * (T - 1) / 2
    n_correct = rel.correct.sum(axis=0)
    if T < 2:
        nan = np.full(D, np.nan)
        return TupleScores(nan, n_correct / max(T, 1), nan.copy())
    return TupleScores(equal_pairs(rel.predicted) / pairs, n_correct / T, n_correct * (n_correct - 1) / 2 / pairs)


def _mean(x: np.ndarray | np.generic) -> float:  # .any(axis=…) is typed as maybe a scalar
    return float(x.mean()) if x.size else float("nan")


def relation_metrics(rel: RelationPredictions, nm: bool = False) -> dict[str, float]:
    """Every metric of one relation; N-M relations get only `determinism` (and accuracy-free counts)."""
    T, D = rel.shape
    out: dict[str, float] = {m: float("nan") for m in METRICS}
    out.update(templates=T, tuples=D)
    if D == 0 or T == 0:
        return out
    scores = tuple_scores(rel)
    if nm:
        out["determinism"] = _mean(scores.consistency) if T >= 2 else float("nan")
        return out
    known = rel.correct.any(axis=0)
    out["accuracy"] = _mean(scores.accuracy)
    out["succ_patt"] = _mean(rel.correct.any(axis=1))
    out["succ_objs"] = _mean(known)
    gold = rel.gold[rel.gold >= 0]
    out["majority"] = float(np.bincount(gold).max() / D) if gold.size else 0.0
    if T >= 2:
        out["consistency"] = _mean(scores.consistency)
        out["consistency_accuracy"] = _mean(scores.consistency_accuracy)
        out["know_const"] = _mean(scores.consistency[known])
        out["unk_const"] = _mean(scores.consistency[~known])
    return out


def aggregate(per_relation: Iterable[dict[str, float]]) -> dict[str, dict[str, float]]:
    """Macro average over relations with population std; relations where a metric is undefined are skipped."""
    rows = list(per_relation)
    out = {}
    for m in METRICS:
        values = np.array([r[m] for r in rows if not np.isnan(r[m])], dtype=float)
        out[m] = {
            "mean": float(values.mean()) if values.size else float("nan"),
            "std": float(values.std()) if values.size else float("nan"),
            "relations": int(values.size),
        }
    return out


def left_out(rel: RelationPredictions) -> dict[str, float]:
    """The row of a relation the convention leaves out: its size, and no metric."""
    T, D = rel.shape
    return {**{m: float("nan") for m in METRICS}, "templates": T, "tuples": D}


def run_metrics(
    relations: Iterable[RelationPredictions],
    nm_relations: Iterable[str] = DEFAULT_NM_RELATIONS,
    convention: Convention = DEFAULT,
) -> tuple[dict[str, dict[str, dict[str, float]]], dict[str, dict[str, dict[str, float]]]]:
    """({language: {metric: {mean, std, relations}}}, {language: {relation: {metric: value}}}).

    A relation the convention leaves out keeps its row (all metrics NaN), so `--by relation`
    shows it rather than silently dropping it."""
    nm = set(nm_relations)
    by_relation: dict[str, dict[str, dict[str, float]]] = {}
    for rel in relations:
        kept, is_nm = select(rel, convention, nm)
        values = left_out(rel) if kept is None else relation_metrics(kept, is_nm)
        by_relation.setdefault(rel.language, {})[rel.relation] = values
    by_language = {lang: aggregate(rels.values()) for lang, rels in sorted(by_relation.items())}
    return by_language, by_relation

"""The metrics of ParaRel and mParaRel (SPEC §6), vectorised over a relation's [T, D] predictions.

Each metric is one function of a relation's `Parts`; where the two papers' code computes a
metric differently, the function reads the convention (convention.py; docs/metrics.md has
the table). Per relation with templates T and tuples D:

  consistency           mpararel: mean over tuples of the share of template pairs (i<j) predicting
                        the same object. pararel: equal pairs / pairs summed over subjects, among
                        the templates ParaRel's article rule keeps for each (articles.py)
  accuracy              mpararel: share of (template, tuple) predicting the gold object.
                        pararel: share of tuples the relation's first template gets right
                        (ParaRel's `lama_acc`: its first pattern is LAMA's)
  consistency_accuracy  mpararel: share of template pairs equal and right, mean over tuples.
                        pararel: share of tuples every template gets right (`lama_group_acc`)
  succ_patt / succ_objs share of templates right for at least one tuple / tuples right under at
                        least one template (pararel: among the kept pairs)
  know_const / unk_const consistency over tuples with / without a right prediction (pararel: 0
                        when a side has no pair, as ParaRel's code reports it)
  majority              accuracy of always answering the relation's most common gold object
N-M relations (several objects may be right) are kept apart under pararel: their consistency
is reported as `determinism`, and they are left out of the other metrics, as ParaRel does. Per
language the value of a metric is the macro average over relations, with the population std.

Equal pairs are counted from per-tuple object counts (Σ n·(n-1)/2), so a relation costs
O(T·D), not O(T²·D).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from curator.analysis import articles
from curator.analysis.convention import DEFAULT, Convention, first_template_accuracy, parse, select
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
# every metric, in the order tables show them, with its label (reports, charts) and short label
# (`curator metrics` column headers): filled by @metric below, the one step of adding a metric
METRICS: list[str] = []
LABELS: dict[str, str] = {}
SHORT: dict[str, str] = {}


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


def _ratio(num: float, den: float, empty: float = float("nan")) -> float:
    return float(num / den) if den else empty


@dataclass(frozen=True)
class ParaRelCounts:
    """What yanaiela/pararel's encode_consistency_probe.py counts of one relation, per subject.

    Its per-pattern results are dictionaries keyed by subject label, so a label that occurs in
    several tuples counts once, with its last tuple; a template is skipped for a subject when
    the article rule says so (articles.py). Consistency and its two splits are ratios of pair
    counts summed over subjects (a micro average), not means of per-subject shares."""

    rows: np.ndarray  # [S] the tuple each subject's counts come from (its label's last)
    equal: np.ndarray  # [S] equal pairs among the templates kept for the subject
    pairs: np.ndarray  # [S] pairs among those templates
    known: np.ndarray  # [S] a kept template predicts the gold object
    active: np.ndarray  # [S] at least one template kept
    patterns_right: np.ndarray  # [T'] per template kept for some subject: right for one of them


def pararel_counts(rel: RelationPredictions) -> ParaRelCounts:
    """The per-subject counts of ParaRel's code for one relation (see ParaRelCounts)."""
    last: dict[str, int] = {}
    for d, (_, label) in enumerate(rel.subjects):
        last[label] = d
    idx = np.array(sorted(last.values()), dtype=np.intp)
    label_of = dict(rel.candidates)
    labels = [label_of.get(rel.objects[d]) for d in idx]
    kept = articles.kept(rel.language, rel.templates, labels)
    T = rel.shape[0]
    # a skipped (template, subject) gets a value of its own, equal to no other prediction
    masked = np.where(kept, rel.predicted[:, idx], -2 - np.arange(T)[:, None])
    k = kept.sum(axis=0)
    right = rel.correct[:, idx] & kept
    return ParaRelCounts(
        idx,
        equal_pairs(masked),
        k * (k - 1) / 2,
        np.asarray(right.any(axis=0)),
        np.asarray(kept.any(axis=0)),
        np.asarray(right.any(axis=1))[kept.any(axis=1)],
    )


def tuple_parts(
    rel: RelationPredictions, convention: Convention = DEFAULT, counts: ParaRelCounts | None = None
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{main metric: ([D] numerators, [D] denominators)}: the relation's value is Σ num / Σ den over
    its tuples under `convention`: how relation_metrics computes them, and what a bootstrap over
    tuples (compare.py) resamples. A tuple with denominator 0 does not count (one template; under
    pararel, a subject label's earlier tuples for consistency). `counts`: pararel_counts(rel), if
    already computed."""
    T, D = rel.shape
    ones, zeros = np.ones(D), np.zeros(D)
    if T == 0:
        return dict.fromkeys(MAIN, (zeros, zeros))
    if parse(convention) is Convention.PARAREL:
        c = counts if counts is not None else pararel_counts(rel)
        equal, pairs = np.zeros(D), np.zeros(D)
        equal[c.rows], pairs[c.rows] = c.equal, c.pairs
        every_right = np.asarray(rel.correct.all(axis=0), dtype=float)
        # lama_acc (the first template, every tuple) in English; the mean over templates elsewhere
        first = first_template_accuracy(rel.language)
        accuracy = rel.correct[0].astype(float) if first else rel.correct.mean(axis=0)
        return {
            "consistency": (equal, pairs),  # pairs summed over subjects, article rule applied
            "accuracy": (accuracy, ones),
            # lama_group_acc; with one template it is that template's accuracy, as ParaRel's code
            # stores it before its consistency divides by zero
            "consistency_accuracy": (every_right, ones),
        }
    scores = tuple_scores(rel)
    out = {}
    for m in MAIN:
        x = getattr(scores, m)
        undefined = np.isnan(x)
        out[m] = (np.where(undefined, 0.0, x), np.where(undefined, 0.0, 1.0))
    return out


@dataclass(frozen=True)
class Parts:
    """What a metric reads of one relation (computed once for all of them)."""

    rel: RelationPredictions
    scores: TupleScores
    known: np.ndarray  # [D] whether any template predicts the tuple's gold object
    pararel: ParaRelCounts | None  # under the pararel convention; None under mpararel
    main: dict[str, tuple[np.ndarray, np.ndarray]]  # tuple_parts: consistency, accuracy, consistency_accuracy

    def ratio(self, name: str) -> float:
        """A main metric: Σ numerator / Σ denominator of its tuple parts (nan when nothing counts)."""
        num, den = self.main[name]
        return _ratio(num.sum(), den.sum())

    def pararel_consistency(self, subjects: np.ndarray | None = None, empty: float = float("nan")) -> float:
        """ParaRel's consistency over `subjects` (a [S] mask; all by default): equal pairs / pairs.
        `empty` when those subjects have no pair; nan when the relation has none at all."""
        c = self.pararel
        assert c is not None
        if not c.pairs.sum():
            return float("nan")
        pick = np.ones(len(c.pairs), dtype=bool) if subjects is None else subjects
        return _ratio(c.equal[pick].sum(), c.pairs[pick].sum(), empty)


@dataclass(frozen=True)
class Metric:
    name: str
    compute: Callable[[Parts], float]
    nm: bool  # computed on N-M relations only (and left out of the others)
    pairs: bool  # needs two templates or more (undefined with one)


REGISTRY: dict[str, Metric] = {}


def metric(
    name: str, *, label: str, short: str, nm: bool = False, pairs: bool = False
) -> Callable[[Callable[[Parts], float]], Callable[[Parts], float]]:
    """Register a metric of one relation: the one step (docs/architecture.md). Every table, the
    JSON, the report and the comparisons iterate METRICS, so they pick it up."""

    def add(compute: Callable[[Parts], float]) -> Callable[[Parts], float]:
        if name in REGISTRY:
            raise ValueError(f"metric {name!r} is registered twice")
        REGISTRY[name] = Metric(name, compute, nm, pairs)
        METRICS.append(name)
        LABELS[name] = label
        SHORT[name] = short
        return compute

    return add


@metric("consistency", label="Consistency", short="Cons", pairs=True)
def _consistency(p: Parts) -> float:
    return p.ratio("consistency")


@metric("accuracy", label="Accuracy", short="Acc")
def _accuracy(p: Parts) -> float:
    return p.ratio("accuracy")


@metric("consistency_accuracy", label="Consistency-accuracy", short="C-A", pairs=True)
def _consistency_accuracy(p: Parts) -> float:
    return p.ratio("consistency_accuracy")


@metric("succ_patt", label="Succ-Patt", short="S-Patt")
def _succ_patt(p: Parts) -> float:
    if p.pararel is not None:
        return _mean(p.pararel.patterns_right)
    return _mean(np.asarray(p.rel.correct.any(axis=1)))


@metric("succ_objs", label="Succ-Objs", short="S-Objs")
def _succ_objs(p: Parts) -> float:
    if p.pararel is not None:
        return _mean(p.pararel.known[p.pararel.active])
    return _mean(p.known)


@metric("know_const", label="Know-Const", short="K-Const", pairs=True)
def _know_const(p: Parts) -> float:
    if p.pararel is not None:  # no known subject with a pair: 0, as ParaRel's code reports it
        return p.pararel_consistency(p.pararel.known, empty=0.0)
    return _mean(p.scores.consistency[p.known])


@metric("unk_const", label="Unk-Const", short="U-Const", pairs=True)
def _unk_const(p: Parts) -> float:
    if p.pararel is not None:
        return p.pararel_consistency(~p.pararel.known, empty=0.0)
    return _mean(p.scores.consistency[~p.known])


@metric("majority", label="Majority baseline", short="Major")
def _majority(p: Parts) -> float:
    gold = p.rel.gold[p.rel.gold >= 0]
    return float(np.bincount(gold).max() / p.rel.shape[1]) if gold.size else 0.0


@metric("determinism", label="Determinism (N-M)", short="Determ", nm=True, pairs=True)
def _determinism(p: Parts) -> float:
    return _consistency(p)


def relation_metrics(rel: RelationPredictions, nm: bool = False, convention: Convention = DEFAULT) -> dict[str, float]:
    """Every metric of one relation as `convention`'s code computes it; N-M relations get only
    the N-M ones (`determinism`) and their counts. A metric that needs template pairs is nan
    with one template (under `pararel` Consistent-Acc is not one: every template right)."""
    T, D = rel.shape
    out: dict[str, float] = {m: float("nan") for m in METRICS}
    out.update(templates=T, tuples=D)
    if D == 0 or T == 0:
        return out
    counts = pararel_counts(rel) if parse(convention) is Convention.PARAREL else None
    main = tuple_parts(rel, convention, counts)
    parts = Parts(rel, tuple_scores(rel), np.asarray(rel.correct.any(axis=0)), counts, main)
    for name in METRICS:
        spec = REGISTRY[name]
        # ParaRel's Consistent-Acc (every template right) needs no pair: one template gives its accuracy
        pairs = spec.pairs and not (counts is not None and name == "consistency_accuracy")
        if spec.nm == nm and (T >= 2 or not pairs):
            out[name] = spec.compute(parts)
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
        values = left_out(rel) if kept is None else relation_metrics(kept, is_nm, convention)
        by_relation.setdefault(rel.language, {})[rel.relation] = values
    by_language = {lang: aggregate(rels.values()) for lang, rels in sorted(by_relation.items())}
    return by_language, by_relation

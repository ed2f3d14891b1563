"""Cross-lingual consistency: RankC (Qi et al., 2023) and COverlap between the languages of a run.

A query is a fact (relation, subject id, object id) asked in both languages; its candidates
are matched by entity id and each side's ranking is cut to the candidates both languages
have. With N shared candidates,
    consist = Σ_j w_j · P@j,  P@j = |top-j(l) ∩ top-j(l′)| / j,  w_j = e^(N−j) / Σ_k e^(N−k)
and RankC(l, l′) is the mean over shared queries. A language asks each fact with several
templates; its ranking for the fact is their consensus: the language's whole candidate set
ordered by the sum (= mean) of the candidate's ranks over the templates, ties by the
candidate's place in the relation's candidate list, which is sorted by entity id as a string
("Q10" before "Q9"). The consensus comes first, over all of the language's candidates; the
cut to the shared candidates comes after and keeps that order. COverlap = facts whose
consensus answer is correct in both languages / facts correct in at least one.

The weights fall by e per rank, so ranks past K = 40 change consist by less than 1e-17:
only each side's top K is compared, which keeps a pair of languages O(queries · K).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from curator.core.formats.runs import RankingMissing, RelationPredictions, load_relation, relation_files, relation_path

if TYPE_CHECKING:
    import numpy.typing as npt

TOP_K = 40


def weights(n: int) -> npt.NDArray[np.float64]:
    """w_1..w_n of RankC, computed as e^-(j-1) / Σ e^-k so that large n does not overflow."""
    w: npt.NDArray[np.float64] = np.exp(-np.arange(n, dtype=np.float64))
    return w / float(w.sum())


def positions(order: np.ndarray) -> np.ndarray:
    """The inverse permutation along the last axis: the rank of each candidate in `order`."""
    pos = np.empty_like(order)
    ranks = np.broadcast_to(np.arange(order.shape[-1], dtype=order.dtype), order.shape)
    np.put_along_axis(pos, order, ranks, axis=-1)
    return pos


def consist(order_a: np.ndarray, order_b: np.ndarray, top_k: int = TOP_K) -> npt.NDArray[np.float64]:
    """[Q] RankC consistency of query pairs; orders are [Q, N] permutations of the same N candidates."""
    Q, N = order_a.shape
    if N == 0:
        return np.zeros(Q)
    K = min(N, top_k)
    pos_b = positions(order_b)
    # candidate at a's rank i is in both top-j lists iff max(i, its rank in b) < j
    both = np.maximum(np.take_along_axis(pos_b, order_a[:, :K], axis=1), np.arange(K))
    j = np.arange(1, K + 1)
    overlap = (both[:, :, None] < j[None, None, :]).sum(axis=1)  # [Q, K] |top-j ∩ top-j|
    out: npt.NDArray[np.float64] = (overlap / j) @ weights(N)[:K]
    return out


def consensus(ranking: np.ndarray) -> npt.NDArray[np.int32]:
    """[D, N] candidates by mean rank over the templates of [T, D, N] rankings (stable: ties by index)."""
    return np.argsort(positions(ranking).sum(axis=0), axis=1, kind="stable").astype(np.int32)


@dataclass
class _Side:
    order: np.ndarray  # [D, N] consensus order
    keys: np.ndarray  # [D] fact ids (sorted, unique) within the relation
    rows: np.ndarray  # [D] row of each key in order
    candidates: list[str]
    correct: np.ndarray  # [D] consensus answer is the gold object


def _restrict(order: np.ndarray, candidates: list[str], shared: dict[str, int]) -> np.ndarray:
    lut = np.array([shared.get(c, -1) for c in candidates], dtype=np.int32)
    mapped: npt.NDArray[np.int32] = lut[order]
    return mapped[mapped >= 0].reshape(len(order), len(shared))


class RankCRecord(TypedDict):
    """A RankCResult as JSON (`curator rankc --json`): {language: {language: value}} tables, every
    float at full precision (JSON writes Python's repr, which reads back to the same float)."""

    languages: list[str]
    rankc: dict[str, dict[str, float | None]]
    coverlap: dict[str, dict[str, float | None]]
    queries: dict[str, dict[str, int]]
    accuracy: dict[str, float]


@dataclass
class RankCResult:
    languages: list[str]
    rankc: np.ndarray  # [L, L]
    coverlap: np.ndarray  # [L, L]
    queries: np.ndarray  # [L, L] shared queries
    accuracy: dict[str, float] = field(default_factory=dict)  # consensus accuracy per language

    def as_dict(self) -> RankCRecord:
        def table(m: np.ndarray) -> dict[str, dict[str, float | None]]:
            return {
                a: {b: (None if np.isnan(m[i, j]) else float(m[i, j])) for j, b in enumerate(self.languages)}
                for i, a in enumerate(self.languages)
            }

        return {
            "languages": self.languages,
            "rankc": table(self.rankc),
            "coverlap": table(self.coverlap),
            "queries": {
                a: {b: int(self.queries[i, j]) for j, b in enumerate(self.languages)}
                for i, a in enumerate(self.languages)
            },
            "accuracy": self.accuracy,
        }


def rankc_matrix(
    groups: Iterable[dict[str, RelationPredictions]], languages: list[str], top_k: int = TOP_K
) -> RankCResult:
    """RankC and COverlap for every pair of `languages`; `groups` yields one relation at a time
    ({language: predictions}), so memory holds one relation's rankings, never the run's."""
    index = {lang: i for i, lang in enumerate(languages)}
    L = len(languages)
    sums, both, either, counts = (np.zeros((L, L)) for _ in range(4))
    correct_facts, all_facts = np.zeros(L), np.zeros(L)
    for rels in groups:
        for rel in rels.values():
            if rel.ranking is None:
                raise RankingMissing(
                    f"{rel.language}/{rel.relation}: no stored rankings (RankC needs the full "
                    "candidate ranking; predictions in the mParaRel format have only the top 1, "
                    "and runs decoded without candidates have none)"
                )
        fact_ids: dict[tuple[str, str], int] = {}
        sides: dict[str, _Side] = {}
        for lang, rel in rels.items():
            T, D = rel.shape
            if T == 0 or D == 0:
                continue
            assert rel.ranking is not None  # every relation of the group was checked above
            order = consensus(rel.ranking)
            keys = np.array([fact_ids.setdefault((s[0], o), len(fact_ids)) for s, o in zip(rel.subjects, rel.objects)])
            keys, rows = np.unique(keys, return_index=True)
            correct = order[:, 0] == rel.gold
            sides[lang] = _Side(order, keys, rows, [c[0] for c in rel.candidates], correct)
            correct_facts[index[lang]] += correct.sum()
            all_facts[index[lang]] += D
        names = sorted(sides)
        for x, a in enumerate(names):
            A = sides[a]
            for b in names[x + 1 :]:
                B = sides[b]
                _, ia, ib = np.intersect1d(A.keys, B.keys, assume_unique=True, return_indices=True)
                if not len(ia):
                    continue
                ra, rb = A.rows[ia], B.rows[ib]
                oa, ob = A.order[ra], B.order[rb]
                if A.candidates != B.candidates:
                    shared = sorted(set(A.candidates) & set(B.candidates))
                    lookup = {c: i for i, c in enumerate(shared)}
                    oa, ob = _restrict(oa, A.candidates, lookup), _restrict(ob, B.candidates, lookup)
                i, j = index[a], index[b]
                total = consist(oa, ob, top_k).sum()
                ca, cb = A.correct[ra], B.correct[rb]
                for p, q in ((i, j), (j, i)):
                    sums[p, q] += total
                    counts[p, q] += len(ra)
                    both[p, q] += (ca & cb).sum()
                    either[p, q] += (ca | cb).sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        rankc = sums / counts
        coverlap = both / either
    np.fill_diagonal(rankc, 1.0)
    np.fill_diagonal(coverlap, 1.0)
    np.fill_diagonal(counts, all_facts)
    accuracy = {
        lang: float(correct_facts[index[lang]] / all_facts[index[lang]]) for lang in languages if all_facts[index[lang]]
    }
    return RankCResult(languages, rankc, coverlap, counts.astype(int), accuracy)


def run_rankc(
    run: str | Path, languages: list[str] | None = None, relations: list[str] | None = None, top_k: int = TOP_K
) -> RankCResult:
    run = Path(run)
    files = relation_files(run, languages, relations)
    langs = sorted({lang for lang, _ in files})
    by_relation: dict[str, list[str]] = {}
    for lang, rel in files:
        by_relation.setdefault(rel, []).append(lang)
    groups = (
        {lang: load_relation(relation_path(run, lang, rel)) for lang in by_relation[rel]} for rel in sorted(by_relation)
    )
    return rankc_matrix(groups, langs, top_k)

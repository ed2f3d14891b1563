"""Compare two probe runs: per language and main metric, both values, B − A, and a paired
bootstrap confidence interval over tuples.

Tuples are paired by (relation, subject id, object id), so the runs may use different
templates (reviewed vs unreviewed release), options (with vs without final punctuation) or
models. Each replicate resamples, within every relation, the shared tuples with replacement
— the same draw for both runs — and recomputes the macro average over relations; the
interval is the percentile interval of B − A over the replicates. Both runs are read under
one convention (convention.py), which decides which relations and tuples are averaged and
how: a relation's value is Σ numerator / Σ denominator over its tuples (metrics.tuple_parts),
so ParaRel's consistency (pairs summed over subjects) resamples as it is computed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import numpy as np

from curator.analysis.convention import DEFAULT, Convention, ConventionRecord, as_record, select
from curator.analysis.metrics import DEFAULT_NM_RELATIONS, MAIN, tuple_parts
from curator.core.formats.runs import RunError, iter_relations


@dataclass
class Difference:
    language: str
    metric: str
    a: float
    b: float
    diff: float  # b - a
    low: float
    high: float
    relations: int
    tuples: int

    @property
    def significant(self) -> bool:
        return not (self.low <= 0.0 <= self.high)


# {language: {relation: {metric: {(subject, object): (numerator, denominator)}}}}
PerTuple = dict[str, dict[str, dict[str, dict[tuple[str, str], tuple[float, float]]]]]


class DifferenceRecord(TypedDict):
    """A Difference as JSON, under its language and metric."""

    a: float
    b: float
    diff: float
    low: float
    high: float
    relations: int
    tuples: int
    significant: bool


class CompareRecord(TypedDict):
    """`curator compare --json`: the convention, then {language: {metric: difference}}."""

    convention: ConventionRecord
    by_language: dict[str, dict[str, DifferenceRecord]]


def _per_tuple(
    run: Path, languages: list[str] | None, relations: list[str] | None, nm: set[str], convention: Convention
) -> PerTuple:
    """{language: {relation: {metric: {(subject, object): value}}}} for the relations the convention averages."""
    out: PerTuple = {}
    for found in iter_relations(run, languages, relations):
        rel, is_nm = select(found, convention, nm)
        if rel is None or is_nm or rel.shape[1] == 0:
            continue
        parts = tuple_parts(rel, convention)
        keys = [(s[0], o) for s, o in zip(rel.subjects, rel.objects)]
        out.setdefault(rel.language, {})[rel.relation] = {
            m: dict(zip(keys, zip(num.tolist(), den.tolist()))) for m, (num, den) in parts.items()
        }
    return out


def compare_runs(
    run_a: str | Path,
    run_b: str | Path,
    languages: list[str] | None = None,
    relations: list[str] | None = None,
    nm_relations: Iterable[str] = DEFAULT_NM_RELATIONS,
    replicates: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    convention: Convention = DEFAULT,
) -> list[Difference]:
    nm = set(nm_relations)
    a_scores = _per_tuple(Path(run_a), languages, relations, nm, convention)
    b_scores = _per_tuple(Path(run_b), languages, relations, nm, convention)
    shared_languages = sorted(set(a_scores) & set(b_scores))
    if not shared_languages:
        raise RunError(f"{run_a} and {run_b} share no language with predictions")
    rng = np.random.default_rng(seed)
    tail = (1 - confidence) / 2
    out: list[Difference] = []
    for lang in shared_languages:
        for metric in MAIN:
            a_means, b_means, reps, n_tuples = [], [], [], 0
            for rel in sorted(set(a_scores[lang]) & set(b_scores[lang])):
                va, vb = a_scores[lang][rel][metric], b_scores[lang][rel][metric]
                keys = [k for k in va if k in vb and va[k][1] > 0 and vb[k][1] > 0]
                if not keys:
                    continue
                a = np.array([va[k] for k in keys])  # [n, 2] numerator, denominator
                b = np.array([vb[k] for k in keys])
                n_tuples += len(keys)
                a_means.append(a[:, 0].sum() / a[:, 1].sum())
                b_means.append(b[:, 0].sum() / b[:, 1].sum())
                draw = rng.integers(0, len(keys), size=(replicates, len(keys)))
                reps.append(
                    b[draw, 0].sum(axis=1) / b[draw, 1].sum(axis=1) - a[draw, 0].sum(axis=1) / a[draw, 1].sum(axis=1)
                )
            if not reps:
                continue
            diffs = np.mean(reps, axis=0)
            a_value, b_value = float(np.mean(a_means)), float(np.mean(b_means))
            out.append(
                Difference(
                    lang,
                    metric,
                    a_value,
                    b_value,
                    b_value - a_value,
                    float(np.quantile(diffs, tail)),
                    float(np.quantile(diffs, 1 - tail)),
                    len(reps),
                    n_tuples,
                )
            )
    return out


def as_json(
    rows: list[Difference], convention: Convention = DEFAULT, nm_relations: Iterable[str] = DEFAULT_NM_RELATIONS
) -> CompareRecord:
    """{"convention": {...}, "by_language": {language: {metric: {a, b, diff, low, high, ...}}}}."""
    result: dict[str, dict[str, DifferenceRecord]] = {}
    for row in rows:
        result.setdefault(row.language, {})[row.metric] = DifferenceRecord(
            a=row.a,
            b=row.b,
            diff=row.diff,
            low=row.low,
            high=row.high,
            relations=row.relations,
            tuples=row.tuples,
            significant=row.significant,
        )
    return {"convention": as_record(convention, nm_relations), "by_language": result}

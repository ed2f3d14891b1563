"""Which formulas, relations and tuples the metrics take: ParaRel's code or the published mParaRel code's.

The two papers' code computes some metrics differently (metrics.py, docs/metrics.md has the
table) and averages different things, so the same predictions give different numbers; every
table, report and comparison says which convention it used.

- `pararel` (the default): what yanaiela/pararel's encode_consistency_probe.py computes.
  N-M relations (several objects may be right) count only as determinism and are left out
  of every other average, as ParaRel does — a model that names a different, equally right
  object under another template is not being inconsistent. Relations with one template
  still count for accuracy. Within a relation: accuracy is the first template's, Consistent-
  Acc counts a tuple only when every template is right, subjects are keyed by label, and an
  English template is skipped for a tuple whose object does not fit its article (articles.py).
- `mpararel`: what the published `evaluate_consistency/run_evaluation.py` computes when run
  as its README says (with `--remove_repeated_subjects`): every relation with at least two
  templates, N-M ones included, counts in every average (no determinism); relations with
  fewer than two templates are left out of everything; tuples whose subject occurs with more
  than one object are dropped — by the published rule, which takes the text before the first
  '-' of a "subject-object" key for the subject, so "Jean-Paul" and "Jean-Luc" are one subject
  there. Probe with --keep-repeated-subjects (as the published code predicted every tuple) to
  let this rule, not the probe's by-id rule, choose the tuples.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from enum import Enum
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:  # numpy and the run reader stay out of the CLI's start-up, which only needs the names
    from curator.core.formats.runs import RelationPredictions


class Convention(str, Enum):  # noqa: UP042 -- str() stays "Convention.PARAREL", as callers have seen it
    PARAREL = "pararel"
    MPARAREL = "mpararel"


DEFAULT = Convention.PARAREL
CHOICES = tuple(c.value for c in Convention)

AVERAGES = {
    Convention.PARAREL: "N-M relations count only as determinism and are left out of every other average; "
    "relations with one template count for accuracy; ParaRel's code's formulas (accuracy: the first "
    "template's in English, ParaRel's lama_acc, the mean over templates in other languages; every template "
    "right for consistent-acc; English article rule)",
    Convention.MPARAREL: "every relation with at least two templates, N-M included, in every average (no "
    "determinism); subjects with more than one object dropped (the published "
    "run_evaluation.py --remove_repeated_subjects)",
}


def parse(value: str | Convention | None) -> Convention:
    """A Convention from its name; ValueError naming the choices for anything else."""
    if value is None:
        return DEFAULT
    try:
        return Convention(value)
    except ValueError:
        raise ValueError(f"unknown convention {value!r}: choose {' or '.join(CHOICES)}") from None


def first_template_accuracy(language: str) -> bool:
    """Whether `pararel` accuracy is the first template's (ParaRel's `lama_acc`): in English only
    (en, en-GB, en_US …), where the first template is LAMA's pattern, as in ParaRel's data. In any
    other language the first template is an arbitrary one (a translation, an X-FACTR prompt), so
    accuracy there is the mean over templates, as before issue 39."""
    return language.replace("_", "-").split("-")[0].lower() == "en"


def describe(convention: Convention, nm_relations: Iterable[str] = ()) -> str:
    """One line for the top of a table: the convention's name and what its averages take."""
    convention = parse(convention)
    line = f"convention: {convention.value} — {AVERAGES[convention]}"
    if convention is Convention.PARAREL:
        line += f" (N-M: {', '.join(sorted(nm_relations)) or 'none'})"
    return line


class ConventionRecord(TypedDict):
    """The convention as JSON output and reports record it."""

    name: str
    averages: str
    nm_relations: list[str]


def as_record(convention: Convention, nm_relations: Iterable[str] = ()) -> ConventionRecord:
    """The convention as JSON output and reports record it."""
    convention = parse(convention)
    return {
        "name": convention.value,
        "averages": AVERAGES[convention],
        "nm_relations": sorted(nm_relations) if convention is Convention.PARAREL else [],
    }


def published_subject(sub_label: str, obj_label: str) -> str:
    """What the published evaluation takes for a tuple's subject: the text before the first '-'
    of its "subject-object" key. Distinct subjects sharing a first hyphenated word ("Jean-Paul",
    "Jean-Luc") count as one; copied on purpose, so the numbers are the published ones."""
    return f"{sub_label}-{obj_label}".split("-")[0]


def drop_repeated_subjects(rel: RelationPredictions) -> RelationPredictions:
    """The relation without the tuples whose (published) subject occurs in more than one key.

    Keys are "subject label-object label" and counted once each, as in the published
    prediction files, which are dictionaries keyed that way.
    """
    import numpy as np

    label_of = dict(rel.candidates)
    keys = [(label, label_of.get(obj, obj)) for (_, label), obj in zip(rel.subjects, rel.objects)]
    keys_of: dict[str, set[tuple[str, str]]] = {}
    for key in keys:
        keys_of.setdefault(published_subject(*key), set()).add(key)
    keep = np.array([len(keys_of[published_subject(*key)]) == 1 for key in keys], dtype=bool)
    if keep.all():
        return rel
    idx = np.flatnonzero(keep)
    return dataclasses.replace(
        rel,
        subjects=[rel.subjects[i] for i in idx],
        objects=[rel.objects[i] for i in idx],
        predicted=rel.predicted[:, keep],
        correct=rel.correct[:, keep],
        gold=rel.gold[keep],
        ranking=None if rel.ranking is None else rel.ranking[:, keep],
        gold_rank=None if rel.gold_rank is None else rel.gold_rank[:, keep],
    )


def select(
    rel: RelationPredictions, convention: Convention, nm_relations: set[str]
) -> tuple[RelationPredictions | None, bool]:
    """(the relation as the convention averages it, or None when it is left out; whether it is N-M)."""
    if parse(convention) is Convention.PARAREL:
        return rel, rel.relation in nm_relations
    if rel.shape[0] < 2:
        return None, False
    return drop_repeated_subjects(rel), False

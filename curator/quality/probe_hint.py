"""The model-disagreement signal for reviewers (SPEC §7): how often the template under review
predicts what its relation's other templates predict, in the latest probe run.

The review screen asks once per item, so each relation's agreement is cached, keyed by the
prediction files' paths and mtimes: a rewritten file is a new key, never a stale answer.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TypedDict

import numpy as np

from curator.core import languages
from curator.core.formats.layout import RELATION_ID
from curator.core.formats.run_catalog import inside, latest_run
from curator.core.formats.runs import RunError, load_relation, run_info
from curator.quality.agreement import template_agreement

LOW_GAP = 0.2  # this far below the relation's mean is "worth a careful look"


class ProbeHint(TypedDict):
    """A template's agreement in the latest probe run, as the review screen shows it."""

    run: str  # the run folder's name
    model: str  # the model it probed (the run's name when run.json does not say)
    agreement: float
    relation_mean: float  # the relation's templates' mean agreement
    low: bool  # agreement more than LOW_GAP below the mean


@lru_cache(maxsize=512)
def _relation_agreement(index: str, index_mtime: int, arrays_mtime: int) -> dict[str, tuple[float, float]]:
    """{template text: (its agreement, the relation's mean agreement)}; empty when unreadable."""
    try:
        rel = load_relation(index, with_ranking=False)
    except (RunError, OSError, ValueError, KeyError):
        return {}
    agreement = template_agreement(rel)
    if not len(agreement) or np.isnan(agreement).all():
        return {}
    mean = float(np.nanmean(agreement))
    return {text: (float(a), mean) for text, a in zip(rel.templates, agreement) if not np.isnan(a)}


@lru_cache(maxsize=64)
def _model(info: str, mtime: int) -> str | None:
    try:
        return run_info(Path(info).parent).get("model")
    except RunError:
        return None


def _mtime(path: Path) -> int:
    return path.stat().st_mtime_ns if path.exists() else 0


def probe_hint(runs_dir: str | Path | None, language: str, relation: str, template: str) -> ProbeHint | None:
    """The latest run's agreement for this (language, relation, template text), or None when
    there is no run, the run lacks it, or the relation has a single template."""
    if not runs_dir:
        return None
    run = latest_run(runs_dir)
    if run is None or not languages.CODE.fullmatch(language or "") or not RELATION_ID.match(relation or ""):
        return None
    index = run / language / f"{relation}.json"
    if not inside(run, index) or not index.is_file():  # a language folder linked elsewhere is not read
        return None
    found = _relation_agreement(str(index), _mtime(index), _mtime(index.with_suffix(".npz"))).get(template)
    if found is None:
        return None
    agreement, mean = found
    info = run / "run.json"
    return ProbeHint(
        run=run.name,
        model=_model(str(info), _mtime(info)) or run.name,
        agreement=round(agreement, 4),
        relation_mean=round(mean, 4),
        low=agreement < mean - LOW_GAP,
    )

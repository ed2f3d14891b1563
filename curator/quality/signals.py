"""Compute, store and combine the quality signals of candidate templates (SPEC §7).

- MT agreement: how many systems produced the template (`Template.votes`, trusted counted twice).
- Repairs: whether a voter's line needed a placeholder repair (`Template.repaired`).
- Back-translation cosine: the template translated back to English, embedded with a
  sentence-transformers model next to the ParaRel pattern it translates; below 0.75 is a warning.
- Model disagreement: in a probe run, how often the template predicts what its relation's
  other templates predict, against the relation's average.

`risk` folds votes, similarity and disagreement into one number in [0, 1] by which a
maintainer can order a language's review queue. The components combine as a noisy-OR,
1 − Π(1 − cᵢ): a signal not computed yet counts as no evidence, and adding a warning can only
raise a template's risk, never lower it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import QueueOrder, values
from curator.core.errors import Conflict, InputError, NotFound
from curator.core.extras import require_extra
from curator.core.models import EnglishPattern, Language, Template, TemplateSignal, first_english
from curator.core.progress import progress_bar
from curator.quality import checks
from curator.quality.checks import CHECKS, WARN_SIMILARITY

if TYPE_CHECKING:  # the translation backends are imported when similarity is measured
    from curator.translate import Translator

BANDS = ((0.0, "low"), (1 / 3, "medium"), (2 / 3, "high"))
QUEUE_ORDERS = values(QueueOrder)


@dataclass(frozen=True)
class _Votes:
    """A template as the checks see it when only its votes are known (`checks.TemplateFacts`)."""

    votes: int
    repaired: bool = False


def risk_components(
    votes: int, similarity: float | None = None, agreement: float | None = None, relation_agreement: float | None = None
) -> dict[str, float]:
    """Each known signal as a risk in [0, 1] (1 = most likely wrong), from the registered checks
    (curator.quality.checks): votes, similarity, disagreement."""
    template = _Votes(votes)
    signal = TemplateSignal(similarity=similarity, agreement=agreement, relation_agreement=relation_agreement)
    return checks.risk_components(template, signal)


def risk(votes: int, signal: TemplateSignal | None) -> float:
    return checks.combine(checks.risk_components(_Votes(votes), signal))


def band(score: float) -> str:
    return [name for low, name in BANDS if score >= low][-1]


def _signal(session: Session, template_id: int, cache: dict[int, TemplateSignal]) -> TemplateSignal:
    found = cache.get(template_id)
    if found is None:
        found = TemplateSignal(template_id=template_id)
        session.add(found)
        cache[template_id] = found
    return found


def _existing(session: Session, template_ids: Iterable[int]) -> dict[int, TemplateSignal]:
    ids = list(template_ids)
    out: dict[int, TemplateSignal] = {}
    for start in range(0, len(ids), 500):
        for s in session.scalars(
            select(TemplateSignal).where(TemplateSignal.template_id.in_(ids[start : start + 500]))
        ):
            out[s.template_id] = s
    return out


@dataclass
class SimilaritySummary:
    language: str
    templates: int
    warnings: int  # below WARN_SIMILARITY
    mean: float


@dataclass
class Measured:
    """One language's back-translations and cosines, computed but not stored yet."""

    language: str
    template_ids: list[int]
    english: list[str]
    back: list[str]
    cosine: np.ndarray
    model: str
    system: str


def measure_similarity(
    session: Session, translator: Translator, languages: list[str], model: str | None = None, progress: bool = False
) -> list[Measured]:
    """Back-translate every candidate template of the languages to English with `translator`
    (placeholders protected) and embed it next to the ParaRel pattern it translates. Only
    reads: the slow part (translation, embeddings) never holds the database's write lock."""
    require_extra("signals", "back-translation similarity")
    from curator.quality.similarity import DEFAULT_MODEL, pairwise_cosine
    from curator.translate import translate_templates

    model = model or DEFAULT_MODEL
    out = []
    for lang in progress_bar(languages, "similarity", "language", progress):
        rows = session.execute(
            select(Template.id, Template.text, EnglishPattern.pattern)
            .join(EnglishPattern, first_english(Template))
            .where(Template.language == lang, Template.is_candidate)
            .order_by(Template.relation_id, Template.id)
        ).all()
        if not rows:
            raise Conflict(
                f"language {lang!r} has no candidate templates (ingest it and run `curator candidates build`)"
            )
        english = [e for _, _, e in rows]
        back = translate_templates(translator, [text for _, text, _ in rows], lang, "en")
        out.append(
            Measured(
                lang,
                [tid for tid, _, _ in rows],
                english,
                back,
                pairwise_cosine(english, back, model),
                model,
                translator.name,
            )
        )
    return out


def store_similarity(session: Session, measured: list[Measured]) -> list[SimilaritySummary]:
    """Store measured similarities (a short write: one row per template)."""
    out = []
    for m in measured:
        cache = _existing(session, m.template_ids)
        for template_id, en, bt, cos in zip(m.template_ids, m.english, m.back, m.cosine):
            s = _signal(session, template_id, cache)
            s.back_translation, s.english, s.similarity = bt, en, float(cos)
            s.similarity_model, s.back_system = m.model, m.system
        session.flush()
        out.append(
            SimilaritySummary(
                m.language, len(m.template_ids), int((m.cosine < WARN_SIMILARITY).sum()), float(m.cosine.mean())
            )
        )
    return out


def compute_agreement(session: Session, run_dir: str | Path, languages: list[str] | None = None) -> int:
    """Store each template's agreement with its relation's other templates in a probe run;
    returns how many templates were matched (by language, relation and text)."""
    from curator.core.formats.runs import iter_relations
    from curator.quality.agreement import template_agreement

    run = Path(run_dir)
    matched = 0
    for rel in iter_relations(run, languages):
        agreement = template_agreement(rel)
        if not len(agreement) or np.isnan(agreement).all():
            continue
        mean = float(np.nanmean(agreement))
        by_text = {
            t.text: t
            for t in session.scalars(
                select(Template).where(Template.language == rel.language, Template.relation_id == rel.relation)
            )
        }
        found = [
            (by_text[text], float(a))
            for text, a in zip(rel.templates, agreement)
            if text in by_text and not np.isnan(a)
        ]
        cache = _existing(session, (t.id for t, _ in found))
        for template, a in found:
            s = _signal(session, template.id, cache)
            s.agreement, s.relation_agreement, s.probe_run = a, mean, run.name
        matched += len(found)
    session.flush()
    return matched


def risks(session: Session, language: str) -> dict[int, float]:
    """{template id: risk} for the language's candidate templates."""
    rows = session.execute(
        select(Template.id, Template.votes, TemplateSignal)
        .outerjoin(TemplateSignal, TemplateSignal.template_id == Template.id)
        .where(Template.language == language, Template.is_candidate)
    ).all()
    return {tid: risk(votes, signal) for tid, votes, signal in rows}


def set_queue_order(session: Session, language: str, order: str) -> None:
    """How new reviewers' samples of the language are drawn and ordered (see review.sampling)."""
    if order not in QUEUE_ORDERS:
        raise InputError(f"queue order must be one of {', '.join(QUEUE_ORDERS)}, not {order!r}")
    row = session.get(Language, language)
    if row is None:
        raise NotFound(f"unknown language {language!r}")
    row.queue_order = order


@dataclass
class LanguageSignals:
    language: str
    queue_order: str
    candidates: int
    back_translated: int
    low_similarity: int  # below WARN_SIMILARITY
    with_agreement: int
    high_risk: int
    # per registered check: templates it was computed for, and how many of them warn
    checks: dict[str, dict[str, int]] = field(default_factory=dict)


def signal_summary(session: Session) -> list[LanguageSignals]:
    """Per language with candidates: how many templates carry each signal, and how many are high risk."""
    orders = dict(session.execute(select(Language.code, Language.queue_order)).all())
    rows = session.execute(
        select(Template, TemplateSignal)
        .outerjoin(TemplateSignal, TemplateSignal.template_id == Template.id)
        .where(Template.is_candidate)
        .order_by(Template.language)
    ).all()
    out: dict[str, LanguageSignals] = {}
    for template, signal in rows:
        lang, votes = template.language, template.votes
        r = out.setdefault(
            lang,
            LanguageSignals(
                lang, orders.get(lang) or "random", 0, 0, 0, 0, 0, {c: {"computed": 0, "warnings": 0} for c in CHECKS}
            ),
        )
        r.candidates += 1
        for check_id, check in CHECKS.items():
            value = check.value(template, signal)
            if value is not None:
                r.checks[check_id]["computed"] += 1
                r.checks[check_id]["warnings"] += bool(check.warns(value, signal))
        if signal is not None and signal.similarity is not None:
            r.back_translated += 1
            r.low_similarity += signal.similarity < WARN_SIMILARITY
        if signal is not None and signal.agreement is not None:
            r.with_agreement += 1
        r.high_risk += band(risk(votes, signal)) == "high"
    return list(out.values())

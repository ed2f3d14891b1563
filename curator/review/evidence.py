"""The evidence shown beside a review item: the machine-translation lines its template came from
(under the rules its candidates were built with) and its quality signals (SPEC §7)."""

from __future__ import annotations

from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.models import EnglishPattern, Template, TemplateSignal, TranslationLine
from curator.ingest.candidates import CandidateParams
from curator.ingest.profiles import case_key, get_profile
from curator.review.records import Signals


def template_sources(
    session: Session, template: Template, params: CandidateParams | None
) -> list[tuple[str, str, list[dict[str, str]], str | None]]:
    """The MT lines that yield `template` under the rules its candidates were built with.

    The curator profile's outcome is stored per line, so SQL finds them; other profiles are
    re-run on the raw lines of the relation (a few dozen), so a template only the published
    rules make still shows where it came from and what was changed.
    """
    lines = (
        select(TranslationLine.system, TranslationLine.raw, TranslationLine.repairs, EnglishPattern.pattern)
        .outerjoin(EnglishPattern, EnglishPattern.id == TranslationLine.english_pattern_id)
        .where(TranslationLine.language == template.language, TranslationLine.relation_id == template.relation_id)
        .order_by(TranslationLine.system, TranslationLine.line_no)
    )
    if params is None or params.rules == "curator":
        key = case_key(template.text) if params is not None and params.keep_case else template.text
        return [(s, r, rep, en) for s, r, rep, en in session.execute(lines.where(TranslationLine.cleaned == key))]
    profile = get_profile(params.rules)
    out: list[tuple[str, str, list[dict[str, str]], str | None]] = []
    for system, raw, _, english in session.execute(lines):
        outcome = profile.check(raw, template.language)
        if outcome.cleaned == template.text:
            out.append((system, raw, [r.to_dict() for r in outcome.repairs], english))
    return out


def signals_of(session: Session, template: Template, signal: TemplateSignal | Literal[True] | None = True) -> Signals:
    """Quality signals (SPEC §7) for the review screen: every registered check that has a value
    for this template, the risk they add up to, and the back-translation itself."""
    from curator.quality import checks

    stored = session.get(TemplateSignal, template.id) if signal is True else signal  # True: not read yet
    parts = checks.risk_components(template, stored)
    out: Signals = {
        "repaired": template.repaired,
        "risk": round(checks.combine(parts), 3),
        "components": {k: round(v, 3) for k, v in parts.items()},
        "similarity": None,
        "checks": checks.results(template, stored),
    }
    if stored is not None and stored.similarity is not None:
        out.update(
            {
                "similarity": round(stored.similarity, 3),
                "back_translation": stored.back_translation,
                "english": stored.english,
                "warn": checks.CHECKS["similarity"].warns(stored.similarity, stored),
                "system": stored.back_system,
            }
        )
    return out

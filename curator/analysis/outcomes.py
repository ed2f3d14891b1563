"""Did risky templates get rejected more often? Review outcomes grouped by the quality signals.

An analysis of two stored things: the reviewers' standing decisions (review) and each
template's risk (quality)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import DecisionKind
from curator.core.models import Template, TemplateSignal
from curator.quality.checks import WARN_SIMILARITY
from curator.quality.signals import BANDS, band, risks
from curator.review.stats import standing_decisions


class OutcomeRecord(TypedDict):
    """An Outcome as JSON (`curator signals outcomes --json`)."""

    language: str
    group: str
    templates: int
    decisions: int
    rejected: int
    amended: int
    reject_rate: float | None


@dataclass
class Outcome:
    language: str
    group: str  # a risk band, or "similarity < 0.75" / "similarity ≥ 0.75"
    templates: int
    decisions: int
    rejected: int
    amended: int

    @property
    def reject_rate(self) -> float | None:
        return self.rejected / self.decisions if self.decisions else None

    def to_dict(self) -> OutcomeRecord:
        return {
            "language": self.language,
            "group": self.group,
            "templates": self.templates,
            "decisions": self.decisions,
            "rejected": self.rejected,
            "amended": self.amended,
            "reject_rate": self.reject_rate,
        }


def risk_outcomes(session: Session, languages: list[str] | None = None) -> list[Outcome]:
    """Did risky templates get rejected more often? Standing decisions grouped by risk band and
    by the similarity warning, per language (only languages with decisions)."""
    decisions: dict[str, list[tuple[int, str]]] = {}
    for lang, _, template_id, decision, _, _, _ in standing_decisions(session):
        if decision == DecisionKind.UNSURE:  # not a verdict
            continue
        if languages is None or lang in languages:
            decisions.setdefault(lang, []).append((template_id, decision))
    out: list[Outcome] = []
    for lang in sorted(decisions):
        scores = risks(session, lang)
        similarity = dict(
            session.execute(
                select(TemplateSignal.template_id, TemplateSignal.similarity)
                .join(Template, Template.id == TemplateSignal.template_id)
                .where(Template.language == lang)
            ).all()
        )
        groups: dict[str, Outcome] = {}
        seen: dict[str, set[int]] = {}

        def add(
            group: str,
            template_id: int,
            decision: str,
            lang: str = lang,
            groups: dict[str, Outcome] = groups,
            seen: dict[str, set[int]] = seen,
        ) -> None:
            # this iteration's lang, groups and seen bound as defaults (add only runs within it)
            o = groups.setdefault(group, Outcome(lang, group, 0, 0, 0, 0))
            if template_id not in seen.setdefault(group, set()):
                seen[group].add(template_id)
                o.templates += 1
            o.decisions += 1
            o.rejected += decision == DecisionKind.REJECT
            o.amended += decision == DecisionKind.AMEND

        for template_id, decision in decisions[lang]:
            if template_id in scores:
                add(f"{band(scores[template_id])} risk", template_id, decision)
            cos = similarity.get(template_id)
            if cos is not None:
                add(
                    f"similarity < {WARN_SIMILARITY}" if cos < WARN_SIMILARITY else f"similarity ≥ {WARN_SIMILARITY}",
                    template_id,
                    decision,
                )
        order = [f"{name} risk" for _, name in reversed(BANDS)] + [
            f"similarity < {WARN_SIMILARITY}",
            f"similarity ≥ {WARN_SIMILARITY}",
        ]
        out += [groups[g] for g in order if g in groups]
    return out

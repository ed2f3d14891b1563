"""What waits on the maintainers in each language, for the dashboard: open comment threads
(review.threads), templates a reviewer marked unsure (their standing decision is "unsure":
what the language page's "a reviewer is unsure" filter lists) and proposals nobody has confirmed
yet (review.proposals: they do not ship until someone does). Each count links to that list."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import DecisionKind, ProposalStatus
from curator.core.models import Template
from curator.review.proposals import status_counts
from curator.review.stats import standing_decisions
from curator.review.threads import open_thread_counts

_CHUNK = 500  # template ids per IN (...)


@dataclass
class FollowUp:
    language: str
    open_threads: int
    unsure: int  # candidate templates with a standing "unsure" decision
    unconfirmed_proposals: int = 0  # amendments and suggestions waiting for a second look


def follow_up(session: Session, proposal_counts: Mapping[str, Mapping[str, int]] | None = None) -> dict[str, FollowUp]:
    """{language: counts} for every language with an open thread, an unsure template or an
    unconfirmed proposal. `proposal_counts`: `status_counts(session)` when the caller has it
    already (the dashboard shows it too; it reads every proposal, so once is enough)."""
    threads = open_thread_counts(session)
    if proposal_counts is None:
        proposal_counts = status_counts(session)
    waiting = {code: n for code, counts in proposal_counts.items() if (n := counts.get(ProposalStatus.UNCONFIRMED, 0))}
    unsure: dict[str, set[int]] = {}
    for language, _user, template_id, decision, *_rest in standing_decisions(session):
        if decision == DecisionKind.UNSURE:
            unsure.setdefault(language, set()).add(template_id)
    _candidates_only(session, unsure)
    return {
        code: FollowUp(code, threads.get(code, 0), len(unsure.get(code, ())), waiting.get(code, 0))
        for code in sorted(set(threads) | set(unsure) | set(waiting))
    }


def _candidates_only(session: Session, unsure: dict[str, set[int]]) -> None:
    """Keep the candidate templates only: the language page's "a reviewer is unsure" list shows
    candidates, and a proposal's own template row (another reviewer's amendment or suggestion in
    the second-look queue) is counted on the Proposals page instead, so the count and the list agree."""
    ids = sorted(set().union(*unsure.values())) if unsure else []
    candidates: set[int] = set()
    for start in range(0, len(ids), _CHUNK):
        candidates.update(
            session.scalars(
                select(Template.id).where(Template.id.in_(ids[start : start + _CHUNK]), Template.is_candidate)
            )
        )
    for code in list(unsure):
        unsure[code] &= candidates
        if not unsure[code]:
            del unsure[code]

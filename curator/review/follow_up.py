"""What waits on the maintainers in each language, for the dashboard: open comment threads
(review.threads), templates a reviewer marked unsure (their standing decision is "unsure":
what the language page's "a reviewer is unsure" filter lists) and proposals nobody has confirmed
yet (review.proposals: they do not ship until someone does). Each count links to that list."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from curator.core.enums import DecisionKind, ProposalStatus
from curator.review.proposals import status_counts
from curator.review.stats import standing_decisions
from curator.review.threads import open_thread_counts


@dataclass
class FollowUp:
    language: str
    open_threads: int
    unsure: int  # templates with a standing "unsure" decision
    unconfirmed_proposals: int = 0  # amendments and suggestions waiting for a second look


def follow_up(session: Session) -> dict[str, FollowUp]:
    """{language: counts} for every language with an open thread, an unsure template or an
    unconfirmed proposal."""
    threads = open_thread_counts(session)
    waiting = {
        code: n for code, counts in status_counts(session).items() if (n := counts.get(ProposalStatus.UNCONFIRMED, 0))
    }
    unsure: dict[str, set[int]] = {}
    for language, _user, template_id, decision, *_rest in standing_decisions(session):
        if decision == DecisionKind.UNSURE:
            unsure.setdefault(language, set()).add(template_id)
    return {
        code: FollowUp(code, threads.get(code, 0), len(unsure.get(code, ())), waiting.get(code, 0))
        for code in sorted(set(threads) | set(unsure) | set(waiting))
    }

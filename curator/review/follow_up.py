"""What waits on the maintainers in each language, for the dashboard: open comment threads
(review.threads) and templates a reviewer marked unsure (their standing decision is "unsure":
what the language page's "a reviewer is unsure" filter lists). Each count links to that list.
Unconfirmed proposals (issue 28 §1) have their place in `FollowUp` too, filled by the proposals
service when it lands; until then it is None and the dashboard shows no column for it."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from curator.core.enums import DecisionKind
from curator.review.stats import standing_decisions
from curator.review.threads import open_thread_counts


@dataclass
class FollowUp:
    language: str
    open_threads: int
    unsure: int  # templates with a standing "unsure" decision
    unconfirmed_proposals: int | None = None  # issue 28 §1: set by the proposals service (None: not counted)


def follow_up(session: Session) -> dict[str, FollowUp]:
    """{language: counts} for every language with an open thread or an unsure template."""
    threads = open_thread_counts(session)
    unsure: dict[str, set[int]] = {}
    for language, _user, template_id, decision, *_rest in standing_decisions(session):
        if decision == DecisionKind.UNSURE:
            unsure.setdefault(language, set()).add(template_id)
    return {
        code: FollowUp(code, threads.get(code, 0), len(unsure.get(code, ())))
        for code in sorted(set(threads) | set(unsure))
    }

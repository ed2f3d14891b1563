"""Proposals: the texts reviewers add to a relation (an amendment's correction, a suggestion)
and the texts maintainers answered, with where each stands (issue 28, issue 36).

The proposals are every text of a relation that is not a parent line (a reviewer's amendment or
suggestion, a text a maintainer wrote by editing or by a resolution, the row of a resolved
proposal), and the parent lines a reviewer proposed or a maintainer answered: so a maintainer can
answer — drop — every text that could ship because of people. A proposal is keyed by (language,
relation, cleaned text), exactly as the merge adds it. Its
status is its outcome under the one rule for what ships (`curator.review.rule.decide`,
docs/release.md "What ships: one rule"), read here and nowhere decided again: shipped checked
by `reviewers`, `trusted`, `maintainer` or `import`; `unconfirmed` (waiting for a second look;
or a parent line that ships unchecked until one); `rejected` by reviewers; `superseded`;
`dropped` by a maintainer; `settled` by a resolution. The parent version is the latest
candidates version (what `release build --from-review` uses by default) and the policy each
language's stored one unless `policy` names one.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import ConfirmedBy, Outcome, ProposalStatus, values
from curator.core.models import Template
from curator.review.resolutions import ResolutionRecord
from curator.review.rule import (
    Decided,
    LanguageState,
    RelationState,
    Why,
    Whys,
    decide,
)
from curator.review.snapshot import latest_candidates_id, load

Key = tuple[str, str, str]  # (language, relation, cleaned text)

# the statuses under which a proposal ships (checked by a human)
CONFIRMED = frozenset(
    {ProposalStatus.REVIEWERS, ProposalStatus.TRUSTED, ProposalStatus.MAINTAINER, ProposalStatus.IMPORT}
)
STATUSES = values(ProposalStatus)
AMENDMENT, SUGGESTION = "amendment", "suggestion"
__all__ = ["Proposal", "proposals", "status_counts"]
_CHUNK = 500  # texts per IN (...) when finding the template rows of proposals


@dataclass(frozen=True)
class Verdict:
    """A second reviewer's standing decision on the template row that holds the proposal's text."""

    reviewer: str  # e-mail address
    decision: str  # DecisionKind
    correction: str | None
    reason: str | None = None  # a reject's or an unsure's reason (review.service.check_reason)


@dataclass(frozen=True)
class MaintainerReview:
    """The latest maintainer answer to a proposal: who, when, why."""

    maintainer: str  # e-mail address
    verdict: str  # ProposalVerdict
    at: datetime
    reason: str
    edited_from: str | None
    edited_to: str | None


@dataclass
class Proposal:
    language: str
    relation: str
    text: str
    status: ProposalStatus
    proposers: list[str] = field(default_factory=list)  # e-mail addresses, sorted
    kind: str = SUGGESTION  # amendment | suggestion
    amends: str | None = None  # the template an amendment corrects (the first, if several)
    template_id: int | None = None  # the template row holding this text, if there is one
    verdicts: list[Verdict] = field(default_factory=list)
    review: MaintainerReview | None = None
    resolution: ResolutionRecord | None = None  # the standing resolution of its row, or one correcting to it
    outcome: Outcome = Outcome.WAITING  # the rule's outcome for this text (review/rule.py)
    rule: int = 11  # the row of the docs table that decided it
    reason: str = ""
    why: Why | Whys | None = None  # the reason as a message the web translates (review/rule.py)

    @property
    def key(self) -> Key:
        return (self.language, self.relation, self.text)

    @property
    def confirmed(self) -> bool:
        return self.status in CONFIRMED

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (`curator review proposals --json`)."""
        review = self.review
        return {
            "language": self.language,
            "relation": self.relation,
            "text": self.text,
            "status": self.status.value,
            "kind": self.kind,
            "proposers": self.proposers,
            "amends": self.amends,
            "verdicts": [
                {"reviewer": v.reviewer, "decision": v.decision, "correction": v.correction, "reason": v.reason}
                for v in self.verdicts
            ],
            "review": None
            if review is None
            else {
                "maintainer": review.maintainer,
                "verdict": review.verdict,
                "at": review.at.isoformat(timespec="seconds"),
                "reason": review.reason,
                "edited_from": review.edited_from,
                "edited_to": review.edited_to,
            },
            "resolution": self.resolution,
            "outcome": self.outcome.value,
            "rule": self.rule,
            "reason": self.reason,
        }


_STATUS = {
    Outcome.WAITING: ProposalStatus.UNCONFIRMED,
    Outcome.SHIPPED_UNREVIEWED: ProposalStatus.UNCONFIRMED,
    Outcome.REJECTED: ProposalStatus.REJECTED,
    Outcome.SUPERSEDED: ProposalStatus.SUPERSEDED,
    Outcome.DROPPED: ProposalStatus.DROPPED,
    Outcome.SETTLED: ProposalStatus.SETTLED,
}
_CHECKED_BY: dict[str, ProposalStatus] = {
    ConfirmedBy.MAINTAINER: ProposalStatus.MAINTAINER,
    ConfirmedBy.REVIEWERS: ProposalStatus.REVIEWERS,
    ConfirmedBy.TRUSTED: ProposalStatus.TRUSTED,
    ConfirmedBy.IMPORT: ProposalStatus.IMPORT,
}


def status_of(decided: Decided) -> ProposalStatus:
    """A text's outcome as a proposal's status (a parent line checked by the parent version
    alone is still `unconfirmed` as a proposal)."""
    if decided.outcome == Outcome.SHIPPED_CHECKED:
        return _CHECKED_BY.get(decided.by or "", ProposalStatus.UNCONFIRMED)
    return _STATUS[decided.outcome]


def proposals(session: Session, language: str | None = None, policy: str | None = None) -> list[Proposal]:
    """Every proposal (of `language`) with its status under `policy` (None: each language's
    stored policy), ordered by language, relation and text."""
    parent_id = latest_candidates_id(session)
    states = load(session, [language] if language is not None else None, parent_id, policy)
    out: list[Proposal] = []
    for lang in sorted(states):
        state = states[lang]
        for outcome in decide(state):
            rel = state.relations[outcome.relation]
            if parent_id is not None and not rel.parent:
                continue  # a relation the parent version does not hold: no build holds it
            for d in outcome.decided.values():
                if not d.parent or d.proposers or d.settled_by or d.text in rel.answers:
                    out.append(_proposal(state, rel, d))
    _template_ids(session, [p for p in out if p.template_id is None])
    out.sort(key=lambda p: p.key)
    _inherit_kind(out)
    return out


def _proposal(state: LanguageState, rel: RelationState, d: Decided) -> Proposal:
    people = set(d.proposers) | set(d.settled_by)
    row_id = rel.rows.get(d.text)
    answer = rel.answers.get(d.text)
    # the standing resolution of its row, else the first whose correction it is
    judged = rel.resolutions.get(d.text) or min(
        (r for r in rel.resolutions.values() if r.correction == d.text), key=lambda r: r.resolution_id, default=None
    )
    resolution = judged.record if judged is not None else None
    return Proposal(
        language=d.language,
        relation=d.relation,
        text=d.text,
        status=status_of(d),
        proposers=sorted(state.emails.get(u, "?") for u in people),
        kind=AMENDMENT if d.amends else SUGGESTION,
        amends=d.amends[0] if d.amends else None,
        template_id=row_id,
        verdicts=sorted(
            (
                Verdict(state.emails.get(v.user, "?"), v.kind, v.correction, v.reason)
                for v in rel.decisions.get(d.text, [])
                if v.user not in people
            ),
            key=lambda v: v.reviewer,
        ),
        review=None
        if answer is None
        else MaintainerReview(
            answer.by, answer.verdict, answer.at, answer.reason, answer.edited_from, answer.edited_to
        ),
        resolution=resolution,
        outcome=d.outcome,
        rule=d.rule,
        reason=d.reason,
        why=d.why,
    )


def _inherit_kind(found: list[Proposal]) -> None:
    """A maintainer's edit is of the kind of the proposal it replaced (amendment or suggestion)."""
    by_key = {p.key: p for p in found}
    for p in found:
        if not p.proposers and p.review is not None and p.review.edited_from is not None:
            source = by_key.get((p.language, p.relation, p.review.edited_from))
            if source is not None:
                p.kind, p.amends = source.kind, source.amends


def _template_ids(session: Session, found: list[Proposal]) -> None:
    """Fill in the template row of each proposal's text where one exists but nobody decided it
    (another reviewer's queue item "proposed by another reviewer")."""
    keys = {p.key: p for p in found}
    texts = sorted({p.text for p in found})
    for start in range(0, len(texts), _CHUNK):
        rows = session.execute(
            select(Template.language, Template.relation_id, Template.text, Template.id).where(
                Template.text.in_(texts[start : start + _CHUNK])
            )
        )
        for lang, rel, text, template_id in rows:
            proposal = keys.get((lang, rel, text))
            if proposal is not None:
                proposal.template_id = template_id


def status_counts(session: Session) -> dict[str, dict[str, int]]:
    """{language: {status: number of proposals}} under each language's stored policy (statuses
    with none left out): what the dashboard and its follow-up show."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for p in proposals(session):
        counts[p.language][p.status.value] += 1
    return {lang: dict(sorted(c.items())) for lang, c in sorted(counts.items())}

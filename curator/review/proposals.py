"""Proposals: the texts reviewers add to a relation (an amendment's correction, a suggestion),
and whether they have had the second look that lets them ship as checked by a human (issue 28).

A proposal is keyed by (language, relation, cleaned text), exactly as the merge adds it
(release/merge.py). Its status is the first of these rules that applies:

1. a maintainer's latest answer to that text: a `ProposalReview` (drop -> dropped, confirm ->
   maintainer) or a standing resolution (review/resolutions.py) of the template row with that
   text — the queue's row of the proposal, or the candidate it equals — (accept -> maintainer;
   reject, or amend to another text -> dropped), whichever is later; a text that is the
   correction of a standing resolution -> maintainer;
2. an amendment only of templates a standing resolution judged (the resolution settled between
   the reviewers, so the merge does not add it) -> settled;
3. a proposer's decision or suggestion came from `curator review import` (sheets reviewed
   before, mParaRel's) -> import;
4. a second person said yes — another reviewer proposed the same text, or a reviewer who did
   not propose it stands by an `accept` of its template row (the queue's "proposed by another
   reviewer") — and the merge `policy` keeps it, judging the proposers as accepts beside the
   other reviewers' verdicts on that row (`unanimous`: one reject withholds it) -> reviewers;
5. a proposer is trusted in that language (`Assignment.trusted`) -> trusted;
6. otherwise unconfirmed: the merge keeps it out and the preview lists it apart.

A maintainer's edit is two answers: drop of the old text (`edited_to`) and confirm of the new
(`edited_from`); a text a maintainer confirmed is a proposal even with no reviewer behind it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import DecisionKind, ProposalStatus, ProposalVerdict, values
from curator.core.models import Assignment, Decision, ProposalReview, Resolution, Suggestion, Template, User
from curator.review.policy import IGNORED, language_policy, project_policy, stays  # TEMP adapter: the 2nd, 3rd
from curator.review.resolutions import ResolutionRecord, standing_resolutions
from curator.review.stats import standing_decision_ids

Key = tuple[str, str, str]  # (language, relation, cleaned text)

# the statuses under which a proposal ships (checked by a human)
CONFIRMED = frozenset(
    {ProposalStatus.REVIEWERS, ProposalStatus.TRUSTED, ProposalStatus.MAINTAINER, ProposalStatus.IMPORT}
)
STATUSES = values(ProposalStatus)
AMENDMENT, SUGGESTION = "amendment", "suggestion"
IMPORTED = "import"  # the `source` of a decision or suggestion stored by `curator review import`
_CHUNK = 500  # texts per IN (...) when finding the template rows of proposals


@dataclass(frozen=True)
class Verdict:
    """A second reviewer's standing decision on the template row that holds the proposal's text."""

    reviewer: str  # e-mail address
    decision: str  # DecisionKind
    correction: str | None


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
    resolution: ResolutionRecord | None = None  # the standing resolution that decided it (rule 1)

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
                {"reviewer": v.reviewer, "decision": v.decision, "correction": v.correction} for v in self.verdicts
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
        }


@dataclass
class _Draft:
    """What is known of one proposal while the rows are read."""

    users: set[int] = field(default_factory=set)
    imported: bool = False
    amends: list[str] = field(default_factory=list)
    amended_ids: set[int] = field(default_factory=set)  # the templates it amends
    suggested: bool = False


def proposals(session: Session, language: str | None = None, policy: str | None = None) -> list[Proposal]:
    """Every proposal (of `language`), with its status under the merge `policy` (rule 4; the
    Proposals page and the dashboard's counts use `any`), ordered by language, relation and text."""
    if policy is None:  # TEMP adapter (issue 36 §3): None = the stored policy, until the real change lands
        policy = language_policy(session, language) if language is not None else project_policy(session)
    drafts: dict[Key, _Draft] = defaultdict(_Draft)
    standing = select(
        Decision.language,
        Decision.relation_id,
        Decision.user_id,
        Decision.template_id,
        Decision.decision,
        Decision.correction,
        Decision.source,
        Template.text,
    ).join(Template, Template.id == Decision.template_id)
    standing = standing.where(Decision.id.in_(standing_decision_ids())).order_by(Decision.id)
    suggested = select(
        Suggestion.language, Suggestion.relation_id, Suggestion.user_id, Suggestion.text, Suggestion.source
    ).where(Suggestion.retracted.is_(False))
    answered = select(ProposalReview).order_by(ProposalReview.id)
    if language is not None:
        standing = standing.where(Decision.language == language)
        suggested = suggested.where(Suggestion.language == language)
        answered = answered.where(ProposalReview.language == language)
    by_template: dict[int, list[tuple[int, str, str | None]]] = defaultdict(list)
    for lang, rel, user_id, template_id, decision, correction, source, amended in session.execute(standing):
        by_template[template_id].append((user_id, decision, correction))
        if decision == DecisionKind.AMEND and correction is not None:
            draft = drafts[lang, rel, correction]
            draft.users.add(user_id)
            draft.imported |= source == IMPORTED
            draft.amends.append(amended)
            draft.amended_ids.add(template_id)
    for lang, rel, user_id, text, source in session.execute(suggested):
        draft = drafts[lang, rel, text]
        draft.users.add(user_id)
        draft.imported |= source == IMPORTED
        draft.suggested = True
    latest: dict[Key, ProposalReview] = {}
    for row in session.scalars(answered):
        latest[row.language, row.relation_id, row.text] = row
    for key, row in latest.items():  # a maintainer's confirmed text is a proposal of its own
        if row.verdict == ProposalVerdict.CONFIRM and key not in drafts:
            drafts[key] = _Draft()
    if not drafts:
        return []
    templates = _template_ids(session, set(drafts))
    resolved = standing_resolutions(session, language)
    corrections = {
        (r["language"], r["relation"], r["correction"]): r for r in resolved.values() if r["correction"] is not None
    }
    resolved_at: dict[int, datetime] = {}  # the resolutions of proposals' rows, to compare with their reviews
    row_ids = [t for t in templates.values() if t in resolved]
    for start in range(0, len(row_ids), _CHUNK):
        ids = [resolved[t]["id"] for t in row_ids[start : start + _CHUNK]]
        query = select(Resolution.template_id, Resolution.created_at).where(Resolution.id.in_(ids))
        for template_id, at in session.execute(query):
            resolved_at[template_id] = at
    trusted: set[tuple[int, str]] = {
        (user_id, lang)
        for user_id, lang in session.execute(
            select(Assignment.user_id, Assignment.language).where(Assignment.trusted.is_(True))
        )
    }
    emails: dict[int, str] = dict(session.execute(select(User.id, User.email)).all())
    out: list[Proposal] = []
    for key in sorted(drafts):
        lang, rel, text = key
        draft = drafts[key]
        row_id = templates.get(key)
        verdicts = (
            [
                Verdict(emails.get(user_id, "?"), decision, correction)
                for user_id, decision, correction in by_template.get(row_id, [])
                if user_id not in draft.users
            ]
            if row_id is not None
            else []
        )
        review = latest.get(key)
        resolution = resolved.get(row_id) if row_id is not None else None
        if resolution is not None and review is not None and review.created_at > resolved_at[resolution["template_id"]]:
            resolution = None  # the maintainer answered the proposal itself since
        elif resolution is not None:
            review = None  # the resolution is the maintainer's latest answer
        if resolution is None and review is None:
            resolution = corrections.get(key)
        settled = bool(draft.amended_ids) and not draft.suggested and draft.amended_ids <= resolved.keys()
        proposal = Proposal(
            language=lang,
            relation=rel,
            text=text,
            status=_status(text, draft, verdicts, review, resolution, settled, policy, lang, trusted),
            proposers=sorted(emails.get(u, "?") for u in draft.users),
            kind=AMENDMENT if draft.amends else SUGGESTION,
            amends=draft.amends[0] if draft.amends else None,
            template_id=row_id,
            verdicts=sorted(verdicts, key=lambda v: v.reviewer),
            review=None
            if review is None
            else MaintainerReview(
                emails.get(review.user_id, "?"),
                review.verdict,
                review.created_at,
                review.reason,
                review.edited_from,
                review.edited_to,
            ),
            resolution=resolution,
        )
        out.append(proposal)
    _inherit_kind(out)
    return out


def _status(
    text: str,
    draft: _Draft,
    verdicts: list[Verdict],
    review: ProposalReview | None,
    resolution: ResolutionRecord | None,
    settled: bool,
    policy: str,
    language: str,
    trusted: set[tuple[int, str]],
) -> ProposalStatus:
    """The rules of the module docstring, in order."""
    if review is not None:
        return ProposalStatus.DROPPED if review.verdict == ProposalVerdict.DROP else ProposalStatus.MAINTAINER
    if resolution is not None:
        kept = resolution["verdict"] == DecisionKind.ACCEPT or resolution["correction"] == text
        return ProposalStatus.MAINTAINER if kept else ProposalStatus.DROPPED  # rejected, or amended to another text
    if settled:
        return ProposalStatus.SETTLED
    if draft.imported:
        return ProposalStatus.IMPORT
    others = [v.decision for v in verdicts if v.decision not in IGNORED]
    yes = len(draft.users) - 1 + others.count(DecisionKind.ACCEPT)  # people besides one proposer
    if draft.users and yes >= 1 and stays([DecisionKind.ACCEPT] * len(draft.users) + others, policy):
        return ProposalStatus.REVIEWERS
    if any((user_id, language) in trusted for user_id in draft.users):
        return ProposalStatus.TRUSTED
    return ProposalStatus.UNCONFIRMED


def _inherit_kind(found: list[Proposal]) -> None:
    """A maintainer's edit is of the kind of the proposal it replaced (amendment or suggestion)."""
    by_key = {p.key: p for p in found}
    for p in found:
        if not p.proposers and p.review is not None and p.review.edited_from is not None:
            source = by_key.get((p.language, p.relation, p.review.edited_from))
            if source is not None:
                p.kind, p.amends = source.kind, source.amends


def _template_ids(session: Session, keys: set[Key]) -> dict[Key, int]:
    """The template row of each proposal's text, where one exists (another reviewer's queue
    item "proposed by another reviewer")."""
    texts = sorted({text for _, _, text in keys})
    found: dict[Key, int] = {}
    for start in range(0, len(texts), _CHUNK):
        rows = session.execute(
            select(Template.language, Template.relation_id, Template.text, Template.id).where(
                Template.text.in_(texts[start : start + _CHUNK])
            )
        )
        for lang, rel, text, template_id in rows:
            if (lang, rel, text) in keys:
                found[lang, rel, text] = template_id
    return found


def statuses(session: Session, language: str | None = None) -> dict[Key, ProposalStatus]:
    """Each proposal's status by key: what the merge asks."""
    return {p.key: p.status for p in proposals(session, language)}


def status_counts(session: Session) -> dict[str, dict[str, int]]:
    """{language: {status: number of proposals}} (statuses with none left out)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for p in proposals(session):
        counts[p.language][p.status.value] += 1
    return {lang: dict(sorted(c.items())) for lang, c in sorted(counts.items())}

"""Apply reviews to a candidate version (SPEC §3) and preview the result.

What ships is decided by one rule, `curator.review.rule.decide` (docs/release.md "What ships:
one rule"): every text people touched gets exactly one outcome. This module only lays those
outcomes out per relation — the parent's lines kept or removed, the texts added, the proposals
kept apart (waiting, rejected, dropped) with the resolutions and line drops that judged them, and
the reasons reviewers gave with their rejects and unsures — and writes a reviewed version from
them. Relations left with fewer than 2 lines are dropped, with their tuples.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import Activity, ConfirmedBy, Outcome, Policy, ProposalCount, VersionKind
from curator.core.errors import NotFound
from curator.core.models import DatasetVersion, Decision, User, VersionPattern, VersionTuples
from curator.ingest.store import bulk_insert
from curator.release.line_drops import LineDropRecord, active_drops
from curator.release.public_names import REVIEWER, public_names, published_by
from curator.release.versions import VersionSummary, get_version, log_version, new_version, summarize
from curator.review.policy import IGNORED, project_policy
from curator.review.resolutions import ResolutionRecord
from curator.review.rule import (
    Decided,
    RelationOutcome,
    RelationState,
    decide,
)
from curator.review.service import REASONED
from curator.review.snapshot import load
from curator.review.stats import review_summary

MIN_TEMPLATES = 2
# the version of the rule for what ships a reviewed version records (`params.rule`); versions
# built before issue 36 have none, and the same reviews may build differently now (the card says so)
RULE_VERSION = 2
PER_LANGUAGE = "per-language"  # `params.policy` when the languages of a build use different policies


@dataclass
class Planned:
    pattern: str
    checked: bool
    template_id: int | None
    origin: str  # candidate | amended | suggested | edited (a maintainer's edit) | resolved | confirmed
    confirmed: str | None = None  # who confirmed the proposal that made this line checked (a ConfirmedBy)
    reason: str | None = None  # why a text is kept apart (the rule's reason)


@dataclass(frozen=True)
class ReviewerReason:
    """A reviewer's standing reject or unsure with a reason (review.service.check_reason) on a
    text of the relation: shown with the version, never weighed by the rule."""

    text: str
    verdict: str  # reject | unsure
    reason: str
    decision_id: int


class Removed(TypedDict):
    """A template the reviews take out of its relation, and the verdicts that did."""

    pattern: str
    decisions: list[str]  # sorted decision kinds


class PlanRecord(TypedDict):
    """`RelationPlan.to_dict`: what `release plan` prints per relation."""

    language: str
    relation: str
    dropped: bool
    kept: list[dict[str, Any]]  # Planned, as dicts
    removed: list[Removed]
    added: list[dict[str, Any]]
    resolutions: list[ResolutionRecord]  # maintainers' resolutions that judged templates here
    line_drops: list[LineDropRecord]  # lines a maintainer dropped from it
    waiting: list[dict[str, Any]]  # unconfirmed proposals, not shipped
    rejected_proposals: list[dict[str, Any]]  # proposals reviewers rejected or amended
    dropped_proposals: list[dict[str, Any]]  # proposals a maintainer dropped, edited or resolved
    policy: str  # the merge policy the relation was judged under
    outcomes: list[dict[str, Any]]  # every text once: text, outcome, rule, reason, by


@dataclass
class RelationPlan:
    language: str
    relation: str
    kept: list[Planned] = field(default_factory=list)
    removed: list[Removed] = field(default_factory=list)
    added: list[Planned] = field(default_factory=list)
    resolutions: list[ResolutionRecord] = field(default_factory=list)
    line_drops: list[LineDropRecord] = field(default_factory=list)
    reasons: list[ReviewerReason] = field(default_factory=list)  # reviewers' reasons on its texts
    waiting: list[Planned] = field(default_factory=list)  # unconfirmed proposals: waiting for a second look
    rejected_proposals: list[Planned] = field(default_factory=list)  # rejected or amended by reviewers
    dropped_proposals: list[Planned] = field(default_factory=list)  # dropped, edited or resolved by a maintainer
    policy: str = Policy.ANY
    outcomes: list[Decided] = field(default_factory=list)  # every text of the relation, once (review/rule.py)

    @property
    def patterns(self) -> list[Planned]:
        return self.kept + self.added

    @property
    def dropped(self) -> bool:
        return len(self.patterns) < MIN_TEMPLATES

    def changed(self) -> bool:
        return bool(
            self.removed
            or self.added
            or self.dropped
            or self.line_drops
            or any(p.checked for p in self.kept)
            or self.waiting
            or self.rejected_proposals
            or self.dropped_proposals
        )

    def to_dict(self) -> PlanRecord:
        return PlanRecord(
            language=self.language,
            relation=self.relation,
            dropped=self.dropped,
            kept=[asdict(p) for p in self.kept],
            removed=self.removed,
            added=[asdict(p) for p in self.added],
            resolutions=self.resolutions,
            line_drops=self.line_drops,
            waiting=[asdict(p) for p in self.waiting],
            rejected_proposals=[asdict(p) for p in self.rejected_proposals],
            dropped_proposals=[asdict(p) for p in self.dropped_proposals],
            policy=self.policy,
            outcomes=[
                {"text": d.text, "outcome": d.outcome.value, "rule": d.rule, "reason": d.reason, "by": d.by}
                for d in self.outcomes
            ],
        )


def latest_candidates(session: Session) -> DatasetVersion:
    version = session.scalar(
        select(DatasetVersion)
        .where(DatasetVersion.kind == VersionKind.CANDIDATES)
        .order_by(DatasetVersion.id.desc())
        .limit(1)
    )
    if version is None:
        raise NotFound(
            "no candidate version to apply reviews to: run `curator release build NAME` "
            "first (it snapshots the candidates)"
        )
    return version


def plan(
    session: Session, base: DatasetVersion, policy: str | None = None, languages: list[str] | None = None
) -> list[RelationPlan]:
    """What applying the standing reviews to `base` gives, per language and relation: the one
    rule (review/rule.py) over each language's snapshot, laid out for the preview and the build.
    `policy`: one merge policy for every language (None: each language's stored policy)."""
    states = load(session, languages or None, base.id, policy)
    drops = active_drops(session)
    plans: list[RelationPlan] = []
    for lang in sorted(states):
        state = states[lang]
        for outcome in decide(state):
            rel = state.relations[outcome.relation]
            if not rel.parent:
                continue  # a relation the parent version does not hold: nothing to build
            plans.append(_lay_out(outcome, rel, drops, state.policy))
    return plans


def _lay_out(
    outcome: RelationOutcome,
    rel: RelationState,
    drops: Mapping[tuple[str, str, str], LineDropRecord],
    policy: str,
) -> RelationPlan:
    """A relation's outcomes as the preview and the build show them."""
    p = RelationPlan(outcome.language, outcome.relation, policy=policy, outcomes=list(outcome.decided.values()))
    # every standing resolution of the relation judged a text of it (row 2), in the order made
    p.resolutions = [r.record for r in sorted(rel.resolutions.values(), key=lambda r: r.resolution_id) if r.record]
    # the reasons of the standing decisions the snapshot holds on every text judged here, in decision order
    p.reasons = [
        ReviewerReason(text, v.kind, v.reason, v.decision_id)
        for text in outcome.decided
        for v in rel.decisions.get(text, [])
        if v.reason and v.kind in REASONED
    ]
    for d, line, checked in outcome.shipped():
        planned = Planned(
            d.text,
            checked,
            line.template_id if line is not None else None,
            d.origin,
            confirmed=_confirmed_by(d, rel),
        )
        (p.kept if line is not None else p.added).append(planned)
    for line in outcome.parent:
        d = outcome.decided[line.pattern]
        if not d.shipped and d.rule != 1:
            p.removed.append(Removed(pattern=line.pattern, decisions=_verdicts(d, rel)))
    for d in outcome.decided.values():
        if d.rule == 1:
            drop = drops.get((d.language, d.relation, d.text))
            if drop is not None:
                p.line_drops.append(drop)
            continue
        if d.parent or d.shipped:
            continue
        apart = Planned(d.text, False, None, d.origin, reason=d.reason)
        if d.outcome == Outcome.WAITING:
            p.waiting.append(apart)
        elif d.outcome in (Outcome.REJECTED, Outcome.SUPERSEDED) and d.rule != 2:
            p.rejected_proposals.append(apart)
        else:  # dropped or edited away by a maintainer, or settled by a resolution
            p.dropped_proposals.append(apart)
    return p


def _confirmed_by(d: Decided, rel: RelationState) -> str | None:
    """Who confirmed a shipped proposal (the version's `params.proposals` counts): None for a
    parent line nobody proposed, and for a resolution's correction of a parent line (counted
    with the resolutions)."""
    if not d.checked or d.by == ConfirmedBy.PARENT:
        return None
    if d.parent and not d.proposers and d.text not in rel.answers:
        return None
    if not d.parent and d.order[0] == 0 and not d.proposers and d.text not in rel.answers:
        return None  # the correction of a parent line's resolution
    return d.by


def _verdicts(d: Decided, rel: RelationState) -> list[str]:
    """The reviewers' verdicts on a parent line the rule takes out, then the maintainer's act."""
    kinds = sorted(v.kind for v in rel.decisions.get(d.text, []) if v.kind not in IGNORED)
    if d.rule == 2 and d.text in rel.resolutions and d.outcome == Outcome.SETTLED:
        kinds.append(f"resolution: {rel.resolutions[d.text].verdict}")
    elif d.rule == 2:
        kinds.append(f"{d.outcome.value} by a maintainer")
    return kinds


# who confirmed the shipped proposals (Planned.confirmed: a ConfirmedBy), then those not shipped
PROPOSAL_COUNTS = tuple(ProposalCount)


def proposal_counts(plans: list[RelationPlan]) -> dict[str, int]:
    """What a reviewed version records (params, manifest, card): the lines of the version that
    proposals made checked, by who confirmed them (two reviewers, one trusted reviewer, a
    maintainer, an import), and the proposals withheld unconfirmed, rejected by reviewers or
    dropped by a maintainer."""
    counts: dict[str, int] = dict.fromkeys(PROPOSAL_COUNTS, 0)
    for p in plans:
        counts[ProposalCount.WITHHELD] += len(p.waiting)
        counts[ProposalCount.REJECTED] += len(p.rejected_proposals)
        counts[ProposalCount.DROPPED] += len(p.dropped_proposals)
        if p.dropped:
            continue
        for planned in p.patterns:
            if planned.confirmed is not None:
                counts[planned.confirmed] += 1
    return counts


def build_from_review(
    session: Session, name: str, policy: str | None = None, parent: str | None = None, actor: User | None = None
) -> VersionSummary:
    """The reviewed version `name`: the reviews applied to `parent` (default: the latest
    candidates version) under `policy` (None: each language's stored policy); in the activity
    log as `actor`'s (None: the command line). The params record the policy of every language."""
    base = get_version(session, parent) if parent else latest_candidates(session)
    plans = plan(session, base, policy)
    policies = {p.language: p.policy for p in plans}
    used = set(policies.values())
    chosen = policy or (used.pop() if len(used) == 1 else project_policy(session) if not used else PER_LANGUAGE)
    summary = review_summary(session, sorted({p.language for p in plans}))
    names = public_names(session)  # the params are published: maintainers by name, not by address
    version = new_version(
        session,
        name,
        VersionKind.REVIEW,
        parent_id=base.id,
        params={
            "policy": chosen,
            "policies": policies,
            "rule": RULE_VERSION,
            "min_templates": MIN_TEMPLATES,
            "dropped": [f"{p.language}/{p.relation}" for p in plans if p.dropped],
            "line_drops": [_line_drop_param(d, names) for p in plans for d in p.line_drops],
            "resolutions": [_resolution_param(r, names) for p in plans for r in p.resolutions],
            "reviewer_reasons": _reason_params(session, plans, names),
            "review": summary.to_dict(),
            "proposals": proposal_counts(plans),
        },
    )
    rows = []
    kept_pairs = set()
    for p in plans:
        if p.dropped:
            continue
        kept_pairs.add((p.language, p.relation))
        for position, planned in enumerate(p.patterns):
            rows.append(
                dict(
                    version_id=version.id,
                    language=p.language,
                    relation_id=p.relation,
                    position=position,
                    pattern=planned.pattern,
                    checked_by_human=planned.checked,
                    template_id=planned.template_id,
                )
            )
    bulk_insert(session, VersionPattern.__table__, rows)
    tuples = session.execute(
        select(VersionTuples.language, VersionTuples.relation_id, VersionTuples.list_id).where(
            VersionTuples.version_id == base.id
        )
    ).all()
    bulk_insert(
        session,
        VersionTuples.__table__,
        (
            dict(version_id=version.id, language=lang, relation_id=rel, list_id=list_id)
            for lang, rel, list_id in tuples
            if (lang, rel) in kept_pairs
        ),
    )
    result = summarize(session, version)
    log_version(session, actor, Activity.BUILD, result, parent=base.name, policy=chosen)
    return result


def _line_drop_param(drop: LineDropRecord, names: Mapping[str, str]) -> dict[str, str]:
    """A dropped line as the version's params (and so its manifest) record it: `by` the
    maintainer's public name (release/public_names.py), never the address."""
    return {
        "language": drop["language"],
        "relation": drop["relation"],
        "pattern": drop["pattern"],
        "reason": drop["reason"],
        "by": published_by(drop["by"], names),
        "at": drop["at"],
    }


def _resolution_param(resolution: ResolutionRecord, names: Mapping[str, str]) -> dict[str, Any]:
    """A resolution that judged a template, as the version's params record it (`by` a public name)."""
    return {
        "language": resolution["language"],
        "relation": resolution["relation"],
        "template": resolution["template"],
        "verdict": resolution["verdict"],
        "correction": resolution["correction"],
        "reason": resolution["reason"],
        "by": published_by(resolution["by"], names),
        "at": resolution["at"],
    }


def _reason_params(session: Session, plans: list[RelationPlan], names: Mapping[str, str]) -> list[dict[str, str]]:
    """The reviewers' reasons on the texts of the plans, as the version's params record them
    (language, relation, template, verdict, reason, by, at): `by` the reviewer's public name, or
    "a reviewer" (release/public_names.py), never the address; `at` when the decision was made."""
    ids = sorted({r.decision_id for p in plans for r in p.reasons})
    made: dict[int, tuple[datetime, str]] = {}
    for start in range(0, len(ids), 500):
        rows = session.execute(
            select(Decision.id, Decision.created_at, User.email)
            .join(User, User.id == Decision.user_id)
            .where(Decision.id.in_(ids[start : start + 500]))
        )
        made.update((decision_id, (at, email)) for decision_id, at, email in rows)
    return [
        {
            "language": p.language,
            "relation": p.relation,
            "template": r.text,
            "verdict": r.verdict,
            "reason": r.reason,
            "by": published_by(made[r.decision_id][1], names, REVIEWER),
            "at": made[r.decision_id][0].isoformat(timespec="seconds"),
        }
        for p in plans
        for r in p.reasons
    ]

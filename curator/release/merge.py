"""Apply reviews to a candidate version (SPEC §3) and preview the result.

Policy decides whether a reviewed template stays: `any` (mParaRel: at least one reviewer
accepted it), `majority` (more than half of its reviewers accepted it) or `unanimous`
(every reviewer accepted it). Whatever the policy, amendments add their correction and
suggestions are added, checked by a human, once confirmed (review/proposals.py: by a second
reviewer, a trusted one, a maintainer or an import); unconfirmed and dropped ones are kept
apart on the plan (`waiting`, `dropped_proposals`) and never shipped; templates nobody
decided stay, unchecked. "Unsure" decisions are not
verdicts and are ignored: a template with one accept and one unsure is judged on the accept
alone, and one that only has unsure decisions stays unchanged, as if undecided. A template a
maintainer resolved (review/resolutions.py) is judged by the resolution alone under every
policy — a resolution of a proposal's own template row decides the proposal, and a text a
resolution rejected is not added back by proposals — and the lines maintainers dropped
(release/line_drops.py) are left out. `stays` lives in review/policy.py (the proposals' second
reviewers are judged by the same policy). Relations
left with fewer than 2 templates are dropped, with their tuples.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import Activity, DecisionKind, Policy, ProposalStatus, VersionKind
from curator.core.errors import InputError, NotFound
from curator.core.models import DatasetVersion, Suggestion, User, VersionPattern, VersionTuples
from curator.ingest.store import bulk_insert
from curator.release.line_drops import LineDropRecord, active_drops
from curator.release.public_names import public_names, published_by
from curator.release.versions import VersionSummary, _new_version, get_version, log_version, summarize
from curator.review.policy import IGNORED as IGNORED  # re-exported: callers import them from here
from curator.review.policy import POLICIES as POLICIES
from curator.review.policy import language_policy, project_policy  # TEMP adapter (issue 36 §3)
from curator.review.policy import stays as stays
from curator.review.proposals import CONFIRMED, Key, Proposal, proposals
from curator.review.resolutions import ResolutionRecord, standing_resolutions
from curator.review.stats import review_summary, standing_decisions

MIN_TEMPLATES = 2


@dataclass
class Planned:
    pattern: str
    checked: bool
    template_id: int | None
    origin: str  # candidate | amended | suggested | edited (a maintainer's edit of a proposal) | resolved
    confirmed: str | None = None  # a proposal's ProposalStatus that made this line checked
    reason: str | None = None  # why a proposal is kept apart, when a resolution decided it


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
    dropped_proposals: list[dict[str, Any]]  # proposals a maintainer dropped


@dataclass
class RelationPlan:
    language: str
    relation: str
    kept: list[Planned] = field(default_factory=list)
    removed: list[Removed] = field(default_factory=list)
    added: list[Planned] = field(default_factory=list)
    resolutions: list[ResolutionRecord] = field(default_factory=list)
    line_drops: list[LineDropRecord] = field(default_factory=list)
    waiting: list[Planned] = field(default_factory=list)  # unconfirmed proposals: waiting for a second look
    dropped_proposals: list[Planned] = field(default_factory=list)  # proposals a maintainer dropped

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
            dropped_proposals=[asdict(p) for p in self.dropped_proposals],
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
    session: Session, base: DatasetVersion, policy: str | None = Policy.ANY, languages: list[str] | None = None
) -> list[RelationPlan]:
    """What applying the standing reviews to `base` gives, per language and relation."""
    if policy is None:  # TEMP adapter (issue 36 §3): None = the stored policy, until the real change lands
        one = languages is not None and len(languages) == 1
        policy = language_policy(session, languages[0]) if languages and one else project_policy(session)
    if policy not in POLICIES:
        raise InputError(f"unknown merge policy {policy!r} (choose from {', '.join(POLICIES)})")
    decisions: dict[int, list[tuple[str, str | None, int]]] = defaultdict(list)
    for _lang, _user_id, template_id, decision, correction, _, decision_id in standing_decisions(session):
        if decision not in IGNORED:  # "unsure" is not a verdict: as if that reviewer had not decided
            decisions[template_id].append((decision, correction, decision_id))
    resolved = standing_resolutions(session)
    found = proposals(session, policy=policy)
    status = {p.key: p for p in found}  # every proposal and its status (review/proposals.py)
    suggestions: dict[tuple[str, str], list[Suggestion]] = defaultdict(list)
    for s in session.scalars(select(Suggestion).where(Suggestion.retracted.is_(False)).order_by(Suggestion.id)):
        suggestions[s.language, s.relation_id].append(s)
    query = (
        select(VersionPattern)
        .where(VersionPattern.version_id == base.id)
        .order_by(VersionPattern.language, VersionPattern.relation_id, VersionPattern.position)
    )
    if languages:
        query = query.where(VersionPattern.language.in_(languages))
    plans: dict[tuple[str, str], RelationPlan] = {}
    # resolutions' corrections and amendments are added once every candidate is placed: one
    # equal to a later candidate then makes that candidate checked instead of shipping it twice
    corrections: list[tuple[RelationPlan, ResolutionRecord]] = []
    amendments: list[tuple[RelationPlan, Planned]] = []
    for vp in session.scalars(query):
        p = plans.setdefault((vp.language, vp.relation_id), RelationPlan(vp.language, vp.relation_id))
        ds = decisions.get(vp.template_id, []) if vp.template_id is not None else []
        resolution = resolved.get(vp.template_id) if vp.template_id is not None else None
        if resolution is not None:  # a maintainer's resolution judges it, whatever the policy
            if _judge_by_resolution(p, vp, resolution, [d for d, _, _ in ds]):
                corrections.append((p, resolution))
            continue
        if not ds:
            p.kept.append(Planned(vp.pattern, vp.checked_by_human, vp.template_id, "candidate"))
        elif stays([d for d, _, _ in ds], policy):
            p.kept.append(Planned(vp.pattern, True, vp.template_id, "candidate"))
        else:
            p.removed.append(Removed(pattern=vp.pattern, decisions=sorted(d for d, _, _ in ds)))
        for decision, correction, _ in sorted(ds, key=lambda d: d[2]):
            if decision == DecisionKind.AMEND:
                assert correction is not None  # `decide` stores an amend only with its validated correction
                amendments.append((p, Planned(correction, True, None, "amended")))
    for p, resolution in corrections:
        _add_correction(p, resolution, status, of_proposal=False)
    for p, amended in amendments:
        _propose(p, amended, status)
    for (lang, rel), p in plans.items():
        for s in suggestions.get((lang, rel), []):
            _propose(p, Planned(s.text, True, None, "suggested"), status)
    for proposal in found:  # a maintainer's edit (a confirmed text with no reviewer behind it), or
        # a text a maintainer confirmed that no amendment above adds (one of a resolved template)
        edited = plans.get((proposal.language, proposal.relation))
        if edited is not None and proposal.status == ProposalStatus.MAINTAINER:
            origin = "edited" if not proposal.proposers else "amended" if proposal.amends else "suggested"
            _propose(edited, Planned(proposal.text, True, None, origin), status)
    _drop_lines(plans, active_drops(session))
    for p in plans.values():  # a proposal whose text a checked line ships anyway is neither withheld nor dropped
        shipped = {e.pattern for e in p.kept + p.added if e.checked}
        p.waiting = [w for w in p.waiting if w.pattern not in shipped]
        p.dropped_proposals = [d for d in p.dropped_proposals if d.pattern not in shipped]
    return [plans[key] for key in sorted(plans)]


def _propose(p: RelationPlan, new: Planned, status: dict[Key, Proposal]) -> None:
    """Add a proposal if it is confirmed; otherwise keep it apart, unchecked, for the preview (an
    unconfirmed text equal to a candidate leaves that candidate as it was). A standing resolution
    of its text's template row decides it (review/proposals.py, rule 1): it is recorded with the
    relation's resolutions, and a rejected or amended text is kept apart with the reason (an
    amend adds its correction instead, confirmed by a maintainer)."""
    proposal = status.get((p.language, p.relation, new.pattern))
    state = proposal.status if proposal is not None else ProposalStatus.UNCONFIRMED
    resolution = proposal.resolution if proposal is not None else None
    if resolution is not None and all(r["id"] != resolution["id"] for r in p.resolutions):
        p.resolutions.append(resolution)
    if state in CONFIRMED:
        new.confirmed = state.value
        _add(p, new)
        return
    if state == ProposalStatus.SETTLED:
        return  # the resolution of the template it amends settled it (`_judge_by_resolution`)
    if state == ProposalStatus.DROPPED and resolution is not None:
        new.reason = f"resolution: {resolution['verdict']} by {resolution['by']}: {resolution['reason']}"
        if resolution["correction"] is not None:  # a maintainer's edit of the proposal, in effect
            _add_correction(p, resolution, status, of_proposal=True)
    apart = p.dropped_proposals if state == ProposalStatus.DROPPED else p.waiting
    if all(w.pattern != new.pattern for w in apart):
        new.checked = False
        apart.append(new)


def _judge_by_resolution(p: RelationPlan, vp: VersionPattern, resolution: ResolutionRecord, kinds: list[str]) -> bool:
    """A template a maintainer resolved (review/resolutions.py): accept keeps it, checked; reject
    removes it; amend removes it, and True says its correction is to be added (checked, by
    `plan` once every candidate is placed). The reviewers' own corrections of it are not added:
    the resolution settled between them."""
    if all(r["id"] != resolution["id"] for r in p.resolutions):
        p.resolutions.append(resolution)
    verdict = resolution["verdict"]
    if verdict == DecisionKind.ACCEPT:
        p.kept.append(Planned(vp.pattern, True, vp.template_id, "candidate"))
        return False
    p.removed.append(Removed(pattern=vp.pattern, decisions=[*sorted(kinds), f"resolution: {verdict}"]))
    return verdict == DecisionKind.AMEND


def _add_correction(
    p: RelationPlan, resolution: ResolutionRecord, status: dict[Key, Proposal], *, of_proposal: bool
) -> None:
    """A resolution's correction, checked — unless a maintainer dropped that text as a proposal
    afterwards (then it is kept apart, as the Proposals page says). It counts among the
    proposals confirmed by a maintainer when it corrects a proposal or is one (a reviewer
    proposed the same text); a candidate's correction is counted with the resolutions alone."""
    correction = resolution["correction"]
    assert correction is not None  # `resolve` stores an amend only with its validated correction
    proposal = status.get((p.language, p.relation, correction))
    if proposal is not None and proposal.status == ProposalStatus.DROPPED:
        if all(d.pattern != correction for d in p.dropped_proposals):
            p.dropped_proposals.append(
                Planned(correction, False, None, "resolved", reason="dropped on the Proposals page")
            )
        return
    confirmed = ProposalStatus.MAINTAINER.value if of_proposal or proposal is not None else None
    _add(p, Planned(correction, True, None, "resolved", confirmed))


def _drop_lines(plans: dict[tuple[str, str], RelationPlan], drops: dict[tuple[str, str, str], LineDropRecord]) -> None:
    """Take the lines maintainers dropped (release/line_drops.py) out of the plans."""
    for (lang, rel, pattern), drop in drops.items():
        p = plans.get((lang, rel))
        if p is None:
            continue
        kept = [k for k in p.kept if k.pattern != pattern]
        added = [a for a in p.added if a.pattern != pattern]
        if len(kept) + len(added) < len(p.kept) + len(p.added):
            p.kept, p.added = kept, added
            p.line_drops.append(drop)


def _add(p: RelationPlan, new: Planned) -> None:
    """Add a human-written template once; if it is already there, it is now human-checked."""
    for existing in p.kept + p.added:
        if existing.pattern == new.pattern:
            if not existing.checked and existing.confirmed is None:
                existing.confirmed = new.confirmed
            existing.checked = True
            return
    p.added.append(new)


PROPOSAL_COUNTS = ("reviewers", "trusted", "maintainer", "import", "withheld", "dropped")


def proposal_counts(plans: list[RelationPlan]) -> dict[str, int]:
    """What a reviewed version records (params, manifest, card): the lines of the version that
    proposals made checked, by who confirmed them (two reviewers, one trusted reviewer, a
    maintainer, an import), and the proposals withheld unconfirmed or dropped by a maintainer."""
    counts = dict.fromkeys(PROPOSAL_COUNTS, 0)
    for p in plans:
        counts["withheld"] += len(p.waiting)
        counts["dropped"] += len(p.dropped_proposals)
        if p.dropped:
            continue
        for planned in p.patterns:
            if planned.confirmed is not None:
                counts[planned.confirmed] += 1
    return counts


def build_from_review(
    session: Session, name: str, policy: str | None = Policy.ANY, parent: str | None = None, actor: User | None = None
) -> VersionSummary:
    """The reviewed version `name`: the reviews applied to `parent` (default: the latest
    candidates version) under `policy`; in the activity log as `actor`'s (None: the command line)."""
    if policy is None:  # TEMP adapter (issue 36 §3): None = the stored policy, until the real change lands
        policy = project_policy(session)
    base = get_version(session, parent) if parent else latest_candidates(session)
    plans = plan(session, base, policy)
    summary = review_summary(session, sorted({p.language for p in plans}))
    names = public_names(session)  # the params are published: maintainers by name, not by address
    version = _new_version(
        session,
        name,
        VersionKind.REVIEW,
        parent_id=base.id,
        params={
            "policy": policy,
            "min_templates": MIN_TEMPLATES,
            "dropped": [f"{p.language}/{p.relation}" for p in plans if p.dropped],
            "line_drops": [_line_drop_param(d, names) for p in plans for d in p.line_drops],
            "resolutions": [_resolution_param(r, names) for p in plans for r in p.resolutions],
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
    log_version(session, actor, Activity.BUILD, result, parent=base.name, policy=policy)
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

"""Apply reviews to a candidate version (SPEC §3) and preview the result.

Policy decides whether a reviewed template stays: `any` (mParaRel: at least one reviewer
accepted it), `majority` (more than half of its reviewers accepted it) or `unanimous`
(every reviewer accepted it). Whatever the policy, amendments add their correction and
suggestions are added; templates nobody decided stay, unchecked. "Unsure" decisions are not
verdicts and are ignored: a template with one accept and one unsure is judged on the accept
alone, and one that only has unsure decisions stays unchanged, as if undecided. Relations
left with fewer than 2 templates are dropped, with their tuples.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any, TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import Activity, DecisionKind, Policy, VersionKind, values
from curator.core.errors import InputError, NotFound
from curator.core.models import DatasetVersion, Suggestion, User, VersionPattern, VersionTuples
from curator.ingest.store import bulk_insert
from curator.release.versions import VersionSummary, _new_version, get_version, log_version, summarize
from curator.review.stats import review_summary, standing_decisions

POLICIES = values(Policy)
MIN_TEMPLATES = 2


@dataclass
class Planned:
    pattern: str
    checked: bool
    template_id: int | None
    origin: str  # candidate | amended | suggested


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


@dataclass
class RelationPlan:
    language: str
    relation: str
    kept: list[Planned] = field(default_factory=list)
    removed: list[Removed] = field(default_factory=list)
    added: list[Planned] = field(default_factory=list)

    @property
    def patterns(self) -> list[Planned]:
        return self.kept + self.added

    @property
    def dropped(self) -> bool:
        return len(self.patterns) < MIN_TEMPLATES

    def changed(self) -> bool:
        return bool(self.removed or self.added or self.dropped or any(p.checked for p in self.kept))

    def to_dict(self) -> PlanRecord:
        return PlanRecord(
            language=self.language,
            relation=self.relation,
            dropped=self.dropped,
            kept=[asdict(p) for p in self.kept],
            removed=self.removed,
            added=[asdict(p) for p in self.added],
        )


IGNORED = frozenset({DecisionKind.UNSURE})  # decision kinds that are not verdicts (never merged)


def stays(decisions: list[str], policy: str) -> bool:
    """Whether a template with these standing decisions stays under `policy`. Unsure decisions
    are left out; with none left the template stays (nobody decided it)."""
    decisions = [d for d in decisions if d not in IGNORED]
    if not decisions and policy in POLICIES:
        return True
    accepted = decisions.count(DecisionKind.ACCEPT)
    if policy == Policy.ANY:
        return accepted >= 1
    if policy == Policy.MAJORITY:
        return accepted * 2 > len(decisions)
    if policy == Policy.UNANIMOUS:
        return accepted == len(decisions)
    raise InputError(f"unknown merge policy {policy!r} (choose from {', '.join(POLICIES)})")


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
    session: Session, base: DatasetVersion, policy: str = Policy.ANY, languages: list[str] | None = None
) -> list[RelationPlan]:
    """What applying the standing reviews to `base` gives, per language and relation."""
    if policy not in POLICIES:
        raise InputError(f"unknown merge policy {policy!r} (choose from {', '.join(POLICIES)})")
    decisions: dict[int, list[tuple[str, str | None, int]]] = defaultdict(list)
    for _lang, _user_id, template_id, decision, correction, _, decision_id in standing_decisions(session):
        if decision not in IGNORED:  # "unsure" is not a verdict: as if that reviewer had not decided
            decisions[template_id].append((decision, correction, decision_id))
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
    for vp in session.scalars(query):
        p = plans.setdefault((vp.language, vp.relation_id), RelationPlan(vp.language, vp.relation_id))
        ds = decisions.get(vp.template_id, []) if vp.template_id is not None else []
        if not ds:
            p.kept.append(Planned(vp.pattern, vp.checked_by_human, vp.template_id, "candidate"))
        elif stays([d for d, _, _ in ds], policy):
            p.kept.append(Planned(vp.pattern, True, vp.template_id, "candidate"))
        else:
            p.removed.append(Removed(pattern=vp.pattern, decisions=sorted(d for d, _, _ in ds)))
        for decision, correction, _ in sorted(ds, key=lambda d: d[2]):
            if decision == DecisionKind.AMEND:
                assert correction is not None  # `decide` stores an amend only with its validated correction
                _add(p, Planned(correction, True, None, "amended"))
    for (lang, rel), p in plans.items():
        for s in suggestions.get((lang, rel), []):
            _add(p, Planned(s.text, True, None, "suggested"))
    return [plans[key] for key in sorted(plans)]


def _add(p: RelationPlan, new: Planned) -> None:
    """Add a human-written template once; if it is already there, it is now human-checked."""
    for existing in p.kept + p.added:
        if existing.pattern == new.pattern:
            existing.checked = True
            return
    p.added.append(new)


def build_from_review(
    session: Session, name: str, policy: str = Policy.ANY, parent: str | None = None, actor: User | None = None
) -> VersionSummary:
    """The reviewed version `name`: the reviews applied to `parent` (default: the latest
    candidates version) under `policy`; in the activity log as `actor`'s (None: the command line)."""
    base = get_version(session, parent) if parent else latest_candidates(session)
    plans = plan(session, base, policy)
    summary = review_summary(session, sorted({p.language for p in plans}))
    version = _new_version(
        session,
        name,
        VersionKind.REVIEW,
        parent_id=base.id,
        params={
            "policy": policy,
            "min_templates": MIN_TEMPLATES,
            "dropped": [f"{p.language}/{p.relation}" for p in plans if p.dropped],
            "review": summary.to_dict(),
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

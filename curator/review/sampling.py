"""Reproducible per-reviewer samples (SPEC §3): per relation ⌈fraction·n⌉ templates, at least 2."""

from __future__ import annotations

import math
import random

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from curator.core.enums import Activity
from curator.core.errors import Conflict, InputError, NotFound
from curator.core.languages import check_code
from curator.core.models import Assignment, AssignmentItem, Language, RelationCoverage, Template, User
from curator.ingest.store import bulk_insert
from curator.quality import signals
from curator.review import activity
from curator.review.proposal_queue import catch_up

DEFAULT_FRACTION = 0.5


def sample_size(n: int, fraction: float, minimum: int = 2) -> int:
    return min(n, max(minimum, math.ceil(fraction * n)))


def sample_templates(templates_by_relation: dict[str, list[int]], fraction: float, seed: str) -> list[tuple[str, int]]:
    """(relation, template id) in review order. The same inputs always give the same sample;
    each relation draws from its own generator so adding a relation changes no other."""
    chosen = []
    for relation in sorted(templates_by_relation, key=_relation_order):
        ids = sorted(templates_by_relation[relation])
        rng = random.Random(f"{seed}:{relation}")
        picked = rng.sample(ids, sample_size(len(ids), fraction))
        chosen += [(relation, t) for t in sorted(picked)]
    return chosen


def risk_sample(
    templates_by_relation: dict[str, list[int]], fraction: float, seed: str, risk: dict[int, float]
) -> list[tuple[str, int]]:
    """Like `sample_templates`, but each relation contributes its riskiest templates and the
    queue starts with the riskiest overall, so a short session goes where errors are likeliest.
    Equal risks fall back to the seeded random order, so the sample stays reproducible."""
    chosen = []
    for relation in sorted(templates_by_relation, key=_relation_order):
        ids = sorted(templates_by_relation[relation])
        shuffled = random.Random(f"{seed}:{relation}").sample(ids, len(ids))
        tie = {t: i for i, t in enumerate(shuffled)}
        ranked = sorted(ids, key=lambda t: (-risk.get(t, 0.0), tie[t]))
        chosen += [(relation, t, tie[t]) for t in ranked[: sample_size(len(ids), fraction)]]
    chosen.sort(key=lambda c: (-risk.get(c[1], 0.0), _relation_order(c[0]), c[2]))
    return [(relation, t) for relation, t, _ in chosen]


def _relation_order(relation: str) -> tuple[int, str]:
    digits = relation[1:]
    return (int(digits) if digits.isdigit() else 0, relation)


def reviewable(session: Session, language: str) -> dict[str, list[int]]:
    """Candidate template ids per relation, in the relations usable in the language."""
    usable = set(
        session.scalars(
            select(RelationCoverage.relation_id).where(RelationCoverage.language == language, RelationCoverage.usable)
        )
    )
    rows = session.execute(
        select(Template.relation_id, Template.id).where(Template.language == language, Template.is_candidate)
    ).all()
    out: dict[str, list[int]] = {}
    for relation, template_id in rows:
        if relation in usable:
            out.setdefault(relation, []).append(template_id)
    return out


def set_fraction(session: Session, language: str, fraction: float, actor: User | None = None) -> None:
    """The language's sample fraction for reviewers who join from now on; a change is in the
    activity log (`actor` None: the command line)."""
    check_code(language)
    if not 0 < fraction <= 1:
        raise InputError(f"fraction must be in (0, 1], not {fraction}")
    row = session.get(Language, language)
    if row is None:
        raise NotFound(f"unknown language {language!r}")
    if row.review_fraction != fraction:
        before, row.review_fraction = row.review_fraction, fraction
        activity.record(
            session, actor, Activity.SAMPLE_FRACTION, f"{fraction:g}", language, {"from": before, "to": fraction}
        )


def set_queue_order(session: Session, language: str, order: str, actor: User | None = None) -> None:
    """How new reviewers' samples of the language are drawn (`quality.signals.set_queue_order`),
    with a change in the activity log (`actor` None: the command line)."""
    row = session.get(Language, check_code(language))
    before = row.queue_order if row is not None else None
    signals.set_queue_order(session, language, order)
    if before != order:
        activity.record(session, actor, Activity.QUEUE_ORDER, order, language, {"from": before, "to": order})


def assign(session: Session, user: User, language: str, fraction: float | None = None) -> Assignment:
    """The user's assignment for the language, sampling it on first call. The fraction is the
    invitation's, else the language's (`curator review fraction`), else 0.5."""
    check_code(language)
    existing = session.scalar(select(Assignment).where(Assignment.user_id == user.id, Assignment.language == language))
    if existing is not None:
        return existing
    if fraction is None:
        configured = session.scalar(select(Language.review_fraction).where(Language.code == language))
        fraction = DEFAULT_FRACTION if configured is None else configured
    if not 0 < fraction <= 1:
        raise InputError(f"fraction must be in (0, 1], not {fraction}")
    pool = reviewable(session, language)
    if not pool:
        raise Conflict(
            f"language {language!r} has no candidate templates to review (ingest it and run `curator candidates build`)"
        )
    assignment = Assignment(user_id=user.id, language=language, fraction=fraction, seed=f"{language}:{user.id}")
    session.add(assignment)
    session.flush()
    if session.scalar(select(Language.queue_order).where(Language.code == language)) == "risk":
        from curator.quality.signals import risks

        sample = risk_sample(pool, fraction, assignment.seed, risks(session, language))
    else:
        sample = sample_templates(pool, fraction, assignment.seed)
    bulk_insert(
        session,
        AssignmentItem.__table__,
        (
            dict(assignment_id=assignment.id, template_id=t, relation_id=r, position=i, extra=False)
            for i, (r, t) in enumerate(sample)
        ),
    )
    catch_up(session, assignment)  # the standing proposals of the others, for a second look
    return assignment


def add_item(session: Session, assignment: Assignment, template: Template) -> AssignmentItem:
    """Make sure a template is in the assignment (legacy imports may cover unsampled ones); a
    retired one comes back to the queue (the import decides on it)."""
    item = session.scalar(
        select(AssignmentItem).where(
            AssignmentItem.assignment_id == assignment.id, AssignmentItem.template_id == template.id
        )
    )
    if item is not None and item.retired_at is not None:
        item.retired_at = None
        session.flush()
    if item is None:
        last = session.scalar(
            select(func.max(AssignmentItem.position)).where(AssignmentItem.assignment_id == assignment.id)
        )
        item = AssignmentItem(
            assignment_id=assignment.id,
            template_id=template.id,
            relation_id=template.relation_id,
            position=(last if last is not None else -1) + 1,
            extra=True,
        )
        session.add(item)
        session.flush()
    return item

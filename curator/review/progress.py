"""A reviewer's queue and progress: the items in order with their standing decisions, the next
undecided one, and the counts and time left every screen shows — for the hot path (a decision
and what comes next) in one statement (`progress_and_next`).

A retired item (a second look whose proposal stopped existing: `proposal_queue.retire`) is in
none of them: not listed, not counted, never next; the decisions made on it stay in history."""

from __future__ import annotations

import functools
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypedDict

from sqlalchemy import BindParameter, ColumnElement, Integer, Select, SQLColumnExpression, bindparam, func, select, true
from sqlalchemy.orm import Session

from curator.core.models import Assignment, AssignmentItem, Decision, Template
from curator.review.standing import decided, not_undone, standing_id

DEFAULT_SECONDS = 20.0  # estimate per item before a reviewer has a pace of their own


class QueueItemDict(TypedDict):
    """`QueueItem` as the JSON API sends it."""

    id: int
    position: int
    relation: str
    template: str
    decision: str | None
    correction: str | None


class Progress(TypedDict):
    """A reviewer's counts and time left in one language, as every screen shows them."""

    done: int
    total: int
    remaining: int
    seconds_per_item: float
    estimate_seconds: int
    estimate_minutes: int


@dataclass
class QueueItem:
    id: int
    position: int
    relation: str
    template: str
    decision: str | None
    correction: str | None

    def to_dict(self) -> QueueItemDict:
        return QueueItemDict(
            id=self.id,
            position=self.position,
            relation=self.relation,
            template=self.template,
            decision=self.decision,
            correction=self.correction,
        )


def in_queue(item: type[AssignmentItem] = AssignmentItem) -> ColumnElement[bool]:
    """The item is in its reviewer's queue: not retired (`proposal_queue.retire`)."""
    return item.retired_at.is_(None)


def queue(session: Session, assignment: Assignment) -> list[QueueItem]:
    current = standing_id(AssignmentItem.id)
    rows = session.execute(
        select(
            AssignmentItem.id,
            AssignmentItem.position,
            AssignmentItem.relation_id,
            Template.text,
            Decision.decision,
            Decision.correction,
        )
        .join(Template, Template.id == AssignmentItem.template_id)
        .outerjoin(Decision, Decision.id == current)
        .where(AssignmentItem.assignment_id == assignment.id, in_queue())
        .order_by(AssignmentItem.position)
    ).all()
    return [QueueItem(*row) for row in rows]


def next_undecided(items: list[QueueItem], after: int | None = None) -> QueueItem | None:
    """The first undecided item after position `after` (wrapping round), for "continue"."""
    open_items = [i for i in items if i.decision is None]
    if not open_items:
        return None
    if after is not None:
        later = [i for i in open_items if i.position > after]
        if later:
            return later[0]
    return open_items[0]


def progress(session: Session, assignment: Assignment, items: list[QueueItem] | None = None) -> Progress:
    if items is not None:
        return _progress(
            len(items), sum(i.decision is not None for i in items), session.scalars(_seconds(assignment.id))
        )
    return progress_and_next(session, assignment)[0]


def progress_and_next(
    session: Session, assignment: Assignment, after: int | None = None
) -> tuple[Progress, int | None]:
    """`progress` and the next undecided item after position `after` (wrapping round, as
    `next_undecided`) in one statement, what the screen needs after each decision: the counts
    and the next item in a one-row subquery, joined to the paces (one row each)."""
    rows = session.execute(_progress_query(), {"assignment_id": assignment.id, "after": after}).all()
    total, done, upcoming_id, _ = rows[0]
    return _progress(total, done, (r.seconds for r in rows)), upcoming_id


@functools.cache
def _progress_query() -> Select[int, int, int | None, float | None]:
    """`progress_and_next`'s statement, built once; `after` None: from the start."""
    assignment_id: BindParameter[int] = bindparam("assignment_id")
    undecided = (
        select(AssignmentItem.id)
        .where(AssignmentItem.assignment_id == assignment_id, in_queue(), ~decided(AssignmentItem.id))
        .order_by(AssignmentItem.position)
        .limit(1)
    )
    upcoming = func.coalesce(  # COALESCE stops at the first found; position > NULL finds none
        undecided.where(AssignmentItem.position > bindparam("after", type_=Integer)).scalar_subquery(),
        undecided.scalar_subquery(),
    )
    head = select(
        select(func.count())
        .select_from(AssignmentItem)
        .where(AssignmentItem.assignment_id == assignment_id, in_queue())
        .scalar_subquery()
        .label("total"),
        select(func.count())
        .select_from(AssignmentItem)
        .where(AssignmentItem.assignment_id == assignment_id, in_queue(), decided(AssignmentItem.id))
        .scalar_subquery()
        .label("done"),
        upcoming.label("next"),
    ).subquery()
    paces = _seconds(assignment_id).subquery()
    return select(head.c.total, head.c.done, head.c.next, paces.c.seconds).select_from(head).outerjoin(paces, true())


def _seconds(assignment_id: SQLColumnExpression[int] | int) -> Select[float | None]:
    """The times of the assignment's decisions not undone (the reviewer's pace; those on retired
    items too: time spent all the same)."""
    return (
        select(Decision.seconds)
        .join(AssignmentItem, AssignmentItem.id == Decision.item_id)
        .where(AssignmentItem.assignment_id == assignment_id, Decision.seconds.is_not(None), not_undone())
    )


def _progress(total: int, done: int, seconds: Iterable[float | None]) -> Progress:
    paces = [s for s in seconds if s and s > 0]
    pace = statistics.median(paces) if paces else DEFAULT_SECONDS
    remaining = total - done
    return Progress(
        done=done,
        total=total,
        remaining=remaining,
        seconds_per_item=round(pace, 1),
        estimate_seconds=round(pace * remaining),
        estimate_minutes=estimate_minutes(pace * remaining),
    )


def estimate_minutes(seconds: float) -> int:
    """The one rounding of the time left that every screen shows ("about 12 minutes left"):
    whole minutes, at least 1 while anything is left."""
    return max(1, round(seconds / 60)) if seconds > 0 else 0

"""What every reviewer write shares: the request id that makes a resend harmless, the replay
of a request already stored, the insert that survives a race with its own resend, and the
check that a relation is in the reviewer's sample.

Decisions (review.service), suggestions (review.suggestions) and comments (review.comments)
each carry a `request_id` unique per user; a client that lost the answer sends the same
request again and gets the stored row back, never a second one.
"""

from __future__ import annotations

from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from curator.core.db import WRITE
from curator.core.errors import InputError, NotFound
from curator.core.models import Assignment, AssignmentItem, Comment, Decision, Suggestion, User

# a reviewer's write: the three kinds of row stored under a request id
Write = TypeVar("Write", Decision, Suggestion, Comment)


def check_request_id(request_id: object) -> None:
    """The column holds 64 characters; PostgreSQL (unlike SQLite) refuses longer values and
    will not compare a number with it, so both are bad input here rather than a 500 there."""
    if not isinstance(request_id, str) or not 0 < len(request_id) <= 64:
        raise InputError("request_id must be a string of at most 64 characters")


def replayed(session: Session, model: type[Write], user: User, request_id: object) -> Write | None:
    """The row of `model` this user already stored under `request_id`, or None (also without one)."""
    if request_id is None:
        return None
    check_request_id(request_id)
    return session.scalar(select(model).where(model.user_id == user.id, model.request_id == request_id))


def insert_once(session: Session, row: Write) -> tuple[Write, bool]:
    """Add a decision, suggestion or comment; returns (row, created). When the same request
    (user, request id) raced in on another thread, the unique constraint refuses this copy and
    the stored one is returned instead — a resend is stored at most once.

    Inside a unit of work (the writer lock held since before the caller's `replayed` check) no
    other writer can have stored the same request in between, so the row is inserted without
    the SAVEPOINT the race needs (two round trips fewer on the review screen's hot path)."""
    if session.info.get(WRITE):
        session.add(row)
        session.flush()
        return row, True
    try:
        with session.begin_nested():
            session.add(row)
    except IntegrityError:
        model = type(row)
        known = (
            None
            if row.request_id is None
            else session.scalar(select(model).where(model.user_id == row.user_id, model.request_id == row.request_id))
        )
        if known is None:
            raise
        return known, False
    return row, True


def check_in_sample(session: Session, assignment: Assignment, relation: str | None) -> None:
    """NotFound unless `relation` has a template in this assignment's sample."""
    in_sample = session.scalar(
        select(AssignmentItem.id)
        .where(AssignmentItem.assignment_id == assignment.id, AssignmentItem.relation_id == relation)
        .limit(1)
    )
    if in_sample is None:
        raise NotFound(f"relation {relation!r} is not in your sample")

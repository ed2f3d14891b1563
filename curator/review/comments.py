"""Reviewers' free-text comments for the maintainers: on one template of their sample or on a
whole relation. Like suggestions they are idempotent per request id, validated (length,
no control characters but line breaks) and never deleted: withdrawing marks them retracted.
"""

from __future__ import annotations

from typing import TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import DecisionSource
from curator.core.errors import N_, InputError, NotFound
from curator.core.models import Assignment, AssignmentItem, Comment, User
from curator.core.models.base import utcnow, valid_id
from curator.core.text import describe_char, first_control
from curator.review import mentions
from curator.review.writes import check_in_sample, insert_once, replayed

MAX_LENGTH = 2000


class CommentRecord(TypedDict):
    """A comment as the pages and the JSON API show it."""

    id: int
    relation: str
    template_id: int | None  # None: on the relation as a whole
    text: str
    created_at: str  # ISO 8601, to the second
    retracted: bool


def _clean(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InputError(N_("Write a comment first."), params={})
    text = text.replace("\r\n", "\n").strip()
    if len(text) > MAX_LENGTH:
        raise InputError(N_("That comment is too long (%(limit)s characters at most)."), params={"limit": MAX_LENGTH})
    # a line break is the one control character a comment may hold (a form's CRLF is one, made LF
    # above): a tab, a lone carriage return, a form feed… are refused like any other
    control = first_control(text.replace("\n", ""))
    if control is not None:
        raise InputError(
            N_(
                "Not saved: the comment contains an invisible character (%(character)s). "
                "Type it without invisible characters."
            ),
            params={"character": describe_char(control)},
        )
    return text


clean_text = _clean  # review.threads cleans replies by the same rules


def add_comment(
    session: Session,
    user: User,
    assignment: Assignment,
    text: str,
    *,
    relation: str | None = None,
    item: AssignmentItem | None = None,
    request_id: str | None = None,
    source: DecisionSource = DecisionSource.WEB,
) -> tuple[Comment, bool]:
    """A comment on `item` (its template) or, without an item, on `relation`. Returns
    (comment, created); a resend with the same request id is a no-op."""
    if item is not None:
        if item.assignment_id != assignment.id:
            raise NotFound("no such item in your sample")
        relation, template_id = item.relation_id, item.template_id
    else:
        template_id = None
        check_in_sample(session, assignment, relation)
    known = replayed(session, Comment, user, request_id)
    if known is not None:
        return known, False
    row = Comment(
        user_id=user.id,
        language=assignment.language,
        relation_id=relation,
        template_id=template_id,
        text=_clean(text),
        source=source,
        request_id=request_id,
    )
    comment, created = insert_once(session, row)
    if created:
        mentions.record(session, comment)  # @handles of people who may read it (review.mentions)
    return comment, created


def withdraw_comment(session: Session, user: User, assignment: Assignment, comment_id: int) -> Comment:
    """Retract one of your own comments in this language (kept, marked retracted)."""
    row = session.get(Comment, comment_id) if valid_id(comment_id) else None
    if row is None or row.user_id != user.id or row.language != assignment.language:
        raise NotFound("no such comment of yours")
    if not row.retracted:
        row.retracted, row.retracted_at = True, utcnow()
        session.flush()
    return row


def list_comments(
    session: Session,
    user: User,
    assignment: Assignment,
    *,
    relation: str | None = None,
    template_id: int | None = None,
    only_relation: bool = False,
) -> list[CommentRecord]:
    """Your standing comments in the language, oldest first; narrowed to one relation, one
    template, or (only_relation) the comments on the relation as a whole. Replies in threads
    (review.threads) are not comments of their own here."""
    query = (
        select(Comment)
        .where(
            Comment.user_id == user.id,
            Comment.language == assignment.language,
            Comment.retracted.is_(False),
            Comment.parent_id.is_(None),
        )
        .order_by(Comment.id)
    )
    if relation is not None:
        query = query.where(Comment.relation_id == relation)
    if template_id is not None:
        query = query.where(Comment.template_id == template_id)
    elif only_relation:
        query = query.where(Comment.template_id.is_(None))
    return [comment_dict(c) for c in session.scalars(query)]


def comment_dict(c: Comment) -> CommentRecord:
    return {
        "id": c.id,
        "relation": c.relation_id,
        "template_id": c.template_id,
        "text": c.text,
        "created_at": c.created_at.isoformat(timespec="seconds"),
        "retracted": c.retracted,
    }

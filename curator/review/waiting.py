"""Replies waiting for a reviewer — the count on a reviewer's home page and the list on the history
page. No column of its own: in an open thread the reviewer opened or wrote in, every reply by
someone else written after the reviewer's own latest post in that thread (by row id, which grows
with time) is waiting. Answering in the thread clears them; so does resolving it (review.threads).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TypedDict

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session, aliased

from curator.core.models import Assignment, AssignmentItem, Comment, User
from curator.core.paging import check_page, page_count, page_offset
from curator.review.accounts import author_name
from curator.review.progress import in_queue
from curator.review.readers import readable_by
from curator.review.threads import PER_PAGE


class WaitingReply(TypedDict):
    """A reply by someone else waiting for a reviewer (see the module's rule)."""

    thread: int
    reply: int
    relation: str
    template_id: int | None
    item_id: int | None  # the item of the reviewer's sample to open it at (the relation's first, for a relation)
    author: str
    text: str
    created_at: str


class WaitingPage(TypedDict):
    """One page of the replies waiting for a reviewer."""

    count: int  # waiting replies, every page
    languages: dict[str, list[WaitingReply]]  # this page's, by language
    page: int
    pages: int
    per_page: int


def _waiting_query(user: User, language: str | None) -> Select[Comment, User, Comment]:
    """The replies waiting for `user` (see the module's rule), oldest first."""
    mine = aliased(Comment)
    last_own = (
        select(func.coalesce(mine.parent_id, mine.id).label("thread"), func.max(mine.id).label("last"))
        .where(mine.user_id == user.id, mine.retracted.is_(False))
        .group_by(func.coalesce(mine.parent_id, mine.id))
        .subquery()
    )
    root = aliased(Comment)
    query = (
        select(Comment, User, root)
        .join(root, root.id == Comment.parent_id)
        .join(last_own, last_own.c.thread == Comment.parent_id)
        .join(User, User.id == Comment.user_id)
        .where(
            Comment.user_id != user.id,
            Comment.retracted.is_(False),
            Comment.id > last_own.c.last,
            root.retracted.is_(False),
            root.resolved_at.is_(None),
        )
        .order_by(Comment.id)
    )
    if language is not None:
        query = query.where(Comment.language == language)
    return query.where(readable_by(user, Comment.language))  # a language taken off a reviewer waits no more


def waiting_replies(
    session: Session, user: User, language: str | None = None, *, limit: int = PER_PAGE, offset: int = 0
) -> dict[str, list[WaitingReply]]:
    """{language: replies waiting for `user`}, oldest first, at most `limit` from the `offset`-th:
    in open threads the user opened or wrote in, the replies by others newer than the user's own
    latest post in the thread — for a reviewer only in the languages they still review (the home
    page's rows; a maintainer may take part in every language's threads, so theirs are all counted)."""
    rows = session.execute(_waiting_query(user, language).offset(offset).limit(limit)).all()
    templates = {c.template_id for c, _, _ in rows if c.template_id is not None}
    items = dict(
        session.execute(
            select(AssignmentItem.template_id, AssignmentItem.id)
            .join(Assignment, Assignment.id == AssignmentItem.assignment_id)
            .where(Assignment.user_id == user.id, AssignmentItem.template_id.in_(templates), in_queue())
        ).all()
    )
    relations = {(c.language, c.relation_id) for c, _, _ in rows if c.template_id is None}
    first_items = {
        (lang, rel): item_id
        for lang, rel, item_id in session.execute(
            select(Assignment.language, AssignmentItem.relation_id, func.min(AssignmentItem.id))
            .join(Assignment, Assignment.id == AssignmentItem.assignment_id)
            .where(Assignment.user_id == user.id, AssignmentItem.relation_id.in_({r for _, r in relations}), in_queue())
            .group_by(Assignment.language, AssignmentItem.relation_id)
        )
    }
    out: dict[str, list[WaitingReply]] = defaultdict(list)
    for c, author, _root in rows:
        out[c.language].append(
            {
                "thread": _root.id,
                "reply": c.id,
                "relation": c.relation_id,
                "template_id": c.template_id,
                "item_id": items.get(c.template_id)
                if c.template_id is not None
                else first_items.get((c.language, c.relation_id)),
                "author": author_name(author),
                "text": c.text,
                "created_at": c.created_at.isoformat(timespec="seconds"),
            }
        )
    return dict(out)


def waiting_page(
    session: Session, user: User, page: int = 1, per_page: int = PER_PAGE, language: str | None = None
) -> WaitingPage:
    """One page of the replies waiting for `user`, oldest first, in every language or in
    `language` (the history page; the JSON API lists them all): {count (all of them), languages:
    {language: this page's replies}, page, pages, per_page}. A page past the last has none."""
    check_page(page, per_page)
    counts = waiting_counts(session, user)
    count = sum(counts.values()) if language is None else counts.get(language, 0)
    return {
        "count": count,
        "languages": waiting_replies(session, user, language, limit=per_page, offset=page_offset(page, per_page)),
        "page": page,
        "pages": page_count(count, per_page),
        "per_page": per_page,
    }


def waiting_counts(session: Session, user: User) -> dict[str, int]:
    """{language: number of replies waiting for `user`} (languages with none left out)."""
    query = _waiting_query(user, None).with_only_columns(Comment.language, func.count()).order_by(None)
    return dict(session.execute(query.group_by(Comment.language)).all())

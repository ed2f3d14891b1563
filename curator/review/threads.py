"""Comment threads: a reviewer's comment opens a thread; reviewers of its language and the
maintainers reply to it, and the maintainers (or the reviewer who opened it) resolve and reopen
it. A reply is a `Comment` row whose `parent_id` names the thread's opening comment (a reply to a
reply attaches there too: threads are flat, as in Weblate), with the thread's language,
relation and template. Only the opening comment carries the state (`resolved_at`,
`resolved_by`). Withdrawn (retracted) comments stay out of every list and count; a withdrawn
opening comment takes its thread with it. Replies are idempotent per request id, like comments.

A person mentioned in a thread (`@handle`, review.mentions) sees it as if they had written in
it: under the item on the review screen and on the history page.

"Replies waiting" — the count on a reviewer's home page — are review.waiting's.

Every listing is bounded (issue 38 §2): threads come a page at a time (`page`, `per_page` up to
MAX_PER_PAGE, core.paging), each thread listed with only its latest
REPLIES_SHOWN replies and `reply_count` for all of them; one thread's replies page the same way
(`get_thread` with a page); the replies waiting for someone too (`review.waiting.waiting_page`).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Literal, TypedDict

from sqlalchemy import CompoundSelect, Select, func, or_, select, union
from sqlalchemy.orm import Session

from curator.core.enums import Activity, DecisionSource
from curator.core.errors import N_, Conflict, Forbidden, InputError, NotFound
from curator.core.models import Comment, Mention, Template, User
from curator.core.models.base import utcnow, valid_id
from curator.core.paging import MAX_PER_PAGE, check_page, page_count, page_offset
from curator.review import activity, mentions
from curator.review.accounts import author_name
from curator.review.comments import clean_text
from curator.review.readers import may_read_language
from curator.review.writes import insert_once, replayed

PER_PAGE = 20  # threads (or waiting replies) per page
REPLIES_SHOWN = 20  # the latest replies of each thread in a listing (`reply_count` counts them all)

State = Literal["open", "resolved"]
STATES: tuple[str, ...] = ("open", "resolved")

# a language the user does not review (or no longer: taken off it by a maintainer). `language` is
# the code; the web layer says the language's name with it, isolated (web/errors.translated)
NOT_REVIEWING = N_("You are not reviewing %(language)s.")


class ReplyRecord(TypedDict):
    """One reply as the pages and the JSON API show it."""

    id: int
    author: str  # the author's name, else the part of the e-mail address before the @
    mine: bool  # written by the user the record was made for
    text: str
    created_at: str  # ISO 8601, to the second


class ThreadRecord(TypedDict):
    """A thread: its opening comment (the keys of a `CommentRecord`), its state and replies."""

    id: int  # the opening comment's id: the thread's id
    language: str
    relation: str
    template_id: int | None  # None: on the relation as a whole
    template: str | None  # the template's text
    author: str
    mine: bool
    text: str
    created_at: str
    retracted: bool  # always False: withdrawn threads are not listed
    state: State
    resolved_at: str | None
    resolved_by: str | None  # who resolved it (name, as `author`)
    replies: list[ReplyRecord]  # the latest REPLIES_SHOWN, oldest first (or the page asked for)
    reply_count: int  # all its standing replies


class ThreadPage(TypedDict):
    """One page of a thread listing."""

    threads: list[ThreadRecord]
    matched: int  # threads in the listing, every page
    page: int
    pages: int
    per_page: int


class ReplyPage(TypedDict):
    """One thread with one page of its replies (oldest first)."""

    thread: ThreadRecord
    page: int
    pages: int
    per_page: int


def _may_take_part(session: Session, user: User, language: str) -> bool:
    """Maintainers, and reviewers currently assigned the language (review.readers)."""
    return may_read_language(session, user, language)


def _opening(session: Session, user: User, language: str, comment_id: int) -> Comment:
    """The standing opening comment of the thread `comment_id` belongs to, in `language`, for a
    user who may take part in it: NotFound for anything else (another language's comment is not
    shown to exist), Forbidden for a reviewer who does not review the language."""
    if not _may_take_part(session, user, language):
        raise Forbidden(NOT_REVIEWING, params={"language": language})
    row = session.get(Comment, comment_id) if valid_id(comment_id) else None
    if row is not None and row.parent_id is not None:
        row = session.get(Comment, row.parent_id)
    if row is None or row.retracted or row.language != language:
        raise NotFound("no such comment")
    return row


def reply(
    session: Session,
    user: User,
    language: str,
    comment_id: int,
    text: str,
    *,
    request_id: str | None = None,
    source: DecisionSource = DecisionSource.WEB,
) -> tuple[Comment, bool]:
    """Reply to the thread of comment `comment_id` (a reviewer of its language or a maintainer).
    Returns (reply, created); a resend with the same request id is a no-op. A resolved thread
    takes replies and stays resolved until someone reopens it."""
    known = replayed(session, Comment, user, request_id)
    if known is not None:
        if known.parent_id is None:  # the id of a comment, not of a reply: not this request resent
            raise Conflict(f"request_id {request_id!r} was already used for a comment that is not a reply")
        return known, False
    root = _opening(session, user, language, comment_id)
    row = Comment(
        user_id=user.id,
        language=root.language,
        relation_id=root.relation_id,
        template_id=root.template_id,
        parent_id=root.id,
        text=clean_text(text),
        source=source,
        request_id=request_id,
    )
    reply_row, created = insert_once(session, row)
    if created:
        mentions.record(session, reply_row)  # @handles of people who may read the thread (review.mentions)
    return reply_row, created


def reply_record(session: Session, viewer: User, row: Comment) -> ReplyRecord:
    """One reply as the listings show it (the answer to a reply POST: the reply, not its thread)."""
    author = session.get_one(User, row.user_id)
    return {
        "id": row.id,
        "author": author_name(author),
        "mine": row.user_id == viewer.id,
        "text": row.text,
        "created_at": row.created_at.isoformat(timespec="seconds"),
    }


def _set_state(session: Session, user: User, language: str, comment_id: int, resolved: bool) -> Comment:
    root = _opening(session, user, language, comment_id)
    if not user.is_maintainer and root.user_id != user.id:
        raise Forbidden("only the maintainers and the reviewer who opened a thread resolve or reopen it")
    if (root.resolved_at is not None) == resolved:
        return root  # already so: nothing changes, nothing is logged
    root.resolved_at, root.resolved_by = (utcnow(), user.id) if resolved else (None, None)
    if user.is_maintainer:
        where = f"template #{root.template_id}" if root.template_id is not None else "the relation"
        activity.record(
            session,
            user,
            Activity.COMMENT_RESOLVE,
            f"thread #{root.id} on {where} ({root.relation_id})",
            root.language,
            {"thread": root.id, "state": "resolved" if resolved else "open"},
        )
    session.flush()
    return root


def resolve(session: Session, user: User, language: str, comment_id: int) -> Comment:
    """Mark the thread resolved (maintainers, and the reviewer who opened it); already resolved: no-op."""
    return _set_state(session, user, language, comment_id, True)


def reopen(session: Session, user: User, language: str, comment_id: int) -> Comment:
    """Open a resolved thread again (the same people as `resolve`); already open: no-op."""
    return _set_state(session, user, language, comment_id, False)


def check_state(state: str | None) -> State | None:
    """A `state` filter from a URL: open, resolved, or empty/absent/"all" for both."""
    if state in (None, "", "all"):
        return None
    if state == "open":
        return "open"
    if state == "resolved":
        return "resolved"
    raise InputError(f"state must be open, resolved or all, not {state!r}")


def _iso(at: datetime | None) -> str | None:
    return at.isoformat(timespec="seconds") if at is not None else None


def _roots_query(language: str, state: State | None) -> Select[Comment]:
    query = select(Comment).where(
        Comment.language == language, Comment.parent_id.is_(None), Comment.retracted.is_(False)
    )
    if state == "open":
        query = query.where(Comment.resolved_at.is_(None))
    elif state == "resolved":
        query = query.where(Comment.resolved_at.is_not(None))
    return query


def _latest_replies(session: Session, ids: list[int], latest: int) -> tuple[list[Comment], dict[int, int]]:
    """The latest `latest` standing replies of each of these threads (oldest first) and
    {thread: number of its standing replies}."""
    ranked = (
        select(
            Comment.id.label("id"),
            func.row_number().over(partition_by=Comment.parent_id, order_by=Comment.id.desc()).label("rank"),
        )
        .where(Comment.parent_id.in_(ids), Comment.retracted.is_(False))
        .subquery()
    )
    replies = session.scalars(
        select(Comment).join(ranked, ranked.c.id == Comment.id).where(ranked.c.rank <= latest).order_by(Comment.id)
    ).all()
    counts = session.execute(
        select(Comment.parent_id, func.count())
        .where(Comment.parent_id.in_(ids), Comment.retracted.is_(False))
        .group_by(Comment.parent_id)
    ).all()
    return list(replies), {parent: n for parent, n in counts if parent is not None}


def _page_of_replies(session: Session, root: Comment, page: int, per_page: int) -> tuple[list[Comment], int]:
    """One page of the thread's standing replies, oldest first, and how many it has."""
    standing = select(Comment).where(Comment.parent_id == root.id, Comment.retracted.is_(False))
    count = session.scalar(select(func.count()).select_from(standing.subquery())) or 0
    rows = session.scalars(standing.order_by(Comment.id).offset(page_offset(page, per_page)).limit(per_page)).all()
    return list(rows), count


def _records(
    session: Session,
    roots: list[Comment],
    viewer: User | None,
    replies: tuple[list[Comment], dict[int, int]] | None = None,
) -> list[ThreadRecord]:
    """The threads of these opening comments with their latest standing replies (or `replies`:
    the replies to show and the count of each thread's), oldest first."""
    if not roots:
        return []
    shown, counts = replies if replies is not None else _latest_replies(session, [r.id for r in roots], REPLIES_SHOWN)
    people = {r.user_id for r in [*roots, *shown]} | {r.resolved_by for r in roots if r.resolved_by is not None}
    names = {u.id: author_name(u) for u in session.scalars(select(User).where(User.id.in_(people)))}
    template_ids = {r.template_id for r in roots if r.template_id is not None}
    texts = dict(session.execute(select(Template.id, Template.text).where(Template.id.in_(template_ids))).all())
    by_thread: dict[int, list[ReplyRecord]] = defaultdict(list)
    viewer_id = viewer.id if viewer is not None else None
    for r in shown:
        assert r.parent_id is not None  # selected by parent
        by_thread[r.parent_id].append(
            {
                "id": r.id,
                "author": names[r.user_id],
                "mine": r.user_id == viewer_id,
                "text": r.text,
                "created_at": r.created_at.isoformat(timespec="seconds"),
            }
        )
    return [
        {
            "id": c.id,
            "language": c.language,
            "relation": c.relation_id,
            "template_id": c.template_id,
            "template": texts.get(c.template_id) if c.template_id is not None else None,
            "author": names[c.user_id],
            "mine": c.user_id == viewer_id,
            "text": c.text,
            "created_at": c.created_at.isoformat(timespec="seconds"),
            "retracted": False,
            "state": "resolved" if c.resolved_at is not None else "open",
            "resolved_at": _iso(c.resolved_at),
            "resolved_by": names.get(c.resolved_by) if c.resolved_by is not None else None,
            "replies": by_thread[c.id],
            "reply_count": counts.get(c.id, 0),
        }
        for c in roots
    ]


def _participated(user: User) -> CompoundSelect[int]:
    """The ids of the threads `user` opened, replied in or was mentioned in (review.mentions;
    standing comments only)."""
    wrote = select(func.coalesce(Comment.parent_id, Comment.id)).where(
        Comment.user_id == user.id, Comment.retracted.is_(False)
    )
    named = (
        select(func.coalesce(Comment.parent_id, Comment.id))
        .join(Mention, Mention.comment_id == Comment.id)
        .where(Mention.user_id == user.id, Comment.retracted.is_(False))
    )
    return union(wrote, named)


def language_threads(
    session: Session,
    viewer: User,
    language: str,
    state: State | None = None,
    *,
    mine: bool = False,
    page: int = 1,
    per_page: int = PER_PAGE,
) -> ThreadPage:
    """One page of the threads of a language (open, resolved or both), oldest first; `mine`: only
    those the viewer opened or wrote in. Only maintainers and reviewers of the language may list
    them. A page past the last is empty."""
    check_page(page, per_page)
    if not _may_take_part(session, viewer, language):
        raise Forbidden(NOT_REVIEWING, params={"language": language})
    query = _roots_query(language, state)
    if mine:
        query = query.where(Comment.id.in_(_participated(viewer)))
    matched = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    roots = list(session.scalars(query.order_by(Comment.id).offset(page_offset(page, per_page)).limit(per_page)))
    return {
        "threads": _records(session, roots, viewer),
        "matched": matched,
        "page": page,
        "pages": page_count(matched, per_page),
        "per_page": per_page,
    }


def get_thread(session: Session, viewer: User, language: str, comment_id: int) -> ThreadRecord:
    """One thread (by its opening comment's id or one of its replies' ids) with its latest replies."""
    root = _opening(session, viewer, language, comment_id)
    return _records(session, [root], viewer)[0]


def thread_page(
    session: Session, viewer: User, language: str, comment_id: int, page: int = 1, per_page: int = PER_PAGE
) -> ReplyPage:
    """One thread with one page of its replies, oldest first (a page past the last has none)."""
    check_page(page, per_page)
    root = _opening(session, viewer, language, comment_id)
    rows, count = _page_of_replies(session, root, page, per_page)
    thread = _records(session, [root], viewer, (rows, {root.id: count}))[0]
    return {"thread": thread, "page": page, "pages": page_count(count, per_page), "per_page": per_page}


def item_threads(
    session: Session, user: User, language: str, relation: str, template_id: int
) -> tuple[list[ThreadRecord], list[ThreadRecord]]:
    """What the review screen shows under an item: the threads on its template, and those on its
    relation as a whole, that `user` opened or wrote in — each with its latest replies and state;
    the newest MAX_PER_PAGE of them at most (the item's JSON stays bounded), oldest first."""
    query = (
        _roots_query(language, None)
        .where(Comment.relation_id == relation, Comment.id.in_(_participated(user)))
        .where(or_(Comment.template_id == template_id, Comment.template_id.is_(None)))
        .order_by(Comment.id.desc())
        .limit(MAX_PER_PAGE)
    )
    threads = _records(session, list(session.scalars(query))[::-1], user)
    return (
        [t for t in threads if t["template_id"] == template_id],
        [t for t in threads if t["template_id"] is None],
    )


def open_thread_counts(session: Session) -> dict[str, int]:
    """{language: open threads} for the dashboard (languages with none left out)."""
    rows = session.execute(
        select(Comment.language, func.count())
        .where(Comment.parent_id.is_(None), Comment.retracted.is_(False), Comment.resolved_at.is_(None))
        .group_by(Comment.language)
    )
    return dict(rows.all())

"""@mentions in comment threads (issue 37 §5).

The rule, one for every page, the API and the e-mails: `@` followed by a person's handle, where
the handle is the part of their e-mail address before the `@` (ana for ana@example.org), or the
whole address when two active accounts share that part (`@ana@example.org`). Letters and digits
of any script, `.`, `_`, `+` and `-` make up a handle; a final `.` is the sentence's. Case does
not matter. The `@` must not follow a letter or digit, so an address written in a comment
(ana@example.org) mentions nobody. A handle that names no active account, or several, is plain
text: no error, nobody notified.

A mention notifies the person only when they may read the thread: a maintainer, or a reviewer
currently assigned the thread's language (review.readers, the one rule) — never the author, and
never someone who would learn of a thread they cannot open. Each person is notified once per
comment however often it names them. Being mentioned brings the thread to the person as if they
had written in it (`threads.item_threads`, the history page).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TypedDict

from sqlalchemy import Select, func, select, update
from sqlalchemy.orm import Session

from curator.core.enums import Role
from curator.core.errors import NotFound
from curator.core.models import Assignment, Comment, Mention, User
from curator.core.models.base import utcnow, valid_id
from curator.review.accounts import author_name
from curator.review.readers import Account, may_read, readable_by

# a handle: word characters of any script, . _ + -, optionally @ and a domain (the whole address)
TOKEN = re.compile(r"(?<![\w@])@([\w.+-]+(?:@[\w-]+(?:\.[\w-]+)+)?)")


def handles(text: str) -> list[tuple[int, int, str]]:
    """(start, end, handle lower-cased) of each `@handle` in `text`, the `@` included in the
    span; a final `.` (or several) is left out."""
    found = []
    for match in TOKEN.finditer(text):
        handle = match.group(1)
        if "@" not in handle:
            handle = handle.rstrip(".")
        if not handle or handle in (".", "+", "-"):
            continue
        found.append((match.start(), match.start() + 1 + len(handle), handle.lower()))
    return found


def resolve(handle: str, accounts: Sequence[Account]) -> Account | None:
    """The one active account `handle` names (see the module's rule), else None."""
    if "@" in handle:
        return next((a for a in accounts if a.email.lower() == handle), None)
    named = [a for a in accounts if a.email.lower().split("@", 1)[0] == handle]
    return named[0] if len(named) == 1 else None


def recipients(text: str, author_id: int, language: str, accounts: Sequence[Account]) -> list[int]:
    """The ids of the people a comment in `language` by `author_id` notifies, in order of first
    mention, each once."""
    out: list[int] = []
    for _start, _end, handle in handles(text):
        account = resolve(handle, accounts)
        if account is None or account.id == author_id or not may_read(account, language):
            continue
        if account.id not in out:
            out.append(account.id)
    return out


def active_accounts(session: Session) -> list[Account]:
    """Every active account with the languages assigned to it now (a few hundred rows at most)."""
    users = session.execute(select(User.id, User.email, User.role).where(User.active.is_(True))).all()
    assigned: dict[int, set[str]] = {}
    for user_id, code in session.execute(
        select(Assignment.user_id, Assignment.language).where(Assignment.unassigned_at.is_(None))
    ):
        assigned.setdefault(user_id, set()).add(code)
    return [
        Account(uid, email, role == Role.MAINTAINER.value, frozenset(assigned.get(uid, ())))
        for uid, email, role in users
    ]


def record(session: Session, comment: Comment) -> list[Mention]:
    """Store the mentions of a comment or reply just written (in its unit of work)."""
    if "@" not in comment.text:
        return []
    ids = recipients(comment.text, comment.user_id, comment.language, active_accounts(session))
    rows = [Mention(comment_id=comment.id, user_id=uid) for uid in ids]
    session.add_all(rows)
    session.flush()
    return rows


def stored_accounts(session: Session, comment_ids: Iterable[int]) -> dict[int, list[Account]]:
    """{comment id: the accounts its stored `Mention` rows name} (comments without any left
    out): what `record` decided when the comment was written, the only mentions a page shows."""
    ids = {i for i in comment_ids if valid_id(i)}
    if not ids:
        return {}
    out: dict[int, list[Account]] = {}
    for comment_id, uid, email in session.execute(
        select(Mention.comment_id, User.id, User.email)
        .join(User, User.id == Mention.user_id)
        .where(Mention.comment_id.in_(ids))
    ):
        out.setdefault(comment_id, []).append(Account(uid, email, False, frozenset()))
    return out


def marked(text: str, mentioned: Sequence[Account]) -> list[tuple[int, int]]:
    """The (start, end) spans of the @handles in `text` that name one of the people the comment
    mentions (its stored rows, `stored_accounts`): the handles a page highlights. Any other
    handle — the author, an unknown name, someone who cannot read the thread — stays plain
    text, so a page never tells which accounts exist."""
    if not mentioned:
        return []
    return [(start, end) for start, end, handle in handles(text) if resolve(handle, mentioned) is not None]


def handle_of(account: Account, accounts: Sequence[Account]) -> str:
    """The handle that names `account` among `accounts`: the part of its address before the @,
    or the whole address when that part is shared (`resolve`'s rule read backwards)."""
    local = account.email.lower().split("@", 1)[0]
    return local if resolve(local, accounts) == account else account.email.lower()


def reader_handles(session: Session, language: str, viewer_id: int) -> list[str]:
    """The handles of the people a comment in `language` can mention (those who may read its
    threads, review.readers), the viewer left out, sorted: the hint beside a comment box."""
    accounts = active_accounts(session)
    return sorted(handle_of(a, accounts) for a in accounts if a.id != viewer_id and may_read(a, language))


# ---------------------------------------------------------------- notifications
class MentionRecord(TypedDict):
    id: int
    comment: int
    thread: int  # the opening comment's id
    language: str
    relation: str
    author: str  # as accounts.author_name
    text: str
    created_at: str
    read: bool


def _visible(user: User) -> Select[Mention, Comment, User]:
    """Mentions of `user` in standing comments of threads they may still read."""
    query = (
        select(Mention, Comment, User)
        .join(Comment, Comment.id == Mention.comment_id)
        .join(User, User.id == Comment.user_id)
        .where(Mention.user_id == user.id, Comment.retracted.is_(False))
    )
    return query.where(readable_by(user, Comment.language))


def notifications(session: Session, user: User, read_shown: int = 10) -> list[MentionRecord]:
    """The user's unread mentions, newest first, then the latest `read_shown` read ones."""
    unread = session.execute(_visible(user).where(Mention.read_at.is_(None)).order_by(Mention.id.desc())).all()
    read = session.execute(
        _visible(user).where(Mention.read_at.is_not(None)).order_by(Mention.id.desc()).limit(read_shown)
    ).all()
    return [
        {
            "id": m.id,
            "comment": c.id,
            "thread": c.parent_id or c.id,
            "language": c.language,
            "relation": c.relation_id,
            "author": author_name(author),
            "text": c.text,
            "created_at": c.created_at.isoformat(timespec="seconds"),
            "read": m.read_at is not None,
        }
        for m, c, author in [*unread, *read]
    ]


def unread_count(session: Session, user: User) -> int:
    query = _visible(user).where(Mention.read_at.is_(None)).with_only_columns(func.count(Mention.id))
    return session.scalar(query) or 0


def get_mention(session: Session, user: User, mention_id: int) -> MentionRecord:
    """One of the user's visible mentions (NotFound for anyone else's)."""
    found = [r for r in notifications(session, user, read_shown=10**6) if r["id"] == mention_id]
    if not valid_id(mention_id) or not found:
        raise NotFound("no such mention")
    return found[0]


def mark_read(session: Session, user: User, mention_id: int | None = None) -> int:
    """Mark one of the user's mentions (or, None, all of them) read; the number marked."""
    query = update(Mention).where(Mention.user_id == user.id, Mention.read_at.is_(None))
    if mention_id is not None:
        if not valid_id(mention_id):
            raise NotFound("no such mention")
        query = query.where(Mention.id == mention_id)
    done = session.execute(query.values(read_at=utcnow())).rowcount  # type: ignore[attr-defined]
    return int(done or 0)


class MentionMail(TypedDict):
    id: int
    to: str
    author: str
    language: str
    text: str
    locale: str | None  # the reader's interface language (users.locale), if they chose one


def unmailed(session: Session, comment_id: int) -> list[MentionMail]:
    """The mentions of a comment not e-mailed yet, to active accounts."""
    rows = session.execute(
        select(Mention, User, Comment)
        .join(User, User.id == Mention.user_id)
        .join(Comment, Comment.id == Mention.comment_id)
        .where(Mention.comment_id == comment_id, Mention.mailed_at.is_(None), User.active.is_(True))
        .order_by(Mention.id)
    ).all()
    authors = {c.user_id for _m, _u, c in rows}
    names = {u.id: author_name(u) for u in session.scalars(select(User).where(User.id.in_(authors)))}
    return [
        {
            "id": m.id,
            "to": u.email,
            "author": names[c.user_id],
            "language": c.language,
            "text": c.text,
            "locale": u.locale,
        }
        for m, u, c in rows
    ]


def mark_mailed(session: Session, mention_id: int) -> None:
    session.execute(update(Mention).where(Mention.id == mention_id).values(mailed_at=utcnow()))

"""Who may read (and take part in) a comment thread: the one rule of every page, the API, the
notifications and the e-mails — a maintainer, or a reviewer currently assigned the thread's
language (an unassigned language is closed to them; their old posts stay).

`readable_by` is the rule as an SQL condition on a language column (or a language value): the
threads, the mentions a person is shown and the replies waiting for them all filter with it.
`may_read` is its pure twin over `Account` (review.mentions), for deciding who a comment
notifies among the accounts already loaded; tests/web/test_mention_mail_fixes.py holds them equal.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, SQLColumnExpression, literal, select, true
from sqlalchemy.orm import Session

from curator.core.models import Assignment, User


@dataclass(frozen=True)
class Account:
    """What the rule (and the mention rule) needs of an account."""

    id: int
    email: str
    maintainer: bool
    languages: frozenset[str]  # assigned now (not unassigned)


def readable_by(user: User, language: SQLColumnExpression[str] | str) -> ColumnElement[bool]:
    """True where `user` may read a thread in `language` (a column, or one code)."""
    if user.is_maintainer:
        return true()
    column = literal(language) if isinstance(language, str) else language
    return column.in_(
        select(Assignment.language).where(Assignment.user_id == user.id, Assignment.unassigned_at.is_(None))
    )


def may_read_language(session: Session, user: User, language: str) -> bool:
    """`readable_by` for one language, asked of the database."""
    return bool(session.scalar(select(readable_by(user, language))))


def may_read(account: Account, language: str) -> bool:
    """The pure twin of `readable_by`."""
    return account.maintainer or language in account.languages

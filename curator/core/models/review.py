"""Reviewers, their samples and every decision they make (history is never overwritten)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy import false as sa_false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from curator.core.enums import DecisionSource, Role
from curator.core.models.base import Base, utcnow


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    name: Mapped[str] = mapped_column(String(200), default="")
    password_hash: Mapped[str | None] = mapped_column(String(300))  # None: cannot sign in yet
    role: Mapped[str] = mapped_column(String(20), default="reviewer")  # reviewer | maintainer
    api_token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    active: Mapped[bool] = mapped_column(default=True)
    locale: Mapped[str | None] = mapped_column(String(16))  # interface language; None: the browser's

    assignments: Mapped[list[Assignment]] = relationship(back_populates="user", order_by="Assignment.language")

    # Flask-Login protocol
    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def is_active(self) -> bool:
        return self.active

    @property
    def is_anonymous(self) -> bool:
        return False

    # set at sign-in or by the web app's user loader: "user_id:secret" of the LoginSession this
    # request runs under; Flask-Login keeps it in the session and the remember cookie, so a
    # revoked login session turns both cookies into nothing (see review.accounts)
    # not a column: a plain annotation in the class body would be read as one by SQLAlchemy's
    # declarative mapping, so the type is given to the type checker alone
    if TYPE_CHECKING:
        login_session: str | None
        stale_login_session: int | None  # the row whose stored last use is a minute old (issue 38 §2)
    else:
        login_session = None
        stale_login_session = None

    def get_id(self) -> str:
        return self.login_session or f"{self.id}:"  # no login session: a loader refuses it

    @property
    def is_maintainer(self) -> bool:
        return self.role == Role.MAINTAINER


class LoginSession(Base):
    """One sign-in (a browser): its secret lives only in the cookie, its sha256 here, so that
    signing out or changing the password revokes it on the server, not just in the browser."""

    __tablename__ = "login_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None]
    # issue 38 §2: when a request last used it (kept to the minute) and whether "remember me" was
    # ticked — the idle limits (CURATOR_SESSION_IDLE, CURATOR_REMEMBER_DAYS) read both
    last_seen_at: Mapped[datetime | None]
    remember: Mapped[bool] = mapped_column(default=False, server_default=sa_false())


class Invite(Base):
    __tablename__ = "invites"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 of the secret in the link
    email: Mapped[str | None] = mapped_column(String(320))
    role: Mapped[str] = mapped_column(String(20), default="reviewer")
    languages: Mapped[list[str]] = mapped_column(JSON, default=list)
    fraction: Mapped[float | None]
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    used_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    revoked_at: Mapped[datetime | None]  # a maintainer withdrew the link


class Assignment(Base):
    """A reviewer's work in one language: a reproducible sample of its candidates."""

    __tablename__ = "assignments"
    __table_args__ = (UniqueConstraint("user_id", "language"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"))
    fraction: Mapped[float]
    seed: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    guidelines_seen_at: Mapped[datetime | None]  # None: show the guidelines before the first item
    # the maintainers trust this reviewer in this language: their amendments and suggestions
    # count as confirmed (mParaRel's case: one native speaker per language)
    trusted: Mapped[bool] = mapped_column(default=False)
    # taken off the language by a maintainer: hidden from the reviewer, decisions kept and
    # counted; assigning the language again clears it and the same sample comes back
    unassigned_at: Mapped[datetime | None]

    user: Mapped[User] = relationship(back_populates="assignments")


class AssignmentItem(Base):
    __tablename__ = "assignment_items"
    __table_args__ = (UniqueConstraint("assignment_id", "template_id"), UniqueConstraint("assignment_id", "position"))

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), index=True)
    template_id: Mapped[int] = mapped_column(ForeignKey("templates.id"))
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"))
    position: Mapped[int]  # review order: relation by relation
    extra: Mapped[bool] = mapped_column(default=False)  # added by an import, not by sampling
    # a second-look item whose proposal was withdrawn, undone or edited away (issue 36 §4): out of
    # the queue and the progress from then on; the decisions made on it stay in history
    retired_at: Mapped[datetime | None] = mapped_column(default=None)


class Decision(Base):
    """One accept / amend / reject / unsure (a reject or an unsure with an optional reason). A
    later decision on the same item supersedes it; an undo retracts it. Rows are never deleted."""

    __tablename__ = "decisions"
    __table_args__ = (
        UniqueConstraint("user_id", "request_id"),
        UniqueConstraint("user_id", "undo_request_id"),
        Index("ix_decisions_item_current", "item_id", "retracted"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("assignment_items.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    template_id: Mapped[int] = mapped_column(ForeignKey("templates.id"), index=True)
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"))
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"))
    decision: Mapped[str] = mapped_column(String(10))  # accept | amend | reject | unsure
    correction_raw: Mapped[str | None] = mapped_column(String(2000))
    correction: Mapped[str | None] = mapped_column(String(2000))  # cleaned
    # why, in the reviewer's words (reject and unsure only): surrounding blanks trimmed, else as typed
    reason: Mapped[str | None] = mapped_column(String(2000))
    seconds: Mapped[float | None]  # time spent on the item
    source: Mapped[str] = mapped_column(String(20), default=DecisionSource.WEB.value)  # DecisionSource
    request_id: Mapped[str | None] = mapped_column(String(64))  # client key: a resend is a no-op
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    retracted: Mapped[bool] = mapped_column(default=False)
    retracted_at: Mapped[datetime | None]
    # the client key of the undo that retracted it: an undo sent again after a lost answer is a no-op
    undo_request_id: Mapped[str | None] = mapped_column(String(64))


class Suggestion(Base):
    __tablename__ = "suggestions"
    __table_args__ = (UniqueConstraint("user_id", "request_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"))
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"))
    text_raw: Mapped[str] = mapped_column(String(2000))
    text: Mapped[str] = mapped_column(String(2000))  # cleaned
    source: Mapped[str] = mapped_column(String(20), default=DecisionSource.WEB.value)
    request_id: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    retracted: Mapped[bool] = mapped_column(default=False)


class Comment(Base):
    """A reviewer's free-text note on one template (template_id set) or on a whole relation
    (template_id None), for the maintainers. Withdrawn comments are kept, marked retracted."""

    __tablename__ = "comments"
    __table_args__ = (
        UniqueConstraint("user_id", "request_id"),
        Index("ix_comments_language_relation", "language", "relation_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"))
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"))
    template_id: Mapped[int | None] = mapped_column(ForeignKey("templates.id"), index=True)
    text: Mapped[str] = mapped_column(String(2000))
    source: Mapped[str] = mapped_column(String(20), default=DecisionSource.WEB.value)
    request_id: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    retracted: Mapped[bool] = mapped_column(default=False)
    retracted_at: Mapped[datetime | None]
    # threads: a reply points at the comment that opened its thread (None: it opens one); only
    # the opening comment is resolved or reopened
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("comments.id"), index=True)
    resolved_at: Mapped[datetime | None]
    resolved_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))


class Mention(Base):
    """`@handle` in a comment or a reply naming someone who may read its thread
    (review.mentions): a notification on their home page until they mark it read, and an
    e-mail when configured (`mailed_at`)."""

    __tablename__ = "mentions"
    __table_args__ = (
        UniqueConstraint("comment_id", "user_id"),
        Index("ix_mentions_user_read", "user_id", "read_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    comment_id: Mapped[int] = mapped_column(ForeignKey("comments.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    read_at: Mapped[datetime | None]
    mailed_at: Mapped[datetime | None]


class Guideline(Base):
    """A language's review guidelines as its maintainers wrote them; a language without a row
    gets the default text shipped with the package (curator/review/guidelines.py)."""

    __tablename__ = "guidelines"

    language: Mapped[str] = mapped_column(ForeignKey("languages.code"), primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    updated_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ContextLanguage(Base):
    """A language whose accepted templates a reviewer wants beside each review item (the review
    screen's "Other languages" panel), in the order they chose; remembered per account."""

    __tablename__ = "context_languages"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"), primary_key=True)
    position: Mapped[int] = mapped_column(default=0)

"""What maintainers decide about the reviewers' work, and what they did (issue 28): their answers
to proposals, their resolutions of disagreements, the lines they drop from a release, one-time
password-reset links and the requests for one, and the activity log of every maintainer action.
Rows are never deleted: a later row supersedes an earlier one, and an undo is a row (or a
timestamp) of its own."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from curator.core.models.base import Base, utcnow


class ProposalReview(Base):
    """A maintainer's answer to a proposed text of a language and relation (an amendment's
    correction or a suggestion, keyed by its text as the merge adds it): confirm or drop. The
    latest row for a text is the one that counts. Editing a proposal drops the old text and
    confirms the new one (`edited_to` on the drop, `edited_from` on the confirmation)."""

    __tablename__ = "proposal_reviews"
    __table_args__ = (Index("ix_proposal_reviews_text", "language", "relation_id", "text"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"))
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"))
    text: Mapped[str] = mapped_column(String(2000))  # cleaned, as the merge adds it
    verdict: Mapped[str] = mapped_column(String(10))  # ProposalVerdict
    edited_from: Mapped[str | None] = mapped_column(String(2000))
    edited_to: Mapped[str | None] = mapped_column(String(2000))
    reason: Mapped[str] = mapped_column(String(2000), default="")
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Resolution(Base):
    """A maintainer's resolution of one template the reviewers disagree on: a verdict of its own
    kind (accept, amend with a correction, reject) with a reason. The latest unretracted one per
    template overrides the reviewers' decisions under every merge policy; agreement statistics
    never count it (they compare the reviewers' own decisions)."""

    __tablename__ = "resolutions"

    id: Mapped[int] = mapped_column(primary_key=True)
    template_id: Mapped[int] = mapped_column(ForeignKey("templates.id"), index=True)
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"))
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"))
    verdict: Mapped[str] = mapped_column(String(10))  # accept | amend | reject (DecisionKind)
    correction: Mapped[str | None] = mapped_column(String(2000))  # cleaned; amend only
    reason: Mapped[str] = mapped_column(String(2000))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    retracted: Mapped[bool] = mapped_column(default=False)
    retracted_at: Mapped[datetime | None]


class LineDrop(Base):
    """One line a maintainer took out of the releases built from reviews (from the preview), with
    the reason; every later `build --from-review` leaves it out and records it in the version,
    until restored (`restored_at`)."""

    __tablename__ = "line_drops"
    __table_args__ = (Index("ix_line_drops_line", "language", "relation_id", "pattern"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"))
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"))
    pattern: Mapped[str] = mapped_column(String(2000))
    reason: Mapped[str] = mapped_column(String(2000))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    restored_at: Mapped[datetime | None]
    restored_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))


class PasswordReset(Base):
    """A one-time, expiring password-reset link a maintainer made for an account (like an
    invitation: only the sha256 of the link's secret is stored)."""

    __tablename__ = "password_resets"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))  # None: from the CLI
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]


class ResetRequest(Base):
    """A "Forgot password?" request made where the app sends no e-mail: the account asks the
    maintainers of its languages, in the app, for a password-reset link (review.reset_requests).
    One open row per account (asking again refreshes it); closed (`closed_at`) when a maintainer
    or the command line makes a reset link for the account, or a maintainer dismisses it."""

    __tablename__ = "reset_requests"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    note: Mapped[str] = mapped_column(String(500), default="")  # the asker's own words, optional
    asked_at: Mapped[datetime] = mapped_column(default=utcnow)  # the latest ask
    closed_at: Mapped[datetime | None]
    closed_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))  # None: the command line
    outcome: Mapped[str | None] = mapped_column(String(10))  # "link" | "dismissed"


class ActivityEntry(Base):
    """One maintainer action, with who and when (`curator.review.activity.record`)."""

    __tablename__ = "activity"

    id: Mapped[int] = mapped_column(primary_key=True)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)  # None: the command line
    action: Mapped[str] = mapped_column(String(40), index=True)  # Activity
    language: Mapped[str | None] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(500), default="")  # what it was done to, in words
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)

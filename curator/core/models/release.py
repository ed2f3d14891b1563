"""Dataset versions: frozen snapshots of patterns plus references to tuple lists."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, UniqueConstraint, event
from sqlalchemy.orm import Mapped, Session, UOWTransaction, mapped_column, relationship

from curator.core.errors import Conflict
from curator.core.models.base import Base, utcnow


class DatasetVersion(Base):
    __tablename__ = "dataset_versions"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("dataset_versions.id"))
    kind: Mapped[str] = mapped_column(String(20))  # candidates | import | review
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    source: Mapped[str | None] = mapped_column(String(1000))

    parent: Mapped[DatasetVersion | None] = relationship(remote_side=[id])


class VersionPattern(Base):
    __tablename__ = "version_patterns"
    __table_args__ = (UniqueConstraint("version_id", "language", "relation_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    version_id: Mapped[int] = mapped_column(ForeignKey("dataset_versions.id", ondelete="CASCADE"))
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"))
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"))
    position: Mapped[int]
    pattern: Mapped[str] = mapped_column(String(2000))
    checked_by_human: Mapped[bool] = mapped_column(default=False)
    template_id: Mapped[int | None] = mapped_column(ForeignKey("templates.id"))


class VersionTuples(Base):
    __tablename__ = "version_tuples"

    version_id: Mapped[int] = mapped_column(ForeignKey("dataset_versions.id", ondelete="CASCADE"), primary_key=True)
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"), primary_key=True)
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"), primary_key=True)
    list_id: Mapped[int] = mapped_column(ForeignKey("tuple_lists.id"))


class ImmutableVersionError(Conflict):
    """Raised on any attempt to change a stored dataset version."""


@event.listens_for(Session, "before_flush")
def _refuse_version_edits(session: Session, _context: UOWTransaction, _instances: object) -> None:
    """A clear error before the database triggers (migration 0004) would refuse it anyway."""
    for obj in list(session.dirty) + list(session.deleted):
        if isinstance(obj, (DatasetVersion, VersionPattern, VersionTuples)) and (
            obj in session.deleted or session.is_modified(obj)
        ):
            raise ImmutableVersionError(
                f"dataset versions are immutable: a {type(obj).__name__} cannot change; build a new version instead"
            )

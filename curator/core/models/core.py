"""What every stage shares: languages, relations, the English source and import provenance."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from curator.core.models.base import Base, utcnow


class Language(Base):
    __tablename__ = "languages"

    code: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str | None] = mapped_column(String(100))
    review_fraction: Mapped[float | None]  # share of each relation's candidates a reviewer samples
    queue_order: Mapped[str] = mapped_column(String(10), default="random", server_default="random")  # or "risk"
    # the merge policy of this language's releases (issue 36 §3); None: the project's (ProjectSetting)
    merge_policy: Mapped[str | None] = mapped_column(String(10), default=None)


class ProjectSetting(Base):
    """A project-wide setting a maintainer stores (issue 36 §3: `merge_policy`), one row per key."""

    __tablename__ = "project_settings"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))
    updated_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class Relation(Base):
    __tablename__ = "relations"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # Wikidata property id, e.g. P19
    lemma: Mapped[str | None] = mapped_column(String(200))  # lemma of its first English pattern
    description: Mapped[str | None] = mapped_column(String(500))

    patterns: Mapped[list[EnglishPattern]] = relationship(back_populates="relation", order_by="EnglishPattern.position")


class EnglishPattern(Base):
    """One ParaRel paraphrase; translations point back to it."""

    __tablename__ = "english_patterns"
    __table_args__ = (UniqueConstraint("relation_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"), index=True)
    position: Mapped[int]  # 0-based line in <REL>.jsonl
    pattern: Mapped[str] = mapped_column(String(500))
    lemma: Mapped[str | None] = mapped_column(String(200))
    extended_lemma: Mapped[str | None] = mapped_column(String(200))
    tense: Mapped[str | None] = mapped_column(String(50))

    relation: Mapped[Relation] = relationship(back_populates="patterns")


class TranslationSystem(Base):
    __tablename__ = "translation_systems"

    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    trusted: Mapped[bool] = mapped_column(default=False)  # its vote counts twice


class SourceFile(Base):
    """Provenance of every imported file; its hash makes re-imports idempotent."""

    __tablename__ = "source_files"
    __table_args__ = (UniqueConstraint("kind", "key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))  # pararel | translations | tuples
    key: Mapped[str] = mapped_column(String(300))  # e.g. pararel_bing/es/P19
    location: Mapped[str] = mapped_column(String(1000))  # path or URL it came from
    sha256: Mapped[str] = mapped_column(String(64))
    rows: Mapped[int]
    imported_at: Mapped[datetime] = mapped_column(default=utcnow)
    details: Mapped[dict[str, Any] | None] = mapped_column(JSON)

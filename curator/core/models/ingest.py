"""Raw machine translations and the candidate templates voted from them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, ColumnElement, ForeignKey, Index, String, UniqueConstraint, and_
from sqlalchemy.orm import Mapped, mapped_column

from curator.core.models.base import Base
from curator.core.models.core import EnglishPattern


class TranslationLine(Base):
    """One line of one system's output, kept whether or not it validated."""

    __tablename__ = "translation_lines"
    __table_args__ = (
        UniqueConstraint("system", "language", "relation_id", "line_no"),
        Index("ix_translation_lines_lang_rel", "language", "relation_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    system: Mapped[str] = mapped_column(ForeignKey("translation_systems.name"))
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"))
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"))
    line_no: Mapped[int]  # 0-based line in the system's file
    english_pattern_id: Mapped[int | None] = mapped_column(ForeignKey("english_patterns.id"))
    raw: Mapped[str] = mapped_column(String(2000))
    repaired: Mapped[str] = mapped_column(String(2000))
    repairs: Mapped[list[dict[str, str]]] = mapped_column(JSON, default=list)  # [{"from", "to", "rule"}]
    cleaned: Mapped[str | None] = mapped_column(String(2000))  # None when invalid
    valid: Mapped[bool]
    reason: Mapped[str | None] = mapped_column(String(300))


class Template(Base):
    """A distinct cleaned template of a language and relation, with its votes.

    Rows are upserted by text so their ids stay stable for reviews that refer to them.
    """

    __tablename__ = "templates"
    __table_args__ = (UniqueConstraint("language", "relation_id", "text"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"))
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"))
    text: Mapped[str] = mapped_column(String(2000))
    systems: Mapped[list[str]] = mapped_column(JSON, default=list)  # distinct voters, sorted
    votes: Mapped[int] = mapped_column(default=0)  # trusted system counted twice
    first_position: Mapped[int] = mapped_column(default=0)  # earliest English pattern it translates
    repaired: Mapped[bool] = mapped_column(default=False)  # some voter's line needed a repair
    is_candidate: Mapped[bool] = mapped_column(default=False, index=True)


def first_english(template: type[Template] = Template) -> ColumnElement[bool]:
    """The join of a template to the English pattern it translates: the earliest one it was voted
    from (`first_position`; a proposal's is the relation's first). The one rule every stage reads
    (review screen, find, memory, quality signals)."""
    return and_(EnglishPattern.relation_id == template.relation_id, EnglishPattern.position == template.first_position)


class RelationCoverage(Base):
    """Whether a relation is usable in a language (§2), as of the last `candidates build`."""

    __tablename__ = "relation_coverage"

    language: Mapped[str] = mapped_column(ForeignKey("languages.code"), primary_key=True)
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"), primary_key=True)
    candidates: Mapped[int]
    tuples: Mapped[int]
    usable: Mapped[bool]


class LanguageCoverage(Base):
    __tablename__ = "language_coverage"

    language: Mapped[str] = mapped_column(ForeignKey("languages.code"), primary_key=True)
    usable_relations: Mapped[int]
    relation_share: Mapped[float]
    phrases: Mapped[int]
    phrase_share: Mapped[float]
    included: Mapped[bool]
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class MlamaTemplate(Base):
    """mLAMA's template of a relation in a language (`curator ingest mlama`).

    The published mParaRel added it to the agreed MT templates when none of them equalled it,
    so the `mpararel` rule profile needs it to reproduce the published sets exactly.
    """

    __tablename__ = "mlama_templates"

    language: Mapped[str] = mapped_column(ForeignKey("languages.code"), primary_key=True)
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"), primary_key=True)
    template: Mapped[str] = mapped_column(String(2000))


class XfactrTemplate(Base):
    """X-FACTR's native-speaker prompt of a relation in a language (`curator ingest xfactr`), cleaned
    (annotations kept whole): a candidate template of its own source, "X-FACTR", beside the MT
    systems' votes (the curator rule profile adds it to the candidates; docs/ingest.md). Prompts
    whose annotation cannot be filled here are not stored: the command lists them and the
    `SourceFile` row of the import keeps them in its details."""

    __tablename__ = "xfactr_templates"

    language: Mapped[str] = mapped_column(ForeignKey("languages.code"), primary_key=True)
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"), primary_key=True)
    template: Mapped[str] = mapped_column(String(2000))  # cleaned, annotations kept
    raw: Mapped[str] = mapped_column(String(2000))  # as the CSV holds it

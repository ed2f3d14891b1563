"""Entities and subject/object tuples.

Tuples live in immutable, content-addressed lists (one per language and relation and
content), so an ingest and every dataset version can share them without copying a
million rows, and a released version never changes under its users.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from curator.core.models.base import Base


class Entity(Base):
    __tablename__ = "entities"

    qid: Mapped[str] = mapped_column(String(32), primary_key=True)  # Wikidata id, e.g. Q142


class EntityLabel(Base):
    """The first label seen for an entity in a language."""

    __tablename__ = "entity_labels"

    qid: Mapped[str] = mapped_column(ForeignKey("entities.qid"), primary_key=True)
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"), primary_key=True)
    label: Mapped[str] = mapped_column(String(1000))


class TupleList(Base):
    __tablename__ = "tuple_lists"
    __table_args__ = (
        UniqueConstraint("language", "relation_id", "sha256"),
        Index("ix_tuple_lists_current", "language", "relation_id", "current"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"))
    relation_id: Mapped[str] = mapped_column(ForeignKey("relations.id"))
    sha256: Mapped[str] = mapped_column(String(64))
    rows: Mapped[int]  # usable rows (not from_english)
    form: Mapped[str] = mapped_column(String(10))  # clean | raw
    current: Mapped[bool] = mapped_column(default=False)  # the one `ingest tuples` last loaded


class Tuple(Base):
    __tablename__ = "tuples"
    __table_args__ = (UniqueConstraint("list_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    list_id: Mapped[int] = mapped_column(ForeignKey("tuple_lists.id", ondelete="CASCADE"))
    position: Mapped[int]
    sub_qid: Mapped[str] = mapped_column(ForeignKey("entities.qid"))
    obj_qid: Mapped[str] = mapped_column(ForeignKey("entities.qid"))
    sub_label: Mapped[str] = mapped_column(String(1000))
    obj_label: Mapped[str] = mapped_column(String(1000))
    lineid: Mapped[int | None]
    # Raw T-REx rows without a label in the language are kept but never used.
    from_english: Mapped[bool] = mapped_column(default=False)

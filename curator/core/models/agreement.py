"""What the agreement of a template's forms reads about an entity (issue 39 §2): its Wikidata
gender and its Wikidata classes ("instance of"), loaded from X-FACTR's files by
`curator ingest genders` and `curator ingest instanceof`. Keyed by entity id alone (not a foreign
key to `entities`): the files cover entities before, or without, any tuples naming them."""

from __future__ import annotations

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from curator.core.models.base import Base


class EntityGender(Base):
    """An entity's Wikidata "sex or gender" as X-FACTR's files give it: male, female or none
    (none: not a person, or a person without one)."""

    __tablename__ = "entity_genders"

    qid: Mapped[str] = mapped_column(String(32), primary_key=True)
    gender: Mapped[str] = mapped_column(String(8))


class EntityClass(Base):
    """One Wikidata class an entity is an instance of (P31), with the class's English label,
    which X-FACTR's per-language rules read ("country", "city", "human", …)."""

    __tablename__ = "entity_classes"

    qid: Mapped[str] = mapped_column(String(32), primary_key=True)
    class_qid: Mapped[str] = mapped_column(String(32), primary_key=True)
    label: Mapped[str] = mapped_column(String(500))

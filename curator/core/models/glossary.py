"""Each language's glossary: English terms and the translation maintainers prefer for them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from curator.core.models.base import Base, utcnow


class GlossaryTerm(Base):
    """An English term, its preferred translation in `language` and a note for reviewers.
    `term_key` is the term's folded form (core.folding): one entry per term and language
    however it is capitalised or accented."""

    __tablename__ = "glossary_terms"
    __table_args__ = (UniqueConstraint("language", "term_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"))
    term: Mapped[str] = mapped_column(String(200))
    term_key: Mapped[str] = mapped_column(String(200))
    translation: Mapped[str] = mapped_column(String(200))
    note: Mapped[str] = mapped_column(String(500), default="")
    updated_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

"""Each language's glossary: English terms and the translation maintainers prefer for them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from curator.core.models.base import Base, utcnow


class GlossaryTerm(Base):
    """An English term, its preferred translation in `language` and a note for reviewers.
    `term_key` is the term's folded form (core.folding): one entry per term and language
    however it is capitalised or accented. `translation_key` and `note_key` are the other two
    folded, for the glossary page's search in SQL; `match_key` is the term's `folding.lead`, for
    the review screen's look-up of the terms of one pattern (an index, not a scan)."""

    __tablename__ = "glossary_terms"
    __table_args__ = (
        UniqueConstraint("language", "term_key"),
        Index("ix_glossary_terms_match", "language", "match_key"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    language: Mapped[str] = mapped_column(ForeignKey("languages.code"))
    term: Mapped[str] = mapped_column(String(200))
    term_key: Mapped[str] = mapped_column(String(200))
    translation: Mapped[str] = mapped_column(String(200))
    note: Mapped[str] = mapped_column(String(500), default="")
    translation_key: Mapped[str] = mapped_column(Text, default="")
    note_key: Mapped[str] = mapped_column(Text, default="")
    match_key: Mapped[str] = mapped_column(Text, default="")
    updated_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

"""Quality signals per candidate template (SPEC §7): where reviewers' time is best spent."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from curator.core.models.base import Base, utcnow


class TemplateSignal(Base):
    """Signals that need a model to compute, kept apart from the template so that they can be
    recomputed (another back-translation system, a newer probe run) without touching it.
    MT agreement and repairs live on the template and its translation lines already."""

    __tablename__ = "template_signals"

    template_id: Mapped[int] = mapped_column(ForeignKey("templates.id", ondelete="CASCADE"), primary_key=True)
    back_translation: Mapped[str | None] = mapped_column(String(2000))
    english: Mapped[str | None] = mapped_column(String(500))  # the ParaRel pattern it was compared with
    similarity: Mapped[float | None]  # cosine(English pattern, back-translation)
    similarity_model: Mapped[str | None] = mapped_column(String(300))
    back_system: Mapped[str | None] = mapped_column(String(300))
    agreement: Mapped[float | None]  # share of (tuple, other template) predicting the same object
    relation_agreement: Mapped[float | None]  # the relation's mean agreement in that run
    probe_run: Mapped[str | None] = mapped_column(String(300))
    # issue 39 §2 (quality/gender_pairs.py): another candidate of the relation that differs from
    # this one only in gendered forms, and the two merged into one annotated template
    gender_twin: Mapped[str | None] = mapped_column(String(2000))
    gender_merged: Mapped[str | None] = mapped_column(String(2000))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

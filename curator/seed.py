"""Load the demo dataset in `seed/` through the same importers as real data."""
from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session

from .ingest.candidates import CandidateSummary, build_candidates
from .ingest.pararel import ingest_pararel
from .ingest.sources import FolderSource
from .ingest.translations import ingest_translations
from .ingest.tuples import ingest_tuples


def load_seed(session: Session, root: Path) -> CandidateSummary:
    ingest_pararel(session, FolderSource(root / "pararel" / "patterns"))
    ingest_translations(session, FolderSource(root / "translations"))
    ingest_tuples(session, FolderSource(root / "tuples"))
    return build_candidates(session)

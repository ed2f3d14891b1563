"""Load the demo dataset in `seed/` through the same importers as real data."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session

from curator.core.formats.sources import FolderSource
from curator.ingest.coverage import CandidateSummary, build_candidates
from curator.ingest.pararel import ingest_pararel
from curator.ingest.translations import ingest_translations
from curator.ingest.tuples import ingest_tuples

DEMO_USERS = (("maintainer@demo.invalid", "maintainer", ()), ("reviewer@demo.invalid", "reviewer", ("es", "ar")))


def load_seed(session: Session, root: Path) -> CandidateSummary:
    ingest_pararel(session, FolderSource(root / "pararel" / "patterns"))
    ingest_translations(session, FolderSource(root / "translations"))
    ingest_tuples(session, FolderSource(root / "tuples"))
    return build_candidates(session)


def create_demo_users(session: Session, password: str) -> list[str]:
    """Demo accounts so the app can be tried at once; created only if missing."""
    from curator.review.accounts import create_user, find_user
    from curator.review.sampling import assign

    created = []
    for email, role, languages in DEMO_USERS:
        if find_user(session, email) is None:
            user = create_user(session, email, password, role, name=role.title())
            for code in languages:
                assign(session, user, code)
            created.append(email)
    return created

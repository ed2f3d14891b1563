"""Small database helpers the importers share: idempotent upserts and provenance."""
from __future__ import annotations

import hashlib
from typing import Iterable

from sqlalchemy import Table, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from .. import languages
from ..models import Language, Relation, SourceFile

BATCH = 20_000


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def insert_ignore(session: Session, table: Table, rows: list[dict]) -> None:
    """INSERT … ON CONFLICT DO NOTHING, in batches, on SQLite or PostgreSQL."""
    if not rows:
        return
    dialect = session.get_bind().dialect.name
    module = {"sqlite": sqlite, "postgresql": postgresql}.get(dialect)
    stmt = module.insert(table).on_conflict_do_nothing() if module else insert(table).prefix_with("IGNORE")
    for start in range(0, len(rows), BATCH):
        session.execute(stmt, rows[start:start + BATCH])


def bulk_insert(session: Session, table: Table, rows: Iterable[dict]) -> int:
    batch: list[dict] = []
    count = 0
    for row in rows:
        batch.append(row)
        if len(batch) >= BATCH:
            session.execute(insert(table), batch)
            count += len(batch)
            batch = []
    if batch:
        session.execute(insert(table), batch)
        count += len(batch)
    return count


def ensure_languages(session: Session, codes: Iterable[str]) -> None:
    insert_ignore(session, Language.__table__,
                  [{"code": c, "name": languages.name(c)} for c in sorted(set(codes))])


def ensure_relations(session: Session, ids: Iterable[str]) -> None:
    insert_ignore(session, Relation.__table__, [{"id": r} for r in sorted(set(ids))])


def unchanged(session: Session, kind: str, key: str, digest: str) -> bool:
    known = session.scalar(select(SourceFile.sha256).where(SourceFile.kind == kind, SourceFile.key == key))
    return known == digest


def record_source(session: Session, kind: str, key: str, location: str, digest: str, rows: int,
                  details: dict | None = None) -> None:
    record = session.scalar(select(SourceFile).where(SourceFile.kind == kind, SourceFile.key == key))
    if record is None:
        record = SourceFile(kind=kind, key=key)
        session.add(record)
    record.location, record.sha256, record.rows, record.details = location, digest, rows, details
    session.flush()

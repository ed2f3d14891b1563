"""Import English ParaRel patterns: `<REL>.jsonl`, one paraphrase per line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from curator.core.errors import InputError
from curator.core.formats.jsonl import iter_jsonl, require
from curator.core.formats.layout import layout_files
from curator.core.formats.sources import Source
from curator.core.models import EnglishPattern, Relation, TranslationLine
from curator.core.progress import progress_bar
from curator.core.text import InvisibleTally, unstorable_reason
from curator.ingest.clean import check
from curator.ingest.store import SourceRecord, ensure_languages, ensure_relations, known_sources, record_sources, sha256

LAYOUT = "<REL>.jsonl"


@dataclass
class PararelSummary:
    relations: int = 0
    patterns: int = 0
    skipped_unchanged: int = 0
    invisible: InvisibleTally = field(default_factory=InvisibleTally)  # kept in patterns, reported


class _EnglishRow(TypedDict):
    """One line of a ParaRel patterns file, as stored (`EnglishPattern`)."""

    pattern: str
    lemma: str | None
    extended_lemma: str | None
    tense: str | None


def ingest_pararel(session: Session, source: Source, progress: bool = False) -> PararelSummary:
    summary = PararelSummary()
    files = layout_files(source, 0, LAYOUT)
    ensure_languages(session, ["en"])
    known = known_sources(session, "pararel")
    records: list[SourceRecord] = []
    for (rel,), path in progress_bar(files, "ParaRel", "file", progress):
        where = source.describe(path)
        data = source.read(path)
        digest = sha256(data)
        summary.relations += 1
        if known.get(rel) == digest:
            summary.skipped_unchanged += 1
            continue
        rows: list[_EnglishRow] = []
        for number, obj in iter_jsonl(data, where):
            pattern = require(obj, "pattern", str, where, number)
            unstorable = unstorable_reason(pattern)
            if unstorable:
                raise InputError(unstorable, location=where, line=number, field="pattern")
            summary.invisible.add(where, number, pattern)  # published data: kept and counted
            outcome = check(pattern, "en", keep_invisible=True)
            if not outcome.valid:
                raise InputError(
                    f"not a usable pattern ({outcome.reason}): {pattern!r}",
                    location=where,
                    line=number,
                    field="pattern",
                )
            rows.append(
                _EnglishRow(
                    pattern=pattern,
                    lemma=obj.get("lemma"),
                    extended_lemma=obj.get("extended_lemma"),
                    tense=obj.get("tense"),
                )
            )
        if not rows:
            raise InputError("empty file: no patterns", location=where)
        _store(session, rel, rows)
        records.append(SourceRecord(key=rel, location=where, sha256=digest, rows=len(rows)))
        summary.patterns += len(rows)
    record_sources(session, "pararel", records)
    return summary


def _store(session: Session, rel: str, rows: list[_EnglishRow]) -> None:
    """Update patterns in place by position so translation lines keep pointing at them."""
    ensure_relations(session, [rel])
    relation = session.get_one(Relation, rel)
    relation.lemma = rows[0]["lemma"]
    relation.description = rows[0]["pattern"]
    existing = {p.position: p for p in session.scalars(select(EnglishPattern).where(EnglishPattern.relation_id == rel))}
    for position, row in enumerate(rows):
        pattern = existing.get(position) or EnglishPattern(relation_id=rel, position=position)
        for key, value in row.items():
            setattr(pattern, key, value)
        session.add(pattern)
    gone = select(EnglishPattern.id).where(EnglishPattern.relation_id == rel, EnglishPattern.position >= len(rows))
    session.execute(
        update(TranslationLine).where(TranslationLine.english_pattern_id.in_(gone)).values(english_pattern_id=None)
    )
    session.execute(delete(EnglishPattern).where(EnglishPattern.id.in_(gone)))
    session.flush()

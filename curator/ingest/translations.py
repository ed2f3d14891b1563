"""Import raw MT output: `<system>/<lang>/<REL>.jsonl`, aligned line by line with ParaRel.

Each line is repaired, cleaned and validated on the way in and stored whatever the
outcome, so an invalid line stays visible with its reason.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import String, delete, select, update
from sqlalchemy.orm import Session

from curator.core import languages
from curator.core.errors import InputError
from curator.core.formats.jsonl import iter_jsonl, require
from curator.core.formats.layout import layout_files, refuse_duplicates
from curator.core.formats.sources import Source
from curator.core.models import EnglishPattern, Relation, TranslationLine, TranslationSystem
from curator.core.progress import progress_bar
from curator.ingest.clean import check
from curator.ingest.store import (
    SourceRecord,
    bulk_insert,
    ensure_languages,
    insert_ignore,
    known_sources,
    record_sources,
    sha256,
)

# (lemma, extended_lemma, tense) of a pattern: how a translated line is matched to its English one
Meta = tuple[str | None, str | None, str | None]

LAYOUT = "<system>/<lang>/<REL>.jsonl"
DEFAULT_TRUSTED = "pararel_bing"


@dataclass
class TranslationSummary:
    files: int = 0
    skipped_unchanged: int = 0
    lines: int = 0
    valid: int = 0
    repaired: int = 0
    systems: set[str] = field(default_factory=set)
    languages: set[str] = field(default_factory=set)
    reasons: Counter[str] = field(default_factory=Counter)


def align(english: list[EnglishPattern], metas: list[Meta]) -> list[int | None]:
    """Index of the English pattern each translated line renders.

    Files normally match ParaRel line for line; a few lost a line, so fall back to
    matching (lemma, extended_lemma, tense) as an ordered subsequence.
    """
    if len(metas) == len(english):
        return [p.id for p in english]
    result: list[int | None] = []
    j = 0
    for meta in metas:
        k = j
        while k < len(english) and (english[k].lemma, english[k].extended_lemma, english[k].tense) != meta:
            k += 1
        if k < len(english):
            result.append(english[k].id)
            j = k + 1
        else:
            result.append(None)
    return result


# The columns hold 2000 characters. PostgreSQL refuses a longer value (SQLite would store it),
# so a longer line is kept cut to that length and never valid: no template is that long.
def _length(column_type: object) -> int:
    if not isinstance(column_type, String) or column_type.length is None:
        raise TypeError(f"expected a sized String column, not {column_type!r}")
    return column_type.length


MAX_LINE = _length(TranslationLine.__table__.c.raw.type)
TOO_LONG = f"longer than {MAX_LINE} characters"


Files = list[tuple[list[str], str]]  # ([system, language, relation], path) per file


def _english_patterns(session: Session, source: Source, files: Files) -> dict[str, list[EnglishPattern]]:
    """Each relation's English patterns in order; stops on a file of a relation without any."""
    known = set(session.scalars(select(Relation.id).where(Relation.patterns.any())))
    english: dict[str, list[EnglishPattern]] = {}
    for rel in known:
        english[rel] = list(
            session.scalars(
                select(EnglishPattern).where(EnglishPattern.relation_id == rel).order_by(EnglishPattern.position)
            )
        )
    for (_system, _raw_lang, rel), path in files:
        if rel not in known:
            raise InputError(
                f"unknown relation {rel}: it has no English ParaRel patterns (run `curator ingest pararel` first)",
                location=source.describe(path),
            )
    return english


def _register_systems(session: Session, files: Files, trusted: str | None) -> None:
    """The files' systems and languages stored; `trusted` the one trusted system."""
    systems = sorted({parts[0] for parts, _ in files})
    insert_ignore(session, TranslationSystem.__table__, [{"name": s, "trusted": False} for s in systems])
    ensure_languages(session, {languages.canonical(parts[1]) for parts, _ in files})
    if trusted:
        session.execute(update(TranslationSystem).values(trusted=TranslationSystem.name == trusted))


def _parse(data: bytes, where: str) -> list[tuple[str, Meta]]:
    """(pattern, its lemma, extended lemma and tense) per line of one file."""
    parsed: list[tuple[str, Meta]] = []
    for number, obj in iter_jsonl(data, where):
        text = require(obj, "pattern", str, where, number)
        parsed.append((text, (obj.get("lemma"), obj.get("extended_lemma"), obj.get("tense"))))
    if not parsed:  # it would delete the file's stored lines
        raise InputError("empty file: no translated patterns", location=where)
    return parsed


def _line_rows(
    file: tuple[str, str, str],
    parsed: list[tuple[str, Meta]],
    english_ids: list[int | None],
    summary: TranslationSummary,
) -> list[dict[str, object]]:
    """One row per line of a file (system, language, relation), checked; counted in `summary`."""
    system, lang, rel = file
    rows: list[dict[str, object]] = []
    for line_no, ((text, _), english_id) in enumerate(zip(parsed, english_ids)):
        outcome = check(text, lang)
        valid, reason, cleaned = outcome.valid, outcome.reason, outcome.cleaned
        if max(len(text), len(outcome.repaired)) > MAX_LINE:  # degenerate MT output (one in the real data)
            valid, reason, cleaned = False, reason or TOO_LONG, None
        rows.append(
            dict(
                system=system,
                language=lang,
                relation_id=rel,
                line_no=line_no,
                english_pattern_id=english_id,
                raw=text[:MAX_LINE],
                repaired=outcome.repaired[:MAX_LINE],
                repairs=[r.to_dict() for r in outcome.repairs],
                cleaned=cleaned,
                valid=valid,
                reason=reason,
            )
        )
        summary.valid += valid
        summary.repaired += bool(outcome.repairs)
        if reason:
            summary.reasons[reason] += 1
    return rows


def ingest_translations(
    session: Session, source: Source, trusted: str | None = DEFAULT_TRUSTED, progress: bool = False
) -> TranslationSummary:
    summary = TranslationSummary()
    files = layout_files(source, 2, LAYOUT, language_at=1)
    refuse_duplicates(
        source,
        [((system, languages.canonical(lang), rel), path) for (system, lang, rel), path in files],
        "system, language and relation",
    )
    english = _english_patterns(session, source, files)
    _register_systems(session, files, trusted)

    imported = known_sources(session, "translations")
    records: list[SourceRecord] = []
    for (system, raw_lang, rel), path in progress_bar(files, "translations", "file", progress):
        lang = languages.canonical(raw_lang)
        where = source.describe(path)
        key = f"{system}/{lang}/{rel}"
        data = source.read(path)
        digest = sha256(data)
        summary.files += 1
        summary.systems.add(system)
        summary.languages.add(lang)
        if imported.get(key) == digest:
            summary.skipped_unchanged += 1
            continue
        parsed = _parse(data, where)
        english_ids = align(english[rel], [meta for _, meta in parsed])
        rows = _line_rows((system, lang, rel), parsed, english_ids, summary)
        if key in imported:  # changed since the last import: its old lines go
            session.execute(
                delete(TranslationLine).where(
                    TranslationLine.system == system,
                    TranslationLine.language == lang,
                    TranslationLine.relation_id == rel,
                )
            )
        summary.lines += bulk_insert(session, TranslationLine.__table__, rows)
        records.append(SourceRecord(key=key, location=where, sha256=digest, rows=len(rows)))
    record_sources(session, "translations", records)
    return summary

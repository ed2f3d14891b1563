"""A glossary as CSV (`curator glossary import|export`, review/glossary.py for the terms).

UTF-8, a header `language,term,translation,note`, one term a line; a cell a spreadsheet would
run as a formula (`= + - @`, tab, CR first) is exported behind a single quote and read back
without it (core.formats.spreadsheet). An import is all or nothing: a bad line is an InputError
naming the file, the line and the field, and nothing is stored; a term already in the glossary
(compared folded) takes the line's translation and note.

Scale (issue 38 §2, benchmarks/glossary_scale.py): an import reads the file a line at a time and
stores it in batches inside the caller's one transaction: its memory is a batch plus one small
key per line, not the file.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from curator.core.enums import Activity
from curator.core.errors import InputError
from curator.core.formats import spreadsheet
from curator.core.formats.atomic import atomic_write
from curator.core.models import GlossaryTerm, Language, User
from curator.core.models.base import utcnow
from curator.review import activity
from curator.review.glossary import FOLDED_TOO_LONG, LIMITS, check_language, clean_field, fold_once, keys

COLUMNS = ("language", "term", "translation", "note")
BATCH = 500  # an import stores this many lines at a time
MAX_LINE_BYTES = 1 << 20  # a longer physical line cannot hold a valid entry (LIMITS): refused unread


def export_csv(session: Session, out: Path, language: str | None = None) -> int:
    """Write the glossary (one language's, or every one's) to `out`; returns the number of terms."""
    query = select(GlossaryTerm)
    if language is not None:
        query = query.where(GlossaryTerm.language == check_language(session, language))
    rows = sorted(session.scalars(query), key=lambda r: (r.language, r.term_key, r.id))
    buffer = io.StringIO()
    writer = spreadsheet.Writer(buffer)  # a cell a spreadsheet would run is written inert
    writer.writerow(COLUMNS)
    writer.writerows((r.language, r.term, r.translation, r.note) for r in rows)
    atomic_write(out, buffer.getvalue().encode("utf-8"))
    return len(rows)


def _text_lines(name: str, handle: io.BufferedReader) -> Iterator[str]:
    """The file's text a line at a time, decoded, split as csv reads it (\n, \r\n or \r): a
    bad byte names its line (counted by \n); a line over MAX_LINE_BYTES is refused unread."""
    number = 0
    while raw := handle.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise InputError(f"a line longer than {MAX_LINE_BYTES} bytes", location=name, line=number)
        try:
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text", location=name, line=number) from None
        yield from io.StringIO(text, newline="")


def _lines(name: str, handle: io.BufferedReader) -> Iterator[tuple[int, list[str]]]:
    """The CSV records of the file, each with the line it ends on, read as they are needed."""
    reader = csv.reader(_text_lines(name, handle), strict=True)
    try:
        for row in reader:  # a cell exported inert (a formula's quote) reads back as it was
            yield reader.line_num, [spreadsheet.revive(cell) for cell in row]
    except csv.Error as exc:
        raise InputError(f"not CSV: {exc}", location=name, line=reader.line_num + 1) from None


Entry = tuple[str, str, str, str, str]  # language, term_key, term, translation, note


def _entry(name: str, line: int, cells: list[str], known: set[str]) -> Entry | None:
    """One line's entry, checked (module docstring), or None for a blank line."""
    if not any(c.strip() for c in cells):
        return None
    if len(cells) > len(COLUMNS) or len(cells) < 3:
        raise InputError(f"expected {len(COLUMNS)} fields, found {len(cells)}", location=name, line=line)
    values = dict(zip(COLUMNS, [*cells, ""][: len(COLUMNS)], strict=False))
    clean: dict[str, str] = {}
    for field in COLUMNS:
        try:
            clean[field] = clean_field(values.get(field, ""), field, required=field != "note")
        except ValueError as exc:
            raise InputError(str(exc), location=name, line=line, field=field) from None
    if clean["language"] not in known:
        raise InputError(
            f"no language {clean['language']!r} in the database", location=name, line=line, field="language"
        )
    key = fold_once(clean["term"])
    if not key.strip():
        raise InputError("has no letters", location=name, line=line, field="term")
    if len(key) > LIMITS["term"]:
        raise InputError(FOLDED_TOO_LONG, location=name, line=line, field="term")
    return clean["language"], key, clean["term"], clean["translation"], clean["note"]


def _store(session: Session, batch: list[Entry], changes: dict[str, dict[str, int]], stamp: dict[str, Any]) -> None:
    """Store a batch of checked entries: new terms inserted, changed ones updated (by primary
    key, without loading objects), counted per language in `changes`."""
    by_language: dict[str, list[Entry]] = {}
    for entry in batch:
        by_language.setdefault(entry[0], []).append(entry)
    for language, entries in by_language.items():
        have = {
            r.term_key: r
            for r in session.execute(
                select(
                    GlossaryTerm.id,
                    GlossaryTerm.term_key,
                    GlossaryTerm.term,
                    GlossaryTerm.translation,
                    GlossaryTerm.note,
                ).where(GlossaryTerm.language == language, GlossaryTerm.term_key.in_([e[1] for e in entries]))
            )
        }
        new: list[dict[str, Any]] = []
        changed: list[dict[str, Any]] = []
        for _, key, term, translation, note in entries:
            values = {"term": term, "translation": translation, "note": note, **keys(term, translation, note), **stamp}
            row = have.get(key)
            if row is None:
                new.append({"language": language, **values})
            elif (row.term, row.translation, row.note) != (term, translation, note):
                changed.append({"id": row.id, **values})
        if new:
            session.execute(insert(GlossaryTerm), new)
        if changed:
            session.execute(update(GlossaryTerm), changed)
        counts = changes.setdefault(language, {"added": 0, "updated": 0})
        counts["added"] += len(new)
        counts["updated"] += len(changed)


def import_csv(session: Session, path: Path, user: User | None = None) -> tuple[int, int]:
    """Read `path` (module docstring) into the glossaries, all or nothing: lines are read and
    stored a batch at a time in the caller's transaction, which a bad line leaves to be rolled
    back (core.db.unit_of_work does). Returns (added, updated)."""
    name = str(path)
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", location=name) from None
    with handle:
        changes = _import(session, name, _lines(name, handle), user)
    for language, counts in sorted(changes.items()):  # one entry per language the file changed
        if counts["added"] or counts["updated"]:
            activity.record(session, user, Activity.GLOSSARY, path.name, language, {"change": "import", **counts})
    return sum(c["added"] for c in changes.values()), sum(c["updated"] for c in changes.values())


def _import(
    session: Session, name: str, rows: Iterator[tuple[int, list[str]]], user: User | None
) -> dict[str, dict[str, int]]:
    """Check and store the records after the header; returns {language: {"added", "updated"}}."""
    header = next(rows, None)
    if header is None or [h.strip().lower() for h in header[1]] not in (list(COLUMNS), list(COLUMNS[:3])):
        raise InputError(f"the first line must be the header {','.join(COLUMNS)}", location=name, line=1)
    known = set(session.scalars(select(Language.code)))
    stamp = {"updated_by": user.id if user is not None else None, "updated_at": utcnow()}
    seen: dict[str, int] = {}  # "language\0term_key" -> its line: the one thing kept per line
    changes: dict[str, dict[str, int]] = {}
    batch: list[Entry] = []
    for line, cells in rows:
        entry = _entry(name, line, cells, known)
        if entry is None:
            continue
        mark = f"{entry[0]}\0{entry[1]}"
        if mark in seen:
            raise InputError(f"the same term as line {seen[mark]}", location=name, line=line, field="term")
        seen[mark] = line
        batch.append(entry)
        if len(batch) >= BATCH:
            _store(session, batch, changes, stamp)
            batch = []
    _store(session, batch, changes, stamp)
    return changes

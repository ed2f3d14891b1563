"""Each language's glossary (Weblate's and Pontoon's, for templates): English terms with the
translation maintainers prefer and a note. Maintainers edit it on a page or move it as CSV
(`curator glossary import|export`); the review screen shows the terms that occur in the English
pattern beside the template, with the preferred translation highlighted where the template has it.

Matching is folded (core.folding): case, accents, Arabic harakat and tatweel do not count. An
English term matches whole words of the pattern; a translation matches from a word's start to
that word's end, so an inflected form ("capitales" for "capital") is still found.

CSV: UTF-8, a header `language,term,translation,note`, one term a line; a cell a spreadsheet
would run as a formula (`= + - @`, tab, CR first) is exported behind a single quote and read back
without it (core.formats.spreadsheet). An import is all or
nothing: a bad line is an InputError naming the file, the line and the field, and nothing is
stored; a term already in the glossary (compared folded) takes the line's translation and note.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path
from typing import TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core import languages
from curator.core.enums import Activity
from curator.core.errors import Conflict, InputError, NotFound
from curator.core.folding import find, fold
from curator.core.formats import spreadsheet
from curator.core.formats.atomic import atomic_write
from curator.core.models import GlossaryTerm, Language, User
from curator.core.models.base import utcnow
from curator.core.text import control_reason
from curator.review import activity

COLUMNS = ("language", "term", "translation", "note")
LIMITS = {"language": 32, "term": 200, "translation": 200, "note": 500}
# folding can lengthen a term (ß → ss): its folded key must fit the same 200 characters
FOLDED_TOO_LONG = f"is too long once folded (more than {LIMITS['term']} characters)"


class TermRecord(TypedDict):
    """A glossary entry as pages, the API and the CSV show it."""

    id: int
    language: str
    term: str
    translation: str
    note: str


class TermMatch(TypedDict):
    """A term of the English pattern, and where the template has its translation: `found`
    holds the template's own spelling of each occurrence (what the page highlights)."""

    term: str
    translation: str
    note: str
    found: list[str]


def record(row: GlossaryTerm) -> TermRecord:
    return {"id": row.id, "language": row.language, "term": row.term, "translation": row.translation, "note": row.note}


def _clean(value: object, name: str, *, required: bool = True) -> str:
    """A field's text, trimmed, or the reason it is refused (a plain message; callers add where)."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise ValueError("must be text")
    value = " ".join(value.split()) if name != "note" else value.strip()
    if required and not value:
        raise ValueError("is empty")
    if len(value) > LIMITS[name]:
        raise ValueError(f"is longer than {LIMITS[name]} characters")
    reason = control_reason(value)
    if reason:
        raise ValueError(reason)
    return value


def _fields(term: object, translation: object, note: object) -> tuple[str, str, str]:
    values = []
    for name, value in (("term", term), ("translation", translation), ("note", note)):
        try:
            values.append(_clean(value, name, required=name != "note"))
        except ValueError as exc:
            raise InputError("glossary", f"the {name} {exc}", field=name) from None
    key = fold(values[0])
    if not key.strip():
        raise InputError("glossary", "the term has no letters", field="term")
    if len(key) > LIMITS["term"]:  # folding can lengthen a term (ß → ss); the key column holds as many
        raise InputError(
            "glossary", f"the term is too long once folded (more than {LIMITS['term']} characters)", field="term"
        )
    return values[0], values[1], values[2]


def _check_language(session: Session, language: str) -> str:
    languages.check_code(language)
    if session.get(Language, language) is None:
        raise NotFound(f"no language {language!r}")
    return language


def terms(session: Session, language: str) -> list[GlossaryTerm]:
    """A language's glossary, by term (folded)."""
    rows = session.scalars(select(GlossaryTerm).where(GlossaryTerm.language == language)).all()
    return sorted(rows, key=lambda r: (r.term_key, r.id))


def _same_term(session: Session, language: str, key: str) -> GlossaryTerm | None:
    return session.scalars(
        select(GlossaryTerm).where(GlossaryTerm.language == language, GlossaryTerm.term_key == key)
    ).first()


def add_term(
    session: Session, language: str, term: object, translation: object, note: object = "", user: User | None = None
) -> GlossaryTerm:
    """A new entry; a term the language has already (compared folded) is a Conflict."""
    _check_language(session, language)
    term, translation, note = _fields(term, translation, note)
    key = fold(term)
    if _same_term(session, language, key) is not None:
        raise Conflict(f"the glossary of {language} has {term!r} already: edit that entry")
    row = GlossaryTerm(
        language=language,
        term=term,
        term_key=key,
        translation=translation,
        note=note,
        updated_by=user.id if user is not None else None,
        updated_at=utcnow(),
    )
    session.add(row)
    session.flush()
    _log(session, user, row, "add")
    return row


def _log(session: Session, user: User | None, row: GlossaryTerm, change: str) -> None:
    """The activity entry of one term added, edited or deleted (`user` None: the command line)."""
    activity.record(
        session,
        user,
        Activity.GLOSSARY,
        row.term,
        row.language,
        {"change": change, "term": row.term, "translation": row.translation, "note": row.note},
    )


def get_term(session: Session, language: str, term_id: int) -> GlossaryTerm:
    row = session.get(GlossaryTerm, term_id)
    if row is None or row.language != language:
        raise NotFound("no such glossary term")
    return row


def edit_term(
    session: Session,
    language: str,
    term_id: int,
    term: object,
    translation: object,
    note: object = "",
    user: User | None = None,
) -> GlossaryTerm:
    row = get_term(session, language, term_id)
    term, translation, note = _fields(term, translation, note)
    key = fold(term)
    other = _same_term(session, language, key)
    if other is not None and other.id != row.id:
        raise Conflict(f"the glossary of {language} has {term!r} already: edit that entry")
    if (row.term, row.translation, row.note) == (term, translation, note):
        return row  # saved unchanged: nothing to log
    row.term, row.term_key, row.translation, row.note = term, key, translation, note
    row.updated_by, row.updated_at = (user.id if user is not None else None), utcnow()
    session.flush()
    _log(session, user, row, "edit")
    return row


def delete_term(session: Session, language: str, term_id: int, user: User | None = None) -> None:
    row = get_term(session, language, term_id)
    _log(session, user, row, "delete")
    session.delete(row)
    session.flush()


def matches(session: Session, language: str, english: str, template: str) -> list[TermMatch]:
    """The glossary terms of `language` found in the English pattern, in the order they occur
    there, each with its translation's occurrences in `template` (module docstring)."""
    found: list[tuple[int, TermMatch]] = []
    for row in terms(session, language):
        spans = find(row.term, english)
        if not spans:
            continue
        hits = [template[a:b] for a, b in find(row.translation, template, whole_word=False)]
        found.append(
            (
                spans[0][0],
                {
                    "term": row.term,
                    "translation": row.translation,
                    "note": row.note,
                    "found": list(dict.fromkeys(hits)),
                },
            )
        )
    return [m for _, m in sorted(found, key=lambda pair: pair[0])]


# ---------------------------------------------------------------- CSV


def export_csv(session: Session, out: Path, language: str | None = None) -> int:
    """Write the glossary (one language's, or every one's) to `out`; returns the number of terms."""
    query = select(GlossaryTerm)
    if language is not None:
        query = query.where(GlossaryTerm.language == _check_language(session, language))
    rows = sorted(session.scalars(query), key=lambda r: (r.language, r.term_key, r.id))
    buffer = io.StringIO()
    writer = spreadsheet.Writer(buffer)  # a cell a spreadsheet would run is written inert
    writer.writerow(COLUMNS)
    writer.writerows((r.language, r.term, r.translation, r.note) for r in rows)
    atomic_write(out, buffer.getvalue().encode("utf-8"))
    return len(rows)


def _lines(path: Path) -> Iterable[tuple[int, list[str]]]:
    name = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(name, f"cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(name, "not UTF-8 text", line=line) from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        for row in reader:  # a cell exported inert (a formula's quote) reads back as it was
            yield reader.line_num, [spreadsheet.revive(cell) for cell in row]
    except csv.Error as exc:
        raise InputError(name, f"not CSV: {exc}", line=reader.line_num + 1) from None


def import_csv(session: Session, path: Path, user: User | None = None) -> tuple[int, int]:
    """Read `path` (module docstring) into the glossaries, all or nothing. Returns (added, updated)."""
    name = str(path)
    rows = iter(_lines(path))
    header = next(rows, None)
    if header is None or [h.strip().lower() for h in header[1]] not in (list(COLUMNS), list(COLUMNS[:3])):
        raise InputError(name, f"the first line must be the header {','.join(COLUMNS)}", line=1)
    known = set(session.scalars(select(Language.code)))
    seen: dict[tuple[str, str], int] = {}
    parsed: list[tuple[str, str, str, str, str]] = []
    for line, cells in rows:
        if not any(c.strip() for c in cells):
            continue  # a blank line
        if len(cells) > len(COLUMNS) or len(cells) < 3:
            raise InputError(name, f"expected {len(COLUMNS)} fields, found {len(cells)}", line=line)
        values = dict(zip(COLUMNS, [*cells, ""][: len(COLUMNS)], strict=False))
        clean: dict[str, str] = {}
        for field in COLUMNS:
            try:
                clean[field] = _clean(values.get(field, ""), field, required=field != "note")
            except ValueError as exc:
                raise InputError(name, str(exc), line=line, field=field) from None
        if clean["language"] not in known:
            raise InputError(name, f"no language {clean['language']!r} in the database", line=line, field="language")
        key = fold(clean["term"])
        if not key.strip():
            raise InputError(name, "has no letters", line=line, field="term")
        if len(key) > LIMITS["term"]:
            raise InputError(name, FOLDED_TOO_LONG, line=line, field="term")
        if (clean["language"], key) in seen:
            raise InputError(name, f"the same term as line {seen[(clean['language'], key)]}", line=line, field="term")
        seen[(clean["language"], key)] = line
        parsed.append((clean["language"], key, clean["term"], clean["translation"], clean["note"]))
    existing = {(r.language, r.term_key): r for r in session.scalars(select(GlossaryTerm))}
    added = updated = 0
    now, by = utcnow(), (user.id if user is not None else None)
    changes: dict[str, dict[str, int]] = {}  # language -> {"added": n, "updated": n}
    for language, key, term, translation, note in parsed:
        row = existing.get((language, key))
        counts = changes.setdefault(language, {"added": 0, "updated": 0})
        if row is None:
            session.add(
                GlossaryTerm(
                    language=language,
                    term=term,
                    term_key=key,
                    translation=translation,
                    note=note,
                    updated_by=by,
                    updated_at=now,
                )
            )
            added += 1
            counts["added"] += 1
        elif (row.term, row.translation, row.note) != (term, translation, note):
            row.term, row.translation, row.note, row.updated_by, row.updated_at = term, translation, note, by, now
            updated += 1
            counts["updated"] += 1
    session.flush()
    for language, counts in sorted(changes.items()):  # one entry per language the file changed
        if counts["added"] or counts["updated"]:
            activity.record(session, user, Activity.GLOSSARY, path.name, language, {"change": "import", **counts})
    return added, updated

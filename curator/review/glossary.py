"""Each language's glossary (Weblate's and Pontoon's, for templates): English terms with the
translation maintainers prefer and a note. Maintainers edit it on a page or move it as CSV
(`curator glossary import|export`); the review screen shows the terms that occur in the English
pattern beside the template, with the preferred translation highlighted where the template has it.

Matching is folded (core.folding): case, accents, Arabic harakat and tatweel do not count. An
English term matches whole words of the pattern; a translation matches from a word's start to
that word's end, so an inflected form ("capitales" for "capital") is still found.

CSV import and export: review/glossary_csv.py.

Scale (issue 38 §2, benchmarks/glossary_scale.py): each row keeps its folded fields, so the
maintainers' page filters and pages in SQL (`listing`), and its term's `folding.lead`, indexed,
so `matches` reads only the terms whose first word is a word of the pattern, not the whole
glossary.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypedDict

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from curator.core import languages
from curator.core.enums import Activity
from curator.core.errors import Conflict, InputError, NotFound
from curator.core.folding import find, fold, lead, leads
from curator.core.models import GlossaryTerm, Language, User
from curator.core.models.base import utcnow
from curator.core.paging import page_count, page_offset
from curator.core.text import control_reason
from curator.review import activity

LIMITS = {"language": 32, "term": 200, "translation": 200, "note": 500}
# folding can lengthen a term (ß → ss): its folded key must fit the same 200 characters
FOLDED_TOO_LONG = f"is too long once folded (more than {LIMITS['term']} characters)"
PAGE_SIZE = 50  # the maintainers' page: terms a page by default ...
MAX_PAGE_SIZE = 200  # ... and at most (`per_page`)


class TermRecord(TypedDict):
    """A glossary entry as pages, the API and the CSV show it."""

    id: int
    language: str
    term: str
    translation: str
    note: str


class Listing(TypedDict):
    """One page of a language's glossary, filtered (`listing`)."""

    terms: list[TermRecord]
    matched: int  # terms the filter keeps
    total: int  # terms of the language
    page: int  # 1-based, within 1..pages
    pages: int
    per_page: int


class TermMatch(TypedDict):
    """A term of the English pattern, and where the template has its translation: `found`
    holds the template's own spelling of each occurrence (what the page highlights)."""

    term: str
    translation: str
    note: str
    found: list[str]


def record(row: GlossaryTerm) -> TermRecord:
    return {"id": row.id, "language": row.language, "term": row.term, "translation": row.translation, "note": row.note}


# folding without folding.fold's cache: an import folds every line once, and 65,536 cached
# notes of 500 characters would be most of its memory
fold_once = fold.__wrapped__


def keys(term: str, translation: str, note: str) -> dict[str, str]:
    """The columns derived from an entry's text: its folded fields and its term's lead."""
    return {
        "term_key": fold_once(term),
        "translation_key": fold_once(translation),
        "note_key": fold_once(note),
        "match_key": lead(term),
    }


def clean_field(value: object, name: str, *, required: bool = True) -> str:
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
            values.append(clean_field(value, name, required=name != "note"))
        except ValueError as exc:
            raise InputError(f"the {name} {exc}", location="glossary", field=name) from None
    key = fold(values[0])
    if not key.strip():
        raise InputError("the term has no letters", location="glossary", field="term")
    if len(key) > LIMITS["term"]:  # folding can lengthen a term (ß → ss); the key column holds as many
        raise InputError(
            f"the term is too long once folded (more than {LIMITS['term']} characters)",
            location="glossary",
            field="term",
        )
    return values[0], values[1], values[2]


def check_language(session: Session, language: str) -> str:
    languages.check_code(language)
    if session.get(Language, language) is None:
        raise NotFound(f"no language {language!r}")
    return language


def terms(session: Session, language: str) -> list[GlossaryTerm]:
    """A language's glossary, by term (folded)."""
    rows = session.scalars(select(GlossaryTerm).where(GlossaryTerm.language == language)).all()
    return sorted(rows, key=lambda r: (r.term_key, r.id))


def listing(session: Session, language: str, text: str = "", page: int = 1, per_page: int = PAGE_SIZE) -> Listing:
    """The terms of `language` whose term, translation or note holds `text` (compared folded;
    "" keeps every one), by term, `per_page` (capped at MAX_PAGE_SIZE) from page `page` — past
    the end, the last page. Filtered, counted and cut in SQL: a page reads its rows only."""
    per_page = max(1, min(per_page, MAX_PAGE_SIZE))
    where = [GlossaryTerm.language == language]
    needle = fold(text.strip())
    if needle:
        where.append(
            or_(
                *(
                    column.contains(needle, autoescape=True)
                    for column in (GlossaryTerm.term_key, GlossaryTerm.translation_key, GlossaryTerm.note_key)
                )
            )
        )
    total = session.scalar(select(func.count()).where(GlossaryTerm.language == language)) or 0
    matched = session.scalar(select(func.count()).where(*where)) if needle else total
    pages = page_count(matched or 0, per_page)
    page = max(1, min(page, pages))
    rows = session.scalars(
        select(GlossaryTerm)
        .where(*where)
        .order_by(GlossaryTerm.term_key, GlossaryTerm.id)
        .offset(page_offset(page, per_page))
        .limit(per_page)
    )
    return {
        "terms": [record(r) for r in rows],
        "matched": matched or 0,
        "total": total,
        "page": page,
        "pages": pages,
        "per_page": per_page,
    }


def _same_term(session: Session, language: str, key: str) -> GlossaryTerm | None:
    return session.scalars(
        select(GlossaryTerm).where(GlossaryTerm.language == language, GlossaryTerm.term_key == key)
    ).first()


def add_term(
    session: Session, language: str, term: object, translation: object, note: object = "", user: User | None = None
) -> GlossaryTerm:
    """A new entry; a term the language has already (compared folded) is a Conflict."""
    check_language(session, language)
    term, translation, note = _fields(term, translation, note)
    key = fold(term)
    if _same_term(session, language, key) is not None:
        raise Conflict(f"the glossary of {language} has {term!r} already: edit that entry")
    row = GlossaryTerm(
        language=language,
        term=term,
        translation=translation,
        note=note,
        updated_by=user.id if user is not None else None,
        updated_at=utcnow(),
        **keys(term, translation, note),
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
    row.term, row.translation, row.note = term, translation, note
    for column, value in keys(term, translation, note).items():
        setattr(row, column, value)
    row.updated_by, row.updated_at = (user.id if user is not None else None), utcnow()
    session.flush()
    _log(session, user, row, "edit")
    return row


def delete_term(session: Session, language: str, term_id: int, user: User | None = None) -> None:
    row = get_term(session, language, term_id)
    _log(session, user, row, "delete")
    session.delete(row)
    session.flush()


def candidates(session: Session, language: str, english: str) -> list[GlossaryTerm]:
    """The terms of `language` that may occur in `english`: those whose lead (folding.lead) is
    one of the pattern's, by term — read through the (language, match_key) index."""
    wanted = sorted(leads(english))
    if not wanted:
        return []
    rows = session.scalars(
        select(GlossaryTerm).where(GlossaryTerm.language == language, GlossaryTerm.match_key.in_(wanted))
    ).all()
    return sorted(rows, key=lambda r: (r.term_key, r.id))


def matches(session: Session, language: str, english: str, template: str) -> list[TermMatch]:
    """The glossary terms of `language` found in the English pattern, in the order they occur
    there, each with its translation's occurrences in `template` (module docstring)."""
    return matched(candidates(session, language, english), english, template)


def matched(rows: Iterable[Any], english: str, template: str) -> list[TermMatch]:
    """Of the terms `rows`, those found in the English pattern, in the order they occur there,
    each with its translation's occurrences in `template` (`matches` reads only the candidates
    of the lead-word index; the benchmark's peer, every term)."""
    found: list[tuple[int, TermMatch]] = []
    for row in rows:
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

"""Import subject/object tuples: `<lang>/<REL>.jsonl`, cleaned or raw T-REx form.

The form is detected per file: raw rows carry `from_english`; those with a label only in
English are kept (flagged) but never used, and a raw row's line becomes its `lineid`.
Lists are content-addressed, so re-importing the same tuples reuses the stored list.
"""

from __future__ import annotations

import contextlib
import hashlib
import pickle
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, TypedDict

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from curator.core import languages
from curator.core.db import reading, unit_of_work
from curator.core.errors import InputError
from curator.core.formats import release_tuples
from curator.core.formats.layout import layout_files, refuse_duplicates
from curator.core.formats.sources import Source
from curator.core.models import Entity, EntityLabel, Tuple, TupleList
from curator.core.progress import progress_bar
from curator.core.text import InvisibleTally
from curator.ingest.store import (
    SourceRecord,
    bulk_insert,
    ensure_languages,
    ensure_relations,
    insert_ignore,
    known_sources,
    record_sources,
    sha256,
)

LAYOUT = "<lang>/<REL>.jsonl"
STORE_ROWS = 2_000  # rows per transaction of `import_tuples` (whole files, ~30 ms): see its docstring


class StoredTuple(TypedDict):
    """One tuple row keyed by the database's column names (`Tuple`), as `parse_tuples` gives it."""

    sub_qid: str
    obj_qid: str
    sub_label: str
    obj_label: str
    from_english: bool
    lineid: int


@dataclass
class TupleSummary:
    files: int = 0
    skipped_unchanged: int = 0
    rows: int = 0  # usable rows
    from_english: int = 0  # raw rows without a label in the language
    raw_files: int = 0
    languages: set[str] = field(default_factory=set)
    relations: set[str] = field(default_factory=set)
    invisible: InvisibleTally = field(default_factory=InvisibleTally)  # kept in labels, reported


def parse_tuples(
    data: bytes, where: str, tally: InvisibleTally | None = None, name: str | None = None
) -> tuple[str, list[StoredTuple]]:
    """('clean' | 'raw', rows) with every field checked; errors name file, line and field.

    The file is read by the one tuples reader (`curator.core.formats.release_tuples.parse_tuples`);
    rows come back keyed by the database's column names. Labels keep their invisible
    characters, counted into `tally` (under `name`, default `where`)."""
    form, rows = release_tuples.parse_tuples(data, where, tally, name)
    return form, [
        StoredTuple(
            sub_qid=r["sub_uri"],
            obj_qid=r["obj_uri"],
            sub_label=r["sub_label"],
            obj_label=r["obj_label"],
            from_english=r["from_english"],
            lineid=r["lineid"],
        )
        for r in rows
    ]


def content_hash(rows: Sequence[StoredTuple]) -> str:
    """Hash of the rows themselves, so the same tuples written differently share one list."""
    text = "\x1e".join(
        f"{r['sub_qid']}\x1f{r['obj_qid']}\x1f{r['sub_label']}\x1f{r['obj_label']}\x1f"
        f"{r['lineid']}\x1f{int(r['from_english'])}"
        for r in rows
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def store_tuple_list(
    session: Session, language: str, relation: str, form: str, rows: list[StoredTuple], seen: set[str] | None = None
) -> int:
    """The id of the list with exactly these rows, storing it if it is new.

    The language and relation must exist. `seen` carries the entity ids already stored
    during one import, which saves re-inserting the same entities file after file.
    """
    digest = content_hash(rows)
    existing = session.scalar(
        select(TupleList.id).where(
            TupleList.language == language, TupleList.relation_id == relation, TupleList.sha256 == digest
        )
    )
    if existing is not None:
        return existing
    seen = set() if seen is None else seen
    new = ({r["sub_qid"] for r in rows} | {r["obj_qid"] for r in rows}) - seen
    insert_ignore(session, Entity.__table__, [{"qid": q} for q in sorted(new)])
    seen |= new
    labels: dict[str, str] = {}
    for r in rows:
        if not r["from_english"]:
            labels.setdefault(r["sub_qid"], r["sub_label"])
            labels.setdefault(r["obj_qid"], r["obj_label"])
    insert_ignore(
        session,
        EntityLabel.__table__,
        [{"qid": q, "language": language, "label": label} for q, label in labels.items()],
    )
    tuple_list = TupleList(
        language=language, relation_id=relation, sha256=digest, form=form, rows=sum(not r["from_english"] for r in rows)
    )
    session.add(tuple_list)
    session.flush()
    bulk_insert(session, Tuple.__table__, ({**r, "list_id": tuple_list.id, "position": i} for i, r in enumerate(rows)))
    return tuple_list.id


def _refuse_emptying(session: Session, language: str, relation: str, where: str) -> None:
    """An empty file may not replace stored tuples with none. It may be imported where nothing
    is stored: the published mParaRel tuples have 159 empty files (relations without a single
    fact in that language), and those must import."""
    stored = session.scalar(
        select(TupleList.rows).where(
            TupleList.language == language,
            TupleList.relation_id == relation,
            TupleList.current,
            TupleList.sha256 != content_hash([]),
        )
    )
    if stored is not None:
        raise InputError(
            f"empty file: it would replace the stored tuples of {language}/{relation} ({stored} rows) with none",
            location=where,
        )


def ingest_tuples(session: Session, source: Source, progress: bool = False) -> TupleSummary:
    """Import every tuples file of `source` in the caller's one transaction (the demo seed)."""
    summary = TupleSummary()
    files = _layout(source)
    ensure_languages(session, {languages.canonical(lang) for (lang, _), _ in files})
    ensure_relations(session, {rel for (_, rel), _ in files})
    seen: set[str] = set()
    records: list[SourceRecord] = []
    for lang, rel, _path, where, data, digest in _changed(
        source, files, known_sources(session, "tuples"), summary, "tuples", progress
    ):
        form, rows = parse_tuples(data, where, summary.invisible)
        if not rows:
            _refuse_emptying(session, lang, rel, where)
        records.append(_store_file(session, summary, lang, rel, form, rows, where, digest, seen))
    record_sources(session, "tuples", records)
    return summary


def import_tuples(factory: sessionmaker[Session], source: Source, progress: bool = False) -> TupleSummary:
    """Import every tuples file of `source` in short units of work (`curator ingest tuples`).

    A full import writes a million rows; as one transaction it would hold SQLite's write lock
    for the whole run and every reviewer's decision would wait (or fail busy). So: first every
    file is read and checked with no lock held — a bad file stops the import before anything is
    written — then the changed files are stored, and recorded as imported, a few at a time: each
    transaction holds whole files and about `STORE_ROWS` rows, and reviewers' writes go in
    between. The size is the reviewers' choice (benchmarks/review_latency.py, 20 paced reviewers
    during a full import, SQLite): a commit per file (4,264 of them) made the import 55 s; 20,000
    rows per transaction made it 36 s but a decision's median wait 85 ms (p95 350); 2,000 rows
    make it ~42 s with the median at 26 ms and p95 at 93 ms, as per file. An import cut short
    leaves whole files stored (and recorded), and running it again stores only the rest. The
    rows checked are the rows stored: the check pass keeps them in a temporary file (`_spool`)
    rather than reading and parsing every file again."""
    summary = TupleSummary()
    files = _layout(source)
    changed: list[tuple[str, str, str, str, str]] = []
    spool = tempfile.TemporaryFile()  # noqa: SIM115 (closed below, a failed flush ignored); unlinked at once
    try:
        with reading(factory) as session:
            for lang, rel, _path, where, data, digest in _changed(
                source, files, known_sources(session, "tuples"), summary, "tuples (check)", progress
            ):
                # every row checked before anything is written
                form, rows = parse_tuples(data, where, summary.invisible)
                if not rows:
                    _refuse_emptying(session, lang, rel, where)
                _spool(spool, rows)
                changed.append((lang, rel, form, where, digest))
        with unit_of_work(factory) as session:
            ensure_languages(session, {lang for lang, *_ in changed})
            ensure_relations(session, {rel for _, rel, *_ in changed})
        seen: set[str] = set()
        batch: list[tuple[str, str, str, list[StoredTuple], str, str]] = []
        bar = progress_bar(changed, "tuples (store)", "file", progress)
        spool.seek(0)
        for n, (lang, rel, form, where, digest) in enumerate(bar, start=1):
            rows = _unspool(spool)  # the very rows checked above: what is stored is what was read
            batch.append((lang, rel, form, rows, where, digest))
            if n == len(changed) or sum(len(b[3]) for b in batch) >= STORE_ROWS:
                with unit_of_work(factory) as session:
                    records = [_store_file(session, summary, *file, seen) for file in batch]
                    record_sources(session, "tuples", records)
                batch = []
                bar.set_postfix(rows=summary.rows)
    finally:
        # after a write that found no room the buffer still holds bytes, whose flush fails again
        # on close: the file is closed all the same, and the error that matters was raised
        with contextlib.suppress(OSError):
            spool.close()
    return summary


# The rows the check pass parsed are kept for the store pass in a private temporary file (pickled
# per file, in order; unlinked at once, so only this process reads it): parsing a full import a
# second time cost about 6 of its 42 s, and holding a million rows in memory until the checks
# end would cost several hundred MB.


def _spool(file: IO[bytes], rows: list[StoredTuple]) -> None:
    values = [
        (r["sub_qid"], r["obj_qid"], r["sub_label"], r["obj_label"], r["from_english"], r["lineid"]) for r in rows
    ]
    try:
        pickle.dump(values, file, protocol=pickle.HIGHEST_PROTOCOL)
        file.flush()  # a full disk shows here, naming the cause, not at a later read
    except OSError as exc:  # a full disk: said in one line, before anything is stored
        raise InputError(
            f"cannot keep the checked tuples in a temporary file in {tempfile.gettempdir()} "
            f"({exc.strerror or exc}): free some space there or set TMPDIR to a folder with room"
        ) from None


def _unspool(file: IO[bytes]) -> list[StoredTuple]:
    return [
        StoredTuple(sub_qid=s, obj_qid=o, sub_label=sl, obj_label=ol, from_english=e, lineid=n)
        for s, o, sl, ol, e, n in pickle.load(file)
    ]


def _layout(source: Source) -> list[tuple[list[str], str]]:
    """The source's `<lang>/<REL>.jsonl` files; two for one (language, relation) are refused."""
    files = layout_files(source, 1, LAYOUT, language_at=0)
    refuse_duplicates(
        source, [((languages.canonical(lang), rel), path) for (lang, rel), path in files], "language and relation"
    )
    return files


def _changed(
    source: Source,
    files: list[tuple[list[str], str]],
    imported: dict[str, str],
    summary: TupleSummary,
    desc: str,
    progress: bool,
) -> Iterator[tuple[str, str, str, str, bytes, str]]:
    """(language, relation, path, where, bytes, sha256) of each file not imported before as it is
    now; every file is counted in `summary`, the unchanged ones as skipped."""
    for (raw_lang, rel), path in progress_bar(files, desc, "file", progress):
        lang = languages.canonical(raw_lang)
        where, data = source.describe(path), source.read(path)
        digest = sha256(data)
        summary.files += 1
        summary.languages.add(lang)
        summary.relations.add(rel)
        if imported.get(f"{lang}/{rel}") == digest:
            summary.skipped_unchanged += 1
            continue
        yield lang, rel, path, where, data, digest


def _store_file(
    session: Session,
    summary: TupleSummary,
    lang: str,
    rel: str,
    form: str,
    rows: list[StoredTuple],
    where: str,
    digest: str,
    seen: set[str],
) -> SourceRecord:
    """Store one file's list, make it the relation's current one; the source record to keep."""
    list_id = store_tuple_list(session, lang, rel, form, rows, seen)
    session.execute(
        update(TupleList)
        .where(TupleList.language == lang, TupleList.relation_id == rel)
        .values(current=TupleList.id == list_id)
    )
    usable = sum(not r["from_english"] for r in rows)
    summary.rows += usable
    summary.from_english += len(rows) - usable
    summary.raw_files += form == "raw"
    return SourceRecord(
        key=f"{lang}/{rel}", location=where, sha256=digest, rows=len(rows), details={"form": form, "list_id": list_id}
    )

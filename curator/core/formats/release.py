"""The mParaRel release layout: the one reader and the one writer of a release folder.

```
OUT/patterns/<lang>/<REL>.jsonl   {"pattern": "[X] nació en [Y]", "checked-by-human": false}
                                  an annotated template (core/annotated.py) adds its own key:
                                  {"pattern": "[X] est né à [Y]", "checked-by-human": true,
                                   "annotated": "[X] est [né;X-Gender=MASC|née;X-Gender=FEM] à [Y]"}
                                  (`pattern` = its plain form: only [X]/[Y], what mParaRel's code reads)
OUT/tuples/<lang>/<REL>.jsonl     {"sub_uri", "obj_uri", "obj_label", "sub_label", "lineid"}
OUT/genders.tsv                   only with an annotated template: `<id>\t<male|female|none>` of the
OUT/instanceof.tsv                entities of its relations and `<id>\t<class id>,<label>…` (X-FACTR's
                                  files' layout), what the fill reads (docs/agreement.md)
OUT/manifest.json                 name, parent, kind, counts, statistics, sha256 of every file
OUT/README.md                     the dataset card
OUT/hf/{patterns,tuples}.jsonl    with --hf: one flat table each, `language` and `relation` first
OUT/hf/{patterns,tuples}.parquet  the same rows and columns as Parquet
```

Readers: `release_files` lists a release in any `Source` (a folder or a URL; `release import`),
`Release` reads a local folder (`curator stats`, `curator probe` on a folder, the tiny-model
corpus, the Hugging Face tables). Every `.jsonl` outside `hf/` must sit in the layout; a stray
one is an error naming it, because a half-matching tree usually means the wrong folder was
given. Writer: `ReleaseWriter` (core/formats/release_writer.py; `release export`), into a folder that
`curator.core.formats.atomic.atomic_directory` renames into place when complete.

Errors are `ReleaseError` (defined with the tuples reader, core/formats/release_tuples.py): an InputError (one line naming file, line and field) that is also
a ValueError, as the statistics API has always raised.

Text is kept exactly as the files hold it: invisible characters (core/text.py — U+200E
LEFT-TO-RIGHT MARK, U+200B ZERO WIDTH SPACE, bidi embeddings, even U+202E RIGHT-TO-LEFT
OVERRIDE) are published data, so they are counted into an `InvisibleTally` when the caller
passes one, never refused, and a release imported and exported again is byte-identical. What
would break the structure is refused: a line that is not JSON (raw control characters inside
a JSON string are not JSON either) and NUL, which no database text column can hold.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.core import annotated as templates_annotated
from curator.core.formats.jsonl import count_records, iter_jsonl, optional, require
from curator.core.formats.layout import RELATION_ID
from curator.core.formats.release_tuples import ReleaseError, TupleRow, may_hold_invisible, parse_tuples
from curator.core.formats.sources import FolderSource, Source
from curator.core.languages import check_code
from curator.core.text import InvisibleTally, unstorable_reason

PATTERNS, TUPLES, HF = "patterns", "tuples", "hf"
MANIFEST, CARD = "manifest.json", "README.md"
# the stored genders and classes of the entities of relations with an annotated template
GENDERS_FILE, CLASSES_FILE = "genders.tsv", "instanceof.tsv"
LAYOUT = "patterns/<lang>/<REL>.jsonl and tuples/<lang>/<REL>.jsonl"
TUPLE_KEYS = ("sub_uri", "obj_uri", "obj_label", "sub_label", "lineid")
# the flat Hugging Face tables: column names and order (pyarrow types in `_hf_schema`)
HF_COLUMNS = {
    PATTERNS: ("language", "relation", "pattern", "checked_by_human"),
    TUPLES: ("language", "relation") + TUPLE_KEYS,
}
HF_BATCH_ROWS = 65_536  # rows per Parquet row group
# the patterns table's last column when the release holds an annotated template (null on other lines;
# absent otherwise, so that `datasets` reads the JSONL and the Parquet table with the same types)
HF_ANNOTATED = "annotated"


def pattern_path(language: str, relation: str) -> str:
    return f"{PATTERNS}/{language}/{relation}.jsonl"


def tuple_path(language: str, relation: str) -> str:
    return f"{TUPLES}/{language}/{relation}.jsonl"


# ---------------------------------------------------------------- one file's rows
# a row of the flat Hugging Face tables (HF_COLUMNS): strings, `checked_by_human` and `lineid`
HFRow = dict[str, str | bool | int | None]


@dataclass(frozen=True)
class PatternRow:
    pattern: str
    checked_by_human: bool
    line: int  # 1-based line in its file
    annotated: str | None = None  # the annotated template whose plain form `pattern` is (`annotated` key)

    @property
    def template(self) -> str:
        """The template the line stands for: its annotated form when it has one, else `pattern`
        (what a probe of the folder fills; mParaRel's code reads `pattern`)."""
        return self.annotated if self.annotated is not None else self.pattern


def line_template(row: PatternRow, language: str, where: str) -> str:
    """The template a patterns line stands for — THE rule every reader of a release folder
    follows (`release import`, `curator probe` and `curator queries` on a folder; docs/release.md
    "Annotated templates"): its `annotated` key when it has one, which must be an annotated
    template the parser accepts whose plain form is the line's `pattern` (so that exporting it
    again writes the same line), else its `pattern`, read as plain text. A `pattern` that is
    itself an accepted annotated template is refused: an export writes it under `annotated`, and
    mParaRel's code would read its brackets as words. A `pattern` with a bracket the parser does
    not accept (an MT line kept as published, "[X] fan x] is [Y].") is plain text.
    ReleaseError: one line naming file, line and field."""
    if row.annotated is None:
        if templates_annotated.accepts(row.pattern, language):
            raise ReleaseError(
                "holds an annotated template; `pattern` holds only [X]/[Y] (its plain form) and the "
                "annotated one goes under `annotated`",
                location=where,
                line=row.line,
                field="pattern",
            )
        return row.pattern
    if not templates_annotated.is_annotated(row.annotated):
        raise ReleaseError("no annotation in it", location=where, line=row.line, field="annotated")
    try:
        plain = templates_annotated.plain(row.annotated, language)
    except templates_annotated.AnnotationError as exc:
        raise ReleaseError(str(exc), location=where, line=row.line, field="annotated") from None
    if plain != row.pattern:
        raise ReleaseError(
            f"`pattern` is not the plain form of `annotated` ({plain!r})",
            location=where,
            line=row.line,
            field="pattern",
        )
    return row.annotated


def parse_patterns(
    data: bytes, where: str, tally: InvisibleTally | None = None, name: str | None = None
) -> list[PatternRow]:
    """The templates of one patterns file, in file order; `checked-by-human` defaults to false.
    Invisible characters are kept (and counted into `tally` under `name`, default `where`);
    only NUL is refused."""
    rows: list[PatternRow] = []
    for number, obj in iter_jsonl(data, where, error=ReleaseError):
        pattern = require(obj, "pattern", str, where, number, error=ReleaseError)
        unstorable = unstorable_reason(pattern)
        if unstorable:
            raise ReleaseError(unstorable, location=where, line=number, field="pattern")
        if tally is not None:
            tally.add(name or where, number, pattern)
        checked = optional(
            obj,
            "checked-by-human",
            bool,
            where,
            number,
            False,
            null=False,
            expected="expected true or false",
            error=ReleaseError,
        )
        annotated = optional(obj, "annotated", str, where, number, None, error=ReleaseError)
        if annotated is not None and (unstorable := unstorable_reason(annotated)):
            raise ReleaseError(unstorable, location=where, line=number, field="annotated")
        rows.append(PatternRow(pattern, checked, number, annotated))
    return rows


def read_manifest(source: Source | str | Path) -> dict[str, Any] | None:
    """manifest.json of a release (None without one: the published release has none); a manifest
    that is not a JSON object is an error."""
    source = source if isinstance(source, Source) else FolderSource(source)
    data = source.read_optional(MANIFEST)
    if data is None:
        return None
    try:
        info = json.loads(data)
    except ValueError:
        raise ReleaseError("not valid JSON", location=source.describe(MANIFEST)) from None
    if not isinstance(info, dict):
        raise ReleaseError("expected a JSON object", location=source.describe(MANIFEST))
    return info


# ---------------------------------------------------------------- the file list
@dataclass(frozen=True)
class ReleaseFile:
    kind: str  # PATTERNS or TUPLES
    language: str  # the folder name, as written
    relation: str
    path: str  # POSIX path inside the release


def release_files(source: Source, allow_empty: bool = False) -> list[ReleaseFile]:
    """Every patterns and tuples file of a release, sorted by kind, language and file name.

    `hf/` (the Hugging Face tables of an `--hf` export) is skipped; any other `.jsonl` off the
    layout is an error naming it; no file at all is an error unless `allow_empty`."""
    found: list[ReleaseFile] = []
    for path in source.files(".jsonl"):
        parts = path.split("/")
        if parts[0] == HF and len(parts) == 2:
            continue
        rel = parts[-1][: -len(".jsonl")]
        if len(parts) != 3 or not RELATION_ID.match(rel):
            raise ReleaseError(f"unexpected file: expected the layout {LAYOUT}", location=source.describe(path))
        if parts[0] not in (PATTERNS, TUPLES):
            raise ReleaseError(
                "unexpected file: a release holds only patterns/ and tuples/", location=source.describe(path)
            )
        check_code(parts[1], source.describe(path))
        found.append(ReleaseFile(parts[0], parts[1], rel, path))
    if not found and not allow_empty:
        raise ReleaseError(f"no .jsonl files found: expected the layout {LAYOUT}", location=source.location)
    return sorted(found, key=lambda f: (f.kind, f.language, f.path.rsplit("/", 1)[1]))


# ---------------------------------------------------------------- a local release folder
@dataclass
class RelationRecord:
    language: str
    relation: str
    patterns: list[PatternRow]
    tuples: list[TupleRow] | None  # None when the release has no tuples file for it
    where: str = ""  # the patterns file, as errors name it

    def templates(self) -> list[str]:
        """The templates of the relation, each line read by `line_template` (the one rule)."""
        return [line_template(row, self.language, self.where) for row in self.patterns]


class Release:
    """A release folder on disk, read through the one layout (`release_files`)."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root)
        if not (self.root / PATTERNS).is_dir():
            raise ReleaseError(f"not a release directory: no {PATTERNS}/ folder", location=str(self.root))
        self.source = FolderSource(self.root)
        self.files = release_files(self.source, allow_empty=True)
        self._by_key = {(f.kind, f.language, f.relation): f for f in self.files}

    @staticmethod
    def is_release(root: str | Path) -> bool:
        return (Path(root) / PATTERNS).is_dir()

    def describe(self, file: ReleaseFile) -> str:
        return self.source.describe(file.path)

    def pattern_files(
        self, languages: Iterable[str] | None = None, relations: Iterable[str] | None = None
    ) -> list[ReleaseFile]:
        """The patterns files (optionally of some languages and relations), sorted."""
        languages, relations = set(languages or ()), set(relations or ())
        return [
            f
            for f in self.files
            if f.kind == PATTERNS
            and (not languages or f.language in languages)
            and (not relations or f.relation in relations)
        ]

    def tuple_files(self) -> list[ReleaseFile]:
        return [f for f in self.files if f.kind == TUPLES]

    def languages(self) -> list[str]:
        return sorted({f.language for f in self.files if f.kind == PATTERNS})

    def _file(self, kind: str, language: str, relation: str) -> ReleaseFile | None:
        return self._by_key.get((kind, language, relation))

    def patterns(self, language: str, relation: str, tally: InvisibleTally | None = None) -> list[PatternRow]:
        """The templates of a relation in file order (none when it has no patterns file); their
        invisible characters are counted into `tally` under the file's path in the release."""
        file = self._file(PATTERNS, language, relation)
        return parse_patterns(self.source.read(file.path), self.describe(file), tally, file.path) if file else []

    def has_tuples(self, language: str, relation: str) -> bool:
        return self._file(TUPLES, language, relation) is not None

    def tuples(self, language: str, relation: str) -> list[TupleRow] | None:
        """The tuple rows of a relation (see `parse_tuples`), None when it has no tuples file."""
        file = self._file(TUPLES, language, relation)
        return parse_tuples(self.source.read(file.path), self.describe(file))[1] if file else None

    def count_invisible(self, language: str, relation: str, tally: InvisibleTally) -> None:
        """Count the invisible characters of a relation's tuples file into `tally` under its path
        in the release. A file that cannot hold one (no such character, raw or as a JSON escape:
        nearly all of them) is not parsed; one that may is read as `tuples` reads it."""
        file = self._file(TUPLES, language, relation)
        if file:
            data = self.source.read(file.path)
            if may_hold_invisible(data):
                parse_tuples(data, self.describe(file), tally, file.path)

    def count_tuples(self, language: str, relation: str) -> int:
        """Tuples of a relation, counted (non-blank lines), not parsed; 0 without a tuples file."""
        file = self._file(TUPLES, language, relation)
        return count_records(self.source.read(file.path)) if file else 0

    def relations(
        self,
        languages: Iterable[str] | None = None,
        relations: Iterable[str] | None = None,
        require_tuples: bool = False,
    ) -> Iterator[RelationRecord]:
        """Per patterns file (sorted by language, then file name): its templates and its tuples;
        with `require_tuples`, relations without a tuples file are left out."""
        for file in self.pattern_files(languages, relations):
            if require_tuples and not self.has_tuples(file.language, file.relation):
                continue
            yield RelationRecord(
                file.language,
                file.relation,
                self.patterns(file.language, file.relation),
                self.tuples(file.language, file.relation),
                self.describe(file),
            )

    def manifest(self) -> dict[str, Any] | None:
        return read_manifest(self.source)

    def hf_columns(self, kind: str) -> tuple[str, ...]:
        """The columns of the flat Hugging Face table `kind`: HF_COLUMNS, and for the patterns
        HF_ANNOTATED when some line has an `annotated` key."""
        if kind == PATTERNS and any(
            row.annotated is not None
            for file in self.pattern_files()
            for row in self.patterns(file.language, file.relation)
        ):
            return (*HF_COLUMNS[kind], HF_ANNOTATED)
        return HF_COLUMNS[kind]

    def hf_rows(self, kind: str) -> Iterator[HFRow]:
        """The rows of the flat Hugging Face table `kind` (PATTERNS or TUPLES), columns as HF_COLUMNS
        (the patterns' rows also give HF_ANNOTATED: None on a line without one)."""
        for file in self.files:
            if file.kind != kind:
                continue
            head = {"language": file.language, "relation": file.relation}
            data, where = self.source.read(file.path), self.describe(file)
            if kind == PATTERNS:
                for row in parse_patterns(data, where):
                    yield {
                        **head,
                        "pattern": row.pattern,
                        "checked_by_human": row.checked_by_human,
                        "annotated": row.annotated,
                    }
            else:
                for r in parse_tuples(data, where)[1]:
                    # TUPLE_KEYS, in that order (a TypedDict is indexed by literal keys)
                    yield {
                        **head,
                        "sub_uri": r["sub_uri"],
                        "obj_uri": r["obj_uri"],
                        "obj_label": r["obj_label"],
                        "sub_label": r["sub_label"],
                        "lineid": r["lineid"],
                    }

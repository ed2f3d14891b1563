"""The release writer: a release folder in the mParaRel layout (core.formats.release), file by
file, with the sha256 of each for the manifest, and the Hugging Face Parquet copies (`--hf`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from json.encoder import encode_basestring_ascii  # the C encoder json.dumps uses for strings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.core import annotated
from curator.core.formats.jsonl import dumps
from curator.core.formats.release import (
    CARD,
    CLASSES_FILE,
    GENDERS_FILE,
    HF,
    HF_BATCH_ROWS,
    MANIFEST,
    PATTERNS,
    TUPLE_KEYS,
    TUPLES,
    Release,
    pattern_path,
    tuple_path,
)

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _hf_schema(names: tuple[str, ...]) -> pa.Schema:
    import pyarrow as pa

    types = {"checked_by_human": pa.bool_(), "lineid": pa.int64()}
    return pa.schema([(name, types.get(name, pa.string())) for name in names])


# A tuples line as `json.dumps` writes it (the published layout: ASCII escapes, ", " and ": "),
# filled in directly: a full export writes a million of them, and building a dict and running the
# general encoder for each took most of the export's time.
_TUPLE_LINE = "{" + ", ".join(f"{encode_basestring_ascii(key)}: %s" for key in TUPLE_KEYS) + "}\n"


def tuple_line(row: Sequence[object]) -> str:
    """One tuples line from a row's values in TUPLE_KEYS order, byte for byte what `json.dumps`
    gives (the usual row of four strings and an int is formatted directly, anything else goes
    through json.dumps)."""
    sub_uri, obj_uri, obj_label, sub_label, lineid = row
    if (
        type(sub_uri) is str
        and type(obj_uri) is str
        and type(obj_label) is str
        and type(sub_label) is str
        and type(lineid) is int
    ):
        return _TUPLE_LINE % (
            encode_basestring_ascii(sub_uri),
            encode_basestring_ascii(obj_uri),
            encode_basestring_ascii(obj_label),
            encode_basestring_ascii(sub_label),
            int.__repr__(lineid),
        )
    return json.dumps(dict(zip(TUPLE_KEYS, row, strict=True))) + "\n"


def pattern_line(template: str, checked: bool, language: str) -> dict[str, str | bool]:
    """A patterns line: {"pattern", "checked-by-human"}, and "annotated" for a template the parser
    accepts (`annotated.accepts`; then "pattern" is `annotated.plain`). Any other text, a stray
    bracket of an MT line kept as published too, is plain and written as it is."""
    if annotated.accepts(template, language):
        return {"pattern": annotated.plain(template, language), "checked-by-human": checked, "annotated": template}
    return {"pattern": template, "checked-by-human": checked}


def _tsv(text: str) -> str:
    """A label as one tab-separated field (a tab or line break in it would split the line)."""
    return " ".join(text.replace("\t", " ").splitlines())


class ReleaseWriter:
    """Writes a release folder file by file and keeps the sha256 of each (for the manifest).

    Same rows, same bytes: JSONL as the published files (`jsonl.dumps`), the manifest with
    sorted file digests and a fixed layout, Parquet without timestamps."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.digests: dict[str, str] = {}
        # (language, relation, pattern) written on more than one line of its file: an annotated template
        # whose plain form equals a sibling's (mParaRel's code keys predictions by this text)
        self.shared: list[tuple[str, str, str]] = []

    def _write(self, rel_path: str, data: bytes) -> None:
        path = self.root / rel_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.digests[rel_path] = hashlib.sha256(data).hexdigest()

    def write_patterns(self, language: str, relation: str, rows: Iterable[tuple[str, bool]]) -> None:
        """One patterns file from (pattern, checked-by-human) pairs. An annotated template is
        written as its plain form under `pattern` (only [X]/[Y]: the published mParaRel code reads
        it) and as it is under `annotated` (`pattern_line`). Two lines with the same `pattern` are
        written both (curated work is never dropped) and noted in `shared` for the caller to warn."""
        lines = [pattern_line(pattern, checked, language) for pattern, checked in rows]
        seen: set[object] = set()
        for line in lines:
            if line["pattern"] in seen:
                self.shared.append((language, relation, str(line["pattern"])))
            seen.add(line["pattern"])
        self._write(pattern_path(language, relation), dumps(lines))

    def write_tuples(self, language: str, relation: str, rows: Iterable[Sequence[object]]) -> None:
        """One tuples file; each row holds the values of TUPLE_KEYS, in that order (a database row
        as it comes: no dict built for each of a full export's million lines)."""
        self._write(tuple_path(language, relation), "".join(map(tuple_line, rows)).encode("utf-8"))

    def write_entities(self, genders: Mapping[str, str], classes: Mapping[str, Mapping[str, str]]) -> None:
        """genders.tsv and instanceof.tsv: the stored gender (`<id>\t<male|female|none>`) and classes
        (`<id>\t<class id>,<label>\t…`) of entities, sorted by id: X-FACTR's files' layout, which
        `curator ingest genders|instanceof` and a probe of the folder read."""
        self._write(GENDERS_FILE, "".join(f"{qid}\t{genders[qid]}\n" for qid in sorted(genders)).encode("utf-8"))
        lines = (
            qid + "".join(f"\t{c},{_tsv(classes[qid][c])}" for c in sorted(classes[qid])) + "\n"
            for qid in sorted(classes)
        )
        self._write(CLASSES_FILE, "".join(lines).encode("utf-8"))

    def write_hf(self) -> None:
        """hf/<kind>.jsonl and hf/<kind>.parquet from the patterns and tuples written so far, read
        back through `Release` (so the tables hold exactly what the release files hold)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        def flush(parquet: pq.ParquetWriter, columns: Mapping[str, list[Any]], schema: pa.Schema) -> None:
            """Write the rows gathered in `columns` (if any) as one row group, and empty it."""
            if next(iter(columns.values())):
                parquet.write_table(pa.table(columns, schema=schema))
                for values in columns.values():
                    values.clear()

        release = Release(self.root)
        for kind in (PATTERNS, TUPLES):
            jsonl_path, parquet_path = f"{HF}/{kind}.jsonl", f"{HF}/{kind}.parquet"
            (self.root / HF).mkdir(parents=True, exist_ok=True)
            names = release.hf_columns(kind)  # with `annotated` when a patterns line has one
            schema = _hf_schema(names)
            columns: dict[str, list[str | bool | int | None]] = {name: [] for name in names}
            with (
                (self.root / jsonl_path).open("wb") as jsonl,
                pq.ParquetWriter(self.root / parquet_path, schema, compression="snappy") as parquet,
            ):
                for row in release.hf_rows(kind):
                    jsonl.write((json.dumps({name: row[name] for name in names}) + "\n").encode("utf-8"))
                    for name in names:
                        columns[name].append(row[name])
                    if len(columns[names[0]]) >= HF_BATCH_ROWS:
                        flush(parquet, columns, schema)
                flush(parquet, columns, schema)
            self.digests[jsonl_path] = _sha256(self.root / jsonl_path)
            self.digests[parquet_path] = _sha256(self.root / parquet_path)

    def write_manifest(self, info: Mapping[str, Any]) -> None:
        (self.root / MANIFEST).write_text(json.dumps(info, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    def write_card(self, text: str) -> None:
        (self.root / CARD).write_text(text, encoding="utf-8")

"""The one JSONL reader (and writer) of the project.

Every `.jsonl` file curator reads — ParaRel patterns, MT output, tuples, mLAMA templates,
legacy reviews, release folders, the tiny-model corpus — goes through `iter_jsonl`, so bad
input is reported the same way everywhere: one `InputError` naming the file, the 1-based
line and, through `require` / `optional`, the field.

Rules (the same for every caller):
- the bytes are UTF-8 (a leading BOM is ignored); anything else names the byte offset;
- lines end at "\\n" (a "\\r" before it is dropped); Unicode line separators such as U+2028
  or U+0085 inside a value are text, not line ends (`str.splitlines` would split them);
- blank lines (only whitespace) are skipped but still counted, so line numbers are the
  ones an editor shows;
- every other line is one JSON object; a malformed line or a non-object is an error.

`error` lets a caller raise its own subclass of InputError (the release reader's
`ReleaseError` is also a ValueError, as its callers expect) with the same message.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar, overload

from curator.core.errors import InputError

_MISSING = object()
T = TypeVar("T")
D = TypeVar("D")
# One parsed JSONL line: a JSON object, whose values are whatever `json.loads` made of them
# (`require` / `optional` check and narrow a field's type).
JSONObject = dict[str, Any]


def _text(data: bytes | str, location: str, error: type[InputError]) -> str:
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text (byte {exc.start})", location=location) from None


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.split("\n"), start=1):
        yield number, line[:-1] if line.endswith("\r") else line


def iter_jsonl(
    data: bytes | str, location: str, *, error: type[InputError] = InputError
) -> Iterator[tuple[int, JSONObject]]:
    """(1-based line number, object) per non-blank line; bad JSON names file and line."""
    for number, line in _lines(_text(data, location, error)):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"malformed JSON ({exc.msg} at column {exc.colno})", location=location, line=number) from None
        if not isinstance(obj, dict):
            raise error("expected a JSON object", location=location, line=number)
        yield number, obj


def read_bytes(path: str | Path, *, error: type[InputError] = InputError) -> bytes:
    """A local file's bytes; an unreadable or missing file is an `error` naming it."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", location=str(path)) from None


def read_jsonl(path: str | Path, *, error: type[InputError] = InputError) -> Iterator[tuple[int, JSONObject]]:
    """`iter_jsonl` over a local file."""
    return iter_jsonl(read_bytes(path, error=error), str(path), error=error)


def count_records(data: bytes | str) -> int:
    """Non-blank lines, counted without parsing them (by the same line rules as `iter_jsonl`)."""
    text = data.decode("utf-8-sig", errors="replace") if isinstance(data, bytes) else data
    return sum(1 for _, line in _lines(text) if line.strip())


def _type_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(getattr(k, "__name__", str(k)) for k in kinds)


def _is(value: object, kind: type | tuple[type, ...]) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:  # True is an int to Python, not to a JSON schema
        return False
    return isinstance(value, kinds)


@overload
def require(
    obj: Mapping[str, Any], field: str, kind: type[T], location: str, line: int, *, error: type[InputError] = ...
) -> T: ...


@overload
def require(
    obj: Mapping[str, Any],
    field: str,
    kind: tuple[type, ...],
    location: str,
    line: int,
    *,
    error: type[InputError] = ...,
) -> object: ...


def require(
    obj: Mapping[str, Any],
    field: str,
    kind: type | tuple[type, ...],
    location: str,
    line: int,
    *,
    error: type[InputError] = InputError,
) -> object:
    """obj[field], which must be present and of `kind`; otherwise an error naming file, line and field."""
    if field not in obj:
        raise error("missing", location=location, line=line, field=field)
    value = obj[field]
    if not _is(value, kind):
        raise error(
            f"expected {_type_name(kind)}, got {type(value).__name__}", location=location, line=line, field=field
        )
    return value


@overload
def optional(
    obj: Mapping[str, Any],
    field: str,
    kind: type[T],
    location: str,
    line: int,
    default: None = None,
    *,
    null: bool = ...,
    expected: str | None = ...,
    error: type[InputError] = ...,
) -> T | None: ...


@overload
def optional(
    obj: Mapping[str, Any],
    field: str,
    kind: type[T],
    location: str,
    line: int,
    default: D,
    *,
    null: bool = ...,
    expected: str | None = ...,
    error: type[InputError] = ...,
) -> T | D: ...


@overload
def optional(
    obj: Mapping[str, Any],
    field: str,
    kind: tuple[type, ...],
    location: str,
    line: int,
    default: object = None,
    *,
    null: bool = ...,
    expected: str | None = ...,
    error: type[InputError] = ...,
) -> object: ...


def optional(
    obj: Mapping[str, Any],
    field: str,
    kind: type | tuple[type, ...],
    location: str,
    line: int,
    default: object = None,
    *,
    null: bool = True,
    expected: str | None = None,
    error: type[InputError] = InputError,
) -> object:
    """obj[field] when present, else `default`; null counts as absent unless `null=False`. A value
    of another type is an error (`expected` words the message, e.g. "expected true or false")."""
    value = obj.get(field, _MISSING)
    if value is _MISSING or (value is None and null):
        return default
    if not _is(value, kind):
        raise error(
            expected or f"expected {_type_name(kind)}, got {type(value).__name__}",
            location=location,
            line=line,
            field=field,
        )
    return value


def dumps(records: Iterable[Mapping[str, object]], *, ascii: bool = True) -> bytes:
    """JSONL bytes as the published mParaRel files are written: `json.dumps` defaults (ASCII
    escapes, ", " and ": "), one object per line, every line ending in "\\n". `ascii=False`
    keeps non-ASCII text as UTF-8 (MT output a person reads in an editor)."""
    return "".join(json.dumps(r, ensure_ascii=ascii) + "\n" for r in records).encode("utf-8")

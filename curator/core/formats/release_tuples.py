"""The tuples files of a release: the one reader of a `tuples/<lang>/<REL>.jsonl` file
(`parse_tuples`, also what `curator ingest` reads raw T-REx files with) and the quick pass that
tells whether a file may hold an invisible character at all (`may_hold_invisible`).

The rest of the layout (patterns, manifest, the file list, `Release`) is core/formats/release.py.
Errors are `ReleaseError`: an InputError (one line naming file, line and field) that is also a
ValueError, as the statistics API has always raised. Labels keep their invisible characters
(counted into an `InvisibleTally` when the caller passes one); only NUL is refused.
"""

from __future__ import annotations

import re
from typing import Any, NoReturn, TypedDict

from curator.core.errors import InputError
from curator.core.formats.jsonl import iter_jsonl, require
from curator.core.text import InvisibleTally, is_invisible, unstorable_reason


class ReleaseError(InputError):
    """A release folder or one of its files cannot be read; the message names file, line and field."""


class TupleRow(TypedDict):
    """One row of a tuples file as `parse_tuples` gives it (raw or cleaned alike)."""

    sub_uri: str
    obj_uri: str
    sub_label: str
    obj_label: str
    from_english: bool  # raw T-REx rows: the label exists only in English; cleaned rows: False
    lineid: int  # cleaned rows: as written; raw rows: the 0-based line


_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|[bfnrt])")
_SHORT_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def may_hold_invisible(data: bytes) -> bool:
    """False when no value of this JSONL can hold an invisible character: none raw (besides the
    line ends and JSON's own whitespace) and none as a JSON escape. A quick pass over the bytes
    (the published tuples are 150 MB), so only the few files that may are parsed."""
    text = data.decode("utf-8-sig", errors="replace")
    # raw: outside ASCII, or DEL (ASCII's other controls are not JSON inside a string)
    if (not text.isascii() or "\x7f" in text) and any(is_invisible(ch) for ch in set(text) - {"\n", "\r", "\t"}):
        return True
    for escape in set(_ESCAPE.findall(text)):
        ch = _SHORT_ESCAPES.get(escape) or chr(int(escape[1:], 16))
        # a character above U+FFFF is written as a surrogate pair (\udb40\udc67 = U+E0067 TAG
        # SMALL G): each half alone is no character, so any pair sends the file to the parser
        if is_invisible(ch) or 0xD800 <= ord(ch) <= 0xDBFF:
            return True
    return False


_TEXT_FIELDS = ("sub_uri", "obj_uri", "sub_label", "obj_label")


def _refuse_text_fields(obj: dict[str, Any], where: str, number: int) -> NoReturn:
    """The error for a tuple row whose text fields are not all strings without NUL, naming the
    first field at fault (in the order the file's reader has always reported them)."""
    text = {key: require(obj, key, str, where, number, error=ReleaseError) for key in _TEXT_FIELDS}
    for key in ("sub_label", "obj_label", "sub_uri", "obj_uri"):
        unstorable = unstorable_reason(text[key])
        if unstorable:
            raise ReleaseError(unstorable, location=where, line=number, field=key)
    raise AssertionError("unreachable: the row's text fields are all storable strings")


def parse_tuples(
    data: bytes, where: str, tally: InvisibleTally | None = None, name: str | None = None
) -> tuple[str, list[TupleRow]]:
    """('clean' | 'raw', rows) of one tuples file with every field checked.

    Rows are `{sub_uri, obj_uri, sub_label, obj_label, lineid, from_english}`. The form is
    detected per file: raw T-REx rows carry `from_english` (true: the label exists only in
    English) and their 0-based line stands in for `lineid`; cleaned rows (what a release
    holds) carry `lineid`. A file mixing the two is an error. Labels keep their invisible
    characters (counted into `tally` under `name`, default `where`; the published labels hold
    339 LEFT-TO-RIGHT MARKs); only NUL is refused."""
    rows: list[TupleRow] = []
    form = None
    # Most files hold no invisible character at all (a quick pass over the bytes says so); only
    # the others are tallied row by row.
    tallied = tally if tally is not None and may_hold_invisible(data) else None
    for number, obj in iter_jsonl(data, where, error=ReleaseError):
        this = "raw" if "from_english" in obj else "clean"
        if form is None:
            form = this
        elif this != form:
            raise ReleaseError(
                f"mixes cleaned and raw rows (this row is {this}, the first was {form})",
                location=where,
                line=number,
                field="from_english",
            )
        sub_uri, obj_uri, sub_label, obj_label = (obj.get(key) for key in _TEXT_FIELDS)
        # the common case decided in one step; anything else is refused by the checks naming the field
        if not (
            type(sub_uri) is str
            and type(obj_uri) is str
            and type(sub_label) is str
            and type(obj_label) is str
            and "\x00" not in sub_uri + obj_uri + sub_label + obj_label
        ):
            _refuse_text_fields(obj, where, number)
        if tallied is not None:
            tallied.add(name or where, number, sub_label, obj_label, sub_uri, obj_uri)
        if form == "raw":
            from_english = require(obj, "from_english", bool, where, number, error=ReleaseError)
            lineid = number - 1
        else:
            from_english = False
            stored = obj.get("lineid")
            lineid = stored if type(stored) is int else require(obj, "lineid", int, where, number, error=ReleaseError)
        rows.append(
            TupleRow(
                sub_uri=sub_uri,
                obj_uri=obj_uri,
                sub_label=sub_label,
                obj_label=obj_label,
                from_english=from_english,
                lineid=lineid,
            )
        )
    return form or "clean", rows

"""Which files of a source belong to which layout, with a clear error for strays."""

from __future__ import annotations

import re
from collections.abc import Sequence

from curator.core.errors import InputError
from curator.core.formats.sources import Source
from curator.core.languages import check_code

RELATION_ID = re.compile(r"^P\d+$")


def layout_files(
    source: Source, depth: int, expected: str, language_at: int | None = None
) -> list[tuple[list[str], str]]:
    """The `.jsonl` files `depth` folders down, as (folder parts + relation id, path).

    Any `.jsonl` at another depth, or not named after a relation, is an error that names it,
    because a half-matching tree usually means the wrong folder was given. The folder at
    `language_at` must be a language code (`languages.check_code`).
    """
    found = []
    for path in source.files(".jsonl"):
        parts = path.split("/")
        rel = parts[-1][: -len(".jsonl")]
        if len(parts) != depth + 1 or not RELATION_ID.match(rel):
            raise InputError(f"unexpected file: expected the layout {expected}", location=source.describe(path))
        if language_at is not None:
            check_code(parts[language_at], source.describe(path))
        found.append((parts[:-1] + [rel], path))
    if not found:
        raise InputError(f"no .jsonl files found: expected the layout {expected}", location=source.location)
    return found


def refuse_duplicates(source: Source, keyed: Sequence[tuple[tuple[str, ...], str]], what: str) -> None:
    """Two files for one key (e.g. `zh/P19.jsonl` and `zh-hans/P19.jsonl`, which name the same
    language once aliases are applied) would both write the same rows: refuse, naming both."""
    seen: dict[tuple[str, ...], str] = {}
    for key, path in keyed:
        if key in seen:
            raise InputError(
                f"same {what} ({'/'.join(key)}) as {source.describe(seen[key])}: keep one of the two files",
                location=source.describe(path),
            )
        seen[key] = path

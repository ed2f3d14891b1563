"""Which files of a source belong to which layout, with a clear error for strays."""
from __future__ import annotations

import re

from curator.core.errors import InputError
from curator.core.formats.sources import Source

RELATION_ID = re.compile(r"^P\d+$")


def layout_files(source: Source, depth: int, expected: str) -> list[tuple[list[str], str]]:
    """The `.jsonl` files `depth` folders down, as (folder parts + relation id, path).

    Any `.jsonl` at another depth, or not named after a relation, is an error that names it,
    because a half-matching tree usually means the wrong folder was given.
    """
    found = []
    for path in source.files(".jsonl"):
        parts = path.split("/")
        rel = parts[-1][: -len(".jsonl")]
        if len(parts) != depth + 1 or not RELATION_ID.match(rel):
            raise InputError(source.describe(path), f"unexpected file: expected the layout {expected}")
        found.append((parts[:-1] + [rel], path))
    if not found:
        raise InputError(source.location, f"no .jsonl files found: expected the layout {expected}")
    return found

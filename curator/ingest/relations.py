"""Plain-language titles of the ParaRel relations: their Wikidata property labels.

The ids (P19, P17, …) mean nothing to a volunteer; the review screen shows "place of birth"
with the id small beside it. The titles live in `relation_titles.json` (package data); an id
without one falls back to the relation's lemma, then to the id itself.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib.resources import files


@lru_cache(maxsize=1)
def relation_titles() -> dict[str, str]:
    """{relation id: Wikidata property label in English}."""
    titles: dict[str, str] = json.loads((files("curator.ingest") / "relation_titles.json").read_text(encoding="utf-8"))
    return titles


def relation_title(relation_id: str, lemma: str | None = None) -> str:
    """The plain-language title of a relation, e.g. relation_title("P19") == "place of birth"."""
    title = relation_titles().get(relation_id)
    if title:
        return title
    return lemma.replace("-", " ") if lemma else relation_id

"""Plain-language titles of the ParaRel relations: their Wikidata property labels.

The ids (P19, P17, …) mean nothing to a volunteer; the review screen shows "place of birth"
with the id small beside it. The titles live in `relation_titles.json` (package data); an id
without one falls back to the relation's lemma, then to the id itself.

Titles in other languages (the interface language of the review app) live in
`relation_titles_translated.json`, {language: {relation id: Wikidata label}}: Spanish and Arabic
for every relation of the data. `localized_relation_title` gives the title in a language with
the language it is really in, so a page can mark an English fallback `lang="en"`; which
language to ask for is the web layer's choice (ingest knows nothing of requests).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib.resources import files
from typing import NamedTuple


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


class LocalizedTitle(NamedTuple):
    """A relation's title and the language it is in (the one asked for, or "en" when it fell back)."""

    text: str
    lang: str


@lru_cache(maxsize=1)
def translated_relation_titles() -> dict[str, dict[str, str]]:
    """{language: {relation id: Wikidata property label in that language}}."""
    path = files("curator.ingest") / "relation_titles_translated.json"
    titles: dict[str, dict[str, str]] = json.loads(path.read_text(encoding="utf-8"))
    return titles


def localized_relation_title(relation_id: str, language: str, lemma: str | None = None) -> LocalizedTitle:
    """The title of a relation in `language`, else in English (marked so): e.g.
    localized_relation_title("P19", "es") == ("lugar de nacimiento", "es")."""
    title = translated_relation_titles().get(language, {}).get(relation_id)
    if title:
        return LocalizedTitle(title, language)
    return LocalizedTitle(relation_title(relation_id, lemma), "en")

"""Names an entity goes by, and when a decoded string names it (X-FACTR's evaluation).

Open-vocabulary decoding (`curator probe --decode …`) predicts text, not a candidate. X-FACTR
counts a prediction correct when it matches the gold object or one of its aliases (Wikidata's
labels and aliases) after lowercasing. Here a string *names* an entity when its normal form
equals the normal form of one of the entity's names:

  normal form   Unicode NFKC, case-folded (lowercasing that also handles "ß", final sigma …),
                whitespace runs collapsed to one space, and punctuation (not symbols:
                "C++" stays) at either end stripped (a decoded "Roma ." or "«Roma»" still
                names Roma).

The names of an entity in a language are every label the release gives it there — as the
object or the subject of any relation, so "EE. UU." from one relation's tuples and
"Estados Unidos" from another's both count — plus, when `--aliases FILE` is given, the aliases
listed there (Wikidata's, say). FILE is JSON lines:

    {"id": "Q30", "aliases": ["USA", "EE. UU."], "language": "es"}   # "language" optional: all

A bad line is an InputError naming the file, the line and the field.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

from curator.core.errors import InputError
from curator.core.formats.jsonl import read_jsonl

_SPACE = re.compile(r"\s+")


def _is_punct(ch: str) -> bool:
    """Punctuation (Unicode P*), not symbols: "C++" and "−5" keep theirs."""
    return unicodedata.category(ch)[0] == "P"


def normal(text: str) -> str:
    """The form two names are compared in (module docstring)."""
    text = _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()
    start, end = 0, len(text)
    while start < end and (_is_punct(text[start]) or text[start] == " "):
        start += 1
    while end > start and (_is_punct(text[end - 1]) or text[end - 1] == " "):
        end -= 1
    return text[start:end]


class Labelled(Protocol):
    """What `Aliases.from_labels` reads of a relation's data (probe's RelationData, which core
    cannot import): its language and the (entity id, label) pairs of subjects and candidates."""

    @property
    def language(self) -> str: ...

    @property
    def subjects(self) -> Sequence[tuple[str, str]]: ...

    @property
    def candidates(self) -> Sequence[tuple[str, str]]: ...


class Aliases:
    """Normal-form names per (language, entity id)."""

    def __init__(self) -> None:
        self.names: dict[tuple[str, str], set[str]] = {}
        self.extra: dict[str, set[str]] = {}  # from a file without a language: every language

    def add(self, language: str, entity: str, name: str) -> None:
        form = normal(name)
        if entity and form:
            self.names.setdefault((language, entity), set()).add(form)

    def of(self, language: str, entity: str) -> set[str]:
        return self.names.get((language, entity), set()) | self.extra.get(entity, set())

    @classmethod
    def from_labels(cls, items: Iterable[Labelled]) -> Aliases:
        """The labels a release gives each entity, from probe RelationData (subjects and candidates)."""
        out = cls()
        for data in items:
            for entity, label in list(data.subjects) + list(data.candidates):
                out.add(data.language, entity, label)
        return out

    def read(self, path: str | Path) -> Aliases:
        """Add the aliases of a JSON-lines file (module docstring); returns self."""
        path = Path(path)
        if not path.exists():
            raise InputError("no such aliases file", location=str(path))
        # the project's one JSONL reader: its line rules (a U+2028 in a name is text) and messages
        for number, row in read_jsonl(path):
            entity, names, language = row.get("id"), row.get("aliases"), row.get("language")
            if not isinstance(entity, str) or not entity.strip():
                raise InputError(
                    'expected an entity id (a string such as "Q30")', location=str(path), line=number, field="id"
                )
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise InputError("expected a list of strings", location=str(path), line=number, field="aliases")
            if language is not None and (not isinstance(language, str) or not language.strip()):
                raise InputError("expected a language code", location=str(path), line=number, field="language")
            for name in names:
                if language is None:
                    form = normal(name)
                    if form:
                        self.extra.setdefault(entity.strip(), set()).add(form)
                else:
                    self.add(language.strip(), entity.strip(), name)
        return self


def matcher(aliases: Aliases, language: str, entities: Iterable[str]) -> dict[str, list[str]]:
    """normal form → the entities (of `entities`, in their order) that go by it."""
    out: dict[str, list[str]] = {}
    for entity in entities:
        for form in sorted(aliases.of(language, entity)):
            out.setdefault(form, []).append(entity)
    return out

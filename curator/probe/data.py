"""Probe inputs: per language and relation, the templates, the tuples and the candidate set.

The candidate set of a relation in a language is every object of that relation there
(SPEC §5), identified by entity id so rankings compare across languages (RankC).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core import annotated
from curator.core.errors import InputError

if TYPE_CHECKING:
    from curator.core.agreement import Stored
from curator.core.formats.release import CLASSES_FILE, GENDERS_FILE, Release


@dataclass
class RelationData:
    language: str
    relation: str
    templates: list[str]
    subjects: list[tuple[str, str]]  # (entity id, label) per tuple
    objects: list[str]  # gold object entity id per tuple
    candidates: list[tuple[str, str]] = field(default_factory=list)  # (entity id, label), sorted by id
    # per tuple, what its subject (X) and gold object (Y) agree with; set by `with_agreement` when a
    # template is annotated (None: every annotation at its first form)
    agreements: list[annotated.Agreement] | None = None

    @property
    def gold(self) -> list[int]:
        index = {uri: i for i, (uri, _) in enumerate(self.candidates)}
        return [index[o] for o in self.objects]

    def digest(self) -> str:
        h = hashlib.sha256()
        content: list[Any] = [self.templates, self.subjects, self.objects, self.candidates]
        if self.agreements is not None:  # only then: the digests of plain releases stay as they were
            content.append([list(vars(a).values()) for a in self.agreements])
        h.update(json.dumps(content, ensure_ascii=False).encode())
        return h.hexdigest()

    def part(self, templates: Sequence[int], tuples: Sequence[int]) -> RelationData:
        """The relation cut to some templates and tuples (by position), agreements kept."""
        return RelationData(
            self.language,
            self.relation,
            [self.templates[t] for t in templates],
            [self.subjects[s] for s in tuples],
            [self.objects[s] for s in tuples],
            self.candidates,
            None if self.agreements is None else [self.agreements[s] for s in tuples],
        )

    @property
    def annotated(self) -> bool:
        return any(annotated.accepts(t, self.language) for t in self.templates)

    def filled(self) -> list[tuple[str, str]]:
        """(template, subject label) per query row, template-major (row q = template q // n, tuple
        q % n): THE fill every probe mode reads. An annotated template is realised for the row's
        agreement (`core.annotated.realise`: the forms agreeing with its subject and gold object;
        [X] and [Y] left for the scorer); a plain one is as written."""
        rows: list[tuple[str, str]] = []
        for template in self.templates:
            if not annotated.accepts(template, self.language):  # plain text, stray brackets and all
                rows.extend((template, label) for _, label in self.subjects)
                continue
            agreements = self.agreements or [annotated.Agreement()] * len(self.subjects)
            try:
                rows.extend(
                    (annotated.realise(template, agreement, self.language), label)
                    for (_, label), agreement in zip(self.subjects, agreements, strict=True)
                )
            except annotated.AnnotationError as exc:
                raise InputError(f"template {template!r}: {exc}", location=f"{self.language} {self.relation}") from None
        return rows


def build(
    language: str,
    relation: str,
    templates: Sequence[str],
    tuples: Sequence[Mapping[str, Any]],
    drop_repeated_subjects: bool = True,
) -> RelationData:
    """From raw tuple rows ({sub_uri, sub_label, obj_uri, obj_label}): candidate set and filtering.

    With `drop_repeated_subjects` (the default) a subject that occurs with more than one
    object is dropped: its 'gold' object would be ambiguous.
    """
    labels: dict[str, str] = {}
    objects_of: dict[str, set[str]] = {}
    for t in tuples:
        labels.setdefault(t["obj_uri"], t["obj_label"])
        objects_of.setdefault(t["sub_uri"], set()).add(t["obj_uri"])
    kept = [t for t in tuples if not drop_repeated_subjects or len(objects_of[t["sub_uri"]]) == 1]
    return RelationData(
        language,
        relation,
        list(templates),
        [(t["sub_uri"], t["sub_label"]) for t in kept],
        [t["obj_uri"] for t in kept],
        sorted(labels.items()),
    )


def with_agreement(
    items: list[RelationData], session: Session | None, stored: Stored | None = None
) -> list[RelationData]:
    """Each relation with an annotated template (`annotated.accepts`: the one rule; any other
    text, stray brackets and all, is plain) gets its tuples' agreements: the subject's and the
    gold object's gender and number in the relation's language (`core.agreement`, from the
    genders and classes stored in `session`, or `stored`: a release folder's own files,
    `folder_entities`; neither: the label rules alone)."""
    from curator.core.agreement import entity_guesses, query_agreement

    for data in items:
        if not data.annotated:
            continue
        labels = dict(data.candidates)
        entities = {**{uri: labels[uri] for uri in set(data.objects)}, **dict(data.subjects)}
        guesses = entity_guesses(session, entities, data.language, stored)
        data.agreements = [
            query_agreement(guesses[sub], guesses[obj])
            for (sub, _), obj in zip(data.subjects, data.objects, strict=True)
        ]
    return items


def folder_entities(root: str | Path) -> Stored | None:
    """The genders and classes a release folder carries (genders.tsv, instanceof.tsv: `release
    export` writes them beside an annotated template), as `core.agreement.entity_guesses` takes
    them; None when it has neither. A bad line is an InputError naming file, line and field."""
    from curator.ingest.genders import read_classes, read_genders

    genders_path, classes_path = Path(root) / GENDERS_FILE, Path(root) / CLASSES_FILE
    if not genders_path.is_file() and not classes_path.is_file():
        return None
    genders = read_genders([genders_path]) if genders_path.is_file() else {}
    classes = read_classes([classes_path]) if classes_path.is_file() else {}
    # class labels by class id, as the database gives them
    return genders, {qid: [found[c] for c in sorted(found)] for qid, found in classes.items()}


def from_directory(
    root: str | Path,
    languages: list[str] | None = None,
    relations: list[str] | None = None,
    drop_repeated_subjects: bool = True,
) -> Iterator[RelationData]:
    """Every relation of a release folder that has templates and a tuples file, read through the
    one release reader (bad input is a ReleaseError naming file, line and field). Tuples with a
    label only in English (raw T-REx rows marked `from_english`) are left out, as `release
    export` and `from_version` leave them out."""
    for record in Release(root).relations(languages, relations, require_tuples=True):
        assert record.tuples is not None  # require_tuples
        tuples = [t for t in record.tuples if not t["from_english"]]
        yield build(record.language, record.relation, record.templates(), tuples, drop_repeated_subjects)


def from_version(
    session: Session,
    name: str,
    languages: list[str] | None = None,
    relations: list[str] | None = None,
    drop_repeated_subjects: bool = True,
) -> Iterator[RelationData]:
    from curator.core.models import Tuple, VersionPattern, VersionTuples
    from curator.release.versions import get_version

    version = get_version(session, name)
    pairs = session.execute(
        select(VersionTuples.language, VersionTuples.relation_id, VersionTuples.list_id)
        .where(VersionTuples.version_id == version.id)
        .order_by(VersionTuples.language, VersionTuples.relation_id)
    ).all()
    for lang, rel, list_id in pairs:
        if (languages and lang not in languages) or (relations and rel not in relations):
            continue
        templates = session.scalars(
            select(VersionPattern.pattern)
            .where(
                VersionPattern.version_id == version.id,
                VersionPattern.language == lang,
                VersionPattern.relation_id == rel,
            )
            .order_by(VersionPattern.position)
        ).all()
        if not templates:
            continue
        rows = session.execute(
            select(Tuple.sub_qid, Tuple.sub_label, Tuple.obj_qid, Tuple.obj_label)
            .where(Tuple.list_id == list_id, Tuple.from_english.is_(False))
            .order_by(Tuple.position)
        ).all()
        tuples = [dict(sub_uri=s, sub_label=sl, obj_uri=o, obj_label=ol) for s, sl, o, ol in rows]
        yield build(lang, rel, templates, tuples, drop_repeated_subjects)


def query_rows(items: Sequence[RelationData], limit: int | None = None) -> Iterator[dict[str, str]]:
    """What a probe sends, per query: {language, relation, template (as stored), sub_uri, obj_uri,
    text} with `text` the template filled by `RelationData.filled` — the forms agreeing with the
    subject and object, the subject's label for [X] — and [Y] left as `[Y]` (each scorer writes
    its own mask or candidate there). Template-major within a relation, as the rows are scored;
    `limit`: at most that many rows per language and relation."""
    for data in items:
        n = len(data.subjects)
        rows = data.filled()
        count = len(rows) if limit is None else min(limit, len(rows))
        for q in range(count):
            text, label = rows[q]
            sub_uri = data.subjects[q % n][0]
            yield {
                "language": data.language,
                "relation": data.relation,
                "template": data.templates[q // n],
                "sub_uri": sub_uri,
                "obj_uri": data.objects[q % n],
                "text": text.replace("[X]", label),
            }

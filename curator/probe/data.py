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
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.formats.release import Release


@dataclass
class RelationData:
    language: str
    relation: str
    templates: list[str]
    subjects: list[tuple[str, str]]  # (entity id, label) per tuple
    objects: list[str]  # gold object entity id per tuple
    candidates: list[tuple[str, str]] = field(default_factory=list)  # (entity id, label), sorted by id

    @property
    def gold(self) -> list[int]:
        index = {uri: i for i, (uri, _) in enumerate(self.candidates)}
        return [index[o] for o in self.objects]

    def digest(self) -> str:
        h = hashlib.sha256()
        h.update(
            json.dumps([self.templates, self.subjects, self.objects, self.candidates], ensure_ascii=False).encode()
        )
        return h.hexdigest()


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
        yield build(
            record.language, record.relation, [p.pattern for p in record.patterns], tuples, drop_repeated_subjects
        )


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

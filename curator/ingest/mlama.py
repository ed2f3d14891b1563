"""Import mLAMA's templates: `<lang>/templates.jsonl`, lines `{"relation", "template", …}`.

The published mParaRel added each relation's mLAMA template to its agreed MT templates
when none of them was the same text, which made a few relations usable that had only one
agreed MT template. The raw MT data cannot contain these, so the `mpararel` rule profile
uses them when they have been imported; no other profile does. As in the published code,
relations that are not ParaRel relations (mLAMA also has Google-RE and others) are skipped,
and a language's later line for a relation replaces an earlier one. Templates are kept as
published, invisible characters included (counted in the summary; core/text.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from curator.core import languages
from curator.core.errors import Conflict, InputError
from curator.core.formats.jsonl import iter_jsonl, require
from curator.core.formats.layout import refuse_duplicates
from curator.core.formats.sources import Source
from curator.core.models import MlamaTemplate, Relation
from curator.core.text import InvisibleTally, unstorable_reason
from curator.ingest.store import SourceRecord, ensure_languages, known_sources, record_sources, sha256

LAYOUT = "<lang>/templates.jsonl"


@dataclass
class MlamaSummary:
    languages: set[str] = field(default_factory=set)
    templates: int = 0
    skipped_relations: int = 0  # lines of relations ParaRel does not have
    skipped_unchanged: int = 0
    invisible: InvisibleTally = field(default_factory=InvisibleTally)  # kept in templates, reported


def ingest_mlama(session: Session, source: Source) -> MlamaSummary:
    relations = set(session.scalars(select(Relation.id)))
    if not relations:
        raise Conflict("no ParaRel relations yet: run `curator ingest pararel` first")
    files = []
    for path in source.files(".jsonl"):
        parts = path.split("/")
        if len(parts) != 2 or parts[1] != "templates.jsonl":
            raise InputError(f"unexpected file: expected the layout {LAYOUT}", location=source.describe(path))
        languages.check_code(parts[0], source.describe(path))
        files.append((languages.canonical(parts[0]), path))
    if not files:
        raise InputError(f"no .jsonl files found: expected the layout {LAYOUT}", location=source.location)
    refuse_duplicates(source, [((lang,), path) for lang, path in files], "language")
    known = known_sources(session, "mlama")
    summary = MlamaSummary()
    records: list[SourceRecord] = []
    for lang, path in sorted(files):
        where = source.describe(path)
        data = source.read(path)
        digest = sha256(data)
        summary.languages.add(lang)
        if known.get(lang) == digest:
            summary.skipped_unchanged += 1
            continue
        chosen: dict[str, str] = {}
        records_seen = 0
        for number, obj in iter_jsonl(data, where):
            records_seen += 1
            relation = require(obj, "relation", str, where, number)
            template = require(obj, "template", str, where, number)
            unstorable = unstorable_reason(template)
            if unstorable:
                raise InputError(unstorable, location=where, line=number, field="template")
            summary.invisible.add(where, number, template)  # published data: kept and counted
            if relation not in relations:
                summary.skipped_relations += 1
                continue
            chosen[relation] = template
        if not records_seen:  # it would delete the language's stored templates
            raise InputError("empty file: no templates", location=where)
        ensure_languages(session, [lang])
        session.execute(delete(MlamaTemplate).where(MlamaTemplate.language == lang))
        session.add_all(MlamaTemplate(language=lang, relation_id=rel, template=text) for rel, text in chosen.items())
        summary.templates += len(chosen)
        records.append(SourceRecord(key=lang, location=where, sha256=digest, rows=len(chosen)))
    record_sources(session, "mlama", records)
    session.flush()
    return summary

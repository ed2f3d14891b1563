"""Agreement voting and coverage filters (SPEC §2): which templates and languages qualify."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from ..models import (EnglishPattern, LanguageCoverage, RelationCoverage, Template, TranslationLine,
                      TranslationSystem, TupleList)
from .errors import IngestError
from .store import bulk_insert


@dataclass(frozen=True)
class CandidateParams:
    min_votes: int = 2
    min_relations: float = 0.6  # share of the English relations that must be usable
    min_phrases: float = 0.2  # share of the English phrases that must be covered
    min_templates: int = 2  # candidates a relation needs to be usable
    reference: str = "en"  # language whose phrases are the denominator


@dataclass
class LanguageRow:
    language: str
    templates: int
    candidates: int
    usable_relations: int
    relation_share: float
    phrases: int
    phrase_share: float
    included: bool


@dataclass
class CandidateSummary:
    params: CandidateParams
    trusted: list[str]
    english_relations: int
    english_phrases: int
    languages: list[LanguageRow] = field(default_factory=list)

    @property
    def included(self) -> list[str]:
        return [row.language for row in self.languages if row.included]


def current_tuple_counts(session: Session) -> dict[tuple[str, str], int]:
    return {(lang, rel): n for lang, rel, n in session.execute(
        select(TupleList.language, TupleList.relation_id, TupleList.rows).where(TupleList.current))}


def build_candidates(session: Session, params: CandidateParams = CandidateParams()) -> CandidateSummary:
    trusted = sorted(session.scalars(select(TranslationSystem.name).where(TranslationSystem.trusted)))
    positions = dict(session.execute(select(EnglishPattern.id, EnglishPattern.position)).all())
    english_counts = dict(session.execute(select(EnglishPattern.relation_id, func.count())
                                          .group_by(EnglishPattern.relation_id)).all())
    if not english_counts:
        raise IngestError("database", "no English ParaRel patterns: run `curator ingest pararel` first")
    tuples = current_tuple_counts(session)
    english_phrases = sum(n * tuples.get((params.reference, rel), 0) for rel, n in english_counts.items())
    if english_phrases == 0:
        raise IngestError("database", f"no tuples for the reference language '{params.reference}', so the "
                          "phrase share cannot be computed: ingest its tuples first")

    voters: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    first: dict[tuple[str, str, str], int] = {}
    repaired: dict[tuple[str, str, str], bool] = defaultdict(bool)
    lines = select(TranslationLine.language, TranslationLine.relation_id, TranslationLine.cleaned,
                   TranslationLine.system, TranslationLine.english_pattern_id, TranslationLine.line_no,
                   TranslationLine.repairs).where(TranslationLine.valid)
    for lang, rel, text, system, english_id, line_no, repairs in session.execute(lines):
        key = (lang, rel, text)
        voters[key].add(system)
        position = positions.get(english_id, line_no)
        first[key] = min(first.get(key, position), position)
        repaired[key] |= bool(repairs)

    existing = {(t.language, t.relation_id, t.text): t for t in session.scalars(select(Template))}
    new_rows = []
    per_relation: dict[tuple[str, str], int] = defaultdict(int)
    per_language_templates: dict[str, int] = defaultdict(int)
    for key, systems in voters.items():
        votes = len(systems) + sum(1 for s in systems if s in trusted)
        values = dict(systems=sorted(systems), votes=votes, first_position=first[key],
                      repaired=repaired[key], is_candidate=votes >= params.min_votes)
        per_language_templates[key[0]] += 1
        if values["is_candidate"]:
            per_relation[key[0], key[1]] += 1
        template = existing.pop(key, None)
        if template is None:
            new_rows.append(dict(language=key[0], relation_id=key[1], text=key[2], **values))
        else:
            for name, value in values.items():
                setattr(template, name, value)
    for template in existing.values():  # no system produces it any more: keep the row, drop the votes
        template.systems, template.votes, template.is_candidate = [], 0, False
    session.flush()
    bulk_insert(session, Template.__table__, new_rows)

    summary = CandidateSummary(params, trusted, len(english_counts), english_phrases)
    session.execute(delete(RelationCoverage))
    session.execute(delete(LanguageCoverage))
    coverage_rows = []
    for lang in sorted(per_language_templates):
        usable = 0
        phrases = 0
        candidates = 0
        for rel in sorted(english_counts):
            n = per_relation.get((lang, rel), 0)
            t = tuples.get((lang, rel), 0)
            ok = n >= params.min_templates and t > 0
            candidates += n
            coverage_rows.append(dict(language=lang, relation_id=rel, candidates=n, tuples=t, usable=ok))
            if ok:
                usable += 1
                phrases += n * t
        row = LanguageRow(lang, per_language_templates[lang], candidates, usable, usable / len(english_counts),
                          phrases, phrases / english_phrases, False)
        row.included = row.relation_share >= params.min_relations and row.phrase_share >= params.min_phrases
        summary.languages.append(row)
        session.add(LanguageCoverage(language=lang, usable_relations=usable, relation_share=row.relation_share,
                                     phrases=phrases, phrase_share=row.phrase_share, included=row.included,
                                     params=asdict(params)))
    bulk_insert(session, RelationCoverage.__table__, coverage_rows)
    session.flush()
    return summary

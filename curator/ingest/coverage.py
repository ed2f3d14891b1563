"""Coverage filters (SPEC §2) and the build: which relations are usable and which languages
qualify, and `candidates build` writing a tally's templates and coverage."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from curator.core.models import LanguageCoverage, RelationCoverage, Template
from curator.ingest.candidates import CandidateParams, Tally, tally
from curator.ingest.profiles import case_key
from curator.ingest.store import bulk_insert


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


def coverage(t: Tally) -> tuple[list[LanguageRow], list[dict[str, object]]]:
    """Usable relations (≥ min_templates candidates and tuples) and included languages (§2 shares)."""
    per_relation: dict[tuple[str, str], int] = defaultdict(int)
    per_language_templates: dict[str, int] = defaultdict(int)
    for key in t.voters:
        per_language_templates[key[0]] += 1
        if t.is_candidate(key):
            per_relation[key[0], key[1]] += 1
    rows: list[LanguageRow] = []
    relation_rows: list[dict[str, object]] = []
    p = t.params
    for lang in sorted(per_language_templates):
        usable = phrases = candidates = 0
        for rel in sorted(t.english_counts):
            n = per_relation.get((lang, rel), 0)
            k = t.tuples.get((lang, rel), 0)
            ok = n >= p.min_templates and k > 0
            candidates += n
            relation_rows.append(dict(language=lang, relation_id=rel, candidates=n, tuples=k, usable=ok))
            if ok:
                usable += 1
                phrases += n * k
        row = LanguageRow(
            lang,
            per_language_templates[lang],
            candidates,
            usable,
            usable / len(t.english_counts),
            phrases,
            phrases / t.english_phrases,
            False,
        )
        row.included = row.relation_share >= p.min_relations and row.phrase_share >= p.min_phrases
        rows.append(row)
    return rows, relation_rows


def build_candidates(session: Session, params: CandidateParams = CandidateParams()) -> CandidateSummary:
    t = tally(session, params)
    # Plain rows, not ORM objects, and one UPDATE per changed template (executemany by id): a
    # real build rewrites tens of thousands of templates, which the unit of work made slow.
    existing = {
        (stored.language, stored.relation_id, stored.text): stored
        for stored in session.execute(
            select(
                Template.id,
                Template.language,
                Template.relation_id,
                Template.text,
                Template.systems,
                Template.votes,
                Template.first_position,
                Template.repaired,
                Template.is_candidate,
            )
        )
    }
    # A template whose case alone changed (--keep-case switched on or off, or another cased
    # form winning) keeps its row, so the reviews that refer to its id still apply.
    shown = {(key[0], key[1], t.display[key]) for key in t.voters}
    by_folded = {(x.language, x.relation_id, case_key(x.text)): x for k, x in existing.items() if k not in shown}
    new_rows: list[dict[str, object]] = []
    updates: list[dict[str, object]] = []
    for key in t.voters:
        text = t.display[key]
        values: dict[str, object] = dict(
            systems=t.systems(key),
            votes=t.votes(key),
            first_position=t.first[key],
            repaired=t.repaired[key],
            is_candidate=t.is_candidate(key),
        )
        stored = existing.pop((key[0], key[1], text), None)
        if stored is None:
            stored = by_folded.pop((key[0], key[1], case_key(text)), None)
            if stored is not None:
                existing.pop((stored.language, stored.relation_id, stored.text), None)
                values["text"] = text
        if stored is None:
            new_rows.append(dict(language=key[0], relation_id=key[1], text=text, **values))
        elif any(getattr(stored, name) != value for name, value in values.items()):
            updates.append(dict(id=stored.id, **values))
    for stored in existing.values():  # no line yields it under these rules: keep the row, drop the votes
        if stored.systems or stored.votes or stored.is_candidate:
            updates.append(dict(id=stored.id, systems=[], votes=0, is_candidate=False))
    if updates:
        session.execute(update(Template), updates)
    session.expire_all()  # Template objects the caller holds must not keep the old votes
    bulk_insert(session, Template.__table__, new_rows)

    summary = CandidateSummary(params, t.trusted, len(t.english_counts), t.english_phrases)
    summary.languages, relation_rows = coverage(t)
    session.execute(delete(RelationCoverage))
    session.execute(delete(LanguageCoverage))
    for row in summary.languages:
        session.add(
            LanguageCoverage(
                language=row.language,
                usable_relations=row.usable_relations,
                relation_share=row.relation_share,
                phrases=row.phrases,
                phrase_share=row.phrase_share,
                included=row.included,
                params=asdict(params),
            )
        )
    bulk_insert(session, RelationCoverage.__table__, relation_rows)
    session.flush()
    return summary

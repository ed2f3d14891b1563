"""Agreement voting (SPEC §2): which templates are candidates, by votes or by source (the tally)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from curator.core.errors import Conflict, InputError
from curator.core.models import (
    EnglishPattern,
    LanguageCoverage,
    MlamaTemplate,
    TranslationLine,
    TranslationSystem,
    TupleList,
    XfactrTemplate,
)
from curator.ingest.profiles import DEFAULT as DEFAULT_PROFILE
from curator.ingest.profiles import clean_keep_case, get_profile

XFACTR_SOURCE = "X-FACTR"  # the source name of X-FACTR's prompts among a template's systems


@dataclass(frozen=True)
class CandidateParams:
    min_votes: int = 2
    min_relations: float = 0.6  # share of the English relations that must be usable
    min_phrases: float = 0.2  # share of the English phrases that must be covered
    min_templates: int = 2  # candidates a relation needs to be usable
    reference: str = "en"  # language whose phrases are the denominator
    rules: str = DEFAULT_PROFILE  # rule profile (profiles.py): how a raw line becomes a template
    keep_case: bool = False  # curator profile: vote on a case-folded key, keep the most frequent cased form

    def __post_init__(self) -> None:
        profile = get_profile(self.rules)
        if self.keep_case and not profile.name == "curator":
            raise InputError(
                f"case preservation is an option of the curator profile; the {profile.name} "
                "profile lower-cases as published"
            )


def current_tuple_counts(session: Session) -> dict[tuple[str, str], int]:
    return {
        (lang, rel): n
        for lang, rel, n in session.execute(
            select(TupleList.language, TupleList.relation_id, TupleList.rows).where(TupleList.current)
        )
    }


@dataclass
class Tally:
    """Every distinct template of a profile, with who voted for it: a `candidates build` before writing."""

    params: CandidateParams
    trusted: list[str]
    english_counts: dict[str, int]  # relations in the profile's scope → English patterns
    english_phrases: int
    tuples: dict[tuple[str, str], int]
    voters: dict[tuple[str, str, str], set[str]]  # (language, relation, key) → systems
    first: dict[tuple[str, str, str], int]
    repaired: dict[tuple[str, str, str], bool]
    display: dict[tuple[str, str, str], str]  # the stored text of a key (its most frequent cased form)
    line_keys: dict[int, tuple[str, str, str]]  # translation line id → key, for valid lines in scope
    extra: dict[tuple[str, str, str], str] = field(default_factory=dict)  # candidates by source, not votes (mLAMA)

    def votes(self, key: tuple[str, str, str]) -> int:
        systems = self.voters[key]
        return len(systems) + sum(1 for s in systems if s in self.trusted)

    def is_candidate(self, key: tuple[str, str, str]) -> bool:
        # no voters: English ParaRel under a profile that takes it whole
        return key in self.extra or not self.voters[key] or self.votes(key) >= self.params.min_votes

    def systems(self, key: tuple[str, str, str]) -> list[str]:
        return sorted(self.voters[key] | ({self.extra[key]} if key in self.extra else set()))


Key = tuple[str, str, str]  # (language, relation, the template's voting key)


@dataclass
class _EnglishScope:
    """What the tally counts against: the English ParaRel patterns and the reference's phrases."""

    patterns: list[tuple[int, str, int, str]]  # (id, relation, position, pattern)
    positions: dict[int, int]  # English pattern id → position
    english_counts: dict[str, int]  # relations in the profile's scope → English patterns
    tuples: dict[tuple[str, str], int]
    english_phrases: int


def _english_scope(session: Session, params: CandidateParams, min_patterns: int) -> _EnglishScope:
    patterns = [
        (pid, rel, position, pattern)
        for pid, rel, position, pattern in session.execute(
            select(EnglishPattern.id, EnglishPattern.relation_id, EnglishPattern.position, EnglishPattern.pattern)
        )
    ]
    all_counts: dict[str, int] = defaultdict(int)
    for _, rel, _, _ in patterns:
        all_counts[rel] += 1
    if not all_counts:
        raise Conflict("no English ParaRel patterns: run `curator ingest pararel` first")
    english_counts = {rel: n for rel, n in all_counts.items() if n >= min_patterns}
    tuples = current_tuple_counts(session)
    english_phrases = sum(n * tuples.get((params.reference, rel), 0) for rel, n in english_counts.items())
    if english_phrases == 0:
        raise Conflict(
            f"no tuples for the reference language '{params.reference}', so the "
            "phrase share cannot be computed: ingest its tuples first"
        )
    positions = {pid: position for pid, _, position, _ in patterns}
    return _EnglishScope(patterns, positions, english_counts, tuples, english_phrases)


@dataclass
class _Votes:
    """The tally's counters while lines are read: who voted for each key, its first position,
    whether any of its lines was repaired, its cased forms, and each line's key."""

    voters: dict[Key, set[str]] = field(default_factory=lambda: defaultdict(set))
    first: dict[Key, int] = field(default_factory=dict)
    repaired: dict[Key, bool] = field(default_factory=lambda: defaultdict(bool))
    forms: dict[Key, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    line_keys: dict[int, Key] = field(default_factory=dict)

    def place(self, key: Key, shown: str, position: int) -> None:
        self.forms[key][shown] += 1
        self.first[key] = min(self.first.get(key, position), position)

    def vote(self, line_id: int, key: Key, system: str, shown: str, position: int, was_repaired: bool) -> None:
        self.line_keys[line_id] = key
        self.voters[key].add(system)
        self.place(key, shown, position)
        self.repaired[key] |= was_repaired

    def given(self, key: Key, position: int) -> None:
        """A human-made pattern taken as it is, without MT votes (ParaRel, mLAMA)."""
        self.voters.setdefault(key, set())
        self.place(key, key[2], position)

    def display(self) -> dict[Key, str]:
        """The most frequent form of each key; ties go to the alphabetically first, so a rebuild is stable."""
        return {key: min(counter.items(), key=lambda kv: (-kv[1], kv[0]))[0] for key, counter in self.forms.items()}


# (id, language, relation, raw, repaired, cleaned, system, English pattern id, line number, repairs)
LinesQuery = Select[int, str, str, str, str, str | None, str, int | None, int, list[dict[str, str]]]


def _lines_query(stored: bool, languages: Collection[str] | None) -> LinesQuery:
    lines = select(
        TranslationLine.id,
        TranslationLine.language,
        TranslationLine.relation_id,
        TranslationLine.raw,
        TranslationLine.repaired,
        TranslationLine.cleaned,
        TranslationLine.system,
        TranslationLine.english_pattern_id,
        TranslationLine.line_no,
        TranslationLine.repairs,
    )
    if stored:
        lines = lines.where(TranslationLine.valid)
    if languages is not None:
        lines = lines.where(TranslationLine.language.in_(sorted(languages)))
    return lines


def _count_lines(
    session: Session, params: CandidateParams, scope: _EnglishScope, languages: Collection[str] | None, votes: _Votes
) -> None:
    """Every stored line in scope that the profile keeps votes for its key."""
    profile = get_profile(params.rules)
    stored = params.rules == DEFAULT_PROFILE  # the curator profile's outcome is stored per line at ingest
    for line_id, lang, rel, raw, fixed, text, system, english_id, line_no, repairs in session.execute(
        _lines_query(stored, languages)
    ):
        if rel not in scope.english_counts or (profile.english_from_pararel and lang == params.reference):
            continue
        was_repaired = bool(repairs)
        if not stored:
            outcome = profile.check(raw, lang)
            if not outcome.valid:
                continue
            text, was_repaired = outcome.cleaned, bool(outcome.repairs)
        if text is None:  # a valid line has its cleaned form: a stored one without is a damaged database
            raise Conflict(
                f"translation line {line_id} ({lang} {rel}, {system}) is valid but has no cleaned text: "
                "re-import its file (`curator ingest translations`)"
            )
        shown = clean_keep_case(fixed) if params.keep_case else text
        position = scope.positions.get(english_id, line_no) if english_id is not None else line_no
        votes.vote(line_id, (lang, rel, text), system, shown, position, was_repaired)


def _add_mlama(
    session: Session, tally_: Tally, scope: _EnglishScope, languages: Collection[str] | None, votes: _Votes
) -> None:
    """mLAMA's templates that are not candidates by votes, as candidates by source."""
    profile = get_profile(tally_.params.rules)
    after = max(scope.positions.values(), default=0) + 1  # the published pipeline appended them last
    for lang, rel, template in session.execute(
        select(MlamaTemplate.language, MlamaTemplate.relation_id, MlamaTemplate.template)
    ):
        if languages is not None and lang not in languages:
            continue
        key = (lang, rel, profile.clean_pattern(template, lang))
        if rel in scope.english_counts and not (key in votes.voters and tally_.is_candidate(key)):
            votes.given(key, after)
            tally_.extra[key] = "mLAMA"


def tally(
    session: Session, params: CandidateParams = CandidateParams(), languages: Collection[str] | None = None
) -> Tally:
    """Run the profile over every stored line and count votes; writes nothing.

    `languages` (canonical codes) limits the tally to those: a language's votes, candidates and
    coverage depend on its own lines and on the English reference alone, so they come out as
    in a tally of every language (`candidates compare-rules --language` reads only those)."""
    profile = get_profile(params.rules)
    trusted = sorted(session.scalars(select(TranslationSystem.name).where(TranslationSystem.trusted)))
    scope = _english_scope(session, params, profile.min_english_patterns)
    votes = _Votes()
    _count_lines(session, params, scope, languages, votes)
    if profile.english_from_pararel and (languages is None or params.reference in languages):
        # the published pipeline took every English pattern
        for _, rel, position, pattern in scope.patterns:
            if rel in scope.english_counts:
                votes.given((params.reference, rel, profile.clean_pattern(pattern, params.reference)), position)
    tally_ = Tally(
        params,
        trusted,
        scope.english_counts,
        scope.english_phrases,
        scope.tuples,
        votes.voters,
        votes.first,
        votes.repaired,
        {},
        votes.line_keys,
    )
    if profile.uses_mlama:
        _add_mlama(session, tally_, scope, languages, votes)
    _add_xfactr(session, tally_, languages, votes.given)  # the profiles that take X-FACTR's prompts
    tally_.display.update(votes.display())
    return tally_


def _add_xfactr(
    session: Session, t: Tally, languages: Collection[str] | None, given: Callable[[tuple[str, str, str], int], None]
) -> None:
    """X-FACTR's prompts (`curator ingest xfactr`) as candidates of the source X-FACTR: each one a
    candidate whatever the MT votes, at the relation's first English pattern (position 0), the
    one the review screen shows beside a proposal too. A prompt equal to a voted template adds
    X-FACTR to its sources; its votes stay the MT systems'. Only under a profile that takes them."""
    if not get_profile(t.params.rules).uses_xfactr:
        return
    for lang, rel, template in session.execute(
        select(XfactrTemplate.language, XfactrTemplate.relation_id, XfactrTemplate.template)
    ):
        if rel not in t.english_counts or (languages is not None and lang not in languages):
            continue
        key = (lang, rel, template)  # cleaned as a vote key is: lower-case, annotations whole
        if key not in t.voters:
            given(key, 0)
        t.extra.setdefault(key, XFACTR_SOURCE)


def current_params(session: Session) -> CandidateParams | None:
    """The parameters (rule profile included) of the last `candidates build`, if any."""
    return params_of(session.scalar(stored_params()))


def stored_params() -> Select[tuple[dict[str, Any]]]:
    """The select `current_params` runs (a caller may add it to a query of its own as a column)."""
    return select(LanguageCoverage.params).limit(1)


def params_of(stored: Mapping[str, Any] | None) -> CandidateParams | None:
    """`current_params` from the stored value."""
    if not stored:
        return None
    known = set(CandidateParams.__dataclass_fields__)
    return CandidateParams(**{k: v for k, v in stored.items() if k in known})

"""The context translators expect beside a review item, as Weblate and Pontoon show it: every
MT system's output for the English pattern the template translates, the same relation's
accepted templates in languages the reviewer picked (remembered per account), and a
translation memory — this language's accepted or amended templates of other relations whose
English pattern is like the template's (a fuzzy match, as in Weblate and Pontoon: rapidfuzz's
ratio of the folded patterns, `similarity`), so wording stays consistent.

"Accepted" is the release's default merge (policy `any`, release/merge.py) read from the same
standing decisions as review/stats.py (the latest unretracted decision per reviewer and
template; "unsure" is no verdict): a template with at least one standing accept is
*accepted*, the correction of a standing amend is *amended*. A language with no verdict yet
on the relation shows its candidates instead, marked *candidate*, so a reviewer of a
language reviewed first still sees the other languages' wording.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, TypedDict

from rapidfuzz import fuzz, process
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from curator.core import languages as language_names
from curator.core.enums import DecisionKind
from curator.core.errors import N_, InputError
from curator.core.folding import fold
from curator.core.models import (
    ContextLanguage,
    Decision,
    EnglishPattern,
    Language,
    Template,
    TranslationLine,
    User,
    first_english,
)
from curator.ingest.candidates import current_params
from curator.review.evidence import template_sources
from curator.review.records import Example
from curator.review.service import examples_of, relation_titles_of
from curator.review.standing import standing_decision_ids
from curator.review.validation import same_as_template

MAX_CHOSEN = 12  # context languages a reviewer may pick (a compact panel, not a table)
PER_LANGUAGE = 8  # templates shown per other language
MEMORY = 5  # translation-memory matches shown
_PLACEHOLDER = re.compile(r"\[[XY]\]", re.IGNORECASE)  # folded text is lower-case: [x] [y]
_NOT_WORDS = re.compile(r"[^\w\s]")  # punctuation of any script
MEMORY_THRESHOLD = 60.0  # percent: English patterns less alike than this are no match
ACCEPTED, AMENDED, CANDIDATE = "accepted", "amended", "candidate"


class MachineLine(TypedDict):
    n: int  # 1-based: the line's place in the panel
    system: str
    english: str
    text: str  # the repaired form (placeholders fixed), before cleaning
    valid: bool
    same: bool  # it cleans to the template under review
    # the digit 1–9 that starts an amendment from it, or None: a `same` line is never offered (the
    # amendment could only be refused, "the same as the template"), and the digits number the
    # others, skipping it; an invalid line is offered, as a start to correct in the field
    key: int | None


class ContextTemplate(TypedDict):
    text: str
    status: str  # accepted | amended | candidate


class OtherLanguage(TypedDict):
    code: str
    name: str
    dir: str
    templates: list[ContextTemplate]


class MemoryMatch(TypedDict):
    relation: str
    title: str
    text: str  # the accepted (or amended) template, every character as stored
    status: str  # accepted | amended
    english: str  # its English pattern, the one compared
    similarity: int  # percent, 0–100: `similarity` of the two English patterns, rounded


class LanguageChoice(TypedDict):
    code: str
    name: str
    dir: str


def memory_key(pattern: str) -> str:
    """What the memory compares of an English pattern: its words, folded (`core.folding.fold`:
    case and accents do not count), without the [X]/[Y] placeholders and punctuation, spaces
    collapsed. Every ParaRel pattern has the same "[X] … [Y]." frame; compared with it, "[X] was
    born in [Y]." and "[X] is located in [Y]." were 71 % alike, more than real rewordings."""
    words = _NOT_WORDS.sub(" ", _PLACEHOLDER.sub(" ", fold(pattern)))
    return " ".join(words.split())


def similarity(a: str, b: str) -> float:
    """How alike two English patterns are, in percent: rapidfuzz's `fuzz.ratio` of their
    `memory_key`s, 100 · 2·LCS / (len a + len b) with LCS the longest common subsequence of
    characters (the Indel similarity); 100 when both are empty."""
    return fuzz.ratio(memory_key(a), memory_key(b))


def _first_english_of(session: Session, template: Template, column: Any = EnglishPattern.pattern) -> Any:
    """`column` (the pattern, by default) of the English pattern `template` translates
    (`core.models.first_english`), or None."""
    return session.scalar(select(column).where(first_english(Template), Template.id == template.id))


def machine_translations(session: Session, template: Template) -> list[MachineLine]:
    """Each system's output, repaired, for the English patterns the template translates (its
    MT source lines, `evidence.template_sources`), numbered, and the keys 1–9 given to those an
    amendment can start from (`MachineLine.key`)."""
    english = {en for *_, en in template_sources(session, template, current_params(session)) if en is not None}
    patterns = session.execute(
        select(EnglishPattern.id, EnglishPattern.pattern)
        .where(EnglishPattern.relation_id == template.relation_id)
        .order_by(EnglishPattern.position)
    ).all()
    ids = [pid for pid, text in patterns if text in english]
    if not ids:  # no line cleans to it any more: the pattern it translates (`first_english`)
        ids = [pid for pid in [_first_english_of(session, template, EnglishPattern.id)] if pid is not None]
    if not ids:
        return []
    order = {pid: k for k, pid in enumerate(ids)}
    rows = session.execute(
        select(
            EnglishPattern.id,
            EnglishPattern.pattern,
            TranslationLine.system,
            TranslationLine.repaired,
            TranslationLine.cleaned,
            TranslationLine.valid,
        )
        .join(EnglishPattern, EnglishPattern.id == TranslationLine.english_pattern_id)
        .where(
            TranslationLine.language == template.language,
            TranslationLine.relation_id == template.relation_id,
            TranslationLine.english_pattern_id.in_(ids),
        )
    ).all()
    rows = sorted(rows, key=lambda r: (order[r[0]], r[2]))
    lines: list[MachineLine] = []
    keys = iter(range(1, 10))
    for n, (_, en, system, repaired, cleaned, valid) in enumerate(rows, start=1):
        same = same_as_template(cleaned, template.text)
        lines.append(
            {
                "n": n,
                "system": system,
                "english": en,
                "text": repaired,
                "valid": valid,
                "same": same,
                "key": None if same else next(keys, None),
            }
        )
    return lines


def accepted_text(decision: str, correction: str | None, text: str) -> tuple[str, str] | None:
    """What a standing decision on the template `text` accepts, as in the merges: (the text,
    ACCEPTED) for an accept, (the correction, AMENDED) for an amend; None for the rest (a reject
    accepts nothing, an unsure is no verdict)."""
    if decision == DecisionKind.ACCEPT:
        return text, ACCEPTED
    if decision == DecisionKind.AMEND and correction is not None:
        return correction, AMENDED
    return None


def accepted_templates(
    session: Session, language_codes: Sequence[str], relation: str | None = None
) -> dict[tuple[str, str], list[ContextTemplate]]:
    """{(language, relation): accepted and amended templates}, from the standing decisions of
    every reviewer (oldest decision first), each text once."""
    if not language_codes:
        return {}
    latest = standing_decision_ids(
        Decision.language.in_(language_codes), *([Decision.relation_id == relation] if relation is not None else [])
    )
    rows = session.execute(
        select(Decision.language, Decision.relation_id, Decision.decision, Decision.correction, Template.text)
        .join(Template, Template.id == Decision.template_id)
        .where(Decision.id.in_(latest))
        .order_by(Decision.id)
    ).all()
    out: dict[tuple[str, str], list[ContextTemplate]] = defaultdict(list)
    seen: set[tuple[str, str, str]] = set()
    for lang, rel, decision, correction, text in rows:
        accepted = accepted_text(decision, correction, text)
        if accepted is None:  # a reject is a verdict with nothing accepted; an unsure is no verdict
            if decision == DecisionKind.REJECT:
                out.setdefault((lang, rel), [])
            continue
        shown, status = accepted
        if (lang, rel, shown) not in seen:
            seen.add((lang, rel, shown))
            out[lang, rel].append({"text": shown, "status": status})
    return dict(out)


def other_languages(session: Session, relation: str, codes: Sequence[str]) -> list[OtherLanguage]:
    """The relation's accepted templates in each of `codes` (in that order); a language with no
    verdict on the relation yet shows its candidates, most voted first."""
    reviewed = accepted_templates(session, codes, relation)
    unreviewed = [c for c in codes if (c, relation) not in reviewed]
    candidates: dict[str, list[ContextTemplate]] = defaultdict(list)
    if unreviewed:
        for lang, text in session.execute(
            select(Template.language, Template.text)
            .where(Template.relation_id == relation, Template.is_candidate, Template.language.in_(unreviewed))
            .order_by(Template.votes.desc(), Template.first_position, Template.id)
        ):
            candidates[lang].append({"text": text, "status": CANDIDATE})
    return [
        {
            "code": code,
            "name": language_names.name(code),
            "dir": language_names.direction(code),
            "templates": (reviewed.get((code, relation)) or candidates.get(code, []))[:PER_LANGUAGE],
        }
        for code in codes
    ]


def translation_memory(session: Session, template: Template, limit: int = MEMORY) -> list[MemoryMatch]:
    """This language's accepted or amended templates of other relations whose English pattern
    is like `template`'s (`similarity` at least MEMORY_THRESHOLD), most alike first (then by
    relation and text), each text once with its best match."""
    mine = _first_english_of(session, template)
    if mine is None:
        return []
    latest = standing_decision_ids(Decision.language == template.language, Decision.relation_id != template.relation_id)
    rows = session.execute(
        select(Decision.relation_id, Decision.decision, Decision.correction, Template.text, EnglishPattern.pattern)
        .join(Template, Template.id == Decision.template_id)
        .join(EnglishPattern, first_english(Template))
        .where(Decision.id.in_(latest))
        .order_by(Decision.id)
    ).all()
    pool: list[MemoryEntry] = []
    for rel, decision, correction, text, english in rows:
        accepted = accepted_text(decision, correction, text)
        if accepted is not None:
            pool.append((rel, *accepted, english))
    return _best_matches(session, mine, pool, limit)


MemoryEntry = tuple[str, str, str, str]  # (relation, text, status, English pattern)


def rank_memory(
    mine: str, pool: Sequence[MemoryEntry], limit: int = MEMORY, threshold: float = MEMORY_THRESHOLD
) -> list[tuple[MemoryEntry, float]]:
    """The `limit` entries of `pool` whose English is most like `mine` (`similarity` ≥
    `threshold`; rapidfuzz over the folded patterns, each distinct pattern scored once), most
    alike first, then by relation and text; one per (relation, text), with its best score."""
    patterns = sorted({english for *_, english in pool})
    scored = process.extract(
        memory_key(mine), [memory_key(p) for p in patterns], scorer=fuzz.ratio, score_cutoff=threshold, limit=None
    )
    scores = {patterns[k]: score for _, score, k in scored}
    best: dict[tuple[str, str], tuple[MemoryEntry, float]] = {}
    for entry in pool:
        score = scores.get(entry[3])
        if score is not None and score > best.get((entry[0], entry[1]), (entry, -1.0))[1]:
            best[entry[0], entry[1]] = (entry, score)
    return sorted(best.values(), key=lambda found: (-found[1], found[0][0], found[0][1]))[:limit]


def _best_matches(session: Session, mine: str, pool: list[MemoryEntry], limit: int) -> list[MemoryMatch]:
    """`rank_memory`'s matches with their relations' titles."""
    ranked = rank_memory(mine, pool, limit)
    titles = relation_titles_of(session, {rel for (rel, *_), _ in ranked})
    return [
        {
            "relation": rel,
            "title": titles[rel],
            "text": text,
            "status": status,
            "english": english,
            "similarity": round(score),
        }
        for (rel, text, status, english), score in ranked
    ]


def chosen_languages(session: Session, user: User) -> list[str]:
    """The languages `user` picked for the "Other languages" panel, in their order."""
    return list(
        session.scalars(
            select(ContextLanguage.language)
            .where(ContextLanguage.user_id == user.id)
            .order_by(ContextLanguage.position, ContextLanguage.language)
        )
    )


def available_languages(session: Session) -> list[LanguageChoice]:
    """Every language with candidates: what a reviewer can pick from."""
    codes = session.scalars(select(Template.language).where(Template.is_candidate).distinct()).all()
    return [
        {"code": c, "name": language_names.name(c), "dir": language_names.direction(c)}
        for c in sorted(codes, key=lambda c: (language_names.name(c).casefold(), c))
    ]


def choose_languages(session: Session, user: User, codes: Sequence[str]) -> list[str]:
    """Replace `user`'s context languages with `codes` (order kept, repeats dropped). Inside the
    caller's unit of work; an unknown code changes nothing and names itself."""
    wanted = list(dict.fromkeys(codes))
    if len(wanted) > MAX_CHOSEN:
        raise InputError(N_("Choose at most %(count)s languages."), params={"count": MAX_CHOSEN})
    known = set(session.scalars(select(Language.code).where(Language.code.in_(wanted))))
    unknown = [c for c in wanted if c not in known]
    if unknown:
        raise InputError(N_("There is no language with the code %(code)s."), params={"code": unknown[0]})
    session.execute(delete(ContextLanguage).where(ContextLanguage.user_id == user.id))
    session.add_all(ContextLanguage(user_id=user.id, language=c, position=k) for k, c in enumerate(wanted))
    session.flush()
    return wanted


class TemplateContext(TypedDict):
    """What a reviewer sees beside a template, for a page that shows one without the review
    screen (the Disagreements page, issue 37 §2): the English patterns it translates, each MT
    system's line for them and the filled-in examples."""

    english: list[str]
    machine: list[MachineLine]
    examples: list[Example]


def template_context(session: Session, template: Template) -> TemplateContext:
    """The review screen's context of `template`, from the same functions: `machine_translations`
    (its English patterns are those its lines translate; with none, the one it translates:
    `first_english`) and
    `service.examples_of`."""
    machine = machine_translations(session, template)
    english = list(dict.fromkeys(line["english"] for line in machine))
    if not english:
        first = _first_english_of(session, template)
        english = [first] if first is not None else []
    return {"english": english, "machine": machine, "examples": examples_of(session, template)}

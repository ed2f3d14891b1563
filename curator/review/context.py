"""The context translators expect beside a review item, as Weblate and Pontoon show it: every
MT system's output for the English pattern the template translates, the same relation's
accepted templates in languages the reviewer picked (remembered per account), and a
translation memory — this language's accepted or amended templates of other relations that
share words with the template, so wording stays consistent.

"Accepted" is the release's default merge (policy `any`, release/merge.py) read from the same
standing decisions as review/stats.py (the latest unretracted decision per reviewer and
template; "unsure" is no verdict): a template with at least one standing accept is
*accepted*, the correction of a standing amend is *amended*. A language with no verdict yet
on the relation shows its candidates instead, marked *candidate*, so a reviewer of a
language reviewed first still sees the other languages' wording.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import TypedDict

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from curator.core import languages as language_names
from curator.core.enums import DecisionKind
from curator.core.errors import N_, InputError
from curator.core.models import ContextLanguage, Decision, EnglishPattern, Language, Template, TranslationLine, User
from curator.ingest.candidates import current_params
from curator.review.evidence import template_sources
from curator.review.service import relation_titles_of
from curator.review.standing import standing_decision_ids
from curator.review.validation import same_as_template

MAX_CHOSEN = 12  # context languages a reviewer may pick (a compact panel, not a table)
PER_LANGUAGE = 8  # templates shown per other language
MEMORY = 5  # translation-memory matches shown
COMMON_SHARE = 0.25  # a word in more than this share of a language's relations (and in 3+) is too common to match on
ACCEPTED, AMENDED, CANDIDATE = "accepted", "amended", "candidate"

PLACEHOLDER_OR_WORD = re.compile(r"\[[XY]\]|\w+")  # \w is Unicode: letters and digits of every script


class MachineLine(TypedDict):
    n: int  # 1-based: the key that starts an amendment from it
    system: str
    english: str
    text: str  # the repaired form (placeholders fixed), before cleaning
    valid: bool
    same: bool  # it cleans to the template under review


class ContextTemplate(TypedDict):
    text: str
    status: str  # accepted | amended | candidate


class OtherLanguage(TypedDict):
    code: str
    name: str
    dir: str
    templates: list[ContextTemplate]


class MemoryPart(TypedDict):
    text: str
    shared: bool


class MemoryMatch(TypedDict):
    relation: str
    title: str
    text: str
    status: str
    shared: list[str]
    parts: list[MemoryPart]


class LanguageChoice(TypedDict):
    code: str
    name: str
    dir: str


def words(text: str) -> set[str]:
    """The words of a template, case-folded, without the [X]/[Y] slots."""
    return {m.group().casefold() for m in PLACEHOLDER_OR_WORD.finditer(text) if not m.group().startswith("[")}


def highlighted(text: str, shared: set[str]) -> list[MemoryPart]:
    """`text` cut into runs, each word in `shared` a run of its own marked shared."""
    parts: list[MemoryPart] = []
    at = 0
    for m in PLACEHOLDER_OR_WORD.finditer(text):
        if m.group().startswith("[") or m.group().casefold() not in shared:
            continue
        if m.start() > at:
            parts.append({"text": text[at : m.start()], "shared": False})
        parts.append({"text": m.group(), "shared": True})
        at = m.end()
    if at < len(text):
        parts.append({"text": text[at:], "shared": False})
    return parts


def machine_translations(session: Session, template: Template) -> list[MachineLine]:
    """Each system's output, repaired, for the English patterns the template translates (its
    MT source lines, `evidence.template_sources`), numbered for the keys 1–9."""
    english = {en for *_, en in template_sources(session, template, current_params(session)) if en is not None}
    patterns = session.execute(
        select(EnglishPattern.id, EnglishPattern.pattern)
        .where(EnglishPattern.relation_id == template.relation_id)
        .order_by(EnglishPattern.position)
    ).all()
    ids = [pid for pid, text in patterns if text in english]
    if not ids:  # no line cleans to it any more: the earliest pattern it was voted from
        ids = [pid for pid, _ in patterns[template.first_position : template.first_position + 1]]
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
    return [
        {
            "n": n,
            "system": system,
            "english": en,
            "text": repaired,
            "valid": valid,
            "same": same_as_template(cleaned, template.text),
        }
        for n, (_, en, system, repaired, cleaned, valid) in enumerate(rows, start=1)
    ]


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
        if decision == DecisionKind.ACCEPT:
            shown, status = text, ACCEPTED
        elif decision == DecisionKind.AMEND and correction is not None:
            shown, status = correction, AMENDED
        else:  # a reject is a verdict with nothing accepted; an unsure is no verdict (as in merges)
            if decision == DecisionKind.REJECT:
                out.setdefault((lang, rel), [])
            continue
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


def common_words(session: Session, language: str) -> set[str]:
    """Words too common in `language` to say two templates are alike ("de", "el", "is"): those in
    the candidates of more than COMMON_SHARE of its relations, and of at least three."""
    by_relation: dict[str, set[str]] = defaultdict(set)
    for rel, text in session.execute(
        select(Template.relation_id, Template.text).where(Template.language == language, Template.is_candidate)
    ):
        by_relation[rel] |= words(text)
    counts = Counter(w for ws in by_relation.values() for w in ws)
    limit = max(2, COMMON_SHARE * len(by_relation))
    return {w for w, n in counts.items() if n > limit}


def translation_memory(session: Session, template: Template, limit: int = MEMORY) -> list[MemoryMatch]:
    """This language's accepted or amended templates of other relations that share words with
    `template` (not counting [X], [Y] and common words), most shared words first."""
    mine = words(template.text) - common_words(session, template.language)
    if not mine:
        return []
    pool = accepted_templates(session, [template.language])
    scored: list[tuple[int, str, ContextTemplate, set[str]]] = []
    for (_, rel), found in pool.items():
        if rel == template.relation_id:
            continue
        for entry in found:
            shared = mine & words(entry["text"])
            if shared:
                scored.append((len(shared), rel, entry, shared))
    scored.sort(key=lambda s: (-s[0], s[1], s[2]["text"]))
    titles = relation_titles_of(session, {rel for _, rel, _, _ in scored[:limit]})
    return [
        {
            "relation": rel,
            "title": titles[rel],
            "text": entry["text"],
            "status": entry["status"],
            "shared": sorted(shared),
            "parts": highlighted(entry["text"], shared),
        }
        for _, rel, entry, shared in scored[:limit]
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

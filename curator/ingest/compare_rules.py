"""What the `curator` rules buy over the published `mpararel` rules, per language (writes nothing).

A maintainer sees, before reviewers spend time on them, which candidates the improved repairs
add, which published candidates they drop, and which published variants they merge into one
template, with examples taken from the raw MT lines.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from sqlalchemy import select, true
from sqlalchemy.orm import Session

from curator.core.languages import canonical
from curator.core.models import TranslationLine
from curator.ingest.candidates import CandidateParams, Tally, tally
from curator.ingest.coverage import coverage
from curator.ingest.profiles import case_key, get_profile


@dataclass
class Example:
    relation: str
    template: str  # the template in question
    detail: str  # why it differs, with a raw line
    system: str | None = None
    raw: str | None = None


@dataclass
class LanguageComparison:
    language: str
    base_candidates: int
    other_candidates: int
    added: int  # candidates under `other` that `base` does not have
    dropped: int  # candidates under `base` that `other` does not have
    merged: int  # `other` candidates whose lines `base` spreads over several of its templates
    out_of_scope: int  # candidates in relations only one profile takes part in (e.g. P1001), counted apart
    base_relations: int  # usable relations
    other_relations: int
    base_included: bool
    other_included: bool
    examples: dict[str, list[Example]] = field(default_factory=lambda: {"added": [], "dropped": [], "merged": []})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _per_language(t: Tally, scope: set[str]) -> dict[str, set[tuple[str, str]]]:
    """Candidates per language as (relation, lower-cased key), so case alone is no difference."""
    out: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for key in t.voters:
        if key[1] in scope and t.is_candidate(key):
            out[key[0]].add((key[1], case_key(key[2])))
    return out


def _example_line(
    base: Tally, key: tuple[str, str, str], lines_of: dict[tuple[str, str, str], list[int]]
) -> int | None:
    """A line behind `key` that `base` treats differently (else the first), to show the cause."""
    ids = lines_of.get(key, [])
    return next((i for i in ids if base.line_keys.get(i) != key), ids[0] if ids else None)


def _lines_of(t: Tally) -> dict[tuple[str, str, str], list[int]]:
    out: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for line_id, key in sorted(t.line_keys.items()):
        out[key].append(line_id)
    return out


def _why_absent(
    base: Tally, other: Tally, key: tuple[str, str, str], line_id: int | None, lines: dict[int, tuple[str, str]]
) -> Example:
    """What `base` made of the line behind `key` (a candidate of `other`)."""
    rules = base.params.rules
    text = other.display[key]
    if key in other.extra:
        return Example(key[1], text, f"{other.extra[key]} template, added under {other.params.rules} only")
    if line_id is None:
        return Example(key[1], text, f"no MT line gives it under {other.params.rules} (its English comes from ParaRel)")
    system, raw = lines[line_id]
    under_base = base.line_keys.get(line_id)
    if under_base is None:
        reason = get_profile(rules).check(raw, key[0]).reason
        return Example(key[1], text, f"invalid under {rules}: {reason}", system, raw)
    if case_key(under_base[2]) != case_key(key[2]):
        return Example(key[1], text, f"{rules} makes it {base.display[under_base]!r}", system, raw)
    return Example(
        key[1],
        text,
        f"{base.votes(under_base)} vote(s) under {rules}, {other.votes(key)} under {other.params.rules}",
        system,
        raw,
    )


def compare_rules(
    session: Session,
    params: CandidateParams = CandidateParams(),
    base: str = "mpararel",
    other: str = "curator",
    languages: list[str] | None = None,
    examples: int = 2,
) -> list[LanguageComparison]:
    only = {canonical(x) for x in languages} if languages else None
    a = tally(session, replace(params, rules=base, keep_case=False), only)
    b = tally(session, replace(params, rules=other), only)
    rows_a = {r.language: r for r in coverage(a)[0]}
    rows_b = {r.language: r for r in coverage(b)[0]}
    lines = {
        i: (system, raw)
        for i, system, raw in session.execute(
            select(TranslationLine.id, TranslationLine.system, TranslationLine.raw).where(
                TranslationLine.language.in_(sorted(only)) if only is not None else true()
            )
        )
    }
    lines_a, lines_b = _lines_of(a), _lines_of(b)
    scope = set(a.english_counts) & set(b.english_counts)
    cand_a, cand_b = _per_language(a, scope), _per_language(b, scope)
    outside: dict[str, int] = defaultdict(int)
    for t in (a, b):
        for key in t.voters:
            if key[1] not in scope and t.is_candidate(key):
                outside[key[0]] += 1
    # base keys of the lines behind each other-key: several distinct base candidates → merged
    spread: dict[tuple[str, str, str], set[tuple[str, str, str]]] = defaultdict(set)
    for line_id, key_b in b.line_keys.items():
        key_a = a.line_keys.get(line_id)
        if key_a is not None and a.is_candidate(key_a):
            spread[key_b].add(key_a)
    wanted = only if only is not None else set(rows_a) | set(rows_b)
    out = []
    for lang in sorted(wanted):
        ra, rb = rows_a.get(lang), rows_b.get(lang)
        if ra is None and rb is None:
            continue
        ca, cb = cand_a.get(lang, set()), cand_b.get(lang, set())
        added, dropped = sorted(cb - ca), sorted(ca - cb)
        merged = sorted(k for k, s in spread.items() if k[0] == lang and b.is_candidate(k) and len(s) > 1)
        row = LanguageComparison(
            lang,
            len(ca),
            len(cb),
            len(added),
            len(dropped),
            len(merged),
            outside[lang],
            ra.usable_relations if ra else 0,
            rb.usable_relations if rb else 0,
            bool(ra and ra.included),
            bool(rb and rb.included),
        )
        keys_b = {(k[1], case_key(k[2])): k for k in b.voters if k[0] == lang}
        keys_a = {(k[1], case_key(k[2])): k for k in a.voters if k[0] == lang}
        for pair in added[:examples]:
            key = keys_b[pair]
            row.examples["added"].append(_why_absent(a, b, key, _example_line(a, key, lines_b), lines))
        for pair in dropped[:examples]:
            key = keys_a[pair]
            row.examples["dropped"].append(_why_absent(b, a, key, _example_line(b, key, lines_a), lines))
        for key in merged[:examples]:
            variants = sorted(a.display[k] for k in spread[key])
            row.examples["merged"].append(
                Example(key[1], b.display[key], f"{base} has {len(variants)}: " + " | ".join(variants))
            )
        out.append(row)
    return out

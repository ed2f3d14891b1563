"""What the `curator` rules buy over the published `mpararel` rules, per language (writes nothing).

A maintainer sees, before reviewers spend time on them, which candidates the improved repairs
add, which published candidates they drop, and which published variants they merge into one
template, with examples taken from the raw MT lines.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field, replace

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..models import TranslationLine
from .candidates import CandidateParams, Tally, coverage, tally
from .profiles import get_profile


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
    base_relations: int  # usable relations
    other_relations: int
    base_included: bool
    other_included: bool
    examples: dict[str, list[Example]] = field(default_factory=lambda: {"added": [], "dropped": [], "merged": []})

    def to_dict(self) -> dict:
        return asdict(self)


def _per_language(t: Tally) -> dict[str, set[tuple[str, str]]]:
    out: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for key in t.voters:
        if t.is_candidate(key):
            out[key[0]].add((key[1], t.display[key]))
    return out


def _first_lines(t: Tally) -> dict[tuple[str, str, str], int]:
    out: dict[tuple[str, str, str], int] = {}
    for line_id, key in sorted(t.line_keys.items()):
        out.setdefault(key, line_id)
    return out


def _why_absent(base: Tally, key: tuple[str, str, str], line_id: int | None,
                lines: dict[int, tuple[str, str]]) -> Example:
    """What `base` made of the line behind `key` (a candidate of the other profile)."""
    rules = base.params.rules
    text = key[2]
    if key[1] not in base.english_counts:
        return Example(key[1], text, f"relation outside the {rules} profile")
    if line_id is None:
        return Example(key[1], text, f"{rules} has no MT line giving it (English comes from ParaRel there)")
    system, raw = lines[line_id]
    under_base = base.line_keys.get(line_id)
    if under_base is None:
        reason = get_profile(rules).check(raw, key[0]).reason
        return Example(key[1], text, f"invalid under {rules}: {reason}", system, raw)
    if under_base[2] != key[2]:
        return Example(key[1], text, f"{rules} makes it {base.display[under_base]!r}", system, raw)
    return Example(key[1], text, f"{base.votes(under_base)} vote(s) under {rules}", system, raw)


def compare_rules(session: Session, params: CandidateParams = CandidateParams(), base: str = "mpararel",
                  other: str = "curator", languages: list[str] | None = None,
                  examples: int = 2) -> list[LanguageComparison]:
    a = tally(session, replace(params, rules=base, keep_case=False))
    b = tally(session, replace(params, rules=other))
    rows_a = {r.language: r for r in coverage(a)[0]}
    rows_b = {r.language: r for r in coverage(b)[0]}
    lines = {i: (system, raw) for i, system, raw in session.execute(
        select(TranslationLine.id, TranslationLine.system, TranslationLine.raw))}
    first_a, first_b = _first_lines(a), _first_lines(b)
    cand_a, cand_b = _per_language(a), _per_language(b)
    # base keys of the lines behind each other-key: several distinct base candidates → merged
    spread: dict[tuple[str, str, str], set[tuple[str, str, str]]] = defaultdict(set)
    for line_id, key_b in b.line_keys.items():
        key_a = a.line_keys.get(line_id)
        if key_a is not None and a.is_candidate(key_a):
            spread[key_b].add(key_a)
    wanted = set(languages) if languages else set(rows_a) | set(rows_b)
    out = []
    for lang in sorted(wanted):
        ra, rb = rows_a.get(lang), rows_b.get(lang)
        if ra is None and rb is None:
            continue
        ca, cb = cand_a.get(lang, set()), cand_b.get(lang, set())
        added, dropped = sorted(cb - ca), sorted(ca - cb)
        merged = sorted(k for k, s in spread.items() if k[0] == lang and b.is_candidate(k) and len(s) > 1)
        row = LanguageComparison(lang, len(ca), len(cb), len(added), len(dropped), len(merged),
                                 ra.usable_relations if ra else 0, rb.usable_relations if rb else 0,
                                 bool(ra and ra.included), bool(rb and rb.included))
        keys_b = {(k[1], b.display[k]): k for k in b.voters if k[0] == lang}
        keys_a = {(k[1], a.display[k]): k for k in a.voters if k[0] == lang}
        for rel, text in added[:examples]:
            key = keys_b[rel, text]
            row.examples["added"].append(_why_absent(a, key, first_b.get(key), lines))
        for rel, text in dropped[:examples]:
            key = keys_a[rel, text]
            row.examples["dropped"].append(_why_absent(b, key, first_a.get(key), lines))
        for key in merged[:examples]:
            variants = sorted(a.display[k] for k in spread[key])
            row.examples["merged"].append(Example(key[1], b.display[key], f"{base} has {len(variants)}: "
                                                  + " | ".join(variants)))
        out.append(row)
    return out

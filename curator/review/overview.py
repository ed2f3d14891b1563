"""What the maintainer pages show about a language: its counts and its candidates with every
reviewer's standing decision, comments and risk, searched, filtered and paged.

`language_counts` is the one place the dashboard, the coverage overview and a language's page
take "relations covered", "candidates" and "patterns" from, so the three pages agree:

- relations: the language's usable relations (`relation_coverage.usable`, as of the last
  `candidates build`), the relations a candidates snapshot contains;
- candidates: every candidate template of the language, in any relation;
- patterns: the candidates in usable relations, i.e. what `release build` snapshots;
- phrases: patterns × tuples summed over relations, as stored by the coverage step.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TypedDict

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from curator.core.enums import DecisionKind, values
from curator.core.errors import InputError
from curator.core.folding import fold
from curator.core.models import Comment, Decision, LanguageCoverage, RelationCoverage, Template, TemplateSignal, User
from curator.quality.signals import BANDS, band, risk
from curator.review.stats import standing_decisions

PAGE_SIZE = 50
DECISIONS = values(DecisionKind)  # accept, amend, reject, unsure
DECISION_FILTERS = (*DECISIONS, "none")  # "none": no reviewer has decided it yet
RISK_BANDS = tuple(name for _, name in BANDS)


class CommentNote(TypedDict):
    """A reviewer's comment as the maintainers' language page shows it."""

    reviewer: str
    text: str
    created: str  # "YYYY-MM-DD HH:MM"


@dataclass
class LanguageCounts:
    language: str
    included: bool
    relations: int  # usable relations
    candidates: int  # candidate templates, every relation
    patterns: int  # candidate templates in usable relations (what a snapshot holds)
    phrases: int


def language_counts(session: Session, codes: list[str] | None = None) -> dict[str, LanguageCounts]:
    """{code: counts} for every language with coverage or candidates (or only `codes`)."""
    coverage = {c.language: c for c in session.scalars(select(LanguageCoverage))}
    usable: dict[str, set[str]] = defaultdict(set)
    for lang, rel in session.execute(
        select(RelationCoverage.language, RelationCoverage.relation_id).where(RelationCoverage.usable)
    ):
        usable[lang].add(rel)
    candidates: dict[str, int] = defaultdict(int)
    patterns: dict[str, int] = defaultdict(int)
    for lang, rel, n in session.execute(
        select(Template.language, Template.relation_id, func.count())
        .where(Template.is_candidate)
        .group_by(Template.language, Template.relation_id)
    ):
        candidates[lang] += n
        if rel in usable[lang]:
            patterns[lang] += n
    out = {}
    for lang in sorted(set(coverage) | set(candidates)):
        if codes is not None and lang not in codes:
            continue
        c = coverage.get(lang)
        out[lang] = LanguageCounts(
            lang,
            bool(c and c.included),
            len(usable.get(lang, ())),
            candidates.get(lang, 0),
            patterns.get(lang, 0),
            c.phrases if c else 0,
        )
    return out


@dataclass
class ReviewerDecision:
    reviewer: str  # name, else e-mail
    email: str
    decision: str
    correction: str | None
    reason: str | None = None  # a reject's or an unsure's reason (review.service.check_reason)


@dataclass
class TemplateRow:
    id: int
    relation: str
    text: str
    votes: int
    systems: list[str]
    repaired: bool
    usable: bool
    risk: float
    band: str
    signal: TemplateSignal | None
    decisions: list[ReviewerDecision] = field(default_factory=list)
    comments: list[CommentNote] = field(default_factory=list)

    @property
    def disagreement(self) -> bool:
        """Two or more reviewers decided it, not all the same way. Unsure is no verdict: it agrees
        and disagrees with nothing (accept + unsure is no disagreement)."""
        return len({d.decision for d in self.decisions if d.decision != DecisionKind.UNSURE}) > 1

    @property
    def unsure(self) -> bool:
        return any(d.decision == DecisionKind.UNSURE for d in self.decisions)


@dataclass
class RowFilter:
    q: str = ""
    decision: str = ""  # one of DECISION_FILTERS, or "" for any
    disagreement: bool = False
    unsure: bool = False
    band: str = ""  # one of RISK_BANDS, or "" for any
    relation: str = ""
    order: str = "relation"  # relation | risk
    page: int = 1

    def check(self) -> RowFilter:
        if self.decision and self.decision not in DECISION_FILTERS:
            raise InputError(f"decision must be one of {', '.join(DECISION_FILTERS)}, not {self.decision!r}")
        if self.band and self.band not in RISK_BANDS:
            raise InputError(f"risk band must be one of {', '.join(RISK_BANDS)}, not {self.band!r}")
        if self.order not in ("relation", "risk"):
            raise InputError(f"order must be relation or risk, not {self.order!r}")
        self.page = max(1, int(self.page))
        self.q = self.q.strip()[:200]
        return self

    def matches(self, row: TemplateRow) -> bool:
        if self.relation and row.relation != self.relation:
            return False
        if self.decision == "none" and row.decisions:
            return False
        if self.decision and self.decision != "none" and not any(d.decision == self.decision for d in row.decisions):
            return False
        if self.disagreement and not row.disagreement:
            return False
        if self.unsure and not row.unsure:
            return False
        if self.band and row.band != self.band:
            return False
        if self.q:
            # folded (core.folding): "nacio" finds "nació", plain Arabic finds it with harakat/tatweel
            needle = fold(self.q)
            haystack = [row.text, *(d.correction or "" for d in row.decisions), *(c["text"] for c in row.comments)]
            if not any(needle in fold(h) for h in haystack):
                return False
        return True


@dataclass
class LanguagePage:
    language: str
    rows: list[TemplateRow]  # this page's
    total: int  # candidates of the language
    matched: int  # after the filters
    page: int
    pages: int
    relations: list[str]  # every relation with candidates, for the filter
    relation_comments: dict[str, list[CommentNote]]  # relation -> comments on the relation itself


def _reviewer(user: User | None) -> tuple[str, str]:
    if user is None:
        return "?", ""
    return (user.name or user.email), user.email


def language_rows(
    session: Session, code: str, flt: RowFilter | None = None, page_size: int = PAGE_SIZE
) -> LanguagePage:
    """Every candidate template of `code` with its reviewers' standing decisions, comments and
    risk; those matching `flt`, one page of them."""
    flt = (flt or RowFilter()).check()
    usable = set(
        session.scalars(
            select(RelationCoverage.relation_id).where(RelationCoverage.language == code, RelationCoverage.usable)
        )
    )
    rows: dict[int, TemplateRow] = {}
    for t, s in session.execute(
        select(Template, TemplateSignal)
        .outerjoin(TemplateSignal, TemplateSignal.template_id == Template.id)
        .where(Template.language == code, Template.is_candidate)
        .order_by(Template.relation_id, Template.first_position, Template.text)
    ):
        score = risk(t.votes, s)
        rows[t.id] = TemplateRow(
            t.id,
            t.relation_id,
            t.text,
            t.votes,
            list(t.systems or []),
            t.repaired,
            t.relation_id in usable,
            score,
            band(score),
            s,
        )
    users = {u.id: u for u in session.scalars(select(User))}
    # the language's decisions that give a reason (few: a reject's or an unsure's, when written)
    with_reason = select(Decision.id, Decision.reason).where(Decision.language == code, Decision.reason.is_not(None))
    reasons: dict[int, str | None] = dict(session.execute(with_reason).all())
    for _, user_id, template_id, decision, correction, _, decision_id in standing_decisions(session, code):
        if template_id in rows:
            name, email = _reviewer(users.get(user_id))
            rows[template_id].decisions.append(
                ReviewerDecision(name, email, decision, correction, reasons.get(decision_id))
            )
    relation_comments: dict[str, list[CommentNote]] = defaultdict(list)
    for c in session.scalars(
        select(Comment).where(Comment.language == code, Comment.retracted.is_(False)).order_by(Comment.id)
    ):
        entry: CommentNote = {
            "reviewer": _reviewer(users.get(c.user_id))[0],
            "text": c.text,
            "created": c.created_at.isoformat(timespec="minutes").replace("T", " "),
        }
        if c.template_id is None:
            if not flt.relation or flt.relation == c.relation_id:
                relation_comments[c.relation_id].append(entry)
        elif c.template_id in rows:
            rows[c.template_id].comments.append(entry)
    every = list(rows.values())
    if flt.order == "risk":
        every.sort(key=lambda r: -r.risk)
    matched = [r for r in every if flt.matches(r)]
    pages = max(1, math.ceil(len(matched) / page_size))
    page = min(flt.page, pages)
    return LanguagePage(
        code,
        matched[(page - 1) * page_size : page * page_size],
        len(every),
        len(matched),
        page,
        pages,
        sorted({r.relation for r in every}),
        dict(relation_comments),
    )

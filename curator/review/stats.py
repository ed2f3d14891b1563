"""Review statistics per language (SPEC §3): decision shares, pace, suggestions, agreement.

Only standing decisions count (the latest, unretracted one per reviewer and template: the one
rule of review/standing.py). `assigned` and `done` are the reviewers' queues as their progress
counts them: a retired item (a second look whose proposal was withdrawn) is in neither, while
the decisions made on it stay in the shares and the agreement (what a reviewer said of a template).
Agreement compares reviewers pairwise on the templates both decided: raw agreement and
Cohen's kappa over accept / amend / reject, pooled over all pairs of the language.
"Unsure" decisions are counted apart (`unsure`): they are not verdicts, so they are left out
of the shares, of agreement and of the merge (release/merge.py).
"""

from __future__ import annotations

import io
import statistics
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from itertools import combinations
from typing import Any, cast

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from curator.core.enums import DecisionKind
from curator.core.formats import spreadsheet
from curator.core.models import Assignment, AssignmentItem, Decision, Suggestion
from curator.review.progress import in_queue
from curator.review.service import DECISIONS
from curator.review.standing import decided, standing_decision_ids

COUNTER: dict[str, str] = {  # stored decision kind -> its counter (keys are DecisionKind members)
    DecisionKind.ACCEPT: "accepted",
    DecisionKind.AMEND: "amended",
    DecisionKind.REJECT: "rejected",
    DecisionKind.UNSURE: "unsure",
}
VERDICTS = tuple(d for d in DECISIONS if d != DecisionKind.UNSURE)  # what shares and agreement are over

# (language, user_id, template_id, decision, correction, seconds, decision id): `standing_decisions`
StandingDecision = tuple[str, int, int, str, str | None, float | None, int]


@dataclass
class LanguageReview:
    language: str
    reviewers: int = 0
    assigned: int = 0
    done: int = 0
    accepted: int = 0
    amended: int = 0
    rejected: int = 0
    unsure: int = 0  # "can't tell": counted apart, in neither the shares nor the agreement
    suggestions: int = 0
    median_seconds: float | None = None
    total_minutes: float = 0.0
    pairs_compared: int = 0  # templates decided by two reviewers, counted per pair
    agreement: float | None = None
    kappa: float | None = None

    @property
    def decided(self) -> int:
        return self.accepted + self.amended + self.rejected

    def share(self, kind: str) -> float | None:
        return getattr(self, kind) / self.decided if self.decided else None

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "accepted_share": self.share("accepted"),
            "amended_share": self.share("amended"),
            "rejected_share": self.share("rejected"),
        }


@dataclass
class ReviewSummary:
    languages: list[LanguageReview] = field(default_factory=list)

    def across(self, kind: str) -> tuple[float, float] | None:
        """mean ± sd over languages with decisions, as mParaRel reports (e.g. 16% ± 8% wrong)."""
        shares = [share for row in self.languages if (share := row.share(kind)) is not None]  # None: undecided
        if not shares:
            return None
        return statistics.mean(shares), statistics.stdev(shares) if len(shares) > 1 else 0.0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"languages": [row.to_dict() for row in self.languages]}
        for kind in ("rejected", "amended", "accepted"):
            pair = self.across(kind)
            out[f"{kind}_share_mean"], out[f"{kind}_share_sd"] = pair if pair else (None, None)
        return out


def cohen_kappa(pairs: list[tuple[str, str]]) -> float | None:
    """Kappa for paired labels; None when chance agreement is already total (undefined)."""
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    left, right = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(left[k] * right[k] for k in DECISIONS) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


def standing_decisions(session: Session, language: str | None = None) -> list[StandingDecision]:
    """(language, user_id, template_id, decision, correction, seconds, decision id) of every
    standing decision (review/standing.py)."""
    latest = standing_decision_ids()
    query = (
        select(
            Decision.language,
            Decision.user_id,
            Decision.template_id,
            Decision.decision,
            Decision.correction,
            Decision.seconds,
            Decision.id,
        )
        .where(Decision.id.in_(latest))
        .order_by(Decision.id)
    )
    if language is not None:
        query = query.where(Decision.language == language)
    return [cast(StandingDecision, tuple(row)) for row in session.execute(query)]


def review_summary(session: Session, languages: list[str] | None = None) -> ReviewSummary:
    rows: dict[str, LanguageReview] = {}

    def row(lang: str) -> LanguageReview:
        return rows.setdefault(lang, LanguageReview(lang))

    for lang, reviewers, assigned in session.execute(
        select(Assignment.language, func.count(func.distinct(Assignment.user_id)), func.count(AssignmentItem.id))
        .join(AssignmentItem, and_(AssignmentItem.assignment_id == Assignment.id, in_queue()), isouter=True)
        .group_by(Assignment.language)
    ):
        row(lang).reviewers, row(lang).assigned = reviewers, assigned
    for lang, done in session.execute(
        select(Assignment.language, func.count())
        .join(AssignmentItem, AssignmentItem.assignment_id == Assignment.id)
        .where(in_queue(), decided(AssignmentItem.id))
        .group_by(Assignment.language)
    ):
        row(lang).done = done
    by_template: dict[str, dict[int, dict[int, str]]] = defaultdict(lambda: defaultdict(dict))
    seconds: dict[str, list[float]] = defaultdict(list)
    for lang, user_id, template_id, decision, _, secs, _ in standing_decisions(session):
        r = row(lang)
        setattr(r, COUNTER[decision], getattr(r, COUNTER[decision]) + 1)
        if secs is not None:
            seconds[lang].append(secs)
        if decision in VERDICTS:
            by_template[lang][template_id][user_id] = decision
    for lang, n in session.execute(
        select(Suggestion.language, func.count()).where(Suggestion.retracted.is_(False)).group_by(Suggestion.language)
    ):
        row(lang).suggestions = n
    for lang, r in rows.items():
        if seconds[lang]:
            r.median_seconds = round(statistics.median(seconds[lang]), 1)
            r.total_minutes = round(sum(seconds[lang]) / 60, 1)
        pairs = [
            (votes[a], votes[b]) for votes in by_template[lang].values() for a, b in combinations(sorted(votes), 2)
        ]
        r.pairs_compared = len(pairs)
        if pairs:
            r.agreement = sum(a == b for a, b in pairs) / len(pairs)
            r.kappa = cohen_kappa(pairs)
    wanted = sorted(rows) if languages is None else [code for code in sorted(rows) if code in languages]
    return ReviewSummary([rows[code] for code in wanted])


CSV_COLUMNS = (
    "language",
    "reviewers",
    "assigned",
    "done",
    "accepted",
    "amended",
    "rejected",
    "unsure",
    "accepted_share",
    "amended_share",
    "rejected_share",
    "suggestions",
    "median_seconds",
    "total_minutes",
    "pairs_compared",
    "agreement",
    "kappa",
)


def _cell(value: object) -> object:
    """A statistics cell: a number as a number (a negative kappa is not a formula: a Decimal, not
    text), any text made inert by the writer (core.formats.spreadsheet)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return Decimal(f"{value:.4f}")
    return value


def summary_csv(summary: ReviewSummary) -> str:
    out = io.StringIO()
    writer = spreadsheet.Writer(out)
    writer.writerow(CSV_COLUMNS)
    for r in summary.languages:
        d = r.to_dict()
        writer.writerow([_cell(d[c]) for c in CSV_COLUMNS])
    return out.getvalue()

"""What ships: one rule (issue 36; docs/release.md "What ships: one rule").

`decide` is a pure function over a `LanguageState` — a typed snapshot of one language's stored
state (review/snapshot.py loads it) — that gives **every text people touched exactly one
outcome** (`core.enums.Outcome`) with the rule that gave it and why. The merge, the preview, the
Proposals page and its API, the dashboard's follow-up, `curator review proposals`, the manifest
and the card all read it; no other code decides precedence. The numbered rules below are the rows
of the docs table, in order; the first that applies decides.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from curator.core.enums import DecisionKind, Outcome, Policy, ProposalVerdict
from curator.review.policy import stays

IMPORTED = "import"  # the `source` of a decision or suggestion stored by `curator review import`

# who made a shipped-checked text checked (Decided.by)
BY_MAINTAINER, BY_REVIEWERS, BY_TRUSTED, BY_IMPORT, BY_PARENT = "maintainer", "reviewers", "trusted", "import", "parent"
SHIPPED = frozenset({Outcome.SHIPPED_CHECKED, Outcome.SHIPPED_UNREVIEWED})


@dataclass(frozen=True)
class ParentLine:
    """A line of the parent (candidates) version, in its order."""

    pattern: str
    checked: bool
    template_id: int | None


@dataclass(frozen=True)
class Vote:
    """A reviewer's standing decision on the template row of a text ("unsure" included)."""

    user: int
    kind: str  # DecisionKind
    correction: str | None
    decision_id: int
    source: str  # web | api | import


@dataclass(frozen=True)
class SuggestionLine:
    user: int
    text: str
    source: str
    suggestion_id: int


@dataclass(frozen=True)
class Answer:
    """A maintainer's latest answer to a text on the Proposals page (or `review confirm|drop`)."""

    verdict: str  # ProposalVerdict
    by: str
    at: datetime
    reason: str
    edited_to: str | None = None
    edited_from: str | None = None


@dataclass(frozen=True)
class ResolutionState:
    """The standing resolution of a template row (review/resolutions.py)."""

    resolution_id: int
    row_text: str
    verdict: str  # accept | amend | reject
    correction: str | None
    by: str
    at: datetime
    reason: str


@dataclass(frozen=True)
class DropState:
    """An active line drop (release/line_drops.py)."""

    drop_id: int
    by: str
    reason: str


@dataclass
class RelationState:
    relation: str
    parent: list[ParentLine] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)  # text -> its template row id
    candidates: set[str] = field(default_factory=set)  # texts of machine-candidate rows people decided on
    decisions: dict[str, list[Vote]] = field(default_factory=dict)  # row text -> standing decisions on it
    suggestions: list[SuggestionLine] = field(default_factory=list)  # unretracted
    answers: dict[str, Answer] = field(default_factory=dict)  # text -> the latest answer
    resolutions: dict[str, ResolutionState] = field(default_factory=dict)  # row text -> its standing resolution
    drops: dict[str, DropState] = field(default_factory=dict)  # pattern -> its active drop


@dataclass
class LanguageState:
    language: str
    policy: str = Policy.ANY
    trusted: frozenset[int] = frozenset()
    emails: dict[int, str] = field(default_factory=dict)
    relations: dict[str, RelationState] = field(default_factory=dict)


@dataclass(frozen=True)
class Decided:
    """One text's outcome: which rule (the docs table's row) and why."""

    language: str
    relation: str
    text: str
    outcome: Outcome
    rule: int
    reason: str
    by: str | None = None  # shipped-checked: maintainer | reviewers | trusted | import | parent
    parent: bool = False  # a line of the parent version
    origin: str = "candidate"  # candidate | resolved | amended | suggested | edited | confirmed
    proposers: tuple[int, ...] = ()  # user ids (live proposals of this text)
    settled_by: tuple[int, ...] = ()  # user ids whose amendments to it a resolution settled
    amends: tuple[str, ...] = ()  # the rows its live amendments correct (settled ones too), in decision order
    suggested: bool = False  # an unretracted suggestion of it exists
    order: tuple[int, int, int, str] = (0, 0, 0, "")  # where a shipped text that is no parent line goes

    @property
    def shipped(self) -> bool:
        return self.outcome in SHIPPED

    @property
    def checked(self) -> bool:
        return self.outcome == Outcome.SHIPPED_CHECKED


@dataclass
class RelationOutcome:
    """A relation's outcomes: every text once, parent lines first (in parent order), then the
    others in the order they would ship."""

    language: str
    relation: str
    decided: dict[str, Decided]
    parent: list[ParentLine]

    def shipped(self) -> list[tuple[Decided, ParentLine | None, bool]]:
        """The lines a build writes, with their checked flag: each parent line that ships
        (duplicates too; one the rule ships as the parent marks it — rows 4 and 10 — keeps its own
        copy's flag), then the other shipped texts in their order."""
        out: list[tuple[Decided, ParentLine | None, bool]] = []
        for line in self.parent:
            d = self.decided[line.pattern]
            if d.shipped:
                out.append((d, line, line.checked if d.rule in (4, 10) else d.checked))
        others = [d for d in self.decided.values() if not d.parent and d.shipped]
        out += [(d, None, d.checked) for d in sorted(others, key=lambda d: d.order)]
        return out


@dataclass(frozen=True)
class _Act:
    """A maintainer's act on a text: what it says and when."""

    at: datetime
    rank: int  # on equal times: an answer (1) counts over a resolution (0)
    says: str  # ship | drop | edit | settle
    reason: str


def decide(state: LanguageState) -> list[RelationOutcome]:
    """Every text of every relation of the language, and its one outcome (docs/release.md)."""
    return [_relation(state, rel) for _, rel in sorted(state.relations.items())]


def _relation(state: LanguageState, rel: RelationState) -> RelationOutcome:
    resolved = set(rel.resolutions)
    proposers: dict[str, set[int]] = {}
    settled: dict[str, list[str]] = {}  # text -> the resolved rows whose amendments propose it
    settled_by: dict[str, set[int]] = {}
    amends: dict[str, list[str]] = {}
    imported: set[str] = set()
    order: dict[str, tuple[int, int, int, str]] = {}
    origin: dict[str, str] = {}
    position: dict[str, int] = {}
    for i, line in enumerate(rel.parent):
        position.setdefault(line.pattern, i)

    def place(text: str, key: tuple[int, int, int, str], how: str) -> None:
        if text not in order or key < order[text]:
            order[text], origin[text] = key, how

    for row_text, v in _live_amendments(rel):
        correction = v.correction
        assert correction is not None  # _live_amendments keeps amendments with a correction
        amends.setdefault(correction, []).append(row_text)
        if row_text in resolved:
            settled.setdefault(correction, []).append(row_text)
            settled_by.setdefault(correction, set()).add(v.user)
            continue
        proposers.setdefault(correction, set()).add(v.user)
        if v.source == IMPORTED:
            imported.add(correction)
        if row_text in position:
            place(correction, (1, position[row_text], v.decision_id, ""), "amended")
        else:
            place(correction, (3, 0, 0, correction), "amended")
    for s in rel.suggestions:
        proposers.setdefault(s.text, set()).add(s.user)
        if s.source == IMPORTED:
            imported.add(s.text)
        place(s.text, (2, s.suggestion_id, 0, ""), "suggested")
    acts: dict[str, list[_Act]] = {}
    for row_text, r in rel.resolutions.items():
        says = "ship" if r.verdict == DecisionKind.ACCEPT else "settle"
        what = f"resolution: {r.verdict}{' → ' + r.correction if r.correction else ''} by {r.by}: {r.reason}"
        acts.setdefault(row_text, []).append(_Act(r.at, 0, says, what))
        if r.correction is not None:
            acts.setdefault(r.correction, []).append(_Act(r.at, 0, "ship", what))
            if row_text in position:
                place(r.correction, (0, position[row_text], r.resolution_id, ""), "resolved")
            else:
                place(r.correction, (3, 0, 0, r.correction), "resolved")
    for text, a in rel.answers.items():
        if a.verdict == ProposalVerdict.CONFIRM:
            says, what = "ship", f"confirmed by {a.by}"
            place(text, (3, 0, 0, text), "edited" if a.edited_from is not None else "confirmed")
        elif a.edited_to is not None:
            says, what = "edit", f"edited by {a.by} to {a.edited_to}"
        else:
            says, what = "drop", f"dropped by {a.by}"
        acts.setdefault(text, []).append(_Act(a.at, 1, says, what + (f": {a.reason}" if a.reason else "")))
    suggested = {s.text for s in rel.suggestions}
    texts = list(dict.fromkeys([*position, *proposers, *settled, *acts]))
    decided: dict[str, Decided] = {}
    for text in texts:
        outcome, rule, reason, by = _outcome(state, rel, text, proposers, settled, imported, acts, position)
        decided[text] = Decided(
            language=state.language,
            relation=rel.relation,
            text=text,
            outcome=outcome,
            rule=rule,
            reason=reason,
            by=by,
            parent=text in position,
            origin="candidate" if text in position else origin.get(text, "confirmed"),
            proposers=tuple(sorted(proposers.get(text, ()))),
            settled_by=tuple(sorted(settled_by.get(text, ()))),
            amends=tuple(dict.fromkeys(amends.get(text, ()))),
            suggested=text in suggested,
            order=order.get(text, (3, 0, 0, text)),
        )
    return RelationOutcome(state.language, rel.relation, decided, list(rel.parent))


def _live_amendments(rel: RelationState) -> list[tuple[str, Vote]]:
    """The standing amendments that are proposals: those of a row whose text is itself a text of
    the relation (a parent line, a machine candidate, a suggestion, a text a maintainer acted on,
    or — repeatedly — the correction of such an amendment). An amendment of a row whose proposal is gone (withdrawn,
    undone) stays in history and reaches nothing."""
    amends = [
        (row_text, v)
        for row_text, votes in rel.decisions.items()
        for v in votes
        if v.kind == DecisionKind.AMEND and v.correction is not None and v.correction != row_text
    ]
    live = {line.pattern for line in rel.parent} | rel.candidates | {s.text for s in rel.suggestions} | set(rel.answers)
    live |= set(rel.resolutions) | {r.correction for r in rel.resolutions.values() if r.correction is not None}
    while True:
        more = {v.correction for row_text, v in amends if row_text in live and v.correction is not None} - live
        if not more:
            break
        live |= more
    return sorted(((t, v) for t, v in amends if t in live), key=lambda tv: tv[1].decision_id)


def _outcome(
    state: LanguageState,
    rel: RelationState,
    text: str,
    proposers: dict[str, set[int]],
    settled: dict[str, list[str]],
    imported: set[str],
    acts: dict[str, list[_Act]],
    position: dict[str, int],
) -> tuple[Outcome, int, str, str | None]:
    """The docs table, row by row: (outcome, row, reason, by)."""
    drop = rel.drops.get(text)
    if drop is not None:  # 1
        return Outcome.DROPPED, 1, f"line dropped by {drop.by}: {drop.reason}", None
    if text in acts:  # 2
        act = max(acts[text], key=lambda a: (a.at, a.rank))
        if act.says == "ship":
            return Outcome.SHIPPED_CHECKED, 2, act.reason, BY_MAINTAINER
        if act.says == "drop":
            return Outcome.DROPPED, 2, act.reason, None
        if act.says == "edit":
            return Outcome.SUPERSEDED, 2, act.reason, None
        return Outcome.SETTLED, 2, act.reason, None
    mine = proposers.get(text, set())
    is_parent = text in position
    if not is_parent and not mine and text in settled:  # 3
        rows = ", ".join(sorted(set(settled[text])))
        return Outcome.SETTLED, 3, f"an amendment of {rows}, which a maintainer resolved", None
    others = [v for v in rel.decisions.get(text, []) if v.user not in mine and v.kind != DecisionKind.UNSURE]
    votes = [str(DecisionKind.ACCEPT)] * len(mine) + [v.kind for v in others]
    parent_line = next((line for line in rel.parent if line.pattern == text), None)
    if not votes:  # 4
        assert parent_line is not None  # every other text has a proposer or a maintainer's act
        return _as_parent(parent_line, 4, "nobody decided it")
    verdicts = _verdicts(state, mine, others)
    if not stays(votes, state.policy):  # 5
        return _turned_down(others, 5, f"not kept under policy {state.policy}: {verdicts}")
    if text in imported:  # 6
        return Outcome.SHIPPED_CHECKED, 6, "confirmed by import", BY_IMPORT
    accepts = sum(v.kind == DecisionKind.ACCEPT for v in others)
    accepted_row = any(v.kind == DecisionKind.ACCEPT for v in rel.decisions.get(text, []))
    if len(mine) + accepts >= 2 or (is_parent and accepted_row):  # 7
        return Outcome.SHIPPED_CHECKED, 7, verdicts, BY_REVIEWERS
    if any(u in state.trusted for u in mine):  # 8
        return Outcome.SHIPPED_CHECKED, 8, f"proposed by a trusted reviewer: {verdicts}", BY_TRUSTED
    if others:  # 9
        return _turned_down(others, 9, f"a second look did not accept it: {verdicts}")
    if parent_line is not None:  # 10
        return _as_parent(parent_line, 10, f"waiting for a second look: {verdicts}")
    return Outcome.WAITING, 11, f"waiting for a second look: {verdicts}", None  # 11


def _as_parent(line: ParentLine, rule: int, reason: str) -> tuple[Outcome, int, str, str | None]:
    if line.checked:
        return Outcome.SHIPPED_CHECKED, rule, f"{reason}; checked in the parent version", BY_PARENT
    return Outcome.SHIPPED_UNREVIEWED, rule, reason, None


def _turned_down(others: Iterable[Vote], rule: int, reason: str) -> tuple[Outcome, int, str, str | None]:
    """Rows 5 and 9: superseded when every vote that is not an accept is an amend, else rejected
    (the proposers' votes are accepts)."""
    no = [v.kind for v in others if v.kind != DecisionKind.ACCEPT]
    if no and all(k == DecisionKind.AMEND for k in no):
        return Outcome.SUPERSEDED, rule, reason, None
    return Outcome.REJECTED, rule, reason, None


def _verdicts(state: LanguageState, mine: set[int], others: list[Vote]) -> str:
    """Who said what, for the reason: proposers, then the other reviewers' verdicts."""
    parts = [f"{state.emails.get(u, '?')} proposed it" for u in sorted(mine)]
    parts += [f"{state.emails.get(v.user, '?')}: {v.kind}" for v in sorted(others, key=lambda v: v.user)]
    return ", ".join(parts) if parts else "no verdicts"

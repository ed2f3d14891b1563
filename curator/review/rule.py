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
from typing import TYPE_CHECKING

from curator.core.enums import ConfirmedBy, DecisionKind, DecisionSource, Outcome, Policy, ProposalVerdict
from curator.core.errors import N_
from curator.review.policy import stays

if TYPE_CHECKING:
    from curator.review.resolutions import ResolutionRecord

SHIPPED = frozenset({Outcome.SHIPPED_CHECKED, Outcome.SHIPPED_UNREVIEWED})


@dataclass(frozen=True)
class Why:
    """Why the rule decided a text, as a message marked with `N_` (so the web says it in the
    page's language) and its parameters; `str()` is the English reason the commands, the
    manifest and the JSON give (`Decided.reason`). A parameter is text (an e-mail address, a
    template, a reason typed by a maintainer), a decision kind or a policy (`decision`,
    `verdict`, `policy`: the web names them), another `Why`, or a `Whys` list."""

    message: str
    params: tuple[tuple[str, object], ...] = ()

    def __str__(self) -> str:
        return self.message % {k: str(v) for k, v in self.params} if self.params else self.message


@dataclass(frozen=True)
class Whys:
    """A list of reasons (who proposed a text, who decided what), said joined by commas; an
    empty one is "no verdicts"."""

    items: tuple[Why, ...] = ()

    def __str__(self) -> str:
        return ", ".join(str(w) for w in self.items) if self.items else NO_VERDICTS


NO_VERDICTS = N_("no verdicts")


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
    reason: str | None = None  # a reject's or an unsure's reason: shown with the verdict, never judged


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
    record: ResolutionRecord | None = None  # as pages, params and the manifest show it (from the database)


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
    reason: str  # str(why): the English reason
    by: ConfirmedBy | None = None  # shipped-checked: who made it checked
    parent: bool = False  # a line of the parent version
    origin: str = "candidate"  # candidate | resolved | amended | suggested | edited | confirmed
    proposers: tuple[int, ...] = ()  # user ids (live proposals of this text)
    settled_by: tuple[int, ...] = ()  # user ids whose amendments to it a resolution settled
    amends: tuple[str, ...] = ()  # the rows its live amendments correct (settled ones too), in decision order
    suggested: bool = False  # an unretracted suggestion of it exists
    order: tuple[int, int, int, str] = (0, 0, 0, "")  # where a shipped text that is no parent line goes
    why: Why | Whys | None = None  # the reason as a message to translate (None: `reason` only)

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
    reason: Why


def decide(state: LanguageState) -> list[RelationOutcome]:
    """Every text of every relation of the language, and its one outcome (docs/release.md)."""
    return [_relation(state, rel) for _, rel in sorted(state.relations.items())]


@dataclass
class _Gathered:
    """What a relation's rows say, gathered once before any text is decided."""

    first: dict[str, ParentLine] = field(default_factory=dict)  # text -> its first parent line
    position: dict[str, int] = field(default_factory=dict)  # text -> its first parent position
    proposers: dict[str, set[int]] = field(default_factory=dict)
    settled: dict[str, list[str]] = field(default_factory=dict)  # text -> resolved rows amended to it
    settled_by: dict[str, set[int]] = field(default_factory=dict)
    amends: dict[str, list[str]] = field(default_factory=dict)  # text -> the rows amended to it
    imported: set[str] = field(default_factory=set)
    acts: dict[str, list[_Act]] = field(default_factory=dict)
    order: dict[str, tuple[int, int, int, str]] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)

    def place(self, text: str, key: tuple[int, int, int, str], how: str) -> None:
        """Where a text that is no parent line ships: its earliest source."""
        if text not in self.order or key < self.order[text]:
            self.order[text], self.origin[text] = key, how

    def after(self, row_text: str) -> tuple[int, int]:
        """The group and position of what a row's amendment or resolution adds: a parent line's
        in parent order (group `0`/`1` by the caller), any other row's with the rest (group 3)."""
        return (0, self.position[row_text]) if row_text in self.position else (3, 0)


def _relation(state: LanguageState, rel: RelationState) -> RelationOutcome:
    g = _gather(rel)
    suggested = {s.text for s in rel.suggestions}
    texts = list(dict.fromkeys([*g.position, *g.proposers, *g.settled, *g.acts]))
    decided: dict[str, Decided] = {}
    for text in texts:
        outcome, rule, why, by = _by_maintainer(rel, text, g) or _by_reviewers(state, rel, text, g)
        decided[text] = Decided(
            language=state.language,
            relation=rel.relation,
            text=text,
            outcome=outcome,
            rule=rule,
            reason=str(why),
            by=by,
            parent=text in g.position,
            origin="candidate" if text in g.position else g.origin.get(text, "confirmed"),
            proposers=tuple(sorted(g.proposers.get(text, ()))),
            settled_by=tuple(sorted(g.settled_by.get(text, ()))),
            amends=tuple(dict.fromkeys(g.amends.get(text, ()))),
            suggested=text in suggested,
            order=g.order.get(text, (3, 0, 0, text)),
            why=why,
        )
    return RelationOutcome(state.language, rel.relation, decided, list(rel.parent))


def _gather(rel: RelationState) -> _Gathered:
    g = _Gathered()
    for i, line in enumerate(rel.parent):
        g.first.setdefault(line.pattern, line)
        g.position.setdefault(line.pattern, i)
    _gather_proposals(rel, g)
    _gather_acts(rel, g)
    return g


def _gather_proposals(rel: RelationState, g: _Gathered) -> None:
    """Proposers of each text: live amendments (those of a resolved row are settled) and
    suggestions; imported ones; where each would ship."""
    for row_text, v in _live_amendments(rel):
        correction = v.correction
        assert correction is not None  # _live_amendments keeps amendments with a correction
        g.amends.setdefault(correction, []).append(row_text)
        if row_text in rel.resolutions:
            g.settled.setdefault(correction, []).append(row_text)
            g.settled_by.setdefault(correction, set()).add(v.user)
            continue
        g.proposers.setdefault(correction, set()).add(v.user)
        if v.source == DecisionSource.IMPORT:
            g.imported.add(correction)
        group, pos = g.after(row_text)
        key = (1, pos, v.decision_id, "") if group == 0 else (3, 0, 0, correction)
        g.place(correction, key, "amended")
    for s in rel.suggestions:
        g.proposers.setdefault(s.text, set()).add(s.user)
        if s.source == DecisionSource.IMPORT:
            g.imported.add(s.text)
        g.place(s.text, (2, s.suggestion_id, 0, ""), "suggested")


def _gather_acts(rel: RelationState, g: _Gathered) -> None:
    """A maintainer's acts on each text: standing resolutions (on the row, and on the correction)
    and the latest answers."""
    for row_text, r in rel.resolutions.items():
        says = "ship" if r.verdict == DecisionKind.ACCEPT else "settle"
        said = (("verdict", r.verdict), ("who", r.by), ("reason", r.reason))
        if r.correction:
            what = Why(
                N_("resolution: %(verdict)s → %(correction)s by %(who)s: %(reason)s"),
                (*said, ("correction", r.correction)),
            )
        else:
            what = Why(N_("resolution: %(verdict)s by %(who)s: %(reason)s"), said)
        g.acts.setdefault(row_text, []).append(_Act(r.at, 0, says, what))
        if r.correction is not None:
            g.acts.setdefault(r.correction, []).append(_Act(r.at, 0, "ship", what))
            group, pos = g.after(row_text)
            key = (0, pos, r.resolution_id, "") if group == 0 else (3, 0, 0, r.correction)
            g.place(r.correction, key, "resolved")
    for text, a in rel.answers.items():
        if a.verdict == ProposalVerdict.CONFIRM:
            says, act = "ship", Why(N_("confirmed by %(who)s"), (("who", a.by),))
            g.place(text, (3, 0, 0, text), "edited" if a.edited_from is not None else "confirmed")
        elif a.edited_to is not None:
            says, act = "edit", Why(N_("edited by %(who)s to %(text)s"), (("who", a.by), ("text", a.edited_to)))
        else:
            says, act = "drop", Why(N_("dropped by %(who)s"), (("who", a.by),))
        if a.reason:
            act = Why(N_("%(act)s: %(reason)s"), (("act", act), ("reason", a.reason)))
        g.acts.setdefault(text, []).append(_Act(a.at, 1, says, act))


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


_ACT_OUTCOME = {
    "ship": (Outcome.SHIPPED_CHECKED, ConfirmedBy.MAINTAINER),
    "drop": (Outcome.DROPPED, None),
    "edit": (Outcome.SUPERSEDED, None),
    "settle": (Outcome.SETTLED, None),
}


def _by_maintainer(rel: RelationState, text: str, g: _Gathered) -> tuple[Outcome, int, Why, ConfirmedBy | None] | None:
    """Rows 1–3 of the docs table: a line drop, the latest maintainer act, a settled amendment;
    None when none applies."""
    drop = rel.drops.get(text)
    if drop is not None:  # 1
        return (
            Outcome.DROPPED,
            1,
            Why(N_("line dropped by %(who)s: %(reason)s"), (("who", drop.by), ("reason", drop.reason))),
            None,
        )
    if text in g.acts:  # 2
        act = max(g.acts[text], key=lambda a: (a.at, a.rank))
        outcome, by = _ACT_OUTCOME[act.says]
        return outcome, 2, act.reason, by
    if text not in g.position and not g.proposers.get(text) and text in g.settled:  # 3
        rows = ", ".join(sorted(set(g.settled[text])))
        return (
            Outcome.SETTLED,
            3,
            Why(N_("an amendment of %(rows)s, which a maintainer resolved"), (("rows", rows),)),
            None,
        )
    return None


def _by_reviewers(
    state: LanguageState, rel: RelationState, text: str, g: _Gathered
) -> tuple[Outcome, int, Why | Whys, ConfirmedBy | None]:
    """Rows 4–11 of the docs table: the reviewers' votes under the policy, the second look."""
    mine = g.proposers.get(text, set())
    others = [v for v in rel.decisions.get(text, []) if v.user not in mine and v.kind != DecisionKind.UNSURE]
    votes = [str(DecisionKind.ACCEPT)] * len(mine) + [v.kind for v in others]
    parent_line = g.first.get(text)
    if not votes:  # 4
        if parent_line is None:  # every other text has a proposer or a maintainer's act
            raise ValueError(f"{rel.relation}: {text!r} has no vote, no proposer and no parent line")
        return _as_parent(parent_line, 4, Why(N_("nobody decided it")))
    verdicts = _verdicts(state, mine, others)
    if not stays(votes, state.policy):  # 5
        return _turned_down(
            others,
            5,
            Why(
                N_("not kept under policy %(policy)s: %(verdicts)s"), (("policy", state.policy), ("verdicts", verdicts))
            ),
        )
    if text in g.imported:  # 6
        return Outcome.SHIPPED_CHECKED, 6, Why(N_("confirmed by import")), ConfirmedBy.IMPORT
    accepts = sum(v.kind == DecisionKind.ACCEPT for v in others)
    accepted_row = any(v.kind == DecisionKind.ACCEPT for v in rel.decisions.get(text, []))
    if len(mine) + accepts >= 2 or (parent_line is not None and accepted_row):  # 7
        return Outcome.SHIPPED_CHECKED, 7, verdicts, ConfirmedBy.REVIEWERS
    if any(u in state.trusted for u in mine):  # 8
        why = Why(N_("proposed by a trusted reviewer: %(verdicts)s"), (("verdicts", verdicts),))
        return Outcome.SHIPPED_CHECKED, 8, why, ConfirmedBy.TRUSTED
    if others:  # 9
        return _turned_down(
            others, 9, Why(N_("a second look did not accept it: %(verdicts)s"), (("verdicts", verdicts),))
        )
    waiting = Why(N_("waiting for a second look: %(verdicts)s"), (("verdicts", verdicts),))
    if parent_line is not None:  # 10
        return _as_parent(parent_line, 10, waiting)
    return Outcome.WAITING, 11, waiting, None  # 11


def _as_parent(line: ParentLine, rule: int, reason: Why) -> tuple[Outcome, int, Why, ConfirmedBy | None]:
    if line.checked:
        why = Why(N_("%(reason)s; checked in the parent version"), (("reason", reason),))
        return Outcome.SHIPPED_CHECKED, rule, why, ConfirmedBy.PARENT
    return Outcome.SHIPPED_UNREVIEWED, rule, reason, None


def _turned_down(others: Iterable[Vote], rule: int, reason: Why) -> tuple[Outcome, int, Why, ConfirmedBy | None]:
    """Rows 5 and 9: superseded when every vote that is not an accept is an amend, else rejected
    (the proposers' votes are accepts)."""
    no = [v.kind for v in others if v.kind != DecisionKind.ACCEPT]
    if no and all(k == DecisionKind.AMEND for k in no):
        return Outcome.SUPERSEDED, rule, reason, None
    return Outcome.REJECTED, rule, reason, None


def _verdicts(state: LanguageState, mine: set[int], others: list[Vote]) -> Whys:
    """Who said what, for the reason: proposers, then the other reviewers' verdicts."""
    parts = [Why(N_("%(who)s proposed it"), (("who", state.emails.get(u, "?")),)) for u in sorted(mine)]
    parts += [
        Why(N_("%(who)s: %(decision)s"), (("who", state.emails.get(v.user, "?")), ("decision", v.kind)))
        for v in sorted(others, key=lambda v: v.user)
    ]
    return Whys(tuple(parts))

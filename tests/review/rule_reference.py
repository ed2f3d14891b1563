"""An independent reference of the rule for what ships (issue 36), written from the precedence
table of docs/release.md ("What ships: one rule") and nothing else.

It is plain Python over its own record of the events a test applied — base lines with their
checked flags, every reviewer's decisions (undo included), suggestions, a maintainer's answers,
resolutions, line drops, trust — and never reads or calls the code that decides what ships
(curator.release.merge, curator.review.proposals, curator.review.policy, curator.review.rule):
tests/review/test_rule_property.py drives the real services and compares.

Order in time is the order of the events (`History.seq`): each event is a transaction of its
own, so the database's ids and timestamps follow the same order.

Not a test module (no `test_` prefix): pytest does not collect it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

ACCEPT, AMEND, REJECT, UNSURE = "accept", "amend", "reject", "unsure"
CONFIRM, DROP = "confirm", "drop"
POLICIES = ("any", "majority", "unanimous")

# the outcomes, named as the docs name them
SHIPPED_CHECKED = "shipped-checked"
SHIPPED_UNREVIEWED = "shipped-unreviewed"
WAITING = "waiting"
REJECTED = "rejected"
DROPPED = "dropped"
SETTLED = "settled"
SUPERSEDED = "superseded"
SHIPPED = frozenset({SHIPPED_CHECKED, SHIPPED_UNREVIEWED})

MIN_LINES = 2  # a relation left with fewer is dropped


class Refused(Exception):
    """The reference says the service must refuse this event; `other` names what it conflicts with."""

    def __init__(self, message: str, other: str | None = None):
        super().__init__(message)
        self.other = other


@dataclass
class Decision:
    seq: int
    reviewer: str
    relation: str
    row: str  # the text of the template row decided on
    kind: str
    correction: str | None
    imported: bool = False
    retracted: bool = False


@dataclass
class Suggestion:
    seq: int
    reviewer: str
    relation: str
    text: str
    imported: bool = False
    retracted: bool = False


@dataclass
class Answer:
    """A maintainer's answer on the Proposals page (an edit is two: a drop of the old text with
    `edited_to`, a confirm of the new one)."""

    seq: int
    relation: str
    text: str
    verdict: str  # confirm | drop
    edited_to: str | None = None


@dataclass
class Resolution:
    seq: int
    relation: str
    row: str
    verdict: str  # accept | amend | reject
    correction: str | None
    retracted: bool = False

    def says(self) -> dict[str, bool]:
        """What it says of each text it names: ships (True) or not (False)."""
        if self.verdict == ACCEPT:
            return {self.row: True}
        said = {self.row: False}
        if self.verdict == AMEND:
            assert self.correction is not None
            said[self.correction] = True
        return said


@dataclass(frozen=True)
class Outcome:
    outcome: str
    rule: int
    by: str | None = None  # for shipped-checked: maintainer | reviewers | trusted | import | parent


@dataclass
class RelationResult:
    outcomes: dict[str, Outcome]
    lines: list[tuple[str, bool]]  # shipped, in the documented order, with the checked flag

    @property
    def dropped(self) -> bool:
        return len(self.lines) < MIN_LINES


@dataclass
class History:
    """Everything applied so far, in one language."""

    base: dict[str, list[tuple[str, bool]]]  # relation -> the parent's lines (text, checked), in order
    decisions: list[Decision] = field(default_factory=list)
    suggestions: list[Suggestion] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    resolutions: list[Resolution] = field(default_factory=list)
    drops: dict[tuple[str, str], bool] = field(default_factory=dict)  # (relation, text) -> active
    trusted: set[str] = field(default_factory=set)
    seq: int = 0
    # (reviewer, relation, row) of the items retired from the queues (issue 36 §4): an input, read
    # from the database before each event; a decision on a retired item reaches nothing
    retired: set[tuple[str, str, str]] = field(default_factory=set)

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    # ------------------------------------------------------------------ events
    def standing_on(self, reviewer: str, relation: str, row: str) -> Decision | None:
        """The reviewer's standing decision on that row: the latest not undone."""
        found = [
            d
            for d in self.decisions
            if d.reviewer == reviewer and d.relation == relation and d.row == row and not d.retracted
        ]
        return max(found, key=lambda d: d.seq, default=None)

    def decide(self, reviewer: str, relation: str, row: str, kind: str, correction: str | None = None) -> bool:
        """Returns whether a decision was stored (the same decision again stores nothing)."""
        if kind == AMEND and correction == row:
            raise Refused("the correction is the same as the template")
        if kind != AMEND:
            correction = None
        current = self.standing_on(reviewer, relation, row)
        if current is not None and current.kind == kind and current.correction == correction:
            return False
        self.decisions.append(Decision(self._next(), reviewer, relation, row, kind, correction))
        return True

    def undo(self, reviewer: str) -> Decision | None:
        """The reviewer's latest standing decision on an item still in the queue is undone; returns it."""
        latest = max(
            (
                d
                for d in self.decisions
                if d.reviewer == reviewer and not d.retracted and (d.reviewer, d.relation, d.row) not in self.retired
            ),
            key=lambda d: d.seq,
            default=None,
        )
        if latest is not None:
            latest.retracted = True
            self._next()
        return latest

    def own_suggestion(self, reviewer: str, relation: str, text: str) -> Suggestion | None:
        return next(
            (
                s
                for s in self.suggestions
                if s.reviewer == reviewer and s.relation == relation and s.text == text and not s.retracted
            ),
            None,
        )

    def suggest(self, reviewer: str, relation: str, text: str) -> Suggestion:
        same = self.own_suggestion(reviewer, relation, text)
        if same is not None:
            return same
        made = Suggestion(self._next(), reviewer, relation, text)
        self.suggestions.append(made)
        return made

    def withdraw(self, suggestion: Suggestion) -> None:
        if not suggestion.retracted:
            suggestion.retracted = True
            self._next()

    def edit_suggestion(self, suggestion: Suggestion, text: str) -> Suggestion:
        if suggestion.retracted:  # a form sent twice: fine if its result stands, else refused
            done = self.own_suggestion(suggestion.reviewer, suggestion.relation, text)
            if done is None:
                raise Refused("that suggestion was withdrawn already")
            return done
        if text == suggestion.text:
            return suggestion
        new = self.suggest(suggestion.reviewer, suggestion.relation, text)
        suggestion.retracted = True
        return new

    def answer(self, relation: str, text: str, verdict: str, edited_to: str | None = None) -> None:
        seq = self._next()
        if edited_to is not None and edited_to != text:
            self.answers.append(Answer(seq, relation, text, DROP, edited_to))
            self.answers.append(Answer(seq, relation, edited_to, CONFIRM))
        else:
            self.answers.append(Answer(seq, relation, text, CONFIRM if edited_to is not None else verdict))

    def standing_resolution(self, relation: str, row: str) -> Resolution | None:
        """The row's latest resolution, unless retracted."""
        latest = max(
            (r for r in self.resolutions if r.relation == relation and r.row == row), key=lambda r: r.seq, default=None
        )
        return None if latest is None or latest.retracted else latest

    def standing_resolutions(self, relation: str) -> dict[str, Resolution]:
        rows = {r.row for r in self.resolutions if r.relation == relation}
        return {row: r for row in rows if (r := self.standing_resolution(relation, row)) is not None}

    def contradiction(self, relation: str, row: str, verdict: str, correction: str | None) -> Resolution | None:
        """A standing resolution of another row whose verdict on some text disagrees with this one's."""
        new = Resolution(0, relation, row, verdict, correction).says()
        for other_row, other in sorted(self.standing_resolutions(relation).items()):
            if other_row == row:
                continue  # the row's own resolution: the new one supersedes it
            said = other.says()
            if any(text in said and said[text] != ships for text, ships in new.items()):
                return other
        return None

    def resolve(self, relation: str, row: str, verdict: str, correction: str | None = None) -> Resolution:
        other = self.contradiction(relation, row, verdict, correction)
        if other is not None:
            raise Refused(f"contradicts the standing resolution of {other.row!r}", other.row)
        made = Resolution(self._next(), relation, row, verdict, correction if verdict == AMEND else None)
        self.resolutions.append(made)
        return made

    def retract(self, relation: str, row: str) -> None:
        standing = self.standing_resolution(relation, row)
        if standing is None:
            raise Refused(f"no standing resolution of {row!r}")
        standing.retracted = True
        self._next()

    def drop_line(self, relation: str, text: str) -> None:
        if self.drops.get((relation, text)):
            raise Refused("already dropped")
        self.drops[relation, text] = True
        self._next()

    def restore_line(self, relation: str, text: str) -> None:
        if not self.drops.get((relation, text)):
            raise Refused("not dropped")
        self.drops[relation, text] = False
        self._next()

    def trust(self, reviewer: str, trusted: bool) -> None:
        (self.trusted.add if trusted else self.trusted.discard)(reviewer)

    # ------------------------------------------------------------------ the rule
    def standing(self, relation: str) -> list[Decision]:
        """Every reviewer's standing decision on every row of the relation, but on retired items."""
        latest: dict[tuple[str, str], Decision] = {}
        for d in self.decisions:
            if d.relation == relation and not d.retracted and (d.reviewer, relation, d.row) not in self.retired:
                key = (d.reviewer, d.row)
                if key not in latest or d.seq > latest[key].seq:
                    latest[key] = d
        return sorted(latest.values(), key=lambda d: d.seq)

    def texts(self, relation: str) -> set[str]:
        """The texts of the relation: parent lines, unretracted suggestions, answered texts,
        resolved rows and resolutions' corrections, and — repeatedly — the corrections of standing
        amendments of a row that is a text already (every machine candidate here is a parent
        line): the least fixed point. A decision on any other row reaches nothing."""
        found = {text for text, _ in self.base.get(relation, [])}
        found |= {s.text for s in self.suggestions if s.relation == relation and not s.retracted}
        found |= {a.text for a in self.answers if a.relation == relation}
        for r in self.standing_resolutions(relation).values():
            found.add(r.row)
            if r.correction is not None:
                found.add(r.correction)
        amends = [d for d in self.standing(relation) if d.kind == AMEND]
        grew = True
        while grew:
            grew = False
            for d in amends:
                assert d.correction is not None
                if d.row in found and d.correction not in found:
                    found.add(d.correction)
                    grew = True
        return found

    def outcomes(self, relation: str, policy: str) -> dict[str, Outcome]:
        return self.decide_relation(relation, policy).outcomes

    def decide_relation(self, relation: str, policy: str) -> RelationResult:
        assert policy in POLICIES
        texts = self.texts(relation)
        parent = dict(self.base.get(relation, []))
        standing = [d for d in self.standing(relation) if d.row in texts]  # the others reach nothing
        resolved = self.standing_resolutions(relation)
        proposers: dict[str, set[str]] = defaultdict(set)
        settled: dict[str, list[Decision]] = defaultdict(list)
        for d in standing:
            if d.kind == AMEND:
                assert d.correction is not None
                (settled[d.correction].append(d) if d.row in resolved else proposers[d.correction].add(d.reviewer))
        for s in self.suggestions:
            if s.relation == relation and not s.retracted:
                proposers[s.text].add(s.reviewer)
        imported = {d.correction for d in standing if d.kind == AMEND and d.imported and d.row not in resolved}
        imported |= {s.text for s in self.suggestions if s.relation == relation and not s.retracted and s.imported}

        outcomes: dict[str, Outcome] = {}
        for text in sorted(texts):
            outcomes[text] = self._one(
                relation, text, policy, parent, standing, resolved, proposers[text], settled[text], text in imported
            )
        return RelationResult(outcomes, self._lines(relation, outcomes, parent, resolved, standing))

    def _maintainer_act(self, relation: str, text: str, resolved: dict[str, Resolution]) -> Outcome | None:
        """Row 2: the latest of a maintainer's acts on the text (on equal times the answer)."""
        acts: list[tuple[int, int, Outcome]] = []  # (time, answer first on a tie, outcome)
        answers = [a for a in self.answers if a.relation == relation and a.text == text]
        if answers:
            latest = max(answers, key=lambda a: a.seq)
            if latest.verdict == CONFIRM:
                act = Outcome(SHIPPED_CHECKED, 2, "maintainer")
            elif latest.edited_to is not None:
                act = Outcome(SUPERSEDED, 2)
            else:
                act = Outcome(DROPPED, 2)
            acts.append((latest.seq, 1, act))
        own = resolved.get(text)
        if own is not None:
            verdict = Outcome(SHIPPED_CHECKED, 2, "maintainer") if own.verdict == ACCEPT else Outcome(SETTLED, 2)
            acts.append((own.seq, 0, verdict))
        for r in resolved.values():
            if r.correction == text:
                acts.append((r.seq, 0, Outcome(SHIPPED_CHECKED, 2, "maintainer")))
        if not acts:
            return None
        return max(acts, key=lambda a: (a[0], a[1]))[2]

    def _one(
        self,
        relation: str,
        text: str,
        policy: str,
        parent: dict[str, bool],
        standing: list[Decision],
        resolved: dict[str, Resolution],
        proposers: set[str],
        settled: list[Decision],
        imported: bool,
    ) -> Outcome:
        # 1. an active line drop
        if self.drops.get((relation, text)):
            return Outcome(DROPPED, 1)
        # 2. the latest maintainer act
        act = self._maintainer_act(relation, text, resolved)
        if act is not None:
            return act
        is_parent = text in parent
        # 3. settled amendments only
        if not is_parent and not proposers and settled:
            return Outcome(SETTLED, 3)
        others = [d.kind for d in standing if d.row == text and d.reviewer not in proposers and d.kind != UNSURE]
        votes = [ACCEPT] * len(proposers) + others
        as_parent = (
            Outcome(SHIPPED_CHECKED, 0, "parent") if parent.get(text) else Outcome(SHIPPED_UNREVIEWED, 0)
        )  # rows 4 and 10
        # 4. nobody decided it
        if not votes:
            assert is_parent, f"{text!r}: a text with no votes, no maintainer act and no settled amendment"
            return Outcome(as_parent.outcome, 4, as_parent.by)
        # 5. the policy
        if not stays(votes, policy):
            return Outcome(SUPERSEDED if all(v == AMEND for v in votes if v != ACCEPT) else REJECTED, 5)
        # 6. import
        if imported:
            return Outcome(SHIPPED_CHECKED, 6, "import")
        # 7. a second person said yes (one standing accept checks a machine candidate, a
        # proposer's own included)
        accepted = any(d.row == text and d.kind == ACCEPT for d in standing)
        if len(proposers) + others.count(ACCEPT) >= 2 or (is_parent and accepted):
            return Outcome(SHIPPED_CHECKED, 7, "reviewers")
        # 8. a trusted proposer
        if proposers & self.trusted:
            return Outcome(SHIPPED_CHECKED, 8, "trusted")
        # 9. someone else looked and did not accept
        verdicts = [v for v in others if v != ACCEPT]
        if verdicts:
            return Outcome(SUPERSEDED if all(v == AMEND for v in verdicts) else REJECTED, 9)
        # 10. a parent line: as row 4, the proposal waits
        if is_parent:
            return Outcome(as_parent.outcome, 10, as_parent.by)
        # 11. waiting for a second look
        return Outcome(WAITING, 11)

    def _lines(
        self,
        relation: str,
        outcomes: dict[str, Outcome],
        parent: dict[str, bool],
        resolved: dict[str, Resolution],
        standing: list[Decision],
    ) -> list[tuple[str, bool]]:
        """The parent's lines in their order, then corrections of resolutions of parent lines (in
        parent order), amendments of parent lines (parent order, then decision order),
        suggestions (in the order made), then the rest in text order."""
        position = {text: i for i, (text, _) in enumerate(self.base.get(relation, []))}
        shipped = {t for t, o in outcomes.items() if o.outcome in SHIPPED}
        lines = [(t, outcomes[t].outcome == SHIPPED_CHECKED) for t, _ in self.base.get(relation, []) if t in shipped]
        keys: dict[str, tuple[int, int, int, str]] = {}

        def offer(text: str, key: tuple[int, int, int, str]) -> None:
            if text in shipped and text not in parent and (text not in keys or key < keys[text]):
                keys[text] = key

        for row, r in resolved.items():
            if r.correction is not None and row in position:
                offer(r.correction, (0, position[row], 0, ""))
        for d in standing:
            if d.kind == AMEND and d.row in position:
                assert d.correction is not None
                offer(d.correction, (1, position[d.row], d.seq, ""))
        for s in self.suggestions:
            if s.relation == relation and not s.retracted:
                offer(s.text, (2, s.seq, 0, ""))
        for text in shipped:
            offer(text, (3, 0, 0, text))
        lines += [(t, outcomes[t].outcome == SHIPPED_CHECKED) for t in sorted(keys, key=lambda t: keys[t])]
        return lines

    # ------------------------------------------------------------------ what the Proposals page shows
    def proposal_texts(self, relation: str) -> set[str]:
        """Texts that must be listed on the Proposals page: the live proposals (a standing
        amendment's correction, settled or not, from a row that is a text; an unretracted
        suggestion)."""
        texts = self.texts(relation)
        found = {d.correction for d in self.standing(relation) if d.kind == AMEND and d.row in texts}
        found |= {s.text for s in self.suggestions if s.relation == relation and not s.retracted}
        return {t for t in found if t is not None}

    def answerable(self, relation: str) -> set[str]:
        """Texts a maintainer must be able to answer on the Proposals page (confirm, drop, edit):
        the live proposals and every text answered before, one they wrote by editing included
        ("a maintainer can drop any text"). Others (a parent line nobody proposed, a resolution's
        correction nobody proposed) are not listed there: the docs do not say."""
        return self.proposal_texts(relation) | {a.text for a in self.answers if a.relation == relation}


def status_of(outcome: Outcome) -> str:
    """A proposal's status on the Proposals page, from its outcome (docs/release.md)."""
    if outcome.outcome == SHIPPED_CHECKED:
        assert outcome.by is not None
        # a proposal of a line the parent marks checked waits for its second look (row 10): the
        # docs name no status for it; "unconfirmed" as for a parent line shipping unchecked
        return "unconfirmed" if outcome.by == "parent" else outcome.by
    return {
        SHIPPED_UNREVIEWED: "unconfirmed",
        WAITING: "unconfirmed",
        REJECTED: "rejected",
        SUPERSEDED: "superseded",
        DROPPED: "dropped",
        SETTLED: "settled",
    }[outcome.outcome]


def stays(votes: list[str], policy: str) -> bool:
    """`any`: at least one accept; `majority`: accepts more than half; `unanimous`: every vote an
    accept; no votes at all: stays."""
    if not votes:
        return True
    accepts = votes.count(ACCEPT)
    if policy == "any":
        return accepts >= 1
    if policy == "majority":
        return accepts * 2 > len(votes)
    return accepts == len(votes)

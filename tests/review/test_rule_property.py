"""Issue 36 §5: what ships, checked against an independent reference on random histories.

A hypothesis state machine drives the real services on a real SQLite database through random
histories — reviewers' decisions (accept, reject, amend, unsure) and undo, suggestions made,
withdrawn and edited, a maintainer's answers on the Proposals page (confirm, drop, edit),
resolutions and their retraction, lines dropped and restored, trust — with 2 or 3 reviewers, 1 or
2 relations of 1 to 3 candidate templates (so a relation is sometimes left with fewer than 2
lines), and texts from a tiny alphabet so that they collide. After every step, under every
policy, the code is compared with tests/review/rule_reference.py, written from the precedence
table of docs/release.md and nothing else:

- every text gets exactly one outcome, and the code's outcomes are the reference's (outcome,
  the table's row, who for a shipped-checked one);
- the shipped lines are the reference's, in the documented order, with their checked flag (a
  shipped-checked text ships checked), and a relation with fewer than 2 lines is dropped;
- nothing a reviewer stands by (a live proposal, a standing accept of a parent line) is absent
  from both the release and the plan's outcomes;
- the Proposals API under a policy agrees with the plan under that policy;
- a build (a step of its own) writes exactly the planned lines.

An event a service refuses changes neither the reference nor the database; the reference says
which refusals the docs require (a resolution contradicting a standing one, a resolution retracted
twice, a line dropped twice ...) and which events must succeed.

Bounded and derandomized for CI (about 10 s). The long run, thousands of histories:

    CURATOR_LONG_PROPERTY=1 PYTHONPATH=. python -m pytest -p no:cacheprovider \
        tests/review/test_rule_property.py -x -q

(`CURATOR_LONG_PROPERTY=N` runs N histories; 1 means 3,000.)
"""

from __future__ import annotations

import copy
import itertools
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from curator.core.errors import CuratorError
from tests.review.rule_reference import (
    AMEND,
    POLICIES,
    SHIPPED,
    SHIPPED_CHECKED,
    UNSURE,
    History,
    Outcome,
    Refused,
    status_of,
)
from tests.review.rule_world import RELATIONS, REVIEWERS, World, make_template, text

CANDIDATES = tuple(text(w) for w in ("aa", "bb", "cc"))
TEXTS = tuple(text(w) for w in ("aa", "bb", "cc", "dd", "ee"))
KINDS = ("accept", "reject", AMEND, UNSURE)

_long = os.environ.get("CURATOR_LONG_PROPERTY", "")
EXAMPLES = (3000 if _long in ("1", "yes", "true") else int(_long)) if _long else 50
SETTINGS = settings(
    derandomize=True,
    database=None,
    max_examples=EXAMPLES,
    stateful_step_count=14,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    print_blob=False,
)


def short(value: str | None) -> str | None:
    """`[X] dd [Y]` -> `dd`, for readable failure messages."""
    return None if value is None else value.removeprefix("[X] ").removesuffix(" [Y]")


def outcome_value(decided: Any) -> str:
    return str(getattr(decided.outcome, "value", decided.outcome))


def code_outcomes(relation_plan: Any) -> dict[str, Any]:
    """text -> the code's Decided for it; every text exactly once."""
    found: dict[str, Any] = {}
    for decided in relation_plan.outcomes:
        assert decided.text not in found, f"{short(decided.text)!r} has two outcomes in {relation_plan.relation}"
        found[decided.text] = decided
    return found


class RuleMachine(RuleBasedStateMachine):
    template: Path
    root: Path
    counter = itertools.count()

    def __init__(self) -> None:
        super().__init__()
        self.world: World | None = None
        self.log: list[str] = []
        self.decision_ids: dict[int, int] = {}  # the reference's seq -> the decision's id
        self.suggestion_ids: dict[int, int] = {}  # the reference's seq -> the suggestion's id

    # ------------------------------------------------------------------ the world
    @initialize(
        first=st.lists(st.sampled_from(CANDIDATES), min_size=1, max_size=3, unique=True),
        second=st.one_of(st.none(), st.lists(st.sampled_from(CANDIDATES), min_size=1, max_size=3, unique=True)),
        reviewers=st.integers(2, 3),
        checked=st.one_of(st.just(()), st.lists(st.booleans(), min_size=6, max_size=6)),
    )
    def setup(self, first: list[str], second: list[str] | None, reviewers: int, checked: list[bool]) -> None:
        """The parent `v0`: one or two relations of 1 to 3 candidates, their lines unchecked (a
        snapshot) or, some of them, checked by a human."""
        candidates = {RELATIONS[0]: first} if second is None else {RELATIONS[0]: first, RELATIONS[1]: second}
        lines = [(r, t) for r, ts in candidates.items() for t in ts]
        marked = {line for line, flag in zip(lines, checked) if flag}
        path = self.root / f"history-{next(self.counter)}.sqlite"
        self.world = World(self.template, path, candidates, list(REVIEWERS[:reviewers]), marked)
        self.history = History(base=self.world.base_lines())
        assert self.history.base == {r: [(t, (r, t) in marked) for t in ts] for r, ts in candidates.items()}
        parent = {r: [short(t) + ("✓" if (r, t) in marked else "") for t in ts] for r, ts in candidates.items()}
        self.log.append(f"parent {parent}, reviewers {[r.split('@')[0] for r in self.world.reviewers]}")

    def teardown(self) -> None:
        if self.world is not None:
            self.world.close()

    @property
    def w(self) -> World:
        assert self.world is not None
        return self.world

    def say(self, event: str) -> None:
        self.log.append(event)

    def history_text(self) -> str:
        return "\n  " + "\n  ".join(self.log)

    def apply(self, event: str, call: Any, predicted: Any, *, lenient: bool = False) -> Any:
        """Run the service `call` and apply the event to the reference (`predicted(history)`,
        which raises Refused when the docs say the service must refuse it). The service must do
        as the reference says; `lenient`: it may also refuse an event the reference accepts (the
        docs say nothing of it; then the reference does not change). A refused event must change
        nothing in the database. Returns (the service's result, the reference's) or None."""
        self.history.retired = self.w.retired()
        probe = copy.deepcopy(self.history)
        try:
            expected, refusal = predicted(probe), None
        except Refused as exc:
            expected, refusal = None, exc
        before = self.w.fingerprint() if refusal is not None or lenient else None
        try:
            result = call()
        except CuratorError as exc:
            if before is None:
                raise AssertionError(
                    f"{event}: refused ({type(exc).__name__}: {exc}), but the docs say it is accepted"
                    f"{self.history_text()}"
                ) from None
            assert self.w.fingerprint() == before, (
                f"{event}: refused ({exc}), but the database changed{self.history_text()}"
            )
            if refusal is not None and refusal.other is not None:
                assert refusal.other in str(exc), (
                    f"{event}: refused, but the message does not name {short(refusal.other)!r}: {exc}"
                    f"{self.history_text()}"
                )
            self.say(f"{event}: refused ({type(exc).__name__})")
            return None
        assert refusal is None, f"{event}: accepted, but the docs say it is refused ({refusal}){self.history_text()}"
        self.history = probe
        self.say(event)
        return result, expected

    # ------------------------------------------------------------------ reviewers
    @rule(data=st.data())
    def decide(self, data: st.DataObject) -> None:
        self._decide(data, self.w.items)

    @rule(data=st.data())
    def decide_on_a_proposal(self, data: st.DataObject) -> None:
        """A second look: a decision on an item another reviewer's proposal put in the sample."""
        self._decide(data, lambda reviewer: [i for i in self.w.items(reviewer) if i.extra])

    def _decide(self, data: st.DataObject, items: Any) -> None:
        reviewer = data.draw(st.sampled_from(self.w.reviewers))
        choices = items(reviewer)
        if not choices:
            return
        item = data.draw(st.sampled_from(choices))
        relation, row = item.relation, item.text
        kind = data.draw(st.sampled_from(KINDS))
        correction = data.draw(st.sampled_from(TEXTS)) if kind == AMEND else None
        event = f"{reviewer[:2]} {kind}s {relation} {short(row)!r}" + (
            f" -> {short(correction)!r}" if correction else ""
        )
        done = self.apply(
            event + (" (a retired item)" if item.retired else ""),
            lambda: self.w.decide_item(reviewer, item.id, kind, correction),
            lambda h: h.decide(reviewer, relation, row, kind, correction),
            lenient=item.retired,  # issue 36 §4: a retired item may refuse decisions
        )
        if done is not None:
            (decision_id, created), stored = done
            assert created == stored, f"{event}: stored {created}, the reference says {stored}{self.history_text()}"
            if stored:
                self.decision_ids[self.history.decisions[-1].seq] = decision_id

    @rule(data=st.data())
    def undo(self, data: st.DataObject) -> None:
        reviewer = data.draw(st.sampled_from(self.w.reviewers))
        done = self.apply(f"{reviewer[:2]} undoes", lambda: self.w.undo(reviewer), lambda h: h.undo(reviewer))
        assert done is not None
        undone_id, undone = done
        expected = None if undone is None else self.decision_ids[undone.seq]
        assert undone_id == expected, f"undo retracted decision {undone_id}, expected {expected}{self.history_text()}"

    @rule(data=st.data())
    def suggest(self, data: st.DataObject) -> None:
        reviewer = data.draw(st.sampled_from(self.w.reviewers))
        relation = data.draw(st.sampled_from(self.w.relations))
        proposed = data.draw(st.sampled_from(TEXTS))
        done = self.apply(
            f"{reviewer[:2]} suggests {relation} {short(proposed)!r}",
            lambda: self.w.suggest(reviewer, relation, proposed),
            lambda h: h.suggest(reviewer, relation, proposed),
        )
        assert done is not None
        suggestion_id, made = done
        assert self.suggestion_ids.setdefault(made.seq, suggestion_id) == suggestion_id

    @rule(data=st.data())
    def change_a_suggestion(self, data: st.DataObject) -> None:
        """Withdraw one of the suggestions made so far, or edit it (a withdrawn one too: a form
        sent twice)."""
        made_so_far = self.history.suggestions
        if not made_so_far:
            return
        i = data.draw(st.integers(0, len(made_so_far) - 1))
        made = made_so_far[i]
        sid = self.suggestion_ids[made.seq]
        if data.draw(st.booleans()):
            self.apply(
                f"{made.reviewer[:2]} withdraws {made.relation} {short(made.text)!r}",
                lambda: self.w.withdraw(made.reviewer, sid),
                lambda h: h.withdraw(h.suggestions[i]),
            )
            return
        new = data.draw(st.sampled_from(TEXTS))
        done = self.apply(
            f"{made.reviewer[:2]} edits suggestion {made.relation} {short(made.text)!r} -> {short(new)!r}"
            + (" (withdrawn)" if made.retracted else ""),
            lambda: self.w.edit_suggestion(made.reviewer, sid, new),
            lambda h: h.edit_suggestion(h.suggestions[i], new),
        )
        if done is not None:
            suggestion_id, result = done
            assert self.suggestion_ids.setdefault(result.seq, suggestion_id) == suggestion_id

    # ------------------------------------------------------------------ the maintainer
    def _text(self, data: st.DataObject, preferred: set[str]) -> str:
        """Mostly one of the `preferred` texts (what a maintainer sees listed), sometimes any."""
        known = sorted(preferred)
        return data.draw(st.sampled_from(known if known and data.draw(st.integers(0, 3)) else TEXTS))

    @rule(data=st.data())
    def answer(self, data: st.DataObject) -> None:
        """Confirm, drop or edit a text on the Proposals page."""
        relation = data.draw(st.sampled_from(self.w.relations))
        answered = self._text(data, self.history.answerable(relation))
        verdict = data.draw(st.sampled_from(("confirm", "drop", "edit")))
        edited_to = data.draw(st.sampled_from(TEXTS)) if verdict == "edit" else None
        event = f"maintainer {verdict}s {relation} {short(answered)!r}" + (
            f" -> {short(edited_to)!r}" if edited_to else ""
        )
        self.apply(
            event,
            lambda: self.w.answer(relation, answered, "confirm" if verdict == "edit" else verdict, edited_to),
            lambda h: h.answer(relation, answered, verdict, edited_to),
            # a text nobody proposed or answered: the docs do not say the Proposals page lists it
            lenient=answered not in self.history.answerable(relation),
        )

    @rule(data=st.data())
    def resolution(self, data: st.DataObject) -> None:
        """Resolve a template row (accept, reject, amend), or retract a row's resolution."""
        relation = data.draw(st.sampled_from(self.w.relations))
        rows = [row for _, row in self.w.rows(relation)]
        resolved = sorted(self.history.standing_resolutions(relation))
        if data.draw(st.integers(0, 3)) == 0:  # retract: mostly a standing one
            row = data.draw(st.sampled_from(resolved if resolved and data.draw(st.booleans()) else rows))
            self.apply(
                f"maintainer retracts the resolution of {relation} {short(row)!r}",
                lambda: self.w.retract(relation, row),
                lambda h: h.retract(relation, row),
            )
            return
        row = data.draw(st.sampled_from(rows))
        verdict = data.draw(st.sampled_from(("accept", "reject", AMEND)))
        correction = data.draw(st.sampled_from([t for t in TEXTS if t != row])) if verdict == AMEND else None
        self.apply(
            f"maintainer resolves {relation} {short(row)!r} {verdict}"
            + (f" -> {short(correction)!r}" if correction else ""),
            lambda: self.w.resolve(relation, row, verdict, correction),
            lambda h: h.resolve(relation, row, verdict, correction),
        )

    @rule(data=st.data())
    def line_drop(self, data: st.DataObject) -> None:
        """Drop a line from the builds, or restore one (mostly a dropped one)."""
        dropped = sorted(key for key, active in self.history.drops.items() if active)
        if dropped and data.draw(st.booleans()):
            relation, pattern = data.draw(st.sampled_from(dropped))
            self.apply(
                f"maintainer restores the line {relation} {short(pattern)!r}",
                lambda: self.w.restore_line(relation, pattern),
                lambda h: h.restore_line(relation, pattern),
            )
            return
        relation = data.draw(st.sampled_from(self.w.relations))
        pattern = self._text(data, self.history.texts(relation))
        if data.draw(st.integers(0, 5)) == 0:  # a restore of a line not dropped: refused
            self.apply(
                f"maintainer restores the line {relation} {short(pattern)!r}",
                lambda: self.w.restore_line(relation, pattern),
                lambda h: h.restore_line(relation, pattern),
            )
            return
        self.apply(
            f"maintainer drops the line {relation} {short(pattern)!r}",
            lambda: self.w.drop_line(relation, pattern),
            lambda h: h.drop_line(relation, pattern),
            # a line that is no text (yet) may be unknown to the service
            lenient=pattern not in self.history.texts(relation),
        )

    @rule(data=st.data())
    def trust(self, data: st.DataObject) -> None:
        reviewer = data.draw(st.sampled_from(self.w.reviewers))
        trusted = data.draw(st.booleans())
        self.apply(
            f"maintainer {'trusts' if trusted else 'distrusts'} {reviewer[:2]}",
            lambda: self.w.trust(reviewer, trusted),
            lambda h: h.trust(reviewer, trusted),
        )

    @rule(policy=st.sampled_from(POLICIES))
    def build(self, policy: str) -> None:
        """A reviewed version writes exactly the reference's lines (the relations kept)."""
        lines, params = self.w.build(policy)
        expected = {}
        for relation in self.w.relations:
            result = self.history.decide_relation(relation, policy)
            if not result.dropped:
                expected[relation] = result.lines
        assert lines == expected, (
            f"build under {policy}: wrote {self._show(lines)}, the reference ships {self._show(expected)}"
            f"{self.history_text()}"
        )
        dropped = sorted(f"es/{r}" for r in self.w.relations if r not in expected)
        assert sorted(params["dropped"]) == dropped
        self.say(f"build under {policy}")

    @staticmethod
    def _show(lines: dict[str, list[tuple[str, bool]]]) -> str:
        return repr({r: [(short(t), c) for t, c in ls] for r, ls in lines.items()})

    # ------------------------------------------------------------------ after every step
    @invariant()
    def agrees_with_the_reference(self) -> None:
        if self.world is not None:
            self.history.retired = self.w.retired()
        if self.world is None:
            return
        for policy in POLICIES:
            self._check(policy)

    def _check(self, policy: str) -> None:
        plans = {p.relation: p for p in self.w.plan(policy) if p.language == "es"}
        listed = self.w.proposals(policy)
        where = f" under {policy}{self.history_text()}"
        for relation in self.w.relations:
            ref = self.history.decide_relation(relation, policy)
            p = plans.get(relation)
            assert p is not None, f"no plan for {relation}{where}"
            lines = [(x.pattern, bool(x.checked)) for x in p.patterns]
            # the shipped lines, in order, with the checked flag (old and new API alike)
            assert lines == ref.lines, (
                f"{relation}: ships {[(short(t), c) for t, c in lines]}, "
                f"the reference {[(short(t), c) for t, c in ref.lines]}; "
                f"reference outcomes {self._outcomes(ref.outcomes)}{where}"
            )
            assert bool(p.dropped) == ref.dropped, f"{relation}: dropped {p.dropped}{where}"
            # exactly one outcome per text, and the reference's
            code = code_outcomes(p)
            got = {
                t: (outcome_value(d), d.rule, d.by if outcome_value(d) == SHIPPED_CHECKED else None)
                for t, d in code.items()
            }
            want = {
                t: (o.outcome, o.rule, o.by if o.outcome == SHIPPED_CHECKED else None) for t, o in ref.outcomes.items()
            }
            assert set(got) == set(want), (
                f"{relation}: texts with an outcome {sorted(map(short, got))}, "
                f"the reference {sorted(map(short, want))}{where}"
            )
            differ = {short(t): (got[t], want[t]) for t in want if got[t] != want[t]}
            assert not differ, f"{relation}: (code, reference) differ: {differ}{where}"
            # internal consistency: shipped outcomes are the shipped lines, checked iff shipped-checked
            shipped = {t: outcome_value(d) == SHIPPED_CHECKED for t, d in code.items() if outcome_value(d) in SHIPPED}
            assert shipped == dict(lines), f"{relation}: shipped outcomes {shipped} vs lines {lines}{where}"
            # nothing a reviewer stands by is absent from both the release and the outcomes
            stands_by = self.history.proposal_texts(relation) | {
                d.row
                for d in self.history.standing(relation)
                if d.kind == "accept" and d.row in dict(self.history.base.get(relation, []))
            }
            missing = stands_by - set(code) - {t for t, _ in lines}
            assert not missing, f"{relation}: {sorted(map(short, missing))} is nowhere{where}"
            # the Proposals API under this policy agrees with the plan under it, and with the reference
            statuses = {x.text: str(getattr(x.status, "value", x.status)) for x in listed if x.relation == relation}
            unlisted = self.history.proposal_texts(relation) - set(statuses)
            assert not unlisted, (
                f"{relation}: live proposals {sorted(map(short, unlisted))} not on the Proposals page{where}"
            )
            for proposed, status in statuses.items():
                assert proposed in code, (
                    f"{relation}: the Proposals page lists {short(proposed)!r}, the plan does not{where}"
                )
                decided = code[proposed]
                from_plan = status_of(Outcome(outcome_value(decided), decided.rule, decided.by))
                assert status == from_plan, (
                    f"{relation}: {short(proposed)!r} is {status} on the Proposals page, {from_plan} in the plan{where}"
                )
                assert status == status_of(ref.outcomes[proposed]), (
                    f"{relation}: {short(proposed)!r} is {status} on the Proposals page, "
                    f"{status_of(ref.outcomes[proposed])} by the reference{where}"
                )

    @staticmethod
    def _outcomes(outcomes: dict[str, Outcome]) -> dict[str | None, str]:
        return {short(t): f"{o.outcome}#{o.rule}" + (f"({o.by})" if o.by else "") for t, o in outcomes.items()}


@pytest.fixture(scope="module")
def rule_template(sqlite_templates, tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("release-rule")
    return make_template(sqlite_templates("migrated"), root / "template.sqlite"), root


def test_what_ships_agrees_with_the_documented_rule_on_random_histories(rule_template):
    RuleMachine.template, RuleMachine.root = rule_template
    run_state_machine_as_test(RuleMachine, settings=SETTINGS)

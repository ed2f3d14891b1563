"""Issue 36: one named test per kind of history the random search found where the release
disagreed with the documented rule (docs/release.md, "What ships: one rule"), plus the second
reviewer's reject and the Proposals API under a policy. Each drives the real services on a real
database and checks the outcomes (`merge.plan`), the Proposals page's statuses and the lines a
build writes (VersionPattern rows)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from curator.core.errors import Conflict, InputError
from curator.core.models import Resolution
from tests.review.rule_world import REVIEWERS, World, make_template, text

R1, R2, R3 = REVIEWERS
AA, BB, CC, DD, EE = (text(w) for w in ("aa", "bb", "cc", "dd", "ee"))
P19 = "P19"
POLICIES = ("any", "majority", "unanimous")


@pytest.fixture(scope="module")
def rule_template(sqlite_templates, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("rule-regressions")
    return make_template(sqlite_templates("migrated"), root / "template.sqlite")


@pytest.fixture
def make_world(rule_template, tmp_path) -> Iterator[Callable[..., World]]:
    """World(candidates of P19, reviewers): a database of its own, `v0` snapshotted."""
    made: list[World] = []

    def make(candidates: list[str], reviewers: int = 2) -> World:
        world = World(rule_template, tmp_path / f"w{len(made)}.sqlite", {P19: candidates}, list(REVIEWERS[:reviewers]))
        made.append(world)
        return world

    yield make
    for world in made:
        world.close()


def outcomes(world: World, policy: str, relation: str = P19) -> dict[str, tuple[str, Any]]:
    """text -> (outcome, by) as the plan under `policy` decides it; every text exactly once."""
    (plan,) = [p for p in world.plan(policy) if p.relation == relation]
    found: dict[str, tuple[str, Any]] = {}
    for decided in plan.outcomes:
        assert decided.text not in found, f"{decided.text!r} has two outcomes"
        found[decided.text] = (str(getattr(decided.outcome, "value", decided.outcome)), decided.by)
    return found


def statuses(world: World, policy: str, relation: str = P19) -> dict[str, str]:
    """text -> its status on the Proposals page (and its API) under `policy`."""
    return {
        p.text: str(getattr(p.status, "value", p.status)) for p in world.proposals(policy) if p.relation == relation
    }


def built(world: World, policy: str, relation: str = P19) -> list[tuple[str, bool]]:
    """The lines (pattern, checked) a reviewed version built now under `policy` holds."""
    lines, _ = world.build(policy)
    return lines.get(relation, [])


# ---------------------------------------------------------------- the five kinds of the issue
def test_an_amendment_of_a_proposals_row_is_a_proposal_of_its_own(make_world):
    """r1 suggests dd; r2 amends that row to ee; r1 accepts ee: ee ships checked (reviewers), dd
    is superseded. Today: the Proposals page says `reviewers` for ee, yet the plan lists it nowhere."""
    w = make_world([AA, BB])
    w.suggest(R1, P19, DD)
    w.decide(R2, P19, DD, "amend", EE)  # r2 met dd in his queue ("proposed by another reviewer")
    w.decide(R1, P19, EE, "accept")  # and r1 met ee in hers
    for policy in POLICIES:
        assert built(w, policy) == [(AA, False), (BB, False), (EE, True)], policy
        assert statuses(w, policy)[EE] == "reviewers" and statuses(w, policy)[DD] == "superseded", policy
        assert outcomes(w, policy)[EE] == ("shipped-checked", "reviewers"), policy
        assert outcomes(w, policy)[DD][0] == "superseded", policy


def test_trust_replaces_the_second_look_never_the_policy(make_world):
    """Trusted r1 suggests dd, r2 rejects it: one accept keeps a text under `any` (dd ships,
    trusted); under `majority` and `unanimous` dd is rejected. Today it ships under all three."""
    w = make_world([AA, BB])
    w.trust(R1)
    w.suggest(R1, P19, DD)
    w.decide(R2, P19, DD, "reject")
    assert built(w, "any") == [(AA, False), (BB, False), (DD, True)]
    assert statuses(w, "any")[DD] == "trusted"
    for policy in ("majority", "unanimous"):
        assert built(w, policy) == [(AA, False), (BB, False)], policy
        assert statuses(w, policy)[DD] == "rejected", policy
        assert outcomes(w, policy)[DD][0] == "rejected", policy
    assert outcomes(w, "any")[DD] == ("shipped-checked", "trusted")


def test_trust_does_not_keep_a_candidate_the_policy_removes(make_world):
    """r2 amends bb to ee; trusted r1 suggests bb's own text: under `unanimous` (and `majority`)
    r2's amendment outvotes it, bb is superseded. Today bb ships checked (trusted) under all three."""
    w = make_world([AA, BB, CC])
    w.trust(R1)
    w.decide(R2, P19, BB, "amend", EE)
    w.suggest(R1, P19, BB)
    for policy in ("unanimous", "majority"):
        assert built(w, policy) == [(AA, False), (CC, False)], policy
        assert statuses(w, policy)[BB] == "superseded" and statuses(w, policy)[EE] == "unconfirmed", policy
        assert outcomes(w, policy)[BB][0] == "superseded", policy
        assert outcomes(w, policy)[EE][0] == "waiting", policy
    assert built(w, "any") == [(AA, False), (BB, True), (CC, False)]  # a parent line keeps its place
    assert outcomes(w, "any")[BB] == ("shipped-checked", "trusted")


def _resolutions(w: World) -> int:
    with w.sessions() as s:
        return s.scalar(select(func.count()).select_from(Resolution)) or 0


def test_a_resolution_rejecting_a_text_another_resolution_ships_is_refused(make_world):
    """bb stands amended to aa; resolving aa reject contradicts it: refused, naming bb, nothing
    written. Today both are stored and aa ships checked."""
    w = make_world([AA, BB, CC])
    w.resolve(P19, BB, "amend", AA)
    before = _resolutions(w)
    with pytest.raises((Conflict, InputError)) as refused:
        w.resolve(P19, AA, "reject")
    assert BB in str(refused.value)  # naming the other
    assert _resolutions(w) == before
    for policy in POLICIES:
        assert built(w, policy) == [(AA, True), (CC, False)], policy
        assert outcomes(w, policy)[AA] == ("shipped-checked", "maintainer"), policy
        assert outcomes(w, policy)[BB][0] == "settled", policy
    w.retract(P19, BB)  # retract that one first: then the reject stands
    w.resolve(P19, AA, "reject")
    assert built(w, "any") == [(BB, False), (CC, False)]
    assert outcomes(w, "any")[AA][0] == "settled"


def test_two_resolutions_amending_each_others_text_are_refused(make_world):
    """aa -> bb stands; bb -> aa would say both ship and neither: refused, naming aa."""
    w = make_world([AA, BB, CC])
    w.resolve(P19, AA, "amend", BB)
    before = _resolutions(w)
    with pytest.raises((Conflict, InputError)) as refused:
        w.resolve(P19, BB, "amend", AA)
    assert AA in str(refused.value)  # naming the other
    assert _resolutions(w) == before
    for policy in POLICIES:
        assert built(w, policy) == [(BB, True), (CC, False)], policy
        assert outcomes(w, policy)[AA][0] == "settled", policy
        assert outcomes(w, policy)[BB] == ("shipped-checked", "maintainer"), policy


@pytest.mark.parametrize("then", ["withdrawn", "dropped"])
def test_a_resolution_of_a_proposals_row_stands_on_its_text(make_world, then):
    """r1 suggests ee; the maintainer resolves ee amend -> dd; then r1 withdraws ee (or the
    maintainer drops ee on the Proposals page): dd still ships checked, and the version records
    the resolution. Today dd never ships and params["resolutions"] is empty."""
    w = make_world([AA, BB])
    w.suggest(R1, P19, EE)
    w.resolve(P19, EE, "amend", DD)
    if then == "withdrawn":
        w.withdraw(R1, w.suggestion_id(R1, P19, EE))
    else:
        w.answer(P19, EE, "drop")
    for policy in POLICIES:
        lines, params = w.build(policy)
        assert lines[P19] == [(AA, False), (BB, False), (DD, True)], policy
        recorded = [(r["template"], r["verdict"], r["correction"]) for r in params["resolutions"]]
        assert (EE, "amend", DD) in recorded, policy
        assert outcomes(w, policy)[DD] == ("shipped-checked", "maintainer"), policy


def test_a_maintainer_can_drop_the_text_they_wrote_by_editing(make_world):
    """r1 suggests ee; the maintainer edits it to dd, then drops dd on the Proposals page: the
    latest act counts, dd is dropped. Today: `NotFound: no proposal` and nothing is written."""
    w = make_world([AA, BB])
    w.suggest(R1, P19, EE)
    w.answer(P19, EE, "confirm", edited_to=DD)
    assert built(w, "any") == [(AA, False), (BB, False), (DD, True)]
    w.answer(P19, DD, "drop")
    for policy in POLICIES:
        assert built(w, policy) == [(AA, False), (BB, False)], policy
        assert statuses(w, policy)[DD] == "dropped", policy
        assert outcomes(w, policy)[DD][0] == "dropped", policy
        assert outcomes(w, policy)[EE][0] == "superseded", policy


# ---------------------------------------------------------------- statuses
def test_a_second_reviewers_reject_is_rejected_not_waiting(make_world):
    """r1 suggests dd, r2 rejects it: the answer was no — `rejected` on the Proposals page and in
    the plan, never "unconfirmed — waiting for a second look"."""
    w = make_world([AA, BB])
    w.suggest(R1, P19, DD)
    w.decide(R2, P19, DD, "reject")
    for policy in POLICIES:
        assert built(w, policy) == [(AA, False), (BB, False)], policy
        assert statuses(w, policy)[DD] == "rejected", policy
        assert outcomes(w, policy)[DD][0] == "rejected", policy


def test_the_proposals_api_under_a_policy_agrees_with_a_build_under_it(make_world):
    """r1 suggests dd, r2 accepts it, r3 rejects it: `reviewers` and shipped under `any` and
    `majority`, `rejected` and withheld under `unanimous` — the status the page shows under a
    policy is what a build under that policy does."""
    w = make_world([AA, BB], reviewers=3)
    w.suggest(R1, P19, DD)
    w.decide(R2, P19, DD, "accept")
    w.decide(R3, P19, DD, "reject")
    expected = {"any": "reviewers", "majority": "reviewers", "unanimous": "rejected"}
    for policy, status in expected.items():
        assert ((DD, True) in built(w, policy)) == (status == "reviewers"), policy
        assert statuses(w, policy)[DD] == status, policy
    for policy, status in expected.items():
        assert outcomes(w, policy)[DD][0] == ("shipped-checked" if status == "reviewers" else "rejected"), policy


# ---------------------------------------------------------------- the independent review's findings
def test_a_resolution_amending_a_text_to_itself_is_refused(make_world):
    """Resolving aa as "amend to aa" would both settle and ship aa (row 2): refused, nothing
    stored, and aa still ships; accept is the way to say it."""
    w = make_world([AA, BB])
    row = w.row_id(P19, AA)
    with pytest.raises(InputError, match="resolve it as accept"):
        w.resolve(P19, AA, "amend", AA)
    with w.sessions() as s:
        assert s.scalar(select(func.count()).select_from(Resolution).where(Resolution.template_id == row)) == 0
    assert built(w, "any") == [(AA, False), (BB, False)]


def test_a_proposal_row_decision_retired_with_its_proposal_reaches_nothing(make_world):
    """r1 suggests dd; r2 amends dd's row to ee; the maintainer drops dd; r1 withdraws dd: r2's
    item is retired, so its amendment reaches nothing — ee is no proposal, even after r3 accepts
    its row (the queue and the rule read one predicate)."""
    w = make_world([AA, BB], reviewers=3)
    suggestion = w.suggest(R1, P19, DD)
    w.decide(R2, P19, DD, "amend", EE)
    w.answer(P19, DD, "drop")
    w.withdraw(R1, suggestion)
    assert (R2, P19, DD) in w.retired()
    for policy in POLICIES:
        assert EE not in outcomes(w, policy) and EE not in statuses(w, policy), policy
        assert built(w, policy) == [(AA, False), (BB, False)], policy

"""Issue 37 §2: a second look keeps a relation's items together. A proposal used to enter the
other reviewer's queue right after their current item whatever its relation (P19 → P30 → P19, the
"new relation" banner flipping); now it goes with its relation's undecided items when the
reviewer still has some, else after the current relation's block, never splitting it.

A hypothesis property test drives the real services (Ana suggests, Bo decides) on a real SQLite
file — a copy of the seeded review database per example — and compares Bo's queue after every
step with an independent reference written from the issue: each relation's undecided items
contiguous, the current item not displaced, and the queue equal to the reference model. Plus the
named regression P19/P30/P19 and the pure ordering function's edge cases."""

from __future__ import annotations

import shutil
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from curator.core.db import make_engine, make_session_factory, unit_of_work
from curator.core.models import User
from curator.review import progress as queueing
from curator.review.proposal_queue import Slot, insertion_point
from curator.review.service import decide, get_assignment, get_item
from curator.review.suggestions import suggest
from tests.plugins.databases import review_sample

pytestmark = pytest.mark.backends("sqlite")

ANA, BO = "ana@example.org", "bo@example.org"
RELATIONS = ["P19", "P30", "P36", "P37", "P103"]  # the relations of Bo's Spanish sample
WORDS = ["viene", "procede", "surge", "brota", "parte"]


@dataclass
class Entry:
    """The reference's view of one queue item: its text, relation and whether it is decided."""

    text: str
    relation: str
    decided: bool = False


def reference_insert(queue: list[Entry], new: Entry) -> None:
    """Where the issue says a proposal goes, written from the issue, not from the code: with the
    relation's undecided items (after the last one) when any is left; else after the run of
    undecided items of the current relation starting at the current (first undecided) item;
    nothing undecided: at the end."""
    undecided = [k for k, e in enumerate(queue) if not e.decided]
    if not undecided:
        queue.append(new)
        return
    mine = [k for k in undecided if queue[k].relation == new.relation]
    if mine:
        queue.insert(mine[-1] + 1, new)
        return
    current = queue[undecided[0]].relation
    run_end = undecided[0]
    for k in undecided[1:]:
        if queue[k].relation != current:
            break
        run_end = k
    queue.insert(run_end + 1, new)


def contiguous(relations: list[str]) -> bool:
    """Each relation occurs in one run."""
    seen: set[str] = set()
    previous = None
    for relation in relations:
        if relation != previous and relation in seen:
            return False
        seen.add(relation)
        previous = relation
    return True


def bo_queue(sessions) -> list[tuple[int, str, str, bool]]:
    """Bo's queue as the screens read it: (item id, template, relation, decided)."""
    with sessions() as s:
        bo = s.scalars(select(User).where(User.email == BO)).one()
        items = queueing.queue(s, get_assignment(s, bo, "es"))
    return [(i.id, i.template, i.relation, i.decision is not None) for i in items]


def ana_suggests(sessions, relation: str, text: str) -> None:
    with unit_of_work(sessions) as s:
        ana = s.scalars(select(User).where(User.email == ANA)).one()
        suggest(s, ana, get_assignment(s, ana, "es"), relation, text)


def bo_accepts(sessions, item_id: int) -> None:
    with unit_of_work(sessions) as s:
        bo = s.scalars(select(User).where(User.email == BO)).one()
        assignment = get_assignment(s, bo, "es")
        decide(s, bo, assignment, get_item(s, assignment, item_id), "accept")


@pytest.fixture(scope="module")
def seeded(sqlite_templates):
    return sqlite_templates("review")


def fresh(seeded, folder) -> tuple:
    """A copy of the seeded review database: (engine, session factory)."""
    path = folder / "curator.sqlite"
    shutil.copyfile(seeded, path)
    engine = make_engine(f"sqlite:///{path}")
    return engine, make_session_factory(engine)


STEP = st.one_of(
    st.tuples(st.just("suggest"), st.sampled_from(RELATIONS), st.sampled_from(WORDS)),
    # Bo decides his current item (0) or another undecided one (its rank among them)
    st.tuples(st.just("decide"), st.integers(0, 20), st.just("")),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(STEP, min_size=1, max_size=14))
def test_a_relations_items_stay_together_after_any_proposals_and_decisions(seeded, tmp_path_factory, steps):
    engine, sessions = fresh(seeded, tmp_path_factory.mktemp("order"))
    try:
        model = [Entry(text, relation, decided) for _, text, relation, decided in bo_queue(sessions)]
        for kind, arg, word in steps:
            before = bo_queue(sessions)
            current = next((row for row in before if not row[3]), None)
            if kind == "suggest":
                text = f"[X] {word} de [Y]"
                ana_suggests(sessions, arg, text)
                if (text, arg) not in [
                    (e.text, e.relation) for e in model
                ]:  # a template already there is not added again
                    reference_insert(model, Entry(text, arg))
            else:
                undecided = [row for row in before if not row[3]]
                if not undecided:
                    continue
                chosen = undecided[arg % len(undecided)]
                bo_accepts(sessions, chosen[0])
                next(e for e in model if (e.text, e.relation) == chosen[1:3] and not e.decided).decided = True
            after = bo_queue(sessions)
            assert [(text, relation, decided) for _, text, relation, decided in after] == [
                (e.text, e.relation, e.decided) for e in model
            ]
            assert contiguous([relation for _, _, relation, decided in after if not decided])
            if kind == "suggest" and current is not None:  # the current item is not displaced
                assert next(row for row in after if not row[3])[0] == current[0]
    finally:
        engine.dispose()


def test_p19_p30_p19_no_more(review_app, sessions):
    """The regression of the issue: Bo on his first P19 item, Ana proposes a P30 text — it used to
    come next (P19 → P30 → P19); now after his P19 block, with his P30 items."""
    bo_items = review_sample(sessions, BO, "es")
    assert [r for _, r, _ in bo_items[:4]] == ["P19", "P19", "P19", "P30"]
    ana_suggests(sessions, "P30", "[X] queda en [Y]")
    relations = [relation for _, _, relation, _ in bo_queue(sessions)]
    assert relations[:8] == ["P19", "P19", "P19", "P30", "P30", "P30", "P30", "P36"]
    assert [text for _, text, _, _ in bo_queue(sessions)][6] == "[X] queda en [Y]"
    # every P30 item decided: a new P30 proposal goes after the current (P19) block, not inside it
    for item_id, _, relation, _ in bo_queue(sessions):
        if relation == "P30":
            bo_accepts(sessions, item_id)
    ana_suggests(sessions, "P30", "[X] está en [Y]")
    texts = [text for _, text, _, _ in bo_queue(sessions)]
    assert texts.index("[X] está en [Y]") == 3  # right after the three P19 items
    assert contiguous([relation for _, _, relation, decided in bo_queue(sessions) if not decided])


@pytest.mark.parametrize(
    ("queue", "relation", "point"),
    [
        ([], "P19", None),
        ([Slot(0, "P19", False)], "P19", None),  # nothing open: at the end
        ([Slot(0, "P19", True), Slot(1, "P19", True), Slot(2, "P30", True)], "P30", 3),
        ([Slot(0, "P19", True), Slot(1, "P19", True), Slot(2, "P30", True)], "P36", 2),
        # decided items between the current relation's open ones do not end its block
        ([Slot(0, "P19", True), Slot(1, "P30", False), Slot(4, "P19", True), Slot(6, "P36", True)], "P37", 5),
        ([Slot(3, "P19", False), Slot(5, "P30", True)], "P19", 6),  # P19 done: after the P30 block
    ],
)
def test_the_ordering_rule_cases(queue, relation, point):
    assert insertion_point(queue, relation) == point

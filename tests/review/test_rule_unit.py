"""The rule for what ships as the pure function it is (`curator.review.rule.decide`, issue 36):
cases the random histories of tests/review/test_rule_property.py do not draw — duplicated parent
lines with their own checked flags, imported decisions (row 6), an answer and a resolution at the
same time — written from the docs table (docs/release.md "What ships: one rule")."""

from __future__ import annotations

from datetime import datetime

from curator.review.rule import (
    Answer,
    LanguageState,
    ParentLine,
    RelationState,
    ResolutionState,
    SuggestionLine,
    Vote,
    decide,
)

AA, BB, DD = "[X] aa [Y]", "[X] bb [Y]", "[X] dd [Y]"
AT = datetime(2026, 11, 28, 12, 0, 0)


def _one(rel: RelationState, policy: str = "any", trusted: frozenset[int] = frozenset()):
    (outcome,) = decide(LanguageState("es", policy, trusted, {1: "r1", 2: "r2"}, {rel.relation: rel}))
    return outcome


def test_a_duplicated_parent_line_keeps_each_copys_flag_until_someone_decides_it():
    rel = RelationState("P19", parent=[ParentLine(AA, False, 1), ParentLine(BB, False, 2), ParentLine(AA, True, 1)])
    shipped = [(d.text, checked) for d, _, checked in _one(rel).shipped()]
    assert shipped == [(AA, False), (BB, False), (AA, True)]  # rows 4: as the parent marks each copy
    rel.decisions[AA] = [Vote(1, "accept", None, 1, "web")]
    shipped = [(d.text, checked) for d, _, checked in _one(rel).shipped()]
    assert shipped == [(AA, True), (BB, False), (AA, True)]  # row 7: a reviewer's accept checks both
    rel.decisions[AA] = [Vote(1, "reject", None, 2, "web")]
    assert [d.text for d, _, _ in _one(rel).shipped()] == [BB]  # row 5: both copies go


def test_an_imported_proposal_ships_checked_by_import_even_alone():
    rel = RelationState("P19", parent=[ParentLine(AA, False, 1)], suggestions=[SuggestionLine(1, DD, "import", 1)])
    d = _one(rel, "unanimous").decided[DD]
    assert (d.outcome.value, d.rule, d.by) == ("shipped-checked", 6, "import")
    rel.decisions[DD] = [Vote(2, "reject", None, 3, "web")]  # the policy still comes first (row 5)
    assert _one(rel, "unanimous").decided[DD].outcome.value == "rejected"
    assert _one(rel, "any").decided[DD].by == "import"


def test_on_equal_times_the_answer_counts_over_the_resolution():
    rel = RelationState(
        "P19",
        parent=[ParentLine(AA, False, 1), ParentLine(BB, False, 2)],
        answers={AA: Answer("confirm", "boss", AT, "")},
        resolutions={AA: ResolutionState(1, AA, "reject", None, "boss", AT, "no")},
    )
    d = _one(rel).decided[AA]
    assert (d.outcome.value, d.rule, d.by) == ("shipped-checked", 2, "maintainer")
    rel.answers[AA] = Answer("drop", "boss", AT, "")
    rel.resolutions[AA] = ResolutionState(1, AA, "accept", None, "boss", AT, "yes")
    assert _one(rel).decided[AA].outcome.value == "dropped"


def test_every_text_once_and_only_texts_people_touched():
    rel = RelationState(
        "P19",
        parent=[ParentLine(AA, False, 1)],
        decisions={"[X] gone [Y]": [Vote(1, "amend", DD, 1, "web")]},  # a row that is no text
    )
    assert list(_one(rel).decided) == [AA]  # the amendment of a withdrawn proposal reaches nothing

"""Search that finds what people type (issue 27 §7) and the glossary's storage, on SQLite and
PostgreSQL: case, accents, Arabic harakat and tatweel do not count (curator/core/folding.py)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from curator.core.errors import Conflict
from curator.core.folding import find, fold
from curator.core.models import Assignment, AssignmentItem, GlossaryTerm, User
from curator.review.comments import add_comment
from curator.review.glossary import add_term, edit_term, matches
from curator.review.overview import RowFilter, language_rows
from tests.plugins.servers import Browser

pytestmark = pytest.mark.backends("sqlite", "postgresql")

HARAKAT = "عَاصِمَةُ"  # "capital" with its vowel marks
TATWEEL = "عـاصـمة"  # stretched with tatweel


def test_fold_drops_case_accents_harakat_and_tatweel():
    assert fold("NACIÓ") == fold("nació") == fold("nacio") == "nacio"
    assert fold(HARAKAT) == fold(TATWEEL) == fold("عاصمة") == "عاصمة"
    assert fold("Straße") == "strasse"
    text = "[X] NACIÓ en [Y]"
    assert [text[a:b] for a, b in find("nacio", text)] == ["NACIÓ"]
    text = f"{HARAKAT} [X] هي [Y]"
    assert [text[a:b] for a, b in find("عاصمة", text)] == [HARAKAT]  # the marks after the last letter too
    assert find("nac", "[X] nació") == [] and find("nac", "[X] nació", whole_word=False) == [(4, 9)]


def _texts(session, code: str, q: str) -> set[str]:
    return {r.text for r in language_rows(session, code, RowFilter(q=q), page_size=1000).rows}


def test_the_language_page_search_ignores_case_accents_and_arabic_marks(review_app, sessions):
    with sessions() as s:
        found = _texts(s, "es", "nacio")
        assert found and all("nació" in t for t in found)
        assert _texts(s, "es", "NACIÓ") == found == _texts(s, "es", "nació")
        capital = _texts(s, "ar", "عاصمة")
        assert capital and _texts(s, "ar", HARAKAT) == capital == _texts(s, "ar", TATWEEL)
    # the reverse: what is stored with harakat and tatweel is found by the plain word
    with sessions.begin() as s:
        ana = s.scalar(select(User).where(User.email == "ana@example.org"))
        assignment = s.scalar(select(Assignment).where(Assignment.user_id == ana.id, Assignment.language == "ar"))
        item = s.scalar(select(AssignmentItem).where(AssignmentItem.assignment_id == assignment.id).limit(1))
        add_comment(s, ana, assignment, f"كلمة {TATWEEL} و{HARAKAT}", item=item)
        template_id = item.template_id
    with sessions() as s:
        rows = language_rows(s, "ar", RowFilter(q="كلمة عاصمة"), page_size=1000).rows
        assert [r.id for r in rows] == [template_id]
    boss = Browser(review_app).login("boss@example.org")
    page = boss.get("/admin/languages/es?q=NACIO").get_data(as_text=True)
    assert "nació" in page and "No candidate matches" not in page


def test_glossary_terms_are_one_per_folded_term(review_app, sessions):
    with sessions.begin() as s:
        first = add_term(s, "es", "Born", "nació", "past tense")
        with pytest.raises(Conflict):
            add_term(s, "es", "BÖRN", "otra")
        add_term(s, "ar", "capital", HARAKAT)  # another language: its own glossary
        other = add_term(s, "es", "capital", "capital")
        with pytest.raises(Conflict):
            edit_term(s, "es", other.id, "born", "x")
        first_id = first.id
    with sessions() as s:
        assert s.get(GlossaryTerm, first_id).term_key == "born"
        hits = matches(s, "es", "[X] was BORN in the capital of [Y].", "[X] NACIÓ en la capitales de [Y]")
        assert [(m["term"], m["found"]) for m in hits] == [("Born", ["NACIÓ"]), ("capital", ["capitales"])]
        assert matches(s, "ar", "The capital of [X] is [Y].", "عـاصـمة [X] هي [Y]")[0]["found"] == [TATWEEL]

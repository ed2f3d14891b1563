"""Spreadsheet formulas in exported CSV (issue 38 §2, low): a cell starting with `= + - @`, a tab
or a carriage return is exported inert (a single quote first, OWASP) and read back unchanged on
import — one pair of functions (core.formats.spreadsheet) for every CSV writer and reader."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, select

from curator.core.formats.spreadsheet import Writer, inert, revive
from curator.core.models import GlossaryTerm
from curator.review.glossary_csv import export_csv, import_csv
from curator.review.stats import summary_csv

FORMULA = frozenset("=+-@\t\r")  # a cell's first character ("" for an empty cell is not in it)

# texts that stress the rule: formula characters and quotes up front, anything after
tricky = st.text(alphabet=st.sampled_from(["=", "+", "-", "@", "\t", "\r", "'", "a", "1", " ", '"', ",", "\n", "é"]))
texts = st.one_of(
    tricky,
    st.text(),
    st.builds(lambda q, f, rest: q + f + rest, st.text("'"), st.sampled_from(sorted(FORMULA)), st.text()),
)


def reference_inert(text: str) -> str:
    """The issue's rule, written apart: quote a text whose first character after any quotes is a
    formula character (so that the import, which drops one such quote, gives it back)."""
    i = 0
    while i < len(text) and text[i] == "'":
        i += 1
    return "'" + text if i < len(text) and text[i] in FORMULA else text


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(texts, min_size=1, max_size=4), min_size=1, max_size=5))
def test_every_string_round_trips_through_a_csv_file_and_no_cell_starts_a_formula(rows):
    out = io.StringIO()
    Writer(out).writerows(rows)
    written = list(csv.reader(io.StringIO(out.getvalue(), newline="")))
    assert all(cell[:1] not in FORMULA for row in written for cell in row)
    assert all(inert(c) == reference_inert(c) for row in rows for c in row)
    assert [[revive(c) for c in row] for row in written] == rows


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ('=HYPERLINK("http://evil.example","x")', '\'=HYPERLINK("http://evil.example","x")'),
        ("+1", "'+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
        ("\tcmd", "'\tcmd"),
        ("\r=1", "'\r=1"),
        ("'=1", "''=1"),  # a quote typed before a formula survives the round trip
        ("'hola", "'hola"),  # a quote before anything else is left alone, both ways
        ("capital", "capital"),
        ("", ""),
        ("'", "'"),
    ],
)
def test_named_cells(text, cell):
    assert inert(text) == cell and revive(cell) == text


def _cells(path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh))


HOSTILE = [
    ("es", '=HYPERLINK("http://evil.example","x")', "+capital", "-nota"),
    ("es", "@SUM(A1)", "'=ya citado", "'hola"),
    ("ar", "-x", "=1+1", "@"),
]


def test_glossary_export_is_inert_and_imports_back_unchanged(review_app, cli, sessions, tmp_path):
    src = tmp_path / "in.csv"
    with open(src, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["language", "term", "translation", "note"])
        writer.writerows([inert(c) for c in row] for row in HOSTILE)
    cli("glossary", "import", src)
    with sessions() as s:
        stored = sorted(
            s.execute(
                select(GlossaryTerm.language, GlossaryTerm.term, GlossaryTerm.translation, GlossaryTerm.note)
            ).all()
        )
    assert stored == sorted(HOSTILE)

    out = tmp_path / "out.csv"
    cli("glossary", "export", out)
    cells = [c for row in _cells(out)[1:] for c in row]
    assert cells and all(c[:1] not in FORMULA for c in cells)
    assert '\'=HYPERLINK("http://evil.example","x")' in cells and "''=ya citado" in cells
    with sessions() as s:
        s.execute(delete(GlossaryTerm))
        s.commit()
    assert "3 terms added, 0 updated" in cli("glossary", "import", out).output
    with sessions() as s:
        again = sorted(
            s.execute(
                select(GlossaryTerm.language, GlossaryTerm.term, GlossaryTerm.translation, GlossaryTerm.note)
            ).all()
        )
    assert again == stored


glossary_text = st.builds(
    lambda q, f, rest: (q + f + rest).strip() or "x",
    st.text("'", max_size=2),
    st.sampled_from(["=", "+", "-", "@", "a", "'"]),
    st.text(alphabet=st.sampled_from(["=", "+", "-", "@", "'", "a", "b", "(", ")", ",", '"']), max_size=12),
)


@pytest.mark.backends("sqlite")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(term=glossary_text, translation=glossary_text, note=glossary_text)
def test_the_glossary_round_trips_any_formula_like_text(review_app, sessions, tmp_path, term, translation, note):
    """The real export and import: what the glossary stored comes back unchanged."""
    out = tmp_path / "round.csv"
    with sessions() as s:
        s.execute(delete(GlossaryTerm))
        s.add(
            GlossaryTerm(
                language="es", term="t" + term, term_key="t" + term.casefold(), translation=translation, note=note
            )
        )
        s.commit()
        export_csv(s, out)
        assert all(c[:1] not in FORMULA for row in _cells(out) for c in row)
        s.execute(delete(GlossaryTerm))
        import_csv(s, out)
        s.commit()
        assert s.execute(select(GlossaryTerm.term, GlossaryTerm.translation, GlossaryTerm.note)).all() == [
            ("t" + term, translation, note)
        ]


def test_the_dashboard_csv_keeps_numbers_and_makes_text_inert(review_app, sessions):
    from curator.review.stats import review_summary

    with sessions() as s:
        summary = review_summary(s)
    summary.languages[0].language = "=cmd|' /C calc'!A0"
    text = summary_csv(summary)
    cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
    assert "'=cmd|' /C calc'!A0" in cells and all(c[:1] not in FORMULA - {"-"} for c in cells)

"""Placeholder repair and template cleaning/validation (SPEC §2)."""

from __future__ import annotations

import json

import pytest

from curator.ingest.clean import check, clean, invalid_reason
from curator.ingest.placeholders import TABLE_PATH, load_table, repair


@pytest.mark.parametrize(
    "raw, lang, expected, rule",
    [
        ("[X] είναι αρχικά από [y].", "el", "[X] είναι αρχικά από [Y].", "case"),
        ("[Χ] γεννήθηκε στο [Y].", "el", "[X] γεννήθηκε στο [Y].", "lookalike"),  # Greek capital chi
        ("[X] γεννήθηκε στο [Υ].", "el", "[X] γεννήθηκε στο [Y].", "lookalike"),  # Greek capital upsilon
        ("[ X ] naît à [Y]", "fr", "[X] naît à [Y]", "spacing"),
        ("【X】は[Y]で生まれた", "ja", "[X]は[Y]で生まれた", "bracket"),
        ("〔X〕は[Y]", "ja", "[X]は[Y]", "bracket"),
        ("[[X]] wurde in [Y] geboren", "de", "[X] wurde in [Y] geboren", "bracket"),
        ("[X] in (Y]", "ne", "[X] in [Y]", "bracket"),
        ("[এক্স] [ওয়াই] এ জন্মগ্রহণ করেন।", "bn", "[X] [Y] এ জন্মগ্রহণ করেন।", "transliteration"),
        ("[Кс] је рођен у [И].", "sr", "[X] је рођен у [Y].", "transliteration"),
        ("[Х] нарадзіўся ў [у]", "be", "[X] нарадзіўся ў [Y]", "lookalike"),
        ("ولد [س] في [ص]", "ar", "ولد [X] في [Y]", "transliteration"),
        ("[X] on kotoisin [Y:stä].", "fi", "[X] on kotoisin [Y]:stä.", "suffix"),
        ("[X] [y ကို] မွေး", "my", "[X] [Y] ကို မွေး", "split"),
        ("[X] का जन्म [हाँ] में हुआ", "hi", "[X] का जन्म [Y] में हुआ", "translated"),
    ],
)
def test_repairs_known_spellings(raw, lang, expected, rule):
    repaired, repairs = repair(raw, lang)
    assert repaired == expected
    assert any(rule in r.rule.split(",") for r in repairs)


def test_every_repair_is_recorded_with_its_source_token():
    _, repairs = repair("【 x 】 est né à [ Y ]", "fr")
    assert [(r.source, r.target) for r in repairs] == [("【 x 】", "[X]"), ("[ Y ]", "[Y]")]
    assert repairs[0].rule == "bracket,spacing,case"


@pytest.mark.parametrize(
    "raw, lang",
    [
        ("[X] (2008) was in [Y]", "kk"),  # a year in brackets is text
        ("[X] [Xylophone] [Y]", "en"),  # a word starting with X is not a placeholder
        ("[X] [س] [Y]", "fa"),  # the Arabic algebra letter is only known for Arabic
        ("[X] (i) [Y]", "hr"),  # translated-word spellings need square brackets
        ("[X] [हाँ] [Y]", "mr"),  # scoped to Hindi
    ],
)
def test_leaves_text_alone(raw, lang):
    assert repair(raw, lang) == (raw, [])


def test_already_correct_template_has_no_repairs():
    assert repair("[X] was born in [Y].", "en") == ("[X] was born in [Y].", [])


def test_table_is_data_and_every_entry_is_well_formed():
    data = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    assert len(data["entries"]) >= 40
    table = load_table()
    for row in data["entries"]:
        assert row["slot"] in ("X", "Y")
        assert row["rule"] in ("case", "lookalike", "transliteration", "translated")
        assert table  # loads without error


def test_extra_table_rows_extend_the_repairs(tmp_path):
    path = tmp_path / "table.json"
    path.write_text(json.dumps({"entries": [{"form": "ikusu", "slot": "X", "rule": "transliteration"}]}))
    table = load_table(str(path))
    assert repair("[ikusu] to [Y]", "xx", table)[0] == "[X] to [Y]"


def test_clean_lowercases_all_but_placeholders_and_drops_punctuation():
    assert clean("  [X]  Nació EN [Y]. ") == "[X] nació en [Y]"
    assert clean("[X]：は[Y]。") == "[X]：は[Y]"  # only ASCII ':' is dropped, as SPEC §2 says
    assert clean("[X]: [Y]") == "[X] [Y]"
    assert clean("ΣΟΦΟΣ [X] [Y]") == "σοφος [X] [Y]"


@pytest.mark.parametrize(
    "text, reason",
    [
        ("[X] was born", "missing [Y]"),
        ("was born in [Y]", "missing [X]"),
        ("[X] and [X] in [Y]", "[X] appears 2 times"),
        ("[X] [Y]", "no text besides the placeholders"),
        ("[X], [Y]!", "no text besides the placeholders"),
    ],
)
def test_validation_reasons(text, reason):
    assert invalid_reason(clean(text)) == reason


def test_check_keeps_invalid_outcome_with_reason():
    outcome = check("[এক্স] জন্মগ্রহণ করেন।", "bn")
    assert not outcome.valid and outcome.cleaned is None
    assert outcome.reason == "missing [Y]"
    assert outcome.repaired == "[X] জন্মগ্রহণ করেন।"

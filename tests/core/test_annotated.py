"""Annotated templates (issue 39 §2): X-FACTR's alternatives and articles parsed, checked, realised.

The property tests compare `curator.core.annotated` with a reference written here from the
syntax in ../shared/data/xfactr/README.md the way X-FACTR's own code reads a prompt: split on
spaces, a word in brackets is a token, `|` separates alternatives, `;` a form from its feature.
"""

from __future__ import annotations

import csv
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curator.core.annotated import (
    Agreement,
    AnnotationError,
    accepts,
    check,
    is_annotated,
    plain,
    realise,
    syntax_help,
)
from tests.plugins.real_data import need_shared

# ---------------------------------------------------------------- the reference, from the README

REF_ARTICLES = {"es": {"ART": ("un", "una"), "DEF": ("el", "la")}}  # (masculine, feminine)
REF_FEATURES = {"Gender": {"MASC", "FEM", "NEUT"}, "Number": {"SG", "PL"}}


def ref_parse(word: str, language: str):
    """None for plain text; ("alt", [(form, entity, feature, value)]) | ("art", kind, entity); or
    ("bad", reason) for anything else in brackets."""
    if not (word.startswith("[") and word.endswith("]")) or word in ("[X]", "[Y]"):
        return None
    body = word[1:-1]
    if any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029" for c in body):
        return ("bad", "a control character inside a token")
    if body in ("ART;X-Gender", "ART;Y-Gender", "DEF;X", "DEF;Y", "ART;X", "ART;Y", "DEF;X-Gender", "DEF;Y-Gender"):
        kind, entity = body[:3], body[4]
        return ("art", kind, entity) if kind in REF_ARTICLES.get(language, {}) else ("bad", "no table")
    options = body.split("|")
    if len(options) < 2:
        return ("bad", "not alternatives")
    parsed = []
    for option in options:
        if option.count(";") != 1 or option.count("=") != 1:
            return ("bad", "option")
        form, feat = option.split(";")
        label, value = feat.split("=")
        if not form or len(label) < 3 or label[1] != "-" or label[0] not in "XY":
            return ("bad", "option")
        entity, feature = label[0], label[2:]
        if value not in REF_FEATURES.get(feature, set()):
            return ("bad", "feature")
        parsed.append((form, entity, feature, value))
    if len({p[1] for p in parsed}) != 1 or len({p[1:] for p in parsed}) != len(parsed):
        return ("bad", "mixed or repeated")
    genders = {value for _, _, feature, value in parsed if feature == "Gender"}
    if genders and not {"MASC", "FEM"} <= genders:  # a known gender must find its own form
        return ("bad", "gender without both MASC and FEM")
    return ("alt", parsed)


def ref_realise(template: str, agreement: dict, language: str) -> str | None:
    """None where the template is refused (also without exactly one [X] and one [Y])."""
    if template.count("[X]") != 1 or template.count("[Y]") != 1:
        return None
    out = []
    for word in template.split(" "):
        token = ref_parse(word, language)
        if token is None:
            if "[" in word.replace("[X]", "").replace("[Y]", "") or "]" in word.replace("[X]", "").replace("[Y]", ""):
                return None
            out.append(word)
        elif token[0] == "bad":
            return None
        elif token[0] == "art":
            masculine, feminine = REF_ARTICLES[language][token[1]]
            out.append(feminine if agreement.get((token[2], "Gender")) == "FEM" else masculine)
        else:
            options = token[1]
            entity = options[0][1]
            chosen = options[0][0]
            number, gender = agreement.get((entity, "Number")), agreement.get((entity, "Gender"))
            by_gender = [o[0] for o in options if o[2] == "Gender" and o[3] == gender]
            by_number = [o[0] for o in options if o[2] == "Number" and o[3] == number]
            if by_number:
                chosen = by_number[0]
            elif by_gender:
                chosen = by_gender[0]
            out.append(chosen)
    return " ".join(out)


# ---------------------------------------------------------------- generated templates

forms_text = st.text(alphabet="abcdéñнаדה", min_size=1, max_size=5)
plain_word = st.text(alphabet="abcdeé.,né", min_size=1, max_size=6)
placeholder = st.sampled_from(["[X]", "[Y]", "ב[Y]", "[X]'s"])


@st.composite
def alternative_token(draw):
    entity = draw(st.sampled_from("XY"))
    labels = draw(
        st.lists(
            st.sampled_from([("Gender", v) for v in ("MASC", "FEM", "NEUT")] + [("Number", v) for v in ("SG", "PL")]),
            min_size=2,
            max_size=4,
            unique=True,
        )
    )
    if any(feature == "Gender" for feature, _ in labels):  # a gender token gives both MASC and FEM
        labels += [("Gender", v) for v in ("MASC", "FEM") if ("Gender", v) not in labels]
    options = [f"{draw(forms_text)};{entity}-{feature}={value}" for feature, value in labels]
    return "[" + "|".join(options) + "]"


broken_token = st.sampled_from(
    [
        "[X.Nom]",
        "[Y.Ess]",
        "[Y.IN+ESS]",
        "[DEF.Gen;X]",
        "[PREPLOC;Y]",
        "[PREPDEF-à;X]",
        "[ARTDEF;Y]",
        "[né;X-Gender=MASC]",  # one form
        "[né;X-Gender=MASC|née;X-Gender=MASC]",  # repeated
        "[né;X-Gender=MASC|née;Y-Gender=FEM]",  # two entities
        "[né;X-Gender=MALE|née;X-Gender=FEM]",  # not a value
        "[né;X-Genre=MASC|née;X-Genre=FEM]",  # not a feature
        "[né;Z-Gender=MASC|née;Z-Gender=FEM]",  # not an entity
        "[né|née]",
        "[ist;X-Gender=MASC|est;X-Number=PL]",  # a gender without its feminine (review of #39, P2-8)
        "[née;X-Gender=FEM|nées;X-Number=PL]",  # and without its masculine
        "[a\nb;X-Gender=MASC|c;X-Gender=FEM]",  # a line break inside a token (P3-12)
        "[;X-Gender=MASC|née;X-Gender=FEM]",  # empty form
        "[Y;be]",
        "[]",
        "[X",
        "Y]",
    ]
)
article_token = st.sampled_from(["[ART;X-Gender]", "[ART;Y-Gender]", "[DEF;X]", "[DEF;Y]"])


@st.composite
def templates(draw, broken: bool):
    """Words around one [X] and one [Y] (a placeholder may be part of a word: "ב[Y]", "[X]'s");
    `broken`: also refused tokens, and a slot missing or repeated (review of #39, P3-12)."""
    kinds = [plain_word, alternative_token(), article_token]
    if broken:
        kinds.append(broken_token)
    words = draw(st.lists(st.one_of(*kinds), min_size=0, max_size=7))
    slots = [draw(st.sampled_from(["[X]", "[X]'s"])), draw(st.sampled_from(["[Y]", "ב[Y]"]))]
    if broken:
        slots = draw(st.sampled_from([slots, slots, slots, slots[:1], slots[1:], [*slots, "[X]"], [*slots, "[Y]"]]))
    for slot in slots:
        words.insert(draw(st.integers(0, len(words))), slot)
    return " ".join(words)


agreements = st.fixed_dictionaries(
    {
        "x_gender": st.sampled_from([None, "MASC", "FEM", "NEUT"]),
        "x_number": st.sampled_from([None, "SG", "PL"]),
        "y_gender": st.sampled_from([None, "MASC", "FEM", "NEUT"]),
        "y_number": st.sampled_from([None, "SG", "PL"]),
    }
)


def as_reference(agreement: dict) -> dict:
    return {(k[0].upper(), k[2:].capitalize()): v for k, v in agreement.items()}


@settings(max_examples=400, deadline=None)
@given(templates(broken=True), agreements, st.sampled_from(["es", "fr", "he", "es-ES"]))
def test_realise_and_check_agree_with_the_reference(template, agreement, language):
    expected = ref_realise(template, as_reference(agreement), language.split("-")[0])
    if expected is None:
        with pytest.raises(AnnotationError) as refused:
            check(template, language)
        assert "\n" not in str(refused.value)
        with pytest.raises(AnnotationError):
            realise(template, Agreement(**agreement), language)
    else:
        check(template, language)
        assert realise(template, Agreement(**agreement), language) == expected


@settings(max_examples=200, deadline=None)
@given(templates(broken=False))
def test_plain_is_the_first_forms_and_leaves_only_the_placeholders(template):
    flat = plain(template, "es")
    assert flat == ref_realise(template, {}, "es")
    assert not is_annotated(flat)
    assert is_annotated(template) == any(ref_parse(w, "es") is not None for w in template.split(" "))


# ---------------------------------------------------------------- named cases

FR_P19 = "[X] est [né;X-Gender=MASC|née;X-Gender=FEM] à [Y] ."
ES_P463 = "[X] es [ART;X-Gender] [miembro;X-Gender=MASC|miembra;X-Gender=FEM] de [Y] ."
ES_MIXED = "[X] fue [representado;X-Gender=MASC|representada;X-Gender=FEM|representados;X-Number=PL] por [Y] ."


@pytest.mark.parametrize(
    "template, agreement, language, expected",
    [
        (FR_P19, Agreement(x_gender="MASC"), "fr", "[X] est né à [Y] ."),
        (FR_P19, Agreement(x_gender="FEM"), "fr", "[X] est née à [Y] ."),
        (FR_P19, Agreement(x_gender="NEUT"), "fr", "[X] est né à [Y] ."),  # no neuter form: the first
        (FR_P19, Agreement(), "fr", "[X] est né à [Y] ."),
        (ES_P463, Agreement(x_gender="FEM"), "es", "[X] es una miembra de [Y] ."),
        (ES_P463, Agreement(x_gender="MASC"), "es", "[X] es un miembro de [Y] ."),
        (ES_P463, Agreement(y_gender="FEM"), "es", "[X] es un miembro de [Y] ."),  # Y's gender is not X's
        ("[X] recibió [DEF;Y] [Y] .", Agreement(y_gender="FEM"), "es", "[X] recibió la [Y] ."),
        ("[X] recibió [DEF;Y] [Y] .", Agreement(y_gender="NEUT"), "es", "[X] recibió el [Y] ."),
        (ES_MIXED, Agreement(x_gender="FEM", x_number="PL"), "es", "[X] fue representados por [Y] ."),
        (ES_MIXED, Agreement(x_gender="FEM", x_number="SG"), "es", "[X] fue representada por [Y] ."),
        # a reviewer may write the feminine first: chosen by label, not by position
        ("[X] [נולדה;X-Gender=FEM|נולד;X-Gender=MASC] ב[Y] .", Agreement(x_gender="MASC"), "he", "[X] נולד ב[Y] ."),
        ("[X] [נולדה;X-Gender=FEM|נולד;X-Gender=MASC] ב[Y] .", Agreement(), "he", "[X] נולדה ב[Y] ."),
        (
            "[X] [βρίσκεται;X-Number=SG|βρίσκονται;X-Number=PL] [Y]",
            Agreement(x_number="PL"),
            "el",
            "[X] βρίσκονται [Y]",
        ),
        ("[X] [est né;X-Gender=MASC|est née;X-Gender=FEM] à [Y]", Agreement(x_gender="FEM"), "fr", "[X] est née à [Y]"),
        ("[X] was born in [Y] .", Agreement(x_gender="FEM"), "en", "[X] was born in [Y] ."),
    ],
)
def test_realise_named_cases(template, agreement, language, expected):
    assert realise(template, agreement, language) == expected


@pytest.mark.parametrize(
    "template, language, says",
    [
        ("[X.Nom] родился в [Y.Ess] .", "ru", "[X.Nom]: inflecting an entity for case needs an inflection model"),
        ("[X] est né [PREPLOC;Y] [Y] .", "fr", "[PREPLOC;Y]: choosing this article or preposition"),
        ("[DEF;X] [X] γεννήθηκε", "el", "[DEF;X]: needs language resources not available here"),
        ("[X] est [ART;X-Gender] membre de [Y]", "fr", "no ART article table for 'fr'"),
        ("[X] est [né;X-Gender=MASC] à [Y]", "fr", "at least two forms"),
        ("[X] est [né;X-Gender=MASC|née;X-Gender=MASC] à [Y]", "fr", "X-Gender=MASC is given twice"),
        ("[X] est [né;X-Gender=MASC|née;Y-Gender=FEM] à [Y]", "fr", "not both"),
        ("[X] est [né;X-Gender=M|née;X-Gender=FEM] à [Y]", "fr", "'M' is not a Gender (MASC, FEM, NEUT)"),
        ("[X] est [né;X-Genus=MASC|née;X-Genus=FEM] à [Y]", "fr", "'Genus' is not a feature"),
        ("[X] est [né X-Gender=MASC|née;X-Gender=FEM] à [Y]", "fr", "'né X-Gender=MASC' is not 'form;X-Gender=VALUE'"),
        ("[X] est [né;X-Gender=MASC|née;X-Gender=FEM à [Y]", "fr", "unbalanced '['"),
        ("[X] est né] à [Y]", "fr", "unbalanced ']'"),
        ("[human: একজন ; non-human: একটি] [X]", "bn", "not an annotation this project can fill"),
        ("[X] [a\nb;X-Gender=MASC|c;X-Gender=FEM] [Y]", "fr", "\\n"),
        # review of issue 39: a gender without both forms (P2-8); whole templates (P3-12)
        ("[X] [ist;X-Gender=MASC|est;X-Number=PL] [Y]", "de", "gives both a MASC and a FEM form"),
        ("[X] [née;X-Gender=FEM|nées;X-Number=PL] à [Y]", "fr", "gives both a MASC and a FEM form"),
        ("[Y] dia [Y] .", "mg", "[X]: a template holds it exactly once; this one holds it 0 times"),
        (
            "[X] et [X] [est;X-Number=SG|sont;X-Number=PL] [Y]",
            "fr",
            "[X]: a template holds it exactly once; this one holds it 2",
        ),
        (
            "[X] [est;X-Number=SG|sont;X-Number=PL] ici",
            "fr",
            "[Y]: a template holds it exactly once; this one holds it 0",
        ),
        ("[X] [ART;X-Gender\n] [Y]", "es", "a line break or other control character inside a token"),
        ("[X] [né;X-Gender=MASC|née;X-Gender=FEM\n] [Y]", "fr", "a line break or other control character"),
    ],
)
def test_refusals_name_the_token_in_one_line(template, language, says):
    with pytest.raises(AnnotationError) as refused:
        check(template, language)
    message = str(refused.value)
    assert says in message
    assert "\n" not in message
    with pytest.raises(AnnotationError):
        realise(template, Agreement(), language)


def test_plain_forms_and_annotated():
    assert plain(ES_P463, "es") == "[X] es un miembro de [Y] ."
    assert is_annotated(FR_P19) and is_annotated("[X] [DEF;Y] [Y]") and is_annotated("[X] ] [Y]")
    assert not is_annotated("[X] est né à [Y] .")


def test_accepts_is_what_the_parser_accepts():
    """The one rule of what is annotated where a template is read as data (review of #39, P1-1): a
    stray bracket of an MT line, an unsupported token or a broken template is plain text."""
    assert accepts(FR_P19, "fr") and accepts(ES_P463, "es")
    for text, language in [
        ("[X] fan x] is [Y].", "fy"),
        ("[X] [Y]]да дүниеге келген.", "kk"),
        ("[X] est né [PREPLOC;Y] [Y] .", "fr"),
        ("[X] [ART;X-Gender] [Y]", "fr"),  # no article table for French
        ("[X] est né à [Y] .", "fr"),  # no annotation at all
        ("[Y] [est;X-Number=SG|sont;X-Number=PL] [Y]", "fr"),
    ]:
        assert not accepts(text, language), text


def test_syntax_help_per_language():
    def said(language: str) -> str:
        return " ".join(msgid % params if params else msgid for msgid, params in syntax_help(language))

    spanish = said("es")
    assert "un/una" in spanish and "el/la" in spanish and "[né;X-Gender=MASC|née;X-Gender=FEM]" in spanish
    assert "no article table for this language" in said("fr")
    assert "\n" not in spanish


# ---------------------------------------------------------------- X-FACTR's own prompts

# (fillable, of which annotated, refused) per language, of the 46 relations' prompts
XFACTR_COUNTS = {
    "en": (46, 0, 0), "zh": (46, 0, 0), "fr": (11, 4, 35), "el": (0, 0, 46), "nl": (46, 0, 0),
    "ru": (0, 0, 46), "ko": (46, 0, 0), "es": (46, 17, 0), "mr": (44, 7, 2), "vi": (46, 0, 0),
    "he": (45, 36, 1), "tr": (19, 0, 27), "yo": (46, 0, 0), "ja": (46, 0, 0), "hu": (18, 0, 28),
    "bn": (11, 0, 35), "war": (45, 0, 1), "tl": (46, 0, 0), "sw": (46, 0, 0), "mg": (45, 0, 1),
    "pa": (46, 0, 0), "ilo": (46, 0, 0), "ceb": (46, 0, 0),
}  # fmt: skip


def test_every_xfactr_prompt_realises_or_is_refused_clearly():
    path = need_shared() / "xfactr" / "TREx_prompts.csv"
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert len(rows) == 46
    counts: dict[str, Counter[str]] = {language: Counter() for language in XFACTR_COUNTS}
    for row in rows:
        for language in XFACTR_COUNTS:
            template = row[language]
            try:
                check(template, language)
            except AnnotationError as refused:
                counts[language]["refused"] += 1
                message = str(refused)
                assert message.startswith("[") and "]: " in message and "\n" not in message
                # names the token, or the slot a template without exactly one [X] lacks (mg P31 "[Y] dia [Y] .")
                assert message.split("]: ")[0] + "]" in template or message.startswith("[X]: a template holds")
                continue
            counts[language]["fillable"] += 1
            counts[language]["annotated"] += is_annotated(template)
            for agreement in (Agreement(), Agreement(x_gender="FEM", y_gender="FEM"), Agreement(x_number="PL")):
                filled = realise(template, agreement, language)
                assert not is_annotated(filled)  # placeholders are kept as written (mg P31 has two [Y])
                assert (filled.count("[X]"), filled.count("[Y]")) == (template.count("[X]"), template.count("[Y]"))
    got = {k: (c["fillable"], c["annotated"], c["refused"]) for k, c in counts.items()}
    assert got == XFACTR_COUNTS
    # the feminine forms reach the text
    p19 = next(row for row in rows if row["pid"] == "P19")
    assert realise(p19["he"], Agreement(x_gender="FEM"), "he") == "[X] נולדה ב[Y] ."


@pytest.mark.parametrize("locale, says", [("es", "necesita un modelo de flexión"), ("ar", "نموذج تصريف")])
def test_refusals_and_the_syntax_help_are_catalogue_messages(locale, says):
    """The review screen says them in the reviewer's language: msgid and params, translated by hand."""
    from babel.messages.pofile import read_po

    from tests.web.test_translations import TRANSLATIONS

    with (TRANSLATIONS / locale / "LC_MESSAGES" / "messages.po").open("rb") as po:
        catalog = read_po(po)
    with pytest.raises(AnnotationError) as refused:
        check("[X.Nom] родился в [Y] .", "ru")
    said = catalog[refused.value.msgid].string % refused.value.params
    assert says in said and said.startswith("[X.Nom]: ")
    for msgid, params in syntax_help("es"):
        translated = catalog[msgid].string
        assert translated and translated != msgid
        assert "%(" not in (translated % params if params else translated)

"""Issue 39 §2 around the parser: X-FACTR's prompts as candidates (`curator ingest xfactr`), annotated
templates through cleaning and validation, and the release layout that keeps them (export → import →
export, byte for byte) while `pattern` stays readable by the published mParaRel code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select

from curator.core import annotated
from curator.core.errors import InputError
from curator.core.models import SourceFile, Template, XfactrTemplate
from curator.ingest.clean import check
from curator.review.validation import validate_template

PROMPTS = "xfactr/TREx_prompts.csv"
HEADER = "pid,relation,en,es,fr\n"


def _csv(tmp_path: Path, body: str, name: str = "prompts.csv") -> Path:
    path = tmp_path / name
    path.write_text(HEADER + body, encoding="utf-8")
    return path


# ---------------------------------------------------------------- cleaning and validation
def test_cleaning_keeps_a_supported_annotation_whole_and_refuses_others_with_the_parsers_message():
    fr = "[X] est [né;X-Gender=MASC|née;X-Gender=FEM] à [Y]."
    outcome = check(fr, "fr", annotations=True)
    assert outcome.cleaned == "[X] est [né;X-Gender=MASC|née;X-Gender=FEM] à [Y]"  # '.' dropped, token whole
    es = check("[X] Es [ART;X-Gender] Escritor De [Y].", "es", annotations=True)
    assert es.cleaned == "[X] es [ART;X-Gender] escritor de [Y]"  # words lower-cased, the token not
    for text, token in (
        ("[X] est [né;X-Gender=MASC|née;X-Gender=FEM] [PREPLOC;Y] [Y] .", "[PREPLOC;Y]"),
        ("[X.Nom] родился в [Y]", "[X.Nom]"),
        ("[X] est [né;X-Gender=MASC] à [Y]", "[né;X-Gender=MASC]"),
    ):
        refused = check(text, "fr", annotations=True)
        assert refused.annotation_error and refused.cleaned is None
        assert refused.reason is not None and refused.reason.startswith(token) and "\n" not in refused.reason
    with pytest.raises(InputError) as caught:
        validate_template("[X.Nom] родился в [Y]", "ru")
    assert "[X.Nom]" in str(caught.value) and "inflection model" in str(caught.value)
    assert validate_template("[X] est [né;X-Gender=MASC|née;X-Gender=FEM] à [Y]", "fr").endswith("à [Y]")
    assert validate_template("[X] nació en [Y].", "es") == "[X] nació en [Y]"  # plain text as before


def test_machine_translations_keep_their_rules_a_stray_bracket_is_not_refused_as_an_annotation():
    """Real data is never refused by a rule meant for typed input: MT lines with a stray bracket
    that are valid templates today stay valid (25 of 101,650 real lines look like this)."""
    for line, lang in (("[X] fan X] binne yn [Y].", "fy"), ("[X], [Y]:s huvudstad].", "sv")):
        assert check(line, lang).valid
        assert check(line, lang, annotations=True).annotation_error


# ---------------------------------------------------------------- curator ingest xfactr
def test_ingest_xfactr_real_file_stores_supported_prompts_and_lists_refused_ones(cli, sessions, shared_data):
    cli("init")
    cli("ingest", "pararel", shared_data / "pararel" / "patterns")
    out = cli("ingest", "xfactr", shared_data / PROMPTS).output
    assert out.startswith("X-FACTR: 711 prompts in 21 languages stored (54 annotated; 219 refused")
    # listed per language, each relation with the token the parser refused
    assert "  fr: 35 unsupported annotation: P19 [PREPLOC;Y], P20 [PREPLOC;Y]" in out
    assert "  ru: 46 unsupported annotation: P19 [X.Nom]" in out
    assert "  mg: 1 not a valid template: P31 missing [X]" in out
    with sessions() as s:
        stored = {(r.language, r.relation_id): r.template for r in s.scalars(select(XfactrTemplate))}
        record = s.scalars(select(SourceFile).where(SourceFile.kind == "xfactr")).one()
    assert stored["he", "P19"] == "[X] [נולד;X-Gender=MASC|נולדה;X-Gender=FEM] ב[Y]"
    assert stored["es", "P131"] == "[X] està [localizado;X-Gender=MASC|localizada;X-Gender=FEM] en [Y]"
    assert stored["zh-hans", "P19"] == "[X]的出生地是[Y]"
    assert ("fr", "P19") not in stored and ("ru", "P19") not in stored  # never filled wrongly
    assert all(annotated.check(t, lang) is None for (lang, _), t in stored.items())
    assert len(record.details["unsupported"]["fr"]) == 35 and record.details["invalid"]["mg"][0]["relation"] == "P31"
    # idempotent: the same file changes nothing
    again = cli("ingest", "xfactr", shared_data / PROMPTS).output
    assert "711 prompts in 21 languages unchanged, nothing written" in again


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("P19,born,[X] was born in [Y] .,[X] nació en [Y] .\n", "prompts.csv, line 2: 4 fields, the header has 5"),
        ("Q19,born,[X] a [Y],[X] b [Y],[X] c [Y]\n", "prompts.csv, line 2: field 'pid': 'Q19' is not a relation id"),
        (
            "P19,born,[X] a [Y],[X] b [Y],[X] c [Y]\nP19,born,[X] a [Y],[X] b [Y],[X] c [Y]\n",
            "prompts.csv, line 3: relation P19 appears again (first on line 2)",
        ),
        ("P19,born,[X] a [Y],[X] b\x00 [Y],[X] c [Y]\n", "prompts.csv, line 2: field 'es': "),
    ],
)
def test_ingest_xfactr_errors_name_file_line_and_field(cli, tmp_path, shared_data, body, message):
    cli("init")
    cli("ingest", "pararel", shared_data / "pararel" / "patterns")
    result = cli("ingest", "xfactr", _csv(tmp_path, body), ok=False)
    assert result.exit_code == 1
    line = result.output.strip()
    assert line.startswith("Error: ") and "\n" not in line and message in line


def test_ingest_xfactr_header_language_error(cli, tmp_path, shared_data):
    cli("init")
    cli("ingest", "pararel", shared_data / "pararel" / "patterns")
    path = tmp_path / "bad.csv"
    path.write_text("pid,relation,en,Español\nP19,born,[X] a [Y],[X] b [Y]\n", encoding="utf-8")
    result = cli("ingest", "xfactr", path, ok=False)
    assert "bad.csv, line 1: field 'Español': 'Español' is not a language code" in result.output


# ---------------------------------------------------------------- candidates and the release layout
ES_P19 = "[X] [nació;X-Number=SG|nacieron;X-Number=PL] en [Y]"


def test_xfactr_prompts_are_candidates_and_the_release_keeps_the_annotation_byte_for_byte(cli, sessions, tmp_path):
    cli("seed")
    prompts = _csv(
        tmp_path,
        f"P19,place of birth,[X] was born in [Y] .,{ES_P19} .,[X] est [né;X-Gender=MASC|née;X-Gender=FEM] "
        "[PREPLOC;Y] [Y] .\n"
        "P36,capital,The capital of [X] is [Y] .,La capital de [X] es [Y] .,\n",
    )
    cli("ingest", "xfactr", prompts)
    cli("candidates", "build")
    with sessions() as s:
        rows = {(t.language, t.relation_id, t.text): t for t in s.scalars(select(Template))}
    ours = rows["es", "P19", ES_P19]
    assert ours.is_candidate and ours.systems == ["X-FACTR"] and ours.votes == 0
    voted = rows["es", "P36", "la capital de [X] es [Y]"]  # the MT systems' template too: X-FACTR joins its sources
    assert voted.is_candidate and "X-FACTR" in voted.systems and voted.votes >= 2
    assert not any(lang == "fr" for lang, _, _ in rows)  # the refused French prompt is nowhere

    cli("release", "build", "v1")
    cli("release", "export", "v1", tmp_path / "v1")
    lines = [json.loads(x) for x in (tmp_path / "v1" / "patterns" / "es" / "P19.jsonl").read_text().splitlines()]
    mine = [x for x in lines if "annotated" in x]
    assert mine == [{"pattern": "[X] nació en [Y]", "checked-by-human": False, "annotated": ES_P19}]
    assert all("[" not in x["pattern"].replace("[X]", "").replace("[Y]", "") for x in lines)  # mParaRel reads it
    assert list(mine[0]) == ["pattern", "checked-by-human", "annotated"]

    # a probe of the folder fills the annotated template, not its plain form
    from curator.probe.data import from_directory

    (p19,) = from_directory(tmp_path / "v1", ["es"], ["P19"])
    assert p19.templates == [x.get("annotated", x["pattern"]) for x in lines] and ES_P19 in p19.templates

    cli("release", "import", tmp_path / "v1", "--version", "v1-back")
    cli("release", "export", "v1-back", tmp_path / "back")
    for path in sorted((tmp_path / "v1" / "patterns").rglob("*.jsonl")):
        assert (tmp_path / "back" / path.relative_to(tmp_path / "v1")).read_bytes() == path.read_bytes()


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ({"pattern": "[X] nacieron en [Y]", "annotated": ES_P19}, "pattern", "is not the plain form of `annotated`"),
        ({"pattern": "[X] nació en [Y]", "annotated": "[X.Nom] nació en [Y]"}, "annotated", "[X.Nom]: inflecting"),
        ({"pattern": ES_P19}, "pattern", "holds an annotated template"),
        ({"pattern": "[X] nació en [Y]", "annotated": 3}, "annotated", "expected str"),
    ],
)
def test_release_import_refuses_an_annotated_line_it_could_not_give_back(cli, tmp_path, line, field, message):
    root = tmp_path / "rel"
    (root / "patterns" / "es").mkdir(parents=True)
    (root / "patterns" / "es" / "P19.jsonl").write_text(json.dumps({"checked-by-human": True, **line}) + "\n")
    cli("init")
    result = cli("release", "import", root, "--version", "bad", ok=False)
    assert result.exit_code == 1
    assert f"P19.jsonl, line 1: field '{field}': " in result.output and message in result.output


def test_examples_of_an_annotated_template_show_a_man_and_a_woman(cli, sessions):
    """With genders stored, the examples panel picks a subject who is a man and one who is a woman
    (not merely the first tuples) and fills each with the forms that agree; a gender nobody is known
    to have is left out, never shown with another's name (review of issue 39, P3-14)."""
    from curator.core.agreement import entity_guesses
    from curator.core.models import EntityGender
    from curator.review.annotations import SCAN, example_rows
    from curator.review.service import examples_of

    cli("seed")
    text = "[X] es [originario;X-Gender=MASC|originaria;X-Gender=FEM] de [Y]"
    with sessions.begin() as s:
        template = Template(language="es", relation_id="P19", text=text, is_candidate=True)
        s.add(template)
        s.flush()
        rows = s.execute(example_rows(template)).all()
        before = examples_of(s, template)
        guessed = entity_guesses(s, {r[2]: r[0] for r in rows[:SCAN]}, "es")
        by_label = {r[0]: guessed[r[2]][0] for r in rows[:SCAN]}
        assert all(by_label[e["subject"]] == e["gender"] for e in before)  # the label rules' genders only
        # Arabic has no ending rule: with no gender stored nobody is known, so no example at all
        arabic = Template(language="ar", relation_id="P19", text="[X] [ولد;X-Gender=MASC|ولدت;X-Gender=FEM] في [Y]")
        s.add(arabic)
        s.flush()
        assert s.execute(example_rows(arabic).limit(1)).first() is not None
        assert examples_of(s, arabic) == []
        # a stray bracket of an MT line is no annotation (`annotated.accepts`): the plain examples
        stray = Template(language="es", relation_id="P19", text="[X] nació en [Y]] .")
        s.add(stray)
        s.flush()
        plain_examples = examples_of(s, stray)
        assert plain_examples and "gender" not in plain_examples[0]
        assert "".join(p["text"] for p in plain_examples[0]["parts"]) == f"{rows[0][0]} nació en {rows[0][1]}] ."
        s.add_all([EntityGender(qid=rows[0][2], gender="female"), EntityGender(qid=rows[1][2], gender="male")])
        s.flush()
        shown = examples_of(s, template)
    assert [(e["gender"], e["subject"]) for e in shown] == [("MASC", rows[1][0]), ("FEM", rows[0][0])]
    assert "".join(p["text"] for p in shown[0]["parts"]) == f"{rows[1][0]} es originario de {rows[1][1]}"
    assert "".join(p["text"] for p in shown[1]["parts"]) == f"{rows[0][0]} es originaria de {rows[0][1]}"

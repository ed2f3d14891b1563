"""Entity genders (issue 39 §2): `curator ingest genders` / `instanceof` into a real SQLite
database, the per-language fallbacks of `core.agreement` against a reference written from
docs/agreement.md, and `curator queries`, which prints what a probe sends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from curator.core.agreement import entity_agreement, entity_guesses, guess
from curator.core.annotated import Agreement, plain
from curator.core.db import reading
from curator.core.models import EntityClass, EntityGender
from tests.plugins.databases import table_snapshot
from tests.plugins.real_data import need_shared

FR_P19 = "[X] est [né;X-Gender=MASC|née;X-Gender=FEM] à [Y] ."
ES_P463 = "[X] es [ART;X-Gender] [miembro;X-Gender=MASC|miembra;X-Gender=FEM] de [Y] ."

# real subjects of mParaRel's fr P19 with their X-FACTR genders, and an entity without a row
PEOPLE = [
    ("Q1886736", "Allan Peiper", "male", "Q2643563", "Alexandra"),
    ("Q272886", "Claude Arrieu", "female", "Q90", "Paris"),
    ("Q86557", "Kurt Schwertsik", "male", "Q1741", "Vienne"),
    ("Q229341", "Olympe de Gouges", "female", "Q1741", "Vienne"),
    ("Q99999901", "Camille Inconnue", None, "Q90", "Paris"),
]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def genders_file(tmp_path: Path) -> Path:
    return write(tmp_path / "genders.txt", "".join(f"{q}\t{g}\n" for q, _, g, _, _ in PEOPLE if g) + "Q90\tnone\n")


def release_folder(root: Path) -> Path:
    """A release in the mParaRel layout whose templates hold X-FACTR's annotations: the plain form
    under `pattern`, the annotated template under `annotated`, as `release export` writes it."""
    fr = [
        {"pattern": plain(FR_P19, "fr"), "checked-by-human": True, "annotated": FR_P19},
        {"pattern": "[X] vient de [Y] .", "checked-by-human": True},
    ]
    es = [{"pattern": plain(ES_P463, "es"), "checked-by-human": True, "annotated": ES_P463}]
    write(root / "patterns/fr/P19.jsonl", "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in fr))
    write(root / "patterns/es/P463.jsonl", "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in es))
    rows = [
        {"sub_uri": s, "obj_uri": o, "obj_label": ol, "sub_label": sl, "lineid": i}
        for i, (s, sl, _, o, ol) in enumerate(PEOPLE)
    ]
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    write(root / "tuples/fr/P19.jsonl", text)
    write(root / "tuples/es/P463.jsonl", text)
    return root


# ---------------------------------------------------------------- ingest


def test_ingest_genders_is_idempotent_and_a_bad_line_stores_nothing(cli, engine, sessions, tmp_path):
    good = genders_file(tmp_path)
    other = write(tmp_path / "more.txt", "Q5\tnone\r\nQ272886\tfemale\n\n")
    first = cli("ingest", "genders", good, other)
    assert "6 entities in 2 files; 6 added, 0 changed, 0 unchanged" in first.output
    before = table_snapshot(engine)
    again = cli("ingest", "genders", good, other)
    assert "0 added, 0 changed, 6 unchanged" in again.output
    assert table_snapshot(engine) == before

    changed = write(tmp_path / "changed.txt", "Q5\tfemale\nQ6\tmale\n")
    assert "1 added, 1 changed, 0 unchanged" in cli("ingest", "genders", changed).output

    for text, says in [
        ("Q7\tmale\nQ8\tfemme\n", "bad.txt, line 2: field 'gender': 'femme' is not one of male, female, none"),
        ("Q7\tmale\n\nQ8 male\n", "bad.txt, line 3: expected 2 tab-separated fields (id, gender), found 1"),
        ("P31\tnone\n", "bad.txt, line 1: field 'id': 'P31' is not a Wikidata entity id (Q…)"),
    ]:
        bad = write(tmp_path / "bad.txt", text)
        before = table_snapshot(engine)
        result = cli("ingest", "genders", good, bad, ok=False)
        assert result.exit_code != 0
        assert says in result.output and len(result.output.strip().splitlines()) == 1
        assert table_snapshot(engine) == before  # nothing stored, not even Q7 or the good file's rows
    with reading(sessions) as session:
        assert session.get_one(EntityGender, "Q5").gender == "female"
        assert session.scalar(select(func.count()).select_from(EntityGender)) == 7


def test_ingest_instanceof_replaces_an_entitys_classes_once(cli, engine, sessions, tmp_path):
    first = write(tmp_path / "a.txt", "Q90\tQ515,city\tQ5119,capital\nQ44\t\nQ142\tQ6256,country\n")
    assert "3 entities in 1 files; 2 added, 0 changed, 1 unchanged" in cli("ingest", "instanceof", first).output
    before = table_snapshot(engine)
    assert "0 added, 0 changed, 3 unchanged" in cli("ingest", "instanceof", first).output
    assert table_snapshot(engine) == before
    second = write(tmp_path / "b.txt", "Q90\tQ515,city\n")
    assert "0 added, 1 changed, 0 unchanged" in cli("ingest", "instanceof", second).output
    with reading(sessions) as session:
        assert session.scalars(select(EntityClass.label).where(EntityClass.qid == "Q90")).all() == ["city"]
    bad = write(tmp_path / "c.txt", "Q1\tQ515,city\tcity\n")
    result = cli("ingest", "instanceof", bad, ok=False)
    assert "c.txt, line 1: field 'class 2': 'city' is not '<class id>,<class label>'" in result.output


def test_x_factr_gender_files_load_whole_and_again_change_nothing(cli):
    xfactr = need_shared() / "xfactr"
    files = [xfactr / "TREx_gender.txt", xfactr / "mTREx_gender.txt"]
    assert "93714 entities in 2 files; 93714 added" in cli("ingest", "genders", *files).output
    assert "0 added, 0 changed, 93714 unchanged" in cli("ingest", "genders", *files).output


# ---------------------------------------------------------------- the fallbacks


def ref_gender(stored: str | None, classes: list[str], label: str, language: str) -> tuple[str | None, str | None]:
    """docs/agreement.md's table for es, ru, he and a language without rules, written out apart."""
    if stored == "male":
        return "MASC", None
    if stored == "female":
        return "FEM", None
    text = " ".join(classes)
    if language == "es":
        first = label.strip().split(" ")[0]
        gender = "FEM" if first.endswith(("a", "ción", "sión", "dad", "tad", "umbre")) else "MASC"
        if "human" in text:
            gender = "MASC"
        if "state" in text or "country" in text:  # one chain, in this order
            return "FEM", None
        if "musical group" in text:
            return "MASC", "PL"
        if "record label" in text or "football club" in text:
            return "FEM", None
        return gender, None
    if language == "ru":
        last = label.strip()[-1]
        gender = "FEM" if last in "aаяАЯ" else "NEUT" if last in "оеёОЕЁ" else "MASC"
        return ("MASC" if gender == "NEUT" and "human" in text else gender), None
    if language == "he":
        return ("MASC" if "human" in text else "NEUT" if stored == "none" else None), None
    return ("NEUT" if stored == "none" else None), None


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([None, "male", "female", "none"]),
    st.lists(st.sampled_from(["human", "sovereign state", "city", "musical group", "record label", "island"]), max_size=2),
    st.lists(st.sampled_from(["Argent", "ina", "o", "ción", "Моск", "ва", "Токи", "о", "Ким", " ", "dad"]), min_size=1, max_size=3).map("".join),
    st.sampled_from(["es", "ru", "he", "en"]),
)  # fmt: skip
def test_guess_agrees_with_the_reference(stored, classes, label, language):
    if not label.strip():
        label = "x" + label
    assert guess(stored, classes, label, language) == ref_gender(stored, classes, label, language)


@pytest.mark.parametrize(
    "stored, classes, label, language, expected",
    [
        ("none", [], "Belgique", "fr", ("FEM", None)),  # -ue
        ("none", [], "Canada", "fr", ("MASC", None)),
        ("none", ["business"], "Renault", "fr", ("FEM", None)),
        ("none", ["human"], "Dominique", "fr", ("MASC", None)),
        ("male", ["business"], "Renault", "fr", ("MASC", None)),  # a stored gender wins
        ("none", ["country"], "Perú", "es", ("FEM", None)),
        ("none", ["musical group"], "Los Planetas", "es", ("MASC", "PL")),
        ("none", [], "Москва", "ru", ("FEM", None)),  # Cyrillic а (X-FACTR's set has a Latin a)
        ("none", [], "Токио", "ru", ("NEUT", None)),
        ("none", [], "Αθήνα", "el", ("FEM", None)),
        ("none", ["city"], "Κίεβο", "el", ("NEUT", None)),  # a city ending in -ο stays neuter
        ("none", ["city"], "Λονδίνο", "el", ("NEUT", None)),
        ("none", ["country"], "Γαλλία", "el", ("FEM", None)),
        ("male", [], "Ηνωμένες Πολιτείες", "el", ("FEM", "PL")),  # -ες: feminine plural
        ("none", ["human"], "Noa", "he", ("MASC", None)),
        (None, [], "Anything", "en", (None, None)),
    ],
)
def test_guess_named_cases(stored, classes, label, language, expected):
    assert guess(stored, classes, label, language) == expected


def test_entity_agreement_reads_the_stored_rows(cli, sessions, tmp_path):
    cli("ingest", "genders", genders_file(tmp_path))
    cli("ingest", "instanceof", write(tmp_path / "i.txt", "Q90\tQ515,city\tQ5119,capital\n"))
    with reading(sessions) as session:
        assert entity_agreement(session, "Q272886", "Claude Arrieu", "fr") == Agreement("FEM", None, "FEM", None)
        assert entity_agreement(session, "Q1886736", "Allan Peiper", "fr").x_gender == "MASC"
        assert entity_agreement(session, "Q90", "París", "es").x_gender == "MASC"
        assert entity_agreement(session, "Q99999901", "Camille", "he") == Agreement()  # unknown: first forms
        many = entity_guesses(session, {q: label for q, label, *_ in PEOPLE}, "fr")
        assert many["Q229341"] == ("FEM", None) and many["Q86557"] == ("MASC", None)


# ---------------------------------------------------------------- what a probe sends


def test_queries_print_the_agreeing_forms(cli, tmp_path):
    release = release_folder(tmp_path / "rel")
    cli("ingest", "genders", genders_file(tmp_path))
    result = cli("queries", release, "--languages", "fr,es", "--json")
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert len(rows) == 3 * len(PEOPLE)
    assert set(rows[0]) == {"language", "relation", "template", "sub_uri", "obj_uri", "text"}
    text = {(r["language"], r["template"], r["sub_uri"]): r["text"] for r in rows}
    assert text["fr", FR_P19, "Q272886"] == "Claude Arrieu est née à [Y] ."
    assert text["fr", FR_P19, "Q229341"] == "Olympe de Gouges est née à [Y] ."
    assert text["fr", FR_P19, "Q1886736"] == "Allan Peiper est né à [Y] ."
    assert text["fr", "[X] vient de [Y] .", "Q272886"] == "Claude Arrieu vient de [Y] ."
    assert text["es", ES_P463, "Q272886"] == "Claude Arrieu es una miembra de [Y] ."
    assert text["es", ES_P463, "Q86557"] == "Kurt Schwertsik es un miembro de [Y] ."
    # without a stored gender, the label rules: the first word "Camille" ends in -ille → feminine
    assert text["fr", FR_P19, "Q99999901"] == "Camille Inconnue est née à [Y] ."

    limited = cli("queries", release, "--languages", "fr", "--relations", "P19", "--limit", "2").output.splitlines()
    assert limited == [
        "fr\tP19\tQ1886736\tQ2643563\tAllan Peiper est né à [Y] .",
        "fr\tP19\tQ272886\tQ90\tClaude Arrieu est née à [Y] .",
    ]


def test_queries_refuse_a_template_that_cannot_be_filled(cli, tmp_path):
    """A folder is read by the one rule `release import` follows (`line_template`): an `annotated`
    key the parser refuses, or an accepted annotated template under `pattern`, is one line naming
    file, line and field."""
    release = release_folder(tmp_path / "rel")
    line = {"pattern": "[X] est né à [Y] .", "annotated": "[X] est né [PREPLOC;Y] [Y] ."}
    write(
        release / "patterns/fr/P19.jsonl",
        json.dumps({"pattern": "[X] vient de [Y] ."}) + "\n" + json.dumps(line) + "\n",
    )
    result = cli("queries", release, "--languages", "fr", ok=False)
    assert result.exit_code != 0
    assert "P19.jsonl, line 2: field 'annotated': [PREPLOC;Y]: choosing this article" in result.output
    write(release / "patterns/fr/P19.jsonl", json.dumps({"pattern": FR_P19}) + "\n")
    for command in (("queries", release, "--languages", "fr"), ("release", "import", release, "--version", "bad")):
        refused = cli(*command, ok=False)
        assert "P19.jsonl, line 1: field 'pattern': holds an annotated template" in refused.output
        assert len(refused.output.strip().splitlines()) == 1


def test_a_stray_bracket_of_a_real_mt_line_is_plain_text(cli, tmp_path):
    """Regression (review of issue 39, P1-1): a machine translation kept as published with a
    bracket the parser does not accept — the Kazakh line below, from mParaRel's Bing
    translations — is plain text for every reader: export, import, `curator queries`, the probe's
    fill. It used to stop the run ("unbalanced ']'")."""
    source = need_shared() / "mpararel/translations/pararel_bing/kk/P19.jsonl"
    stray = json.loads(source.read_text(encoding="utf-8").splitlines()[0])["pattern"]
    assert stray == "[X] [Y]]да дүниеге келген."
    release = release_folder(tmp_path / "rel")
    write(release / "patterns/fr/P19.jsonl", json.dumps({"pattern": stray}) + "\n")
    result = cli("queries", release, "--languages", "fr", "--relations", "P19", "--json")
    texts = [json.loads(line)["text"] for line in result.output.splitlines()]
    assert texts[0] == "Allan Peiper [Y]]да дүниеге келген." and len(texts) == len(PEOPLE)
    from curator.core.formats.release_writer import pattern_line

    assert pattern_line(stray, False, "kk") == {"pattern": stray, "checked-by-human": False}
    cli("release", "import", release, "--version", "stray")
    again = cli("queries", "stray", "--languages", "fr", "--relations", "P19", "--json").output
    assert [json.loads(line)["text"] for line in again.splitlines()] == texts


def test_queries_without_a_database_use_the_label_rules(empty_db_url, tmp_path):
    """A release folder beside an uninitialised database: no stored genders, so X-FACTR's label
    rules alone decide — which is why the genders table matters for people."""
    from tests.plugins.cli import Cli

    release = release_folder(tmp_path / "rel")
    result = Cli(empty_db_url)("queries", release, "--languages", "fr", "--relations", "P19", "--limit", "5")
    lines = result.output.splitlines()
    assert "fr\tP19\tQ272886\tQ90\tClaude Arrieu est né à [Y] ." in lines  # "Claude": no feminine ending
    assert "fr\tP19\tQ99999901\tQ90\tCamille Inconnue est née à [Y] ." in lines  # -ille: feminine


def test_queries_of_a_version_name(cli, tmp_path):
    """SRC may be a version in the database, resolved as `curator probe` resolves it."""
    release = release_folder(tmp_path / "rel")
    cli("ingest", "genders", genders_file(tmp_path))
    cli("release", "import", release, "--version", "x1")
    rows = [json.loads(line) for line in cli("queries", "x1", "--relations", "P19", "--json").output.splitlines()]
    text = {(r["template"], r["sub_uri"]): r["text"] for r in rows}
    assert text[FR_P19, "Q229341"] == "Olympe de Gouges est née à [Y] ."
    assert text[FR_P19, "Q86557"] == "Kurt Schwertsik est né à [Y] ."


HE_P19 = "[X] [נולד;X-Gender=MASC|נולדה;X-Gender=FEM] ב[Y] ."  # X-FACTR's Hebrew P19 prompt


def test_an_exported_release_fills_as_the_version_does(cli, sessions, empty_db_url, tmp_path):
    """Regression (review of issue 39, P2-6): `release export` writes the stored genders and classes
    of the entities of relations with an annotated template (genders.tsv, instanceof.tsv, in the
    manifest), and a probe of the folder reads them: without any database it sends the queries
    (and has the digest) of the version probed inside curator — for a woman in Hebrew, which has no
    ending rule, that is the feminine form. The Hugging Face table keeps `annotated` (P2-5)."""
    from curator.core.errors import CuratorError
    from curator.probe.jobs import read_release
    from tests.plugins.cli import Cli

    release = release_folder(tmp_path / "rel")
    write(release / "patterns/he/P19.jsonl", json.dumps({"pattern": plain(HE_P19, "he"), "annotated": HE_P19}) + "\n")
    write(release / "tuples/he/P19.jsonl", (release / "tuples/fr/P19.jsonl").read_text(encoding="utf-8"))
    cli("ingest", "genders", genders_file(tmp_path))
    cli("ingest", "instanceof", write(tmp_path / "classes.txt", "Q90\tQ515,city\tQ5119,capital\n"))
    cli("release", "import", release, "--version", "h1")
    out = tmp_path / "out"
    cli("release", "export", "h1", out, "--hf")
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert {"genders.tsv", "instanceof.tsv"} <= set(manifest["files"])
    assert "Q272886\tfemale\n" in (out / "genders.tsv").read_text(encoding="utf-8")
    assert (out / "instanceof.tsv").read_text(encoding="utf-8") == "Q90\tQ5119,capital\tQ515,city\n"

    asked = ("--languages", "he,fr,es", "--json")
    inside = [json.loads(line) for line in cli("queries", "h1", *asked).output.splitlines()]
    outside = [json.loads(line) for line in Cli(empty_db_url)("queries", out, *asked).output.splitlines()]
    assert outside == inside
    woman = next(r for r in outside if r["language"] == "he" and r["sub_uri"] == "Q272886")
    assert woman["text"] == "Claude Arrieu נולדה ב[Y] ."

    def no_database():
        raise CuratorError("no database")

    folder = read_release(str(out), ["he", "fr", "es"], None, True, no_database)
    version = read_release("h1", ["he", "fr", "es"], None, True, lambda: sessions)
    assert [d.digest() for d in folder] == [d.digest() for d in version]

    # the Hugging Face table: `annotated` beside `pattern`, null where a line has none
    hf = [json.loads(line) for line in (out / "hf/patterns.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {(r["language"], r["pattern"], r["annotated"]) for r in hf if r["language"] == "he"} == {
        ("he", plain(HE_P19, "he"), HE_P19)
    }
    assert any(r["annotated"] is None for r in hf)
    import pyarrow.parquet as pq

    table = pq.read_table(out / "hf/patterns.parquet")
    assert table.column_names == list(hf[0]) and table.column("annotated").to_pylist() == [r["annotated"] for r in hf]
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "`annotated`" in card and "genders.tsv" in card


def test_class_words_match_within_one_class_label():
    """Regression (review of issue 39, P3-11): the class labels were joined with spaces, so
    "musical" ending one label and "group" starting the next matched "musical group" (Spanish:
    masculine plural). Each label is matched on its own."""
    assert guess(None, ["musical group"], "Los Prisioneros", "es") == ("MASC", "PL")
    assert guess(None, ["musical", "group"], "Camila", "es") == ("FEM", None)
    assert guess(None, ["sovereign state"], "Perú", "es") == ("FEM", None)  # a word inside one label still matches

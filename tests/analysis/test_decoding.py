"""X-FACTR's evaluation of decoded strings on hand-made cases: names and aliases, the mapping of
strings to predictions that the consistency metrics compare, single- vs multi-token objects and
the oracle number of masks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from curator.analysis.decoding import decoded_queries, decoding_accuracy, relation_counts, relation_queries
from curator.analysis.metrics import relation_metrics
from curator.analysis.report import render_static, report_data
from curator.core.aliases import Aliases, matcher, normal
from curator.core.errors import InputError
from curator.core.formats.runs import RelationPredictions, load_relation, save_relation, write_run_info
from curator.probe.data import RelationData
from curator.probe.decoded import TEXT, to_predictions


@pytest.mark.parametrize(
    "text, form",
    [
        ("Roma", "roma"),
        ("  ROMA ", "roma"),
        ("Roma .", "roma"),
        ("«Roma»", "roma"),
        ("Nueva   York", "nueva york"),
        ("Straße", "strasse"),
        ("ＵＳＡ", "usa"),
        ("ΟΔΟΣ", "οδοσ"),
        ("EE. UU.", "ee. uu"),
        ("...", ""),
        ("القاهرة،", "القاهرة"),
        ("C++", "c++"),
        ("−5", "−5"),
        ("¡Sí!", "sí"),
    ],
)
def test_normal_form(text, form):
    assert normal(text) == form


def relation() -> RelationData:
    # two templates × three tuples; candidates sorted by id as data.build leaves them
    return RelationData(
        "es",
        "P36",
        ["[X] tiene capital [Y].", "La capital de [X] es [Y]."],
        [("Q38", "Italia"), ("Q30", "Estados Unidos"), ("Q142", "Francia")],
        ["Q220", "Q61", "Q90"],
        [("Q220", "Roma"), ("Q61", "Washington D. C."), ("Q90", "París")],
    )


def names() -> Aliases:
    aliases = Aliases.from_labels([relation()])
    aliases.add("es", "Q61", "Washington")
    return aliases


def test_strings_name_entities_through_their_aliases_and_the_rest_stay_strings():
    data = relation()
    strings = [
        "roma",
        "Washington",
        "Lyon",  # template 1: right, right (an alias), an unknown string
        "París",
        "la ciudad",
        "LYON .",
    ]  # template 2: names another candidate, unknown, Lyon again
    candidates, predicted, correct = to_predictions(data, strings, names())
    assert candidates[:3] == data.candidates
    assert candidates[3:] == [(TEXT + "lyon", "Lyon"), (TEXT + "la ciudad", "la ciudad")]
    assert predicted.tolist() == [0, 1, 3, 2, 4, 3]
    assert correct.tolist() == [True, True, False, False, False, False]


def test_strings_of_only_punctuation_are_no_answer_and_agree_with_nothing():
    data = relation()
    candidates, predicted, correct = to_predictions(data, [",", "...", "", ",", "Roma", " ¿ "], names())
    assert len(set(predicted.tolist())) == 6 and not correct[:4].any()
    assert [c for c, _ in candidates[3:]] == ["none:0", "none:1", "none:2", "none:3", "none:5"]


def test_a_string_that_names_the_gold_and_another_entity_is_the_gold():
    data = relation()
    aliases = names()
    aliases.add("es", "Q90", "Roma")  # two entities go by one name
    assert matcher(aliases, "es", ["Q220", "Q90"])["roma"] == ["Q220", "Q90"]
    _, predicted, correct = to_predictions(data, ["Roma"] * 6, aliases)
    # tuples 1 and 3 (golds Roma and París) get their gold; tuple 2 the first entity in id order
    assert predicted.tolist() == [0, 0, 2, 0, 0, 2]
    assert correct.tolist() == [True, False, True, True, False, True]


def predictions(data, candidates, predicted, correct) -> RelationPredictions:
    """The stored form of the 2 templates × 3 tuples of `relation()`."""
    return RelationPredictions(
        "es",
        "P36",
        data.templates,
        data.subjects,
        data.objects,
        candidates,
        predicted.reshape(2, 3),
        correct.reshape(2, 3),
        np.array(data.gold, dtype=np.int32),
    )


def test_consistency_counts_strings_that_name_one_entity_as_one_prediction(tmp_path):
    data = relation()
    strings = ["Roma", "Washington", "Lyon", "roma", "Washington D. C.", "lyon"]
    rel = predictions(data, *to_predictions(data, strings, names()))
    save_relation(tmp_path, rel)
    back = load_relation(tmp_path / "es" / "P36.json")
    metrics = relation_metrics(back)
    assert metrics["consistency"] == 1.0  # every tuple: both templates name the same thing
    assert metrics["accuracy"] == pytest.approx(4 / 6)
    assert metrics["consistency_accuracy"] == pytest.approx(2 / 3)


def index_of(strings, best, gold_tokens, names_of) -> dict:
    data = relation()
    return {
        "subjects": [list(s) for s in data.subjects],
        "objects": data.objects,
        "decoded": {"strings": strings, "best": best, "gold_tokens": gold_tokens, "names": names_of},
    }


def test_single_multi_and_oracle_accuracies():
    # M = 3; Roma is one token, Washington D. C. five (more than M: no oracle prediction), París two
    names_of = {"Q220": ["roma"], "Q61": ["washington", "washington d. c"], "Q90": ["parís"]}
    strings = [
        ["Roma", "la Roma", "de la Roma"],
        ["Washington", "Washington D", "Washington D."],
        ["París", "en París", "París ."],
        ["Lyon", "Roma x", "a b c"],
        ["x", "y", "z"],
        ["Par", "París", "París de"],
    ]
    best = [0, 0, 0, 1, 2, 2]  # right, right, right (the wrong m for the oracle), wrong, wrong, wrong
    counts = relation_counts(index_of(strings, best, [1, 5, 2], names_of))
    assert counts["accuracy"] == (3, 6)
    assert counts["single"] == (1, 2)  # Roma under both templates
    assert counts["multi"] == (2, 4)
    # oracle: Roma with 1 mask (right, then "Lyon"), Washington never, París with 2 masks ("en París", "París")
    assert counts["oracle"] == (2, 6)


def test_a_run_without_decoding_has_no_counts_and_accuracy_is_pooled_per_language(tmp_path):
    assert relation_counts({"subjects": [], "objects": []}) is None
    names_of = {"Q220": ["roma"], "Q61": ["washington"], "Q90": ["parís"]}
    strings = [["Roma"], ["Washington"], ["Lyon"], ["Roma"], ["x"], ["París"]]
    data = relation()
    for relation_id in ("P36", "P1376"):
        candidates, predicted, correct = to_predictions(data, [row[0] for row in strings], names())
        rel = RelationPredictions(
            "es",
            relation_id,
            data.templates,
            data.subjects,
            data.objects,
            candidates,
            predicted.reshape(2, 3),
            correct.reshape(2, 3),
            np.array(data.gold, dtype=np.int32),
        )
        save_relation(
            tmp_path,
            rel,
            index_extra={"decoded": {"strings": strings, "best": [0] * 6, "gold_tokens": [1, 1, 2], "names": names_of}},
        )
    write_run_info(tmp_path, {"model": "m", "decoding": {"init": "independent"}})
    table = decoding_accuracy(tmp_path)
    assert table["es"]["accuracy"] == {"value": 4 / 6, "correct": 8, "total": 12}
    assert table["es"]["single"]["total"] == 8 and table["es"]["multi"] == {"value": 0.5, "correct": 2, "total": 4}


def test_aliases_file_adds_names_and_bad_lines_name_file_line_and_field(tmp_path):
    good = tmp_path / "aliases.jsonl"
    good.write_text(
        json.dumps({"id": "Q30", "aliases": ["EE. UU.", "USA"], "language": "es"})
        + "\n\n"
        + json.dumps({"id": "Q90", "aliases": ["Paris"]})
        + "\n",
        encoding="utf-8",
    )
    aliases = Aliases().read(good)
    assert aliases.of("es", "Q30") == {"ee. uu", "usa"} and aliases.of("es", "Q90") == {"paris"}
    assert aliases.of("fr", "Q30") == set() and aliases.of("fr", "Q90") == {"paris"}
    for line, field in (
        [json.dumps({"aliases": ["x"]}), "id"],
        [json.dumps({"id": "Q1", "aliases": "x"}), "aliases"],
        [json.dumps({"id": "Q1", "aliases": ["x"], "language": 3}), "language"],
        ["{oops", None],
    ):
        bad = tmp_path / "bad.jsonl"
        bad.write_text(json.dumps({"id": "Q2", "aliases": []}) + "\n" + line + "\n", encoding="utf-8")
        with pytest.raises(InputError) as caught:
            Aliases().read(bad)
        message = str(caught.value)
        assert message.startswith(f"{bad}, line 2: ") and "\n" not in message
        if field:
            assert f"field '{field}'" in message
    with pytest.raises(InputError, match="no such aliases file"):
        Aliases().read(tmp_path / "missing.jsonl")


def test_aliases_file_line_holding_a_unicode_line_separator_is_one_line(tmp_path):
    """U+2028 and U+0085 inside a name are text (JSON allows them raw); `str.splitlines` cut
    such a line in two and refused the file. Read through core/formats/jsonl, it is one line."""
    path = tmp_path / "aliases.jsonl"
    rows = [{"id": "Q1", "aliases": ["a\u2028b"], "language": "es"}, {"id": "Q2", "aliases": ["c\x85d"]}]
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    assert "\u2028" in path.read_text(encoding="utf-8")  # raw, not escaped
    aliases = Aliases().read(path)
    assert aliases.of("es", "Q1") == {normal("a\u2028b")} and aliases.of("fr", "Q2") == {normal("c\x85d")}


def write_decoded_run(run, pieces: bool) -> None:
    """One decoded relation (M = 2), with its word pieces or in the format stored before them."""
    data = relation()
    strings = [["Roma", "Roma ."], ["Lyon", "Washington"], ["x", "París"], ["Roma", "la Roma"], ["y", "z"], ["a", "b"]]
    best = [0, 1, 1, 0, 0, 1]
    rel = predictions(data, *to_predictions(data, [row[b] for row, b in zip(strings, best)], names()))
    decoded = {
        "strings": strings,
        "confidence": [[-1.5, -2.25]] * 6,
        "best": best,
        "gold_tokens": [1, 4, 2],
        "names": {"Q220": ["roma"], "Q61": ["washington", "washington d. c"], "Q90": ["parís"]},
    }
    if pieces:  # what a WordPiece tokenizer might write: "Par" "##ís" joins to "París"
        decoded["pieces"] = [[one.split(), two.split()] for one, two in strings]
        decoded["pieces"][2][1] = ["Par", "##ís"]
        decoded["pieces"][4][0] = ["<i>", "ال"]  # markup stays text; Arabic keeps its direction
        decoded["tokens"] = [[list(range(len(p))) for p in row] for row in decoded["pieces"]]
    save_relation(run, rel, index_extra={"decoded": decoded})
    write_run_info(run, {"model": "m", "decoding": {"init": "independent", "max_masks": 2}})


def test_decoded_queries_give_every_m_its_pieces_and_string_and_the_chosen_m(tmp_path):
    write_decoded_run(tmp_path, pieces=True)
    (rel,) = decoded_queries(tmp_path)
    assert (rel["language"], rel["relation"], rel["total"], rel["pieces_stored"]) == ("es", "P36", 6, True)
    third = rel["queries"][2]
    assert (third["template"], third["subject"], third["object"]) == ("[X] tiene capital [Y].", "Francia", "París")
    assert third["masks"][1] == {"m": 2, "pieces": ["Par", "##ís"], "string": "París", "confidence": -2.25}
    assert third["chosen"] == 2 and third["correct"]
    assert [q["chosen"] for q in rel["queries"]] == [1, 2, 2, 1, 1, 2]
    assert [q["correct"] for q in rel["queries"]] == [True, True, True, True, False, False]
    page = relation_queries(load_index(tmp_path), limit=2, offset=3)
    assert [q["subject"] for q in page["queries"]] == ["Italia", "Estados Unidos"] and page["total"] == 6
    html = render_static(report_data(tmp_path))
    assert '<bdi dir="auto" class="piece">&lt;i&gt;</bdi> <bdi dir="auto" class="piece">ال</bdi>' in html
    assert "<i>" not in html


def load_index(run) -> dict:
    return json.loads((run / "es" / "P36.json").read_text(encoding="utf-8"))


def test_a_run_stored_before_the_pieces_reads_with_its_strings_and_says_so(cli, tmp_path):
    """Nothing is decoded again by a reader: the strings are shown and the missing pieces named."""
    run = tmp_path / "run"
    write_decoded_run(run, pieces=False)
    (rel,) = decoded_queries(run)
    assert not rel["pieces_stored"] and rel["queries"][2]["masks"][1]["pieces"] is None
    assert rel["queries"][2]["masks"][1]["string"] == "París"
    text = cli("metrics", run).output
    assert "word pieces not stored" in text and "París" in text
    shown = json.loads(cli("metrics", run, "--json").output)["decoding"]["queries"]
    assert shown[0]["pieces_stored"] is False and len(shown[0]["queries"]) == 6
    cli("report", run, tmp_path / "report")
    page = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert 'class="note pieces-missing"' in page and "París" in page


def test_a_decoded_index_that_does_not_fit_its_queries_is_one_line(cli, tmp_path):
    """A hand-edited or truncated index (a query's pieces missing) is refused with one line
    naming the relation, by `curator metrics` and the report alike, not an IndexError."""
    run = tmp_path / "run"
    write_decoded_run(run, pieces=True)
    index = load_index(run)
    del index["decoded"]["pieces"][-1]
    (run / "es" / "P36.json").write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    for args in (("metrics", run), ("report", run, tmp_path / "report")):
        result = cli(*args, ok=False)
        assert result.exit_code != 0 and "Traceback" not in result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and "es P36: the decoded index does not fit its 6 queries" in lines[0], result.output


def test_a_report_of_several_runs_passes_queries_to_each_run(cli, tmp_path):
    """`curator report A B OUT --queries N|all`: each run's own report shows that many of its
    decoded queries (the default there: 5 per relation)."""
    for name in ("a", "b"):
        write_decoded_run(tmp_path / name, pieces=True)
    for asked, rows in ((("--queries", "2"), 2), (("--queries", "all"), 6), ((), 5)):
        out = tmp_path / f"report-{'-'.join(asked) or 'default'}"
        cli("report", tmp_path / "a", tmp_path / "b", out, *asked)
        pages = sorted(out.glob("*/index.html"))
        assert len(pages) == 2
        for page in pages:
            assert page.read_text(encoding="utf-8").count("<tr data-chosen=") == rows, (asked, page)


def test_queries_on_a_ranking_run_says_it_has_none(cli, tmp_path):
    """`curator metrics --queries` on a run that ranks candidates: the metrics, and one line on
    stderr saying only decoded runs have queries (not silently ignored)."""
    data = relation()
    save_relation(tmp_path, predictions(data, *to_predictions(data, ["Roma"] * 6, names())))
    write_run_info(tmp_path, {"model": "m"})
    plain = cli("metrics", tmp_path)
    assert "--queries" not in plain.stderr
    asked = cli("metrics", tmp_path, "--queries", "all")
    assert asked.stdout == plain.stdout
    assert asked.stderr.strip().splitlines()[-1].startswith("--queries: this run ranks candidates")

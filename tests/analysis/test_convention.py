"""--convention mpararel reproduces the published mParaRel evaluation; pararel keeps ParaRel's N-M split.

`published_evaluation` below is our own rewrite of what the published
evaluate_consistency/run_evaluation.py computes (run as its README says, with
--remove_repeated_subjects), written against the prediction files only and sharing no code
with curator: if curator's averaging drifts from it, these tests fail.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from statistics import fmean, pstdev

import numpy as np
import pytest
from click.testing import CliRunner

from curator.analysis.compare import compare_runs
from curator.analysis.convention import Convention, drop_repeated_subjects, parse
from curator.analysis.metrics import run_metrics
from curator.cli import main
from curator.core.formats.runs import RelationPredictions, import_mpararel, iter_relations, save_relation

# ------------------------------------------------------------------ the hand-built prediction set
# Published format: <lang>/<REL>.json = {"subject-object": [[template, prediction, rank of gold], ...]}.
A, B, C = "[X] nació en [Y]", "[X] es de [Y]", "[Y] es donde nació [X]"
BORDERS, SHARES = "[X] limita con [Y]", "[X] comparte frontera con [Y]"
PREDICTIONS = {
    "es": {
        "P19": {  # N-1; Ana occurs with two objects, so the published evaluation drops both her tuples
            "Jean-Paul-Saint-Denis": [[A, "Saint-Denis", "0"], [B, "Saint-Denis", "0"], [C, "Lyon", "2"]],
            "Luis-Lyon": [[A, "Lyon", "0"], [B, "París", "1"], [C, "Lyon", "0"]],
            "Ana-Lyon": [[A, "París", "4"], [B, "París", "4"], [C, "París", "4"]],
            "Ana-París": [[A, "París", "0"], [B, "Lyon", "1"], [C, "Lyon", "1"]],
        },
        "P47": {  # N-M (shares border with)
            "España-Francia": [[BORDERS, "Francia", "0"], [SHARES, "Portugal", "3"]],
            "Portugal-España": [[BORDERS, "España", "0"], [SHARES, "España", "0"]],
        },
        "P36": {  # one template: no pairs
            "Francia-París": [["La capital de [X] es [Y]", "París", "0"]],
            "España-Madrid": [["La capital de [X] es [Y]", "Barcelona", "2"]],
        },
    },
    "fr": {
        "P19": {
            "Ana-Lyon": [["[X] est né à [Y]", "Lyon", "0"], ["[X] vient de [Y]", "Lyon", "0"]],
            "Jean-Paris": [["[X] est né à [Y]", "Lyon", "1"], ["[X] vient de [Y]", "Paris", "0"]],
        },
    },
}

# Worked by hand (per tuple: accuracy = right/T, consistency = equal pairs/(T(T-1)/2),
# consistency-accuracy = equal pairs that are also right / pairs; relation = mean over tuples;
# language = mean and population std over relations).
#
# mpararel — es/P19 keeps Jean-Paul (acc 2/3, cons 1/3, c-a 1/3) and Luis (2/3, 1/3, 1/3)
#            → acc 2/3, cons 1/3, c-a 1/3
#            es/P47 España-Francia (1/2, 0, 0), Portugal-España (1, 1, 1) → acc 3/4, cons 1/2, c-a 1/2
#            es/P36 one template → left out of everything
#            es: acc (2/3+3/4)/2 = 17/24 ± 1/24; cons (1/3+1/2)/2 = 5/12 ± 1/12; c-a 5/12 ± 1/12
#            fr/P19 Ana (1, 1, 1), Jean (1/2, 0, 0) → acc 3/4, cons 1/2, c-a 1/2 = fr, std 0
MPARAREL_RELATIONS = {
    ("es", "P19"): {"accuracy": 2 / 3, "consistency": 1 / 3, "accuracy-consistency": 1 / 3},
    ("es", "P47"): {"accuracy": 3 / 4, "consistency": 1 / 2, "accuracy-consistency": 1 / 2},
    ("fr", "P19"): {"accuracy": 3 / 4, "consistency": 1 / 2, "accuracy-consistency": 1 / 2},
}
MPARAREL_LANGUAGES = {
    "es": {"accuracy": (17 / 24, 1 / 24), "consistency": (5 / 12, 1 / 12), "accuracy-consistency": (5 / 12, 1 / 12)},
    "fr": {"accuracy": (3 / 4, 0.0), "consistency": (1 / 2, 0.0), "accuracy-consistency": (1 / 2, 0.0)},
}
# pararel — es/P19 keeps all four tuples: Ana-Lyon (0, 1, 0), Ana-París (1/3, 1/3, 0)
#            → acc (2/3+2/3+0+1/3)/4 = 5/12, cons (1/3+1/3+1+1/3)/4 = 1/2, c-a (1/3+1/3)/4 = 1/6
#            es/P47 is N-M → determinism 1/2 only; es/P36 → accuracy 1/2 only
#            es: acc (5/12+1/2)/2 = 11/24 ± 1/24; cons 1/2 (P19 alone); c-a 1/6; determinism 1/2
CURATOR_NAMES = {"accuracy": "accuracy", "consistency": "consistency", "accuracy-consistency": "consistency_accuracy"}


def published_evaluation(folder: Path, remove_repeated_subjects: bool = True):
    """({(lang, rel): {metric: value}}, {lang: {metric: (mean, std)}}), as the published code computes them.

    Its rules: the templates of a relation are those listed for it (here: those in its file);
    a relation with fewer than two is skipped; with remove_repeated_subjects every key whose
    text before the first '-' occurs in more than one key is dropped; per tuple the metrics
    are counted over all pairs i<j of its predictions, compared as strings, a pair counting
    for accuracy-consistency when equal and the first is right (rank "0"); a relation is the
    mean over its kept tuples (none kept: no values); a language is numpy.average and
    numpy.std (ddof 0) over its relations; N-M relations are not treated apart.
    """
    per_relation, per_language = {}, {}
    for lang_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        collected: dict[str, list[float]] = {}
        for path in sorted(lang_dir.glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            templates = {row[0] for rows in data.values() for row in rows}
            if len(templates) < 2:
                continue
            first_word = [key.split("-")[0] for key in data]
            sums = {"accuracy": 0.0, "consistency": 0.0, "accuracy-consistency": 0.0}
            kept = 0
            for key, rows in data.items():
                if remove_repeated_subjects and first_word.count(key.split("-")[0]) > 1:
                    continue
                rows = [r for r in rows if r[0] in templates]
                n = len(rows)
                pairs = n * (n - 1) / 2
                equal = sum(rows[i][1] == rows[j][1] for i in range(n) for j in range(i + 1, n))
                equal_right = sum(
                    rows[i][1] == rows[j][1] and rows[i][2] == "0" for i in range(n) for j in range(i + 1, n)
                )
                sums["accuracy"] += sum(r[2] == "0" for r in rows) / n
                sums["consistency"] += equal / pairs
                sums["accuracy-consistency"] += equal_right / pairs
                kept += 1
            if not kept:
                continue
            values = {m: s / kept for m, s in sums.items()}
            per_relation[lang_dir.name, path.stem] = values
            for m, v in values.items():
                collected.setdefault(m, []).append(v)
        per_language[lang_dir.name] = {m: (fmean(vs), pstdev(vs)) for m, vs in collected.items()}
    return per_relation, per_language


@pytest.fixture
def published(tmp_path: Path) -> Path:
    folder = tmp_path / "published"
    for lang, relations in PREDICTIONS.items():
        (folder / lang).mkdir(parents=True)
        for rel, data in relations.items():
            (folder / lang / f"{rel}.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return folder


def test_the_reimplementation_gives_the_hand_computed_numbers(published: Path):
    per_relation, per_language = published_evaluation(published)
    assert per_relation.keys() == MPARAREL_RELATIONS.keys()  # P36 (one template) is skipped
    for key, want in MPARAREL_RELATIONS.items():
        assert per_relation[key] == pytest.approx(want, abs=1e-12), key
    for lang, want in MPARAREL_LANGUAGES.items():
        for metric, (mean, std) in want.items():
            assert per_language[lang][metric] == pytest.approx((mean, std), abs=1e-12), (lang, metric)
    # without the filter Ana's tuples count: es/P19 consistency (1/3+1/3+1+1/3)/4
    assert published_evaluation(published, False)[0]["es", "P19"]["consistency"] == pytest.approx(1 / 2)


def cli_json(*args) -> dict:
    out = CliRunner().invoke(main, ["metrics", *map(str, args), "--json"])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


@pytest.mark.parametrize("imported", [False, True])
def test_mpararel_convention_reproduces_the_published_evaluation(published: Path, tmp_path: Path, imported: bool):
    run = published
    if imported:  # the same predictions converted into a run folder of ours
        run = tmp_path / "imported"
        import_mpararel(published, run)
    want_relations, want_languages = published_evaluation(published)
    by_relation = cli_json(run, "--convention", "mpararel", "--by", "relation")
    assert by_relation["convention"]["name"] == "mpararel"
    for (lang, rel), want in want_relations.items():
        got = by_relation["by_relation"][lang][rel]
        for metric, value in want.items():
            assert got[CURATOR_NAMES[metric]] == pytest.approx(value, abs=1e-12), (lang, rel, metric)
    assert by_relation["by_relation"]["es"]["P36"]["accuracy"] is None  # shown, but left out
    by_language = cli_json(run, "--convention", "mpararel")["by_language"]
    assert by_language.keys() == want_languages.keys()
    for lang, want in want_languages.items():
        for metric, (mean, std) in want.items():
            got = by_language[lang][CURATOR_NAMES[metric]]
            assert (got["mean"], got["std"]) == pytest.approx((mean, std), abs=1e-12), (lang, metric)
            assert got["relations"] == (2 if lang == "es" else 1)
        assert by_language[lang]["determinism"]["mean"] is None


def test_pararel_and_mpararel_differ_where_they_should(published: Path):
    pararel = cli_json(published)  # the default
    mpararel = cli_json(published, "--convention", "mpararel")
    assert pararel["convention"]["name"] == "pararel" and "P47" in pararel["convention"]["nm_relations"]
    assert mpararel["convention"]["nm_relations"] == []
    es, es_m = pararel["by_language"]["es"], mpararel["by_language"]["es"]
    # N-M P47: determinism only under pararel, in every average under mpararel
    assert es["determinism"] == {"mean": pytest.approx(0.5), "std": 0.0, "relations": 1}
    # P19 under ParaRel's code: one subject per label, the last tuple's (Ana-París): 1 equal pair of 3 each
    assert es["consistency"] == {"mean": pytest.approx(1 / 3), "std": 0.0, "relations": 1}
    assert es_m["consistency"]["mean"] == pytest.approx(5 / 12) and es_m["consistency"]["relations"] == 2
    # P36 (one template) counts for accuracy and consistent-acc under pararel only; accuracy outside
    # English is the mean over templates of every tuple (P19: 5 of 12, P36: 1 of 2; the first template's
    # only in English), consistent-acc every template right (none in P19; P36: its accuracy)
    assert es["accuracy"]["mean"] == pytest.approx(11 / 24) and es["accuracy"]["std"] == pytest.approx(1 / 24)
    assert es["consistency_accuracy"] == {"mean": 0.25, "std": 0.25, "relations": 2}
    assert es_m["accuracy"]["mean"] == pytest.approx(17 / 24)
    # French has one N-1 relation, no repeated subject and two templates: the conventions differ only in
    # Unk-Const, which ParaRel's code reports as 0 when every subject is known (accuracy outside English
    # is the mean over templates under both: 3 of 4)
    fr, fr_m = pararel["by_language"]["fr"], mpararel["by_language"]["fr"]
    assert (fr.pop("accuracy")["mean"], fr_m.pop("accuracy")["mean"]) == (0.75, 0.75)
    assert (fr.pop("unk_const")["mean"], fr_m.pop("unk_const")["mean"]) == (0.0, None)
    assert fr == fr_m
    # --nm-relations '' with pararel removes the N-M split but not the other two differences
    flat = cli_json(published, "--nm-relations", "")["by_language"]["es"]
    # (P19: Ana kept, her last tuple's; P36 counted for accuracy); consistency: (1/3 + 1/2) / 2 for both,
    # by chance, since P19 with Ana's last tuple has P19's value without her
    assert flat["consistency"]["relations"] == 2 and flat["consistency"]["mean"] == pytest.approx(5 / 12)
    assert (flat["accuracy"]["relations"], es_m["accuracy"]["relations"]) == (3, 2)
    # P19, P47, P36: the mean over templates (Spanish: the first template is no LAMA pattern)
    assert flat["accuracy"]["mean"] == pytest.approx((5 / 12 + 3 / 4 + 1 / 2) / 3)


def test_tables_name_their_convention_and_bad_conventions_are_usage_errors(published: Path, tmp_path: Path):
    cli = CliRunner()
    for convention, words in (
        ("pararel", "N-M relations count only as determinism"),
        ("mpararel", "N-M included, in every average"),
    ):
        out = cli.invoke(main, ["metrics", str(published), "--convention", convention])
        assert out.exit_code == 0 and out.output.startswith(f"convention: {convention} — ") and words in out.output
        cmp = cli.invoke(
            main, ["compare", str(published), str(published), "--bootstrap", "20", "--convention", convention]
        )
        assert cmp.exit_code == 0 and cmp.output.startswith(f"convention: {convention} — ")
    data = json.loads(
        cli.invoke(
            main, ["compare", str(published), str(published), "--bootstrap", "20", "--json", "--convention", "mpararel"]
        ).output
    )
    assert data["convention"]["name"] == "mpararel" and data["by_language"]["es"]["consistency"]["relations"] == 2
    for command in (
        ["metrics", str(published)],
        ["compare", str(published), str(published)],
        ["report", str(published), str(tmp_path / "r")],
    ):
        bad = cli.invoke(main, [*command, "--convention", "elazar"])
        assert bad.exit_code == 2 and "Invalid value for '--convention'" in bad.output, command
        assert "Traceback" not in bad.output
        both = cli.invoke(main, [*command, "--convention", "mpararel", "--nm-relations", "P47"])
        assert both.exit_code == 2 and "--nm-relations applies to --convention pararel only" in both.output
    assert help_names_both(cli.invoke(main, ["metrics", "--help"]).output)
    with pytest.raises(ValueError, match="unknown convention 'x': choose pararel or mpararel"):
        parse("x")


def help_names_both(text: str) -> bool:
    flat = " ".join(text.split())
    return "pararel: N-M relations only as determinism" in flat and "mpararel: every relation" in flat


def test_compare_follows_the_convention(published: Path):
    pararel = {(r.language, r.metric): r for r in compare_runs(published, published, replicates=20)}
    mpararel = {
        (r.language, r.metric): r
        for r in compare_runs(published, published, replicates=20, convention=Convention.MPARAREL)
    }
    # P19: ParaRel's consistency counts Ana once (her last tuple), so 3 of its 4 tuples carry pairs
    assert pararel["es", "consistency"].relations == 1 and pararel["es", "consistency"].tuples == 3
    assert pararel["es", "consistency"].a == pytest.approx(1 / 3)  # what `curator metrics` gives
    assert pararel["es", "accuracy"].a == pytest.approx(11 / 24)  # the mean over templates outside English
    assert pararel["es", "accuracy"].relations == 2  # P19 and the one-template P36
    assert mpararel["es", "consistency"].relations == 2 and mpararel["es", "consistency"].tuples == 4  # 2 + 2
    assert mpararel["es", "consistency"].a == pytest.approx(5 / 12)
    assert mpararel["es", "accuracy"].relations == 2  # P19 and P47; the one-template P36 is left out


def test_repeated_subjects_are_dropped_by_the_published_key_rule_with_their_arrays():
    predicted = np.array([[0, 1, 2, 1, 0, 1], [0, 2, 2, 1, 1, 0]], dtype=np.int32)
    gold = np.array([0, 1, 2, 1, 0, 1], dtype=np.int32)
    # Q1 occurs with two objects; Q3 twice with the same one (one key: kept); Q5 "Jean-Paul" and
    # Q6 "Jean-Luc" are different people but one subject ("Jean") to the published evaluation;
    # Q7 and Q8 share the label "Marie" with different objects: one subject by label there
    rel = RelationPredictions(
        "xx",
        "P19",
        ["t0", "t1"],
        [("Q1", "a"), ("Q1", "a"), ("Q3", "c"), ("Q3", "c"), ("Q5", "Jean-Paul"), ("Q6", "Jean-Luc")],
        ["O0", "O1", "O2", "O2", "O0", "O1"],
        [("O0", "x"), ("O1", "y"), ("O2", "z")],
        predicted,
        predicted == gold,
        gold,
        np.zeros((2, 6, 3), dtype=np.int32),
        np.zeros((2, 6), np.int32),
    )
    kept = drop_repeated_subjects(rel)
    assert kept.subjects == [("Q3", "c"), ("Q3", "c")] and kept.objects == ["O2", "O2"]
    assert kept.predicted.tolist() == [[2, 1], [2, 1]] and kept.gold.tolist() == [2, 1]
    assert kept.ranking.shape == (2, 2, 3) and kept.gold_rank.shape == (2, 2) and kept.correct.shape == (2, 2)
    assert rel.shape == (2, 6)  # the original is untouched
    same_label = dataclasses.replace(rel, subjects=[("Q7", "Marie"), ("Q8", "Marie")] + rel.subjects[2:])
    assert drop_repeated_subjects(same_label).subjects == [("Q3", "c"), ("Q3", "c")]


def test_our_runs_under_both_conventions(tmp_path: Path):
    """A run of ours probed with --keep-repeated-subjects: mpararel drops the subject at metrics time."""
    predicted = np.array([[0, 1, 1], [0, 0, 1]], dtype=np.int32)
    gold = np.array([0, 1, 1], dtype=np.int32)
    rel = RelationPredictions(
        "de",
        "P19",
        ["t0", "t1"],
        [("Q1", "a"), ("Q2", "b"), ("Q2", "b")],
        ["O0", "O1", "O2"],
        [("O0", "x"), ("O1", "y"), ("O2", "z")],
        predicted,
        predicted == gold,
        gold,
    )
    save_relation(tmp_path, rel)
    (by_pararel, _), (by_mpararel, _) = (run_metrics(iter_relations(tmp_path), convention=c) for c in Convention)
    # pararel: ParaRel's code keys subjects by label, the last tuple's winning: a and b (1, 1) → 1;
    # mpararel: only Q1 (Q2 has objects O1 and O2) → 1
    assert by_pararel["de"]["consistency"]["mean"] == 1.0
    # outside English the mean over templates (5 of 6), not the first template's (t0: every tuple)
    assert by_pararel["de"]["accuracy"]["mean"] == pytest.approx(5 / 6)
    assert by_mpararel["de"]["consistency"]["mean"] == 1.0
    assert math.isnan(by_mpararel["de"]["determinism"]["mean"])

"""The `pararel` convention against an independent rewrite of what yanaiela/pararel's
encode_consistency_probe.py computes; full-precision JSON of `metrics` and `rankc`.

`pararel_reference` below shares no code with curator/analysis: it walks a relation the way
ParaRel's code does (patterns × a dictionary of subjects keyed by label, the article check,
every ordered pair of patterns), in plain Python floats, one pass per case:

- accuracy       its `lama_acc`: the first pattern's share of right rows (every row, no article check),
                 in English (en, en-GB …); in other languages curator's choice: the share of right
                 (pattern, row) pairs (ParaRel's data is English, its first pattern LAMA's)
- consistent-acc its `lama_group_acc`: the share of rows every pattern gets right (no article check);
                 with one pattern its accuracy (stored before its code divides by zero)
- consistency    right-or-wrong agreement over every ordered pair of patterns both kept for a subject,
                 summed over subjects (a subject label counts once: its last row)
- succ-patt      share of patterns, among those kept for some subject, right for one of them
- succ-objs      share of subjects, among those with a kept pattern, right under one of them
- know-/unk-const consistency's sums over the subjects with / without a right kept pattern; 0 when
                 that side has no pair (as the code reports it)
A pattern is not kept for a subject when, in an English template, the word right before the
word holding [Y] is "a" and the object's label starts with a vowel (a e i o u, any case), or is
"an" and it does not. N-M relations: consistency only, as determinism.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from curator.analysis.convention import Convention, as_record
from curator.analysis.metrics import MAIN, relation_metrics, run_metrics, tuple_parts
from curator.analysis.rankc import run_rankc
from curator.cli import main
from curator.core.formats.runs import RelationPredictions, iter_relations, save_relation

PARAREL = ("consistency", "accuracy", "consistency_accuracy", "succ_patt", "succ_objs", "know_const", "unk_const")
NAN = float("nan")

# the article right before the word holding [Y]: " a " / " an " as whole space-separated words
ARTICLE = re.compile(r"(?:^| )(a|an) [^ ]*\[Y\]")


def english(language: str) -> bool:
    return re.split(r"[-_]", language)[0].lower() == "en"


def skipped(language: str, pattern: str, obj: str | None) -> bool:
    if not english(language) or obj is None:  # an unknown object label: nothing to check the article on
        return False
    found = ARTICLE.search(pattern)
    if found is None:
        return False
    starts_with_vowel = obj[:1].lower() in "aeiou" and obj != ""
    return starts_with_vowel if found.group(1) == "a" else not starts_with_vowel


def pararel_reference(language, patterns, rows, preds, nm=False):
    """rows: [(subject label, gold object label)]; preds[p][r]: the object label pattern p predicts for row r."""
    n = len(rows)
    out = dict.fromkeys(PARAREL, NAN)
    if not nm:
        if english(language):
            out["accuracy"] = sum(preds[0][r] == rows[r][1] for r in range(n)) / n
        else:
            out["accuracy"] = sum(sum(p[r] == rows[r][1] for p in preds) / len(preds) for r in range(n)) / n
        out["consistency_accuracy"] = sum(all(p[r] == rows[r][1] for p in preds) for r in range(n)) / n
    row_of = {}
    for r, (subject, _) in enumerate(rows):
        row_of[subject] = r  # the last row of a subject label wins, as in a dictionary
    right_subject, right_pattern, agree = {}, {}, {}
    for p, pattern in enumerate(patterns):
        for subject, r in row_of.items():
            gold = rows[r][1]
            if skipped(language, pattern, gold):
                continue
            hit = preds[p][r] == gold
            right_subject[subject] = right_subject.get(subject, False) or hit
            right_pattern[p] = right_pattern.get(p, False) or hit
            for q, other in enumerate(patterns):
                if q != p and not skipped(language, other, gold):
                    agree.setdefault(subject, []).append(preds[p][r] == preds[q][r])
    total = sum(len(v) for v in agree.values())
    consistency = sum(sum(v) for v in agree.values()) / total if total else NAN
    if nm:
        return {**out, "determinism": consistency}
    out["consistency"] = consistency
    out["succ_patt"] = sum(right_pattern.values()) / len(right_pattern) if right_pattern else NAN
    out["succ_objs"] = sum(right_subject.values()) / len(right_subject) if right_subject else NAN
    for name, side in (("know_const", True), ("unk_const", False)):
        pairs = [x for s, v in agree.items() if right_subject[s] == side for x in v]
        out[name] = (sum(pairs) / len(pairs) if pairs else 0.0) if total else NAN
    return out


def relation(language, patterns, rows, preds, objects, name="P19") -> RelationPredictions:
    """The same case as curator reads it: candidate ids O0…, one per object label."""
    index = {label: i for i, label in enumerate(objects)}
    gold = np.array([index[o] for _, o in rows], dtype=np.int32)
    predicted = np.array([[index[x] for x in p] for p in preds], dtype=np.int32)
    return RelationPredictions(
        language,
        name,
        list(patterns),
        [(f"Q{r}", subject) for r, (subject, _) in enumerate(rows)],
        [f"O{g}" for g in gold],
        [(f"O{i}", label) for i, label in enumerate(objects)],
        predicted,
        predicted == gold[None, :],
        gold,
    )


def same(got: float, want: float) -> bool:
    return (math.isnan(got) and math.isnan(want)) or got == want


PATTERNS = [
    "[X] was born in [Y].",
    "[X] is a [Y]-born writer.",
    "[X] is an [Y]-born writer.",
    "[X] plays a [Y] .",
    "[X] is an [Y] by profession.",
    "A [Y] is what [X] plays.",
    "[Y] is where [X] was born.",
    "[X] is a  [Y] citizen.",
    "[X] se mudó a [Y].",
]
OBJECTS = ["Italy", "France", "actor", "Oslo", "hour", "Umbria", "Yemen", "university", "Élan", "England", "piano"]


@st.composite
def cases(draw):
    language = draw(st.sampled_from(["en", "en", "en-GB", "es"]))
    patterns = draw(st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=5, unique=True))
    objects = draw(st.lists(st.sampled_from(OBJECTS), min_size=2, max_size=5, unique=True))
    n = draw(st.integers(1, 8))
    subjects = st.sampled_from(["Ana", "Ben", "Cy", "Dee", "Eve"])
    rows = [(draw(subjects), draw(st.sampled_from(objects))) for _ in range(n)]
    preds = [[draw(st.sampled_from(objects)) for _ in range(n)] for _ in patterns]
    return language, patterns, rows, preds, objects, draw(st.booleans())


@settings(max_examples=300, deadline=None)
@given(cases())
def test_pararel_convention_equals_pararels_code(case):
    language, patterns, rows, preds, objects, nm = case
    want = pararel_reference(language, patterns, rows, preds, nm)
    _, by_relation = run_metrics([relation(language, patterns, rows, preds, objects)], ["P19"] if nm else [])
    got = by_relation[language]["P19"]
    for name in ("determinism", *PARAREL) if nm else PARAREL:
        if name == "accuracy" and not english(language) and not nm:  # a mean of means: summation order
            assert got[name] == pytest.approx(want[name], rel=1e-12), (name, got[name], want[name])
            continue
        assert same(got[name], want[name]), (name, got[name], want[name])
    # what compare's bootstrap resamples sums to the same values, under either convention
    rel = relation(language, patterns, rows, preds, objects)
    for convention in Convention:
        values = relation_metrics(rel, convention=convention)
        for name, (num, den) in tuple_parts(rel, convention).items():
            assert same(num.sum() / den.sum() if den.sum() else NAN, values[name]), (convention, name)
    assert set(MAIN) <= set(PARAREL)


# ----------------------------------------------------------- named regressions: the two causes
def test_consistent_acc_counts_a_subject_only_when_every_template_is_right():
    """ParaRel's Consistent-Acc (`lama_group_acc`), not mParaRel's pairs equal and right (fails before #39)."""
    objects = ["Paris", "Lyon"]
    rows = [("Ana", "Paris"), ("Ben", "Lyon")]
    preds = [["Paris", "Lyon"], ["Paris", "Lyon"], ["Lyon", "Lyon"]]  # Ana: 2 of 3 right, Ben: all
    templates = ["[X] was born in [Y].", "[X] comes from [Y].", "[X] lives in [Y]."]
    got = relation_metrics(relation("en", templates, rows, preds, objects))
    assert got["consistency_accuracy"] == 0.5  # mParaRel's formula: (1/3 + 1) / 2
    assert got["accuracy"] == 1.0  # the first template's: both right (mParaRel's: 5/6)


def test_english_articles_skip_a_template_for_objects_they_do_not_fit():
    """The template "a [Y]-born" is skipped for Italy, as ParaRel's code does (fails before #39)."""
    templates = ["[X] was born in [Y].", "[X] is a [Y]-born writer.", "[X] comes from [Y]."]
    objects = ["Italy", "France", "Spain"]
    rows = [("Ana", "Italy"), ("Ben", "France")]
    preds = [["Italy", "France"], ["Italy", "Spain"], ["Italy", "Spain"]]
    got = relation_metrics(relation("en", templates, rows, preds, objects))
    # Ana: template 1 skipped, templates 0 and 2 agree (1 of 1); Ben: 1 of 3 → 2 / 4
    assert got["consistency"] == 0.5
    assert got["succ_patt"] == pytest.approx(2 / 3)  # template 1 is right only where it is skipped
    assert got["know_const"] == 0.5 and got["unk_const"] == 0.0
    # Spanish templates: "a" is no article there, nothing is skipped (mean of 1 and 1/3)
    spanish = relation_metrics(relation("es", templates, rows, preds, objects))
    assert spanish["consistency"] == pytest.approx(2 / 3) and spanish["succ_patt"] == 1.0


# ------------------------------------------------- named cases of the review of issue 39 (P2-4, P2-9)
def test_one_template_gives_accuracy_and_consistent_acc_and_no_consistency():
    """T=1: ParaRel's main stores lama_acc and lama_group_acc before its consistency divides by
    zero; curator gives both (equal), and no consistency (NaN before the fix for consistent-acc)."""
    rows, objects = [("Ana", "Paris"), ("Ben", "Lyon")], ["Paris", "Lyon"]
    got = relation_metrics(relation("en", ["[X] was born in [Y]."], rows, [["Paris", "Paris"]], objects))
    assert got["accuracy"] == got["consistency_accuracy"] == 0.5
    assert math.isnan(got["consistency"]) and math.isnan(got["know_const"])
    want = pararel_reference("en", ["[X] was born in [Y]."], rows, [["Paris", "Paris"]])
    assert all(same(got[name], want[name]) for name in PARAREL)


def test_accuracy_is_the_first_templates_in_english_only():
    """lama_acc in English (en-GB too); the mean over templates in other languages, where the first
    template is an arbitrary translation (the first template's before the fix)."""
    rows, objects = [("Ana", "Paris"), ("Ben", "Lyon")], ["Paris", "Lyon"]
    preds = [["Paris", "Lyon"], ["Lyon", "Paris"], ["Lyon", "Lyon"]]
    templates = ["[X] was born in [Y].", "[X] comes from [Y].", "[X] lives in [Y]."]
    for language, want in (("en", 1.0), ("en-GB", 1.0), ("es", 0.5), ("fr", 0.5)):
        assert relation_metrics(relation(language, templates, rows, preds, objects))["accuracy"] == want, language
    said = as_record(Convention.PARAREL)["averages"]  # what --json and the tables' first line say
    assert "the first template's in English" in said and "the mean over templates in other languages" in said


def test_an_unknown_gold_label_keeps_every_template():
    """A gold object that is no candidate (label unknown, gold -1): the article rule has nothing to
    read, so "an [Y]" is kept for that subject; nothing is right for it."""
    templates = ["[X] is an [Y] by profession.", "[X] plays a [Y] ."]
    rel = relation(
        "en",
        templates,
        [("Ana", "actor"), ("Ben", "piano")],
        [["actor", "piano"], ["actor", "piano"]],
        ["actor", "piano"],
    )
    rel.objects[1] = "Q-unknown"  # Ben's gold is no candidate
    rel.gold[1] = -1
    rel.correct[:, 1] = False
    got = relation_metrics(rel)
    # Ana (actor, vowel): "a [Y]" skipped, one template kept → no pair; Ben (unknown): both kept, agree
    assert got["consistency"] == 1.0 and got["succ_objs"] == 0.5 and got["unk_const"] == 1.0
    assert got["accuracy"] == 0.5  # the first template's: Ana right, Ben never


def test_duplicate_candidate_labels_are_told_apart_by_entity_id():
    """Two candidates named "Paris" (the city, Q90, and the mythical prince, Q167646): curator
    compares predictions by entity id, ParaRel's code by string (docs/metrics.md)."""
    templates = ["[X] was born in [Y].", "[X] comes from [Y]."]
    rel = relation("en", templates, [("Ana", "Paris")], [["Paris"], ["Paris2"]], ["Paris", "Paris2"])
    rel.candidates[1] = ("O1", "Paris")  # the same label, another entity
    got = relation_metrics(rel)
    assert got["consistency"] == 0.0 and got["accuracy"] == 1.0 and got["consistency_accuracy"] == 0.0


# ------------------------------------------------------------------------ full precision in --json
def ranked_run(root):
    """Two languages, 7 candidates, rankings that give RankC and accuracies with many digits."""
    rng = np.random.default_rng(39)
    T, D, N = 3, 7, 7
    gold = rng.integers(0, N, size=D).astype(np.int32)
    for lang in ("en", "es"):
        ranking = np.array([[rng.permutation(N) for _ in range(D)] for _ in range(T)], dtype=np.int32)
        predicted = ranking[:, :, 0]
        save_relation(
            root,
            RelationPredictions(
                lang,
                "P19",
                [f"[X] t{t} [Y]." for t in range(T)],
                [(f"Q{d}", f"s{d}") for d in range(D)],
                [f"O{g}" for g in gold],
                [(f"O{i}", f"o{i}") for i in range(N)],
                predicted,
                predicted == gold[None, :],
                gold,
                ranking,
            ),
        )


def test_json_keeps_full_precision(tmp_path):
    ranked_run(tmp_path)
    cli = CliRunner()
    rankc = json.loads(cli.invoke(main, ["rankc", str(tmp_path), "--json"]).output)
    want = run_rankc(tmp_path)
    assert rankc["rankc"]["en"]["es"] == float(want.rankc[0, 1])
    assert rankc["coverlap"]["en"]["es"] == float(want.coverlap[0, 1])
    assert rankc["accuracy"] == want.accuracy
    assert float(want.rankc[0, 1]) != round(float(want.rankc[0, 1]), 6)  # more than 6 decimals to keep
    metrics = json.loads(cli.invoke(main, ["metrics", str(tmp_path), "--json", "--by", "relation"]).output)
    _, by_relation = run_metrics(iter_relations(tmp_path))
    for name, value in by_relation["es"]["P19"].items():
        assert metrics["by_relation"]["es"]["P19"][name] == (None if math.isnan(value) else value), name
    value = by_relation["es"]["P19"]["consistency"]
    assert value != round(value, 6)


@pytest.mark.parametrize(
    ("template", "label", "skip"),
    [
        ("[X] is a [Y]-born writer.", "Italy", True),
        ("[X] is a [Y]-born writer.", "France", False),
        ("[X] is an [Y] citizen.", "Oslo", False),
        ("[X] is an [Y] citizen.", "Spain", True),
        ("[X] plays a [Y] .", "university", True),  # u is a vowel to ParaRel's code
        ("[X] is an [Y] by profession.", "hour", True),  # h is not
        ("[X] is an [Y] by profession.", "Élan", True),  # nor É
        ("A [Y] is what [X] plays.", "organ", False),  # only lower-case "a"
        ("[Y] is where [X] was born.", "Italy", False),
        ("[X] is a  [Y] citizen.", "Italy", False),  # two spaces: the word before [Y] is empty
    ],
)
def test_article_rule_cases(template, label, skip):
    from curator.analysis.articles import kept, mismatch

    assert mismatch(template, label) is skip is skipped("en", template, label)
    assert kept("en", [template], [label]).tolist() == [[not skip]]
    assert kept("es", [template], [label]).tolist() == [[True]]

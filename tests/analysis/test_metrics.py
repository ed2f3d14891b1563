"""Metrics, RankC, run comparison and the mParaRel prediction format, on hand-computed cases."""

from __future__ import annotations

import itertools
import json
import math
import struct

import numpy as np
import pytest
from click.testing import CliRunner

from curator.analysis.compare import compare_runs
from curator.analysis.convention import Convention
from curator.analysis.metrics import equal_pairs, relation_metrics, run_metrics, template_agreement
from curator.analysis.rankc import consensus, consist, rankc_matrix, run_rankc, weights
from curator.cli import main
from curator.core.formats.runs import (
    RankingMissing,
    RelationPredictions,
    RunError,
    import_mpararel,
    iter_relations,
    load_relation,
    save_relation,
)


def make_relation(predicted, gold, language="xx", relation="P19", candidates=None, ranking=None, subjects=None):
    predicted = np.asarray(predicted, dtype=np.int32)
    gold = np.asarray(gold, dtype=np.int32)
    T, D = predicted.shape
    n = candidates if candidates is not None else int(max(predicted.max(), gold.max()) + 1)
    cands = [(f"Q{100 + i}", f"object {i}") for i in range(n)]
    subjects = subjects or [(f"Q{i}", f"subject {i}") for i in range(D)]
    return RelationPredictions(
        language,
        relation,
        [f"[X] template {t} [Y]." for t in range(T)],
        subjects,
        [cands[g][0] for g in gold],
        cands,
        predicted,
        predicted == gold[None, :],
        gold,
        ranking,
    )


# ------------------------------------------------------------------------------------------ ParaRel metrics
def test_hand_computed_relation():
    # 3 templates × 4 tuples; gold objects 0, 1, 2, 0
    predicted = [[0, 1, 3, 2], [0, 2, 3, 0], [0, 1, 2, 1]]
    rel = make_relation(predicted, [0, 1, 2, 0], language="en")
    m = relation_metrics(rel, convention=Convention.MPARAREL)
    # pairs per tuple: 3. equal pairs: t0: 3, t1: 1 (0,2), t2: 1 (0,1), t3: 0
    assert m["consistency"] == pytest.approx((3 + 1 + 1 + 0) / 12)
    # correct: t0 3/3, t1 2/3, t2 1/3, t3 1/3 → 7/12
    assert m["accuracy"] == pytest.approx(7 / 12)
    # equal and correct pairs: t0 3, t1 1, t2 0, t3 0
    assert m["consistency_accuracy"] == pytest.approx(4 / 12)
    # ParaRel's code: accuracy is the first template's (2 of 4 tuples), consistent-acc the share of
    # tuples every template gets right (t0 only); consistency is the same sum of pairs
    p = relation_metrics(rel)
    assert (p["accuracy"], p["consistency_accuracy"]) == (0.5, 0.25)
    assert p["consistency"] == pytest.approx(5 / 12)
    assert m["succ_patt"] == 1.0  # every template is right at least once
    assert m["succ_objs"] == 1.0
    assert m["know_const"] == pytest.approx(5 / 12)
    assert math.isnan(m["unk_const"])  # no tuple without a correct prediction
    assert m["majority"] == pytest.approx(2 / 4)  # object 0 is gold for 2 of 4 tuples
    assert math.isnan(m["determinism"])


def test_consistent_but_wrong_model():
    # every template answers object 3 for every tuple; gold is never 3
    m = relation_metrics(make_relation(np.full((4, 5), 3), [0, 1, 2, 0, 1]))
    assert m["consistency"] == 1.0
    assert m["accuracy"] == 0.0
    assert m["consistency_accuracy"] == 0.0
    assert m["succ_patt"] == 0.0 and m["succ_objs"] == 0.0
    assert m["unk_const"] == 1.0 and m["know_const"] == 0.0  # ParaRel's code reports 0 for "no such subject"
    mp = relation_metrics(make_relation(np.full((4, 5), 3), [0, 1, 2, 0, 1]), convention=Convention.MPARAREL)
    assert mp["unk_const"] == 1.0 and math.isnan(mp["know_const"])


def test_unknown_tuples_and_succ_patt():
    # template 2 is never right; tuple 1 is never known
    predicted = [[0, 5, 1], [0, 4, 1], [3, 4, 2]]
    m = relation_metrics(make_relation(predicted, [0, 1, 1]))
    assert m["succ_patt"] == pytest.approx(2 / 3)
    assert m["succ_objs"] == pytest.approx(2 / 3)
    assert m["know_const"] == pytest.approx((1 / 3 + 1 / 3) / 2)  # tuples 0 and 2: one equal pair of 3
    assert m["unk_const"] == pytest.approx(1 / 3)  # tuple 1: templates 1 and 2 agree on 4


def test_nm_relations_report_determinism_only():
    rel = make_relation([[0, 1], [0, 2]], [0, 1], relation="P47")
    m = relation_metrics(rel, nm=True)
    assert m["determinism"] == pytest.approx(0.5)
    assert math.isnan(m["consistency"]) and math.isnan(m["accuracy"])
    by_language, _ = run_metrics([rel, make_relation([[0, 1], [0, 1]], [0, 0])], nm_relations=["P47"])
    assert by_language["xx"]["determinism"]["mean"] == pytest.approx(0.5)
    assert by_language["xx"]["consistency"] == {"mean": 1.0, "std": 0.0, "relations": 1}
    by_language, _ = run_metrics([rel], nm_relations=[])
    assert by_language["xx"]["consistency"]["mean"] == pytest.approx(0.5)


def test_macro_average_and_population_std():
    a = make_relation([[0, 0], [0, 0]], [0, 0], relation="P1")  # accuracy 1
    b = make_relation([[1, 1], [1, 1]], [0, 0], relation="P2")  # accuracy 0
    c = make_relation([[1], [0]], [0], relation="P3")  # accuracy 0.5 (pararel too outside English)
    by_language, by_relation = run_metrics([a, b, c], nm_relations=[], convention=Convention.MPARAREL)
    acc = by_language["xx"]["accuracy"]
    assert acc["mean"] == pytest.approx(0.5)
    assert acc["std"] == pytest.approx(np.std([1.0, 0.0, 0.5]))  # population std, as mParaRel
    assert set(by_relation["xx"]) == {"P1", "P2", "P3"}


def test_single_template_relation_has_no_consistency():
    m = relation_metrics(make_relation([[0, 1]], [0, 0]))
    assert math.isnan(m["consistency"]) and m["accuracy"] == 0.5


def test_equal_pairs_matches_brute_force():
    rng = np.random.default_rng(1)
    P = rng.integers(0, 4, size=(7, 50))
    brute = [sum(P[i, d] == P[j, d] for i, j in itertools.combinations(range(7), 2)) for d in range(50)]
    assert equal_pairs(P).tolist() == brute


def test_template_agreement():
    # template 2 disagrees with the others everywhere
    rel = make_relation([[0, 1, 2], [0, 1, 2], [3, 3, 3]], [0, 1, 2])
    assert template_agreement(rel).tolist() == pytest.approx([0.5, 0.5, 0.0])


# ------------------------------------------------------------------------------------------ RankC
def test_rankc_appendix_d_example():
    """Qi et al. 2023, appendix D: en (Italian, English, Russian) vs es (italiano, ruso, inglés)."""
    italian, english, russian = 0, 1, 2
    en = np.array([[italian, english, russian]])
    es = np.array([[italian, russian, english]])
    assert weights(3).round(2).tolist() == [0.67, 0.24, 0.09]
    assert consist(en, es)[0] == pytest.approx(0.8776357644726012, abs=1e-15)
    assert consist(en, en)[0] == pytest.approx(1.0)


def brute_consist(a, b):
    n = len(a)
    w = [math.exp(n - j) for j in range(1, n + 1)]
    return sum(w[j - 1] / sum(w) * len(set(a[:j]) & set(b[:j])) / j for j in range(1, n + 1))


@pytest.mark.parametrize("n", [1, 2, 7, 40, 41, 300])
def test_rankc_consist_matches_the_formula(n):
    rng = np.random.default_rng(n)
    a = np.array([rng.permutation(n) for _ in range(20)])
    b = a.copy()
    b[10:] = [rng.permutation(n) for _ in range(10)]  # half identical, half random
    b[5] = a[5][::-1]
    got = consist(a, b)
    want = [brute_consist(list(x), list(y)) for x, y in zip(a, b)]
    assert got == pytest.approx(want, abs=1e-12)


def test_consensus_orders_by_mean_rank():
    ranking = np.array([[[0, 1, 2]], [[1, 0, 2]], [[1, 2, 0]]])  # mean ranks: 0→1.33, 1→0.33, 2→1.33
    assert consensus(ranking).tolist() == [[1, 0, 2]]


def test_rankc_matrix_matches_by_entity_id_and_restricts_candidates():
    # en has candidates Q100..Q102; fr has Q101, Q102, Q103 (Q100 missing, Q103 extra), other labels
    subjects = [("Q1", "s1"), ("Q2", "s2")]
    en = RelationPredictions(
        "en",
        "P19",
        ["[X] in [Y]."],
        subjects,
        ["Q101", "Q102"],
        [("Q100", "a"), ("Q101", "b"), ("Q102", "c")],
        np.array([[1, 0]]),
        np.array([[True, False]]),
        np.array([1, 2]),
        np.array([[[1, 0, 2], [0, 2, 1]]]),
    )
    # fr lists subjects in another order, ranks by its own candidate indices
    fr = RelationPredictions(
        "fr",
        "P19",
        ["[X] à [Y]."],
        subjects[::-1],
        ["Q102", "Q101"],
        [("Q101", "B"), ("Q102", "C"), ("Q103", "D")],
        np.array([[2, 0]]),
        np.array([[False, True]]),
        np.array([1, 0]),
        np.array([[[2, 1, 0], [0, 2, 1]]]),
    )
    result = rankc_matrix([{"en": en, "fr": fr}], ["en", "fr"])
    # shared candidates Q101, Q102. fact Q1: en (Q101, Q102) vs fr (Q101, Q102) → 1
    # fact Q2: en (Q102, Q101) vs fr (Q102, Q101) → 1
    assert result.rankc[0, 1] == pytest.approx(1.0)
    # consensus top 1: en fact Q1 Q101 ✓, Q2 Q100 ✗; fr fact Q2 Q103 ✗, Q1 Q101 ✓ → both 1, either 1
    assert result.coverlap[0, 1] == pytest.approx(1.0)
    assert result.queries[0, 1] == 2
    fr.ranking = np.array([[[2, 0, 1], [0, 2, 1]]])  # fact Q2 now (Q103, Q101, Q102) → shared (Q101, Q102)
    result = rankc_matrix([{"en": en, "fr": fr}], ["en", "fr"])
    w = weights(2)
    assert result.rankc[0, 1] == pytest.approx((1 + (0 * w[0] + 1 * w[1])) / 2)
    assert result.rankc[1, 0] == result.rankc[0, 1]


def test_rankc_needs_rankings(tmp_path):
    save_relation(tmp_path, make_relation([[0, 1]], [0, 1], language="en"))
    save_relation(tmp_path, make_relation([[0, 1]], [0, 1], language="fr"))
    with pytest.raises(RankingMissing, match="no stored rankings"):
        run_rankc(tmp_path)


# ------------------------------------------------------------------------------------------ formats
def random_run(rng, out, languages=("en", "es"), relations=("P19", "P36"), T=4, D=30, N=12, skill=0.5):
    golds = {
        rel: np.random.default_rng(int(rel[1:])).integers(0, N, size=D) for rel in relations
    }  # same facts everywhere
    for lang in languages:
        for rel in relations:
            gold = golds[rel]
            ranking = np.array([[rng.permutation(N) for _ in range(D)] for _ in range(T)], dtype=np.int32)
            # put the gold object first with probability `skill`
            for t in range(T):
                for d in range(D):
                    if rng.random() < skill:
                        row = list(ranking[t, d])
                        row.remove(gold[d])
                        ranking[t, d] = [gold[d]] + row
            rel_pred = make_relation(ranking[:, :, 0], gold, language=lang, relation=rel, candidates=N, ranking=ranking)
            save_relation(out, rel_pred)


def to_mpararel(run, out):
    """Write a run's predictions in the published mParaRel prediction format."""
    for rel in iter_relations(run, with_ranking=True):
        data = {}
        for d, ((_, subject), obj) in enumerate(zip(rel.subjects, rel.objects)):
            label = dict(rel.candidates)[obj]
            data[f"{subject}-{label}"] = [
                [
                    rel.templates[t],
                    rel.candidates[rel.predicted[t, d]][1],
                    str(int(np.argmax(rel.ranking[t, d] == rel.gold[d]))),
                ]
                for t in range(rel.shape[0])
            ]
        folder = out / rel.language
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{rel.relation}.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def same(a, b) -> bool:
    """Equal nested metric dicts, NaN equal to NaN."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == pytest.approx(b, abs=1e-12)


def test_mpararel_format_gives_the_same_metrics(tmp_path):
    rng = np.random.default_rng(7)
    ours, theirs, imported = tmp_path / "ours", tmp_path / "mpararel", tmp_path / "imported"
    random_run(rng, ours, relations=("P19", "P36", "P47"))
    to_mpararel(ours, theirs)
    want = run_metrics(iter_relations(ours))
    assert same(run_metrics(iter_relations(theirs)), want)  # read directly
    assert import_mpararel(theirs, imported) == 6
    assert same(run_metrics(iter_relations(imported)), want)  # and after conversion
    assert load_relation(imported / "en" / "P19.json").ranking is None


def test_mpararel_small_fixture(tmp_path):
    """Two templates, two tuples, labels with hyphens: accuracy 1/2, consistency 1/2, c-a 1/2."""
    folder = tmp_path / "es"
    folder.mkdir()
    (folder / "P19.json").write_text(
        json.dumps(
            {
                "Jean-Paul-Saint-Denis": [
                    ["[X] nació en [Y].", "Saint-Denis", "0"],
                    ["[Y] es donde nació [X].", "Saint-Denis", "0"],
                ],
                "Ana-Lyon": [["[X] nació en [Y].", "París", "3"], ["[Y] es donde nació [X].", "Saint-Denis", "1"]],
            }
        ),
        encoding="utf-8",
    )
    rel = load_relation(folder / "P19.json")
    assert rel.subjects[0][1] == "Jean-Paul" and rel.objects == ["Saint-Denis", "Lyon"]
    m = relation_metrics(rel)
    assert (m["accuracy"], m["consistency"], m["consistency_accuracy"]) == (0.5, 0.5, 0.5)


@pytest.mark.parametrize(
    "content, message",
    [
        ("{", "P19.json: line 1: not valid JSON"),
        ('{"a-b": [["t", "b"]]}', "entry 'a-b', item 1: expected [template, prediction, rank]"),
        ('{"a-b": [["t", "b", "x"]]}', "rank 'x' is not an integer"),
        ('{"a-b": [["t", "b", "0"]], "c-d": [["u", "d", "0"]]}', "has no prediction for template"),
    ],
)
def test_bad_prediction_files_name_file_and_entry(tmp_path, content, message):
    (tmp_path / "es").mkdir()
    (tmp_path / "es" / "P19.json").write_text(content, encoding="utf-8")
    with pytest.raises(RunError, match=message.replace("[", r"\[").replace("]", r"\]")):
        list(iter_relations(tmp_path))


# ------------------------------------------------------------------------------------------ compare
def test_compare_identical_runs_and_a_better_run(tmp_path):
    rng = np.random.default_rng(3)
    a, b = tmp_path / "a", tmp_path / "b"
    random_run(np.random.default_rng(3), a, D=200, skill=0.2)
    random_run(np.random.default_rng(3), b, D=200, skill=0.2)
    rows = compare_runs(a, a, replicates=200)
    assert {(r.language, r.metric) for r in rows} == {
        (lang, m) for lang in ("en", "es") for m in ("consistency", "accuracy", "consistency_accuracy")
    }
    assert all(r.diff == 0 and r.low == 0 and r.high == 0 and not r.significant for r in rows)
    # b: the same facts, but every template of every tuple right → accuracy 1
    for rel in iter_relations(b, with_ranking=True):
        rel.predicted = np.broadcast_to(rel.gold, rel.predicted.shape).copy()
        rel.correct = np.ones_like(rel.correct)
        rel.gold_rank = np.zeros(rel.shape, dtype=np.int32)
        save_relation(b, rel)
    rows = {(r.language, r.metric): r for r in compare_runs(a, b, replicates=200, seed=rng.integers(100))}
    acc = rows["en", "accuracy"]
    assert acc.b == 1.0 and acc.a < 0.5 and acc.diff == pytest.approx(acc.b - acc.a)
    assert acc.significant and acc.low > 0 and acc.low <= acc.diff <= acc.high
    assert acc.tuples == 400 and acc.relations == 2


# ------------------------------------------------------------------------------------------ CLI
def test_cli_metrics_rankc_compare_import(tmp_path):
    rng = np.random.default_rng(11)
    run = tmp_path / "run"
    random_run(rng, run, languages=("en", "es", "ar"))
    cli = CliRunner()
    out = cli.invoke(main, ["metrics", str(run), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["convention"]["name"] == "pararel" and "P47" in data["convention"]["nm_relations"]
    data = data["by_language"]
    assert set(data) == {"ar", "en", "es"}
    by_language, _ = run_metrics(iter_relations(run))
    assert data["es"]["accuracy"]["mean"] == pytest.approx(by_language["es"]["accuracy"]["mean"])
    assert data["es"]["determinism"]["mean"] is None  # no N-M relation in this run
    table = cli.invoke(main, ["metrics", str(run), "--by", "relation", "--languages", "es"])
    assert table.exit_code == 0 and "P36" in table.output and "\nar" not in table.output
    assert table.output.startswith("convention: pararel — N-M relations count only as determinism")
    rc = cli.invoke(main, ["rankc", str(run), "--json"])
    assert rc.exit_code == 0, rc.output
    matrix = json.loads(rc.output)
    assert matrix["rankc"]["en"]["en"] == 1.0 and 0 < matrix["rankc"]["en"]["es"] < 1
    assert matrix["queries"]["en"]["es"] == 60  # 2 relations × 30 facts asked in both
    cmp = cli.invoke(main, ["compare", str(run), str(run), "--bootstrap", "50"])
    assert cmp.exit_code == 0 and "Consistency-accuracy" in cmp.output
    theirs = tmp_path / "theirs"
    to_mpararel(run, theirs)
    imp = cli.invoke(main, ["runs", "import", str(theirs), str(tmp_path / "imported")])
    assert imp.exit_code == 0 and "imported 6 relation files" in imp.output
    bad = cli.invoke(main, ["rankc", str(tmp_path / "imported")])
    assert bad.exit_code != 0 and "no stored rankings" in bad.output
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = cli.invoke(main, ["metrics", str(empty)])
    assert bad.exit_code != 0 and "no predictions" in bad.output


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk, after checking the signature."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", data[:16]
    return struct.unpack(">II", data[16:24])


def test_cli_rankc_plot_writes_the_heatmap_of_the_languages_asked(tmp_path):
    from curator.analysis.charts import rankc_heatmap

    run = tmp_path / "run"
    random_run(np.random.default_rng(5), run, languages=("en", "es", "ar"))
    cli = CliRunner()
    every, pair = tmp_path / "all.png", tmp_path / "pair.png"
    result = cli.invoke(main, ["rankc", str(run), "--plot", str(every)])
    assert result.exit_code == 0, result.output
    assert "RankC %" in result.output and f"wrote {every}" in result.output
    data = every.read_bytes()
    width, height = png_size(data)
    assert width >= 400 and height >= 400 and len(data) > 5000
    full = run_rankc(run)
    assert data == rankc_heatmap(full.languages, full.rankc.tolist(), full.accuracy)  # this run's matrix
    assert cli.invoke(main, ["rankc", str(run), "--languages", "en,es", "--plot", str(pair)]).exit_code == 0
    two = run_rankc(run, ["en", "es"])
    assert two.languages == ["en", "es"]
    assert pair.read_bytes() == rankc_heatmap(two.languages, two.rankc.tolist(), two.accuracy) != data
    bad = cli.invoke(main, ["rankc", str(run), "--plot", str(tmp_path / "heatmap.svg")])
    assert bad.exit_code == 1 and "--plot must end in .png" in bad.output and not (tmp_path / "heatmap.svg").exists()


# ------------------------------------------------------------------------------------------ robustness
def test_published_jsonl_names_empty_relations_and_own_answers(tmp_path):
    """The published code names its files <REL>.jsonl (one JSON object each) and may write {}."""
    src = tmp_path / "published" / "fr"
    src.mkdir(parents=True)
    (src / "P19.jsonl").write_text(
        json.dumps(
            {
                "Ana-Saint-Denis": [["[X] est né à [Y].", "Saint-Denis", "0"], ["[X] vient de [Y].", "Paris", "2"]],
                "Jean-Saint-Denis": [["[X] est né à [Y].", "Denis", "0"], ["[X] vient de [Y].", "Denis", "0"]],
            }
        ),
        encoding="utf-8",
    )
    (src / "P36.jsonl").write_text("{}", encoding="utf-8")
    rel = load_relation(src / "P19.jsonl")
    # each key's own correct answer tells where its subject ends, not the longest known object
    assert rel.subjects == [("Ana", "Ana"), ("Jean-Saint", "Jean-Saint")] and rel.objects == ["Saint-Denis", "Denis"]
    m = relation_metrics(rel, convention=Convention.MPARAREL)
    assert m["majority"] == 0.5 and m["accuracy"] == 0.75 and (rel.predicted == rel.gold).sum() == 3
    assert relation_metrics(rel)["accuracy"] == 0.75  # pararel outside English: the mean over templates
    out = tmp_path / "imported"
    assert import_mpararel(tmp_path / "published", out) == 2
    assert load_relation(out / "fr" / "P36.json").shape == (0, 0)
    assert same(run_metrics(iter_relations(out)), run_metrics(iter_relations(tmp_path / "published")))
    with pytest.raises(RunError, match="exists and is not empty"):
        import_mpararel(tmp_path / "published", out)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no half-built import left behind


def test_damaged_runs_are_one_clear_error(tmp_path):
    run = tmp_path / "run"
    random_run(np.random.default_rng(5), run)
    (run / "en" / "P19.npz").write_bytes(b"not a zip file")
    with pytest.raises(RunError, match=r"en/P19\.npz: does not match its index P19\.json or is damaged"):
        list(iter_relations(run))
    index = json.loads((run / "es" / "P36.json").read_text())
    index["subjects"] = index["subjects"][:3]  # an index that no longer fits its arrays
    (run / "es" / "P36.json").write_text(json.dumps(index))
    with pytest.raises(RunError, match=r"es/P36\.npz: does not match"):
        list(iter_relations(run, ["es"]))
    (run / "run.json").write_text("[]")
    from curator.core.formats.runs import run_info

    with pytest.raises(RunError, match="expected a JSON object"):
        run_info(run)
    out = CliRunner().invoke(main, ["metrics", str(run)])
    assert out.exit_code == 1 and "is damaged" in out.output and "Traceback" not in out.output
    bad = CliRunner().invoke(main, ["compare", str(run), str(run), "--bootstrap", "0"])
    assert bad.exit_code == 2 and "--bootstrap" in bad.output


# ------------------------------------------------------------------------------------------ adding a metric
@pytest.fixture
def added_metric():
    """A metric registered as docs/architecture.md says (one decorated function), taken out again."""
    from curator.analysis import metrics

    @metrics.metric("perfect", label="Perfect tuples", short="Perf")
    def _perfect(p: metrics.Parts) -> float:  # share of tuples every template gets right
        return float(p.rel.correct.all(axis=0).mean())

    yield "perfect"
    del metrics.REGISTRY["perfect"], metrics.LABELS["perfect"], metrics.SHORT["perfect"]
    metrics.METRICS.remove("perfect")


def test_a_metric_registered_in_one_step_reaches_the_table_and_json(added_metric, tmp_path):
    # 2 templates × 4 tuples, gold 0..3: every template right on tuples 0 and 1 only
    save_relation(tmp_path, make_relation([[0, 1, 0, 0], [0, 1, 2, 0]], [0, 1, 2, 3], language="es"))
    runner = CliRunner()
    table = runner.invoke(main, ["metrics", str(tmp_path)])
    assert table.exit_code == 0, table.output
    assert "Perf" in table.output and "Perf = Perfect tuples" in table.stderr
    shown = json.loads(runner.invoke(main, ["metrics", str(tmp_path), "--json"]).output)
    assert shown["by_language"]["es"]["perfect"]["mean"] == pytest.approx(0.5)
    assert relation_metrics(make_relation([[0, 1]], [0, 1]))["perfect"] == 1.0


def test_every_metric_has_a_label_and_a_short_label():
    from curator.analysis.metrics import LABELS, MAIN, METRICS, SHORT

    assert set(MAIN) <= set(METRICS) and set(LABELS) == set(SHORT) == set(METRICS)
    assert len(METRICS) == 9 and METRICS[:3] == list(MAIN)

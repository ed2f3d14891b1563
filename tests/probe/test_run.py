"""`curator probe`: stored predictions, resuming, re-scoring only what changed."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from curator.probe.data import from_directory
from curator.probe.runner import load_result
from curator.probe.scorers import Options, load_scorer


def test_probe_stores_rankings_that_match_the_scores(cli, release, bert, tmp_path):
    out = tmp_path / "run"
    result = cli("probe", release, "--model", bert, "--out", out, "--languages", "es,ar", "--device", "cpu")
    assert "probed 10 relations" in result.output
    index, arrays = load_result(out, "es", "P19")
    data = next(from_directory(release, ["es"], ["P19"]))
    assert index["candidates"] == [list(c) for c in data.candidates]
    assert arrays["ranking"].shape == (len(data.templates) * len(data.subjects), len(data.candidates))
    scores = load_scorer(str(bert), device="cpu", options=Options()).score_relation(data)
    np.testing.assert_array_equal(arrays["ranking"], np.argsort(-scores, axis=1, kind="stable"))
    assert (arrays["predicted"] == arrays["ranking"][:, 0]).all()
    gold = np.array(data.gold * len(data.templates))
    assert (arrays["ranking"][np.arange(len(gold)), arrays["gold_rank"]] == gold).all()
    run = json.loads((out / "run.json").read_text())
    assert run["kind"] == "masked" and run["device"] == "cpu" and len(run["relations"]) == 10
    # entity ids, not labels, identify candidates
    assert all(c[0].startswith("Q") for c in index["candidates"])


def test_interrupted_run_resumes(cli, release, bert, tmp_path):
    out = tmp_path / "run"
    cli("probe", release, "--model", bert, "--out", out, "--languages", "es", "--relations", "P19,P36")
    before = (out / "es" / "P19.npz").read_bytes()
    result = cli("probe", release, "--model", bert, "--out", out, "--languages", "es")
    assert "probed 3 relations (2 already done)" in result.output
    assert (out / "es" / "P19.npz").read_bytes() == before


def test_new_release_version_rescores_only_changed_templates(cli, release, bert, tmp_path):
    out = tmp_path / "run"
    cli("probe", release, "--model", bert, "--out", out, "--languages", "es", "--relations", "P19")
    _, old = load_result(out, "es", "P19")
    changed = tmp_path / "v1"
    shutil.copytree(release, changed)
    path = changed / "patterns" / "es" / "P19.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.append(json.dumps({"pattern": "[X] vino al mundo en [Y]", "checked-by-human": True}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cli("probe", changed, "--model", bert, "--out", out, "--languages", "es", "--relations", "P19")
    run = json.loads((out / "run.json").read_text())
    latest = run["relations"][-1]
    n_tuples = len(next(from_directory(changed, ["es"], ["P19"])).subjects)
    assert latest["scored"] == n_tuples  # only the new template's rows
    _index, new = load_result(out, "es", "P19")
    assert (new["ranking"][: len(old["ranking"])] == old["ranking"]).all()
    fresh = tmp_path / "fresh"
    cli("probe", changed, "--model", bert, "--out", fresh, "--languages", "es", "--relations", "P19")
    assert (load_result(fresh, "es", "P19")[1]["ranking"] == new["ranking"]).all()


def test_probe_a_version_from_the_database(cli, release, bert, tmp_path):
    out = tmp_path / "run"
    cli("probe", "v0", "--model", bert, "--out", out, "--languages", "el", "--relations", "P30")
    from_db = load_result(out, "el", "P30")[1]["ranking"]
    cli("probe", release, "--model", bert, "--out", tmp_path / "run2", "--languages", "el", "--relations", "P30")
    assert (load_result(tmp_path / "run2", "el", "P30")[1]["ranking"] == from_db).all()


def test_probe_errors(cli, release, tmp_path):
    result = cli("probe", release, "--model", tmp_path / "missing", "--out", tmp_path / "x", ok=False)
    assert result.exit_code == 1 and "cannot load model" in result.output
    (tmp_path / "empty").mkdir()
    result = cli("models", "tiny", tmp_path / "m", "--kind", "bert", "--corpus", tmp_path / "empty", ok=False)
    assert result.exit_code == 1 and "no .jsonl text" in result.output


def test_probe_then_metrics_rankc_compare_report(cli, release, bert, tmp_path):
    """The researcher's loop on a real (tiny) model: probe, with and without final punctuation, then analyse."""
    plain, punct = tmp_path / "plain", tmp_path / "punct"
    cli("probe", release, "--model", bert, "--out", plain, "--device", "cpu")
    cli("probe", release, "--model", bert, "--out", punct, "--device", "cpu", "--final-punct")
    metrics = json.loads(cli("metrics", plain, "--json").output)
    assert metrics["convention"]["name"] == "pararel"
    metrics = metrics["by_language"]
    assert set(metrics) == {"ar", "el", "en", "es"}
    assert 0 <= metrics["es"]["consistency"]["mean"] <= 1 and metrics["es"]["accuracy"]["relations"] >= 1
    rankc = json.loads(cli("rankc", plain, "--json").output)
    assert rankc["languages"] == ["ar", "el", "en", "es"]
    assert rankc["queries"]["en"]["es"] > 0  # the seed's facts are parallel, matched by entity id
    assert 0 < rankc["rankc"]["en"]["es"] <= 1
    compared = json.loads(cli("compare", plain, punct, "--json", "--bootstrap", "100").output)["by_language"]
    assert set(compared["es"]) == {"consistency", "accuracy", "consistency_accuracy"}
    row = compared["es"]["accuracy"]
    assert row["diff"] == pytest.approx(row["b"] - row["a"]) and row["low"] <= row["diff"] <= row["high"]
    cli("report", plain, tmp_path / "report")
    assert (tmp_path / "report" / "index.html").exists()


@pytest.mark.parametrize("kind", ["bert", "xlm-roberta", "gpt2", "t5"])
def test_query_longer_than_the_model_is_one_line_error(cli, release, tmp_path, kind):
    """A subject of 200 words makes the query longer than the tiny models' 128 positions
    (XLM-R: 130 entries less the padding offset 2). Before the check the position embedding
    was indexed out of range: an IndexError here, a device-side assert on CUDA. T5 has
    relative positions and no limit, so it scores the long query."""
    model = tmp_path / kind
    cli("models", "tiny", model, "--kind", kind, "--corpus", release)
    long = tmp_path / "long"
    shutil.copytree(release, long)
    path = long / "tuples" / "es" / "P19.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows.append(dict(rows[0], sub_uri="Q99999999", sub_label=" ".join(["Victor"] * 200)))
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    args = (
        "probe",
        long,
        "--model",
        model,
        "--out",
        tmp_path / "run",
        "--languages",
        "es",
        "--relations",
        "P19",
        "--device",
        "cpu",
    )
    if kind == "t5":
        assert "probed 1 relations" in cli(*args).output
        return
    result = cli(*args, ok=False)  # catch_exceptions=False: a traceback would fail the test right here
    assert result.exit_code == 1 and "Traceback" not in result.output
    message = [line for line in result.output.splitlines() if line.strip() and "Loading weights" not in line]
    assert len(message) == 1 and message[0].startswith("Error: es P19: template '")
    assert "subject Q99999999 'Victor Victor" in message[0] and "more than this model's 128 positions" in message[0]
    if kind == "gpt2":
        assert "and candidate '" in message[0]


@pytest.mark.parametrize(
    "folder, line_no, broken, expected",
    [
        ("patterns", 2, '{"pattern": "[X] nació en [Y]", "checked-by-human": fal', "malformed JSON"),
        ("tuples", 3, '{"sub_uri": "Q1", "sub_label": "Ana", "obj_label": "Ulm"}', "field 'obj_uri': missing"),
        ("patterns", 1, '["[X] nació en [Y]"]', "expected a JSON object"),
    ],
)
def test_malformed_release_line_is_one_line_error(cli, release, bert, tmp_path, folder, line_no, broken, expected):
    """An exported release with one corrupted line: exit 1 and one line naming the file and the
    line number, no traceback, no run folder written."""
    damaged = tmp_path / "damaged"
    shutil.copytree(release, damaged)
    path = damaged / folder / "es" / "P19.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) >= line_no
    lines[line_no - 1] = broken
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    result = cli(
        "probe", damaged, "--model", bert, "--out", out, "--languages", "es", "--device", "cpu", ok=False
    )  # catch_exceptions=False: a traceback would fail the test right here
    assert result.exit_code == 1 and "Traceback" not in result.output
    message = result.output.splitlines()  # the input is read before the model is loaded: nothing else printed
    assert len(message) == 1 and message[0].startswith(f"Error: {path}, line {line_no}: "), message
    assert expected in message[0]
    assert not (out / "es" / "P19.npz").exists()


def test_a_second_probe_on_a_run_in_use_stops_with_one_line(cli, release, bert, tmp_path):
    """Another process writing the run folder holds its lock: `curator probe` into the same
    folder stops at once, says so in one line and writes nothing; once free, it runs."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    out = tmp_path / "run"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys\nfrom curator.core.formats.runs import run_lock\n"
            "with run_lock(sys.argv[1]):\n    print('locked', flush=True)\n    sys.stdin.readline()\n",
            str(out),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        args = (
            "probe",
            release,
            "--model",
            bert,
            "--out",
            out,
            "--languages",
            "es",
            "--relations",
            "P19",
            "--device",
            "cpu",
        )
        result = cli(*args, ok=False)
        assert result.exit_code == 1 and "Traceback" not in result.output
        message = [line for line in result.output.splitlines() if line.strip() and "Loading weights" not in line]
        assert len(message) == 1 and message[0].startswith(f"Error: {out}: in use, another `curator probe`")
        assert [p.name for p in out.iterdir()] == [".lock"]  # nothing written
    finally:
        holder.communicate("\n", timeout=30)
    assert "probed 1 relations" in cli(*args).output

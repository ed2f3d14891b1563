"""Many models, one command (`curator probe --model A --model B`, `--plan`), and the models ×
languages table (`curator models-table`, `curator report RUN_A RUN_B OUT`, `/probe/compare`).

Real parts throughout: a release exported from the seed, two tiny real models (BERT and XLM-R
layouts) probed through the real CLI, and the web page over the Flask test client. The
table's numbers are checked against what `curator metrics` and `curator rankc` print for each
run on its own."""

from __future__ import annotations

import json
import re
import shutil
import weakref
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from curator.core.errors import InputError
from curator.core.formats.run_catalog import list_runs
from curator.core.formats.runs import is_run
from curator.probe.plan import load_plan, slug
from tests.analysis.test_report import SCRIPT, TEMPLATES, make_run
from tests.plugins.cli import Cli, seed_release
from tests.plugins.servers import Browser

LANGUAGES, RELATIONS = "es,ar", "P19,P36"
SUBSET = ("--languages", LANGUAGES, "--relations", RELATIONS, "--device", "cpu")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A database with the seed and version v0, its export, two tiny models, each model probed alone,
    and both probed by one command into `multi/`."""
    tmp = tmp_path_factory.mktemp("models")
    cli = Cli(f"sqlite:///{tmp / 'curator.sqlite'}")
    cli("init")
    seed_release(cli, tmp / "export-v0")
    models = {}
    for kind, name in (("bert", "bert"), ("xlm-roberta", "xlmr")):
        models[name] = tmp / "models" / name
        cli("models", "tiny", models[name], "--kind", kind, "--corpus", tmp / "export-v0")
    alone = {name: tmp / "alone" / name for name in models}
    for name, model in models.items():
        cli("probe", tmp / "export-v0", "--model", model, "--out", alone[name], *SUBSET)
    return {"tmp": tmp, "cli": cli, "release": tmp / "export-v0", "models": models, "alone": alone}


def stored(run: Path) -> dict[str, object]:
    """Every prediction file of a run: the .npz arrays and the JSON index."""
    out: dict[str, object] = {}
    for path in sorted(run.glob("*/*.npz")):
        with np.load(path) as arrays:
            out[str(path.relative_to(run))] = {k: arrays[k] for k in arrays.files}
        out[str(path.with_suffix(".json").relative_to(run))] = json.loads(path.with_suffix(".json").read_text())
    return out


def assert_same_predictions(run: Path, reference: Path) -> None:
    got, want = stored(run), stored(reference)
    assert sorted(got) == sorted(want) and len(want) == 8  # 2 languages × 2 relations × (npz + json)
    for key, value in want.items():
        if isinstance(value, dict) and all(isinstance(v, np.ndarray) for v in value.values()):
            assert set(got[key]) == set(value), key
            for column, array in value.items():
                np.testing.assert_array_equal(got[key][column], array, err_msg=f"{key} {column}")
        else:
            assert got[key] == value, key


# ---------------------------------------------------------------- slugs
def test_slugs_are_stable_safe_and_collisions_are_errors():
    assert slug("xlm-roberta-base") == "xlm-roberta-base"
    assert slug("google/mt5-base") == "google--mt5-base"
    assert slug("/models/xlmr/checkpoint-500/") == "xlmr--checkpoint-500"
    assert slug("C:\\models\\bert base") == "models--bert_base"
    assert slug("../out/./v1") == "out--v1"
    assert slug(".hidden/ü") == "hidden--_"
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}", slug("x" * 300))  # a plain run name for the web app
    from curator.probe.plan import model_jobs

    with pytest.raises(
        InputError, match="'q/a b/bert' and 'q/a_b/bert' would both be written to the folder 'a_b--bert'"
    ):
        model_jobs("v0", ["q/a b/bert", "q/a_b/bert"], "runs")
    with pytest.raises(InputError, match="'m' is given twice"):
        model_jobs("v0", ["m", "m"], "runs")


# ---------------------------------------------------------------- several --model
def test_two_models_in_one_command_equal_each_alone(lab, monkeypatch):
    import curator.probe.scorers as scorers

    cli, tmp, models = lab["cli"], lab["tmp"], lab["models"]
    multi = tmp / "multi"
    loaded: list[weakref.ref] = []
    real_load = scorers.load_scorer

    def load(*args, **kwargs):  # the previous model is gone before the next one loads
        assert all(ref() is None for ref in loaded), "the previous model was not freed"
        scorer = real_load(*args, **kwargs)
        loaded.append(weakref.ref(scorer.model))
        return scorer

    monkeypatch.setattr(scorers, "load_scorer", load)
    result = cli("probe", lab["release"], "--model", models["bert"], "--model", models["xlmr"], "--out", multi, *SUBSET)
    assert len(loaded) == 2
    lines = re.findall(r"probed [^\n]*", result.output)  # stderr (transformers' progress) shares the output
    assert len(lines) == 2 and all(line.startswith("probed 4 relations (0 already done)") for line in lines), (
        result.output
    )
    folders = {name: multi / slug(str(model)) for name, model in models.items()}
    assert folders["bert"].name == "models--bert" and folders["xlmr"].name == "models--xlmr"
    assert sorted(p.name for p in multi.iterdir()) == ["models--bert", "models--xlmr"]
    # the folder of runs is not a run itself; pointed at as CURATOR_RUNS_DIR, it lists both
    assert not is_run(multi) and [r["name"] for r in list_runs(multi)] in (
        ["models--bert", "models--xlmr"],
        ["models--xlmr", "models--bert"],
    )
    for name, folder in folders.items():
        assert_same_predictions(folder, lab["alone"][name])
        info = json.loads((folder / "run.json").read_text())
        assert info["model"] == str(models[name]) and info["release"] == str(lab["release"])
    assert f"results in {folders['xlmr']}" in lines[1]
    again = cli("probe", lab["release"], "--model", models["bert"], "--model", models["xlmr"], "--out", multi, *SUBSET)
    assert again.output.count("probed 0 relations (4 already done)") == 2  # each run resumes: nothing left to do

    # a run folder of one model is not a folder of several models' runs
    bad = cli(
        "probe",
        lab["release"],
        "--model",
        models["bert"],
        "--model",
        models["xlmr"],
        "--out",
        lab["alone"]["bert"],
        *SUBSET,
        ok=False,
    )
    assert bad.exit_code == 1 and "is the run folder of one model" in bad.output


# ---------------------------------------------------------------- plan files
def write_plan(folder: Path, text: str) -> Path:
    path = folder / "plan.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_plan_runs_every_model_on_every_release(lab):
    cli, tmp = lab["cli"], lab["tmp"]
    plan = write_plan(
        tmp,
        """
models = ["models/bert", "models/xlmr"]     # beside the plan
releases = ["export-v0", "v0"]              # a release folder, and a version in the database
out = "plan-runs"
[options]
device = "cpu"
languages = ["es", "ar"]
relations = "P19,P36"
""",
    )
    result = cli("probe", "--plan", plan)
    assert result.output.count("probed 4 relations (0 already done)") == 4
    out = tmp / "plan-runs"
    runs = sorted(str(p.parent.relative_to(out)) for p in out.glob("*/*/run.json"))
    assert runs == ["export-v0/models--bert", "export-v0/models--xlmr", "v0/models--bert", "v0/models--xlmr"]
    for name in ("bert", "xlmr"):
        for release in ("export-v0", "v0"):  # the export of v0 and v0 itself: the same predictions
            assert_same_predictions(out / release / f"models--{name}", lab["alone"][name])
        info = json.loads((out / "v0" / f"models--{name}" / "run.json").read_text())
        assert info["release"] == "v0" and info["model"] == str(tmp / "models" / name)
    assert json.loads((out / "export-v0" / "models--bert" / "run.json").read_text())["release"] == str(
        tmp / "export-v0"
    )
    assert cli("probe", "--plan", plan).output.count("probed 0 relations (4 already done)") == 4
    parsed = load_plan(plan)
    assert parsed.options["languages"] == ["es", "ar"] and parsed.options["relations"] == ["P19", "P36"]
    assert parsed.options["score_mode"] == "log-prob" and parsed.options["batch_tokens"] == 8192


@pytest.mark.parametrize(
    "text, expected",
    [
        ('models = ["m"]\nreleases = [\n', r"plan\.toml: not valid TOML: "),
        ('releases = ["v0"]\n', r"plan\.toml: field 'models': missing"),
        ('models = "bert"\nreleases = ["v0"]\n', r"plan\.toml: field 'models': expected a non-empty list"),
        ('models = ["m"]\nreleases = []\n', r"plan\.toml: field 'releases': expected a non-empty list"),
        ('models = ["m"]\nreleases = ["v0"]\nmodel = "x"\n', r"plan\.toml: field 'model': unknown key"),
        ('models = ["m"]\nreleases = ["v0"]\nout = 3\n', r"plan\.toml: field 'out': expected a folder name"),
        (
            'models = ["m"]\nreleases = ["v0"]\n[options]\ndevice = "tpu"\n',
            r"plan\.toml: field 'options\.device': expected one of auto, cpu, cuda, not 'tpu'",
        ),
        (
            'models = ["m"]\nreleases = ["v0"]\n[options]\nbatch_tokens = -1\n',
            r"plan\.toml: field 'options\.batch_tokens': expected a positive integer",
        ),
        (
            'models = ["m"]\nreleases = ["v0"]\n[options]\nfinal_punct = "yes"\n',
            r"plan\.toml: field 'options\.final_punct': expected true or false",
        ),
        (
            'models = ["m"]\nreleases = ["v0"]\n[options]\nlanguages = ["Spanish"]\n',
            r"plan\.toml: field 'options\.languages': 'Spanish' is not a language code",
        ),
        (
            'models = ["m"]\nreleases = ["v0"]\n[options]\nkind = " "\n',
            r"plan\.toml: field 'options\.kind': expected a scorer kind \(masked, seq2seq or causal\)",
        ),
        (
            'models = ["m"]\nreleases = ["v0"]\n[options]\naliases = 3\n',
            r"plan\.toml: field 'options\.aliases': expected the path of an aliases file",
        ),
        (
            'models = ["m"]\nreleases = ["v0"]\n[options]\nbeam = 3\n',
            r"plan\.toml: field 'options\.beam': unknown option",
        ),
        (
            'models = ["a/x", "b/a/x"]\nreleases = ["v0"]\n',
            r"plan\.toml: field 'models': models 'a/x' and 'b/a/x' would both be written to the folder 'a--x'",
        ),
        (
            'models = ["m"]\nreleases = ["v0", "./v0"]\n',
            r"plan\.toml: field 'releases': releases 'v0' and '\./v0' would both be written to the folder 'v0'",
        ),
    ],
)
def test_bad_plan_is_one_line_naming_file_and_key(cli, tmp_path, text, expected):
    plan = write_plan(tmp_path, text)
    result = cli("probe", "--plan", plan, ok=False)
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {plan}"), result.output
    assert re.search(expected, lines[0]), lines[0]


def test_plan_and_src_or_options_are_exclusive(cli, tmp_path):
    plan = write_plan(tmp_path, 'models = ["m"]\nreleases = ["v0"]\n')
    for args, message in (
        (("v0", "--plan", plan), "SRC and --plan are mutually exclusive"),
        (("--plan", plan, "--model", "m", "--device", "cpu"), "--model, --device: with --plan"),
        (("--plan", tmp_path / "missing.toml"), "missing.toml: no such plan file"),
        (("v0", "--out", tmp_path / "x"), "give SRC, --model and --out"),
    ):
        result = cli("probe", *args, ok=False)
        lines = result.output.strip().splitlines()
        assert result.exit_code == 1 and len(lines) == 1 and message in lines[0], result.output


# ---------------------------------------------------------------- the models × languages table
def test_models_table_equals_metrics_and_rankc_of_each_run(lab):
    cli, multi = lab["cli"], lab["tmp"] / "multi"
    if not multi.exists():  # the table reads the runs of the two-model command
        cli(
            "probe",
            lab["release"],
            "--model",
            lab["models"]["bert"],
            "--model",
            lab["models"]["xlmr"],
            "--out",
            multi,
            *SUBSET,
        )
    runs = [multi / "models--bert", multi / "models--xlmr"]
    for convention in ("pararel", "mpararel"):
        table = json.loads(cli("models-table", *runs, "--json", "--convention", convention).output)
        assert table["convention"]["name"] == convention and table["columns"][-1] == "rankc"
        assert sorted(table["languages"]) == ["ar", "es"] and table["common_languages"] == ["ar", "es"]
        for run, row in zip(runs, table["runs"]):
            assert row["model"] == str(lab["models"][run.name.split("--")[1]]) and row["run"] == str(run)
            metrics = json.loads(cli("metrics", run, "--json", "--convention", convention).output)["by_language"]
            rankc = json.loads(cli("rankc", run, "--json").output)
            for lang in ("es", "ar"):
                got = row["by_language"][lang]
                for m in ("consistency", "accuracy", "consistency_accuracy"):
                    want = metrics[lang][m]["mean"]
                    assert (got[m] is None) if want is None else got[m] == pytest.approx(want, abs=1e-6), (lang, m)
                others = [
                    rankc["rankc"][lang][o] for o in rankc["languages"] if o != lang and rankc["queries"][lang][o] > 0
                ]
                assert others and got["rankc"] == pytest.approx(sum(others) / len(others), abs=1e-6)
            for column, value in row["mean"].items():
                values = [
                    row["by_language"][lang][column]
                    for lang in ("ar", "es")
                    if row["by_language"][lang][column] is not None
                ]
                assert value == pytest.approx(sum(values) / len(values), abs=1e-6)
    text = cli("models-table", *runs).output
    assert "models/bert" in text and "models/xlmr" in text and "RankC" in text
    assert re.search(r"^es\s", text, re.M) and re.search(r"^mean\s", text, re.M)


def test_models_table_labels_say_the_release_when_releases_differ(lab, tmp_path):
    runs = [make_run(tmp_path / "a", TEMPLATES, seed=1), make_run(tmp_path / "b", TEMPLATES, seed=2)]
    info = json.loads((runs[1] / "run.json").read_text())
    (runs[1] / "run.json").write_text(json.dumps({**info, "release": "v2"}), encoding="utf-8")
    imported = make_run(tmp_path / "top1", {"es": TEMPLATES["es"]}, with_ranking=False, model="top1-only")
    table = json.loads(lab["cli"]("models-table", *runs, imported, "--json").output)
    labels = [r["label"] for r in table["runs"]]
    assert labels == [
        "bert-base-multilingual-cased · v1-reviewed",
        "bert-base-multilingual-cased · v2",
        "top1-only · v1-reviewed",
    ]
    assert table["common_languages"] == ["es"] and table["runs"][2]["by_language"]["es"]["rankc"] is None
    assert (
        table["runs"][2]["note"] and table["runs"][0]["mean"]["rankc"] == table["runs"][0]["by_language"]["es"]["rankc"]
    )


class Cells(HTMLParser):
    """data-value of every table cell, keyed by (language or '*', run index, column)."""

    def __init__(self):
        super().__init__()
        self.values: dict[tuple, str] = {}
        self.language = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and "data-language" in a:
            self.language = a["data-language"]
        if tag == "td" and "data-column" in a:
            self.values[(self.language, int(a["data-run"]), a["data-column"])] = a["data-value"]


def assert_table_shown(html: str, runs: list[Path], convention: str = "pararel") -> None:
    from curator.analysis.models import models_table

    table = models_table(runs, convention=convention)
    cells = Cells()
    cells.feed(html)
    expected = {
        (lang, i, c): v
        for i, row in enumerate(table["runs"])
        for lang, values in row["by_language"].items()
        for c, v in values.items()
    }
    expected.update({("*", i, c): v for i, row in enumerate(table["runs"]) for c, v in row["mean"].items()})
    assert set(expected) == set(cells.values)
    for key, value in expected.items():
        assert cells.values[key] == ("" if value is None else str(value)), key
    assert f'data-convention="{convention}"' in html


def test_report_of_several_runs(lab, tmp_path):
    runs = [
        make_run(tmp_path / "runs" / "one", TEMPLATES, seed=1),
        make_run(tmp_path / "runs" / "two", TEMPLATES, seed=2, model=SCRIPT),
    ]
    out = tmp_path / "report"
    result = lab["cli"]("report", *runs, out, "--convention", "mpararel")
    assert f"wrote {out / 'index.html'}" in result.output
    html = (out / "index.html").read_text(encoding="utf-8")
    assert_table_shown(html, runs, "mpararel")
    assert 'href="1-one/index.html"' in html and 'href="2-two/index.html"' in html
    assert (out / "1-one" / "index.html").exists() and (out / "2-two" / "metrics.png").exists()
    assert "<script>alert" not in html and "&lt;script&gt;" in html


# ---------------------------------------------------------------- the web page
@pytest.fixture
def compare_app(review_app, lab):
    runs = lab["tmp"] / "web-runs"
    if not runs.exists():
        shutil.copytree(lab["alone"]["bert"], runs / "tiny-bert")
        shutil.copytree(lab["alone"]["xlmr"], runs / "tiny-xlmr")
        make_run(runs / "scripted", TEMPLATES, model=SCRIPT)
    from dataclasses import replace

    from curator.web import create_app

    # the same database, another runs folder: a second app (the settings are fixed once made)
    return create_app(replace(review_app.extensions["curator.settings"], runs_dir=runs)), runs


def test_web_compare_page(compare_app):
    app, runs = compare_app
    boss = Browser(app).login("boss@example.org")
    listing = boss.get("/probe/runs").get_data(as_text=True)
    assert 'action="/probe/compare"' in listing and 'name="run" value="tiny-bert"' in listing
    response = boss.get("/probe/compare?run=tiny-bert&run=tiny-xlmr")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert_table_shown(html, [runs / "tiny-bert", runs / "tiny-xlmr"])
    assert (
        'href="/probe/runs/tiny-bert"' in html
        and 'href="/probe/compare?run=tiny-bert&amp;run=tiny-xlmr&amp;convention=mpararel"' in html
    )
    mpararel = boss.get("/probe/compare?run=tiny-bert&run=tiny-xlmr&convention=mpararel").get_data(as_text=True)
    assert_table_shown(mpararel, [runs / "tiny-bert", runs / "tiny-xlmr"], "mpararel")

    scripted = boss.get("/probe/compare?run=scripted&run=tiny-bert").get_data(as_text=True)
    assert "<script>alert" not in scripted and "&lt;script&gt;alert" in scripted
    empty = boss.get("/probe/compare")
    assert empty.status_code == 200 and 'id="compare-empty"' in empty.get_data(as_text=True)
    for bad, status in (
        ("?run=nope", 404),
        ("?run=..", 404),
        ("?run=tiny-bert&convention=x", 400),
        ("?" + "&".join(f"run=r{i}" for i in range(21)), 400),
    ):
        assert boss.get("/probe/compare" + bad).status_code == status, bad

    boss.client.set_cookie("curator_locale", "ar")
    arabic = boss.get("/probe/compare?run=tiny-bert&run=tiny-xlmr").get_data(as_text=True)
    assert 'dir="rtl"' in arabic and "النماذج" in arabic
    assert_table_shown(arabic, [runs / "tiny-bert", runs / "tiny-xlmr"])

    ana = Browser(app).login("ana@example.org")
    assert ana.get("/probe/compare?run=tiny-bert&run=tiny-xlmr").status_code == 403
    anonymous = app.test_client().get("/probe/compare?run=tiny-bert")
    assert anonymous.status_code == 302 and "/login" in anonymous.headers["Location"]

"""`curator probe --decode …` end to end on a tiny real BERT and the seed release: the run folder,
run.json's decoding settings, resuming, X-FACTR's accuracies in `curator metrics` and the report,
and the one-line errors for settings that do not go together."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from curator.analysis.decoding import decoding_accuracy
from curator.core.aliases import normal
from curator.core.formats.runs import iter_relations, read_stored

DECODE = (
    "--decode",
    "confidence",
    "--refine",
    "confidence",
    "--max-masks",
    "3",
    "--languages",
    "es",
    "--relations",
    "P19,P36",
    "--device",
    "cpu",
)


def one_error_line(result) -> str:
    assert result.exit_code != 0 and "Traceback" not in result.output, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(lines) == 1, result.output
    return lines[0]


def test_decoded_run_is_stored_evaluated_and_resumed(cli, release, bert, tmp_path):
    out = tmp_path / "run"
    result = cli("probe", release, "--model", bert, "--out", out, *DECODE)
    assert "probed 2 relations" in result.output
    info = json.loads((out / "run.json").read_text())
    assert info["decoding"] == {
        "init": "confidence",
        "refine": "confidence",
        "max_masks": 3,
        "beam": 1,
        "length_norm": False,
        "recompute": False,
        "iterations": None,
        "rescore_unchanged": False,
        "beam_style": "joint",
    }
    for rel in iter_relations(out):
        index, _ = read_stored(out, rel.language, rel.relation)
        decoded = index["decoded"]
        T, D = rel.shape
        assert len(decoded["strings"]) == T * D and all(len(row) == 3 for row in decoded["strings"])
        assert len(decoded["gold_tokens"]) == D and rel.ranking is None
        for q in range(T * D):
            t, d = divmod(q, D)
            best = decoded["strings"][q][decoded["best"][q]]
            entity, label = rel.candidates[rel.predicted[t, d]]
            # the stored prediction is the string's entity when it names one, else the string itself
            assert (
                normal(label) == normal(best)
                or normal(best) in decoded["names"].get(entity, [])
                or (entity.startswith("text:") and entity == "text:" + normal(best))
            )
            assert rel.correct[t, d] == (normal(best) in decoded["names"][rel.objects[d]])
    table = decoding_accuracy(out)
    assert table["es"]["accuracy"]["total"] == sum(r.shape[0] * r.shape[1] for r in iter_relations(out))

    shown = cli("metrics", out)
    assert "X-FACTR accuracy" in shown.output and "Oracle number of masks" in shown.output
    as_json = json.loads(cli("metrics", out, "--json").output)
    assert as_json["decoding"]["by_language"]["es"] == json.loads(json.dumps(table["es"]))

    again = cli("probe", release, "--model", bert, "--out", out, *DECODE)
    assert "probed 0 relations (2 already done)" in again.output
    # names come from every relation of the language, not the ones asked: P19 alone is still done
    alone = cli("probe", release, "--model", bert, "--out", out, *DECODE[:-4], "--relations", "P19", "--device", "cpu")
    assert "probed 0 relations (1 already done)" in alone.output
    changed = cli("probe", release, "--model", bert, "--out", out, *DECODE[:-2], "--beam", "2", "--device", "cpu")
    assert "probed 2 relations" in changed.output  # other settings: decoded again
    assert json.loads((out / "run.json").read_text())["decoding"]["beam"] == 2
    published = (*DECODE[:-2], "--beam", "2", "--beam-style", "published", "--rescore-unchanged", "--device", "cpu")
    assert "probed 2 relations" in cli("probe", release, "--model", bert, "--out", out, *published).output
    settings = json.loads((out / "run.json").read_text())["decoding"]
    assert settings["beam_style"] == "published" and settings["rescore_unchanged"] is True
    assert "beam_style=published" in cli("metrics", out).output

    report = tmp_path / "report"
    cli("report", out, report)
    page = (report / "index.html").read_text(encoding="utf-8")
    assert 'id="decoding-table"' in page and "Decoded without candidates" in page


def test_settings_that_do_not_go_together_are_one_line_errors(cli, release, bert, tmp_path):
    line = one_error_line(cli("probe", release, "--model", bert, "--out", tmp_path / "a", "--beam", "3", ok=False))
    assert "--beam" in line and "--decode" in line
    line = one_error_line(
        cli(
            "probe",
            release,
            "--model",
            bert,
            "--out",
            tmp_path / "b",
            "--decode",
            "order",
            "--score-mode",
            "pll",
            ok=False,
        )
    )
    assert "--score-mode" in line
    line = one_error_line(
        cli("probe", release, "--model", bert, "--out", tmp_path / "c", "--decode", "order", "--beam", "0", ok=False)
    )
    assert "beam" in line
    line = one_error_line(
        cli("probe", release, "--model", bert, "--out", tmp_path / "a", "--rescore-unchanged", ok=False)
    )
    assert "--rescore-unchanged" in line and "--decode" in line
    bad = tmp_path / "aliases.jsonl"
    bad.write_text('{"id": "Q1", "aliases": "Roma"}\n', encoding="utf-8")
    line = one_error_line(
        cli("probe", release, "--model", bert, "--out", tmp_path / "d", "--decode", "order", "--aliases", bad, ok=False)
    )
    assert f"{bad}, line 1: field 'aliases'" in line
    assert not (tmp_path / "d").exists()


def test_decoding_needs_a_masked_model(cli, release, tmp_path):
    gpt2 = tmp_path / "gpt2"
    cli("models", "tiny", gpt2, "--kind", "gpt2", "--corpus", release)
    line = one_error_line(
        cli(
            "probe",
            release,
            "--model",
            gpt2,
            "--out",
            tmp_path / "run",
            "--decode",
            "independent",
            "--languages",
            "es",
            "--relations",
            "P19",
            "--device",
            "cpu",
            ok=False,
        )
    )
    assert "masked" in line


def test_aliases_file_makes_a_string_right(cli, release, bert, tmp_path):
    """Decode once, then name every wrong best string as an alias of its gold object: every
    prediction becomes correct, and the changed names re-decode the relation."""
    out = tmp_path / "run"
    args = ("--decode", "independent", "--max-masks", "2", "--languages", "es", "--relations", "P19", "--device", "cpu")
    cli("probe", release, "--model", bert, "--out", out, *args)
    index, _ = read_stored(out, "es", "P19")
    decoded, D = index["decoded"], len(index["subjects"])
    lines = [
        json.dumps({"id": index["objects"][q % D], "aliases": [row[decoded["best"][q]]], "language": "es"})
        for q, row in enumerate(decoded["strings"])
    ]
    aliases = tmp_path / "aliases.jsonl"
    aliases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    others = sorted({c for c, _ in index["candidates"] if not c.startswith(("text:", "none:"))} - set(index["objects"]))
    if others:  # a new name for a candidate that is no tuple's gold still changes what strings are stored as
        only = tmp_path / "other.jsonl"
        only.write_text(
            json.dumps({"id": others[0], "aliases": ["zzz nombre nuevo"], "language": "es"}) + "\n", encoding="utf-8"
        )
        assert (
            "probed 1 relations"
            in cli("probe", release, "--model", bert, "--out", out, *args, "--aliases", only).output
        )
    before = decoding_accuracy(out)["es"]["accuracy"]["value"]
    again = cli("probe", release, "--model", bert, "--out", out, *args, "--aliases", aliases)
    assert "probed 1 relations" in again.output
    assert json.loads((out / "run.json").read_text())["aliases"] == str(aliases)
    assert decoding_accuracy(out)["es"]["accuracy"]["value"] == 1.0 >= before


def test_a_plan_decodes_and_its_bad_decoding_settings_name_the_key(cli, release, bert, tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f'models = ["{bert}"]\nreleases = ["{release}"]\nout = "runs"\n[options]\ndevice = "cpu"\n'
        'languages = ["es"]\nrelations = ["P19"]\n[options.decoding]\ninit = "order"\nmax_masks = 2\n',
        encoding="utf-8",
    )
    cli("probe", "--plan", plan)
    (run,) = [p.parent for p in (tmp_path / "runs").rglob("run.json")]
    info = json.loads((run / "run.json").read_text())
    assert info["decoding"]["init"] == "order" and info["decoding"]["max_masks"] == 2
    assert "decoded" in read_stored(run, "es", "P19")[0]
    for table, field in (
        ("[options.decoding]\nbeams = 2", "options.decoding.beams"),
        ('[options.decoding]\nbeam = "2"', "options.decoding"),
        ('[options.decoding]\nlength_norm = "false"', "options.decoding"),
        ('[options.decoding]\nbeam_style = "widest"', "options.decoding"),
        ("[options.decoding]\nrescore_unchanged = 1", "options.decoding"),
        ('[options]\naliases = "a.jsonl"', "options.aliases"),
        ('[options]\nscore_mode = "pll"\n[options.decoding]\ninit = "order"', "options.score_mode"),
    ):
        plan.write_text(f'models = ["{bert}"]\nreleases = ["{release}"]\n{table}\n', encoding="utf-8")
        line = one_error_line(cli("probe", "--plan", plan, ok=False))
        assert f"{plan}: field '{field}'" in line


def test_compare_models_table_and_the_web_page_take_a_decoded_run(review_app, cli, tmp_path):
    from .conftest import Browser

    cli("release", "build", "v0")
    cli("release", "export", "v0", tmp_path / "v0")
    bert = tmp_path / "bert"
    cli("models", "tiny", bert, "--kind", "bert", "--corpus", tmp_path / "v0")
    runs = tmp_path / "runs"
    subset = ("--languages", "es", "--relations", "P19", "--device", "cpu")
    cli(
        "probe",
        tmp_path / "v0",
        "--model",
        bert,
        "--out",
        runs / "decoded",
        "--decode",
        "independent",
        "--max-masks",
        "2",
        *subset,
    )
    cli("probe", tmp_path / "v0", "--model", bert, "--out", runs / "ranked", *subset)
    compared = json.loads(cli("compare", runs / "ranked", runs / "decoded", "--json").output)
    assert compared.get("rows", compared)
    table = json.loads(cli("models-table", runs / "ranked", runs / "decoded", "--json").output)
    notes = {row["run"]: row["note"] for row in table["runs"]}
    assert notes[str(runs / "ranked")] is None and "no RankC" in notes[str(runs / "decoded")]
    boss = Browser(review_app).login("boss@example.org")
    page = boss.get("/probe/runs/decoded").get_data(as_text=True)
    assert 'id="decoding-table"' in page and "init=independent" in page
    assert 'id="decoding-table"' not in boss.get("/probe/runs/ranked").get_data(as_text=True)

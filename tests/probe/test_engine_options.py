"""The engine options that do not change what is scored: the attention implementation, compiled
layers, the out-of-memory back-off (the run records what was asked, not the shrunken budget)."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

# E402 below: imported after importorskip, so the file is skipped (not an error) without torch or transformers
from curator.probe.data import from_directory  # noqa: E402
from curator.probe.scorers import Options, load_scorer  # noqa: E402


def test_attention_implementations_and_compiled_layers_give_the_same_scores(release, bert):
    data = next(from_directory(release, ["es"], ["P19"]))
    eager = load_scorer(str(bert), "cpu", "float32", Options(batch_tokens=64), attention="eager")
    sdpa = load_scorer(str(bert), "cpu", "float32", Options(batch_tokens=64), attention="sdpa")
    compiled = load_scorer(str(bert), "cpu", "float32", Options(batch_tokens=64), attention="sdpa", compile=True)
    assert eager.model.config._attn_implementation == "eager" and sdpa.model.config._attn_implementation == "sdpa"
    assert compiled.compiled and not sdpa.compiled
    reference = eager.score_relation(data)
    np.testing.assert_allclose(sdpa.score_relation(data), reference, atol=1e-5)
    np.testing.assert_allclose(compiled.score_relation(data), reference, atol=1e-5)


def test_run_records_attention_and_an_unavailable_one_is_one_line(cli, release, bert, tmp_path):
    out = tmp_path / "run"
    cli("probe", release, "--model", bert, "--out", out, "--languages", "es", "--device", "cpu", "--attention", "eager")
    run = json.loads((out / "run.json").read_text())
    assert run["attention"] == "eager" and run["compiled"] is False and run["ranks"] == 1
    result = cli(
        "probe",
        release,
        "--model",
        bert,
        "--out",
        tmp_path / "flash",
        "--device",
        "cpu",
        "--attention",
        "flash_attention_2",
        ok=False,
    )
    assert result.exit_code != 0 and "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(lines) == 1 and "flash_attention_2" in lines[0], result.output


def test_out_of_memory_back_off_keeps_the_recorded_budget(bert):
    scorer = load_scorer(str(bert), "cpu", "float32", Options(batch_tokens=4096))
    calls = []

    def flaky():
        calls.append(scorer.budget)
        if len(calls) < 3:
            raise torch.OutOfMemoryError("simulated")
        return np.zeros(1)

    scorer.with_oom_retry(flaky)
    assert calls == [4096, 2048, 1024]
    assert scorer.options.batch_tokens == 4096  # what run.json records and a resumed run reuses


def test_auto_attention_is_eager_for_encoder_decoders_on_cpu_and_asked_sdpa_stays(cli, release, tmp_path):
    t5 = tmp_path / "t5"
    cli("models", "tiny", t5, "--kind", "t5", "--corpus", release)
    data = next(from_directory(release, ["es"], ["P19"]))
    auto = load_scorer(str(t5), "cpu", "float32", Options(batch_tokens=64))
    sdpa = load_scorer(str(t5), "cpu", "float32", Options(batch_tokens=64), attention="sdpa")
    assert auto.model.config._attn_implementation == "eager"
    assert sdpa.model.config._attn_implementation == "sdpa"
    np.testing.assert_allclose(auto.score_relation(data), sdpa.score_relation(data), atol=1e-5)
    out = tmp_path / "run"
    cli("probe", release, "--model", t5, "--out", out, "--languages", "es", "--relations", "P19", "--device", "cpu")
    assert json.loads((out / "run.json").read_text())["attention"] == "eager"

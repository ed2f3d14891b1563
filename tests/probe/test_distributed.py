"""Data-parallel probe runs: `torchrun --nproc-per-node N -m curator probe …` on CPU ranks (gloo),
real processes started by the real launcher, compared with the single-process run byte for byte
(`curator probe` run in the test's own process, on one thread as each rank)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from curator.probe.distributed import Ranks
from tests.plugins.cli import Cli, seed_release

pytestmark = pytest.mark.distributed

ARRAYS = ("template", "tuple", "predicted", "gold", "gold_rank", "ranking")


def launch(args: list, db: str, launcher: list[str], ok: bool = True) -> subprocess.CompletedProcess:
    """A real launcher starting real `curator` processes; one thread each so that a run's floats do
    not depend on how many processes share the machine's cores."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    result = subprocess.run(
        [*launcher, "-m", "curator", "--database", db, *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    if ok:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def one_process(cli, args: list):
    """The single-process run the ranks are compared with: `curator probe` in this test process
    (torch is imported already; a launched child would spend seconds importing it again), on one
    thread as each launched rank runs."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return cli("probe", *args)
    finally:
        torch.set_num_threads(threads)


def torchrun(n: int) -> list[str]:
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(n)]


def stored(run: Path) -> dict[str, dict[str, bytes]]:
    """Every relation's prediction arrays, as raw bytes, keyed by <lang>/<REL>."""
    out = {}
    for path in sorted(run.glob("*/*.npz")):
        with np.load(path) as arrays:
            out[f"{path.parent.name}/{path.stem}"] = {k: arrays[k].tobytes() for k in ARRAYS}
    return out


def accelerate(n: int) -> list[str]:
    """`accelerate launch` in its multi-process mode (no config file): torchrun's environment
    underneath, so on a CPU-only machine the ranks run on the CPU."""
    script = Path(sys.executable).parent / "accelerate"
    if not script.exists():
        pytest.skip("accelerate is not installed (pip install -e '.[all,test]' installs it)")
    return [
        str(script),
        "launch",
        "--multi_gpu",
        "--num_processes",
        str(n),
        "--num_machines",
        "1",
        "--mixed_precision",
        "no",
        "--dynamo_backend",
        "no",
    ]


def assert_same_run(single: Path, ranks: Path) -> None:
    """The ranks' run folder holds what the single process wrote, byte for byte, and says it was
    made by two CPU ranks."""
    one, two = stored(single), stored(ranks)
    assert len(one) >= 6 and one.keys() == two.keys()
    for key in one:
        assert one[key] == two[key], key
    for path in single.glob("*/*.json"):  # the indexes too
        assert path.read_bytes() == (ranks / path.relative_to(single)).read_bytes()
    run = json.loads((ranks / "run.json").read_text())
    assert run["ranks"] == 2 and run["devices"] == ["cpu", "cpu"]
    assert sorted((r["language"], r["relation"]) for r in run["relations"]) == sorted(tuple(k.split("/")) for k in one)


@pytest.fixture(scope="module")
def masked(sqlite_templates, tmp_path_factory) -> dict:
    """One masked run made twice on the demo release: by this process on one thread ("single")
    and by two ranks under `accelerate launch` ("ranks"). The first test compares them; the
    resume test continues a copy of the ranks' run in one process. One launch for both: each
    launch starts three Pythons that import torch (and two of them transformers) again."""
    launcher = accelerate(2)  # skips at once where accelerate is missing, before any work
    root = tmp_path_factory.mktemp("masked")
    shutil.copyfile(sqlite_templates("migrated"), root / "curator.sqlite")
    db = f"sqlite:///{root / 'curator.sqlite'}"
    cli = Cli(db)
    release = seed_release(cli, root / "v0")
    cli("models", "tiny", root / "bert", "--kind", "bert", "--corpus", release)
    args = [release, "--model", root / "bert", "--languages", "es,ar,el", "--device", "cpu", "--dtype", "float32"]
    one_process(cli, [*args, "--out", root / "single"])
    result = launch(["probe", *args, "--out", root / "ranks"], db, launcher)
    return dict(cli=cli, args=args, single=root / "single", ranks=root / "ranks", result=result)


def test_two_ranks_equal_one_process_byte_for_byte(masked):
    """A masked model under `accelerate launch`. Under torchrun the same masked run, with the same
    checks, is the first of test_several_models_under_ranks_share_one_process_group (the
    decoder-only kind its second): one launch for both."""
    assert_same_run(masked["single"], masked["ranks"])
    assert masked["result"].stdout.count("probed ") == 1  # one summary line, from rank 0, for the whole run
    assert f"probed {len(stored(masked['single']))} relations (0 already done)" in masked["result"].stdout


def test_resume_with_another_number_of_ranks(masked, tmp_path):
    """Started by two ranks, resumed by one process (the shares change: each relation is done
    once), equal to a run made by one process from the start."""
    run = tmp_path / "run"
    shutil.copytree(masked["ranks"], run)
    first = stored(run)
    done = sorted(first)
    shutil.rmtree(run / "el")  # as if the run had stopped before Greek
    result = one_process(masked["cli"], [*masked["args"], "--out", run])
    after = stored(run)
    assert all(after[k] == first[k] for k in done if not k.startswith("el/"))
    greek = [k for k in done if k.startswith("el/")]
    assert greek and set(after) == set(first)
    # only Greek probed again, the rest counted as done
    assert f"probed {len(greek)} relations ({len(first) - len(greek)} already done)" in result.output
    assert after == stored(masked["single"])
    info = json.loads((run / "run.json").read_text())
    assert info["ranks"] == 1 and [h["ranks"] for h in info["history"]] == [2]


def test_a_second_run_on_the_folder_stops_every_rank(cli, db_url, release, tmp_path):
    from curator.core.formats.runs import run_lock

    model = tmp_path / "bert"
    cli("models", "tiny", model, "--kind", "bert", "--corpus", release)
    out = tmp_path / "run"
    with run_lock(out):
        result = launch(
            ["probe", release, "--model", model, "--out", out, "--device", "cpu"], db_url, torchrun(2), ok=False
        )
    assert result.returncode != 0
    assert "in use, another `curator probe` is writing this run folder" in result.stdout + result.stderr
    # each rank says it in one line; the only traceback is torchrun's own report of a failed worker
    assert "/curator/" not in result.stdout + result.stderr.replace(sys.executable, "")
    assert not list(out.glob("*/*.json"))  # no rank wrote anything


def test_share_is_balanced_deterministic_and_complete():
    items = list(range(23))
    cost = [(i * 7919) % 101 + 1 for i in items]
    shares = [Ranks(r, 4).share(items, cost) for r in range(4)]
    assert sorted(i for s in shares for i in s) == items
    assert all(s == sorted(s) for s in shares)
    loads = [sum(cost[i] for i in s) for s in shares]
    assert max(loads) - min(loads) <= max(cost)  # greedy longest-first: within one item of even
    assert shares == [Ranks(r, 4).share(items, cost) for r in range(4)]


def test_ranks_from_the_launcher_environment(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "4")
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    assert Ranks.from_env() == Ranks()  # a stray WORLD_SIZE without a rendezvous: one process alone
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    assert Ranks.from_env() == Ranks(3, 4, 1)
    monkeypatch.setenv("WORLD_SIZE", "1")
    assert Ranks.from_env() == Ranks()


def test_each_rank_gets_its_own_gpu(monkeypatch):
    import torch

    assert Ranks(1, 2, 1).device("cpu") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert Ranks(1, 2, 1).device("auto") == "auto"  # no GPU: the CPU, as asked
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 4)
    assert [Ranks(r, 8, r % 4).device("cuda") for r in range(8)] == [f"cuda:{r % 4}" for r in range(8)]
    assert Ranks(5, 8, 5).device("auto") == "cuda:1"  # 6 processes on a node of 4 visible GPUs wrap round
    assert Ranks().device("auto") == "auto" and Ranks(0, 2, 0).device("cpu") == "cpu"


def test_several_models_under_ranks_share_one_process_group(cli, db_url, release, tmp_path):
    """Two runs in one launched command (a masked and a decoder-only model): the group is not torn
    down and rebuilt between them, and each run equals the single process's byte for byte."""
    models = []
    for kind in ("bert", "gpt2"):
        cli("models", "tiny", tmp_path / kind, "--kind", kind, "--corpus", release)
        models += ["--model", tmp_path / kind]
    args = [release, *models, "--languages", "es,ar,el", "--device", "cpu", "--dtype", "float32"]
    result = launch(["probe", *args, "--out", tmp_path / "ranks"], db_url, torchrun(2))
    assert result.stdout.count("probed ") == 2 and "2 ranks (cpu on rank 0)" in result.stdout
    one_process(cli, [*args, "--out", tmp_path / "single"])
    runs = sorted(p.name for p in (tmp_path / "ranks").iterdir() if p.is_dir())
    assert len(runs) == 2 and runs == sorted(p.name for p in (tmp_path / "single").iterdir() if p.is_dir())
    lines = [line for line in result.stdout.splitlines() if line.startswith("probed ")]
    for name, line in zip(runs, lines, strict=True):  # each model's one summary line, both fresh
        assert_same_run(tmp_path / "single" / name, tmp_path / "ranks" / name)
        assert line.startswith(f"probed {len(stored(tmp_path / 'single' / name))} relations (0 already done)"), line


def test_a_failing_rank_stops_every_rank_with_one_line(cli, db_url, release, tmp_path):
    """A subject too long for the model in one relation: the rank that owns it fails, the other
    finishes its share, and both stop with the same line; what was stored stays for a resume."""
    model = tmp_path / "bert"
    cli("models", "tiny", model, "--kind", "bert", "--corpus", release)
    path = release / "tuples" / "es" / "P19.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows.append(dict(rows[0], sub_uri="Q99999999", sub_label=" ".join(["Victor"] * 200)))
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    result = launch(
        ["probe", release, "--model", model, "--out", tmp_path / "run", "--languages", "es,el", "--device", "cpu"],
        db_url,
        torchrun(2),
        ok=False,
    )
    assert result.returncode != 0
    errors = [line for line in (result.stdout + result.stderr).splitlines() if line.startswith("Error: ")]
    assert len(errors) == 2, result.stdout + result.stderr
    assert any(e.startswith("Error: es P19: template '") for e in errors)  # the failing rank's own line
    assert any(e.startswith("Error: rank ") and "es P19: template '" in e for e in errors)  # the other's
    assert "/curator/" not in result.stdout + result.stderr.replace(sys.executable, "")
    assert len(list((tmp_path / "run").glob("*/*.npz"))) >= 5 and not (tmp_path / "run" / "es" / "P19.npz").exists()

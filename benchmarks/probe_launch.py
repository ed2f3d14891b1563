"""What a launcher costs: `curator probe` in one plain process against `torchrun` with 1 and 2
processes (issue 29's last GPU row), on the same release, model and device.

It writes a release folder from ../shared/data (Bing's translations, cleaned as `curator ingest`
cleans them, and the real tuples) and a random-weight model of the chosen shape with a real
tokenizer trained on the data, then times each run as a whole (interpreter and torch start,
model load, scoring, writing; the wall clock of the command) and checks that every launcher
stored the same predictions. `÷ plain` is a run's time over the plain process's: the
launcher's overhead with one process, and with two what data parallelism gives back on this
machine (on one GPU, two ranks share it; on CPU each rank gets one thread, as the plain run).

Usage: python benchmarks/probe_launch.py [--shape bert|mbert] [--relations P19,P36] [--subjects N] [--device cpu|cuda]
       python benchmarks/probe_launch.py --device cuda --shape mbert --relations all
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# E402 below: imported once the checkout is on sys.path, so the script runs without installing curator
from curator.ingest.clean import check  # noqa: E402

SHAPES = {"bert": (4, 256, 8000), "mbert": (12, 768, 119_547)}  # layers, hidden, vocabulary


def write_release(data: Path, language: str, relations: list[str], subjects: int, out: Path) -> None:
    for rel in relations:
        raw = data / "mpararel" / "translations" / "pararel_bing" / language / f"{rel}.jsonl"
        patterns = sorted(
            {
                c.cleaned
                for c in (check(json.loads(line)["pattern"], language) for line in raw.read_text("utf-8").splitlines())
                if c.valid
            }
        )
        lines = (data / "mpararel" / "tuples" / language / f"{rel}.jsonl").read_text("utf-8").splitlines(True)
        tuples = "".join(lines[:subjects] if subjects else lines)
        for part, text in (
            ("patterns", "".join(json.dumps({"pattern": p}) + "\n" for p in patterns)),
            ("tuples", tuples),
        ):
            path = out / part / language / f"{rel}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


def write_model(shape: str, corpus: Path, out: Path) -> Path:
    """A tiny tokenizer trained on the release, and a model of the shape saved beside it."""
    import torch
    from transformers import AutoConfig, AutoModelForMaskedLM

    from curator.probe.tiny import build_tiny

    layers, hidden, vocab = SHAPES[shape]
    path = build_tiny(out, "bert", corpus, vocab_size=8000)
    cfg = AutoConfig.from_pretrained(path)
    cfg.update(
        dict(
            num_hidden_layers=layers,
            hidden_size=hidden,
            num_attention_heads=hidden // 64,
            intermediate_size=4 * hidden,
            vocab_size=vocab,
        )
    )
    torch.manual_seed(0)
    AutoModelForMaskedLM.from_config(cfg).save_pretrained(path)
    return path


def run(launcher: list[str], args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    result = subprocess.run([*launcher, "-m", "curator", *args], capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if result.returncode:
        sys.exit(f"{' '.join(launcher[-3:])} failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return seconds


def predictions(run_dir: Path) -> dict[str, bytes]:
    out = {}
    for path in sorted(run_dir.glob("*/*.npz")):
        with np.load(path) as arrays:
            out[f"{path.parent.name}/{path.stem}"] = arrays["predicted"].tobytes()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--shape", default="bert", choices=sorted(SHAPES))
    parser.add_argument("--language", default="es")
    parser.add_argument("--relations", default="P19,P36", help="comma-separated, or 'all'")
    parser.add_argument("--subjects", type=int, default=0, help="tuples per relation (0: all)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--processes", default="1,2", help="torchrun process counts")
    opts = parser.parse_args()
    data = Path(opts.data)
    if opts.relations == "all":
        folder = data / "mpararel" / "translations" / "pararel_bing" / opts.language
        relations = sorted(p.stem for p in folder.glob("*.jsonl"))
    else:
        relations = opts.relations.split(",")
    work = Path(tempfile.mkdtemp(prefix="curator-launch-bench-"))
    release = work / "release"
    write_release(data, opts.language, relations, opts.subjects, release)
    model = write_model(opts.shape, release, work / "model")
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    common = ["--database", f"sqlite:///{work / 'curator.db'}", "probe", str(release), "--model", str(model)]
    common += ["--device", opts.device]
    rows: list[tuple[str, int, float]] = []
    runs: dict[str, Path] = {}
    launchers = [("plain", 1, [sys.executable])] + [
        (
            "torchrun",
            n,
            [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(n)],
        )
        for n in map(int, opts.processes.split(","))
    ]
    for name, n, launcher in launchers:
        out = work / f"{name}-{n}"
        rows.append((name, n, run(launcher, [*common, "--out", str(out)], env)))
        runs[f"{name}-{n}"] = out
    stored = {key: predictions(path) for key, path in runs.items()}
    first = stored["plain-1"]
    same = all(s == first for s in stored.values())
    print(
        f"\n{opts.shape} ({SHAPES[opts.shape][0]} layers, hidden {SHAPES[opts.shape][1]}), {opts.device}, "
        f"{opts.language} {len(relations)} relations; same predictions from every launcher: {same}"
    )
    print(f"{'launcher':<10} {'processes':>9} {'seconds':>9} {'÷ plain':>8}")
    plain = rows[0][2]
    for name, n, seconds in rows:
        print(f"{name:<10} {n:>9} {seconds:>9.1f} {seconds / plain:>7.2f}x")
    if not same:
        sys.exit("the launchers stored different predictions")


if __name__ == "__main__":
    main()

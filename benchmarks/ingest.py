"""Full real-data ingest benchmark: wall time and peak memory of each CLI step.

Each step runs as its own `curator` process on a fresh SQLite file, so the peak RSS
reported is that step's alone. Usage: python benchmarks/ingest.py [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(step: str, args: list[str], env: dict) -> tuple[str, float, float, str]:
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "curator.cli", *args], env=env, stdout=out, stderr=subprocess.STDOUT, text=True
        )
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage, unlike RUSAGE_CHILDREN
        elapsed = time.perf_counter() - start
        out.seek(0)
        text = out.read().strip()
    if os.waitstatus_to_exitcode(status):
        sys.exit(f"{step} failed:\n{text}")
    return step, elapsed, usage.ru_maxrss / 1024, text.splitlines()[-1] if text else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    opts = parser.parse_args()
    data = Path(opts.data)
    work = Path(tempfile.mkdtemp(prefix="curator-bench-"))
    env = {**os.environ, "CURATOR_DATABASE_URL": f"sqlite:///{work / 'bench.sqlite'}", "PYTHONPATH": str(ROOT)}
    steps = [
        ("init", ["init"]),
        ("ingest pararel", ["ingest", "pararel", data / "pararel" / "patterns"]),
        ("ingest translations", ["ingest", "translations", data / "mpararel" / "translations"]),
        ("ingest tuples", ["ingest", "tuples", data / "mpararel" / "tuples"]),
        ("candidates build", ["candidates", "build"]),
        ("release build", ["release", "build", "bench"]),
        ("release export", ["release", "export", "bench", work / "release"]),
        ("stats", ["stats", work / "release", "--json"]),
        ("re-ingest translations (unchanged)", ["ingest", "translations", data / "mpararel" / "translations"]),
        ("re-ingest tuples (unchanged)", ["ingest", "tuples", data / "mpararel" / "tuples"]),
    ]
    rows = []
    try:
        for name, args in steps:
            rows.append(run(name, [str(a) for a in args], env))
            print(f"  {name}: {rows[-1][1]:.1f} s", file=sys.stderr)
        size = sum(p.stat().st_size for p in work.glob("bench.sqlite*")) / 2**20
    finally:
        shutil.rmtree(work, ignore_errors=True)
    width = max(len(r[0]) for r in rows)
    print(f"{'step':<{width}}  {'seconds':>8}  {'peak RSS MB':>11}")
    print(f"{'-' * width}  {'-' * 8}  {'-' * 11}")
    for name, seconds, rss, _ in rows:
        print(f"{name:<{width}}  {seconds:>8.1f}  {rss:>11.0f}")
    total = sum(r[1] for r in rows[:8])
    print(f"{'first full run (steps 1-8)':<{width}}  {total:>8.1f}")
    print(f"database size: {size:.0f} MB; cores: {os.cpu_count()}")


if __name__ == "__main__":
    main()

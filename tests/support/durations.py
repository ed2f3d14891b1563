"""Per-file sums of a pytest `--durations=0` report: where the suite's time goes.

    pytest -n auto --dist loadfile --durations=0 > run.txt
    python tests/support/durations.py run.txt [--top 25]

Prints each file's seconds (setup + call + teardown of its tests, as pytest measured them: wall
time inside the worker, so a busy machine inflates them all alike), the sum over all files (the
worker-seconds the workers share) and the longest file: under `--dist loadfile` a file runs on one
worker, so the suite cannot end before its longest file does, nor before the sum over the
workers; `max(longest, sum / workers)` is that lower bound.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

LINE = re.compile(r"^\s*([0-9.]+)s (setup|call|teardown)\s+(\S+?\.py)::")


def per_file(report: str) -> dict[str, float]:
    """File -> seconds, from the lines of a `--durations` report."""
    sums: dict[str, float] = defaultdict(float)
    for line in report.splitlines():
        match = LINE.match(line)
        if match:
            sums[match.group(3)] += float(match.group(1))
    return dict(sums)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="pytest's output with --durations=0")
    parser.add_argument("--top", type=int, default=25, help="how many of the longest files to list")
    parser.add_argument("--workers", type=int, default=2, help="xdist workers (for the lower bound)")
    args = parser.parse_args(argv)
    sums = per_file(args.report.read_text(encoding="utf-8", errors="replace"))
    if not sums:
        print("no durations found: run pytest with --durations=0", file=sys.stderr)
        return 1
    ranked = sorted(sums.items(), key=lambda kv: -kv[1])
    for name, seconds in ranked[: args.top]:
        print(f"{seconds:8.1f} s  {name}")
    total = sum(sums.values())
    longest = ranked[0]
    by_folder: dict[str, float] = defaultdict(float)
    for name, seconds in sums.items():
        by_folder[name.split("/")[1] if name.count("/") > 1 else "."] += seconds
    print("folders: " + ", ".join(f"{k} {v:.0f} s" for k, v in sorted(by_folder.items(), key=lambda kv: -kv[1])))
    print(f"files={len(sums)} sum={total:.0f} s  longest={longest[1]:.0f} s ({longest[0]})")
    print(f"lower bound on {args.workers} workers: {max(longest[1], total / args.workers):.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

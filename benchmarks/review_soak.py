"""A soak of the review screen: the suite's property test of a volunteer's actions, for longer.

`tests/web/test_review_actions.py` drives the real review screen in Chromium (a phone in
Spanish, a desktop in Arabic) with random sequences of a volunteer's actions and compares, after
every step, what is stored with a reference of what they typed and chose (docs/review-app.md,
"Pending work"). The suite runs a few examples of 40 steps each; this runs the same test with
more and longer examples (`--long`: 8 examples of 250 steps per configuration, 4,000 steps in
all) and prints one row per configuration:

| column        | what it is                                                             |
|---------------|------------------------------------------------------------------------|
| configuration | the interface language and the device                                  |
| examples      | volunteers driven (each a new account with a fresh sample)             |
| steps         | actions checked (the comparison runs after each)                       |
| seconds       | the configuration's wall time, the server and the browser included     |
| ms / step     | seconds per step                                                       |
| vs suite      | ms / step over the suite-sized run's ms / step measured first, in the same run (how much slower a long sequence gets: localStorage, history and the queue grow) |
| result        | passed, or the first failing sequence (hypothesis prints it, shrunk)   |

The sequences are derandomized (the same on every run for the same sizes). Exits 1 when a
configuration fails. Needs what the browser tests need (`bash bin/dev test` installs it).

Usage: python benchmarks/review_soak.py [--long] [--steps N] [--examples N] [--only es-phone,ar-desktop]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST = "tests/web/test_review_actions.py"
CONFIGS = ("es-phone", "ar-desktop")


def run(config: str, steps: int, examples: int) -> tuple[int, int, float, bool, str]:
    """(examples, steps, seconds, passed, output tail) of one configuration."""
    with tempfile.TemporaryDirectory() as tmp:
        count = Path(tmp) / "steps"
        env = dict(
            os.environ,
            CURATOR_REVIEW_STEPS=str(steps),
            CURATOR_REVIEW_EXAMPLES=str(examples),
            CURATOR_REVIEW_COUNT=str(count),
        )
        command = [sys.executable, "-m", "pytest", f"{TEST}::test_random_sequences_of_a_volunteers_actions[{config}]"]
        command += ["-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0"]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        lines = count.read_text(encoding="utf-8").split() if count.exists() else []
        counted = [int(n) for n in lines[1::2]]
        return len(counted), sum(counted), seconds, done.returncode == 0, (done.stdout + done.stderr)[-4000:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--long", action="store_true", help="8 examples of 250 steps per configuration")
    parser.add_argument("--steps", type=int, help="steps per example (default 40; --long 250)")
    parser.add_argument("--examples", type=int, help="examples per configuration (default 3; --long 8)")
    parser.add_argument("--only", default=",".join(CONFIGS), help="configurations, comma-separated")
    args = parser.parse_args(argv)
    steps = args.steps or (250 if args.long else 40)
    examples = args.examples or (8 if args.long else 3)
    configs = [c for c in args.only.split(",") if c]
    unknown = sorted(set(configs) - set(CONFIGS))
    if unknown:
        parser.error(f"--only: unknown configuration {', '.join(unknown)} (known: {', '.join(CONFIGS)})")
    rows, failed = [], []
    for config in configs:
        # the floor of the same run: the suite's size first, then the asked one
        base = run(config, 40, 1)
        got = run(config, steps, examples)
        base_ms = 1000 * base[2] / base[1] if base[1] else float("nan")
        ms = 1000 * got[2] / got[1] if got[1] else float("nan")
        rows.append((config, got[0], got[1], got[2], ms, ms / base_ms, "passed" if got[3] else "FAILED"))
        if not (got[3] and base[3]):
            failed.append((config, (base if not base[3] else got)[4]))
    print("| configuration | examples | steps | seconds | ms / step | vs suite | result |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for config, n, total, seconds, ms, ratio, result in rows:
        print(f"| {config} | {n} | {total} | {seconds:.0f} | {ms:.0f} | {ratio:.2f} | {result} |")
    for config, tail in failed:
        print(f"\n{config} failed:\n{tail}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

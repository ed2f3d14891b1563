"""Count the checks in tests/: `assert` statements and `pytest.raises` uses, by file and in all.

Run it before and after moving or splitting tests (issue 40 §3): the totals must be equal, or
each difference explained. With --collect it also counts the test ids pytest collects
(`pytest --collect-only -q`, run in this interpreter).

    python tests/support/count_checks.py            # totals
    python tests/support/count_checks.py --files    # per file, then totals
    python tests/support/count_checks.py --collect  # and the collected test ids
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent


def _is_raises(node: ast.AST) -> bool:
    """`pytest.raises(...)` or a bare `raises(...)` (imported from pytest)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr == "raises" and isinstance(func.value, ast.Name) and func.value.id == "pytest"
    return isinstance(func, ast.Name) and func.id == "raises"


def count_file(path: Path) -> tuple[int, int]:
    """(assert statements, pytest.raises calls) in one Python file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    asserts = raises = 0
    for node in ast.walk(tree):
        asserts += isinstance(node, ast.Assert)
        raises += _is_raises(node)
    return asserts, raises


def count_tree(root: Path = TESTS) -> dict[str, tuple[int, int]]:
    """Every .py file under `root` (relative path -> counts)."""
    return {p.relative_to(root).as_posix(): count_file(p) for p in sorted(root.rglob("*.py"))}


def collected_ids() -> int:
    """The number of test ids `pytest --collect-only -q` lists (from the repository root)."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return sum(1 for line in run.stdout.splitlines() if re.match(r"^tests/\S+::", line))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", action="store_true", help="print the counts of each file")
    parser.add_argument("--collect", action="store_true", help="also count the collected test ids")
    args = parser.parse_args(argv)
    counts = count_tree()
    if args.files:
        for name, (asserts, raises) in counts.items():
            print(f"{asserts:5d} {raises:4d}  {name}")
    asserts = sum(a for a, _ in counts.values())
    raises = sum(r for _, r in counts.values())
    print(f"asserts={asserts} raises={raises} checks={asserts + raises} files={len(counts)}")
    if args.collect:
        print(f"test ids={collected_ids()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

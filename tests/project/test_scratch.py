"""`bash bin/dev test`'s temporary folder in memory (tests/plugins/scratch.py): the pytest that bin/dev
became removes it when the run passes, keeps and names it when a test fails; neither an xdist
worker nor a pytest started by a test touches it. Each case starts a real pytest the way bin/dev
does (a shell makes /dev/shm/curator-tests.<its pid>, here in tmp_path, then execs pytest)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# bin/dev's steps: the folder named after the shell's pid, which `exec` hands on to pytest
AS_BIN_DEV = 'scratch="$1/curator-tests.$$"; mkdir -m 711 "$scratch"; echo "$scratch"; shift; '
AS_BIN_DEV += 'export CURATOR_TEST_SCRATCH="$scratch" TMPDIR="$scratch"; exec "$@"'

PASSING = """
import os, subprocess, sys

def test_a_pytest_started_inside_leaves_the_folder(tmp_path):
    (tmp_path / "test_inner.py").write_text("def test_inner():\\n    pass\\n")
    inner = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.plugins.scratch", "-p", "no:cacheprovider",
         "--basetemp", str(tmp_path / "inner"), str(tmp_path / "test_inner.py")],
        capture_output=True, text=True,
    )
    assert inner.returncode == 0, inner.stdout + inner.stderr
    assert os.path.isdir(os.environ["CURATOR_TEST_SCRATCH"])

def test_two():
    assert os.environ["TMPDIR"] == os.environ["CURATOR_TEST_SCRATCH"]
"""

FAILING = """
def test_fails(tmp_path):
    (tmp_path / "evidence.txt").write_text("what the failed test left")
    assert 1 == 2
"""


def run_as_bin_dev(tmp_path: Path, tests: str, *args: str) -> tuple[subprocess.CompletedProcess, Path]:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "test_scratch_case.py").write_text(tests)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.pop("CURATOR_TEST_SCRATCH", None)
    pytest_command = [sys.executable, "-m", "pytest", "-q", "-p", "tests.plugins.scratch", "-p", "no:cacheprovider"]
    result = subprocess.run(
        ["bash", "-c", AS_BIN_DEV, "bash", str(tmp_path), *pytest_command, *args, str(tmp_path / "t")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    scratch = Path(result.stdout.splitlines()[0])
    assert scratch.parent == tmp_path and scratch.name.startswith("curator-tests."), result.stdout
    return result, scratch


def test_a_passing_run_removes_the_folder_after_its_workers(tmp_path):
    result, scratch = run_as_bin_dev(tmp_path, PASSING, "-n", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout
    assert not scratch.exists()
    assert "kept in" not in result.stdout


def test_a_failing_run_keeps_the_folder_and_names_it(tmp_path):
    result, scratch = run_as_bin_dev(tmp_path, FAILING)
    assert result.returncode == 1, result.stdout + result.stderr
    # the failed test's tmp_path (pytest's folders under TMPDIR) is there to look at
    assert [p.read_text() for p in scratch.rglob("evidence.txt")] == ["what the failed test left"]
    assert f"the tests' temporary files are kept in {scratch} (memory) until the next `bash bin/dev test`" in (
        result.stdout
    )

"""The skip allow-list (tests/plugins/skip_policy.py): in CI an unexpected skip fails the run and is
listed with its reason; an allowed one passes; outside CI skips are only reported. Each case
runs a real pytest in a child process on a tiny test folder, with and without pytest-xdist."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

TESTS = """
import pytest

def test_runs():
    assert True

def test_needs_a_browser():
    pytest.skip("no chromium binary (apt-get install chromium)")

@pytest.fixture
def gpu():
    pytest.skip("no CUDA device")

def test_needs_a_gpu(gpu):
    pass
"""


MODULE_SKIP = """
import pytest

pytest.importorskip("no_such_module_for_curator", reason="no_such_module_for_curator is not installed")


def test_never_collected():
    pass
"""


def run_pytest(tmp_path: Path, allowed: str, strict: bool, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_tiny.py").write_text(TESTS)
    (tmp_path / "test_module_skip.py").write_text(MODULE_SKIP)
    (tmp_path / "allowed.txt").write_text(allowed)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "CURATOR_SKIPS_ALLOWED": str(tmp_path / "allowed.txt"),
        "CURATOR_STRICT_SKIPS": "1" if strict else "0",
    }
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "tests.plugins.skip_policy",
        "-p",
        "no:cacheprovider",
        "-rs",
        # a temporary folder of its own: pytest's numbered ones (/tmp/pytest-of-<user>) are shared,
        # and each run that makes one deletes the oldest at exit — the outer suite's earlier runs,
        # hundreds of MB, deleted in the middle of this test
        "--basetemp",
        str(tmp_path / "basetemp"),
        *args,
    ]
    return subprocess.run(
        [*command, "test_tiny.py", "test_module_skip.py"], cwd=tmp_path, env=env, capture_output=True, text=True
    )


XDIST = pytest.param(("-p", "xdist", "-n", "2"), id="xdist")
PLAIN = pytest.param((), id="plain")


@pytest.mark.parametrize("args", [PLAIN, XDIST])
def test_a_skip_not_in_the_allow_list_fails_the_run_with_its_reason(tmp_path, args):
    pytest.importorskip("xdist") if args else None
    result = run_pytest(tmp_path, "# only the GPU may be missing\nno CUDA device\n", True, *args)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "skips not in the allow-list" in result.stdout
    assert "test_tiny.py::test_needs_a_browser: no chromium binary (apt-get install chromium)" in result.stdout
    assert "test_tiny.py::test_needs_a_gpu:" not in result.stdout
    assert "test_module_skip.py: no_such_module_for_curator is not installed" in result.stdout
    assert "1 passed, 3 skipped" in result.stdout


@pytest.mark.parametrize("args", [PLAIN, XDIST])
def test_allowed_skips_pass_and_are_reported(tmp_path, args):
    pytest.importorskip("xdist") if args else None
    result = run_pytest(tmp_path, "no CUDA device\n^no chromium binary\n^no_such_module_for_curator\n", True, *args)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "skips not in the allow-list" not in result.stdout
    assert "SKIPPED" in result.stdout and "no chromium binary" in result.stdout  # -rs lists every skip


def test_outside_ci_skips_are_only_reported(tmp_path):
    result = run_pytest(tmp_path, "", False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "skips not in the allow-list" not in result.stdout and "no chromium binary" in result.stdout


def test_the_allow_list_names_no_service_the_suite_needs():
    """chromium, PostgreSQL, redis-server and axe-core are installed by `bin/dev test`: their
    absence must fail CI, so no pattern in the real allow-list may match their skip reasons."""
    from tests.plugins.browsers import MISSING as NO_CHROMIUM
    from tests.plugins.skip_policy import allowed_patterns
    from tests.support.postgres import MISSING as NO_POSTGRES
    from tests.support.redis_server import MISSING as NO_REDIS

    needed = [NO_REDIS, NO_POSTGRES]
    needed += [NO_CHROMIUM, "playwright is not installed"]
    needed += ["axe-core not found"]
    patterns = allowed_patterns()
    assert not [(p.pattern, reason) for p in patterns for reason in needed if p.search(reason)]

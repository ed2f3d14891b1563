"""A pytest plugin: in CI a skip must be one we expect, or the run fails.

A test that skips because chromium, PostgreSQL, redis-server or axe-core is missing would
otherwise pass silently, and CI would stop checking the browser or the database without anyone
noticing. With CURATOR_STRICT_SKIPS=1 (set by .ci/run) every skip's reason is matched against
the allow-list, tests/plugins/skips_allowed.txt (one regular expression a line, `#` comments; another
file through CURATOR_SKIPS_ALLOWED), and a skip that matches none fails the run, listed with
its reason. Without it, skips are only reported (`-rs`). Under pytest-xdist the check runs in
the controller, which sees every worker's reports.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ALLOWED = Path(__file__).with_name("skips_allowed.txt")


def strict() -> bool:
    return os.environ.get("CURATOR_STRICT_SKIPS", "") not in ("", "0")


def allowed_patterns() -> list[re.Pattern[str]]:
    path = Path(os.environ.get("CURATOR_SKIPS_ALLOWED") or ALLOWED)
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [re.compile(line) for line in lines if line and not line.startswith("#")]


def _reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


class SkipPolicy:
    def __init__(self) -> None:
        self.patterns = allowed_patterns()
        self.refused: list[tuple[str, str]] = []

    def _check(self, report: pytest.TestReport | pytest.CollectReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            reason = _reason(report)
            if not any(p.search(reason) for p in self.patterns):
                self.refused.append((report.nodeid, reason))

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._check(report)

    @pytest.hookimpl
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._check(report)  # a whole module skipped (pytest.importorskip at its top)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.refused and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.refused:
            terminalreporter.section("skips not in the allow-list (CURATOR_STRICT_SKIPS=1)", red=True)
            for nodeid, reason in self.refused:
                terminalreporter.line(f"{nodeid}: {reason}")
            terminalreporter.line(f"fails the run: fix the machine, or add the reason to {ALLOWED.name}")


def pytest_configure(config: pytest.Config) -> None:
    if strict() and not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        config.pluginmanager.register(SkipPolicy(), "curator-skip-policy")

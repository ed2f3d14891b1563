"""`bash bin/dev test`'s folder for the tests' temporary files in memory (`CURATOR_TEST_SCRATCH`,
/dev/shm/curator-tests.<pid>; docs/development.md, "Temporary files in memory"): removed when
the whole run passed; after a failure kept, and named, until the next `bin/dev test` removes it.

Only the pytest process bin/dev became (`exec`, so the folder's <pid> is its own) acts: not an
xdist worker, nor a pytest a test starts inside the run."""

from __future__ import annotations

import os
import shutil

import pytest


def _scratch(config: pytest.Config) -> str | None:
    scratch = os.environ.get("CURATOR_TEST_SCRATCH")
    if not scratch or hasattr(config, "workerinput") or scratch.rsplit(".", 1)[-1] != str(os.getpid()):
        return None
    return scratch


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    scratch = _scratch(session.config)
    if scratch is not None and exitstatus == 0:
        shutil.rmtree(scratch, ignore_errors=True)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    scratch = _scratch(config)
    if scratch is not None and exitstatus != 0:
        terminalreporter.write_line(
            f"the tests' temporary files are kept in {scratch} (memory) until the next `bash bin/dev test`"
        )

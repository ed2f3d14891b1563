"""What is global to the suite; the fixtures live in plugins by concern (tests/plugins/):

- databases.py: SQLite template databases, the throwaway PostgreSQL server and redis-server,
  `db_url` / `engine` / `sessions`, the `backends` marker, `table_snapshot`, `WriteLock`
- cli.py: the `curator` command in-process (`Cli`, `cli`) and what it makes (`loaded`, `release`, `bert`)
- servers.py: the review app (`review_app`, the test client `Browser`), `live` HTTP, `http_root`
- browsers.py: headless Chromium through Playwright (`chromium`, `browser_template`)
- real_data.py: the real data in ../shared (`need_shared`, `shared_data`), skipped when absent
- skip_policy.py: in CI (CURATOR_STRICT_SKIPS=1) a skip not in plugins/skips_allowed.txt fails the run

Here: the cheap password hash of the test process, the threads of each xdist worker, the
`browser` and `postgresql` markers, and the order in which the longest files start.
Helpers that are not fixtures are in tests/support/ (docs/development.md, Testing).
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

import pytest

from curator.review import accounts

pytest_plugins = (
    "tests.plugins.skip_policy",
    "tests.plugins.real_data",
    "tests.plugins.databases",
    "tests.plugins.cli",
    "tests.plugins.servers",
    "tests.plugins.browsers",
    "tests.plugins.scratch",
)

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "curator" / "demo" / "data"

# werkzeug's pbkdf2 with one iteration: microseconds instead of scrypt's ~0.1 s per hash (a
# review_app made four, and every sign-in checks one). Set here, in the test process only:
# production has no way to change accounts.PASSWORD_METHOD (scrypt).
TEST_PASSWORD_METHOD = "pbkdf2:sha256:1"


def pytest_configure(config) -> None:
    accounts.PASSWORD_METHOD = TEST_PASSWORD_METHOD
    # The cyclic garbage collector, less often: a worker holds torch, transformers, SQLAlchemy and
    # Flask's objects, and each full pass walks them all. At Python's default (a young pass every
    # 700 allocations) a worker spent about a fifth of its CPU in the collector; at 50,000 it
    # spends about a third of that. It changes when cyclic garbage is freed, never what a test
    # checks; the servers and CLI processes the tests start keep Python's default.
    gc.set_threshold(50_000, 20, 20)

    # pytest-xdist >= 3.6 reorders --dist loadfile's files by their number of tests unless told
    # not to: that put the wheel test (4 tests, ~30 s alone) 88th of 113 files, and undid the order
    # pytest_collection_modifyitems sets (docs/development.md, Testing)
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:  # each xdist worker's share of the cores: torch's threads would oversubscribe them
        share = str(max(1, (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1) // workers))
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, share)


# the model classes of the tiny models the tests build (curator/probe/tiny.py), each in a module
# transformers loads on first use
TINY_MODEL_CLASSES = (
    "BertForMaskedLM",
    "XLMRobertaForMaskedLM",
    "T5ForConditionalGeneration",
    "GPT2LMHeadModel",
    "MarianMTModel",
    "AutoTokenizer",
)


def pytest_collection_finish(session) -> None:
    """Every test module is imported now (torch, transformers, SQLAlchemy, Flask with them): what
    lives now lives to the end, so the collector stops walking it (`gc.freeze`). A `curator probe`
    run calls `gc.collect()` after each model (curator/probe/jobs.py): in a worker that full pass
    took 0.2–0.5 s. When probe tests were collected (transformers imported), the modules of the
    tiny models' classes are loaded first and frozen with the rest: the probe files' user CPU
    72–73 → 61–66 s, the collector's 11 → 4 s."""
    transformers = sys.modules.get("transformers")
    if transformers is not None:
        for name in TINY_MODEL_CLASSES:
            getattr(transformers, name)
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(items) -> None:
    """The `browser` and `postgresql` markers (pyproject.toml), from what each test uses."""
    for item in items:
        names = getattr(item, "fixturenames", ())
        if "chromium" in names:
            item.add_marker(pytest.mark.browser)
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "postgres" in names or params.get("db_backend") == "postgresql":
            item.add_marker(pytest.mark.postgresql)
    # the longest files first: pytest-xdist hands files to workers in collection order (with its
    # reordering by test count turned off in pytest_configure), so the wheel test (a fresh venv,
    # then torch and [probe] installed into it) and the multi-process runs start at once beside the
    # rest instead of last, alone, on the critical path; `long` marks the other files of half a
    # minute or more (the served-process and axe files), which ran last at times and kept one
    # worker busy for their whole length after the other had finished
    first = ("packaging", "distributed", "slow", "long")

    def rank(item: pytest.Item) -> int:
        return next((i for i, name in enumerate(first) if item.get_closest_marker(name)), len(first))

    items.sort(key=rank)  # stable: the order within each file and among the rest is kept

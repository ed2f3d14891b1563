"""The real data in ../shared/data (beside the checkout): `need_shared()` returns its folder or
skips the test with the reason; the `shared_data` fixture does the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT

SHARED_DATA = ROOT.parent / "shared" / "data"


def need_shared() -> Path:
    if not (SHARED_DATA / "pararel" / "patterns").is_dir():
        pytest.skip(f"real data not found at {SHARED_DATA} (../shared beside the checkout)")
    return SHARED_DATA


@pytest.fixture
def shared_data() -> Path:
    return need_shared()

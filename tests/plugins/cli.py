"""The `curator` command in-process (`Cli`, the `cli` fixture) and the data it makes: the seed
loaded (`loaded`), a release exported (`release`), a tiny real BERT (`bert`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from curator.cli import main
from tests.conftest import SEED


class Cli:
    """Runs `curator --database URL …` in-process and returns the click result."""

    def __init__(self, url: str):
        self.url = url
        # where the links of `curator user invite` and `reset-link` point (the developer's own
        # environment does not leak in); a test of the path-only default passes env=
        self.runner = CliRunner(env={"CURATOR_BASE_URL": "http://127.0.0.1:5000"})

    def __call__(self, *args: str, ok: bool = True, env: dict[str, str | None] | None = None):
        result = self.runner.invoke(main, ["--database", self.url, *map(str, args)], catch_exceptions=False, env=env)
        if ok:
            assert result.exit_code == 0, result.output
        return result


@pytest.fixture
def cli(db_url: str) -> Cli:
    return Cli(db_url)


@pytest.fixture
def loaded(cli, tmp_path) -> Path:
    """A database with the seed loaded, and a private copy of the seed to break."""
    cli("init")
    cli("ingest", "pararel", SEED / "pararel" / "patterns")
    cli("ingest", "translations", SEED / "translations")
    cli("ingest", "tuples", SEED / "tuples")
    copy = tmp_path / "seed"
    shutil.copytree(SEED, copy)
    return copy


def seed_release(cli: Cli, folder: Path) -> Path:
    """The demo seed built into version v0 and exported to `folder` in the mParaRel layout."""
    cli("seed")
    cli("release", "build", "v0")
    cli("release", "export", "v0", folder)
    return folder


@pytest.fixture
def release(cli, tmp_path) -> Path:
    """`seed_release` into tmp_path/v0: the probe tests' source."""
    return seed_release(cli, tmp_path / "v0")


@pytest.fixture
def bert(cli, release, tmp_path) -> Path:
    """A tiny real BERT (random weights, a tokenizer trained on the release) saved as a model folder."""
    path = tmp_path / "bert"
    cli("models", "tiny", path, "--kind", "bert", "--corpus", release)
    return path

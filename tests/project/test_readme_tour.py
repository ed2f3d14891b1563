"""README.md's tour runs as written, in order, on a fresh database (issue 40 review P2-2): each
`curator` line of its block, `$D` pointing at a subset of the real data in ../shared/data (two
relations, Spanish and Arabic, a few facts each), `serve` left out (it serves until stopped), and
the probe given a tiny random BERT trained on the release instead of downloading mBERT."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from tests.plugins.cli import Cli

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
RELATIONS = ("P19", "P103")
LANGUAGES = ("es", "ar")
FACTS = 5  # tuples per language and relation: enough to probe, quick to score


def tour_lines() -> list[list[str]]:
    """The `curator …` commands of README's tour block, in order, comments dropped."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## A five-line tour\n+```bash\n(.*?)```", text, re.S)
    assert block, "README.md has no tour block"
    lines = [shlex.split(line, comments=True) for line in block.group(1).splitlines()]
    return [line[1:] for line in lines if line and line[0] == "curator"]


def subset(out: Path) -> Path:
    """The tour's data folder (`$D`): the same layout as ../shared/data, a few files of it."""
    (out / "pararel" / "patterns").mkdir(parents=True)
    for rel in RELATIONS:
        shutil.copy(DATA / "pararel" / "patterns" / f"{rel}.jsonl", out / "pararel" / "patterns")
    for system in (DATA / "mpararel" / "translations").iterdir():
        for lang in LANGUAGES:
            for rel in RELATIONS:
                source = system / lang / f"{rel}.jsonl"
                if source.exists():
                    (out / "mpararel" / "translations" / system.name / lang).mkdir(parents=True, exist_ok=True)
                    shutil.copy(source, out / "mpararel" / "translations" / system.name / lang)
    for lang in ("en", *LANGUAGES):
        (out / "mpararel" / "tuples" / lang).mkdir(parents=True)
        for rel in RELATIONS:
            lines = (DATA / "mpararel" / "tuples" / lang / f"{rel}.jsonl").read_text(encoding="utf-8").splitlines()
            (out / "mpararel" / "tuples" / lang / f"{rel}.jsonl").write_text("\n".join(lines[:FACTS]) + "\n")
    return out


@pytest.mark.skipif(not DATA.is_dir(), reason="needs the real data in ../shared/data")
def test_the_readme_tour_runs_in_order_on_a_fresh_database(tmp_path, monkeypatch):
    pytest.importorskip("torch")  # the probe line (the probe extra)
    monkeypatch.chdir(tmp_path)
    data = subset(tmp_path / "data")
    cli = Cli(f"sqlite:///{tmp_path / 'fresh.sqlite'}")
    outputs = []
    for line in tour_lines():
        args = [arg.replace("$D", str(data)) for arg in line]
        if args[0] == "serve":
            continue
        if args[0] == "probe":  # mBERT is a download: a tiny BERT trained on the release stands in
            cli("release", "export", args[1], tmp_path / "release")
            cli("models", "tiny", tmp_path / "bert", "--kind", "bert", "--corpus", tmp_path / "release")
            args[args.index("--model") + 1] = str(tmp_path / "bert")
        outputs.append(cli(*args).output)
    assert "2 of 2 languages included" in "".join(outputs)
    assert "version v1: 2 languages" in "".join(outputs)
    assert (tmp_path / "reports" / "mbert-v1" / "index.html").is_file()

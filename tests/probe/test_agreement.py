"""Every probe mode fills an annotated template with the forms that agree (issue 39 §2): a release
folder whose templates hold X-FACTR's alternatives and articles, a genders table in a real SQLite
database, `curator probe` run with tiny real models (masked: ranking, PLL and decoding; causal;
seq2seq), and the texts the models' tokenizers were given, recorded on their way in."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from curator.probe.runner import load_result
from curator.probe.scorers.base import Scorer
from tests.core.test_agreement import genders_file, release_folder

MODES = [
    ("bert", ()),
    ("bert", ("--score-mode", "pll")),
    ("bert", ("--decode", "order", "--max-masks", "2")),
    ("gpt2", ()),
    ("t5", ()),
]


@pytest.fixture
def seen(monkeypatch) -> list[str]:
    """Every text a scorer tokenizes as a whole query (the model's input), in order."""
    texts: list[str] = []
    tokenize, tokenize_words = Scorer.tokenize, Scorer.tokenize_words

    def recording(self, batch):
        texts.extend(batch)
        return tokenize(self, batch)

    def recording_words(self, batch):
        texts.extend(batch)
        return tokenize_words(self, batch)

    monkeypatch.setattr(Scorer, "tokenize", recording)
    monkeypatch.setattr(Scorer, "tokenize_words", recording_words)
    return texts


def test_every_mode_gives_the_model_the_agreeing_forms(cli, tmp_path, seen):
    release = release_folder(tmp_path / "rel")
    cli("ingest", "genders", genders_file(tmp_path))
    models = {}
    for kind in ("bert", "gpt2", "t5"):
        models[kind] = tmp_path / kind
        cli(
            "models", "tiny", models[kind], "--kind", kind, "--corpus", release, "--vocab-size", "400", "--hidden", "32"
        )
    for number, (kind, options) in enumerate(MODES):
        seen.clear()
        out = tmp_path / f"run{number}"
        result = cli("probe", release, "--model", models[kind], "--out", out, "--device", "cpu", *options)
        assert "probed 2 relations" in result.output, result.output
        where = f"{kind} {' '.join(options)}"
        # women get the feminine forms, men the masculine, in every mode; the plain template as written
        for fragment in (
            "Claude Arrieu est née à",
            "Olympe de Gouges est née à",
            "Allan Peiper est né à",
            "Kurt Schwertsik est né à",
            "Claude Arrieu es una miembra de",
            "Allan Peiper es un miembro de",
            "Claude Arrieu vient de",
        ):
            assert any(fragment in text for text in seen), (where, fragment, seen[:8])
        for wrong in (
            "Claude Arrieu est né à",
            "Allan Peiper est née à",
            "Claude Arrieu es un miembro",
            "X-Gender",
            "[ART",
        ):
            assert not any(wrong in text for text in seen), (where, wrong)
        index, _ = load_result(out, "fr", "P19")
        assert "[X] est [né;X-Gender=MASC|née;X-Gender=FEM] à [Y] ." in index["templates"]  # rows keep the template

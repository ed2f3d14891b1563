"""`release export --hf`: JSONL and Parquet tables that Hugging Face `datasets` loads, offline."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from curator.core.formats.release import HF_COLUMNS
from tests.support.files import tree_bytes


@pytest.fixture
def datasets(tmp_path, monkeypatch):
    """`datasets`, offline, with every cache under tmp_path (model hubs are out of reach here)."""
    home = tmp_path / "hf-home"
    for name, value in (
        ("HF_DATASETS_OFFLINE", "1"),
        ("HF_HUB_OFFLINE", "1"),
        ("HF_HOME", str(home)),
        ("HF_DATASETS_CACHE", str(home / "datasets")),
    ):
        monkeypatch.setenv(name, value)
    datasets = pytest.importorskip("datasets")
    # the variables are read at import time: set them on the modules too, in case another test imported them first
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True, raising=False)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    datasets.disable_progress_bars()
    return datasets


@pytest.fixture
def exported(cli, tmp_path):
    cli("seed")
    cli("release", "build", "v0")
    out = tmp_path / "v0"
    cli("release", "export", "v0", out, "--hf")
    return out


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_jsonl_and_parquet_load_with_datasets_and_match_the_release(datasets, exported, tmp_path):
    cache = str(tmp_path / "cache")
    release_counts = {
        kind: Counter({(p.parent.name, p.stem): len(_lines(p)) for p in (exported / kind).glob("*/*.jsonl")})
        for kind in ("patterns", "tuples")
    }
    for kind in ("patterns", "tuples"):
        from_json = datasets.load_dataset(
            "json", data_files=str(exported / "hf" / f"{kind}.jsonl"), cache_dir=cache, split="train"
        )
        from_parquet = datasets.load_dataset(
            "parquet", data_files=str(exported / "hf" / f"{kind}.parquet"), cache_dir=cache, split="train"
        )
        # same columns, types and rows in both formats
        assert from_json.column_names == from_parquet.column_names == list(HF_COLUMNS[kind])
        assert from_json.features == from_parquet.features
        assert from_json.num_rows == from_parquet.num_rows > 0
        assert from_json.to_list() == from_parquet.to_list()
        # ... and the same rows as the release files, relation by relation
        counts = Counter(zip(from_parquet["language"], from_parquet["relation"]))
        assert counts == release_counts[kind]
        first_lang, first_rel = from_parquet[0]["language"], from_parquet[0]["relation"]
        first = _lines(exported / kind / first_lang / f"{first_rel}.jsonl")[0]
        if kind == "patterns":
            assert from_parquet.features["checked_by_human"].dtype == "bool"
            assert from_parquet[0]["pattern"] == first["pattern"]
            assert from_parquet[0]["checked_by_human"] == first["checked-by-human"]
        else:
            assert from_parquet.features["lineid"].dtype == "int64"
            assert {k: from_parquet[0][k] for k in first} == first
    # the dataset card's header makes them the "patterns" and "tuples" configs of the folder
    card = (exported / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\nconfigs:") and "data_files: hf/patterns.parquet" in card
    by_config = datasets.load_dataset(str(exported), "tuples", cache_dir=cache, split="train")
    assert sum(release_counts["tuples"].values()) == by_config.num_rows
    # the manifest vouches for the Parquet files too
    manifest = json.loads((exported / "manifest.json").read_text(encoding="utf-8"))
    for name in ("hf/patterns.parquet", "hf/tuples.parquet"):
        assert manifest["files"][name] == hashlib.sha256((exported / name).read_bytes()).hexdigest()


def test_hf_export_is_byte_identical_and_imports_back(cli, exported, tmp_path):
    again = tmp_path / "again"
    cli("release", "export", "v0", again, "--hf")
    assert tree_bytes(again) == tree_bytes(exported)  # the Parquet files included
    # an --hf export is a release like any other: import skips hf/ and reads the same data
    cli("release", "import", exported, "--version", "copy")
    copy = tmp_path / "copy"
    cli("release", "export", "copy", copy)
    a, b = tree_bytes(exported), tree_bytes(copy)
    assert {p: a[p] for p in a if p.startswith(("patterns/", "tuples/"))} == {
        p: b[p] for p in b if p.startswith(("patterns/", "tuples/"))
    }


def test_the_annotated_column_loads_alike_from_jsonl_and_parquet(datasets, cli, tmp_path):
    """Review of issue 39, P2-5: a release holding an annotated template gets a last column
    `annotated` (null on the other lines) that `datasets` reads with the same type from both files."""
    annotated = "[X] est [né;X-Gender=MASC|née;X-Gender=FEM] à [Y] ."
    root = tmp_path / "rel"
    (root / "patterns/fr").mkdir(parents=True)
    lines = [{"pattern": "[X] est né à [Y] .", "annotated": annotated}, {"pattern": "[X] vient de [Y] ."}]
    (root / "patterns/fr/P19.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    cli("init")
    cli("release", "import", root, "--version", "a1")
    cli("release", "export", "a1", tmp_path / "out", "--hf")
    cache = str(tmp_path / "cache")
    hf = tmp_path / "out" / "hf"
    from_json = datasets.load_dataset("json", data_files=str(hf / "patterns.jsonl"), cache_dir=cache, split="train")
    from_parquet = datasets.load_dataset(
        "parquet", data_files=str(hf / "patterns.parquet"), cache_dir=cache, split="train"
    )
    assert from_json.column_names == from_parquet.column_names == [*HF_COLUMNS["patterns"], "annotated"]
    assert from_json.features == from_parquet.features and from_parquet.features["annotated"].dtype == "string"
    assert from_json.to_list() == from_parquet.to_list()
    assert from_parquet["annotated"] == [annotated, None]

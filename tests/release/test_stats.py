"""Tests for curator.release.stats (SPEC §4 dataset statistics) on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator.release.stats import DatasetStats, dataset_stats, format_stats
from tests.plugins.real_data import SHARED_DATA

pytestmark = pytest.mark.backends("sqlite", "postgresql")

DATA = SHARED_DATA / "mpararel"


def _write_patterns(path: Path, patterns: list[str], blank_lines: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps({"pattern": p, "checked-by-human": i % 2 == 0}) for i, p in enumerate(patterns)]
    if blank_lines:
        lines.insert(1, "")
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _write_tuples(path: Path, n: int, blank_lines: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps({"sub_uri": f"Q{i}", "obj_uri": "Q1", "obj_label": "O", "sub_label": f"S{i}", "lineid": i})
        for i in range(n)
    ]
    if blank_lines:
        lines.insert(1, "")
        lines.append("   ")
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


@pytest.fixture()
def small_release(tmp_path: Path) -> Path:
    root = tmp_path / "release"
    pat, tup = root / "patterns", root / "tuples"
    # de: P1 (3 patterns), P2 (1), P3 (2), P4 (empty file -> not a relation of de)
    _write_patterns(pat / "de" / "P1.jsonl", ["ab", "abc", "xbc"], blank_lines=True)
    _write_patterns(pat / "de" / "P2.jsonl", ["[X] a [Y]"])
    _write_patterns(pat / "de" / "P3.jsonl", ["x y", "x z"])
    _write_patterns(pat / "de" / "P4.jsonl", [])
    (pat / "de" / "README.txt").write_text("not a relation\n", encoding="utf-8")
    # en: P1 (2), P2 (1)
    _write_patterns(pat / "en" / "P1.jsonl", ["kitten", "sitting"])
    _write_patterns(pat / "en" / "P2.jsonl", ["[X] [Y]"])
    # fr: only an empty patterns file -> fr is not a language of the release
    _write_patterns(pat / "fr" / "P1.jsonl", [])
    # tuples (de/P2 has none -> contributes 0 phrases; de/P4 has no patterns -> ignored)
    _write_tuples(tup / "de" / "P1.jsonl", 5, blank_lines=True)
    _write_tuples(tup / "de" / "P3.jsonl", 2)
    _write_tuples(tup / "de" / "P4.jsonl", 10)
    _write_tuples(tup / "en" / "P1.jsonl", 4)
    _write_tuples(tup / "en" / "P2.jsonl", 1)
    _write_tuples(tup / "fr" / "P1.jsonl", 7)
    return root


def test_small_release_hand_computed(small_release: Path) -> None:
    s = dataset_stats(small_release)
    assert isinstance(s, DatasetStats)
    assert s.languages == ["de", "en"]
    # relations: de 3 (P1, P2, P3), en 2 -> 2.5
    assert s.avg_relations == pytest.approx(2.5)
    # total patterns: de 3+1+2 = 6, en 2+1 = 3 -> 4.5
    assert s.avg_total_patterns == pytest.approx(4.5)
    # per (lang, rel): 3, 1, 2, 2, 1
    assert s.min_patterns_in_relation == 1
    assert s.max_patterns_in_relation == 3
    assert s.avg_patterns_in_relation == pytest.approx(9 / 5)
    # Levenshtein, pairs pooled over a language's relations:
    # de/P1: d(ab,abc)=1, d(ab,xbc)=2, d(abc,xbc)=1; de/P3: d("x y","x z")=1 -> 5 / 4 pairs = 1.25
    #   (the mean of per-relation means would be (4/3 + 1)/2 = 1.1667, so pooling is checked)
    # en/P1: d(kitten, sitting)=3 -> 3 / 1 pair = 3.0
    # mean over languages: (1.25 + 3.0) / 2 = 2.125
    assert s.avg_string_distance == pytest.approx(2.125)
    # phrases: de 3*5 + 1*0 + 2*2 = 19 ; en 2*4 + 1*1 = 9 (blank tuple lines are not counted)
    assert s.phrases_per_language == {"de": 19, "en": 9}


def test_language_without_pairs_is_skipped_in_distance(tmp_path: Path) -> None:
    _write_patterns(tmp_path / "patterns" / "aa" / "P1.jsonl", ["one"])
    _write_patterns(tmp_path / "patterns" / "bb" / "P1.jsonl", ["abcd", "abce"])
    s = dataset_stats(tmp_path)
    assert s.languages == ["aa", "bb"]
    assert s.avg_string_distance == pytest.approx(1.0)  # only bb has a pair
    assert s.phrases_per_language == {"aa": 0, "bb": 0}  # no tuples/ folder at all


def test_empty_release_gives_zeros(tmp_path: Path) -> None:
    (tmp_path / "patterns").mkdir()
    s = dataset_stats(tmp_path)
    assert s.languages == []
    assert (s.avg_relations, s.avg_total_patterns, s.avg_string_distance) == (0.0, 0.0, 0.0)
    assert (s.min_patterns_in_relation, s.max_patterns_in_relation) == (0, 0)
    assert s.phrases_per_language == {}
    assert "lang" in format_stats(s)


def test_to_dict_keys_and_json(small_release: Path) -> None:
    d = dataset_stats(small_release).to_dict()
    assert list(d) == [
        "languages",
        "avg_relations",
        "avg_total_patterns",
        "min_patterns_in_relation",
        "max_patterns_in_relation",
        "avg_patterns_in_relation",
        "avg_string_distance",
        "phrases_per_language",
    ]
    assert json.loads(json.dumps(d)) == d
    assert d["phrases_per_language"] == {"de": 19, "en": 9}


def test_deterministic(small_release: Path) -> None:
    a, b = dataset_stats(small_release), dataset_stats(str(small_release))
    assert a == b
    assert format_stats(a) == format_stats(b)


def test_format_stats_table(small_release: Path) -> None:
    text = format_stats(dataset_stats(small_release))
    lines = text.splitlines()
    assert any("avg string distance" in line and "2.12" in line for line in lines)
    header_idx = next(i for i, line in enumerate(lines) if line.split()[:1] == ["lang"])
    header = lines[header_idx]
    for col in ("#relations", "#patterns", "#phrases"):
        assert col in header
    rows = lines[header_idx + 2 :]
    assert [r.split() for r in rows] == [["de", "3", "6", "19"], ["en", "2", "3", "9"]]
    # right-aligned numeric columns: every table line ends at the same column
    assert len({len(line) for line in lines[header_idx:]}) == 1


def test_missing_patterns_dir(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="patterns") as exc:
        dataset_stats(tmp_path)
    assert str(tmp_path) in str(exc.value)


def test_bad_json_line_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "patterns" / "de" / "P17.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text(
        '{"pattern": "[X] liegt in [Y].", "checked-by-human": true}\n'
        '{"pattern": "[X] ist in [Y].", "checked-by-human": false}\n'
        '{"pattern": "[X] broken\n',
        encoding="utf-8",
    )
    with pytest.raises(ValueError) as exc:
        dataset_stats(tmp_path)
    msg = str(exc.value)
    assert "P17.jsonl" in msg
    assert "line 3" in msg


def test_missing_pattern_field_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "patterns" / "de" / "P19.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"template": "[X] [Y]"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"P19\.jsonl.*line 1"):
        dataset_stats(tmp_path)


REAL_LANGS = ["de", "es", "fr"]


@pytest.mark.slow
@pytest.mark.skipif(
    not (DATA / "tuples").is_dir() or not (DATA / "translations" / "pararel_bing").is_dir(),
    reason=f"real mParaRel data not found at {DATA} (../shared beside the checkout)",
)
def test_real_data_release(tmp_path: Path) -> None:
    root = tmp_path / "release"
    for lang in REAL_LANGS:
        for src in sorted((DATA / "translations" / "pararel_bing" / lang).glob("*.jsonl")):
            patterns = [
                json.loads(line)["pattern"] for line in src.read_text(encoding="utf-8").splitlines() if line.strip()
            ]
            _write_patterns(root / "patterns" / lang / src.name, patterns)
            tuples_src = DATA / "tuples" / lang / src.name
            if tuples_src.is_file():
                dst = root / "tuples" / lang / src.name
                dst.parent.mkdir(parents=True, exist_ok=True)
                dst.write_bytes(tuples_src.read_bytes())

    s = dataset_stats(root)  # its speed is measured in benchmarks/ingest.py ("stats"), not asserted here

    assert s.languages == REAL_LANGS
    assert 1 <= s.min_patterns_in_relation <= s.avg_patterns_in_relation <= s.max_patterns_in_relation
    assert s.avg_relations > 20
    assert s.avg_total_patterns >= s.avg_relations
    assert s.avg_string_distance > 0
    assert all(v > 0 for v in s.phrases_per_language.values())

    # independent recomputation for one (lang, rel): #patterns x #tuples (parsed here)
    pat_file = root / "patterns" / "de" / "P17.jsonl"
    tup_file = DATA / "tuples" / "de" / "P17.jsonl"
    n_pat = sum(1 for line in pat_file.read_text(encoding="utf-8").splitlines() if line.strip())
    n_tup = sum(1 for line in tup_file.read_text(encoding="utf-8").splitlines() if line.strip())
    expected_de = 0
    for pf in sorted((root / "patterns" / "de").glob("*.jsonl")):
        k = sum(1 for line in pf.read_text(encoding="utf-8").splitlines() if line.strip())
        tf = DATA / "tuples" / "de" / pf.name
        m = sum(1 for line in tf.read_text(encoding="utf-8").splitlines() if line.strip()) if tf.is_file() else 0
        expected_de += k * m
    assert n_pat > 0 and n_tup > 0
    assert s.phrases_per_language["de"] == expected_de
    assert s.phrases_per_language["de"] >= n_pat * n_tup

    text = format_stats(s)
    for lang in REAL_LANGS:
        assert any(line.split()[:1] == [lang] for line in text.splitlines())

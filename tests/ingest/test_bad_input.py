"""Bad input ends with an error naming file, line and field, and the database is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SEED
from tests.plugins.databases import table_snapshot

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def _rewrite_line(path: Path, number: int, text: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[number - 1] = text
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _fails(cli, engine, *args) -> str:
    before = table_snapshot(engine)
    result = cli(*args, ok=False)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert table_snapshot(engine) == before, "a failed import changed the database"
    return result.output


def test_malformed_json_names_file_and_line(cli, engine, loaded):
    # A later file is broken: everything before it in the same run must be rolled back too.
    target = loaded / "translations" / "pararel_opus_mt" / "es" / "P37.jsonl"
    _rewrite_line(target, 3, '{"pattern": "[X] habla [Y]"')
    (loaded / "translations" / "pararel_bing" / "ar" / "P19.jsonl").write_text(
        json.dumps({"pattern": "[X] changed [Y]"}) + "\n", encoding="utf-8"
    )
    out = _fails(cli, engine, "ingest", "translations", loaded / "translations")
    assert str(target) in out and "line 3" in out and "malformed JSON" in out


def test_missing_field_names_the_field(cli, engine, loaded):
    target = loaded / "tuples" / "es" / "P36.jsonl"
    _rewrite_line(target, 4, json.dumps({"sub_uri": "Q142", "obj_uri": "Q90", "sub_label": "Francia", "lineid": 3}))
    out = _fails(cli, engine, "ingest", "tuples", loaded / "tuples")
    assert str(target) in out and "line 4" in out and "'obj_label'" in out and "missing" in out


def test_a_bad_tuples_file_stops_the_import_before_any_file_is_stored(cli, engine, loaded):
    """The tuples import stores file by file (short write transactions, so reviewers are never
    kept waiting) — but only after every file was checked: a good changed file before a bad one
    is not stored either."""
    good = loaded / "tuples" / "ar" / "P19.jsonl"
    lines = good.read_text(encoding="utf-8").splitlines()
    good.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")  # a valid change: one tuple fewer
    bad = loaded / "tuples" / "es" / "P36.jsonl"
    _rewrite_line(bad, 2, '{"sub_uri": ')
    out = _fails(cli, engine, "ingest", "tuples", loaded / "tuples")
    assert str(bad) in out and "line 2" in out
    _rewrite_line(bad, 2, (SEED / "tuples" / "es" / "P36.jsonl").read_text(encoding="utf-8").splitlines()[1])
    assert "1 unchanged" not in cli("ingest", "tuples", loaded / "tuples").output  # now it goes in


def test_wrong_type_names_the_field(cli, engine, loaded):
    target = loaded / "pararel" / "patterns" / "P19.jsonl"
    _rewrite_line(target, 2, json.dumps({"pattern": 42}))
    out = _fails(cli, engine, "ingest", "pararel", loaded / "pararel" / "patterns")
    assert "line 2" in out and "'pattern'" in out and "expected str" in out


def test_unknown_relation_in_translations(cli, engine, loaded):
    stray = loaded / "translations" / "pararel_bing" / "es" / "P9999.jsonl"
    stray.write_text(json.dumps({"pattern": "[X] es [Y]"}) + "\n", encoding="utf-8")
    out = _fails(cli, engine, "ingest", "translations", loaded / "translations")
    assert str(stray) in out and "unknown relation P9999" in out


def test_file_in_the_wrong_layout(cli, engine, loaded):
    # tuples given where translations are expected
    out = _fails(cli, engine, "ingest", "translations", loaded / "tuples")
    assert "expected the layout <system>/<lang>/<REL>.jsonl" in out
    stray = loaded / "tuples" / "es" / "notes.jsonl"
    stray.write_text("{}\n")
    out = _fails(cli, engine, "ingest", "tuples", loaded / "tuples")
    assert str(stray) in out and "unexpected file" in out


def test_empty_folder_and_missing_folder(cli, engine, tmp_path):
    cli("init")
    (tmp_path / "empty").mkdir()
    assert "no .jsonl files found" in _fails(cli, engine, "ingest", "pararel", tmp_path / "empty")
    assert "no such folder" in _fails(cli, engine, "ingest", "tuples", tmp_path / "nope")


def test_unreachable_url(cli, engine, loaded):
    out = _fails(cli, engine, "ingest", "tuples", "http://127.0.0.1:9/tuples/")
    assert "http://127.0.0.1:9/tuples/" in out and "unreachable" in out


def test_missing_url_path_is_an_http_error(cli, engine, loaded, http_root):
    base = http_root(loaded)
    out = _fails(cli, engine, "ingest", "tuples", base + "no-such-folder/")
    assert "HTTP 404" in out


def test_mixed_raw_and_clean_rows(cli, engine, loaded):
    target = loaded / "tuples" / "el" / "P19.jsonl"
    row = json.loads(target.read_text(encoding="utf-8").splitlines()[1])
    row.pop("lineid")
    row["from_english"] = False
    _rewrite_line(target, 2, json.dumps(row))
    out = _fails(cli, engine, "ingest", "tuples", loaded / "tuples")
    assert "line 2" in out and "mixes cleaned and raw rows" in out


def test_release_import_with_bad_flag(cli, engine, loaded, tmp_path):
    release = tmp_path / "release"
    (release / "patterns" / "es").mkdir(parents=True)
    (release / "patterns" / "es" / "P19.jsonl").write_text(
        json.dumps({"pattern": "[X] nació en [Y]", "checked-by-human": "yes"}) + "\n", encoding="utf-8"
    )
    out = _fails(cli, engine, "release", "import", release, "--version", "bad")
    assert "line 1" in out and "'checked-by-human'" in out


# ---------------------------------------------------------------- the one JSONL reader, seen from every command
def test_a_line_that_is_not_an_object(cli, engine, loaded):
    target = loaded / "translations" / "pararel_google" / "el" / "P30.jsonl"
    _rewrite_line(target, 2, json.dumps(["[X] βρίσκεται στην [Y]"], ensure_ascii=False))
    out = _fails(cli, engine, "ingest", "translations", loaded / "translations")
    assert f"{target}, line 2: expected a JSON object" in out


def test_blank_lines_are_skipped_and_line_numbers_stay_physical(cli, engine, loaded):
    target = loaded / "tuples" / "ar" / "P37.jsonl"
    lines = target.read_text(encoding="utf-8").splitlines()
    lines[1:1] = ["", "   "]  # two blank lines after the first row: the broken row below is line 5
    lines[4] = json.dumps({**json.loads(lines[4]), "lineid": "3"})
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = _fails(cli, engine, "ingest", "tuples", loaded / "tuples")
    assert f"{target}, line 5: field 'lineid': expected int, got str" in out


def test_release_import_with_a_stray_file_or_a_missing_field(cli, engine, loaded, tmp_path):
    cli("candidates", "build")
    cli("release", "build", "v0")
    release = tmp_path / "release"
    cli("release", "export", "v0", release)
    stray = release / "tuples" / "es" / "extra" / "P19.jsonl"
    stray.parent.mkdir()
    stray.write_text("{}\n")
    out = _fails(cli, engine, "release", "import", release, "--version", "bad")
    assert str(stray) in out and "unexpected file" in out
    stray.unlink()
    target = release / "tuples" / "es" / "P19.jsonl"
    row = json.loads(target.read_text(encoding="utf-8").splitlines()[2])
    del row["sub_label"]
    _rewrite_line(target, 3, json.dumps(row))
    out = _fails(cli, engine, "release", "import", release, "--version", "bad")
    assert f"{target}, line 3: field 'sub_label': missing" in out


def test_stats_and_tiny_corpus_name_file_line_and_field(cli, loaded, tmp_path):
    release = tmp_path / "release"
    (release / "patterns" / "es").mkdir(parents=True)
    bad = release / "patterns" / "es" / "P19.jsonl"
    bad.write_text(json.dumps({"pattern": "[X] nació en [Y]"}) + "\n" + json.dumps({"pattern": 7}) + "\n")
    for args in (("stats", release), ("models", "tiny", tmp_path / "m", "--kind", "bert", "--corpus", release)):
        result = cli(*args, ok=False)
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert f"{bad}, line 2: field 'pattern': expected str, got int" in result.output
    # a folder that is not a release (the seed's shape) is read with the same reader
    broken = loaded / "translations" / "pararel_bing" / "es" / "P19.jsonl"
    _rewrite_line(broken, 4, "{oops")
    result = cli("models", "tiny", tmp_path / "m", "--kind", "bert", "--corpus", loaded, ok=False)
    assert result.exit_code == 1 and f"{broken}, line 4: malformed JSON" in result.output


def test_a_translation_longer_than_its_column_is_kept_cut_and_invalid(cli, sessions, loaded):
    """Degenerate MT output (the real data has a 2,162-character line) is stored on both
    backends — PostgreSQL refuses a value longer than the column — cut, and never a candidate."""
    from sqlalchemy import select

    from curator.core.models import TranslationLine

    target = loaded / "translations" / "pararel_bing" / "es" / "P19.jsonl"
    _rewrite_line(target, 2, json.dumps({"pattern": "[X] nació en " + "muy " * 600 + "[Y]"}))
    cli("ingest", "translations", loaded / "translations")
    with sessions() as s:
        line = s.scalar(
            select(TranslationLine).where(
                TranslationLine.system == "pararel_bing",
                TranslationLine.language == "es",
                TranslationLine.relation_id == "P19",
                TranslationLine.line_no == 1,
            )
        )
    assert len(line.raw) == 2000 and not line.valid and line.cleaned is None
    assert line.reason == "longer than 2000 characters"

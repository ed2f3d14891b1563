"""The whole stage-1 pipeline on the demo seed, through the real CLI and a real SQLite file."""

from __future__ import annotations

import json
import shutil

import pytest
from sqlalchemy import func, select

from curator.core.models import (
    DatasetVersion,
    LanguageCoverage,
    Template,
    TranslationLine,
    Tuple,
    TupleList,
    VersionPattern,
)
from tests.conftest import SEED
from tests.plugins.cli import Cli
from tests.plugins.databases import table_snapshot
from tests.support.files import tree_bytes

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def load(cli):
    cli("init")
    cli("ingest", "pararel", SEED / "pararel" / "patterns")
    cli("ingest", "translations", SEED / "translations")
    cli("ingest", "tuples", SEED / "tuples")


def test_commands_refuse_an_uninitialised_database(empty_db_url):
    result = Cli(empty_db_url)("ingest", "pararel", SEED / "pararel" / "patterns", ok=False)
    assert result.exit_code != 0 and "curator init" in result.output


def test_seed_pipeline_votes_and_coverage(cli, sessions):
    load(cli)
    out = cli("candidates", "build").output
    assert "4 of 4 languages included" in out
    with sessions() as s:
        # Every raw line is stored, invalid ones with their reason.
        total = s.scalar(select(func.count()).select_from(TranslationLine))
        assert total == 3 * 4 * 22  # systems × languages × English patterns
        lost = s.execute(
            select(TranslationLine.language, TranslationLine.reason).where(TranslationLine.valid.is_(False))
        ).all()
        assert sorted(lost) == [("ar", "missing [X]"), ("el", "missing [Y]"), ("es", "missing [Y]")]
        # bing alone counts twice; google alone does not reach 2 votes.
        by_text = {
            t.text: t
            for t in s.scalars(select(Template).where(Template.language == "es", Template.relation_id == "P19"))
        }
        born = by_text["[X] nació en [Y]"]
        assert born.is_candidate and born.votes >= 3 and "pararel_bing" in born.systems
        singles = [t for t in by_text.values() if t.systems == ["pararel_google"]]
        assert singles and not any(t.is_candidate for t in singles)
        # A Greek line written with the Greek capital chi is repaired and recorded.
        chi = s.scalars(
            select(TranslationLine).where(TranslationLine.language == "el", TranslationLine.raw.contains("[Χ]"))
        ).first()
        assert chi.valid and "[X]" in chi.cleaned
        assert {"from": "[Χ]", "to": "[X]", "rule": "lookalike"} in chi.repairs
        assert s.get(LanguageCoverage, "ar").included


def test_reimport_is_idempotent(cli, engine):
    load(cli)
    cli("candidates", "build")
    before = table_snapshot(engine)
    out = cli("ingest", "translations", SEED / "translations").output
    assert "60 unchanged" in out
    cli("ingest", "tuples", SEED / "tuples")
    cli("ingest", "pararel", SEED / "pararel" / "patterns")
    cli("candidates", "build")
    after = table_snapshot(engine)
    after.pop("source_files"), before.pop("source_files")  # import timestamps differ by design
    assert after == before


def test_changed_translation_file_replaces_its_lines_and_keeps_template_ids(cli, sessions, tmp_path):
    data = tmp_path / "translations"
    shutil.copytree(SEED / "translations", data)
    load(cli)
    cli("candidates", "build")
    with sessions() as s:
        ids = dict(s.execute(select(Template.text, Template.id).where(Template.language == "es")).all())
    target = data / "pararel_google" / "es" / "P19.jsonl"
    lines = target.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    row["pattern"] = "[X] vio la luz en [Y]."
    lines[0] = json.dumps(row)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert "59 unchanged" in cli("ingest", "translations", data).output
    cli("candidates", "build")
    with sessions() as s:
        now = dict(s.execute(select(Template.text, Template.id).where(Template.language == "es")).all())
        assert {k: now[k] for k in ids} == ids  # ids are stable for reviews that refer to them
        assert "[X] vio la luz en [Y]" in now
        lines_now = s.scalars(
            select(TranslationLine.raw).where(
                TranslationLine.system == "pararel_google",
                TranslationLine.language == "es",
                TranslationLine.relation_id == "P19",
            )
        ).all()
        assert "[X] vio la luz en [Y]." in lines_now and len(lines_now) == 5


def test_release_build_export_is_deterministic_and_matches_layout(cli, sessions, tmp_path):
    load(cli)
    cli("candidates", "build")
    assert "4 languages" in cli("release", "build", "v0-candidates").output
    out1, out2 = tmp_path / "a", tmp_path / "b"
    cli("release", "export", "v0-candidates", out1)
    cli("release", "export", "v0-candidates", out2)
    assert tree_bytes(out1) == tree_bytes(out2)
    files = tree_bytes(out1)
    assert {p.split("/")[0] for p in files} == {"patterns", "tuples", "manifest.json", "README.md"}
    manifest = json.loads(files["manifest.json"])
    assert manifest["name"] == "v0-candidates" and manifest["parent"] is None
    import hashlib

    for path, digest in manifest["files"].items():
        assert hashlib.sha256(files[path]).hexdigest() == digest
    first = json.loads(files["patterns/es/P19.jsonl"].splitlines()[0])
    assert list(first) == ["pattern", "checked-by-human"] and first["checked-by-human"] is False
    tup = json.loads(files["tuples/ar/P19.jsonl"].splitlines()[0])
    assert list(tup) == ["sub_uri", "obj_uri", "obj_label", "sub_label", "lineid"]
    with sessions() as s:
        version = s.scalar(select(DatasetVersion).where(DatasetVersion.name == "v0-candidates"))
        n = s.scalar(select(func.count()).select_from(VersionPattern).where(VersionPattern.version_id == version.id))
        assert n == sum(len(b.splitlines()) for p, b in files.items() if p.startswith("patterns/"))
    # A second version names its parent; an existing name is refused.
    cli("release", "build", "v1", "--parent", "v0-candidates")
    assert cli("release", "build", "v1", ok=False).exit_code != 0
    assert "v1" in cli("release", "list").output


def test_export_refuses_to_overwrite_and_replaces_with_force(cli, tmp_path):
    load(cli)
    cli("candidates", "build")
    cli("release", "build", "v0")
    out = tmp_path / "rel"
    cli("release", "export", "v0", out)
    (out / "stray.txt").write_text("old")
    result = cli("release", "export", "v0", out, ok=False)
    assert result.exit_code != 0 and "already exists" in result.output
    cli("release", "export", "v0", out, "--force")
    assert not (out / "stray.txt").exists() and (out / "manifest.json").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging left behind


def test_failed_export_leaves_no_partial_directory(cli, tmp_path, monkeypatch):
    load(cli)
    cli("candidates", "build")
    cli("release", "build", "v0")
    from curator.release import export

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(export, "dataset_card", broken)  # fails after every data file is written
    out = tmp_path / "rel"
    with pytest.raises(OSError, match="disk full"):
        cli("release", "export", "v0", out)
    assert not out.exists()
    assert not any(p.name.startswith(".rel") for p in tmp_path.iterdir())  # staging removed


def test_failed_forced_export_leaves_the_old_release_unchanged(cli, tmp_path, monkeypatch):
    load(cli)
    cli("candidates", "build")
    cli("release", "build", "v0")
    out = tmp_path / "rel"
    cli("release", "export", "v0", out, "--hf")
    before = tree_bytes(out)
    from curator.release import export

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(export, "dataset_card", broken)
    with pytest.raises(OSError, match="disk full"):
        cli("release", "export", "v0", out, "--force")
    assert tree_bytes(out) == before  # not half of a new release over the old one
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_release_import_round_trips_byte_identical(cli, sessions, tmp_path):
    load(cli)
    cli("candidates", "build")
    cli("release", "build", "v0")
    first = tmp_path / "first"
    cli("release", "export", "v0", first)
    lists_before = None
    with sessions() as s:
        lists_before = s.scalar(select(func.count()).select_from(TupleList))
    cli("release", "import", first, "--version", "imported")
    second = tmp_path / "second"
    cli("release", "export", "imported", second)
    a, b = tree_bytes(first), tree_bytes(second)
    data = {p for p in a if p.startswith(("patterns/", "tuples/"))}
    assert {p: a[p] for p in data} == {p: b[p] for p in data}
    with sessions() as s:
        # identical tuples are shared, not copied
        assert s.scalar(select(func.count()).select_from(TupleList)) == lists_before
        assert s.scalar(select(func.count()).select_from(Tuple)) == 4 * 5 * 10


def test_stats_json_keys(cli, tmp_path):
    load(cli)
    cli("candidates", "build")
    cli("release", "build", "v0")
    cli("release", "export", "v0", tmp_path / "rel")
    stats = json.loads(cli("stats", tmp_path / "rel", "--json").output)
    assert list(stats) == [
        "languages",
        "avg_relations",
        "avg_total_patterns",
        "min_patterns_in_relation",
        "max_patterns_in_relation",
        "avg_patterns_in_relation",
        "avg_string_distance",
        "phrases_per_language",
        "invisible_characters",
    ]
    assert stats["invisible_characters"] == {"lines": 0, "files": 0, "characters": {}, "per_file": {}}
    assert stats["languages"] == ["ar", "el", "en", "es"]
    assert stats["phrases_per_language"]["es"] == sum(
        len((tmp_path / "rel" / "patterns" / "es" / f"{r}.jsonl").read_text().splitlines()) * 10
        for r in ("P19", "P30", "P36", "P37", "P103")
    )
    assert "avg string distance" in cli("stats", tmp_path / "rel").output


def test_seed_command_is_safe_to_rerun(cli):
    assert "ar, el, en, es included" in cli("seed").output
    assert "ar, el, en, es included" in cli("seed").output


@pytest.mark.backends("postgresql")
def test_same_input_same_release_on_both_backends(cli, tmp_path):
    """The seed through candidates, a release and its export gives the same files on SQLite
    and PostgreSQL: nothing depends on the order rows happen to come back in."""
    sqlite = Cli(f"sqlite:///{tmp_path / 'twin.sqlite'}")
    trees = []
    for run, out in ((cli, tmp_path / "pg"), (sqlite, tmp_path / "sqlite")):
        load(run)
        run("candidates", "build")
        run("release", "build", "v0")
        run("release", "export", "v0", out, "--hf")
        trees.append(tree_bytes(out))
    pg, lite = trees
    assert sorted(pg) == sorted(lite)
    stamped = {"README.md", "manifest.json"}  # name the build time; the manifest's digests cover the rest
    assert [path for path in pg if path not in stamped and pg[path] != lite[path]] == []
    assert json.loads(pg["manifest.json"])["files"] == json.loads(lite["manifest.json"])["files"]

"""Every importer reads an http(s) URL of the same layout as a folder (real HTTP on localhost)."""
from __future__ import annotations

import json

from curator.core.db import make_engine
from curator.core.migrate import upgrade

from .conftest import SEED, Cli, table_snapshot, tree_bytes


def _without_locations(snapshot):
    snapshot = dict(snapshot)
    snapshot.pop("source_files")  # where each file came from differs, by design
    return snapshot


def test_url_ingest_equals_folder_ingest(tmp_path, http_root):
    base = http_root(SEED)  # python's http.server: directory listing pages
    results = []
    for name, root in (("folder", str(SEED) + "/"), ("url", base)):
        url = f"sqlite:///{tmp_path / name}.sqlite"
        cli = Cli(url)
        cli("init")
        cli("ingest", "pararel", root + "pararel/patterns")
        cli("ingest", "translations", root + "translations")
        cli("ingest", "tuples", root + "tuples/")
        cli("candidates", "build")
        engine = make_engine(url)
        results.append(_without_locations(table_snapshot(engine)))
        engine.dispose()
    assert results[0] == results[1]
    assert len(results[1]["translation_lines"]) == 264


def test_release_import_from_url_uses_the_manifest(cli, tmp_path, http_root):
    cli("seed")
    cli("release", "build", "v0")
    out = tmp_path / "site" / "v0"
    cli("release", "export", "v0", out)
    (out / "patterns" / "index.html").write_text("<a href='../../elsewhere/'>decoy</a>")
    base = http_root(tmp_path / "site")
    cli("release", "import", base + "v0/", "--version", "from-url")
    cli("release", "export", "from-url", tmp_path / "again")
    a, b = tree_bytes(out), tree_bytes(tmp_path / "again")
    data = [p for p in a if p.startswith(("patterns/", "tuples/")) and p.endswith(".jsonl")]
    assert len(data) == 40
    assert all(a[p] == b[p] for p in data)
    # the candidate rules the manifest recorded come along over HTTP too
    assert json.loads(b["manifest.json"])["rules"] == {"profile": "curator", "keep_case": False}

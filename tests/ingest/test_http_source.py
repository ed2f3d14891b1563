"""Every importer reads an http(s) URL of the same layout as a folder (real HTTP on localhost)."""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from curator.core.db import make_engine
from tests.conftest import SEED
from tests.ingest.test_bad_input import _fails
from tests.plugins.cli import Cli
from tests.plugins.databases import table_snapshot
from tests.support.files import tree_bytes


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


# ---------------------------------------------------------------- size limit (CURATOR_FETCH_MAX_BYTES)
LIMIT = 1 << 20  # the limit these tests set, far below the default


def _tuples_lines(count: int) -> bytes:
    """`count` distinct, valid tuple rows: what a large but honest file would hold."""
    return "".join(
        json.dumps(
            {"sub_uri": f"Q{i}", "obj_uri": "Q37776", "obj_label": "Besanzón", "sub_label": f"Person {i}", "lineid": i},
            ensure_ascii=False,
        )
        + "\n"
        for i in range(count)
    ).encode("utf-8")


class _Hostile(http.server.BaseHTTPRequestHandler):
    """`manifest.json` names one file, es/P19.jsonl; how that file is sent is the test's choice.
    Each handler records why it stopped sending in `ended` (the server's attribute)."""

    protocol_version = "HTTP/1.0"  # a body without Content-Length ends when the connection does

    def do_GET(self):
        if self.path.endswith("/manifest.json"):
            body = json.dumps({"files": {"es/P19.jsonl": "x"}}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        try:
            self.server.send_file(self)
        except OSError:  # the client hung up: what the limit should make it do
            self.server.ended.append("client disconnected")

    def log_message(self, *args):
        pass


@pytest.fixture
def hostile():
    """Serve `send_file(handler)` for the data file; yields a function send_file -> (base URL, server)."""
    servers = []

    def serve(send_file):
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
        server.daemon_threads = True
        server.send_file, server.ended, server.done = send_file, [], threading.Event()
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/tuples/", server

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


def _one_line_naming(out: str, url: str) -> str:
    lines = out.strip().splitlines()
    assert len(lines) == 1, out
    assert lines[0].startswith(f"Error: {url}: stopped: ") and f"the limit of {LIMIT} bytes per file" in lines[0]
    assert "(CURATOR_FETCH_MAX_BYTES)" in lines[0]
    return lines[0]


def _whole(body: bytes, **headers: str):
    """A handler answering 200 with `body`, its Content-Length and `headers` (Content_Encoding=…)."""

    def answer(handler):
        handler.send_response(200)
        for name, value in {**headers, "Content_Length": str(len(body))}.items():
            handler.send_header(name.replace("_", "-"), value)
        handler.end_headers()
        handler.wfile.write(body)

    return answer


def test_a_body_without_end_stops_at_the_limit(cli, engine, loaded, hostile, monkeypatch):
    """A server that streams for ever (here: until the client hangs up, or 64 MiB as a safety
    net) is cut off at the limit: the client stops reading and closes the connection."""
    cap = 64 << 20
    block = _tuples_lines(2000)

    def endless(handler):
        handler.send_response(200)
        handler.end_headers()
        sent = 0
        while sent < cap:
            handler.wfile.write(block)
            sent += len(block)
        handler.server.ended.append(f"sent all {sent} bytes")

    def endless_and_done(handler):
        try:
            endless(handler)
        finally:
            handler.server.done.set()

    base, server = hostile(endless_and_done)
    monkeypatch.setenv("CURATOR_FETCH_MAX_BYTES", str(LIMIT))
    out = _fails(cli, engine, "ingest", "tuples", base)
    line = _one_line_naming(out, base + "es/P19.jsonl")
    assert "the file is larger than" in line
    assert server.done.wait(300)  # a hang guard; the handler has finished: by the client's hang-up, not the safety net
    assert server.ended == ["client disconnected"]


def test_a_small_gzip_that_inflates_past_the_limit_is_stopped(cli, engine, loaded, hostile, monkeypatch):
    import gzip

    plain = _tuples_lines(30_000)  # about 3.4 MB of rows
    packed = gzip.compress(plain)
    assert len(plain) > 3 * LIMIT and len(packed) < LIMIT // 3

    base, _ = hostile(_whole(packed, Content_Encoding="gzip"))
    monkeypatch.setenv("CURATOR_FETCH_MAX_BYTES", str(LIMIT))
    out = _fails(cli, engine, "ingest", "tuples", base)
    assert "the file is larger once decompressed than" in _one_line_naming(out, base + "es/P19.jsonl")

    # the same gzip under a limit it fits is decompressed and stored whole
    monkeypatch.setenv("CURATOR_FETCH_MAX_BYTES", str(len(plain)))
    rows = plain.count(b"\n")
    assert f"{rows} rows stored" in cli("ingest", "tuples", base).output


def test_a_content_length_above_the_limit_is_refused_before_the_body(cli, engine, loaded, hostile, monkeypatch):
    body = _tuples_lines(20_000)  # honest, valid, about 2.3 MB

    base, _ = hostile(_whole(body))
    monkeypatch.setenv("CURATOR_FETCH_MAX_BYTES", str(LIMIT))
    out = _fails(cli, engine, "ingest", "tuples", base)
    assert f"the server announces {len(body)} bytes, more than" in _one_line_naming(out, base + "es/P19.jsonl")


def test_the_size_limit_setting_is_checked():
    from curator.core.errors import InputError
    from curator.core.settings import Settings

    assert Settings.from_env({}).fetch_max_bytes == 64 << 20
    assert Settings.from_env({"CURATOR_FETCH_MAX_BYTES": "1000"}).fetch_max_bytes == 1000
    for bad in ("0", "-1", "64MB"):
        with pytest.raises(InputError, match="CURATOR_FETCH_MAX_BYTES"):
            Settings.from_env({"CURATOR_FETCH_MAX_BYTES": bad})

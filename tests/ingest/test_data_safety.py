"""Hostile or broken input is refused in one line naming the file, and nothing stored changes:
invisible characters in templates, language codes and paths, empty files, two files for one
key, run folders outside the runs folder, left-over staging folders and trickling servers."""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import ClassVar

import pytest
from sqlalchemy import select

from tests.conftest import ROOT
from tests.ingest.test_bad_input import _fails
from tests.plugins.databases import review_sample
from tests.plugins.servers import Browser

RLO = "\u202e"


def _line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- 6: control and format characters
def test_pararel_pattern_with_an_override_character_is_kept_and_counted(cli, engine, sessions, loaded):
    """Published patterns are data: an invisible character is kept as it is and reported, never
    refused (issue 25); only NUL, which no database text column holds, is refused."""
    from curator.core.models import EnglishPattern

    target = loaded / "pararel" / "patterns" / "P19.jsonl"
    lines = target.read_text(encoding="utf-8").splitlines()
    lines[1] = json.dumps({**json.loads(lines[1]), "pattern": f"[X] is originally from {RLO}[Y]"})
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = cli("ingest", "pararel", loaded / "pararel" / "patterns").output
    assert "invisible characters kept: 1 line in 1 file (U+202E RIGHT-TO-LEFT OVERRIDE 1)" in out
    assert f"{target}: line 2: U+202E RIGHT-TO-LEFT OVERRIDE ×1" in out
    with sessions() as s:
        assert f"[X] is originally from {RLO}[Y]" in s.scalars(select(EnglishPattern.pattern))

    lines[1] = json.dumps({**json.loads(lines[1]), "pattern": "[X] is originally from\x00 [Y]"})
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = _fails(cli, engine, "ingest", "pararel", loaded / "pararel" / "patterns")
    assert f"{target}, line 2: field 'pattern': contains U+0000 NULL, which a database text column cannot hold" in out


def test_mt_line_with_a_control_character_is_kept_invalid_with_the_reason(cli, engine, sessions, loaded):
    from curator.core.models import Template, TranslationLine

    target = loaded / "translations" / "pararel_bing" / "es" / "P19.jsonl"
    lines = target.read_text(encoding="utf-8").splitlines()
    lines[0] = json.dumps({**json.loads(lines[0]), "pattern": f"[X] nació en {RLO}[Y]"})
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cli("ingest", "translations", loaded / "translations")
    cli("candidates", "build")
    with sessions() as s:
        line = s.scalar(
            select(TranslationLine).where(
                TranslationLine.system == "pararel_bing",
                TranslationLine.language == "es",
                TranslationLine.relation_id == "P19",
                TranslationLine.line_no == 0,
            )
        )
        assert not line.valid and line.reason == "contains U+202E RIGHT-TO-LEFT OVERRIDE, a control/format character"
        assert not any(RLO in t for t in s.scalars(select(Template.text)))


def test_mlama_and_release_templates_keep_invisible_characters_but_not_nul(cli, engine, sessions, loaded, tmp_path):
    from curator.core.models import MlamaTemplate, VersionPattern

    mlama = tmp_path / "mlama" / "es" / "templates.jsonl"
    mlama.parent.mkdir(parents=True)
    mlama.write_text(
        _line({"relation": "P19", "template": "[X] nació en\u200e [Y]"})
        + _line({"relation": "P36", "template": "[X]\x00 es la capital de [Y]"}),
        encoding="utf-8",
    )
    out = _fails(cli, engine, "ingest", "mlama", tmp_path / "mlama")
    assert f"{mlama}, line 2: field 'template': contains U+0000 NULL" in out
    mlama.write_text(_line({"relation": "P19", "template": "[X] nació en\u200e [Y]"}), encoding="utf-8")
    out = cli("ingest", "mlama", tmp_path / "mlama").output
    assert f"{mlama}: line 1: U+200E LEFT-TO-RIGHT MARK ×1" in out
    with sessions() as s:
        assert s.scalars(select(MlamaTemplate.template)).all() == ["[X] nació en\u200e [Y]"]

    release = tmp_path / "release" / "patterns" / "es" / "P19.jsonl"
    release.parent.mkdir(parents=True)
    release.write_text(_line({"pattern": "[X] nació\x00 en [Y]"}), encoding="utf-8")
    out = _fails(cli, engine, "release", "import", tmp_path / "release", "--version", "bad")
    assert f"{release}, line 1: field 'pattern': contains U+0000 NULL" in out
    release.write_text(_line({"pattern": "[X] nació\u200b en [Y]"}), encoding="utf-8")
    out = cli("release", "import", tmp_path / "release", "--version", "good").output
    assert "patterns/es/P19.jsonl: line 1: U+200B ZERO WIDTH SPACE ×1" in out
    with sessions() as s:
        assert s.scalars(select(VersionPattern.pattern)).all() == ["[X] nació\u200b en [Y]"]


def test_review_refuses_invisible_characters_but_keeps_zwnj_and_zwj(review_app, sessions):
    from curator.core.errors import InputError
    from curator.review.accounts import find_user
    from curator.review.service import decide, get_assignment, get_item
    from curator.review.suggestions import suggest

    item_id, relation, _ = review_sample(sessions, "ana@example.org", "es")[0]
    for text, name in (
        (f"[X] nació en {RLO}[Y]", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("[X]\tnació en [Y]", "U+0009 CHARACTER TABULATION"),
        ("[X] nació\u200b en [Y]", "U+200B ZERO WIDTH SPACE"),
    ):
        with sessions.begin() as s:
            user = find_user(s, "ana@example.org")
            assignment = get_assignment(s, user, "es")
            expected = re.escape(f"contains an invisible character ({name})")
            with pytest.raises(InputError, match=expected):
                decide(s, user, assignment, get_item(s, assignment, item_id), "amend", text)
            with pytest.raises(InputError, match=expected):
                suggest(s, user, assignment, relation, text)
    # ZWNJ and ZWJ spell Persian, Urdu and Indic words (they occur in the real MT data)
    with sessions.begin() as s:
        user = find_user(s, "ana@example.org")
        assignment = get_assignment(s, user, "es")
        row, created = suggest(s, user, assignment, relation, "[X] می\u200cباشد [Y] रिश्\u200dते")
        assert created and "\u200c" in row.text and "\u200d" in row.text


def test_real_mt_data_has_only_known_format_characters(shared_data):
    """The rule's evidence: the only Cf/Cc characters in the real MT output are ZWNJ, ZWJ and
    the bidi embeddings one system puts around 85 Urdu lines, none of which is a valid line."""
    import unicodedata

    from curator.ingest.clean import check

    found, valid_with_bidi = set(), 0
    for path in (shared_data / "mpararel" / "translations").rglob("*.jsonl"):
        for raw in path.read_text(encoding="utf-8").splitlines():
            text = json.loads(raw)["pattern"]
            chars = {ch for ch in text if unicodedata.category(ch) in ("Cc", "Cf")}
            found |= chars
            valid_with_bidi += bool(chars - {"\u200c", "\u200d"}) and check(text, path.parent.name).valid
    assert found == {"\u200c", "\u200d", "\u202a", "\u202b", "\u202c"}
    assert valid_with_bidi == 0


# ---------------------------------------------------------------- 7: language codes and paths
def test_language_codes_are_checked_at_every_entry_point(cli, engine, loaded, tmp_path):
    bad = loaded / "tuples" / "ES"
    shutil.copytree(loaded / "tuples" / "es", bad)
    out = _fails(cli, engine, "ingest", "tuples", loaded / "tuples")
    assert str(bad) in out and "'ES' is not a language code" in out
    shutil.rmtree(bad)
    for args in (
        ("review", "fraction", "../../etc", "0.3"),
        ("release", "preview", "--language", "es/.."),
        ("probe", str(tmp_path), "--model", "x", "--out", str(tmp_path / "o"), "--languages", "e s,.."),
    ):
        result = cli(*args, ok=False)
        assert result.exit_code in (1, 2) and "Traceback" not in result.output
        assert "is not a language code" in result.output, result.output
    from curator.core.errors import InputError
    from curator.core.languages import check_code

    for code in ("es", "ast", "zh-hans", "zh-hant", "zh-classical", "ceb", "war", "pnb"):
        assert check_code(code) == code
    for code in ("..", "a/b", "es\\x", "", "ES", "e", "es ", "zh_hans", "/etc"):
        with pytest.raises(InputError):
            check_code(code, "somewhere")


def test_review_services_check_the_language(review_app, sessions):
    from curator.core.errors import InputError
    from curator.review.accounts import find_user
    from curator.review.sampling import assign, set_fraction
    from curator.review.service import get_assignment

    with sessions.begin() as s:
        user = find_user(s, "ana@example.org")
        for call in (
            lambda: get_assignment(s, user, "es/.."),
            lambda: assign(s, user, "../es"),
            lambda: set_fraction(s, "ES", 0.3),
        ):
            with pytest.raises(InputError, match="is not a language code"):
                call()


def test_every_language_folder_of_the_real_data_is_a_code(shared_data):
    from curator.core.languages import check_code

    folders = {p.name for p in (shared_data / "mpararel" / "tuples").iterdir()}
    folders |= {p.name for s in (shared_data / "mpararel" / "translations").iterdir() for p in s.iterdir()}
    assert {"zh", "zh-hans", "zh-classical"} & folders
    for name in folders:
        check_code(name, name)


def test_manifest_path_leaving_the_source_is_refused(cli, engine, loaded, tmp_path, http_root):
    www = tmp_path / "www"
    (www / "tuples").mkdir(parents=True)
    shutil.copy(loaded / "tuples" / "es" / "P19.jsonl", www / "P19.jsonl")  # outside the base URL
    (www / "tuples" / "manifest.json").write_text(json.dumps({"files": {"../P19.jsonl": "x"}}))
    base = http_root(www)
    out = _fails(cli, engine, "ingest", "tuples", base + "tuples/")
    assert f"{base}tuples/manifest.json" in out and "refused path '../P19.jsonl'" in out


def test_listing_link_with_dot_dot_is_refused(cli, engine, loaded, tmp_path, http_root):
    www = tmp_path / "www"
    shutil.copytree(loaded / "tuples", www / "tuples")
    (www / "secret").mkdir()
    shutil.copy(loaded / "tuples" / "es" / "P19.jsonl", www / "secret" / "P19.jsonl")
    (www / "tuples" / "index.html").write_text('<a href="es/">es/</a> <a href="%2e%2e/secret/">up</a>')
    base = http_root(www)
    out = _fails(cli, engine, "ingest", "tuples", base + "tuples/")
    assert f"{base}tuples/" in out and "refused path '../secret'" in out


def test_a_redirect_outside_the_base_is_not_followed(http_root, tmp_path):
    from curator.core.errors import InputError
    from curator.core.formats.sources import HttpSource

    (tmp_path / "secret.jsonl").write_text("{}\n")
    outside = http_root(tmp_path)

    class Redirect(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(302)
            self.send_header("Location", outside + "secret.jsonl")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/data/"
        with pytest.raises(InputError, match="refused: outside the source"):
            HttpSource(base).read("es/P19.jsonl")
        with pytest.raises(InputError, match="refused path"):
            HttpSource(base).read("../secret.jsonl")
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------- 8: empty files
def test_empty_files_are_refused_and_change_nothing(cli, engine, loaded):
    for path, args in (
        (loaded / "tuples" / "es" / "P19.jsonl", ("ingest", "tuples", loaded / "tuples")),
        (
            loaded / "translations" / "pararel_bing" / "es" / "P19.jsonl",
            ("ingest", "translations", loaded / "translations"),
        ),
        (loaded / "pararel" / "patterns" / "P19.jsonl", ("ingest", "pararel", loaded / "pararel" / "patterns")),
    ):
        kept = path.read_bytes()
        path.write_text("\n  \n")  # blank lines only: no records
        out = _fails(cli, engine, *args)
        assert str(path) in out and "empty file" in out
        path.write_bytes(kept)


def test_an_empty_tuples_file_imports_where_nothing_is_stored(cli, sessions, tmp_path):
    """The published mParaRel tuples have 159 empty files (no facts in that language)."""
    from curator.core.models import TupleList

    cli("init")
    (tmp_path / "t" / "vo").mkdir(parents=True)
    (tmp_path / "t" / "vo" / "P178.jsonl").write_bytes(b"")
    cli("ingest", "tuples", tmp_path / "t")
    with sessions() as s:
        assert s.scalar(select(TupleList.rows).where(TupleList.language == "vo")) == 0


def test_empty_mlama_reviews_and_release_files_are_refused(cli, engine, loaded, tmp_path):
    mlama = tmp_path / "mlama" / "es" / "templates.jsonl"
    mlama.parent.mkdir(parents=True)
    mlama.write_text(_line({"relation": "P19", "template": "[X] nació en [Y]"}), encoding="utf-8")
    cli("ingest", "mlama", tmp_path / "mlama")
    mlama.write_text("")
    out = _fails(cli, engine, "ingest", "mlama", tmp_path / "mlama")
    assert f"{mlama}: empty file" in out

    reviews = tmp_path / "reviews.jsonl"
    reviews.write_text("\n")
    assert f"{reviews}: empty file" in _fails(cli, engine, "review", "import", reviews)

    release = tmp_path / "release" / "patterns" / "es" / "P19.jsonl"
    release.parent.mkdir(parents=True)
    release.write_text("")
    assert f"{release}: empty file" in _fails(cli, engine, "release", "import", tmp_path / "release", "--version", "e")


# ---------------------------------------------------------------- 9: two files for one key
def test_two_files_for_one_language_after_aliases_are_refused(cli, engine, loaded, tmp_path):
    bing = loaded / "translations" / "pararel_bing"
    for lang in ("zh", "zh-hans"):
        (bing / lang).mkdir()
        shutil.copy(bing / "es" / "P19.jsonl", bing / lang / "P19.jsonl")
    out = _fails(cli, engine, "ingest", "translations", loaded / "translations")
    assert str(bing / "zh" / "P19.jsonl") in out and str(bing / "zh-hans" / "P19.jsonl") in out
    assert "Traceback" not in out and "IntegrityError" not in out

    tuples = loaded / "tuples"
    for lang, source in (("zh", "es"), ("zh-hans", "ar")):
        (tuples / lang).mkdir()
        shutil.copy(tuples / source / "P19.jsonl", tuples / lang / "P19.jsonl")
    out = _fails(cli, engine, "ingest", "tuples", tuples)
    assert str(tuples / "zh" / "P19.jsonl") in out and str(tuples / "zh-hans" / "P19.jsonl") in out

    release = tmp_path / "release" / "patterns"
    for lang in ("zh", "zh-hans"):
        (release / lang).mkdir(parents=True)
        (release / lang / "P19.jsonl").write_text(_line({"pattern": "[X] 出生于 [Y]"}), encoding="utf-8")
    out = _fails(cli, engine, "release", "import", tmp_path / "release", "--version", "twice")
    assert str(release / "zh" / "P19.jsonl") in out and str(release / "zh-hans" / "P19.jsonl") in out

    for lang in ("zh", "zh-hans"):
        path = tmp_path / "mlama" / lang / "templates.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text(_line({"relation": "P19", "template": "[X] 出生于 [Y]"}), encoding="utf-8")
    out = _fails(cli, engine, "ingest", "mlama", tmp_path / "mlama")
    assert "zh/templates.jsonl" in out and "zh-hans/templates.jsonl" in out


# ---------------------------------------------------------------- 10: run folders stay in the runs folder
def test_runs_are_opened_only_inside_the_runs_folder(review_app, tmp_path):
    from curator.core.formats.run_catalog import latest_run, list_runs, resolve_run
    from tests.analysis.test_report import TEMPLATES, make_run

    runs = tmp_path / "runs"
    make_run(runs / "mine", TEMPLATES)
    outside = make_run(tmp_path / "elsewhere" / "theirs", TEMPLATES)
    time.sleep(0.01)
    os.utime(outside / "run.json")  # the newest run.json of all
    (runs / "evil").symlink_to(outside, target_is_directory=True)

    assert resolve_run(runs, "mine") == runs / "mine"
    assert resolve_run(runs, "evil") is None
    assert [r["name"] for r in list_runs(runs)] == ["mine"]
    assert latest_run(runs) == runs / "mine"
    for name in ("..", str(outside), "../elsewhere/theirs", ".", ".hidden", "mine/", 3):
        assert resolve_run(runs, name) is None, name

    boss = Browser(review_app).login("boss@example.org")
    assert boss.get("/probe/runs/mine").status_code == 200
    assert boss.get("/probe/runs/evil").status_code == 404
    assert boss.get("/probe/runs/evil/metrics.png").status_code == 404
    assert 'href="/probe/runs/evil"' not in boss.get("/probe/runs").get_data(as_text=True)


# ---------------------------------------------------------------- 12: killed exports, trickling servers
def test_a_killed_exports_staging_folder_is_cleaned_by_the_next_export(cli, loaded, tmp_path):
    cli("candidates", "build")
    cli("release", "build", "v0")
    out = tmp_path / "out"
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, threading\n"
            "from curator.core.formats.atomic import atomic_directory\n"
            "with atomic_directory(sys.argv[1]) as d:\n"
            "    (d / 'half.jsonl').write_text('{}')\n"
            "    print('ready', flush=True)\n"
            "    threading.Event().wait()\n",  # until killed, however long the test takes to get there
            str(out),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert writer.stdout.readline().strip() == "ready"
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    left = [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]
    assert len(left) == 1 and (left[0] / "half.jsonl").exists()  # what a killed export leaves

    old = tmp_path / ".out.k3y9x2ab.tmp"  # an old-style name (no pid), two days old
    old.mkdir()
    os.utime(old, (time.time() - 2 * 86400,) * 2)
    live = tmp_path / f".out.{os.getpid()}.abcd1234.tmp"  # a live writer's (this process): kept
    live.mkdir()

    cli("release", "export", "v0", out)
    assert (out / "manifest.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".out.")) == [live.name]


GUARD = 300  # s; only a client with no total limit reaches it (the failure caught below)


class _Trickle(http.server.BaseHTTPRequestHandler):
    """A byte every 0.2 s of a body that takes 300 s (GUARD) to send: only a client with a total
    limit stops before its end. Records how each response ended: "cut off" (the client hung up
    while bytes were still to come) or "sent whole"."""

    ended: ClassVar[list[str]] = []
    has_ended: ClassVar[threading.Event] = threading.Event()

    def do_GET(self):
        body = b'{"pattern": "[X] y [Y]"}\n' * 60
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            for i in range(len(body)):
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
                if self.server.stopping.wait(0.2):  # the pace of a slow server, not a wait of the test
                    return
        except OSError:
            self.ended.append("cut off")
            self.has_ended.set()
            return
        self.ended.append("sent whole")
        self.has_ended.set()

    def log_message(self, *args):
        pass


def test_a_trickling_server_is_cut_off_after_the_total_limit(cli, engine, monkeypatch):
    cli("init")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Trickle)
    server.daemon_threads = True
    server.stopping = threading.Event()
    _Trickle.ended, _Trickle.has_ended = [], threading.Event()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("CURATOR_FETCH_TIMEOUT", "1")
    url = f"http://127.0.0.1:{server.server_address[1]}/patterns/"
    try:
        out = _fails(cli, engine, "ingest", "pararel", url)
        # the server sees the hang-up at its next byte: wait for that, however long it takes
        assert _Trickle.has_ended.wait(GUARD), "the server was still sending after the client reported"
        assert _Trickle.ended == ["cut off"]  # stopped by the limit, not by the end of the body
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
    lines = out.strip().splitlines()
    assert len(lines) == 1 and f"{url}manifest.json" in lines[0] and "stopped after 1 s" in lines[0]

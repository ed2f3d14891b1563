"""curator.core.formats: the one JSONL reader, the release layout, atomic folders, the run lock."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from curator.core.errors import Conflict, InputError
from curator.core.formats.atomic import atomic_directory
from curator.core.formats.jsonl import dumps, iter_jsonl, optional, read_jsonl, require
from curator.core.formats.release import (
    HF_COLUMNS,
    TUPLE_KEYS,
    Release,
    release_files,
)
from curator.core.formats.release_tuples import ReleaseError, parse_tuples
from curator.core.formats.release_writer import ReleaseWriter
from curator.core.formats.runs import LOCK_FILE, RunInUse, run_lock
from curator.core.formats.sources import FolderSource
from tests.conftest import ROOT
from tests.support.files import tree_bytes


def _error(data: bytes, where: str = "data/es/P19.jsonl", **kwargs) -> InputError:
    with pytest.raises(InputError) as exc:
        list(iter_jsonl(data, where, **kwargs))
    return exc.value


# ---------------------------------------------------------------- the JSONL reader
def test_invalid_json_names_file_and_line():
    exc = _error(b'{"pattern": "[X] a [Y]"}\n{"pattern": "[X] b [Y]"\n')
    assert str(exc).startswith("data/es/P19.jsonl, line 2: malformed JSON (")
    assert (exc.location, exc.line, exc.field) == ("data/es/P19.jsonl", 2, None)


def test_a_line_that_is_not_an_object():
    for line in (b'["[X] a [Y]"]', b'"[X] a [Y]"', b"42", b"null"):
        exc = _error(b'{"pattern": "ok"}\n' + line + b"\n")
        assert str(exc) == "data/es/P19.jsonl, line 2: expected a JSON object"


def test_missing_field_and_wrong_type_name_file_line_and_field():
    ((number, obj),) = iter_jsonl(b'\n{"sub_uri": "Q1", "lineid": true}\n', "t.jsonl")
    with pytest.raises(InputError) as exc:
        require(obj, "obj_uri", str, "t.jsonl", number)
    assert str(exc.value) == "t.jsonl, line 2: field 'obj_uri': missing"
    assert (exc.value.line, exc.value.field) == (2, "obj_uri")
    with pytest.raises(InputError) as exc:
        require(obj, "sub_uri", int, "t.jsonl", number)
    assert str(exc.value) == "t.jsonl, line 2: field 'sub_uri': expected int, got str"
    with pytest.raises(InputError, match="field 'lineid': expected int, got bool"):  # true is no line number
        require(obj, "lineid", int, "t.jsonl", number)
    assert require(obj, "lineid", bool, "t.jsonl", number) is True
    assert require(obj, "sub_uri", (int, str), "t.jsonl", number) == "Q1"
    with pytest.raises(InputError, match="expected int or float, got str"):
        require(obj, "sub_uri", (int, float), "t.jsonl", number)


def test_optional_fields():
    obj = {"checked-by-human": "yes", "correction": None}
    assert optional(obj, "absent", str, "f", 1, "default") == "default"
    assert optional(obj, "correction", str, "f", 1) is None
    with pytest.raises(InputError) as exc:
        optional(obj, "correction", str, "f", 1, null=False)
    assert str(exc.value) == "f, line 1: field 'correction': expected str, got NoneType"
    with pytest.raises(InputError) as exc:
        optional(obj, "checked-by-human", bool, "f", 3, False, expected="expected true or false")
    assert str(exc.value) == "f, line 3: field 'checked-by-human': expected true or false"


def test_blank_lines_are_skipped_but_counted():
    data = b'\n   \n{"a": 1}\r\n\t\r\n{"a": 2}\n\n'
    assert list(iter_jsonl(data, "f")) == [(3, {"a": 1}), (5, {"a": 2})]
    assert _error(b'\n\n{"a": 1}\n\nnot json\n').line == 5  # the line an editor shows


def test_lines_end_at_newline_only_bom_and_encoding():
    # U+2028, U+0085 and a form feed inside a value are text: str.splitlines would cut there
    value = "[X] a\u2028b\x85c\x0cd [Y]"
    data = ("\ufeff" + json.dumps({"pattern": value}, ensure_ascii=False) + "\n").encode("utf-8")
    assert list(iter_jsonl(data, "f")) == [(1, {"pattern": value})]
    exc = _error(b'{"a": 1}\n{"a": "\xff"}\n')
    assert str(exc) == "data/es/P19.jsonl: not UTF-8 text (byte 16)"


def test_the_caller_chooses_the_error_class(tmp_path):
    exc = _error(b"[]\n", error=ReleaseError)
    assert isinstance(exc, ReleaseError) and isinstance(exc, ValueError)
    with pytest.raises(InputError, match=r"missing\.jsonl: cannot read"):
        list(read_jsonl(tmp_path / "missing.jsonl"))
    path = tmp_path / "ok.jsonl"
    path.write_bytes(dumps([{"pattern": "[X] é [Y]", "checked-by-human": False}]))
    assert path.read_bytes() == b'{"pattern": "[X] \\u00e9 [Y]", "checked-by-human": false}\n'  # as published
    assert list(read_jsonl(path)) == [(1, {"pattern": "[X] é [Y]", "checked-by-human": False})]


# ---------------------------------------------------------------- the release layout
PATTERNS = {
    ("ar", "P103"): [("[X] لغته [Y]", True), ("[Y] لغة [X]", False)],
    ("es", "P19"): [("[X] nació en [Y]", True), ("[X] es de [Y]\u2028hoy", False)],
    ("es", "P36"): [("la capital de [X] es [Y]", False)],
}
TUPLES = {
    ("ar", "P103"): [dict(sub_uri="Q1", obj_uri="Q13955", obj_label="العربية", sub_label="مصر", lineid=0)],
    ("es", "P19"): [
        dict(sub_uri=f"Q{i}", obj_uri="Q90", obj_label="París", sub_label=f"S{i}", lineid=i) for i in range(3)
    ],
}


def _write(root: Path, hf: bool = False) -> ReleaseWriter:
    writer = ReleaseWriter(root)
    for (lang, rel), rows in PATTERNS.items():
        writer.write_patterns(lang, rel, rows)
    for (lang, rel), rows in TUPLES.items():
        writer.write_tuples(lang, rel, [tuple(row[key] for key in TUPLE_KEYS) for row in rows])
    if hf:
        writer.write_hf()
    return writer


def test_release_round_trip(tmp_path):
    root = tmp_path / "rel"
    writer = _write(root, hf=True)
    release = Release(root)
    read = {(r.language, r.relation): r for r in release.relations()}
    assert {key: [(p.pattern, p.checked_by_human) for p in r.patterns] for key, r in read.items()} == PATTERNS
    assert {key: r.tuples for key, r in read.items() if r.tuples is not None} == {
        key: [{**row, "from_english": False} for row in rows] for key, rows in TUPLES.items()
    }
    assert read[("es", "P36")].tuples is None and release.count_tuples("es", "P19") == 3
    assert [(r.language, r.relation) for r in release.relations(require_tuples=True)] == [("ar", "P103"), ("es", "P19")]
    assert [r.relation for r in release.relations(["es"], ["P36"])] == ["P36"]
    assert release.languages() == ["ar", "es"]
    # the writer's digests are the files' own, hf/ included; hf/ is not part of the layout read back
    files = tree_bytes(root)
    assert writer.digests == {path: hashlib.sha256(data).hexdigest() for path, data in files.items()}
    assert {"hf/patterns.jsonl", "hf/patterns.parquet", "hf/tuples.jsonl", "hf/tuples.parquet"} <= set(files)
    assert [f.path for f in release_files(FolderSource(root))] == sorted(p for p in files if not p.startswith("hf/"))
    hf = [json.loads(line) for line in files["hf/patterns.jsonl"].decode().splitlines()]
    assert [list(row) for row in hf] == [list(HF_COLUMNS["patterns"])] * 5
    assert [(r["language"], r["relation"], r["pattern"], r["checked_by_human"]) for r in hf] == [
        (lang, rel, p, c) for (lang, rel), rows in sorted(PATTERNS.items()) for p, c in rows
    ]
    # written again: the same bytes
    _write(tmp_path / "again", hf=True)
    assert tree_bytes(tmp_path / "again") == files


def test_release_reader_errors_name_the_file(tmp_path):
    root = tmp_path / "rel"
    with pytest.raises(ReleaseError, match="not a release directory: no patterns/ folder"):
        Release(root)
    _write(root)
    stray = root / "patterns" / "es" / "notes.jsonl"
    stray.write_text("{}\n")
    with pytest.raises(ReleaseError, match="unexpected file: expected the layout") as exc:
        Release(root)
    assert exc.value.location == str(stray)
    stray.unlink()
    (root / "extra" / "es").mkdir(parents=True)
    (root / "extra" / "es" / "P19.jsonl").write_text("{}\n")
    with pytest.raises(ReleaseError, match="a release holds only patterns/ and tuples/"):
        Release(root)
    (root / "extra" / "es" / "P19.jsonl").unlink()
    bad = root / "patterns" / "es" / "P19.jsonl"
    bad.write_text('{"pattern": "[X] a [Y]", "checked-by-human": "yes"}\n', encoding="utf-8")
    with pytest.raises(ReleaseError) as exc:
        Release(root).patterns("es", "P19")
    assert str(exc.value) == f"{bad}, line 1: field 'checked-by-human': expected true or false"
    with pytest.raises(ReleaseError, match=r"line 2: field 'from_english'.*mixes cleaned and raw rows"):
        parse_tuples(
            b'{"sub_uri": "Q1", "obj_uri": "Q2", "sub_label": "a", "obj_label": "b", "lineid": 0}\n'
            b'{"sub_uri": "Q1", "obj_uri": "Q2", "sub_label": "a", "obj_label": "b", "from_english": true}\n',
            "t.jsonl",
        )


def test_tuple_keys_are_the_published_order():
    assert TUPLE_KEYS == ("sub_uri", "obj_uri", "obj_label", "sub_label", "lineid")


# ---------------------------------------------------------------- atomic folders
def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_atomic_directory_failure_leaves_a_new_target_absent(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="midway"):
        with atomic_directory(out) as staging:
            (staging / "patterns").mkdir()
            (staging / "patterns" / "a.jsonl").write_text("{}\n")
            raise RuntimeError("midway")
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_atomic_directory_failure_leaves_an_existing_target_unchanged(tmp_path):
    out = tmp_path / "out"
    with atomic_directory(out) as staging:
        (staging / "old.txt").write_text("old")
    assert oct(out.stat().st_mode & 0o777) == "0o755"
    before = tree_bytes(out)
    with pytest.raises(RuntimeError):
        with atomic_directory(out, replace=True) as staging:
            (staging / "new.txt").write_text("new")
            raise RuntimeError("midway")
    assert tree_bytes(out) == before and _hidden(tmp_path) == []
    with pytest.raises(FileExistsError):  # without replace, refused before anything is written
        with atomic_directory(out):
            pytest.fail("the block must not run")
    with atomic_directory(out, replace=True) as staging:
        (staging / "new.txt").write_text("new")
    assert tree_bytes(out) == {"new.txt": b"new"} and _hidden(tmp_path) == []


def test_atomic_directory_killed_midway_leaves_no_target(tmp_path):
    """A process killed while writing (no cleanup runs at all): OUT never appears."""
    out = tmp_path / "out"
    script = (
        "import sys, threading\nfrom pathlib import Path\nfrom curator.core.formats.atomic import atomic_directory\n"
        "with atomic_directory(sys.argv[1]) as d:\n"
        "    (Path(d) / 'half.jsonl').write_text('{}')\n"
        "    print('writing', flush=True)\n"
        "    threading.Event().wait()\n"  # until killed, however long the test takes to get there
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(out)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    try:
        assert child.stdout.readline().strip() == "writing"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        child.kill()
    assert not out.exists()
    assert all(name.startswith(".out.") for name in _hidden(tmp_path))  # only the hidden staging folder


# ---------------------------------------------------------------- the run lock
HOLDER = (
    "import sys\nfrom curator.core.formats.runs import run_lock\n"
    "with run_lock(sys.argv[1]):\n"
    "    print('locked', flush=True)\n"
    "    sys.stdin.readline()\n"
)


def _holder(run: Path) -> subprocess.Popen:
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(run)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    assert child.stdout.readline().strip() == "locked"
    return child


GUARD = 300  # s; only a lock that never gives up or never comes reaches it (the failures these tests catch)


def _count_flock_attempts(monkeypatch) -> tuple[list[str], threading.Event]:
    """Record each non-blocking flock attempt on a run lock ("refused" or "taken") and set the
    event on a refusal: how often a writer tried and that it is waiting, without timing it."""
    import fcntl

    attempts: list[str] = []
    refused = threading.Event()
    flock = fcntl.flock

    def counting(fd, operation):
        if not operation & fcntl.LOCK_EX:
            return flock(fd, operation)
        try:
            flock(fd, operation)
        except BlockingIOError:
            attempts.append("refused")
            refused.set()
            raise
        attempts.append("taken")

    monkeypatch.setattr(fcntl, "flock", counting)
    return attempts, refused


def test_a_second_writer_fails_at_once_while_another_process_writes(tmp_path, monkeypatch):
    run = tmp_path / "run"
    child = _holder(run)
    attempts, _ = _count_flock_attempts(monkeypatch)
    try:
        assert (run / LOCK_FILE).exists()
        with pytest.raises(RunInUse) as exc:
            with run_lock(run):
                pytest.fail("two writers held the lock")
        assert attempts == ["refused"]  # at once: one try, refused, no retry (waiting is retrying)
        assert child.poll() is None  # and the holder still held it: it was not waited for
        assert isinstance(exc.value, Conflict) and "\n" not in str(exc.value)
        assert str(exc.value).startswith(f"{run}: in use, another `curator probe` is writing this run folder")
        with pytest.raises(RunInUse):
            with run_lock(run, wait=0.3):
                pass
        assert attempts[0] == "refused" and set(attempts) == {"refused"} and len(attempts) > 1  # it waited
    finally:
        child.communicate("\n", timeout=GUARD)
    with run_lock(run):  # released: free again, the lock file left in place
        pass
    assert (run / LOCK_FILE).exists()


def test_a_waiting_writer_gets_the_lock_when_the_first_finishes(tmp_path, monkeypatch):
    run = tmp_path / "run"
    child = _holder(run)
    _, refused = _count_flock_attempts(monkeypatch)
    events: list[str] = []  # in the order they happened (list.append is atomic)

    def second() -> None:
        with run_lock(run, wait=None):
            events.append("second writer holds the lock")

    thread = threading.Thread(target=second)
    try:
        thread.start()
        assert refused.wait(GUARD), "the second writer never tried the lock"  # it is waiting now
        events.append("first writer releasing")
        child.communicate("\n", timeout=GUARD)
        thread.join(timeout=GUARD)
        assert not thread.is_alive(), "the waiting writer never got the lock"
    finally:
        child.kill()
    assert events == ["first writer releasing", "second writer holds the lock"]


def test_a_killed_writer_never_blocks_the_next(tmp_path):
    run = tmp_path / "run"
    child = _holder(run)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    with run_lock(run):  # the OS dropped the dead process's lock; the left-over file is harmless
        pass


@pytest.mark.parametrize(
    "row",
    [
        dict(sub_uri="Q1", obj_uri="Q2", obj_label="París", sub_label="مصر", lineid=0),
        # quotes, backslashes, controls, line and paragraph separators, invisible characters, emoji
        dict(sub_uri='Q"1\\', obj_uri="Q\t2\n", obj_label="a\u2028b\u2029c\x7f", sub_label="\u200e\ufeff😀", lineid=-3),
        dict(sub_uri="Q1", obj_uri="Q2", obj_label="", sub_label="x", lineid=10**20),
        dict(sub_uri="Q1", obj_uri="Q2", obj_label="o", sub_label="s", lineid=True),  # not an int: json.dumps path
        dict(sub_uri="Q1", obj_uri=None, obj_label="o", sub_label="s", lineid=1.5),
    ],
)
def test_a_tuples_line_is_what_json_dumps_writes(row):
    from curator.core.formats.release_writer import tuple_line

    # the writer takes the values in TUPLE_KEYS order (a database row); the reference is json.dumps of the dict
    assert tuple_line(tuple(row[key] for key in TUPLE_KEYS)) == json.dumps({key: row[key] for key in TUPLE_KEYS}) + "\n"

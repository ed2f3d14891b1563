"""Tuples in raw T-REx form (`from_english`): detected per file, cleaned as SPEC §1 says."""

from __future__ import annotations

import json
import os

import pytest
from sqlalchemy import select

from curator.core.models import EntityLabel, Tuple, TupleList


def test_raw_form_keeps_native_labels_and_records_lineid(cli, sessions, shared_data, tmp_path):
    raw = shared_data / "mpararel" / "t_rex_raw_sample" / "zh" / "P19.jsonl"
    tree = tmp_path / "raw"
    (tree / "zh").mkdir(parents=True)
    (tree / "zh" / "P19.jsonl").write_bytes(raw.read_bytes())
    rows = [json.loads(line) for line in raw.read_text(encoding="utf-8").splitlines() if line.strip()]
    native = [(i, r) for i, r in enumerate(rows) if r["from_english"] is False]
    assert 0 < len(native) < len(rows)
    cli("init")
    out = cli("ingest", "tuples", tree).output
    assert f"{len(native)} rows stored" in out and f"{len(rows) - len(native)} rows without a label" in out
    with sessions() as s:
        tuple_list = s.scalar(select(TupleList))
        assert tuple_list.language == "zh-hans" and tuple_list.form == "raw" and tuple_list.rows == len(native)
        stored = s.scalars(
            select(Tuple).where(Tuple.list_id == tuple_list.id, Tuple.from_english.is_(False)).order_by(Tuple.position)
        ).all()
        assert [(t.lineid, t.sub_qid, t.obj_label) for t in stored] == [
            (i, r["sub_uri"], r["obj_label"]) for i, r in native
        ]
        # English-only rows are kept aside, not lost
        assert s.query(Tuple).count() == len(rows)
        _i, first = native[0]
        label = s.get(EntityLabel, (first["sub_uri"], "zh-hans"))
        assert label.label == first["sub_label"]


GOOD = {"sub_uri": "Q1", "obj_uri": "Q2", "sub_label": "Ana", "obj_label": "Lima", "lineid": 7}


@pytest.mark.parametrize(
    "row, message",
    [
        ({k: v for k, v in GOOD.items() if k != "sub_uri"}, "field 'sub_uri': missing"),
        ({**GOOD, "obj_label": 3}, "field 'obj_label': expected str, got int"),
        ({**GOOD, "sub_label": None}, "field 'sub_label': expected str, got NoneType"),
        ({**GOOD, "obj_uri": "Q\x002"}, "field 'obj_uri': contains U+0000 NULL"),
        # several faults: the labels are reported before the ids, as the reader always did
        ({**GOOD, "obj_uri": "Q\x002", "sub_label": "A\x00na"}, "field 'sub_label': contains U+0000 NULL"),
        ({**GOOD, "sub_uri": 1, "obj_label": "L\x00"}, "field 'sub_uri': expected str, got int"),
        ({**GOOD, "lineid": True}, "field 'lineid': expected int, got bool"),
        ({**GOOD, "lineid": "7"}, "field 'lineid': expected int, got str"),
        ({k: v for k, v in GOOD.items() if k != "lineid"}, "field 'lineid': missing"),
        ({**GOOD, "from_english": "no"}, "field 'from_english': expected bool, got str"),
    ],
)
def test_a_bad_row_names_its_line_and_field(row, message):
    """The reader's quick path for good rows must leave every refusal as it was: line and field named."""
    from curator.core.formats.release_tuples import ReleaseError, parse_tuples

    good = dict(GOOD, from_english=False) if "from_english" in row else GOOD
    data = (json.dumps(good) + "\n" + json.dumps(row) + "\n").encode()
    with pytest.raises(ReleaseError) as caught:
        parse_tuples(data, "es/P19.jsonl")
    assert str(caught.value).startswith(f"es/P19.jsonl, line 2: {message}")


def test_invisible_characters_are_counted_raw_or_escaped():
    from curator.core.formats.release_tuples import parse_tuples
    from curator.core.text import InvisibleTally

    plain = "".join(json.dumps({**GOOD, "lineid": i}) + "\n" for i in range(3)).encode()
    marked = plain + (json.dumps({**GOOD, "obj_label": "Lima\u200e"}, ensure_ascii=False) + "\n").encode()
    escaped = plain + (json.dumps({**GOOD, "sub_uri": "Q\u00ad1"}, ensure_ascii=True) + "\n").encode()
    tally = InvisibleTally()
    for name, data in (("plain", plain), ("marked", marked), ("escaped", escaped)):
        form, rows = parse_tuples(data, name, tally)
        assert form == "clean" and len(rows) == data.count(b"\n")
    assert {name: count.to_dict() for name, count in tally.files.items()} == {
        "marked": {"lines": [4], "characters": {"U+200E LEFT-TO-RIGHT MARK": 1}},
        "escaped": {"lines": [4], "characters": {"U+00AD SOFT HYPHEN": 1}},
    }


def test_no_room_for_the_checked_rows_is_one_line_and_stores_nothing(tmp_path):
    """`ingest tuples` keeps the rows it checked in a temporary file for the store pass: with no
    room there (here a file-size limit on the process, so the disk really refuses the write) it
    stops with one line naming TMPDIR, before anything is stored."""
    import resource
    import signal
    import sqlite3
    import subprocess
    import sys

    from tests.conftest import ROOT

    url = f"sqlite:///{tmp_path / 'c.sqlite'}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    subprocess.run(
        [sys.executable, "-m", "curator", "--database", url, "init"], env=env, check=True, capture_output=True
    )
    tree = tmp_path / "tuples" / "es"
    tree.mkdir(parents=True)
    rows = (
        {"sub_uri": f"Q{n}", "obj_uri": f"Q{n + 1}", "sub_label": f"persona {n}", "obj_label": "Madrid", "lineid": n}
        for n in range(5000)
    )
    (tree / "P19.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    limit = 64 * 1024  # room for SQLite's shared-memory file (32 KiB), not for 5,000 checked rows

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    result = subprocess.run(
        [sys.executable, "-m", "curator", "--database", url, "ingest", "tuples", tmp_path / "tuples"],
        env=env,
        capture_output=True,
        text=True,
        preexec_fn=small_files,
    )
    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        f"Error: cannot keep the checked tuples in a temporary file in {tmp_path} (File too large): "
        "free some space there or set TMPDIR to a folder with room"
    ], result.stderr
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        assert db.execute("select count(*) from tuples").fetchone() == (0,)

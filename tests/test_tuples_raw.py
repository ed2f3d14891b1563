"""Tuples in raw T-REx form (`from_english`): detected per file, cleaned as SPEC §1 says."""

from __future__ import annotations

import json

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

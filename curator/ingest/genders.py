"""X-FACTR's entity files into the database (issue 39 §2): genders and Wikidata classes.

- `<id>\\t<male|female|none>` a line (`TREx_gender.txt`, `mTREx_gender.txt`) → `entity_genders`;
- `<id>\\t<class id>,<class label>[\\t…]` a line (`TREx_instanceof.txt`) → `entity_classes`.

Every file is read and checked whole before anything is stored: a bad line is an InputError
naming the file, the line and the field, and nothing of the files given is stored. Loading is
idempotent: an entity's row is written only where it differs from what is stored (a second run
with the same files changes nothing and says so); a later file wins over an earlier one for an
entity both name. An entity's classes are replaced as a whole by the file's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from curator.core.errors import InputError
from curator.core.formats.jsonl import read_bytes

QID = re.compile(r"^Q[1-9][0-9]{0,30}$")
GENDERS = ("male", "female", "none")
CHUNK = 500


@dataclass
class Loaded:
    files: int = 0
    rows: int = 0  # entities read from the files
    added: int = 0
    changed: int = 0
    unchanged: int = 0


def _lines(path: Path) -> list[tuple[int, str]]:
    data = read_bytes(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", location=str(path)) from None
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if line.strip():
            out.append((number, line))
    return out


def _qid(path: Path, number: int, value: str) -> str:
    if not QID.match(value):
        raise InputError(
            f"{value[:40]!r} is not a Wikidata entity id (Q…)", location=str(path), line=number, field="id"
        )
    return value


def read_genders(paths: Sequence[str | Path]) -> dict[str, str]:
    """{entity id: male|female|none} of every file, later files winning; InputError on a bad line."""
    found: dict[str, str] = {}
    for name in paths:
        path = Path(name)
        for number, line in _lines(path):
            fields = line.split("\t")
            if len(fields) != 2:
                raise InputError(
                    f"expected 2 tab-separated fields (id, gender), found {len(fields)}",
                    location=str(path),
                    line=number,
                )
            qid, gender = _qid(path, number, fields[0].strip()), fields[1].strip()
            if gender not in GENDERS:
                raise InputError(
                    f"{gender[:40]!r} is not one of {', '.join(GENDERS)}",
                    location=str(path),
                    line=number,
                    field="gender",
                )
            found[qid] = gender
    return found


def read_classes(paths: Sequence[str | Path]) -> dict[str, dict[str, str]]:
    """{entity id: {class id: class label}} of every file, later files winning per entity."""
    found: dict[str, dict[str, str]] = {}
    for name in paths:
        path = Path(name)
        for number, line in _lines(path):
            fields = line.split("\t")
            qid = _qid(path, number, fields[0].strip())
            classes: dict[str, str] = {}
            for index, field in enumerate(fields[1:], start=1):
                if not field.strip():  # "Q44\t": an entity without a class (1,821 lines of TREx_instanceof.txt)
                    continue
                class_qid, comma, label = field.partition(",")
                if not comma or not QID.match(class_qid):
                    raise InputError(
                        f"{field[:40]!r} is not '<class id>,<class label>'",
                        location=str(path),
                        line=number,
                        field=f"class {index}",
                    )
                classes[class_qid] = label.strip()[:500]
            found[qid] = classes
    return found


def store_genders(session: Session, genders: dict[str, str]) -> Loaded:
    from curator.core.models import EntityGender

    result = Loaded(rows=len(genders))
    ids = sorted(genders)
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        stored = dict(
            session.execute(select(EntityGender.qid, EntityGender.gender).where(EntityGender.qid.in_(chunk))).all()
        )
        for qid in chunk:
            if qid not in stored:
                session.add(EntityGender(qid=qid, gender=genders[qid]))
                result.added += 1
            elif stored[qid] != genders[qid]:
                session.get_one(EntityGender, qid).gender = genders[qid]
                result.changed += 1
            else:
                result.unchanged += 1
        session.flush()
    return result


def store_classes(session: Session, classes: dict[str, dict[str, str]]) -> Loaded:
    from curator.core.models import EntityClass

    result = Loaded(rows=len(classes))
    ids = sorted(classes)
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        stored: dict[str, dict[str, str]] = {}
        rows = session.execute(
            select(EntityClass.qid, EntityClass.class_qid, EntityClass.label).where(EntityClass.qid.in_(chunk))
        ).all()
        for qid, class_qid, label in rows:
            stored.setdefault(qid, {})[class_qid] = label
        for qid in chunk:
            if stored.get(qid, {}) == classes[qid]:
                result.unchanged += 1
                continue
            if qid in stored:
                session.execute(delete(EntityClass).where(EntityClass.qid == qid))
                result.changed += 1
            else:
                result.added += 1
            session.add_all(EntityClass(qid=qid, class_qid=c, label=label) for c, label in classes[qid].items())
        session.flush()
    return result


def ingest_genders(session: Session, paths: Sequence[str | Path]) -> Loaded:
    """Read every file (all checked first), then store what differs."""
    result = store_genders(session, read_genders(paths))
    result.files = len(paths)
    return result


def ingest_classes(session: Session, paths: Sequence[str | Path]) -> Loaded:
    result = store_classes(session, read_classes(paths))
    result.files = len(paths)
    return result

"""Small database helpers the importers share: idempotent upserts and provenance."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from operator import itemgetter
from typing import Any, TypedDict, TypeVar

from sqlalchemy import JSON, FromClause, String, Table, delete, insert, select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from curator.core import languages
from curator.core.models import Language, Relation, SourceFile
from curator.core.models.base import utcnow

BATCH = 20_000
R = TypeVar("R")
Row = Mapping[str, object]  # one row to insert: column name -> value


class _SourceRecordFields(TypedDict):
    key: str  # e.g. pararel_bing/es/P19
    location: str  # the path or URL it came from
    sha256: str
    rows: int


class SourceRecord(_SourceRecordFields, total=False):
    """What `record_sources` keeps of one imported file (a `SourceFile` row)."""

    details: dict[str, Any] | None  # JSON


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _batches(rows: Iterable[R]) -> Iterator[list[R]]:
    batch: list[R] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _table(table: FromClause) -> Table:
    """A model's `__table__` (typed as the wider FromClause by SQLAlchemy) as the Table it is."""
    if not isinstance(table, Table):
        raise TypeError(f"not a table: {table!r}")
    return table


def _insert(session: Session, table: Table, rows: Iterable[Row], ignore: bool) -> int:
    """Batched executemany. On SQLite the statement is handed to the driver as it is:
    for a million tuples SQLAlchemy's per-row parameter processing costs more than
    SQLite's own work. On PostgreSQL plain inserts stream through COPY, and inserts that
    ignore duplicates (COPY cannot) send each column as one array: one statement per batch
    either way, where an executemany pays a round trip per row."""
    dialect = session.get_bind().dialect.name
    count = 0
    if dialect == "postgresql":
        return _unnest_ignore(session, table, rows) if ignore else _copy(session, table, rows)
    if dialect == "sqlite":
        connection = session.connection()
        for batch in _batches(rows):
            columns = list(batch[0])
            sql = (
                f'INSERT {"OR IGNORE " if ignore else ""}INTO "{table.name}" '
                f"({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
            )
            connection.exec_driver_sql(sql, _records(table, columns, batch))
            count += len(batch)
        return count
    stmt = insert(table)
    if ignore:
        stmt = stmt.prefix_with("IGNORE")  # MySQL's spelling; SQLite and PostgreSQL are handled above
    for batch in _batches(rows):
        session.execute(stmt, batch)
        count += len(batch)
    return count


def _records(table: Table, columns: list[str], batch: list[Row]) -> list[tuple[Any, ...]]:
    """The batch's rows as tuples in `columns`' order, JSON columns as their JSON text: what SQLite's
    executemany and PostgreSQL's COPY both take. Without a JSON column the tuples come from
    `operator.itemgetter` (a full tuples import builds a million of them: the per-value generator
    cost more than SQLite's insert of the row)."""
    json_columns = {c for c in columns if isinstance(table.c[c].type, JSON)}
    if json_columns:
        return [tuple(json.dumps(r[c]) if c in json_columns else r[c] for c in columns) for r in batch]
    if len(columns) == 1:
        (only,) = columns
        return [(r[only],) for r in batch]
    return list(map(itemgetter(*columns), batch))


def _copy(session: Session, table: Table, rows: Iterable[Row]) -> int:
    """COPY … FROM STDIN on the session's own connection, so inside its transaction."""
    import psycopg

    driver = session.connection().connection.driver_connection
    if driver is None:  # only a connection already closed has none
        raise RuntimeError("COPY: the session's connection is closed")
    count = 0
    for batch in _batches(rows):
        columns = list(batch[0])
        quoted = ", ".join(f'"{c}"' for c in columns)
        sql = f'COPY "{table.name}" ({quoted}) FROM STDIN'
        try:
            with driver.cursor() as cursor, cursor.copy(sql) as copy:
                for record in _records(table, columns, batch):
                    copy.write_row(record)
        except psycopg.Error as exc:  # as SQLAlchemy would raise it (DataError, IntegrityError, …)
            raise DBAPIError.instance(sql, None, exc, psycopg.Error, dialect=session.get_bind().dialect) from None
        count += len(batch)
    return count


def _unnest_ignore(session: Session, table: Table, rows: Iterable[Row]) -> int:
    """INSERT … SELECT * FROM unnest(column arrays) ON CONFLICT DO NOTHING, one per batch.
    Strings travel as text[]: the assignment to varchar(n) then refuses a value too long,
    where a cast to varchar(n)[] would cut it silently."""
    connection = session.connection()
    count = 0
    for batch in _batches(rows):
        columns = list(batch[0])
        casts = [
            "text" if isinstance(table.c[c].type, String) else table.c[c].type.compile(dialect=connection.dialect)
            for c in columns
        ]
        arrays = tuple(
            [json.dumps(r[c]) for r in batch] if isinstance(table.c[c].type, JSON) else [r[c] for r in batch]
            for c in columns
        )
        quoted = ", ".join(f'"{c}"' for c in columns)
        sql = (
            f'INSERT INTO "{table.name}" ({quoted}) SELECT * FROM unnest('
            + ", ".join(f"%s::{cast}[]" for cast in casts)
            + ") ON CONFLICT DO NOTHING"
        )
        connection.exec_driver_sql(sql, arrays)
        count += len(batch)
    return count


def insert_ignore(session: Session, table: FromClause, rows: Iterable[Row]) -> None:
    """INSERT … ON CONFLICT DO NOTHING, in batches."""
    _insert(session, _table(table), rows, ignore=True)


def bulk_insert(session: Session, table: FromClause, rows: Iterable[Row]) -> int:
    """Every row must have the same keys; columns left out take their server default or NULL."""
    return _insert(session, _table(table), rows, ignore=False)


def ensure_languages(session: Session, codes: Iterable[str]) -> None:
    insert_ignore(session, Language.__table__, [{"code": c, "name": languages.name(c)} for c in sorted(set(codes))])


def ensure_relations(session: Session, ids: Iterable[str]) -> None:
    insert_ignore(session, Relation.__table__, [{"id": r} for r in sorted(set(ids))])


def known_sources(session: Session, kind: str) -> dict[str, str]:
    """{key: sha256} of every file of this kind imported before."""
    return dict(session.execute(select(SourceFile.key, SourceFile.sha256).where(SourceFile.kind == kind)).all())


def record_sources(session: Session, kind: str, records: list[SourceRecord]) -> None:
    """Remember what was imported from where (dicts with key, location, sha256, rows, details)."""
    keys = [r["key"] for r in records]
    for start in range(0, len(keys), 500):
        session.execute(
            delete(SourceFile).where(SourceFile.kind == kind, SourceFile.key.in_(keys[start : start + 500]))
        )
    now = utcnow()
    bulk_insert(
        session, SourceFile.__table__, ({"kind": kind, "imported_at": now, "details": None, **r} for r in records)
    )

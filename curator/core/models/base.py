"""Declarative base with a naming convention so Alembic migrations get stable constraint names."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


# The largest id an INTEGER primary key holds on every backend (PostgreSQL's is 32-bit; SQLite
# cannot even bind a Python int past 64 bits): an id from a URL beyond it cannot exist.
MAX_ID = 2**31 - 1


def valid_id(value: int) -> bool:
    return 0 < value <= MAX_ID


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)

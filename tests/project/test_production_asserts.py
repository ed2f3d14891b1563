"""Production code guards data with real errors, not `assert` (issue 40 §2: `python -O` strips
asserts, so a guard that is an assert vanishes exactly where it is deployed).

What may stay: an assert that only narrows a type for mypy where the code above guarantees it
(`assert x is not None`, several joined by `and`, or `assert isinstance(x, T)`), with no
message. Anything else in curator/ is a guard and must raise. The guards that replaced asserts
and can be reached from stored data are checked below on a real SQLite database."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import select, update

from curator.core.errors import Conflict
from curator.core.models import TranslationLine
from curator.core.settings import Settings
from curator.ingest.candidates import CandidateParams, tally
from curator.review.mail import MailNotSent, send
from tests.conftest import SEED

ROOT = Path(__file__).resolve().parents[2]


def _narrows(test: ast.expr) -> bool:
    """`x is not None`, `a is not None and b is not None`, `isinstance(x, T)`: nothing else."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return all(_narrows(v) for v in test.values)
    if isinstance(test, ast.Compare):
        return (
            len(test.ops) == 1
            and isinstance(test.ops[0], ast.IsNot)
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None
        )
    return isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"


def guarding_asserts(source: str) -> list[int]:
    """Lines of the asserts in `source` that do more than narrow a type."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Assert) and (node.msg is not None or not _narrows(node.test))
    ]


def test_production_asserts_only_narrow_types():
    found = []
    for path in sorted((ROOT / "curator").rglob("*.py")):
        if "migrations" in path.parts:
            continue
        found += [f"{path.relative_to(ROOT)}:{line}" for line in guarding_asserts(path.read_text(encoding="utf-8"))]
    assert not found, "asserts that guard data (raise a real error instead):\n" + "\n".join(found)


@pytest.mark.parametrize(
    "source, flagged",
    [
        ("assert x is not None\n", []),
        ("assert a is not None and b.c is not None\n", []),
        ("assert isinstance(x, str)\n", []),
        ("assert x\n", [1]),
        ("assert len(rows) == 3\n", [1]),
        ("assert x is not None, 'started'\n", [1]),
        ("assert settings.host and settings.sender\n", [1]),
        ("assert x is not True\n", [1]),
        ("assert x is not None or y is not None\n", [1]),
        ("def f(x):\n    if x:\n        assert x > 0\n", [3]),
    ],
)
def test_the_scan_tells_narrowing_from_guarding(source, flagged):
    assert guarding_asserts(source) == flagged


def test_a_valid_line_without_cleaned_text_is_a_conflict_not_an_assert(cli, sessions):
    """A stored valid translation line has its cleaned text; a damaged row stops the tally with
    one line naming it (it was an assert: under -O the tally voted for the key None)."""
    cli("init")
    cli("ingest", "pararel", SEED / "pararel" / "patterns")
    cli("ingest", "translations", SEED / "translations")
    cli("ingest", "tuples", SEED / "tuples")
    with sessions() as s:
        assert len(tally(s, CandidateParams()).voters) > 0
        line_id = s.scalars(select(TranslationLine.id).where(TranslationLine.valid).limit(1)).one()
        s.execute(update(TranslationLine).where(TranslationLine.id == line_id).values(cleaned=None))
        s.commit()
    with (
        sessions() as s,
        pytest.raises(Conflict, match=rf"translation line {line_id} \(.*\) is valid but has no cleaned text"),
    ):
        tally(s, CandidateParams())


def test_mail_without_a_server_or_sender_is_not_sent(tmp_path):
    """`send` is reached only when mail is configured; without a server or sender it says so
    (MailNotSent, as for a refused message) instead of an assert that -O removes."""
    settings = Settings(database_url="sqlite://", instance_path=tmp_path, secret_key="s" * 32)
    for broken in (
        replace(settings, smtp_host=None, smtp_from="a@example.org"),
        replace(settings, smtp_host="localhost", smtp_from=None),
    ):
        with pytest.raises(MailNotSent, match="no SMTP server or sender is configured"):
            send(broken, "someone@example.org", "subject", "body")

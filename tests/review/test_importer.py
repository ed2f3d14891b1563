"""`curator review import FILE`: legacy spreadsheet reviews as JSONL."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from curator.core.models import AssignmentItem, Decision, Suggestion, User
from tests.plugins.databases import table_snapshot

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def _write(path, rows):
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


ROWS = [
    {
        "reviewer": "ana@example.org",
        "language": "es",
        "relation": "P19",
        "template": "[X] nació en [Y].",
        "decision": "accept",
    },
    {
        "reviewer": "ana@example.org",
        "language": "es",
        "relation": "P19",
        "template": "[X] es originario de [Y]",
        "decision": "amend",
        "correction": "[X] es oriundo de [Y]",
    },
    {
        "reviewer": "Legacy Person",
        "language": "es",
        "relation": "P19",
        "template": "[X] nació en [Y]",
        "decision": "reject",
    },
    {
        "reviewer": "Legacy Person",
        "language": "es",
        "relation": "P36",
        "decision": "suggest",
        "correction": "[Y] es la capital de [X]",
    },
]


def test_import_decisions_and_suggestions(cli, sessions, tmp_path, engine):
    cli("seed")
    cli("user", "create", "ana@example.org", "--password", "a-long-password")
    out = cli("review", "import", _write(tmp_path / "legacy.jsonl", ROWS)).output
    assert "4 lines: 4 stored" in out and "1 reviewers created" in out
    with sessions() as s:
        rows = s.execute(
            select(User.email, Decision.decision, Decision.correction, Decision.source)
            .join(User, User.id == Decision.user_id)
            .order_by(Decision.id)
        ).all()
        assert rows == [
            ("ana@example.org", "accept", None, "import"),
            ("ana@example.org", "amend", "[X] es oriundo de [Y]", "import"),
            ("legacy-person@imported.invalid", "reject", None, "import"),
        ]
        assert s.scalar(select(Suggestion.text)) == "[Y] es la capital de [X]"
        # every imported decision hangs on an item of the reviewer's assignment
        assert s.scalar(select(AssignmentItem.id).where(AssignmentItem.id.in_(select(Decision.item_id))))
    before = table_snapshot(engine)
    assert "0 stored, 4 already there" in cli("review", "import", tmp_path / "legacy.jsonl").output
    assert table_snapshot(engine) == before


def test_bad_line_names_file_and_line_and_changes_nothing(cli, tmp_path, engine):
    cli("seed")
    before = table_snapshot(engine)
    rows = ROWS[:2] + [{**ROWS[0], "template": "[X] no existe [Y]"}]
    path = _write(tmp_path / "bad.jsonl", rows)
    result = cli("review", "import", path, ok=False)
    assert result.exit_code == 1 and f"{path}, line 3" in result.output and "no template" in result.output
    assert table_snapshot(engine) == before
    path = _write(tmp_path / "bad2.jsonl", [{**ROWS[0], "decision": "maybe"}])
    result = cli("review", "import", path, ok=False)
    assert "line 1" in result.output and "'decision'" in result.output
    path = _write(tmp_path / "bad3.jsonl", [{**ROWS[1], "correction": "[X] sin objeto"}])
    result = cli("review", "import", path, ok=False)
    assert "line 1" in result.output and "[Y]" in result.output
    assert table_snapshot(engine) == before

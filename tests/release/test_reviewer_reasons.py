"""The reasons reviewers give with a reject or an unsure, in a version built from reviews: recorded
in its params at build time (standing decisions only: a superseded or undone one's reason is not),
so in its manifest, and listed in its dataset card's "Reviewers' reasons" table — a reason cannot
break a row, reviewers are named by display name or "a reviewer", never by address, and a later
change to the reviews or the names leaves an exported card as it was — on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import select

from curator.core.models import DatasetVersion, Decision, Template, User
from curator.release.export import dataset_card
from curator.release.public_names import public_params
from curator.review import service
from tests.plugins.databases import review_sample

pytestmark = pytest.mark.backends("sqlite", "postgresql")

BORN = ("P19", "[X] nació en [Y]")
NATIVE = ("P103", "el idioma nativo de [X] es [Y]")
CAPITAL = ("P36", "la capital de [X] es [Y]")
# a reason with what could end a Markdown cell or row: a pipe, line breaks
PIPED = "P19 es el lugar de nacimiento | no el origen\n\n  y «nació» va en pasado"
PIPED_CELL = "P19 es el lugar de nacimiento \\| no el origen y «nació» va en pasado"
NOT_SURE = "¿nativo o materno?"
ADDRESS = re.compile(r"[^\s@\"|]+@[^\s@\"|]+")


def _import(cli, tmp_path, rows: list[dict]) -> None:
    path = tmp_path / "decisions.jsonl"
    lines = [{"language": "es", "relation": rel, "template": text, **row} for (rel, text), row in rows]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in lines) + "\n", encoding="utf-8")
    cli("review", "import", path)


def _user(s, email: str) -> User:
    user = s.scalar(select(User).where(User.email == email))
    assert user is not None
    return user


@pytest.fixture
def reasoned(review_app, cli, sessions, tmp_path):
    """Ana and Bo review Spanish with reasons (Bo named "Bo Revisora", Ana without a name);
    Ana's reject of the capital is superseded by her accept, and a reject of hers undone."""
    cli("release", "build", "v0")
    _import(
        cli,
        tmp_path,
        [
            (BORN, {"reviewer": "ana@example.org", "decision": "accept"}),
            (BORN, {"reviewer": "bo@example.org", "decision": "reject", "reason": PIPED}),
            (NATIVE, {"reviewer": "ana@example.org", "decision": "unsure", "reason": NOT_SURE}),
            (NATIVE, {"reviewer": "bo@example.org", "decision": "accept"}),
            (CAPITAL, {"reviewer": "ana@example.org", "decision": "reject", "reason": "superseded reason"}),
            (CAPITAL, {"reviewer": "ana@example.org", "decision": "accept"}),
        ],
    )
    taken = {BORN[1], NATIVE[1], CAPITAL[1]}
    item = next(i for i, _, text in review_sample(sessions, "ana@example.org", "es") if text not in taken)
    with sessions.begin() as s:
        ana = _user(s, "ana@example.org")
        assignment = service.get_assignment(s, ana, "es")
        service.decide(s, ana, assignment, service.get_item(s, assignment, item), "reject", reason="undone reason")
        undone, _ = service.undo(s, ana, assignment)
        assert undone is not None and undone.reason == "undone reason"
        ana.name = ""  # no display name
        _user(s, "bo@example.org").name = "Bo Revisora"
    return review_app


def _made(sessions, email: str, text: str) -> str:
    """When the reviewer's standing decision on the Spanish template was made (ISO, to the second)."""
    with sessions() as s:
        at = s.scalar(
            select(Decision.created_at)
            .join(User, User.id == Decision.user_id)
            .join(Template, Template.id == Decision.template_id)
            .where(User.email == email, Template.text == text, Decision.retracted.is_(False))
            .order_by(Decision.id.desc())
            .limit(1)
        )
    return at.isoformat(timespec="seconds")


def test_a_build_records_the_standing_reasons_and_the_card_lists_them(reasoned, cli, sessions, tmp_path):
    cli("release", "build", "r1", "--from-review")
    born_at, native_at = _made(sessions, "bo@example.org", BORN[1]), _made(sessions, "ana@example.org", NATIVE[1])
    expected = [
        {
            "language": "es",
            "relation": "P103",
            "template": NATIVE[1],
            "verdict": "unsure",
            "reason": NOT_SURE,
            "by": "a reviewer",  # Ana has no display name; never her address
            "at": native_at,
        },
        {
            "language": "es",
            "relation": "P19",
            "template": BORN[1],
            "verdict": "reject",
            "reason": PIPED,  # as typed (trimmed): the card's cell escapes it, the params keep it
            "by": "Bo Revisora",
            "at": born_at,
        },
    ]
    with sessions() as s:
        params = s.scalar(select(DatasetVersion).where(DatasetVersion.name == "r1")).params
    assert params["reviewer_reasons"] == expected  # the superseded and the undone reasons are not there
    cli("release", "export", "r1", tmp_path / "r1")
    manifest = (tmp_path / "r1" / "manifest.json").read_text(encoding="utf-8")
    card = (tmp_path / "r1" / "README.md").read_text(encoding="utf-8")
    assert json.loads(manifest)["params"]["reviewer_reasons"] == expected
    assert ADDRESS.findall(manifest) == [] and ADDRESS.findall(card) == []
    assert "## Reviewers' reasons" in card and "Reviewers gave 2 reasons with their standing reject" in card
    section = card[card.index("## Reviewers' reasons") :].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| es |")]
    assert rows == [
        f"| es | P103 | {NATIVE[1]} | unsure | {NOT_SURE} | a reviewer | {native_at} |",
        f"| es | P19 | {BORN[1]} | reject | {PIPED_CELL} | Bo Revisora | {born_at} |",
    ]
    assert "superseded reason" not in manifest + card and "undone reason" not in manifest + card

    # the card is the version's: later reviews, names and resolutions do not change it
    with sessions.begin() as s:
        bo = _user(s, "bo@example.org")
        bo.name = "Someone Else"
        assignment = service.get_assignment(s, bo, "es")
        born = next(i for i, _, text in review_sample(sessions, "bo@example.org", "es") if text == BORN[1])
        service.decide(s, bo, assignment, service.get_item(s, assignment, born), "accept")
    cli("release", "export", "r1", tmp_path / "again")
    assert (tmp_path / "again" / "README.md").read_text(encoding="utf-8") == card
    assert (tmp_path / "again" / "manifest.json").read_text(encoding="utf-8") == manifest


def test_a_resolved_template_keeps_its_reviewers_reasons_beside_the_resolution(reasoned, cli, sessions, tmp_path):
    with sessions() as s:
        born = s.scalar(select(Template.id).where(Template.language == "es", Template.text == BORN[1]))
    cli("review", "resolve", str(born), "accept", "--reason", "P19 admite «nació en»", "--by", "boss@example.org")
    cli("release", "build", "r2", "--from-review")
    cli("release", "export", "r2", tmp_path / "r2")
    card = (tmp_path / "r2" / "README.md").read_text(encoding="utf-8")
    assert "## Resolutions" in card and f"| es | P19 | {BORN[1]} | accept |  | P19 admite «nació en» |" in card
    assert "a template a maintainer resolved keeps its reviewers' reasons" in card
    assert f"| es | P19 | {BORN[1]} | reject | {PIPED_CELL} | Bo Revisora |" in card
    assert card.index("## Resolutions") < card.index("## Reviewers' reasons")


def test_a_version_without_reasons_has_no_section():
    """A version built before reasons were recorded (no `reviewer_reasons`) or with none."""
    stats = {
        "languages": ["es"],
        "avg_relations": 1.0,
        "avg_total_patterns": 2.0,
        "min_patterns_in_relation": 2,
        "max_patterns_in_relation": 2,
        "avg_patterns_in_relation": 2.0,
        "avg_string_distance": 1.0,
        "phrases_per_language": {"es": 2},
    }
    info = {"name": "v1", "kind": "review", "created": "2026-01-01T00:00:00", "parent": "v0", "statistics": stats}
    for params in ({}, {"reviewer_reasons": []}):
        assert "Reviewers' reasons" not in dataset_card({**info, "params": params})
    row = {"language": "es", "relation": "P19", "template": "[X] | [Y]", "verdict": "reject"}
    card = dataset_card({**info, "params": {"reviewer_reasons": [{**row, "reason": "a\r\nb|c", "by": "x", "at": "t"}]}})
    assert "Reviewers gave 1 reason with" in card and "| es | P19 | [X] \\| [Y] | reject | a b\\|c | x | t |" in card


def test_published_params_name_a_reviewer_without_a_name_as_a_reviewer():
    """A reviewer's reason in params that held an address (as a version written by hand might) is
    published by name, or as "a reviewer" — a maintainer's unknown address stays "a maintainer"."""
    names = {"ana@example.org": "a maintainer", "bo@example.org": "Bo Revisora"}  # public_names(): no name, a name
    params = {
        "reviewer_reasons": [{"by": "ana@example.org"}, {"by": "bo@example.org"}, {"by": "gone@example.org"}],
        "resolutions": [{"by": "ana@example.org"}, {"by": "gone@example.org"}, {"by": "Mina Boss"}],
    }
    cleaned = public_params(params, names)
    assert [r["by"] for r in cleaned["reviewer_reasons"]] == ["a reviewer", "Bo Revisora", "a reviewer"]
    assert [r["by"] for r in cleaned["resolutions"]] == ["a maintainer", "a maintainer", "Mina Boss"]

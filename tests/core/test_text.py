"""Reading real data is never refused for its invisible characters (issue 25).

The published mParaRel release holds U+200E LEFT-TO-RIGHT MARK, U+200F RIGHT-TO-LEFT MARK,
U+200B ZERO WIDTH SPACE, U+00AD SOFT HYPHEN and U+FEFF ZERO WIDTH NO-BREAK SPACE in its
templates and labels, and the raw MT output bidi embeddings. The tests have no copy of it, so
a release is built here whose templates hold each of them; `curator stats`, `release import`
→ `release export`, a probe run and the web pages must all work on it, keep every character
and show or count them. What a person types is still refused (tests/ingest/test_data_safety.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sqlalchemy import select

from curator.core.formats.jsonl import dumps
from curator.core.models import AssignmentItem, Decision, Template, TranslationLine
from curator.core.text import InvisibleTally, invisible_characters, parts
from tests.plugins.databases import review_sample
from tests.plugins.servers import Browser
from tests.support.files import tree_bytes

NAMES = {
    "\u200e": "U+200E LEFT-TO-RIGHT MARK",
    "\u200f": "U+200F RIGHT-TO-LEFT MARK",
    "\u200b": "U+200B ZERO WIDTH SPACE",
    "\u00ad": "U+00AD SOFT HYPHEN",
    "\ufeff": "U+FEFF ZERO WIDTH NO-BREAK SPACE",
    "\u202b": "U+202B RIGHT-TO-LEFT EMBEDDING",
    "\u202c": "U+202C POP DIRECTIONAL FORMATTING",
}
# one template per character (the bidi embedding wraps the whole line, as m2m100 does)
TEMPLATES = [
    "[X] nació en\u200e [Y]",
    "[X] es\u200f de [Y]",
    "[X] nació\u200b en [Y]",
    "[X] na\u00adció en [Y]",
    "\ufeff[X] es originario de [Y]",
    "\u202b[X] vino al mundo en [Y]\u202c",
]
LABEL = "Ciudad\u200e"  # published labels hold LEFT-TO-RIGHT MARKs (339 of them)


def test_the_character_rule():
    assert invisible_characters("[X] می\u200cباشد [Y] रिश्\u200dते") == {}  # ZWNJ, ZWJ: letters
    assert invisible_characters("\u202b[X]\u200e\u200e [Y]\u202c") == {"\u202b": 1, "\u200e": 2, "\u202c": 1}
    assert parts("[X]\u200b [Y]") == [("[X]", None), ("\u200b", "ZWSP"), (" [Y]", None)]
    assert parts("a\U000e0001") == [("a", None), ("\U000e0001", "U+E0001")]
    # the quick pass that spares `curator stats` parsing every tuples file
    from curator.core.formats.release_tuples import may_hold_invisible

    assert not may_hold_invisible(b'{"obj_label": "Par\\u00eds", "x": "\xc3\xa9"}\r\n\t\n')
    # above U+FFFF a character is a surrogate pair of escapes (U+E0067 TAG SMALL G, as json.dumps writes it)
    assert may_hold_invisible(json.dumps({"sub_label": "England\U000e0067"}).encode())
    for data in (
        b'{"obj_label": "x\\u200e"}\n',
        '{"obj_label": "x\u200e"}\n'.encode(),
        b'{"a": "\\t"}\n',
        b'{"a": "\x7f"}\n',
    ):
        assert may_hold_invisible(data), data
    tally = InvisibleTally()
    tally.add("f.jsonl", 3, "a\u200bb\u200b", "c\u200e")
    tally.add("f.jsonl", 7, "plain")
    assert tally.to_dict()["per_file"] == {
        "f.jsonl": {"lines": [3], "characters": {"U+200B ZERO WIDTH SPACE": 2, "U+200E LEFT-TO-RIGHT MARK": 1}}
    }


@pytest.fixture
def published(release, tmp_path) -> Path:
    """The demo release with the invisible characters of the published one, written as the
    published files are (ASCII escapes) and, like it, without manifest.json or README.md."""
    root = tmp_path / "published"
    shutil.copytree(release, root)
    (root / "manifest.json").unlink()
    (root / "README.md").unlink()
    patterns = root / "patterns" / "es" / "P19.jsonl"
    rows = [json.loads(line) for line in patterns.read_text(encoding="utf-8").splitlines()]
    patterns.write_bytes(
        dumps([{"pattern": t, "checked-by-human": i % 2 == 0} for i, t in enumerate(TEMPLATES)] + rows)
    )
    tuples = root / "tuples" / "es" / "P19.jsonl"
    rows = [json.loads(line) for line in tuples.read_text(encoding="utf-8").splitlines()]
    rows[0]["obj_label"] = LABEL
    tuples.write_bytes(dumps(rows))
    assert b"\\u200e" in patterns.read_bytes()  # the published form: escaped, not raw
    return root


def test_stats_counts_them_per_file_and_refuses_nothing(cli, published):
    out = cli("stats", published).output
    assert "languages" in out and "avg string distance" in out
    assert (
        "invisible characters kept: 7 lines in 2 files (U+200E LEFT-TO-RIGHT MARK 2, U+00AD SOFT HYPHEN 1, "
        "U+200B ZERO WIDTH SPACE 1, U+200F RIGHT-TO-LEFT MARK 1, U+202B RIGHT-TO-LEFT EMBEDDING 1, "
        "U+202C POP DIRECTIONAL FORMATTING 1, U+FEFF ZERO WIDTH NO-BREAK SPACE 1)"
    ) in out
    assert "  patterns/es/P19.jsonl: lines 1, 2, 3, 4, 5, 6: " in out
    assert "  tuples/es/P19.jsonl: line 1: U+200E LEFT-TO-RIGHT MARK ×1" in out
    data = json.loads(cli("stats", published, "--json").output)
    files = data["invisible_characters"]["per_file"]
    assert files["patterns/es/P19.jsonl"]["lines"] == [1, 2, 3, 4, 5, 6]
    assert files["patterns/es/P19.jsonl"]["characters"] == {NAMES[ch]: 1 for ch in sorted(NAMES)}
    assert files["tuples/es/P19.jsonl"] == {"lines": [1], "characters": {NAMES["\u200e"]: 1}}
    assert data["languages"]  # the SPEC §4 numbers are all there


def test_import_then_export_is_byte_identical(cli, sessions, published, tmp_path):
    from curator.core.models import DatasetVersion, VersionPattern

    out = cli("release", "import", published, "--version", "pub").output
    assert "invisible characters kept: 7 lines in 2 files" in out
    assert "patterns/es/P19.jsonl: lines 1, 2, 3, 4, 5, 6:" in out
    with sessions() as s:
        stored = s.scalars(
            select(VersionPattern.pattern)
            .join(DatasetVersion)
            .where(DatasetVersion.name == "pub", VersionPattern.language == "es", VersionPattern.relation_id == "P19")
            .order_by(VersionPattern.position)
        ).all()
    assert stored[: len(TEMPLATES)] == TEMPLATES
    cli("release", "export", "pub", tmp_path / "again")
    again = tree_bytes(tmp_path / "again")
    original = tree_bytes(published)
    assert {k: v for k, v in again.items() if k.startswith(("patterns/", "tuples/"))} == original
    # printed to a terminal, they are marked: an override must not reorder the line
    out = cli("release", "diff", "v0", "pub").output
    assert "  + [X] nació en⟨LRM⟩ [Y]" in out and "  + ⟨RLE⟩[X] vino al mundo en [Y]⟨PDF⟩" in out
    assert not any(ch in out for ch in NAMES)


def test_probe_runs_on_it(cli, published, bert, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from curator.probe.runner import load_result

    out = tmp_path / "run"
    cli("probe", published, "--model", bert, "--out", out, "--languages", "es", "--relations", "P19", "--device", "cpu")
    index, arrays = load_result(out, "es", "P19")
    assert index["templates"][: len(TEMPLATES)] == TEMPLATES  # as the release holds them
    assert arrays["ranking"].shape[0] == len(index["templates"]) * len(index["subjects"])


def test_the_mpararel_profile_keeps_them_as_published(cli, sessions, loaded):
    """The published procedure never looked at these characters: a line holding one is judged
    by its slots alone and its cleaned form keeps them. The curator profile keeps today's rule:
    the line is stored, invalid, with the reason."""
    from curator.ingest import mpararel_rules
    from curator.ingest.clean import check

    line = "\u202b[X] nació en\u200e [Y].\u202c"
    assert mpararel_rules.check(line, "es").cleaned == "\u202b[X] nació en\u200e [Y]\u202c"
    assert check(line, "es").reason == "contains U+202B RIGHT-TO-LEFT EMBEDDING, a control/format character"
    for system in ("pararel_bing", "pararel_google"):  # two systems agree on it: a candidate
        target = loaded / "translations" / system / "es" / "P19.jsonl"
        lines = target.read_text(encoding="utf-8").splitlines()
        lines[0] = json.dumps({**json.loads(lines[0]), "pattern": line})
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cli("ingest", "translations", loaded / "translations")
    cli("candidates", "build")
    with sessions() as s:
        assert not any("\u200e" in t for t in s.scalars(select(Template.text)))
        stored = s.scalars(select(TranslationLine.reason).where(TranslationLine.raw == line)).all()
        assert stored == ["contains U+202B RIGHT-TO-LEFT EMBEDDING, a control/format character"] * 2
    cli("candidates", "build", "--rules", "mpararel")
    with sessions() as s:
        assert "\u202b[X] nació en\u200e [Y]\u202c" in s.scalars(
            select(Template.text).where(Template.language == "es", Template.is_candidate)
        )


# ---------------------------------------------------------------- the web pages
def _plant(sessions, email: str = "ana@example.org") -> tuple[int, str]:
    """Give the reviewer's first Spanish template every character, as a candidate of the
    `mpararel` profile would have them; (item id, text)."""
    item_id = review_sample(sessions, email, "es")[0][0]
    text = "\u202b[X] nació\u200b en\u200e [Y]\u200f\u00ad\ufeff\u202c"
    with sessions.begin() as s:
        s.get(Template, s.get(AssignmentItem, item_id).template_id).text = text
    return item_id, text


def _marker(ch: str, short: str) -> str:
    label = f"Invisible character: {NAMES[ch]}"
    return f'<span class="invisible-char" role="img" aria-label="{label}" title="{label}">⟨{short}⟩</span>'


def test_language_page_marks_them_visibly(review_app, sessions):
    _item_id, _text = _plant(sessions)
    boss = Browser(review_app).login("boss@example.org")
    html = boss.get("/admin/languages/es?q=naci").get_data(as_text=True)
    cell = html[html.index(_marker("\u202b", "RLE")) :]
    cell = cell[: cell.index("</td>")]
    assert cell == (
        _marker("\u202b", "RLE")
        + "[X] nació"
        + _marker("\u200b", "ZWSP")
        + " en"
        + _marker("\u200e", "LRM")
        + " [Y]"
        + _marker("\u200f", "RLM")
        + _marker("\u00ad", "SHY")
        + _marker("\ufeff", "ZWNBSP")
        + _marker("\u202c", "PDF")
    )
    assert not any(ch in html for ch in NAMES)  # none of them reaches the page as it is
    # the interface language names them too
    boss.client.post("/locale", data={"locale": "es", "csrf_token": boss.token})
    html = boss.get("/admin/languages/es?q=naci").get_data(as_text=True)
    assert 'aria-label="Carácter invisible: U+200E LEFT-TO-RIGHT MARK"' in html


def test_typed_amendment_holding_one_is_refused_naming_it(review_app, sessions):
    item_id, text = _plant(sessions)
    ana = Browser(review_app).login("ana@example.org")
    r = ana.post(f"/api/v1/languages/es/items/{item_id}/decision", {"decision": "amend", "correction": text})
    assert r.status_code == 422
    assert "invisible character (U+202B RIGHT-TO-LEFT EMBEDDING)" in r.get_json()["error"]
    # accepting it is a decision on the data as it is: fine
    assert ana.post(f"/api/v1/languages/es/items/{item_id}/decision", {"decision": "accept"}).status_code == 201


def test_review_screen_marks_them_and_the_amendment_leaves_them_out(chromium, live, sessions):
    from tests.web.test_review_ui import sign_in, start_reviewing, wait_for_item

    item_id, _text = _plant(sessions)
    context = chromium.new_context(viewport={"width": 1100, "height": 900}, bypass_csp=True)
    page = context.new_page()
    sign_in(page, live.url, "ana@example.org")
    page.goto(live.url + f"/review/es#item-{item_id}")
    start_reviewing(page)
    wait_for_item(page, item_id)
    markers = page.locator("#template .invisible-char")
    assert markers.all_inner_texts() == ["⟨RLE⟩", "⟨ZWSP⟩", "⟨LRM⟩", "⟨RLM⟩", "⟨SHY⟩", "⟨ZWNBSP⟩", "⟨PDF⟩"]
    assert markers.nth(2).get_attribute("aria-label") == "Invisible character: U+200E LEFT-TO-RIGHT MARK"
    assert page.locator("#template").inner_text() == "⟨RLE⟩[X] nació⟨ZWSP⟩ en⟨LRM⟩ [Y]⟨RLM⟩⟨SHY⟩⟨ZWNBSP⟩⟨PDF⟩"
    # Amend: the text to edit comes without them, and the reviewer is told which were taken out
    page.keyboard.press("e")
    assert page.locator("#amend-text").input_value() == "[X] nació en [Y]"
    assert page.locator("#amend-msg").inner_text() == (
        "Invisible characters were taken out of the text to edit: U+202B RIGHT-TO-LEFT EMBEDDING, "
        "U+200B ZERO WIDTH SPACE, U+200E LEFT-TO-RIGHT MARK, U+200F RIGHT-TO-LEFT MARK, U+00AD SOFT HYPHEN, "
        "U+FEFF ZERO WIDTH NO-BREAK SPACE, U+202C POP DIRECTIONAL FORMATTING. "
        "Saving the correction leaves them out."
    )
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.getElementById('item-card').dataset.item !== '{item_id}'")
    with sessions() as s:
        decision = s.scalars(select(Decision).where(Decision.item_id == item_id)).one()
        assert (decision.decision, decision.correction) == ("amend", "[X] nació en [Y]")
    context.close()


def test_typed_names_and_guidelines_holding_one_are_refused(cli, sessions):
    """A display name is shown beside comments: U+202E there would reorder what a maintainer reads."""
    from curator.core.models import User

    cli("seed")
    bad = cli("user", "create", "eve@example.org", "--password", "a-long-password", "--name", "Ana\u202eevil", ok=False)
    assert bad.exit_code == 1 and "U+202E RIGHT-TO-LEFT OVERRIDE" in bad.output and "Traceback" not in bad.output
    cli(
        "user", "create", "maria@example.org", "--password", "a-long-password", "--name", " Ana\u200cMaría "
    )  # ZWNJ: a letter
    with sessions() as s:
        assert s.scalars(select(User.name).where(User.email.in_(["eve@example.org", "maria@example.org"]))).all() == [
            "Ana\u200cMaría"
        ]
    from curator.core.errors import InputError
    from curator.review.guidelines import set_guidelines

    for text in ("line\x1cone", "a\x0bb", "tab\there", "next\x85line"):  # only line breaks are allowed
        with sessions() as s, pytest.raises(InputError, match="control/format character"):
            set_guidelines(s, "es", text, None)
    with sessions() as s:
        assert set_guidelines(s, "es", "one\r\ntwo", None) == "one\ntwo\n"

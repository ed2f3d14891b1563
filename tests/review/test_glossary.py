"""The glossary (issue 27 §6): maintainers' terms per language, CSV in and out (bad lines
refused with file, line and field; all or nothing), the maintainers' page (roles, CSRF,
escaping) and the review screen, which shows the terms of the English pattern and highlights
the preferred translation in the template and its examples without pushing the actions down."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from curator.core.models import EnglishPattern, GlossaryTerm
from curator.review.glossary import add_term
from tests.plugins.databases import review_sample, table_snapshot
from tests.plugins.servers import Browser
from tests.web.test_review_guidance import DESKTOP, PHONE, inside_viewport, open_review
from tests.web.test_review_ui import wait_for_item

HEADER = "language,term,translation,note\n"


def _terms(sessions) -> list[tuple[str, str, str, str]]:
    with sessions() as s:
        rows = s.scalars(select(GlossaryTerm).order_by(GlossaryTerm.language, GlossaryTerm.term_key))
        return [(r.language, r.term, r.translation, r.note) for r in rows]


def test_import_and_export_csv(review_app, cli, sessions, tmp_path):
    good = tmp_path / "glossary.csv"
    good.write_text(
        HEADER + 'es,born,nació,"past tense, ""nació"" not ""nacido"""\nar,capital,عاصمة,\n\nes,Capital,capital\n',
        encoding="utf-8",
    )
    result = cli("glossary", "import", good)
    assert "3 terms added, 0 updated" in result.output
    out = tmp_path / "out.csv"
    assert "1 terms written" in cli("glossary", "export", out, "--language", "ar").output
    assert out.read_text(encoding="utf-8") == HEADER + "ar,capital,عاصمة,\n"
    cli("glossary", "export", out)
    assert out.read_text(encoding="utf-8").splitlines()[1:] == [
        "ar,capital,عاصمة,",
        'es,born,nació,"past tense, ""nació"" not ""nacido"""',
        "es,Capital,capital,",
    ]
    # the export imports back unchanged; a changed line updates its term (compared folded)
    assert "0 terms added, 0 updated" in cli("glossary", "import", out).output
    good.write_text(HEADER + "es,BORN,vino al mundo,\n", encoding="utf-8")
    assert "0 terms added, 1 updated" in cli("glossary", "import", good).output
    assert ("es", "BORN", "vino al mundo", "") in _terms(sessions)


@pytest.mark.parametrize(
    "content, line, field, says",
    [
        ("lang,term,translation,note\n", 1, None, "the first line must be the header"),
        (HEADER + "es,born,nació,\nes,capital\n", 3, None, "expected 4 fields, found 2"),
        (HEADER + "es,born,nació,\nes,capital,,\n", 3, "translation", "is empty"),
        (HEADER + "es,born,nació,\nxx,capital,capital,\n", 3, "language", "no language 'xx'"),
        (HEADER + "es,born,nació,\nes,BÓRN,otra,\n", 3, "term", "the same term as line 2"),
        (HEADER + "es,born,nació,\nes,capital,cap\u202eital,\n", 3, "translation", "U+202E"),
        (HEADER + "es,born,nació,\nes,capital," + "x" * 201 + ",\n", 3, "translation", "longer than 200"),
        # 150 × ß folds to 300 letters (ss), more than the folded key holds (PostgreSQL refused it raw)
        (HEADER + "es,born,nació,\nes," + "ß" * 150 + ",x,\n", 3, "term", "too long once folded"),
    ],
)
def test_a_bad_line_names_file_line_and_field_and_stores_nothing(
    review_app, cli, engine, tmp_path, content, line, field, says
):
    before = table_snapshot(engine)
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    result = cli("glossary", "import", path, ok=False)
    assert result.exit_code == 1
    message = result.output.strip()
    assert "\n" not in message and "Traceback" not in message
    assert message.startswith(f"Error: {path}, line {line}: "), message
    if field:
        assert f"field '{field}'" in message
    assert says in message
    assert table_snapshot(engine) == before  # the good line before it was not stored either


def test_bad_utf8_is_one_line(review_app, cli, tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes((HEADER + "es,born,nació,\n").encode("latin-1"))
    result = cli("glossary", "import", path, ok=False)
    assert result.exit_code == 1 and result.output.strip() == f"Error: {path}, line 2: not UTF-8 text"
    result = cli("glossary", "export", tmp_path / "x.csv", "--language", "zz", ok=False)
    assert result.exit_code == 1 and result.output.count("\n") == 1


def test_maintainers_edit_the_glossary_page(review_app, sessions):
    url = "/admin/languages/es/glossary"
    ana = Browser(review_app).login("ana@example.org")
    assert ana.get(url).status_code == 403
    assert review_app.test_client().get(url).status_code == 302  # to the sign-in page
    boss = Browser(review_app).login("boss@example.org")
    assert 'id="glossary-link"' in boss.get("/admin/languages/es").get_data(as_text=True)
    page = boss.get(url).get_data(as_text=True)
    assert "No terms yet." in page
    # no CSRF token: refused, nothing stored
    plain = {"term": "born", "translation": "nació"}
    assert boss.client.post(url, data=plain).status_code == 400
    assert ana.client.post(url, data={**plain, "csrf_token": ana.token}).status_code == 403
    assert _terms(sessions) == []
    evil = "<script>alert(1)</script>"
    response = boss.client.post(url, data={**plain, "note": evil, "csrf_token": boss.token})
    assert response.status_code == 302
    page = boss.get(url).get_data(as_text=True)
    assert evil not in page and "&lt;script&gt;" in page
    # a term already there (compared folded) is refused, the form keeps its input
    response = boss.client.post(url, data={"term": "BÓRN", "translation": "otra", "csrf_token": boss.token})
    assert response.status_code == 422 and 'value="otra"' in response.get_data(as_text=True)
    # the search box ignores case and accents
    assert "nació" in boss.get(url + "?q=NACIO").get_data(as_text=True)
    assert "No term matches" in boss.get(url + "?q=capital").get_data(as_text=True)
    (term_id,) = [r.id for r in _rows(sessions)]
    edit = f"{url}/{term_id}"
    assert ana.client.post(edit, data={"action": "delete", "csrf_token": ana.token}).status_code == 403
    assert boss.client.post(edit, data={"action": "delete"}).status_code == 400
    response = boss.client.post(edit, data={"term": "born", "translation": "", "csrf_token": boss.token})
    assert response.status_code == 422
    response = boss.client.post(
        edit, data={"term": "born", "translation": "nacida", "note": "", "csrf_token": boss.token}
    )
    assert response.status_code == 302 and _terms(sessions) == [("es", "born", "nacida", "")]
    assert boss.client.post(edit, data={"action": "delete", "csrf_token": boss.token}).status_code == 302
    assert _terms(sessions) == []
    assert boss.client.post(edit, data={"action": "delete", "csrf_token": boss.token}).status_code == 422


def _rows(sessions):
    with sessions() as s:
        return list(s.scalars(select(GlossaryTerm)))


def _first_item_term(sessions) -> tuple[int, str, str, str]:
    """Ana's first Spanish item, a word of its English pattern and a word of its template, made
    a glossary term: (item id, term, translation, the template)."""
    item_id, relation, text = review_sample(sessions, "ana@example.org", "es")[0]
    with sessions() as s:
        english = s.scalars(
            select(EnglishPattern.pattern)
            .where(EnglishPattern.relation_id == relation)
            .order_by(EnglishPattern.position)
        ).first()
    term = max(re.findall(r"[a-z]{3,}", english), key=len)
    translation = max(re.findall(r"\w{3,}", re.sub(r"\[[XY]\]", "", text)), key=len)
    with sessions.begin() as s:
        add_term(s, "es", term.upper(), translation.upper(), "<b>use this</b>")
    return item_id, term, translation, text


def test_the_item_endpoint_lists_the_patterns_terms(review_app, sessions):
    item_id, term, translation, _ = _first_item_term(sessions)
    ana = Browser(review_app).login("ana@example.org")
    body = ana.get(f"/api/v1/languages/es/items/{item_id}/glossary").get_json()
    assert body == {
        "terms": [
            {
                "term": term.upper(),
                "translation": translation.upper(),
                "note": "<b>use this</b>",
                "found": [translation],
            }
        ]
    }
    # another reviewer's item, or a language one does not review: refused like the item itself
    bo_items = review_sample(sessions, "bo@example.org", "es")
    assert ana.get(f"/api/v1/languages/es/items/{bo_items[0][0]}/glossary").status_code == 404
    assert ana.get(f"/api/v1/languages/el/items/{item_id}/glossary").status_code == 403


def test_review_screen_shows_and_highlights_a_term(chromium, live, sessions):
    item_id, term, translation, _ = _first_item_term(sessions)
    for viewport in (PHONE, DESKTOP):
        context, page = open_review(chromium, live, viewport=viewport)
        wait_for_item(page, item_id)
        page.wait_for_selector("#glossary:not([hidden])")
        line = page.locator("#glossary").inner_text()
        assert term.upper() in line and translation.upper() in line and "<b>use this</b>" in line  # as text
        assert page.locator("#glossary b").count() == 0
        assert page.locator("#template .glossary-term").all_inner_texts() == [translation]
        assert translation in page.locator("#examples .glossary-term").all_inner_texts()
        for selector in ("#accept", "#reject", "#unsure", "#amend"):
            inside_viewport(page, selector)
        context.close()

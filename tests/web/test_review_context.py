"""The review screen's context panels (issue 27 §6): machine translations of the template's
English pattern, the relation in languages the reviewer picked, and the translation memory."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import delete, select

from curator.core.errors import InputError
from curator.core.models import AssignmentItem, EnglishPattern, Template, TranslationLine, User, first_english
from curator.review import context
from curator.review.importer import import_reviews
from curator.review.service import get_assignment, undo
from tests.plugins.databases import review_sample
from tests.plugins.servers import Browser
from tests.review.test_translation_memory import reference_similarity

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def _candidates(s, language: str, relation: str) -> list[str]:
    return list(
        s.scalars(
            select(Template.text)
            .where(Template.language == language, Template.relation_id == relation, Template.is_candidate)
            .order_by(Template.votes.desc(), Template.first_position, Template.id)
        )
    )


def _import(s, tmp_path, lines: list[dict[str, str]]) -> None:
    path = tmp_path / "reviews.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    import_reviews(s, path)


def test_context_from_standing_decisions(review_app, sessions, tmp_path):
    """Accepted = a standing accept (or an amend's correction); a reject is a verdict with
    nothing accepted; unsure, superseded and undone decisions are no verdict, so the language's
    candidates show instead."""
    with sessions() as s:
        ar = {rel: _candidates(s, "ar", rel) for rel in ("P103", "P19", "P30", "P36")}
    amended = "[X] لغته الأم هي [Y]"
    line = {"reviewer": "ana@example.org", "language": "ar"}
    with sessions.begin() as s:
        _import(
            s,
            tmp_path,
            [
                {**line, "relation": "P103", "template": ar["P103"][1], "decision": "accept"},
                {**line, "relation": "P103", "template": ar["P103"][2], "decision": "amend", "correction": amended},
                {**line, "relation": "P103", "template": ar["P103"][3], "decision": "reject"},
                {**line, "relation": "P19", "template": ar["P19"][0], "decision": "accept"},
                {**line, "relation": "P19", "template": ar["P19"][0], "decision": "reject"},  # supersedes
                {**line, "relation": "P19", "template": ar["P19"][1], "decision": "unsure"},
                {**line, "relation": "P30", "template": ar["P30"][0], "decision": "unsure"},
                {**line, "relation": "P36", "template": ar["P36"][0], "decision": "accept"},
            ],
        )
    with sessions.begin() as s:
        ana = s.scalars(select(User).where(User.email == "ana@example.org")).one()
        undone, _ = undo(s, ana, get_assignment(s, ana, "ar"))
        assert undone is not None and undone.relation_id == "P36"
    with sessions() as s:
        p103 = context.other_languages(s, "P103", ["ar", "el"])
        assert [(x["code"], x["dir"]) for x in p103] == [("ar", "rtl"), ("el", "ltr")]
        assert p103[0]["templates"] == [
            {"text": ar["P103"][1], "status": "accepted"},
            {"text": amended, "status": "amended"},
        ]
        assert p103[1]["templates"] == [{"text": t, "status": "candidate"} for t in _candidates(s, "el", "P103")]
        assert context.other_languages(s, "P19", ["ar"])[0]["templates"] == []  # rejected, nothing accepted
        for rel in ("P30", "P36"):  # only unsure / undone: as if undecided
            shown = context.other_languages(s, rel, ["ar"])[0]["templates"]
            assert shown == [{"text": t, "status": "candidate"} for t in ar[rel]]


def test_machine_translations_and_memory(review_app, sessions, tmp_path):
    with sessions() as s:
        template = s.scalars(
            select(Template).where(Template.language == "es", Template.text == "el idioma nativo de [X] es [Y]")
        ).one()
        machine = context.machine_translations(s, template)
        assert [m["n"] for m in machine] == [1, 2, 3]
        assert {m["system"] for m in machine} == {"pararel_bing", "pararel_google", "pararel_opus_mt"}
        assert {m["english"] for m in machine} == {"The native language of [X] is [Y]."}
        # each system's repaired output, the disagreeing one included
        assert sorted(m["text"] for m in machine) == [
            "El idioma nativo de [X] es [Y].",
            "El idioma nativo de [X] es [Y].",
            "La lengua nativa de [X] es [Y].",
        ]
        assert [m["same"] for m in machine if m["text"].startswith("La")] == [False]
        # the lines equal to the template but for the final period are the same: no key; the
        # others numbered 1, 2… for the keys
        assert [m["same"] for m in machine if m["text"].startswith("El")] == [True, True]
        assert [(m["same"], m["key"]) for m in machine if m["key"] is not None] == [(False, 1)]
        assert all(m["key"] is None for m in machine if m["same"])
        assert context.translation_memory(s, template) == []  # nothing accepted yet
    line = {"reviewer": "bo@example.org", "language": "es"}
    with sessions.begin() as s:
        _import(
            s,
            tmp_path,
            [
                {**line, "relation": "P37", "template": "el idioma oficial de [X] es [Y]", "decision": "accept"},
                {
                    **line,
                    "relation": "P19",
                    "template": "[X] nació en [Y]",
                    "decision": "amend",
                    "correction": "[X] es nativo de [Y] según el idioma",
                },
                {**line, "relation": "P36", "template": "la capital de [X] es [Y]", "decision": "accept"},
                {**line, "relation": "P103", "template": "la lengua materna de [X] es [Y]", "decision": "accept"},
            ],
        )
    with sessions() as s:
        memory = context.translation_memory(s, template)
        # other relations only (not P103's own), by the similarity of the English patterns (the
        # reference of test_translation_memory); P19's "[X] was born in [Y]." is under the threshold
        mine = "The native language of [X] is [Y]."
        official, capital = "The official language of [X] is [Y].", "The capital of [X] is [Y] ."
        assert reference_similarity(mine, "[X] was born in [Y].") < context.MEMORY_THRESHOLD
        assert [(m["relation"], m["text"], m["english"], m["status"], m["similarity"]) for m in memory] == [
            (
                "P37",
                "el idioma oficial de [X] es [Y]",
                official,
                "accepted",
                round(reference_similarity(mine, official)),
            ),
            ("P36", "la capital de [X] es [Y]", capital, "accepted", round(reference_similarity(mine, capital))),
        ]
        assert memory[0]["title"] == "official language" and memory[0]["similarity"] > memory[1]["similarity"]


def test_without_machine_lines_the_english_is_the_one_the_template_translates(review_app, sessions):
    """The pattern a template translates is `first_english` everywhere: with no machine line left
    for it, the context (Disagreements page) names the pattern at its `first_position`, not the
    relation's first (a regression of the issue 37 review)."""
    with sessions.begin() as s:
        template = s.scalars(
            select(Template)
            .where(Template.language == "es", Template.is_candidate, Template.first_position > 0)
            .order_by(Template.id)
            .limit(1)
        ).one()
        s.execute(
            delete(TranslationLine).where(
                TranslationLine.language == "es", TranslationLine.relation_id == template.relation_id
            )
        )
        template_id, relation, position = template.id, template.relation_id, template.first_position
    with sessions() as s:
        patterns = s.scalars(
            select(EnglishPattern.pattern)
            .where(EnglishPattern.relation_id == relation)
            .order_by(EnglishPattern.position)
        ).all()
        assert patterns[position] != patterns[0]
        template = s.get_one(Template, template_id)
        shown = context.template_context(s, template)
        assert shown["machine"] == [] and shown["english"] == [patterns[position]]
        # the Find page lists the same pattern beside it (review.find reads first_english too)
        assert (
            s.scalar(select(EnglishPattern.pattern).where(first_english(), Template.id == template_id))
            == (patterns[position])
        )


def test_chosen_languages_are_remembered_per_account(review_app, sessions):
    with sessions.begin() as s:
        ana = s.scalars(select(User).where(User.email == "ana@example.org")).one()
        assert context.chosen_languages(s, ana) == []
        assert context.choose_languages(s, ana, ["el", "ar", "el"]) == ["el", "ar"]
    with sessions.begin() as s:
        ana = s.scalars(select(User).where(User.email == "ana@example.org")).one()
        bo = s.scalars(select(User).where(User.email == "bo@example.org")).one()
        assert context.chosen_languages(s, ana) == ["el", "ar"] and context.chosen_languages(s, bo) == []
        with pytest.raises(InputError, match="no language with the code xx"):
            context.choose_languages(s, ana, ["ar", "xx"])
    with sessions() as s:
        ana = s.scalars(select(User).where(User.email == "ana@example.org")).one()
        assert context.chosen_languages(s, ana) == ["el", "ar"]  # the refused choice changed nothing


@pytest.mark.backends("sqlite")
def test_context_api(review_app, sessions, tmp_path):
    ana = Browser(review_app).login("ana@example.org")
    api = "/api/v1/languages/es"
    item = ana.get(f"{api}/queue").get_json()["next"]
    assert ana.get("/api/v1/me/context-languages").get_json() == {
        "chosen": [],
        "available": [
            {"code": "ar", "name": "Arabic", "dir": "rtl"},
            {"code": "en", "name": "English", "dir": "ltr"},
            {"code": "el", "name": "Greek", "dir": "ltr"},
            {"code": "es", "name": "Spanish", "dir": "ltr"},
        ],
    }
    for body, error in (
        ({"languages": "ar"}, "Send the languages as a list of language codes."),
        ({"languages": ["ar", 3]}, "Send the languages as a list of language codes."),
        ({"languages": ["zz"]}, "There is no language with the code zz."),
        ({"languages": ["x" * 40]}, "language must be at most 32 characters"),
    ):
        answer = ana.post("/api/v1/me/context-languages", json=body)
        assert (answer.status_code, answer.get_json()) == (422, {"error": error})
    answer = ana.post("/api/v1/me/context-languages", json={"languages": ["ar", "es", "el"]})
    assert answer.status_code == 200 and answer.get_json() == {"chosen": ["ar", "es", "el"]}
    panels = ana.get(f"{api}/items/{item}/context").get_json()
    assert set(panels) == {"machine", "languages", "memory"}
    assert panels["machine"] and all(m["n"] == k for k, m in enumerate(panels["machine"], start=1))
    assert [x["code"] for x in panels["languages"]] == ["ar", "el"]  # not the language under review
    assert panels["languages"][0]["templates"][0]["status"] == "candidate"
    # an item whose English pattern is like P37's ("The … of [X] is [Y]."): P37 is in its memory
    alike = next(i for i, rel, _ in review_sample(sessions, "ana@example.org", "es") if rel in ("P103", "P36"))
    _context_api_in(ana, sessions, tmp_path, alike)
    # another reviewer's item: 404; a language one does not review: 403
    bo = Browser(review_app).login("bo@example.org")
    assert bo.get(f"{api}/items/{item}/context").status_code == 404
    assert bo.get(f"/api/v1/languages/ar/items/{item}/context").status_code == 403


def _context_api_in(ana: Browser, sessions, tmp_path, item: int) -> None:
    """Issue 27 §1: in Spanish and Arabic the panels name languages and relations in that
    language (`title_lang` "en" only where no title is translated) and the errors are translated."""
    with sessions.begin() as s:
        text = s.scalars(
            select(Template.text)
            .join(AssignmentItem, AssignmentItem.template_id == Template.id)
            .where(AssignmentItem.id == item)
        ).one()
        relation = s.scalars(select(Template.relation_id).join(AssignmentItem).where(AssignmentItem.id == item)).one()
        assert relation != "P37"
        # another relation's amended template whose English pattern is like the item's: in its memory
        line = {"reviewer": "bo@example.org", "language": "es", "decision": "amend"}
        official = "el idioma oficial de [X] es [Y]"
        _import(s, tmp_path, [{**line, "relation": "P37", "template": official, "correction": f"{text} (oficial)"}])
    expected = {
        "es": ({"ar": "árabe", "el": "griego"}, "idioma oficial", "Elige como máximo"),
        "ar": ({"ar": "العربية", "el": "اليونانية"}, "اللغة الرسمية", "اختر"),
    }
    for locale, (names, title, too_many) in expected.items():
        headers = {"Accept-Language": locale}
        panels = ana.client.get(f"/api/v1/languages/es/items/{item}/context", headers=headers).get_json()
        assert {x["code"]: x["name"] for x in panels["languages"]} == names, locale
        memory = [m for m in panels["memory"] if m["relation"] == "P37"]
        assert [(m["title"], m["title_lang"]) for m in memory] == [(title, locale)], locale
        available = ana.client.get("/api/v1/me/context-languages", headers=headers).get_json()["available"]
        assert {x["code"]: x["name"] for x in available if x["code"] in names} == names, locale
        answer = ana.post(
            "/api/v1/me/context-languages", json={"languages": [f"x{k}" for k in range(13)]}, headers=headers
        )
        assert answer.status_code == 422 and answer.get_json()["error"].startswith(too_many), locale
        answer = ana.post("/api/v1/me/context-languages", json={"languages": "ar"}, headers=headers)
        assert answer.status_code == 422 and "Send the languages" not in answer.get_json()["error"], locale
    answer = ana.client.get(f"/api/v1/languages/es/items/{item}/context").get_json()
    assert [(m["title"], m["title_lang"]) for m in answer["memory"] if m["relation"] == "P37"] == [
        ("official language", "en")
    ]


def _in_viewport(page) -> None:
    """Every decision button lies wholly inside the window."""
    size = page.viewport_size
    for name in ("accept", "amend", "reject", "unsure"):
        box = page.locator(f"#{name}").bounding_box()
        assert box is not None, name
        assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (name, box, size)
        assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], (name, box, size)


def _walk_the_panels(page, base: str, tap: bool) -> None:
    from tests.web.test_review_ui import sign_in, start_reviewing

    sign_in(page, base, "ana@example.org")
    page.goto(base + "/review/es")
    start_reviewing(page)
    _in_viewport(page)
    page.keyboard.press("m")
    page.wait_for_selector("#ctx-mt-lines li[data-n='1']")
    _in_viewport(page)
    lines = page.locator("#ctx-mt-lines li[data-n] bdi").all_inner_texts()
    assert len(lines) >= 2
    page.keyboard.press("o")
    assert page.locator("#ctx-mt").is_hidden() and page.locator("#ctx-langs").is_visible()
    page.get_by_text("Choose languages to see this relation in them.").wait_for()
    page.locator("#ctx-langs-choose summary").click()
    page.locator("#ctx-langs-options input[value=ar]").check()
    page.get_by_role("button", name="Save languages").click()
    page.wait_for_selector("#ctx-langs-list ul[lang=ar][dir=rtl] li")
    page.locator("body").click(position={"x": 2, "y": 2})  # the focus back on the page, off the form
    _in_viewport(page)
    page.keyboard.press("t")
    assert page.locator("#ctx-memory").is_visible() and page.locator("#ctx-langs").is_hidden()
    _in_viewport(page)
    # the first template's lines are all the template but for a period, offered by no key: the next one's
    first = page.locator("#item-card").get_attribute("data-item")
    page.keyboard.press("j")
    page.wait_for_function(f"document.getElementById('item-card').dataset.item !== '{first}'")
    if tap:
        page.locator("#ctx-mt-toggle").tap()
    else:
        page.keyboard.press("m")
    keyed = page.locator("#ctx-mt-lines li[data-key]")
    keyed.first.wait_for()
    last = keyed.count()  # the last line offered, by its key (a line the same as the template has none)
    wanted = keyed.nth(last - 1).locator("bdi").inner_text()
    if tap:
        page.locator(f"#ctx-mt-lines li[data-key='{last}'] .ctx-amend").tap()
    else:
        page.keyboard.press(str(last))
    page.wait_for_selector("#amend-form:not([hidden])")
    assert page.locator("#amend-text").input_value() == wanted
    page.wait_for_function("document.getElementById('amend-msg').textContent !== ''")  # checked live


@pytest.mark.backends("sqlite")
def test_context_panels_desktop(chromium, live):
    context = chromium.new_context(viewport={"width": 1366, "height": 800}, bypass_csp=True)
    _walk_the_panels(context.new_page(), live.url, tap=False)
    context.close()


@pytest.mark.backends("sqlite")
def test_context_panels_phone(chromium, live):
    context = chromium.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, bypass_csp=True
    )
    page = context.new_page()
    _walk_the_panels(page, live.url, tap=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()


@pytest.mark.backends("sqlite")
def test_machine_keys_skip_the_lines_an_amendment_cannot_start_from(review_app, sessions):
    """For every item of Ana's Spanish and Arabic queues, a line is `same` exactly when the
    decision's own check (POST /validate with the item) says an amendment with its text is the
    template itself, and the keys 1–9 number the other lines in order, invalid ones included:
    their text is a start the reviewer corrects in the field (the check says what is wrong)."""
    ana = Browser(review_app).login("ana@example.org")
    seen = {"same": 0, "invalid": 0, "offered": 0}
    for lang in ("es", "ar"):
        for item, _, _ in review_sample(sessions, "ana@example.org", lang):
            machine = ana.get(f"/api/v1/languages/{lang}/items/{item}/context").get_json()["machine"]
            offered = [m for m in machine if not m["same"]]
            assert [m["key"] for m in offered] == [k if k <= 9 else None for k in range(1, len(offered) + 1)]
            assert all(m["key"] is None for m in machine if m["same"])
            for m in machine:
                checked = ana.post("/api/v1/validate", {"text": m["text"], "language": lang, "item": item}).get_json()
                assert checked.get("same", False) is m["same"], (item, m)
                if not m["valid"]:  # refused as it stands, never as the template itself
                    assert checked["valid"] is False and not checked.get("same"), (item, m)
                seen["same" if m["same"] else "invalid" if not m["valid"] else "offered"] += 1
    assert all(seen.values()), seen  # each case met


@pytest.mark.backends("sqlite")
@pytest.mark.parametrize(("lang", "index", "phone"), [("es", 1, False), ("ar", 0, True)])
def test_a_line_the_same_but_for_the_final_period_is_not_offered(chromium, live, sessions, lang, index, phone):
    """In Chromium: a line equal to the template but for its final period is marked "same as the
    template" with no Amend button and no key; the other lines keep theirs, numbered 1, 2… in
    order, an invalid line included; its old digit amends from the line that has that key now (in
    Spanish, the invalid "[X] proviene de."), or does nothing (in Arabic)."""
    from tests.web.test_review_ui import sign_in, start_reviewing, wait_for_item

    items = review_sample(sessions, "ana@example.org", lang)
    size = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True} if phone else {}
    context = chromium.new_context(bypass_csp=True, **(size or {"viewport": {"width": 1366, "height": 800}}))
    page = context.new_page()
    try:
        sign_in(page, live.url, "ana@example.org")
        page.goto(f"{live.url}/review/{lang}")
        start_reviewing(page)
        wait_for_item(page, items[0][0])
        for k in range(1, index + 1):
            page.keyboard.press("j")
            wait_for_item(page, items[k][0])
        template = items[index][2]
        page.keyboard.press("m")
        page.wait_for_selector("#ctx-mt-lines li[data-n='1']")
        rows = page.locator("#ctx-mt-lines li[data-n]")
        same = []
        for k in range(rows.count()):
            row = rows.nth(k)
            text = row.locator("bdi").inner_text()
            if text != template and text.rstrip(".") == template:  # the template but for the period
                same.append((int(row.get_attribute("data-n")), text))
                assert row.locator(".tag.state-standing").count() == 1, text
                assert row.locator(".ctx-amend").count() == 0 and row.locator("kbd").count() == 0, text
                assert row.get_attribute("data-key") is None, text
            else:
                assert row.locator(".ctx-amend").count() == 1, text
        assert same, "no line the same as the template but for its final period"
        keyed = page.locator("#ctx-mt-lines li[data-key]")
        keys = [int(k) for k in keyed.evaluate_all("rows => rows.map((r) => r.dataset.key)")]
        assert keys and keys == list(range(1, len(keys) + 1)), keys
        for k in keys:
            row = keyed.nth(k - 1)
            assert row.locator("kbd").inner_text() == str(k)
            assert row.locator(".ctx-amend").get_attribute("aria-keyshortcuts") == str(k)
        n, text = same[-1]
        page.keyboard.press(str(n))  # the same line's place: the line keyed n now, if any
        if n not in keys:  # nothing opened: had it, this 1 would be typed into the field
            page.keyboard.press("1")
        wanted = keyed.nth((n if n in keys else 1) - 1).locator("bdi").inner_text()
        page.wait_for_selector("#amend-form:not([hidden])")
        assert page.locator("#amend-text").input_value() == wanted != text
        page.wait_for_function("document.getElementById('amend-msg').textContent !== ''")  # checked live
        assert "same" not in (page.locator("#amend-msg").get_attribute("class") or "").split()
        if lang == "es":  # the line keyed 4 is the invalid one: offered, and the check says what is wrong
            assert n == 4 and wanted == "[X] proviene de."
            page.wait_for_selector("#amend-msg.invalid")
    finally:
        context.close()

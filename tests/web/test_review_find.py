"""Issue 37 §5 in Chromium: find an item of the Arabic queue by an Arabic search (typed without
hamza or with harakat: folded) and open it; the translation memory shows its percentage; [X] and
[Y] inserted at the caret of an Arabic amend by a tap or click and by Alt+X / Alt+Y (the
physical key, so under an Arabic or Greek layout too), the focus kept, the live check updated,
the saved correction holding both. Phone 390×844 and desktop 1366×800, the Spanish and Arabic
interfaces, light and dark: one context per viewport walked through both interfaces, a scheme each."""

from __future__ import annotations

import re

from sqlalchemy import select

from curator.core.models import Decision, EnglishPattern, Template
from tests.plugins.databases import review_sample
from tests.plugins.servers import Browser
from tests.review.test_translation_memory import reference_fold, reference_similarity
from tests.web.test_review_guidance import DESKTOP, PHONE, no_sideways_scroll, phone
from tests.web.test_review_ui import sign_in, wait_for_item

ARABIC_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩", "0123456789")
# (viewport, interface, scheme, search, show, with the memory): every combination of viewport and
# interface once, each viewport in both schemes; the P103 item "اللغة الأم لـ [X] هي [Y]" has a memory
WALKS = (
    (PHONE, "es", "light", "الاصل", "undecided", False),  # "الأصل" typed without its hamza
    (PHONE, "ar", "dark", "اللُّغَة الام", "undecided", True),  # with harakat, without the hamza
    (DESKTOP, "es", "dark", "قَارَة", "undecided", False),
    (DESKTOP, "ar", "light", "اللغة الام", "all", True),  # the same item again, decided now
)
FIND_TITLE = {"es": "Buscar en mi cola", "ar": "ابحث في قائمتي"}


def _item_english(sessions, item_id: int) -> str:
    from curator.core.models import AssignmentItem

    with sessions() as s:
        template = s.get(Template, s.get(AssignmentItem, item_id).template_id)
        return s.scalars(
            select(EnglishPattern.pattern).where(
                EnglishPattern.relation_id == template.relation_id, EnglishPattern.position == template.first_position
            )
        ).one()


def _find(page, base: str, search: str, show: str) -> int:
    """Search the Arabic queue through the page's form; the first result's id."""
    page.goto(f"{base}/review/ar/find")
    page.locator("#find-q").fill(search)
    page.locator("#find-show").select_option(show)
    page.locator("#find-q").press("Enter")
    page.wait_for_url(re.compile(r"[?&]q="))
    texts = page.locator("#find-results .find-template").all_inner_texts()
    assert texts, search
    needles = reference_fold(search).split()
    assert all(all(n in reference_fold(t) for n in needles) for t in texts), (search, texts)
    assert page.locator("#find-results .find-template").first.get_attribute("dir") == "rtl"
    no_sideways_scroll(page)
    return int(page.locator("#find-results li").first.get_attribute("data-item"))


def _memory(page, sessions, item_id: int) -> None:
    page.keyboard.press("t")
    row = page.locator("#ctx-memory-list li").first
    row.wait_for()
    badge = row.locator(".ctx-similarity")
    shown = int(badge.get_attribute("data-similarity"))
    english = row.locator("bdi[lang=en]").inner_text()
    assert shown == round(reference_similarity(_item_english(sessions, item_id), english))
    assert re.sub(r"\D", "", badge.inner_text().translate(ARABIC_DIGITS)) == str(shown)
    page.keyboard.press("t")  # closed again


def _amend_with_placeholders(page, tap: bool) -> None:
    page.keyboard.press("e")
    field = page.locator("#amend-text")
    field.wait_for()
    field.fill(" ولد في ")
    field.evaluate("el => el.setSelectionRange(0, 0)")
    button = page.locator("#amend-form .placeholder-insert[data-slot='[X]']")
    box, width = button.bounding_box(), page.viewport_size["width"]
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= width and box["height"] >= 44
    button.tap() if tap else button.click()
    assert field.input_value() == "[X] ولد في "
    assert field.evaluate("el => el === document.activeElement && el.selectionStart === 3")
    page.wait_for_selector("#amend-msg.invalid")  # the live check ran again: no [Y] yet
    field.evaluate("el => el.setSelectionRange(el.value.length, el.value.length)")
    if tap:  # the key under an Arabic layout: it types "غ" on the key Y of a US keyboard
        field.evaluate(
            """el => el.dispatchEvent(new KeyboardEvent('keydown',
                 {key: 'غ', code: 'KeyY', altKey: true, bubbles: true, cancelable: true}))"""
        )
    else:
        page.keyboard.press("Alt+KeyY")
    assert field.input_value() == "[X] ولد في [Y]"
    page.wait_for_selector("#amend-msg.valid")
    assert field.evaluate("el => el === document.activeElement")


def test_find_open_and_insert_placeholders(chromium, live, sessions, review_app):
    # two accepted P37 templates, so the P103 items have a translation memory
    ana = Browser(review_app).login("ana@example.org")
    for item, relation, _ in review_sample(sessions, "ana@example.org", "ar"):
        if relation == "P37":
            assert (
                ana.post(f"/api/v1/languages/ar/items/{item}/decision", json={"decision": "accept"}).status_code == 201
            )
    saved = []
    for viewport in (PHONE, DESKTOP):
        context = phone(chromium) if viewport == PHONE else chromium.new_context(viewport=DESKTOP, bypass_csp=True)
        page = context.new_page()
        try:
            sign_in(page, live.url, "ana@example.org")
            for _, locale, scheme, search, show, memory in (w for w in WALKS if w[0] == viewport):
                context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
                page.emulate_media(color_scheme=scheme)
                item_id = _find(page, live.url, search, show)
                assert page.locator("h1").inner_text().startswith(FIND_TITLE[locale])
                assert page.evaluate("document.documentElement.dir") == ("rtl" if locale == "ar" else "ltr")
                assert page.evaluate(f"matchMedia('(prefers-color-scheme: {scheme})').matches")
                link = page.locator(f"#find-results li[data-item='{item_id}'] a.find-open")
                link.tap() if viewport == PHONE else link.click()
                page.wait_for_url(re.compile(rf"/review/ar#item-{item_id}$"))
                page.wait_for_selector("#review[data-ready='1']")
                if page.locator("#intro").is_visible():  # the guidelines before the first item
                    page.locator("#start").click()
                    page.wait_for_selector("#intro", state="hidden")
                wait_for_item(page, item_id)
                if memory:
                    _memory(page, sessions, item_id)
                _amend_with_placeholders(page, tap=viewport == PHONE)
                page.keyboard.press("Enter")
                page.wait_for_function(f"document.getElementById('item-card').dataset.item !== '{item_id}'")
                saved.append(item_id)
        finally:
            context.close()
    with sessions() as s:
        corrections = [
            s.scalars(select(Decision.correction).where(Decision.item_id == i).order_by(Decision.id.desc())).first()
            for i in saved
        ]
    assert len(saved) == 4 and len(set(saved)) == 3 and corrections == ["[X] ولد في [Y]"] * 4

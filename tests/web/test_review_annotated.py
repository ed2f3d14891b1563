"""Issue 39 §2 on the review screen, in Chromium: a reviewer writes an annotated template (the live
check explains the syntax and shows the forms for a man and a woman, an unsupported annotation is
refused naming its token), the examples of an annotated template show one subject filled in as a
man and one as a woman, and a template with a gendered twin is flagged with the merge suggestion.
Spanish and Arabic interfaces, phone and desktop, light and dark; one browser context per walk."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from curator.core.models import Template, TemplateSignal
from tests.plugins.databases import review_sample
from tests.web.test_review_guidance import DESKTOP, PHONE, no_sideways_scroll
from tests.web.test_review_ui import sign_in, wait_for_item

DATA = {
    "es": {
        "item": "[X] es [originario;X-Gender=MASC|originaria;X-Gender=FEM] de [Y]",
        "masc": "originario",
        "fem": "originaria",
        "twin": "[X] es originaria de [Y]",
        "typed": "[X] fue [fundado;X-Gender=MASC|fundada;X-Gender=FEM] en [Y]",
        "typed_fem": "[X] fue fundada en [Y]",
        "refused": "[X.Nom] fue fundado en [Y]",
    },
    "ar": {
        "item": "[X] [ولد;X-Gender=MASC|ولدت;X-Gender=FEM] في [Y]",
        "masc": "ولد",
        "fem": "ولدت",
        "twin": "[X] ولدت في [Y]",
        "typed": "[X] [عمل;X-Gender=MASC|عملت;X-Gender=FEM] في [Y]",
        "typed_fem": "[X] عملت في [Y]",
        "refused": "[X] عمل في [Y.Loc]",
    },
}
# the interface's words the page must show (hand-made catalogues: messages.po)
WORDS = {
    "es": {
        "man": "un hombre:",
        "woman": "una mujer:",
        "refused": "No se guardó",
        "syntax": "Plantilla anotada.",
        "inflection": "modelo de flexión",
    },
    "ar": {
        "man": "رجل:",
        "woman": "امرأة:",
        "refused": "لم يُحفظ",
        "syntax": "قالب مشروح.",
        "inflection": "نموذج تصريف",
    },
}


def _annotate_first_item(sessions, lang: str) -> int:
    """The first item of Ana's `lang` sample made an annotated template (as an X-FACTR prompt is),
    with a gendered twin stored by `curator signals gender-pairs`, and the genders of its relation's
    first two subjects stored (a man, a woman: without a known gender an example is left out);
    returns the item id."""
    item_id, _relation, _text = review_sample(sessions, "ana@example.org", lang)[0]
    data = DATA[lang]
    with sessions.begin() as s:
        from curator.core.models import AssignmentItem

        template_id = s.get_one(AssignmentItem, item_id).template_id
        s.execute(update(Template).where(Template.id == template_id).values(text=data["item"]))
        s.merge(TemplateSignal(template_id=template_id, gender_twin=data["twin"], gender_merged=data["item"]))
        from curator.core.models import EntityGender
        from curator.review.annotations import example_rows

        rows = s.execute(example_rows(s.get_one(Template, template_id)).limit(2)).all()
        for row, gender in zip(rows, ("male", "female"), strict=True):
            s.merge(EntityGender(qid=row.sub_qid, gender=gender))
    return item_id


def _walk(page, lang: str, locale: str) -> None:
    data, words = DATA[lang], WORDS[locale]
    direction = "rtl" if lang == "ar" else "ltr"
    # the examples: one subject filled in as a man, one as a woman, no annotation left
    page.wait_for_selector("#examples .example-gender[data-gender='FEM']")
    examples = page.locator("#examples li")
    man, woman = examples.nth(0), examples.nth(1)
    assert man.locator(".example-gender").inner_text().strip() == words["man"]
    assert woman.locator(".example-gender").inner_text().strip() == words["woman"]
    assert data["masc"] in man.inner_text() and data["fem"] not in man.inner_text().split()
    assert data["fem"] in woman.inner_text()
    assert "X-Gender" not in page.locator("#examples").inner_text()
    assert page.locator("#examples").get_attribute("dir") == direction
    # the gendered twin, flagged with the merge suggestion: both texts isolated in their direction
    twin = page.locator("#checks .gender-twin")
    assert twin.count() == 1
    isolates = twin.locator("bdi")
    assert [isolates.nth(i).text_content() for i in range(2)] == [data["twin"], data["item"]]
    assert all(isolates.nth(i).get_attribute("dir") == direction for i in range(2))
    # the live check: an annotated suggestion is valid, its syntax explained, its forms shown
    page.fill("#suggest-text", data["typed"])
    page.wait_for_selector("#suggest-msg .gender-form[data-gender='FEM']")
    message = page.locator("#suggest-msg")
    assert "valid" in (message.get_attribute("class") or "")
    assert message.locator(".syntax-help").inner_text().startswith(words["syntax"])
    assert "X-Gender=MASC" in message.locator(".syntax-help").inner_text()  # the parser's paragraph
    fem = message.locator(".gender-form[data-gender='FEM'] bdi")
    assert fem.text_content() == data["typed_fem"] and fem.get_attribute("dir") == direction
    # an annotation that cannot be filled here is refused, naming its token, in the interface's words
    page.fill("#suggest-text", data["refused"])
    page.wait_for_selector("#suggest-msg.invalid")
    refused = message.inner_text()
    assert refused.startswith(words["refused"]) and ("[X.Nom]" in refused or "[Y.Loc]" in refused)
    assert "inflecting" not in refused and words["inflection"] in refused  # the parser's words translated too
    assert message.locator(".syntax-help").count() == 1
    assert message.locator(".gender-form").count() == 0


@pytest.mark.parametrize(
    ("locale", "lang", "viewport", "scheme"),
    [
        ("es", "es", DESKTOP, "light"),
        ("es", "es", PHONE, "dark"),
        ("ar", "ar", PHONE, "light"),
        ("ar", "ar", DESKTOP, "dark"),
    ],
    ids=["es-desktop-light", "es-phone-dark", "ar-phone-light", "ar-desktop-dark"],
)
def test_annotated_templates_on_the_review_screen(chromium, live, sessions, locale, lang, viewport, scheme):
    item_id = _annotate_first_item(sessions, lang)
    options = dict(viewport=viewport, bypass_csp=True, color_scheme=scheme)
    if viewport == PHONE:
        options.update(is_mobile=True, has_touch=True)
    context = chromium.new_context(**options)
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        sign_in(page, live.url, "ana@example.org")
        context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
        page.goto(f"{live.url}/review/{lang}")
        page.wait_for_selector("#review[data-ready='1']")
        if page.locator("#intro").is_visible():
            page.locator("#start").click()  # the guidelines first, in the interface's language
        wait_for_item(page, item_id)
        assert page.locator("html").get_attribute("lang") == locale
        _walk(page, lang, locale)
        if viewport == PHONE:
            no_sideways_scroll(page)
    finally:
        context.close()

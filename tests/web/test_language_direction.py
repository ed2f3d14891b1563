"""Language and direction, the last ones (issue 37 §4): the 403 page for a language one does not
review in the page's language with the language isolated; the Spanish catalogue in the informal
register only; the capital-letter hint and guideline only for scripts with letter case; the
glossary's arrow and the activity log's templates in the right direction; the review screen's
live region and button names for screen readers."""

from __future__ import annotations

import re

from sqlalchemy import select, update

from curator.core import languages
from curator.core.enums import Activity
from curator.core.models import Assignment, EnglishPattern, User
from curator.core.models.base import utcnow
from curator.review import activity
from curator.review.glossary import add_term
from curator.web.i18n import LOCALES
from tests.plugins.databases import PASSWORD, review_sample
from tests.plugins.servers import Browser
from tests.web.test_maintainer_ui import sign_in
from tests.web.test_review_ui import wait_for_item
from tests.web.test_translations import catalogue


def _in(browser: Browser, locale: str) -> Browser:
    """The browser's interface switched to `locale` (stored for the signed-in account)."""
    r = browser.client.post("/locale", data={"locale": locale, "next": "/", "csrf_token": browser.token})
    assert r.status_code == 302
    return browser


# --- 1. the 403 page of a language one does not review ---------------------------------------


def test_a_language_not_reviewed_is_refused_in_the_pages_language_with_the_language_isolated(review_app, sessions):
    ana = Browser(review_app).login("ana@example.org")
    expected = {
        "en": ("You are not reviewing", "Greek (el)"),
        "es": ("No estás revisando", "griego (el)"),
        "ar": ("أنت لا تراجع", "اليونانية (el)"),
    }
    for locale, (sentence, name) in expected.items():
        _in(ana, locale)
        for path in ("/review/el", "/review/el/history"):
            r = ana.get(path)
            html = r.get_data(as_text=True)
            assert r.status_code == 403, (locale, path)
            assert f'<p class="lead">{sentence} <bdi dir="auto">{name}</bdi>.</p>' in html, (locale, html)
            assert "you are not reviewing" not in html and "'el'" not in html
        # the API says it as text, in the same language
        body = ana.get("/api/v1/languages/el/queue").get_json()
        assert body == {"error": f"{sentence} {name}."}, body


def test_an_unassigned_language_is_refused_the_same_way(review_app, sessions):
    with sessions.begin() as s:
        ana_id = s.scalar(select(User.id).where(User.email == "ana@example.org"))
        s.execute(
            update(Assignment)
            .where(Assignment.user_id == ana_id, Assignment.language == "ar")
            .values(unassigned_at=utcnow())
        )
    ana = _in(Browser(review_app).login("ana@example.org"), "es")
    r = ana.get("/review/ar")
    assert r.status_code == 403
    assert '<p class="lead">No estás revisando <bdi dir="auto">árabe (ar)</bdi>.</p>' in r.get_data(as_text=True)


# --- 2. Spanish: the informal register, everywhere -------------------------------------------

# markers of the formal register ("usted"): its pronoun and the formal imperatives of the verbs a
# page asks a volunteer to do (not after an impersonal "se": "salvo que se elija otra"); "su"/"sus"
# where the English says "your"
FORMAL = re.compile(
    r"(?<!\bse )\b(usted|ustedes|pulse|elija|escoja|introduzca|escriba|seleccione|marque|quiera|compruebe|"
    r"intente|recargue|espere|pida|haga|añada|corrija|envíe|acepte|rechace|indique|confirme|"
    r"asegúrese|utilice|consulte|pregunte|inicie)\b",
    re.IGNORECASE,
)
YOUR = re.compile(r"\byour\b", re.IGNORECASE)
SU = re.compile(r"\bsus?\b", re.IGNORECASE)
# messages that say "your" and "su" of someone or something else (its, their), checked by hand
SU_ALLOWED = {
    "Templates and examples keep their own language. The choice is kept for your account and this browser.",
}


def test_the_spanish_catalogue_speaks_to_the_volunteer_as_tu():
    formal = []
    for message in catalogue("es"):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for string in filter(None, strings):
            if FORMAL.search(string):
                formal.append(f"{ids[0]!r} -> {string!r}")
            elif YOUR.search(ids[0]) and SU.search(string) and ids[0] not in SU_ALLOWED:
                formal.append(f"{ids[0]!r} -> {string!r} (su for 'your')")
    assert not formal, "formal register (usted) in the Spanish catalogue:\n" + "\n".join(formal)


def test_the_spanish_guidelines_speak_to_the_volunteer_as_tu():
    from curator.review.guidelines import default_guidelines

    text = default_guidelines("es")
    assert not FORMAL.search(text), FORMAL.search(text)
    assert not re.search(r"\bsu (idioma|decisión|comentario|cuenta)\b", text)


# --- 3. hints about capitals only for scripts with letter case --------------------------------


def test_letter_case_is_known_per_script():
    assert all(languages.has_case(code) for code in ("en", "es", "el", "ru", "hy", "de", "vi"))
    assert not any(languages.has_case(code) for code in ("ar", "fa", "he", "hi", "ja", "zh-hans", "th", "ka"))


def test_the_capital_letter_hint_and_guideline_only_for_a_script_with_case(review_app):
    ana = Browser(review_app).login("ana@example.org")
    bullet = {"en": "Capital letters.", "es": "Las mayúsculas.", "ar": "الأحرف الكبيرة."}
    for locale in LOCALES:
        _in(ana, locale)
        spanish = ana.get("/review/es").get_data(as_text=True)
        arabic = ana.get("/review/ar").get_data(as_text=True)
        assert 'id="amend-case"' in spanish and bullet[locale] in spanish, locale
        assert 'id="amend-case"' not in arabic and bullet[locale] not in arabic, locale
        # the rest of the guidelines is all there
        assert spanish.count("<li>") == arabic.count("<li>") + 2  # the bullet, in the intro and behind "?"
        assert bullet[locale] not in ana.get("/api/v1/languages/ar/guidelines").get_json()["text"]
        assert bullet[locale] in ana.get("/api/v1/languages/es/guidelines").get_json()["text"]


# --- 4. the activity log's templates and the glossary's arrow --------------------------------


def test_the_activity_log_isolates_a_template_in_its_own_direction(review_app, sessions):
    template = "[X] وُلِد في [Y]"
    with sessions.begin() as s:
        activity.record(
            s,
            None,
            Activity.RESOLUTION,
            target=f"ar/P19: {template}",
            language="ar",
            details={"verdict": "amend", "correction": "[X] وُلِدَ في [Y]", "reason": "tashkeel"},
        )
    boss = _in(Browser(review_app).login("boss@example.org"), "ar")
    html = boss.get("/admin/activity").get_data(as_text=True)
    assert f'<bdi dir="ltr">ar/P19</bdi>: <bdi lang="ar" dir="rtl">{template}</bdi>' in html
    # the details named in the page's language (web/labels.py)
    assert 'التصحيح: <bdi lang="ar" dir="rtl">[X] وُلِدَ في [Y]</bdi>' in html
    assert 'السبب: <bdi dir="auto">tashkeel</bdi>' in html  # not a template: its own direction


def _arabic_term(sessions) -> tuple[int, str, str]:
    """Ana's first Arabic item, with a word of its English pattern made a glossary term whose
    translation is a word of the template: (item id, term, translation)."""
    item_id, relation, text = review_sample(sessions, "ana@example.org", "ar")[0]
    with sessions() as s:
        english = s.scalars(
            select(EnglishPattern.pattern)
            .where(EnglishPattern.relation_id == relation)
            .order_by(EnglishPattern.position)
        ).first()
    term = max(re.findall(r"[a-z]{3,}", english), key=len)
    translation = max(re.findall(r"\w{2,}", re.sub(r"\[[XY]\]", "", text)), key=len)
    with sessions.begin() as s:
        add_term(s, "ar", term, translation, "")
    return item_id, term, translation


# --- 5. the review screen for screen readers (and 4's arrow, in a right-to-left page) ---------


def test_the_review_buttons_are_named_without_their_key(review_app):
    ana = Browser(review_app).login("ana@example.org")
    html = ana.get("/review/es").get_data(as_text=True)
    for button in ("accept", "amend", "reject", "unsure", "prev", "undo", "next", "help-toggle", "amend-cancel"):
        tag, inner = re.search(rf'(<button[^>]* id="{button}"[^>]*>)(.*?)</button>', html, re.S).groups()
        assert "aria-keyshortcuts=" in tag, button
        hints = re.findall(r"<(kbd|span)([^>]*)>", inner)
        assert hints and all('aria-hidden="true"' in attributes for _, attributes in hints), (button, inner)
    assert "<kbd>" not in html.split('id="actions"', 1)[1].split("</div>", 1)[0]
    assert '<p id="item-announce" class="visually-hidden" aria-live="polite" aria-atomic="true">' in html


def _open(chromium, live, locale: str, lang: str):
    context = chromium.new_context(viewport={"width": 1100, "height": 900}, bypass_csp=True)
    page = context.new_page()
    sign_in(page, live.url, "ana@example.org", PASSWORD)
    context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
    page.goto(f"{live.url}/review/{lang}")
    page.wait_for_selector("#review[data-ready='1']")
    if page.locator("#intro").is_visible():
        page.locator("#start").click()
    return context, page


def test_screen_readers_hear_the_new_template_and_plain_button_names(chromium, live, sessions):
    from playwright.sync_api import expect

    items = review_sample(sessions, "ana@example.org", "es")
    context, page = _open(chromium, live, "es", "es")
    try:
        wait_for_item(page, items[0][0])
        names = page.evaluate(
            """() => ['accept', 'amend', 'reject', 'unsure', 'prev', 'undo', 'next'].map((id) => {
                 const b = document.getElementById(id);
                 const hidden = [...b.querySelectorAll('[aria-hidden=true]')].map((e) => e.textContent);
                 let name = b.textContent;
                 hidden.forEach((h) => { name = name.replace(h, ''); });
                 return [id, name.trim(), hidden.join('')];
               })"""
        )
        for button, name, hidden in names:
            assert name and not re.search(r"\b[AERNKUJ]\b|[←→]", name), (button, name)
            assert hidden, button
            expect(page.get_by_role("button", name=name, exact=True)).to_have_count(1)
        announce = page.locator("#item-announce")
        page.wait_for_function(f"document.getElementById('item-announce').textContent.includes({items[0][2]!r})")
        assert announce.get_attribute("aria-live") == "polite"
        assert announce.locator("bdi").get_attribute("lang") == "es"
        page.keyboard.press("j")
        wait_for_item(page, items[1][0])
        page.wait_for_function(f"document.getElementById('item-announce').textContent.includes({items[1][2]!r})")
        assert "Plantilla 2 de" in announce.text_content()
    finally:
        context.close()


def test_the_glossary_arrow_points_the_way_an_arabic_page_reads(chromium, live, sessions):
    item_id, term, translation = _arabic_term(sessions)
    for locale, arrow in (("ar", "←"), ("en", "→")):
        context, page = _open(chromium, live, locale, "ar")
        try:
            wait_for_item(page, item_id)
            page.wait_for_selector("#glossary:not([hidden])")
            entry = page.locator("#glossary .glossary-entry").first.text_content()
            assert entry == f"{term} {arrow} {translation}", (locale, entry)
            assert page.locator("#amend-case").count() == 0  # Arabic has no capitals
        finally:
            context.close()

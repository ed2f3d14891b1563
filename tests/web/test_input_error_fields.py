"""An input error names its field the same way everywhere (issue 40 review P2-3): the command
line's one line ("field 'kind': …"), the JSON API's `error` and the page's message say the same
thing; a catalogue message stays translated, its field named in the page's language (es, ar),
the field itself isolated in a `<bdi>` on a page so an Arabic sentence does not move it."""

from __future__ import annotations

import html as html_module

from sqlalchemy import select

from curator.core.errors import InputError
from curator.core.models import Template
from curator.review.resolutions import KINDS, check_kind
from tests.plugins.databases import PASSWORD
from tests.plugins.servers import Browser

KINDS_SAID = ", ".join(KINDS)
ENGLISH = f"field 'kind': choose {KINDS_SAID}, or nothing for all"
SAID = {
    "es": f"campo 'kind': elige {KINDS_SAID}, o nada para verlos todos",
    "ar": f"الحقل 'kind': اختر {KINDS_SAID}، أو لا شيء لعرض الكل",
}


def _in(browser: Browser, locale: str) -> Browser:
    r = browser.client.post("/locale", data={"locale": locale, "next": "/", "csrf_token": browser.token})
    assert r.status_code == 302
    return browser


def test_the_field_is_keyword_data_not_part_of_the_message():
    try:
        check_kind("bogus")
    except InputError as exc:
        assert (exc.field, exc.location) == ("kind", None)
        assert exc.message.startswith("choose ") and str(exc) == ENGLISH
    else:
        raise AssertionError("an unknown kind was taken")


def test_the_cli_the_json_and_the_page_name_the_field_alike(review_app, cli, sessions):
    with sessions() as s:
        template = s.scalar(select(Template.id).where(Template.language == "es").limit(1))
    amend = "field 'correction': an amend needs the corrected template"
    result = cli("review", "resolve", str(template), "amend", "--reason", "r", "--by", "boss@example.org", ok=False)
    assert result.exit_code == 1 and f"Error: {amend}" in result.output and "Traceback" not in result.output
    boss = Browser(review_app).login("boss@example.org")
    api = boss.post(f"/api/v1/templates/{template}/resolution", json={"verdict": "amend", "reason": "r"})
    assert api.status_code == 422 and api.json["error"] == amend
    api = boss.get("/api/v1/languages/es/disagreements?kind=bogus")
    assert api.status_code == 422 and api.json["error"] == ENGLISH
    page = boss.get("/admin/languages/es/disagreements?kind=bogus")
    assert page.status_code == 422
    text = page.get_data(as_text=True)
    assert 'field &#39;<bdi dir="ltr">kind</bdi>&#39;: choose' in text
    # an English (untranslated) refusal with a field: the page shows the CLI's line itself
    api = boss.get("/api/v1/languages/es/proposals?status=bogus")
    assert api.status_code == 422 and api.json["error"].startswith("field 'status': choose all or one of ")
    for locale in ("es", "ar"):
        _in(boss, locale)
        api = boss.get("/api/v1/languages/es/disagreements?kind=bogus")
        assert api.status_code == 422 and api.json["error"] == SAID[locale]
        text = html_module.unescape(boss.get("/admin/languages/es/disagreements?kind=bogus").get_data(as_text=True))
        prefix = {"es": "campo", "ar": "الحقل"}[locale]
        assert f"{prefix} '<bdi dir=\"ltr\">kind</bdi>': " in text
        assert SAID[locale].split(": ", 1)[1] in text


def test_the_field_reads_in_place_in_chromium(chromium, live):
    """The error page of a refused filter, phone and desktop, Spanish and Arabic, light and dark:
    the message in the interface's language and direction, the field isolated left-to-right, the
    page not scrolling sideways. One context per size, walked through the four interfaces."""
    from tests.web.test_maintainer_ui import sign_in
    from tests.web.test_review_guidance import DESKTOP, PHONE

    for viewport in (PHONE, DESKTOP):
        context = chromium.new_context(viewport=viewport, is_mobile=viewport == PHONE, bypass_csp=True)
        page = context.new_page()
        try:
            sign_in(page, live.url, "boss@example.org", PASSWORD)
            for locale in ("es", "ar"):
                context.add_cookies([{"name": "curator_locale", "value": locale, "url": live.url}])
                for scheme in ("light", "dark"):
                    page.emulate_media(color_scheme=scheme)
                    response = page.goto(f"{live.url}/admin/languages/es/disagreements?kind=bogus")
                    assert response is not None and response.status == 422
                    lead = page.locator("p.lead").filter(has=page.locator("bdi"))
                    assert lead.inner_text() == SAID[locale], (viewport, locale, scheme)
                    assert page.evaluate("document.documentElement.dir") == ("rtl" if locale == "ar" else "ltr")
                    field = lead.locator("bdi")
                    assert field.inner_text() == "kind"
                    assert field.evaluate("e => getComputedStyle(e).direction") == "ltr"
                    width = page.evaluate("document.documentElement.scrollWidth")
                    assert width <= viewport["width"], (viewport, locale, scheme, width)
                    box = lead.bounding_box()
                    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 0.5
        finally:
            context.close()

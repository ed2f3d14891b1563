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

from .conftest import Browser

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

"""The interface catalogues (curator/web/translations, docs/translating.md).

Messages are extracted from the source tree with babel's own extractor and babel.cfg's method
map, the way `pybabel extract` does. Every extracted message must be translated in each
catalogue, not fuzzy (the strings of the sign-in, account and error pages and the page frame
are also checked on their own, so a failure says where), and placeholders must match between a message and its translation, always. Over real HTTP, the sign-in page
speaks Spanish and Arabic, with `lang` and `dir` to match.
"""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po

from curator.web.i18n import DEFAULT, LOCALES

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "curator" / "web" / "translations"
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None, "N_plural": (1, 2), "_l": None, "lazy_gettext": None}
TRANSLATED = [code for code in LOCALES if code != DEFAULT]
# the files of the page frame, sign-in, account and error handling: complete now, kept complete
FRAME = (
    "curator/web/auth.py",
    "curator/web/errors.py",
    "curator/web/context.py",
    "curator/web/i18n.py",
    "curator/web/templates/base.html",
    "curator/web/templates/login.html",
    "curator/web/templates/account.html",
    "curator/web/templates/error.html",
)
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdifr]|%[sdif]")


def _method_map():
    from babel.messages.frontend import parse_mapping_cfg

    with open(ROOT / "babel.cfg", encoding="utf-8") as fh:
        return parse_mapping_cfg(fh, str(ROOT / "babel.cfg"))


def extracted() -> dict[str, set[str]]:
    """msgid -> the files it comes from (plural forms: the singular's id; a message with a
    context, pgettext's, as gettext keys it: "context\x04msgid")."""
    method_map, options_map = _method_map()
    found: dict[str, set[str]] = {}
    for filename, _lineno, message, _comments, context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=KEYWORDS, strip_comment_tags=True
    ):
        msgid = message[0] if isinstance(message, (tuple, list)) else message
        if msgid:
            found.setdefault(f"{context}\x04{msgid}" if context else msgid, set()).add(Path(filename).as_posix())
    return found


@pytest.fixture(scope="module")
def messages() -> dict[str, set[str]]:
    found = extracted()
    assert found, "no messages extracted: is babel.cfg's method map right?"
    return found


def catalogue(locale: str):
    with open(TRANSLATIONS / locale / "LC_MESSAGES" / "messages.po", "rb") as fh:
        return read_po(fh, locale=locale)


def _gaps(locale: str, ids) -> list[str]:
    cat = catalogue(locale)
    gaps = []
    for key in sorted(ids):
        context, _eot, msgid = key.rpartition("\x04")
        entry = cat.get(msgid, context=context or None)
        string = entry.string if entry is not None else None
        if isinstance(string, (tuple, list)):
            string = string[0] if all(string) else ""
        if entry is None:
            gaps.append(f"missing: {msgid!r}")
        elif not string:
            gaps.append(f"untranslated: {msgid!r}")
        elif entry.fuzzy:
            gaps.append(f"fuzzy: {msgid!r}")
    return gaps


@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_extracted_message_is_translated(messages, locale):
    gaps = _gaps(locale, messages)
    assert not gaps, f"{locale}: {len(gaps)} of {len(messages)} messages\n" + "\n".join(gaps)


@pytest.mark.parametrize("locale", TRANSLATED)
def test_frame_sign_in_account_and_error_messages_are_translated(messages, locale):
    ids = {m for m, files in messages.items() if files & set(FRAME)}
    assert len(ids) > 40
    gaps = _gaps(locale, ids)
    assert not gaps, f"{locale}:\n" + "\n".join(gaps)


@pytest.mark.parametrize("locale", TRANSLATED)
def test_placeholders_match_between_message_and_translation(locale):
    cat = catalogue(locale)
    wrong = []
    for entry in cat:
        if not entry.id or not entry.string:
            continue
        ids = entry.id if isinstance(entry.id, (tuple, list)) else (entry.id,)
        strings = entry.string if isinstance(entry.string, (tuple, list)) else (entry.string,)
        expected = sorted(PLACEHOLDER.findall(ids[0]))
        for string in strings:
            if string and sorted(PLACEHOLDER.findall(string)) != expected:
                wrong.append(f"{entry.id!r} -> {string!r}")
    assert not wrong, f"{locale}: placeholders differ\n" + "\n".join(wrong)
    # and babel's own checks (python-format flags, plural counts) find nothing
    problems = [(m.id, [str(e) for e in errs]) for m, errs in cat.check()]
    assert not problems, problems


def test_catalogues_exist_for_every_language_but_english():
    assert (TRANSLATIONS / "messages.pot").is_file()
    for locale in TRANSLATED:
        cat = catalogue(locale)
        assert str(cat.locale) == locale and len(cat) > 40


def _get(url: str, **headers) -> str:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=300) as response:  # a hang guard only
        assert response.status == 200
        return response.read().decode("utf-8")


@pytest.mark.parametrize(
    "locale,direction,sign_in,password",
    [
        ("es", "ltr", "Iniciar sesión", "Contraseña"),
        ("ar", "rtl", "تسجيل الدخول", "كلمة المرور"),
    ],
)
def test_sign_in_page_in_spanish_and_arabic_over_http(live, locale, direction, sign_in, password):
    for headers in ({"Cookie": f"curator_locale={locale}"}, {"Accept-Language": f"{locale};q=0.9, en;q=0.5"}):
        page = _get(live.url + "/login", **headers)
        assert f'<html lang="{locale}" dir="{direction}">' in page, headers
        assert f"<h1>{sign_in}</h1>" in page and password in page
        assert f"<title>{sign_in} — curator</title>" in page
    # English otherwise
    page = _get(live.url + "/login")
    assert '<html lang="en" dir="ltr">' in page and "<h1>Sign in</h1>" in page


def test_service_messages_reach_the_reviewer_in_their_language(review_app, sessions):
    """A message raised by a service below the web layer (core.errors.N_ + params) is
    translated by the web layer: the live check of an amendment, in Spanish and Arabic."""
    from tests.plugins.databases import PASSWORD, review_sample
    from tests.plugins.servers import csrf_from

    review_sample(sessions, "ana@example.org", "es")
    client = review_app.test_client()
    csrf = csrf_from(client.get("/login").get_data(as_text=True))
    client.post("/login", data={"email": "ana@example.org", "password": PASSWORD, "csrf_token": csrf})
    csrf = csrf_from(client.get("/").get_data(as_text=True))  # a new CSRF secret came with the sign-in
    english = client.post(
        "/api/v1/validate", json={"text": "[X] [X] nació [Y]", "language": "es"}, headers={"X-CSRFToken": csrf}
    ).get_json()
    assert english == {
        "valid": False,
        "message": "Not saved: [X] appears 2 times. A template has exactly one [X], one [Y] and some words.",
    }, english
    for locale in ("es", "ar"):
        client.set_cookie("curator_locale", locale)
        with review_app.test_request_context():
            from curator.web.i18n import load_catalogue

            expected = load_catalogue(locale).gettext(
                "Not saved: %(slot)s appears %(count)s times. A template has exactly one [X], one [Y] and some words."
            ) % {"slot": "[X]", "count": 2}
        reply = client.post(
            "/api/v1/validate", json={"text": "[X] [X] nació [Y]", "language": "es"}, headers={"X-CSRFToken": csrf}
        ).get_json()
        assert reply["message"] == expected and "[X]" in expected and not expected.startswith("Not saved"), reply

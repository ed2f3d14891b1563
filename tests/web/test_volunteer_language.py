"""No English on a volunteer's path (issue 27): a browser whose language is Spanish or Arabic,
never switched, walks the whole path — a broken and a withdrawn invitation link, the
invitation, the new account's home page, the guidelines, the review screen (details open, a
decision, the help), the history, the account page with a refused password change, a missing
page, sign-out and a refused sign-in — and every page's rendered text (`innerText`) is read.

The detector works on what is rendered, not on catalogue entries: it flags the words of the
English interface (the en catalogue's messages, the English default guidelines, relation
titles and check names) that are no word of the page's language's own texts. English shown
on purpose is left out first: elements marked `lang="en"` (the English source templates, an
untranslated relation title), key caps, the template and its examples (data: entity labels),
the English source templates and the user's own e-mail address.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from sqlalchemy import select

from curator.web.i18n import LOCALES
from tests.plugins.databases import PASSWORD

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "curator" / "web" / "translations"
# English on purpose, or data: left out of the text that is checked
ON_PURPOSE = (
    '[lang="en"], kbd, #examples, #template, .history-template, #suggestions, .ctx-text, #ctx-langs-options small'
)
NAMES = {"curator", "mpararel", "pararel", "wikidata", "google", "bing"}  # names, in every language


def _words(text: str) -> set[str]:
    """Latin-letter words (two letters or more); tokens with digits or _ (m2m100_big) are names."""
    return {w.lower() for w in re.findall(r"\w+", text) if w.isascii() and w.isalpha() and len(w) > 1}


def _catalogue_words(locale: str) -> set[str]:
    name = "messages.pot" if locale == "en" else f"{locale}/LC_MESSAGES/messages.po"
    with open(TRANSLATIONS / name, "rb") as fh:
        catalog = read_po(fh, locale=None if locale == "en" else locale)
    words: set[str] = set()
    for message in catalog:
        parts = message.id if locale == "en" else message.string
        for part in parts if isinstance(parts, (tuple, list)) else (parts,):
            words |= _words(re.sub(r"%\(\w+\)s", " ", part or ""))
    return words


def english_only(locale: str) -> set[str]:
    """Words of the English interface that are no word of `locale`'s own texts."""
    from babel import Locale

    from curator.core.languages import NAMES as LANGUAGE_NAMES
    from curator.ingest.relations import relation_titles, translated_relation_titles
    from curator.review.guidelines import DEFAULT_GUIDELINES, default_guidelines

    english = (
        _catalogue_words("en")
        | _words(DEFAULT_GUIDELINES)
        | _words(" ".join(relation_titles().values()))
        | _words(" ".join(LANGUAGE_NAMES.values()))  # "Greek" where "griego" is due
    )
    own = (
        _catalogue_words(locale)
        | _words(default_guidelines(locale))
        | _words(" ".join(translated_relation_titles().get(locale, {}).values()))
        | _words(" ".join(Locale.parse(locale).languages.values()))
    )
    return english - own - NAMES


@pytest.fixture(scope="module")
def walk_site(chromium, sqlite_templates, tmp_path_factory):
    """One server for both walks: a copy of the seeded review database with, per language, a
    valid and a withdrawn invitation."""
    from curator.core.db import make_engine, make_session_factory
    from curator.core.models import EnglishPattern
    from curator.review.invitations import create_invite, revoke_invite
    from curator.web import create_app
    from curator.web.testing import LiveServer

    root = tmp_path_factory.mktemp("volunteer-language")
    path = root / "walk.sqlite"
    shutil.copyfile(sqlite_templates("review"), path)
    url = f"sqlite:///{path}"
    engine = make_engine(url)
    links = {}
    with make_session_factory(engine).begin() as s:
        for lang in ("es", "ar"):
            _valid, token = create_invite(s, [lang])
            withdrawn, withdrawn_token = create_invite(s, [lang])
            revoke_invite(s, withdrawn.id)
            links[lang] = (token, withdrawn_token)
        patterns = sorted(set(s.scalars(select(EnglishPattern.pattern))), key=len, reverse=True)
        _fill_translation_memory(s, root)
    engine.dispose()
    app = create_app(
        {"DATABASE_URL": url, "SECRET_KEY": "test-secret", "RUNS_DIR": str(root / "runs"), "RATELIMIT_ENABLED": False}
    )
    with LiveServer(app) as server:
        yield server.url, links, patterns
    app.extensions["curator.engine"].dispose()


def _fill_translation_memory(s, root: Path) -> None:
    """In each walked language, every candidate template of the relations other than P19 (the
    walk's first relation) accepted: the translation memory panel (English patterns alike, issue
    37 §5) then lists some of them, with their relations' titles, beside the P103 item the walk
    opens from the Find page ("The native language of [X] is [Y]." is like P37's patterns)."""
    import json

    from curator.core.models import Template
    from curator.review.importer import import_reviews

    rows = s.execute(
        select(Template.language, Template.relation_id, Template.text).where(
            Template.language.in_(("es", "ar")), Template.relation_id != "P19", Template.is_candidate
        )
    ).all()
    lines = [
        {"reviewer": "ana@example.org", "language": lang, "relation": relation, "template": text, "decision": "accept"}
        for lang, relation, text in rows
    ]
    path = root / "memory.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    import_reviews(s, path)


READ = """(selector) => {
  const hidden = [...document.querySelectorAll(selector)].map((el) => [el, el.style.display]);
  hidden.forEach(([el]) => { el.style.display = "none"; });
  const text = document.body.innerText;
  hidden.forEach(([el, display]) => { el.style.display = display; });
  return text;
}"""


@pytest.mark.parametrize("locale", ["es", "ar"])
def test_the_volunteer_path_has_no_english(chromium, walk_site, locale):
    base, links, patterns = walk_site
    token, withdrawn = links[locale]
    email = f"volunteer-{locale}@example.org"
    flagged = english_only(locale)
    texts: list[tuple[str, str]] = []
    context = chromium.new_context(
        locale=locale, bypass_csp=True
    )  # the browser's Accept-Language; no cookie, no account yet
    page = context.new_page()

    def read(name: str) -> None:
        assert page.evaluate("document.documentElement.lang") == locale, name
        texts.append((name, page.evaluate(READ, ON_PURPOSE)))

    try:
        assert page.goto(f"{base}/invite/not-a-real-token").status == 404
        read("invalid invitation link")
        assert page.goto(f"{base}/invite/{withdrawn}").status == 410
        read("withdrawn invitation link")
        page.goto(f"{base}/invite/{token}")
        read("invitation")
        page.fill("input[name=email]", email)
        page.fill("input[name=name]", "Volunteer")
        page.fill("input[name=password]", PASSWORD)
        page.fill("input[name=password2]", PASSWORD)
        page.click("button[type=submit].primary")
        page.wait_for_url(f"{base}/review/{locale}**")  # a one-language invitation opens its review
        page.goto(f"{base}/")
        read("home after the invitation")

        page.click(f"a[href='/review/{locale}']")
        page.wait_for_selector("#intro:not([hidden])")
        read("guidelines before the first item")
        page.click("#start")
        page.wait_for_function("document.getElementById('template')?.textContent.length > 0")
        page.click("#details summary")
        assert page.is_visible("#checks")  # the seed's first item has a repaired placeholder: a check's name shows
        read("review screen, details open")
        page.keyboard.press("a")
        page.wait_for_function("document.getElementById('status').textContent.length > 0")
        read("review screen after a decision")
        # the context panels (review_context.js): machine translations, other languages with the
        # language picker open, the translation memory (relation titles)
        page.keyboard.press("m")
        page.wait_for_selector("#context[data-ready='1']")
        read("machine translations")
        page.keyboard.press("o")
        page.locator("#ctx-langs-choose summary").click()
        page.wait_for_selector("#ctx-langs-options input")
        page.locator("#ctx-langs-options input").first.check()
        page.locator("#ctx-langs-form button[type=submit]").click()
        page.wait_for_selector("#ctx-langs-list .ctx-language")
        read("other languages")
        # Find in my queue (issue 37 §5): a P103 item, which has a translation memory (P37 accepted)
        page.goto(f"{base}/review/{locale}/find?relation=P103")
        read("find in my queue")
        page.locator("#find-results a.find-open").first.click()
        page.wait_for_function("document.getElementById('template')?.textContent.length > 0")
        page.wait_for_selector("#review[data-ready='1']")
        page.locator("body").click(position={"x": 2, "y": 2})  # the focus on the page, for the keys
        page.keyboard.press("t")
        page.wait_for_selector("#ctx-memory-list li")
        read("translation memory")
        # the memory's relation has a translated title: one marked English there is English shown
        texts.append(("translation memory titles", page.evaluate(READ, ON_PURPOSE.replace('[lang="en"]', "#details"))))
        page.keyboard.press("?")
        page.wait_for_selector("#help:not([hidden])")
        read("guidelines and keys")

        page.goto(f"{base}/review/{locale}/history")
        read("my decisions")
        page.goto(f"{base}/account")
        read("account")
        page.fill("input[name=current]", "not the password")
        page.fill("input[name=password]", "a new password 123")
        page.fill("input[name=password2]", "a new password 123")
        page.click("form:not([action]) button[type=submit]")
        page.wait_for_selector(".flash.error")
        read("account, a refused password change")
        assert page.goto(f"{base}/no-such-page").status == 404
        read("missing page")
        page.click("header form button[type=submit]")
        page.wait_for_url(f"{base}/login")
        read("signed out")
        page.fill("input[name=email]", email)
        page.fill("input[name=password]", "not the password")
        page.keyboard.press("Enter")
        page.wait_for_selector(".flash.error")
        read("refused sign-in")
    finally:
        context.close()

    found = []
    for name, text in texts:
        for shown_on_purpose in (*patterns, email, *(name for name, _dir in LOCALES.values())):
            text = text.replace(shown_on_purpose, " ")
        english = sorted(_words(text) & flagged)
        if english:
            found.append(f"{name}: {', '.join(english)}")
            where = {m.group(0) for word in english for m in re.finditer(rf".{{0,30}}\b{word}\b.{{0,30}}", text, re.I)}
            found.extend(f"    …{line}…" for line in sorted(where)[:5])
    assert not found, f"English on the {locale} path:\n" + "\n".join(found)

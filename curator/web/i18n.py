"""The interface language: Flask-Babel with catalogues in `curator/web/translations`.

Which language a page speaks, in order: the signed-in user's stored choice (`users.locale`),
the `curator_locale` cookie (set by the switcher, so the sign-in page follows it too), the
browser's Accept-Language, English. The switcher (every page's footer, and the account page)
posts to `/locale` (web/auth.py), which sets the cookie and, signed in, `users.locale`; signing
in and out copies the stored choice into the cookie, so the sign-in page keeps the language.
Adding a language: docs/translating.md. The page's `lang` and `dir` follow it (`ui_lang`, `ui_dir`
in every template); the data on a page (templates, examples) keeps its own language's `dir`.

The catalogues are the `.po` files themselves: they are compiled in memory the first time a
language is used, so there is no compiled `.mo` to forget to rebuild and no build step.
Strings of `review.js` and its modules (static/review/) are marked here with `N_` (so
`pybabel extract` finds them) and reach the browser translated, as a JSON data block (`js_messages`), which the CSP allows.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import files
from typing import ClassVar

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations
from flask import Flask, g, request
from flask_babel import Babel, Domain, get_locale

from curator.core.errors import N_

COOKIE = "curator_locale"
COOKIE_AGE = 365 * 24 * 3600  # a year: the choice outlives sign-out
# code -> (name in its own language, direction)
LOCALES = {"en": ("English", "ltr"), "es": ("Español", "ltr"), "ar": ("العربية", "rtl")}
DEFAULT = "en"


# strings review.js shows; the page passes their translations in a JSON block (see js_messages)
JS_MESSAGES: list[str] = [
    N_("deleted:"),  # a second look's diff, read by screen readers (issue 37 §2)
    N_("inserted:"),
    N_("Your session ended — sign in again; your place is kept."),
    N_("Sign in"),
    N_("Something went wrong on the server, so this was not saved. Please try again in a moment."),
    N_("The server is busy; saving again in a moment…"),
    N_("Cannot reach the server. Your last action was not saved; check the connection and try again."),
    N_("Connection trouble, retrying…"),
    N_("Not checked: the server cannot be reached. It is checked when the connection is back."),
    N_("%(done)s of %(total)s reviewed · %(left)s"),
    N_("Template %(k)s of %(n)s in this relation · %(i)s of %(total)s overall"),
    N_("Template %(k)s of %(n)s in this relation: %(template)s"),
    N_("Translates: %(english)s"),
    N_("Placeholder repaired:"),
    N_("subject"),
    N_("object"),
    N_("(no example tuples for this relation)"),
    N_("a man:"),  # an annotated template's example filled in with the masculine forms (issue 39 §2)
    N_("a woman:"),
    N_("Differs only in gendered forms from %(twin)s; merged: %(merged)s"),
    N_("%(decision)s: %(correction)s — you can change it"),
    N_("%(decision)s — you can change it"),
    N_("%(decision)s (why: %(reason)s) — you can change it"),
    N_("Withdraw"),
    N_("Back-translated:"),
    N_("— similarity to the English %(pct)s"),
    N_("(low: check the meaning)"),
    N_("Worth a look:"),
    N_(
        "In the latest probe run (%(model)s), this template's prediction agrees with the relation's other templates for %(pct)s of tuples (relation average %(mean)s)."
    ),
    N_("That is far below the others: worth a careful look."),
    N_("Could not load the template."),
    N_("New relation: %(title)s"),
    N_("Could not load your sample."),
    N_("Not saved."),
    N_("%(decision)s. Saved."),
    N_("All templates reviewed. Thank you!"),
    N_("— will be saved as “%(cleaned)s”"),
    N_("✓ valid template"),
    N_("Could not undo."),
    N_("Nothing to undo."),
    N_("Undone: your decision (%(decision)s) on this template."),
    N_("Suggestion saved. Thank you!"),
    N_("You already suggested this one."),
    N_("Comment saved. Thank you!"),
    N_("Comment withdrawn."),
    N_("Reply"),
    N_("Reply saved."),
    N_("Unsaved reply, kept from before: it is sent when you press “Reply”."),  # a reply box's draft
    N_("The latest %(shown)s of %(count)s replies."),
    N_("resolved"),
    N_("Your sample is empty."),
    N_("Accepted"),
    N_("Amended"),
    N_("Rejected"),
    N_("Marked unsure"),
    N_("Invisible character: %(character)s"),
    N_(
        "Invisible characters were taken out of the text to edit: %(characters)s. "
        "Saving the correction leaves them out."
    ),
    # offline (static/review/offline.js; the plural "Offline — %(num)s decision waiting" is in js_plurals)
    N_("Offline — the server cannot be reached; trying again…"),
    N_("No more templates are loaded: the next ones come when the connection is back."),
    N_("%(decision)s. Kept in this browser; it is sent when the connection is back."),
    N_("Back online — every decision is saved."),
    N_("A decision made offline was not saved: %(error)s"),
    N_("Offline: only decisions still waiting can be undone."),
    N_("This template is not loaded yet, and the server cannot be reached."),
    # an item's pending work (static/review/pending.js) and the one outbox of every write
    N_("Accept"),
    N_("Amend"),
    N_("Reject"),
    N_("Unsure"),
    N_("Your correction, not saved yet:"),
    N_("Your reason, which only Reject and Unsure keep:"),
    N_("Save the correction (Amend)"),
    N_("%(decision)s, and send the reason as a comment"),
    N_("%(decision)s without it"),
    N_("Your comment was sent with it."),
    N_("Kept in this browser; it is sent when the connection is back."),
    N_("waiting to be sent"),
    N_("Undo is kept in this browser; it is sent when the connection is back."),
    N_("Type a template first."),
    N_("Type a comment first."),
    # a second look whose proposal was withdrawn meanwhile (409 "retired")
    N_("This proposal was withdrawn by its author; moved on to the next template."),
    N_("This proposal was withdrawn by its author; nothing else is waiting for you."),
]


class PoDomain(Domain):
    """A Flask-Babel domain that reads `.po` catalogues directly (compiled once, in memory)."""

    _cache: ClassVar[dict[str, NullTranslations]] = {}  # shared by every instance: one compile per locale

    def get_translations(self):
        locale = str(get_locale() or DEFAULT)
        if locale not in self._cache:
            self._cache[locale] = load_catalogue(locale)
        return self._cache[locale]


def load_catalogue(locale: str) -> NullTranslations:
    path = files("curator.web") / "translations" / locale / "LC_MESSAGES" / "messages.po"
    if locale == DEFAULT or not path.is_file():
        return NullTranslations()
    with path.open("rb") as fh:
        catalog = read_po(fh, locale=locale)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf)


def select_locale() -> str:
    from flask_login import current_user

    if "ui_locale" in g:
        return g.ui_locale
    choice = None
    if current_user and current_user.is_authenticated and current_user.locale in LOCALES:
        choice = current_user.locale
    elif request.cookies.get(COOKIE) in LOCALES:
        choice = request.cookies[COOKIE]
    else:
        choice = request.accept_languages.best_match(list(LOCALES)) or DEFAULT
    g.ui_locale = choice
    return choice


@contextmanager
def speaking(locale: str | None) -> Iterator[None]:
    """Gettext and `language_name` in `locale` (an interface language; anything else: English)
    for the block, outside a request too: the e-mails a background job writes (web/mailer.py)
    in the language of the request that asked for them."""
    from flask_babel import force_locale

    locale = locale if locale in LOCALES else DEFAULT
    had, before = "ui_locale" in g, g.get("ui_locale")
    g.ui_locale = locale
    try:
        with force_locale(locale):
            yield
    finally:
        if had:
            g.ui_locale = before
        else:
            g.pop("ui_locale", None)


def remember_locale(response, locale: str):
    """The browser keeps the choice (signed out too): one year, HttpOnly, SameSite=Lax."""
    from flask import current_app

    response.set_cookie(
        COOKIE,
        locale,
        max_age=COOKIE_AGE,
        httponly=True,
        samesite="Lax",
        secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")),
    )
    return response


# A data language's code as CLDR spells it, where that is not the code itself
CLDR_CODES = {"zh-hans": "zh_Hans", "zh-hant": "zh_Hant"}
# names of data languages that CLDR does not have, per interface language (English: core.languages)
NAMES_CLDR_LACKS: dict[str, dict[str, str]] = {
    "azb": {"es": "azerbaiyano meridional", "ar": "الأذربيجانية الجنوبية"},
    "bar": {"es": "bávaro", "ar": "البافارية"},
    "bpy": {"es": "bishnupriya manipuri", "ar": "البشنوبريا المانيبورية"},
    "pnb": {"es": "punyabí occidental", "ar": "البنجابية الغربية"},
}


def language_name(code: str, standalone: bool = False, locale: str | None = None) -> str:
    """A data language's name in the interface language ("alemán" on a Spanish page): the one
    function every page, e-mail and JSON answer of the web app names a language with.

    English pages use the dataset's own English names (`core.languages.NAMES`, which the
    commands and the exports print too); the other interface languages CLDR's name through
    Babel (`Locale(ui).languages`, the code spelled as CLDR does: `CLDR_CODES`), then
    `NAMES_CLDR_LACKS`, then CLDR's name of the code as a locale (a region or script variant),
    and the English name last. `standalone`: the name alone — a heading, a table cell, a choice
    in a list — with its first letter capitalised as CLDR's context transforms ask of Spanish
    ("Alemán"); inside a sentence it is left as CLDR writes it ("para alemán")."""
    from babel import Locale, UnknownLocaleError

    from curator.core import languages

    code = languages.canonical(code)
    ui = locale if locale in LOCALES else select_locale()
    name: str | None = None
    if ui == DEFAULT:
        name = languages.NAMES.get(code)
    else:
        name = Locale.parse(ui).languages.get(CLDR_CODES.get(code, code)) or NAMES_CLDR_LACKS.get(code, {}).get(ui)
        if name is None:
            try:
                name = Locale.parse(code.replace("-", "_")).get_display_name(ui)
            except (ValueError, UnknownLocaleError):
                name = None
    name = name or languages.name(code)
    return name[:1].upper() + name[1:] if standalone else name


def js_messages() -> dict[str, str]:
    """review.js's strings in the page's language: {English: translation}."""
    from flask_babel import gettext

    return {m: gettext(m) for m in JS_MESSAGES}


def js_plurals() -> dict[str, dict[str, str]]:
    """review.js's messages with a count, in the page's language: {English singular: {CLDR
    plural category: form}}, each form with `%(num)s` left in. review.js picks the form with
    `Intl.PluralRules` of the page's language (`tn`), so Arabic gets all six forms. Each form
    is what ngettext gives for a number of that category (the .po's Plural-Forms and CLDR
    agree: the catalogues were made from CLDR by `pybabel init`)."""
    from flask_babel import get_translations

    def ngettext(singular: str, plural: str, n: int) -> str:  # the form itself, %(num)s left in
        return get_translations().ngettext(singular, plural, n)

    messages = {
        "(%(num)s vote)": lambda n: ngettext("(%(num)s vote)", "(%(num)s votes)", n),
        "%(num)s template reviewed — thank you! You can still revise it.": lambda n: ngettext(
            "%(num)s template reviewed — thank you! You can still revise it.",
            "All %(num)s templates reviewed — thank you! You can still revise any of them.",
            n,
        ),
        "Offline — %(num)s decision waiting": lambda n: ngettext(
            "Offline — %(num)s decision waiting", "Offline — %(num)s decisions waiting", n
        ),
        "%(num)s comment or suggestion waiting.": lambda n: ngettext(
            "%(num)s comment or suggestion waiting.", "%(num)s comments or suggestions waiting.", n
        ),
        "%(num)s change on this template is kept in this browser and waits to be sent.": lambda n: ngettext(
            "%(num)s change on this template is kept in this browser and waits to be sent.",
            "%(num)s changes on this template are kept in this browser and wait to be sent.",
            n,
        ),
        "%(num)s similar template of another relation": lambda n: ngettext(
            "%(num)s similar template of another relation", "%(num)s similar templates of other relations", n
        ),
    }
    samples = plural_samples(select_locale())
    return {key: {category: form(n) for category, n in samples.items()} for key, form in messages.items()}


def plural_samples(locale: str) -> dict[str, int]:
    """{CLDR plural category: the smallest whole number in it} for a language (Arabic: zero 0,
    one 1, two 2, few 3, many 11, other 100)."""
    from babel import Locale

    rule = Locale.parse(locale).plural_form
    samples: dict[str, int] = {}
    for n in range(1001):
        samples.setdefault(rule(n), n)
    return samples


def init_i18n(app: Flask) -> None:
    babel = Babel(app, locale_selector=select_locale)
    babel.domain_instance = PoDomain()  # overrides the cached property: .po files, compiled in memory

    app.add_template_filter(language_name, "language_name")  # invite.html: codes |map("language_name")

    @app.context_processor
    def _ui():
        locale = select_locale()
        return dict(
            ui_lang=locale,
            ui_dir=LOCALES[locale][1],
            ui_locales=LOCALES,
            js_messages=js_messages,
            js_plurals=js_plurals,
            language_name=language_name,
        )

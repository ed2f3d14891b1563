"""Quality checks and relation titles in the page's language.

The stages below the web keep their words in English: a check's name, description and value
are catalogue messages marked with `N_` (quality/checks), a relation's title comes from
ingest's data files. Here they are said in the interface language (`select_locale`): checks
through the catalogue (ngettext for counts), relation titles from
`relation_titles_translated.json`, falling back to English with the language it is in, so
the page marks it `lang="en"`.
"""

from __future__ import annotations

from typing import Any

from flask_babel import gettext, ngettext
from flask_babel import lazy_gettext as _l

from curator.ingest.relations import LocalizedTitle, localized_relation_title
from curator.quality.checks import CHECKS, Check, CheckResult
from curator.web.i18n import select_locale

# how a placeholder was repaired (ingest/placeholders.py `rule`, comma-joined), shown in Details
REPAIR_RULES = {
    "bracket": _l("brackets"),
    "spacing": _l("spacing"),
    "case": _l("letter case"),
    "lookalike": _l("look-alike letters"),
    "transliteration": _l("transliterated"),
    "translated": _l("translated"),
    "suffix": _l("suffix"),
}


def repair_rule(rule: str) -> str:
    """A repair's rule(s) in the page's language: "case,spacing" -> "mayúsculas y minúsculas, espacios"."""
    return ", ".join(str(REPAIR_RULES.get(part.strip(), part.strip())) for part in rule.split(","))


def check_name(check: Check) -> str:
    return gettext(check.name)


def check_description(check: Check) -> str:
    return (
        gettext(check.description, **check.description_params)
        if check.description_params
        else gettext(check.description)
    )


def check_display(check: Check, value: float) -> str:
    message = check.display_message(value)
    if message.plural is not None:
        return ngettext(message.singular, message.plural, message.n, **message.params)
    return gettext(message.singular, **message.params) if message.params else gettext(message.singular)


def translated_check(result: CheckResult) -> CheckResult:
    """One check result (quality.checks.results) with its words in the page's language."""
    check = CHECKS.get(result["id"])
    if check is None:
        return result
    translated: CheckResult = {
        **result,
        "name": check_name(check),
        "description": check_description(check),
        "display": check_display(check, result["value"]),
    }
    return translated


def relation_title(relation_id: str, lemma: str | None = None) -> LocalizedTitle:
    """A relation's title in the interface language, and the language it is really in."""
    return localized_relation_title(relation_id, select_locale(), lemma)


def translate_item(context: dict[str, Any]) -> dict[str, Any]:
    """The review screen's item (review.service.item_context) with the relation's title and the
    checks in the page's language; `relation.title_lang` says which language the title is in."""
    relation = context["relation"]
    title = relation_title(relation["id"], relation.get("lemma"))
    signals = context.get("signals") or {}
    sources = [
        {**source, "repairs": [{**r, "rule": repair_rule(r["rule"])} for r in source.get("repairs", [])]}
        for source in context.get("sources", [])
    ]
    return {
        **context,
        "sources": sources,
        "relation": {**relation, "title": title.text, "title_lang": title.lang},
        "signals": {**signals, "checks": [translated_check(c) for c in signals.get("checks", [])]},
    }

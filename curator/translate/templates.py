"""Translate templates so that every output holds [X] and [Y] exactly once.

First the whole template goes through the system with its slots protected (see
`protect.py`). When a slot does not come back, the text between the slots is translated
segment by segment and joined around the slots in the English order: a worse sentence
(word order can be wrong) but a usable one, and each such line is marked `fallback` so
callers can count them and reviewers know where to look.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from curator.core.errors import InputError
from curator.translate.protect import SLOT, has_slots_once

if TYPE_CHECKING:
    from curator.translate.backends.base import Translator

# written without spaces between words: no spaces around the slots either
NO_SPACE_LANGUAGES = frozenset(
    {"ja", "zh", "zh-hans", "zh-hant", "zh-classical", "th", "lo", "km", "my", "bo", "yue", "wuu"}
)
_OPENING = re.escape("([{«“‘¿¡\"'")
_CLOSING = re.escape(".,;:!?。、)]}»”’\"'")
# an affix attached with a hyphen or apostrophe ("[Y]-ban", "[X]'in") belongs to the slot: no space there
_AFFIX = re.escape("-‐‑'’")
_LOOSE_SLOT = re.compile(r"[\[［【(（]\s*[XYxyＸＹｘｙ]\s*[\]］】)）]")


@dataclass(frozen=True)
class TemplateTranslation:
    """One translated template: `text` always holds [X] and [Y] once."""

    text: str
    method: str  # "protected": the system kept the slots; "fallback": segments translated separately
    raw: str  # what the system returned for the protected template (before restoration)

    @property
    def fallback(self) -> bool:
        return self.method == "fallback"


def translate_templates(translator: Translator, templates: list[str], source: str, target: str) -> list[str]:
    """Translated templates, in order, each with [X] and [Y] exactly once."""
    return [t.text for t in translate_templates_detailed(translator, templates, source, target)]


def translate_templates_detailed(
    translator: Translator, templates: list[str], source: str, target: str
) -> list[TemplateTranslation]:
    """Like `translate_templates`, saying per template whether the fallback was needed."""
    for i, template in enumerate(templates):
        if not has_slots_once(template):
            raise InputError(f"template {i} ({template!r}) must contain [X] and [Y] exactly once")
    scheme = translator.scheme
    protected = [scheme.protect(t) for t in templates]
    raws = (translator.translate_markup if scheme.markup else translator.translate)(protected, source, target)
    results: list[TemplateTranslation | None] = []
    for template, raw in zip(templates, raws):
        restored = scheme.restore(raw, target)
        results.append(
            None if restored is None else TemplateTranslation(respace(restored, template, target), "protected", raw)
        )
    missing = [i for i, r in enumerate(results) if r is None]
    if missing:
        for i, text in zip(missing, translate_by_segments(translator, [templates[i] for i in missing], source, target)):
            results[i] = TemplateTranslation(text, "fallback", raws[i])
    return [r for r in results if r is not None]


def translate_by_segments(translator: Translator, templates: list[str], source: str, target: str) -> list[str]:
    """Translate the text between the slots on its own and rebuild each template in the source order."""
    spaced = target not in NO_SPACE_LANGUAGES
    split = [SLOT.split(t) for t in templates]  # text, slot letter, text, slot letter, text
    wanted = sorted({part.strip() for parts in split for part in parts[::2] if _has_words(part)})
    translated = dict(zip(wanted, translator.translate(wanted, source, target))) if wanted else {}
    out = []
    for parts in split:
        pieces = []
        for i, part in enumerate(parts):
            if i % 2:
                pieces.append(f"[{part}]")
            elif _has_words(part):
                text = _LOOSE_SLOT.sub("", translated[part.strip()]).strip()  # empty stays empty: invalid at ingest
                lead = " " if spaced and part[:1].isspace() else ""
                trail = " " if spaced and part[-1:].isspace() else ""
                pieces.append(f"{lead}{text}{trail}")
            else:
                pieces.append(part if spaced else part.strip())
        out.append("".join(pieces))
    return out


def respace(text: str, template: str, target: str) -> str:
    """Put back a space the system glued away between a slot and its neighbour, where the language uses spaces.

    Tag-handling APIs often drop the space next to a protected element ("[X]nació"); a
    space is only restored where the English template had one, and never before punctuation.
    """
    if target in NO_SPACE_LANGUAGES:
        return text
    for slot in ("X", "Y"):
        token = re.escape(f"[{slot}]")
        at = template.index(f"[{slot}]")
        if template[at - 1 : at].isspace():
            text = re.sub(rf"(?<=[^\s{_OPENING}{_AFFIX}]){token}", f" [{slot}]", text)
        if template[at + 3 : at + 4].isspace():
            text = re.sub(rf"{token}(?=[^\s{_CLOSING}{_AFFIX}])", f"[{slot}] ", text)
    return text


def _has_words(text: str) -> bool:
    return any(unicodedata.category(ch).startswith(("L", "N")) for ch in text)

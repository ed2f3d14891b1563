"""Placeholder protection: hide [X]/[Y] from the MT system, then find them again.

Two schemes. HTTP APIs with tag handling get each slot as a do-not-translate element
(`<span class="notranslate" translate="no">X</span>`, DeepL `<x>X</x>` with
`ignore_tags`), so the slot text is neither translated nor moved by much. Local seq2seq
models have no tag handling; they see the bare `[X]`/`[Y]` tokens, which they mostly copy
but sometimes spell differently. Restoration is tolerant of what systems do to the markup
(spacing and case inside tags, full-width brackets, bidi marks, HTML entities, the
placeholder spellings of `curator/ingest/placeholders.json`) and answers None when a slot
is missing or doubled, which is the caller's cue to fall back to segment translation.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass

from curator.ingest.placeholders import CLOSERS, OPENERS, repair

SLOTS = ("[X]", "[Y]")
SLOT = re.compile(r"\[([XY])\]")
# invisible direction and joiner marks that systems put around protected spans in RTL text
MARKS = "\u200b\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\ufeff"
_MARKS = f"[{MARKS}]"
_SPACE = rf"[\s{MARKS}]*"
_BRACKETS = re.escape(OPENERS + CLOSERS)


def has_slots_once(text: str) -> bool:
    """True when `text` contains exactly one [X] and exactly one [Y]."""
    return all(text.count(slot) == 1 for slot in SLOTS)


@dataclass(frozen=True)
class TagScheme:
    """Each slot becomes `<tag attrs>X</tag>`; the API is told to keep such elements (HTML/XML mode)."""

    tag: str = "span"
    attrs: str = 'class="notranslate" translate="no"'
    name: str = "tags"
    markup: bool = True  # the backend must send these texts in its HTML/XML mode

    def protect(self, template: str) -> str:
        """Escape the text for HTML/XML and wrap each slot in a do-not-translate element."""
        opening = f"<{self.tag} {self.attrs}>" if self.attrs else f"<{self.tag}>"
        parts = SLOT.split(template)  # text, slot letter, text, …
        out = []
        for i, part in enumerate(parts):
            out.append(f"{opening}{part}</{self.tag}>" if i % 2 else html.escape(part, quote=False))
        return "".join(out)

    def _patterns(self) -> tuple[re.Pattern[str], re.Pattern[str]]:
        lt, gt, tag = "[<＜]", "[>＞]", re.escape(self.tag)
        element = re.compile(
            rf"{_MARKS}*{lt}{_SPACE}{tag}(?![\w-])(?P<attrs>[^<>＜＞]*?)"
            rf"(?:/{_SPACE}{gt}|{gt}(?P<inner>[^<>＜＞]*?){lt}{_SPACE}/{_SPACE}{tag}{_SPACE}{gt}){_MARKS}*",
            re.IGNORECASE,
        )
        stray = re.compile(rf"{_MARKS}*{lt}{_SPACE}/?{_SPACE}{tag}(?![\w-])[^<>＜＞]*{gt}{_MARKS}*", re.IGNORECASE)
        return element, stray

    def restore(self, text: str, language: str | None = None) -> str | None:
        """The translated text with each protected element back as [X]/[Y]; None when a slot is lost."""
        element, stray = self._patterns()
        found = list(element.finditer(text))
        slots = [_slot_of(m.group("inner")) for m in found]
        if len(found) == 2 and slots.count(None) == 1:  # one element's content was lost: it is the other slot
            known = next(s for s in slots if s)
            slots = [s or ("Y" if known == "X" else "X") for s in slots]
        pieces, last = [], 0
        for match, slot in zip(found, slots):
            if slot is None:
                return None
            pieces.append(html.unescape(stray.sub("", text[last : match.start()])))
            pieces.append(f"[{slot}]")
            last = match.end()
        pieces.append(html.unescape(stray.sub("", text[last:])))
        restored = "".join(pieces)
        return restored if has_slots_once(restored) else None


@dataclass(frozen=True)
class BracketScheme:
    """The slots stay `[X]`/`[Y]`: what local seq2seq models copy best; any spelling variant is repaired."""

    name: str = "brackets"
    markup: bool = False

    def protect(self, template: str) -> str:
        return template

    def restore(self, text: str, language: str | None = None) -> str | None:
        """Normalise the slot spellings (the ingest repair table); None unless each slot is there once."""
        unmarked = re.sub(rf"{_MARKS}+(?=[{_BRACKETS}])|(?<=[{_BRACKETS}]){_MARKS}+", "", text)
        restored, _ = repair(unmarked, language)
        return restored if has_slots_once(restored) else None


Scheme = TagScheme | BracketScheme


def _slot_of(inner: str | None) -> str | None:
    if inner is None:
        return None
    key = unicodedata.normalize("NFKC", re.sub(_MARKS, "", html.unescape(inner))).strip().upper()
    return key if key in ("X", "Y") else None

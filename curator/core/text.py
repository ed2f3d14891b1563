"""Characters a template may not contain: Unicode control (Cc) and format (Cf) characters.

They are invisible or reorder what a reviewer sees (U+202E RIGHT-TO-LEFT OVERRIDE makes a
template read differently from what is stored: "Trojan Source"), NUL and other controls
break files and terminals, and a tab or newline inside a template is never meant. Two format
characters are letters of real scripts and stay allowed: U+200C ZERO WIDTH NON-JOINER and
U+200D ZERO WIDTH JOINER shape Persian, Urdu and Indic words. The real MT data has both
(ZWNJ in 31 Urdu lines, e.g. `[بی‌سی ] کا حصہ ہے ۔`; ZWJ in Hindi `रिश्‍ते`) and no other Cc or
Cf character except the bidi embeddings U+202A/U+202B/U+202C that one system (m2m100, Urdu)
wraps 85 lines in — artefacts of its output, none of them a valid template, so those lines
are kept as invalid (see ingest/translations.py) rather than the file refused.
"""
from __future__ import annotations

import unicodedata

ALLOWED_FORMAT = frozenset("\u200c\u200d")  # ZWNJ, ZWJ: part of the spelling in Persian/Urdu/Indic scripts


def first_control(text: str, whitespace_ok: bool = False) -> str | None:
    """The first control/format character of `text` that is not allowed (see control_reason)."""
    for ch in text:
        if whitespace_ok and ch.isspace():
            continue
        if unicodedata.category(ch) in ("Cc", "Cf") and ch not in ALLOWED_FORMAT:
            return ch
    return None


def describe_char(ch: str) -> str:
    """'U+202E RIGHT-TO-LEFT OVERRIDE' (controls have no name: 'U+0000 NUL' style via a small table)."""
    name = unicodedata.name(ch, None) or _CONTROL_NAMES.get(ch, "control character")
    return f"U+{ord(ch):04X} {name}"


_CONTROL_NAMES = {"\x00": "NULL", "\t": "CHARACTER TABULATION", "\n": "LINE FEED", "\r": "CARRIAGE RETURN",
                  "\x0b": "LINE TABULATION", "\x0c": "FORM FEED", "\x1b": "ESCAPE", "\x7f": "DELETE",
                  "\x85": "NEXT LINE"}


def control_reason(text: str, whitespace_ok: bool = False) -> str | None:
    """'contains U+202E RIGHT-TO-LEFT OVERRIDE, a control/format character' for the first such
    character (ZWNJ and ZWJ excepted), or None when there is none. `whitespace_ok` lets tabs and
    line ends through: the `mpararel` profile reproduces the published cleaning, which kept a
    final newline ("[X] is [Y]\n"), and only the other characters are a risk there."""
    ch = first_control(text, whitespace_ok)
    return f"contains {describe_char(ch)}, a control/format character" if ch is not None else None

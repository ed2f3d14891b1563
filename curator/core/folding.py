"""The form search and glossary matching compare text in: what people type finds what is stored.

`fold(text)` drops what a person leaves out when typing: case (casefold: "NACIÓ" and "ß" too),
accents and other combining marks (Unicode NFD, then every mark of category M removed, so
"nacio" finds "nació"), Arabic harakat (U+064B–U+065F, U+0670 — marks as well) and the
tatweel (U+0640, a letter of category Lm that only stretches a word), then composes again
(NFC). The search boxes (the language page) and the glossary compare folded strings in
Python, so SQLite and PostgreSQL answer alike, with no `unaccent` extension to install.

`find(needle, text)` says where a folded needle occurs in the original text (start, end
offsets of the original characters), for highlighting.

`lead(needle)` and `leads(text)` index that search (the glossary's per-item look-up): a needle
can only be found in a text whose `leads` hold its `lead` — the needle's first word when it
starts with a letter or digit (a match starts at a word's start and the needle's first word
ends where a word of the text ends), else its first character. Storing each term's lead and
asking for the leads of a pattern's words finds the few terms worth a `find` without reading
every term.
"""

from __future__ import annotations

import functools
import re
import unicodedata

TATWEEL = "\u0640"
HARAKAT = frozenset(chr(c) for c in range(0x064B, 0x0660)) | {"\u0670"}  # all of category Mn: dropped as marks


def _drop_marks(text: str) -> str:
    """`text` casefolded and decomposed, without its marks and tatweels."""
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(c for c in decomposed if c != TATWEEL and not unicodedata.category(c).startswith("M"))


def _fold_char(ch: str) -> str:
    return _drop_marks(ch)


@functools.lru_cache(maxsize=1 << 16)  # a language page folds the same templates for every search
def fold(text: str) -> str:
    """`text` in its folded form (module docstring)."""
    if text.isascii():  # the common case, and the fast one
        return text.casefold()
    return unicodedata.normalize("NFC", _drop_marks(text))


def _folded_with_offsets(text: str) -> tuple[str, list[int]]:
    """The folded text (not recomposed) and, for each of its characters, the offset of the
    character of `text` it came from."""
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        folded = _fold_char(ch)
        out.append(folded)
        origin.extend([i] * len(folded))
    return "".join(out), origin


def _key(needle: str) -> str:
    """The needle as `find` compares it (folded character by character, trimmed)."""
    return "".join(_fold_char(ch) for ch in unicodedata.normalize("NFC", needle)).strip()


_WORD = re.compile(r"\w+")


def lead(needle: str) -> str:
    """What `leads(text)` must hold for `find(needle, text)` to find anything (module docstring):
    the folded needle's first word, or its first character when it starts with neither a letter
    nor a digit; "" for a needle `find` never finds."""
    key = _key(needle)
    first = _WORD.match(key)
    return first.group() if first else key[:1]


def leads(text: str) -> set[str]:
    """The words of the folded text and its other characters (spaces aside): every `lead` a
    needle found in `text` can have."""
    folded, _ = _folded_with_offsets(text)
    found = set(_WORD.findall(folded))
    found.update(c for c in _WORD.sub("", folded) if not c.isspace())
    return found


def find(needle: str, text: str, *, whole_word: bool = True) -> list[tuple[int, int]]:
    """(start, end) of each occurrence of `needle` in `text`, compared folded. A match starts
    at a word's start; with `whole_word` it also ends at a word's end, else it runs on to the
    word's end (an inflected "capitales" holds "capital"). The span covers the original
    characters, marks after the last letter included."""
    key = _key(needle)
    if not key:
        return []
    folded, origin = _folded_with_offsets(text)
    tail = r"(?!\w)" if whole_word else r"\w*"
    spans = []
    for m in re.finditer(r"(?<!\w)" + re.escape(key) + tail, folded):
        start, end = origin[m.start()], origin[m.end() - 1] + 1
        while end < len(text) and not _fold_char(text[end]):  # the marks (or tatweel) after it
            end += 1
        spans.append((start, end))
    return spans

"""Invisible characters — Unicode control (Cc) and format (Cf) characters — in template text:
refused where a person types, kept and reported where a dataset is read.

They are invisible or reorder what a reviewer sees (U+202E RIGHT-TO-LEFT OVERRIDE makes a
template read differently from what is stored: "Trojan Source"), NUL and other controls
break files and terminals, and a tab or newline inside a template is never meant. Two format
characters are letters of real scripts and are not counted: U+200C ZERO WIDTH NON-JOINER and
U+200D ZERO WIDTH JOINER shape Persian, Urdu and Indic words (ZWNJ in 31 real Urdu MT lines,
e.g. `[بی‌سی ] کا حصہ ہے ۔`; ZWJ in Hindi `रिश्‍ते`).

Two policies, one character set:

- **typed text** (amendments, suggestions, comments, guidelines, names): `first_control` /
  `control_reason` refuse it with a message naming the character — a person never means one.
- **dataset text** (a release's patterns and tuples, mLAMA and ParaRel patterns): kept byte
  for byte and counted with `InvisibleTally`, because published data holds them — the
  published mParaRel release has 229 lines in 64 files with U+200E LEFT-TO-RIGHT MARK (339),
  U+200B ZERO WIDTH SPACE (41), U+00AD SOFT HYPHEN (26), U+FEFF ZERO WIDTH NO-BREAK SPACE (8)
  and U+200F RIGHT-TO-LEFT MARK (2) — and refusing it would refuse the published data.
  Reporting is the safety: `curator stats` and `release import` count them per file, and the
  review pages show each one as a visible marker (`⟨LRM⟩`, `parts`) so a reviewer can amend it
  away. The one exception is NUL (`unstorable_reason`): no PostgreSQL text column can hold it.
- **raw MT lines** (`ingest translations`): stored, and invalid with `control_reason` as the
  reason under the `curator` profile; the `mpararel` profile keeps them as the published
  procedure did (ingest/mpararel_rules.py). One system (m2m100, Urdu) wraps 85 real lines in
  the bidi embeddings U+202A/U+202B/U+202C.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field

ALLOWED_FORMAT = frozenset("\u200c\u200d")  # ZWNJ, ZWJ: part of the spelling in Persian/Urdu/Indic scripts

# The usual abbreviations (Unicode's name aliases) of the characters met in real data, for the
# visible marker; any other invisible character is marked by its code point.
SHORT_NAMES = {
    "\x00": "NUL",
    "\t": "TAB",
    "\n": "LF",
    "\x0b": "VT",
    "\x0c": "FF",
    "\r": "CR",
    "\x1b": "ESC",
    "\x7f": "DEL",
    "\x85": "NEL",
    "\u00ad": "SHY",
    "\u061c": "ALM",
    "\u180e": "MVS",
    "\u200b": "ZWSP",
    "\u200e": "LRM",
    "\u200f": "RLM",
    "\u202a": "LRE",
    "\u202b": "RLE",
    "\u202c": "PDF",
    "\u202d": "LRO",
    "\u202e": "RLO",
    "\u2060": "WJ",
    "\u2066": "LRI",
    "\u2067": "RLI",
    "\u2068": "FSI",
    "\u2069": "PDI",
    "\ufeff": "ZWNBSP",
}


def is_invisible(ch: str) -> bool:
    """A control or format character other than ZWNJ and ZWJ."""
    return unicodedata.category(ch) in ("Cc", "Cf") and ch not in ALLOWED_FORMAT


def first_control(text: str, whitespace_ok: bool = False) -> str | None:
    """The first invisible character of `text` (`whitespace_ok`: tabs and line ends let through)."""
    for ch in text:
        if whitespace_ok and ch.isspace():
            continue
        if is_invisible(ch):
            return ch
    return None


def describe_char(ch: str) -> str:
    """'U+202E RIGHT-TO-LEFT OVERRIDE' (controls have no name: 'U+0000 NULL' style via a small table)."""
    name = unicodedata.name(ch, None) or _CONTROL_NAMES.get(ch, "control character")
    return f"U+{ord(ch):04X} {name}"


def short_name(ch: str) -> str:
    """'LRM' for U+200E; 'U+E0001' style for a character without a usual abbreviation."""
    return SHORT_NAMES.get(ch) or f"U+{ord(ch):04X}"


_CONTROL_NAMES = {
    "\x00": "NULL",
    "\t": "CHARACTER TABULATION",
    "\n": "LINE FEED",
    "\r": "CARRIAGE RETURN",
    "\x0b": "LINE TABULATION",
    "\x0c": "FORM FEED",
    "\x1b": "ESCAPE",
    "\x7f": "DELETE",
    "\x85": "NEXT LINE",
}


def control_reason(text: str, whitespace_ok: bool = False) -> str | None:
    """'contains U+202E RIGHT-TO-LEFT OVERRIDE, a control/format character' for the first such
    character (ZWNJ and ZWJ excepted), or None when there is none. `whitespace_ok` lets tabs and
    line ends through."""
    ch = first_control(text, whitespace_ok)
    return f"contains {describe_char(ch)}, a control/format character" if ch is not None else None


def unstorable_reason(text: str) -> str | None:
    """Why dataset text cannot be kept as it is, or None: only NUL, which a PostgreSQL text
    column refuses (and C tools read as the end of the string). Every other invisible character
    is kept and counted."""
    return "contains U+0000 NULL, which a database text column cannot hold" if "\x00" in text else None


def invisible_characters(text: str) -> Counter[str]:
    """How often each invisible character occurs in `text` (empty for clean text)."""
    return Counter(ch for ch in text if is_invisible(ch))


def parts(text: str) -> list[tuple[str, str | None]]:
    """`text` cut for display: (text, None) runs and (character, short name) for each invisible
    character, in order. The web pages render the second kind as a visible marker."""
    out: list[tuple[str, str | None]] = []
    run: list[str] = []
    for ch in text:
        if is_invisible(ch):
            if run:
                out.append(("".join(run), None))
                run = []
            out.append((ch, short_name(ch)))
        else:
            run.append(ch)
    if run:
        out.append(("".join(run), None))
    return out


def visible(text: str) -> str:
    """`text` with each invisible character written as its marker (`⟨LRM⟩`): for a terminal,
    where a U+202E RIGHT-TO-LEFT OVERRIDE in a printed template would reorder the line."""
    return "".join(chunk if short is None else f"⟨{short}⟩" for chunk, short in parts(text))


@dataclass
class FileCount:
    """The invisible characters of one file: per character, and the lines holding any."""

    characters: Counter[str] = field(default_factory=Counter)
    lines: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "lines": list(self.lines),
            "characters": {describe_char(ch): n for ch, n in sorted(self.characters.items())},
        }


@dataclass
class InvisibleTally:
    """Invisible characters found while reading a dataset, per file (in the order met).

    Readers call `add(file, line, *texts)` for every record; nothing is changed or refused."""

    files: dict[str, FileCount] = field(default_factory=dict)

    def add(self, where: str, line: int, *texts: str) -> None:
        found: Counter[str] = Counter()
        for text in texts:
            if text.isprintable() and text.isascii():  # the common case, decided at C speed
                continue
            found.update(invisible_characters(text))
        if not found:
            return
        count = self.files.setdefault(where, FileCount())
        count.characters.update(found)
        if not count.lines or count.lines[-1] != line:
            count.lines.append(line)

    def totals(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for count in self.files.values():
            total.update(count.characters)
        return total

    @property
    def lines(self) -> int:
        return sum(len(c.lines) for c in self.files.values())

    def __bool__(self) -> bool:
        return bool(self.files)

    def to_dict(self) -> dict[str, object]:
        totals = self.totals()
        return {
            "lines": self.lines,
            "files": len(self.files),
            "characters": {describe_char(ch): n for ch, n in sorted(totals.items(), key=lambda kv: -kv[1])},
            "per_file": {where: count.to_dict() for where, count in self.files.items()},
        }

    def summary(self) -> str:
        """'invisible characters kept: 229 lines in 64 files (U+200E LEFT-TO-RIGHT MARK 339, …)'."""
        totals = self.totals()
        kinds = ", ".join(
            f"{describe_char(ch)} {n}" for ch, n in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        files = "file" if len(self.files) == 1 else "files"
        lines = "line" if self.lines == 1 else "lines"
        return f"invisible characters kept: {self.lines} {lines} in {len(self.files)} {files} ({kinds})"

    def report(self, limit: int | None = None) -> list[str]:
        """The summary, then one line per file: `where: lines 3, 7: U+200B ZERO WIDTH SPACE ×2`."""
        if not self:
            return ["invisible characters: none"]
        out = [self.summary()]
        items = list(self.files.items())
        for where, count in items[:limit]:
            shown = ", ".join(map(str, count.lines[:10])) + (", …" if len(count.lines) > 10 else "")
            chars = ", ".join(f"{describe_char(ch)} ×{n}" for ch, n in sorted(count.characters.items()))
            out.append(f"  {where}: {'line' if len(count.lines) == 1 else 'lines'} {shown}: {chars}")
        if limit is not None and len(items) > limit:
            out.append(f"  … and {len(items) - limit} more files (`curator stats` lists them all)")
        return out

"""Placeholder repair: MT systems mangle `[X]`/`[Y]` in many ways; put them back.

The spellings live in ``placeholders.json`` (data, not code) so a maintainer can add
one without touching the logic. Every repair is returned so reviewers can see it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

TABLE_PATH = Path(__file__).with_name("placeholders.json")

OPENERS = "[(【〔「［『〖⟦（"
CLOSERS = "])】〕」］』〗⟧）"
_open = re.escape(OPENERS)
_close = re.escape(CLOSERS)
# One or more openers, a short inner text without brackets, one or more closers.
# Mismatched pairs such as "(Y]" and doubled ones such as "[[X]]" are both seen in real output.
TOKEN = re.compile(
    rf"(?P<open>(?:[{_open}][ \u00a0\u200b\u202a\u202c]*)+)"
    rf"(?P<inner>[^{_open}{_close}]{{1,24}}?)"
    rf"(?P<close>(?:[ \u00a0\u200b\u202a\u202c]*[{_close}])+)"
)
# "[X:n]" (Finnish, Swedish): the case ending was written inside the brackets.
SUFFIX = re.compile(r"^(?P<ph>.+?)\s*:\s*(?P<suffix>[^\s:]{1,8})$")
# "[y ကို]", "[teraka Y]": a word of the sentence was pulled inside the brackets.
SPLIT = re.compile(r"^(?:(?P<ph1>[XxYy])\s+(?P<after>\S.*)|(?P<before>.*\S)\s+(?P<ph2>[XxYy]))$")


@dataclass(frozen=True)
class Repair:
    source: str  # the token as it appeared
    target: str  # what replaced it
    rule: str  # comma-joined: bracket, spacing, case, lookalike, transliteration, translated, suffix

    def to_dict(self) -> dict[str, str]:
        return {"from": self.source, "to": self.target, "rule": self.rule}


@dataclass(frozen=True)
class Entry:
    slot: str
    rule: str
    languages: frozenset[str]


def _key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().casefold()


@lru_cache(maxsize=4)
def load_table(path: str = str(TABLE_PATH)) -> dict[str, list[Entry]]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    table: dict[str, list[Entry]] = {}
    for i, row in enumerate(data["entries"]):
        try:
            entry = Entry(row["slot"], row["rule"], frozenset(row.get("languages", ())))
            form = row["form"]
        except KeyError as exc:
            raise ValueError(f"{path}: entry {i} lacks field {exc}") from None
        if entry.slot not in ("X", "Y"):
            raise ValueError(f"{path}: entry {i}: slot must be X or Y, not {entry.slot!r}")
        table.setdefault(_key(form), []).append(entry)
    return table


def _lookup(inner: str, language: str | None, table: dict[str, list[Entry]]) -> Entry | None:
    stripped = inner.strip()
    if stripped in ("X", "Y"):
        return Entry(stripped, "", frozenset())
    for entry in table.get(_key(inner), ()):
        if not entry.languages or (language is not None and language in entry.languages):
            return entry
    return None


def _square(match: re.Match[str]) -> bool:
    return match.group("open").strip() == "[" and match.group("close").strip() == "]"


def _resolve(
    match: re.Match[str], language: str | None, table: dict[str, list[Entry]]
) -> tuple[Entry, str, str] | None:
    """(entry, prefix, suffix) a placeholder spelling stands for, or None where it is just text:
    the spelling itself, or one with a suffix (`[X]:s`) or a word split off (`[X Kaiser]`)."""
    inner = match.group("inner")
    entry = _lookup(inner, language, table)
    if entry is not None and entry.rule == "translated" and not _square(match):
        entry = None  # a word like "(i)" in round brackets is too often just text
    if entry is not None:
        return entry, "", ""
    m = SUFFIX.match(inner.strip())
    split = SPLIT.match(inner.strip())
    prefix = suffix = ""
    if m is not None:
        entry = _lookup(m.group("ph"), language, table)
        suffix = ":" + m.group("suffix")
    elif split is not None:
        entry = _lookup(split.group("ph1") or split.group("ph2"), language, table)
        if split.group("after"):
            suffix = " " + split.group("after")
        else:
            prefix = split.group("before") + " "
    return None if entry is None else (entry, prefix, suffix)


def _rules(match: re.Match[str], entry: Entry, prefix: str, suffix: str) -> str:
    """The repair rules a replacement applied, comma-separated, in a fixed order."""
    inner = match.group("inner")
    rules = []
    if not _square(match):
        rules.append("bracket")
    if (
        match.group("open") != match.group("open").strip()
        or match.group("close") != match.group("close").strip()
        or inner != inner.strip()
    ):
        rules.append("spacing")
    if entry.rule:
        rules.append(entry.rule)
    if suffix.startswith(":"):
        rules.append("suffix")
    elif prefix or suffix:
        rules.append("split")
    return ",".join(rules)


def repair(
    text: str, language: str | None = None, table: dict[str, list[Entry]] | None = None
) -> tuple[str, list[Repair]]:
    """Return `text` with recognisable placeholder spellings replaced by `[X]`/`[Y]`."""
    lookup = load_table() if table is None else table
    repairs: list[Repair] = []

    def substitute(match: re.Match[str]) -> str:
        token = match.group(0)
        resolved = _resolve(match, language, lookup)
        if resolved is None:
            return token
        entry, prefix, suffix = resolved
        target = f"{prefix}[{entry.slot}]{suffix}"
        if token == target:
            return token
        repairs.append(Repair(token, target, _rules(match, entry, prefix, suffix)))
        return target

    return TOKEN.sub(substitute, text), repairs

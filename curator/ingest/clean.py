"""Cleaning and validation of a template (SPEC §2), shared by ingest and review."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from curator.core.text import control_reason
from curator.ingest.placeholders import Repair, repair

PLACEHOLDER = re.compile(r"(\[X\]|\[Y\])")
DROPPED = str.maketrans("", "", ".:。")
SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Checked:
    """The outcome of repairing, cleaning and validating one template text."""

    raw: str
    repaired: str
    repairs: list[Repair] = field(default_factory=list)
    cleaned: str | None = None  # None when invalid
    reason: str | None = None  # why it is invalid

    @property
    def valid(self) -> bool:
        return self.reason is None


def clean(text: str) -> str:
    """Lower-case all but the placeholders, drop '.', ':' and '。', collapse spaces."""
    parts = PLACEHOLDER.split(text)
    lowered = "".join(p if PLACEHOLDER.fullmatch(p) else p.lower() for p in parts)
    return SPACES.sub(" ", lowered.translate(DROPPED)).strip()


def slot_reason(text: str) -> str | None:
    """What is wrong with the slots: not exactly one [X] and one [Y] (None when they are right)."""
    for slot in ("[X]", "[Y]"):
        n = text.count(slot)
        if n == 0:
            return f"missing {slot}"
        if n > 1:
            return f"{slot} appears {n} times"
    return None


def invalid_reason(cleaned: str) -> str | None:
    """Why a cleaned template is unusable, or None when it is a valid template."""
    reason = slot_reason(cleaned)
    if reason:
        return reason
    rest = PLACEHOLDER.sub("", cleaned)
    if not any(not ch.isspace() and not unicodedata.category(ch).startswith(("P", "Z", "C")) for ch in rest):
        return "no text besides the placeholders"
    return None


def check(text: str, language: str | None = None, keep_invisible: bool = False) -> Checked:
    """Repair, clean, validate. A control/format character (core/text.py) makes the text invalid
    before anything else — cleaning would fold a tab into a space and keep U+202E as it is —
    unless `keep_invisible`: a published pattern (ParaRel, mLAMA) is data, kept as it is and
    judged by its slots and words alone (its invisible characters are counted, not refused)."""
    repaired, repairs = repair(text, language)
    cleaned = clean(repaired)
    reason = (None if keep_invisible else control_reason(text)) or invalid_reason(cleaned)
    return Checked(text, repaired, repairs, None if reason else cleaned, reason)

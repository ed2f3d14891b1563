"""Cleaning and validation of a template (SPEC §2), shared by ingest and review.

A template may be *annotated* (X-FACTR's gender/number alternatives and agreeing articles,
`curator.core.annotated`): where the caller says the text may hold annotations (a reviewer's
typed template, X-FACTR's prompts, `check(..., annotations=True)`), a bracketed token besides
[X]/[Y] is read by the parser: a supported one is kept whole by the cleaning (neither lower-cased
nor stripped of punctuation, as [X]/[Y] are), an unsupported or malformed one makes the text
invalid with the parser's one-line message (`Checked.annotation_error`). Machine translations and
published patterns are checked as before (`annotations=False`, the default): a stray bracket of MT
output is not refused by a rule meant for typed input.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from curator.core import annotated
from curator.core.text import control_reason
from curator.ingest.placeholders import Repair, repair

PLACEHOLDER = re.compile(r"(\[X\]|\[Y\])")
TOKEN = re.compile(r"(\[[^\[\]]*\])")  # any bracketed token: [X], [Y] and annotations
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
    annotation_error: bool = False  # the reason is the annotation parser's message

    @property
    def valid(self) -> bool:
        return self.reason is None


def clean(text: str, keep_tokens: bool = False) -> str:
    """Lower-case all but the placeholders, drop '.', ':' and '。', collapse spaces.
    `keep_tokens`: every bracketed token (an annotation checked by the parser) is kept whole too."""
    kept = TOKEN if keep_tokens else PLACEHOLDER
    parts = kept.split(text)
    return "".join(p if kept.fullmatch(p) else SPACES.sub(" ", p.lower().translate(DROPPED)) for p in parts).strip()


def annotation_problem(text: str, language: str | None) -> annotated.AnnotationError | None:
    """The parser's refusal (a catalogue message naming the token) when `text` holds an unsupported
    or malformed annotation; None when it holds none, or only supported ones."""
    if not annotated.is_annotated(text):
        return None
    try:
        annotated.check(text, language or "")
    except annotated.AnnotationError as exc:
        return exc
    return None


def annotation_reason(text: str, language: str | None) -> str | None:
    """`annotation_problem` as its one-line English message."""
    problem = annotation_problem(text, language)
    return None if problem is None else str(problem)


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


def check(text: str, language: str | None = None, keep_invisible: bool = False, annotations: bool = False) -> Checked:
    """Repair, clean, validate. A control/format character (core/text.py) makes the text invalid
    before anything else — cleaning would fold a tab into a space and keep U+202E as it is —
    unless `keep_invisible`: a published pattern (ParaRel, mLAMA) is data, kept as it is and
    judged by its slots and words alone (its invisible characters are counted, not refused).
    `annotations`: the text may be an annotated template (module docstring)."""
    repaired, repairs = repair(text, language)
    control = None if keep_invisible else control_reason(text)
    if annotations and not control and annotated.is_annotated(repaired):
        problem = annotation_reason(repaired, language)
        if problem:
            return Checked(text, repaired, repairs, None, problem, annotation_error=True)
        cleaned = clean(repaired, keep_tokens=True)
    else:
        cleaned = clean(repaired)
    reason = control or invalid_reason(cleaned)
    return Checked(text, repaired, repairs, None if reason else cleaned, reason)

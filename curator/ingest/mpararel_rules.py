"""The published mParaRel candidate procedure, step for step, for the `mpararel` rule profile.

Researchers compare with the published release before they trust an improvement, so this
module reproduces what the published pipeline did to one raw MT line, quirks included:

1. a line that already holds exactly one ``[X]`` and one ``[Y]`` is left alone; any other
   line gets the general bracket normalisation (``[ x ]``, ``[[Y]]`` → ``[X]``/``[Y]``), a bare
   ``X``/``Y`` letter promoted to a placeholder when the slot is missing, and the
   language-specific fixes of ``mpararel_fixes.json``;
2. validity is tested on that text before cleaning: exactly one ``[X]`` and one ``[Y]`` and
   not made only of placeholder characters, dots, commas and spaces;
3. cleaning lower-cases everything, restores ``[X]``/``[Y]``, drops ``.``, ``:`` and ``。``,
   collapses runs of plain spaces and removes one trailing space — it does not strip leading
   spaces or other whitespace — and, as the published cleanup step did, runs twice.

Invisible characters (U+200E LEFT-TO-RIGHT MARK, U+200B ZERO WIDTH SPACE, the bidi embeddings
U+202A–U+202C that m2m100 wraps 85 real Urdu lines in …) are kept as the published procedure
kept them: it never looked at them, so a line holding one is judged by its slots alone and
its cleaned form keeps them. (The `curator` profile marks such a line invalid: clean.py.)
They reach the review pages marked (core/text.py), where a reviewer can amend them away.

Everything broader (look-alike letters in every language, other transliterations, other
bracket shapes) is the `curator` profile's business (placeholders.py, clean.py).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import TypedDict

from curator.ingest.clean import Checked, slot_reason
from curator.ingest.placeholders import Repair

FIXES_PATH = Path(__file__).with_name("mpararel_fixes.json")

_BRACKETED = {slot: re.compile(rf"\[+ ?[{slot}{slot.lower()}] ?\]+") for slot in "XY"}
_DOUBLED = {slot: re.compile(rf"\[+{slot}\]+") for slot in "XY"}
_LOWER_SLOT = {slot: re.compile(rf"\[+ ?{slot.lower()} ?\]+") for slot in "XY"}
# The published validity test rejects a template made only of these characters (its regex
# is a character class holding backspace, brackets, X, Y, dot, comma and space).
_ONLY_SLOTS = re.compile(r"^[\x08\[\]XY., ]+$")  # "$" also before a final newline, as published
_DROPPED = re.compile(r"[.:。]")


class FixStep(TypedDict, total=False):
    """One step of a language's fixes in mpararel_fixes.json: a `find` → `replace` (once, or
    every occurrence with `all`), optionally only `if_present` / `if_absent`; or `step`: "normalise"."""

    step: str
    find: str
    replace: str
    all: bool
    if_present: str
    if_absent: str
    note: str


@lru_cache(maxsize=2)
def load_fixes(path: str = str(FIXES_PATH)) -> dict[str, list[FixStep]]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    fixes: dict[str, list[FixStep]] = data["languages"]
    for lang, steps in fixes.items():
        for i, step in enumerate(steps):
            if step.get("step") not in (None, "normalise") or (
                "step" not in step and not {"find", "replace"} <= set(step)
            ):
                raise ValueError(f"{path}: {lang} step {i} needs 'find' and 'replace' or 'step': 'normalise'")
    return fixes


def _normalise(text: str, repairs: list[Repair], rule: str) -> str:
    for slot, pattern in _BRACKETED.items():

        def sub(match: re.Match[str], slot: str = slot) -> str:
            target = f"[{slot}]"
            if match.group(0) != target:
                repairs.append(Repair(match.group(0), target, rule))
            return target

        text = pattern.sub(sub, text)
    return text


def fix(text: str, language: str | None) -> tuple[str, list[Repair]]:
    """The published fix for a line lacking exactly one [X] and one [Y] (with the repairs made)."""
    repairs: list[Repair] = []
    text = _normalise(text, repairs, "mpararel:bracket")
    for slot in "XY":
        if f"[{slot}]" not in text and slot in text:
            text = text.replace(slot, f"[{slot}]", 1)
            repairs.append(Repair(slot, f"[{slot}]", "mpararel:letter"))
    for step in load_fixes().get(language or "", ()):
        if step.get("step") == "normalise":
            text = _normalise(text, repairs, "mpararel:bracket")
            continue
        if "if_present" in step and step["if_present"] not in text:
            continue
        if "if_absent" in step and step["if_absent"] in text:
            continue
        if step["find"] in text:
            text = text.replace(step["find"], step["replace"], -1 if step.get("all") else 1)
            repairs.append(Repair(step["find"], step["replace"], f"mpararel:{language}"))
    for slot, pattern in _DOUBLED.items():
        text = pattern.sub(f"[{slot}]", text)
    return text, repairs


def invalid_reason(text: str) -> str | None:
    """The published validity test, with curator's wording for why a line fails it."""
    reason = slot_reason(text)
    if reason is None and _ONLY_SLOTS.match(text):
        reason = "no text besides the placeholders"
    return reason


def _clean_once(text: str) -> str:
    text = text.lower()
    for slot, pattern in _LOWER_SLOT.items():
        text = pattern.sub(f"[{slot}]", text)
    text = _DROPPED.sub("", text)
    text = re.sub(r" +", " ", text)
    return re.sub(r" $", "", text)  # "$" also before a final newline, as published


def clean(text: str) -> str:
    """The published cleaning: lower-case, restore the slots, drop . : 。, collapse spaces.

    The published cleanup step cleaned each line twice (its dedup called the cleaner on the
    same record again), which matters when dropping a dot creates a slot: "[x.]" → "[X]".
    """
    return _clean_once(_clean_once(text))


def check(raw: str, language: str | None = None) -> Checked:
    """One raw MT line through the published fix → validate → clean sequence."""
    repairs: list[Repair]
    if raw.count("[X]") == 1 and raw.count("[Y]") == 1:
        fixed, repairs = raw, []
    else:
        fixed, repairs = fix(raw, language)
    reason = invalid_reason(fixed)  # invisible characters are kept, as published (module docstring)
    return Checked(raw, fixed, repairs, None if reason else clean(fixed), reason)

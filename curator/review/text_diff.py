"""What a proposal changes, character by character (issue 37 §2), as Weblate and Pontoon show
it: `char_diff(old, new)` cuts the two texts into segments — equal, inserted, deleted — that the
proposal card of the review screen, the Proposals page and the Disagreements page mark with
<ins> and <del>, so a doubled letter ("orriginario") is not missed.

The unit is the grapheme cluster (what a reader sees as one character), never a code point: an
Arabic letter keeps its harakat and a letter its combining accents, so a changed diacritic shows
as its letter replaced, never as a mark floating alone. [X] and [Y] are one unit each. Every
character of both texts is kept: the equal and deleted segments joined give `old`, the equal and
inserted ones give `new`.

A character diff of two quite different texts is a scatter of single letters; as
diff-match-patch's semantic clean-up does, an equal run no longer than the changes on both sides
of it is folded into them, so a reworded phrase shows as one deletion and one insertion.
No Flask here: the pages render the segments (web/templates/_diff.html, static/review.js)."""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass
from typing import Final, Literal, TypedDict

EQUAL: Final = "equal"
INSERT: Final = "insert"
DELETE: Final = "delete"
PLACEHOLDER = re.compile(r"\[[XY]\]")

ZWJ = "\u200d"
REGIONAL = "".join(chr(c) for c in range(0x1F1E6, 0x1F200))  # the letters of flags, read in pairs
# Unicode's Prepend characters in use (Arabic number signs, Syriac abbreviation mark, …): they
# join the character after them
PREPEND = frozenset("\u0600\u0601\u0602\u0603\u0604\u0605\u06dd\u070f\u0890\u0891\u08e2\U000110bd\U000110cd")


class DiffSegment(TypedDict):
    op: Literal["equal", "insert", "delete"]
    text: str


def _extends(ch: str) -> bool:
    """`ch` belongs to the cluster before it: a combining mark (accents, harakat, viramas,
    spacing marks), a joiner, a variation selector, an emoji modifier or tag, a Hangul vowel or
    final jamo."""
    code = ord(ch)
    return (
        unicodedata.category(ch) in ("Mn", "Me", "Mc")
        or ch in (ZWJ, "\u200c")
        or 0x1F3FB <= code <= 0x1F3FF
        or 0xE0020 <= code <= 0xE007F
        or 0x1160 <= code <= 0x11FF
        or 0xD7B0 <= code <= 0xD7FB
    )


def _joins_next(cluster: str, ch: str) -> bool:
    """The cluster so far takes the next character `ch` too: after a Prepend character, a
    zero-width joiner or a virama and its marks (Indic conjuncts), a Hangul leading jamo before a jamo or a
    syllable, CR before LF, the second of a pair of regional indicators (a flag)."""
    last = cluster[-1]
    if last in PREPEND or last == ZWJ:
        return True
    # a virama, then only marks: the next consonant joins (Unicode's GB9c, taken broadly)
    if unicodedata.category(last).startswith("M") and any(unicodedata.combining(c) == 9 for c in cluster):
        return True
    if 0x1100 <= ord(last) <= 0x115F and (0x1100 <= ord(ch) <= 0x11FF or 0xAC00 <= ord(ch) <= 0xD7A3):
        return True
    if last == "\r" and ch == "\n":
        return True
    trailing = len(cluster) - len(cluster.rstrip(REGIONAL))  # regional indicators pair from the last run's start
    return ch in REGIONAL and trailing % 2 == 1


def graphemes(text: str) -> list[str]:
    """`text` in grapheme clusters (Unicode's extended clusters, slightly coarser where the
    rules are intricate: a cluster here never cuts one of Unicode's)."""
    clusters: list[str] = []
    for ch in text:
        if clusters and (_extends(ch) or _joins_next(clusters[-1], ch)):
            clusters[-1] += ch
        else:
            clusters.append(ch)
    return clusters


def units(text: str) -> list[str]:
    """The diff's units: grapheme clusters, those that make up an [X] or [Y] joined into one."""
    spans = [(m.start(), m.end()) for m in PLACEHOLDER.finditer(text)]
    out: list[str] = []
    at = 0
    for cluster in graphemes(text):
        inside = any(start < at < end for start, end in spans)  # this boundary cuts a placeholder
        if out and inside:
            out[-1] += cluster
        else:
            out.append(cluster)
        at += len(cluster)
    return out


@dataclass
class _Run:
    """An equal run (`old` is `new`) or a change (`old` deleted, `new` inserted), in units."""

    old: list[str]
    new: list[str]
    equal: bool


def _runs(old: list[str], new: list[str]) -> list[_Run]:
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    runs: list[_Run] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        equal = tag == "equal"
        if runs and not equal and not runs[-1].equal:
            runs[-1].old += old[i1:i2]
            runs[-1].new += new[j1:j2]
        else:
            runs.append(_Run(old[i1:i2], new[j1:j2], equal))
    return runs


def _fold_short_equals(runs: list[_Run]) -> list[_Run]:
    """Fold an equal run between two changes into them when it is no longer than the larger
    side of each (diff-match-patch's semantic clean-up); repeated until nothing folds."""
    k = 1
    while k < len(runs) - 1:
        before, run, after = runs[k - 1], runs[k], runs[k + 1]
        short = len(run.old) <= max(len(before.old), len(before.new)) and len(run.old) <= max(
            len(after.old), len(after.new)
        )
        if run.equal and not before.equal and not after.equal and short:
            runs[k - 1 : k + 2] = [_Run(before.old + run.old + after.old, before.new + run.new + after.new, False)]
            k = max(1, k - 1)
        else:
            k += 1
    return runs


def char_diff(old: str, new: str) -> list[DiffSegment]:
    """`old` → `new` as segments in reading order: equal, and for each change its deleted part
    then its inserted part; no segment is empty and no two neighbours have the same op."""
    segments: list[DiffSegment] = []
    for run in _fold_short_equals(_runs(units(old), units(new))):
        if run.equal:
            segments.append({"op": EQUAL, "text": "".join(run.old)})
            continue
        if run.old:
            segments.append({"op": DELETE, "text": "".join(run.old)})
        if run.new:
            segments.append({"op": INSERT, "text": "".join(run.new)})
    return segments

"""ParaRel's English article rule: a template is skipped for a tuple whose object does not fit
the article before `[Y]` ("a [Y]-born" with "Italy", "an [Y]" with "France").

What yanaiela/pararel's `encode_consistency_probe.py` does (`filter_a_an_vowel_mismatch`),
restated: the template is split on single spaces; the one word holding `[Y]` is found; when
the word before it is exactly `a` (lower case) and the object's label, lower-cased, begins
with one of a, e, i, o, u, or the word is exactly `an` and the label does not, the pair is
skipped. `[Y]` as the first word, "A [Y]" and "An [Y]" are never skipped; "y" and "h" count as
consonants ("a university" and "an hour" are both mismatches). ParaRel only has English
templates and has no language test; here the rule applies to English templates only, since
"a" before `[Y]` is a preposition in Spanish, Portuguese, Catalan or Italian ("se mudó a [Y]").

The metrics of the `pararel` convention read this one function (metrics.py); nothing else
decides which (template, tuple) pairs ParaRel's code skips.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

VOWELS = ("a", "e", "i", "o", "u")
LANGUAGES = ("en",)  # the languages whose templates the rule reads: "a"/"an" are English articles


def applies_to(language: str) -> bool:
    """Whether the article rule reads templates of this language (en, en-GB, en_US …)."""
    base = language.replace("_", "-").split("-")[0].lower()
    return base in LANGUAGES


def mismatch(template: str, object_label: str) -> bool:
    """Whether the article right before `[Y]` in `template` does not fit `object_label`.

    A template without exactly one space-separated word holding `[Y]` never mismatches (ParaRel's
    code asserts there is one; curator's templates always have one)."""
    words = template.split(" ")
    at = [i for i, word in enumerate(words) if "[Y]" in word]
    if len(at) != 1 or at[0] == 0:
        return False
    article = words[at[0] - 1]
    vowel = object_label.lower().startswith(VOWELS)
    return (article == "a" and vowel) or (article == "an" and not vowel)


def kept(language: str, templates: Sequence[str], object_labels: Sequence[str | None]) -> np.ndarray:
    """[T, D] bool: False where ParaRel's code skips template t for tuple d (its object's label
    does not fit the article before `[Y]`). All True outside English or where a label is unknown."""
    out = np.ones((len(templates), len(object_labels)), dtype=bool)
    if not applies_to(language):
        return out
    for t, template in enumerate(templates):
        words = template.split(" ")
        if "a" not in words and "an" not in words:  # the common case: nothing to check per tuple
            continue
        for d, label in enumerate(object_labels):
            if label is not None and mismatch(template, label):
                out[t, d] = False
    return out

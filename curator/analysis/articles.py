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


def article_before_y(template: str) -> str | None:
    """The article ("a" or "an") when that word, exactly, comes right before the one space-separated
    word holding `[Y]`; None otherwise, also without exactly one such word (ParaRel's code asserts
    there is one)."""
    words = template.split(" ")
    at = [i for i, word in enumerate(words) if "[Y]" in word]
    if len(at) != 1 or at[0] == 0 or words[at[0] - 1] not in ("a", "an"):
        return None
    return words[at[0] - 1]


def vowel_initial(label: str) -> bool:
    return label.lower().startswith(VOWELS)


def mismatch(template: str, object_label: str) -> bool:
    """Whether the article right before `[Y]` in `template` does not fit `object_label`."""
    article = article_before_y(template)
    return article is not None and (article == "a") == vowel_initial(object_label)


def kept(language: str, templates: Sequence[str], object_labels: Sequence[str | None]) -> np.ndarray:
    """[T, D] bool: False where ParaRel's code skips template t for tuple d (its object's label
    does not fit the article before `[Y]`, as `mismatch` says). All True outside English or where a
    label is unknown."""
    out = np.ones((len(templates), len(object_labels)), dtype=bool)
    if not applies_to(language):
        return out
    known = np.array([label is not None for label in object_labels], dtype=bool)
    vowel = np.array([label is not None and vowel_initial(label) for label in object_labels], dtype=bool)
    for t, template in enumerate(templates):
        article = article_before_y(template)
        if article is not None:  # the same test as mismatch(), for every tuple at once
            out[t] = ~known | (vowel != (article == "a"))
    return out

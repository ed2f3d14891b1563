"""Candidate rule profiles (SPEC §2): which procedure turns a raw MT line into a template.

A profile is chosen per `candidates build` and recorded with the candidates (coverage
params → version params → manifest and dataset card), so every release says how its
candidates were made. Two are registered:

- ``curator`` (default): the broader, data-driven repairs of placeholders.py and the
  cleaning of clean.py, stored per line at ingest; optionally case-preserving (votes on a
  case-folded key, the most frequent cased form is kept) for languages such as German.
- ``mpararel``: exactly the published procedure (mpararel_rules.py), so the published
  candidate sets can be reproduced and compared with.
"""

from __future__ import annotations

from dataclasses import dataclass

from curator.ingest import mpararel_rules
from curator.ingest.clean import DROPPED, PLACEHOLDER, SPACES, TOKEN, Checked
from curator.ingest.clean import check as curator_check


@dataclass(frozen=True)
class RuleProfile:
    name: str
    description: str
    # English templates: voted from the systems' `en` files like any language (False), or every
    # cleaned ParaRel pattern as the published pipeline did (True).
    english_from_pararel: bool = False
    # Only relations whose English ParaRel has at least this many patterns take part.
    min_english_patterns: int = 1
    # Add the imported mLAMA template of a relation when no candidate equals it (published).
    uses_mlama: bool = False
    # Add X-FACTR's imported native-speaker prompts as candidates of their own source (issue 39).
    uses_xfactr: bool = False

    def check(self, raw: str, language: str | None) -> Checked:
        return curator_check(raw, language)

    def clean_pattern(self, pattern: str, language: str) -> str:
        """A human-made pattern (ParaRel, mLAMA): cleaned, never voted on; published data, so
        its invisible characters are kept (core/text.py)."""
        return curator_check(pattern, language, keep_invisible=True).cleaned or pattern


@dataclass(frozen=True)
class MpararelProfile(RuleProfile):
    def check(self, raw: str, language: str | None) -> Checked:
        return mpararel_rules.check(raw, language)

    def clean_pattern(self, pattern: str, language: str) -> str:
        return mpararel_rules.clean(pattern)


PROFILES: dict[str, RuleProfile] = {
    "curator": RuleProfile(
        "curator",
        "curator's placeholder repair (bracket, spacing, case, look-alike, transliteration, translated "
        "and suffix variants in any script), then SPEC §2 cleaning and validation; candidates by agreement voting, "
        "and X-FACTR's native-speaker prompts when imported (`curator ingest xfactr`)",
        uses_xfactr=True,
    ),
    "mpararel": MpararelProfile(
        "mpararel",
        "the published mParaRel procedure exactly: its placeholder normalisation and per-language fixes "
        "for lines lacking one [X] and one [Y], its validity test, its cleaning; English = every cleaned ParaRel "
        "pattern; relations with at least 2 English patterns (the published 38); a relation's mLAMA template added "
        "when imported and no candidate equals it",
        english_from_pararel=True,
        min_english_patterns=2,
        uses_mlama=True,
    ),
}
DEFAULT = "curator"


def get_profile(name: str) -> RuleProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown rule profile {name!r} (known: {', '.join(PROFILES)})") from None


def clean_keep_case(text: str, keep_tokens: bool = False) -> str:
    """SPEC §2 cleaning without lower-casing: the display form of a case-preserving profile.
    `keep_tokens`: bracketed tokens (annotations the parser accepted) kept whole, as `clean` does."""
    if not keep_tokens:
        return SPACES.sub(" ", text.translate(DROPPED)).strip()
    parts = TOKEN.split(text)
    return "".join(p if TOKEN.fullmatch(p) else SPACES.sub(" ", p.translate(DROPPED)) for p in parts).strip()


def case_key(text: str) -> str:
    """The form votes are counted on when case is kept: lower-case except the placeholders."""
    return "".join(p if PLACEHOLDER.fullmatch(p) else p.lower() for p in PLACEHOLDER.split(text))


def check_keep_case(text: str, language: str | None, annotations: bool = False) -> Checked:
    """curator's repair and validation, with the case of the words kept (reviewers' amendments);
    `annotations`: the text may be an annotated template (clean.py)."""
    outcome = curator_check(text, language, annotations=annotations)
    if not outcome.valid:
        return outcome
    # Case never changes validity: the placeholders are matched in upper case either way.
    cleaned = clean_keep_case(outcome.repaired, keep_tokens=annotations)
    return Checked(outcome.raw, outcome.repaired, outcome.repairs, cleaned, None)

"""Dataset statistics (SPEC §4) of a release directory in mParaRel layout.

Computed from the exported files alone, so any published release can be summarised the same way.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from itertools import combinations, groupby
from typing import TypedDict

from rapidfuzz.distance import Levenshtein

from curator.core.formats.release import Release
from curator.core.text import InvisibleTally

__all__ = ["DatasetStats", "StatsSummary", "dataset_stats", "format_stats"]


class StatsSummary(TypedDict):
    """The SPEC §4 summary (`DatasetStats.to_dict`): a manifest's "statistics"."""

    languages: list[str]
    avg_relations: float
    avg_total_patterns: float
    min_patterns_in_relation: int
    max_patterns_in_relation: int
    avg_patterns_in_relation: float
    avg_string_distance: float
    phrases_per_language: dict[str, int]


@dataclass(frozen=True)
class DatasetStats:
    """SPEC §4 statistics over the languages of a release."""

    languages: list[str]
    avg_relations: float
    avg_total_patterns: float
    min_patterns_in_relation: int
    max_patterns_in_relation: int
    avg_patterns_in_relation: float
    avg_string_distance: float
    phrases_per_language: dict[str, int]
    # Per-language breakdown for format_stats; not part of the SPEC §4 summary nor of to_dict().
    relations_per_language: dict[str, int] = field(default_factory=dict)
    patterns_per_language: dict[str, int] = field(default_factory=dict)
    # Invisible characters per file (patterns and tuples), kept as they are: `curator stats`
    # reports them; not part of to_dict() (the manifest's statistics).
    invisible: InvisibleTally = field(default_factory=InvisibleTally)

    def to_dict(self) -> StatsSummary:
        return StatsSummary(
            languages=list(self.languages),
            avg_relations=self.avg_relations,
            avg_total_patterns=self.avg_total_patterns,
            min_patterns_in_relation=self.min_patterns_in_relation,
            max_patterns_in_relation=self.max_patterns_in_relation,
            avg_patterns_in_relation=self.avg_patterns_in_relation,
            avg_string_distance=self.avg_string_distance,
            phrases_per_language=dict(self.phrases_per_language),
        )


def _mean(values: list[float] | list[int]) -> float:
    return float(sum(values)) / len(values) if values else 0.0


def dataset_stats(root: str | os.PathLike[str], invisible: bool = True) -> DatasetStats:
    """Statistics of the release at `root` (which must contain `patterns/`; `tuples/` is optional).

    Read through the one release reader: a stray file, a malformed line or a pattern without a
    string "pattern" is a ReleaseError (a ValueError) naming file and line. Tuples are counted
    (non-blank lines); a relation without a tuples file has 0 phrases. With `invisible` every
    tuples file is also read to count its invisible characters (core/text.py) into
    `DatasetStats.invisible`, as the patterns' are: kept, reported, never refused."""
    release = Release(root)
    tally = InvisibleTally()

    languages: list[str] = []
    relations_per_lang: list[int] = []
    total_patterns_per_lang: list[int] = []
    per_relation_counts: list[int] = []
    lang_distances: list[float] = []
    phrases: dict[str, int] = {}
    relations_by_lang: dict[str, int] = {}
    patterns_by_lang: dict[str, int] = {}

    for lang, files in groupby(release.pattern_files(), key=lambda f: f.language):
        n_relations = 0
        n_patterns = 0
        n_phrases = 0
        dist_sum = 0
        n_pairs = 0
        for file in files:
            templates = [row.pattern for row in release.patterns(lang, file.relation, tally if invisible else None)]
            if not templates:
                continue
            n_relations += 1
            n_patterns += len(templates)
            per_relation_counts.append(len(templates))
            for a, b in combinations(templates, 2):
                dist_sum += Levenshtein.distance(a, b)
                n_pairs += 1
            n_phrases += len(templates) * release.count_tuples(lang, file.relation)
        if n_relations == 0:
            continue
        languages.append(lang)
        relations_per_lang.append(n_relations)
        total_patterns_per_lang.append(n_patterns)
        phrases[lang] = n_phrases
        relations_by_lang[lang] = n_relations
        patterns_by_lang[lang] = n_patterns
        if n_pairs:
            lang_distances.append(dist_sum / n_pairs)
    if invisible:
        for file in release.tuple_files():
            release.count_invisible(file.language, file.relation, tally)

    return DatasetStats(
        languages=languages,
        avg_relations=_mean(relations_per_lang),
        avg_total_patterns=_mean(total_patterns_per_lang),
        min_patterns_in_relation=min(per_relation_counts, default=0),
        max_patterns_in_relation=max(per_relation_counts, default=0),
        avg_patterns_in_relation=_mean(per_relation_counts),
        avg_string_distance=_mean(lang_distances),
        phrases_per_language=phrases,
        relations_per_language=relations_by_lang,
        patterns_per_language=patterns_by_lang,
        invisible=tally,
    )


def format_stats(stats: DatasetStats) -> str:
    """Plain-text report: summary numbers, then a per-language table."""
    summary = [
        ("languages", str(len(stats.languages))),
        ("avg #relations per language", f"{stats.avg_relations:.2f}"),
        ("avg total #patterns per language", f"{stats.avg_total_patterns:.2f}"),
        ("min #patterns in a relation", str(stats.min_patterns_in_relation)),
        ("max #patterns in a relation", str(stats.max_patterns_in_relation)),
        ("avg #patterns in a relation", f"{stats.avg_patterns_in_relation:.2f}"),
        ("avg string distance", f"{stats.avg_string_distance:.2f}"),
        ("total #phrases", str(sum(stats.phrases_per_language.values()))),
    ]
    key_w = max(len(k) for k, _ in summary)
    val_w = max(len(v) for _, v in summary)
    lines = [f"{k:<{key_w}}  {v:>{val_w}}" for k, v in summary]
    lines.append("")

    header = ("lang", "#relations", "#patterns", "#phrases")

    def _cell(mapping: dict[str, int], lang: str) -> str:
        return str(mapping[lang]) if lang in mapping else "-"

    body = [
        (
            lang,
            _cell(stats.relations_per_language, lang),
            _cell(stats.patterns_per_language, lang),
            _cell(stats.phrases_per_language, lang),
        )
        for lang in stats.languages
    ]
    widths = [max([len(header[i])] + [len(row[i]) for row in body]) for i in range(len(header))]

    def _fmt(row: tuple[str, ...]) -> str:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        return "  ".join(cells).rstrip()

    lines.append(_fmt(header))
    lines.append("  ".join("-" * w for w in widths))
    lines.extend(_fmt(row) for row in body)
    return "\n".join(lines) + "\n"

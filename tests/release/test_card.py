"""The dataset card (README.md of an export), written from release/templates/card.md.j2.

Exports through the CLI are covered by test_release_review.py and test_hf_export.py; here the
card itself: its YAML header is what the Hugging Face hub reads, and values from the stored
version (an imported release's review records included) cannot break a table row.
"""

from __future__ import annotations

import yaml

from curator.release.export import dataset_card, review_section

STATS = {
    "languages": ["es", "ar"],
    "avg_relations": 2.0,
    "avg_total_patterns": 7.5,
    "min_patterns_in_relation": 1,
    "max_patterns_in_relation": 6,
    "avg_patterns_in_relation": 3.75,
    "avg_string_distance": 4.25,
    "phrases_per_language": {"es": 10, "ar": 5},
}


def info(**extra) -> dict:
    return {
        "name": "v1",
        "kind": "curated",
        "created": "2026-01-01T00:00:00",
        "parent": None,
        "statistics": STATS,
        "rules": {"profile": "mpararel", "keep_case": False},
        **extra,
    }


def test_the_header_is_the_yaml_the_hub_reads():
    card = dataset_card(info(), hf=True)
    assert card.startswith("---\n")
    header, body = card[4:].split("\n---\n", 1)
    assert yaml.safe_load(header) == {
        "configs": [
            {"config_name": "patterns", "data_files": "hf/patterns.parquet"},
            {"config_name": "tuples", "data_files": "hf/tuples.parquet"},
        ]
    }
    assert body.startswith("\n# mParaRel-style dataset — version v1\n")
    assert not dataset_card(info(), hf=False).startswith("---")
    assert "| es | Spanish | 10 |" in card and card.endswith("under the dataset's licence.\n")


def test_table_cells_cannot_break_a_row():
    review = {
        "rejected_share_mean": 0.1,
        "rejected_share_sd": 0.0,
        "amended_share_mean": 0.2,
        "amended_share_sd": 0.0,
        "languages": [
            {
                "language": "es|x\n## injected",
                "reviewers": 1,
                "done": 3,
                "accepted_share": 1.0,
                "amended_share": 0.0,
                "rejected_share": 0.0,
                "suggestions": 0,
                "median_seconds": None,
                "agreement": None,
                "kappa": None,
            }
        ],
    }
    card = dataset_card(info(review=review, policy="majority"))
    assert "\n## injected" not in card
    row = next(line for line in card.splitlines() if line.startswith("| es\\|"))
    assert row == r"| es\|x ## injected | 1 | 3 | 100% | 0% | 0% | 0 | – | – | – |"
    assert review_section(review, "majority")[-1] == row  # `curator stats` prints the same section

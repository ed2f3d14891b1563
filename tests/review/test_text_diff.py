"""Issue 37 §2: the character diff a second look shows (review/text_diff.py). A hypothesis
property test against an independent reference — Unicode's grapheme clusters as the `regex`
module's \\X finds them and the placeholders as a plain search finds them: joining the equal and
deleted segments gives the old text, equal and inserted the new one, no segment boundary cuts a
grapheme cluster or an [X]/[Y], no empty segment, no two neighbours alike — plus the named cases
of the issue."""

from __future__ import annotations

import itertools
import re
import unicodedata

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from curator.review.text_diff import char_diff, graphemes

pytestmark = pytest.mark.backends("sqlite")

# letters, Spanish accents precomposed and combining, Arabic letters with harakat and shadda, the
# placeholders' own characters, spaces and punctuation, joiners, an emoji with a skin tone, a
# flag's regional indicators, an Arabic number sign (a Prepend character), Devanagari with virama
ALPHABET = list("abnoiruX Y[].,-ñé") + [
    "\u0301",
    "\u0303",
    *"بتولدنيف",
    "\u064e",
    "\u064f",
    "\u0650",
    "\u0651",
    "\u0652",
    "\u0640",
    "\u200d",
    "\u200c",
    "\U0001f44d",
    "\U0001f3fd",
    "\U0001f1ea",
    "\U0001f1f8",
    "\u0600",
    "\u0915",
    "\u094d",
    "\u0937",
    "\u093f",
]
PIECES = st.sampled_from(["[X]", "[Y]", *ALPHABET])
TEXT = st.lists(PIECES, max_size=14).map("".join)


def boundaries(segments: list[dict], side: str) -> set[int]:
    """The offsets in the old (side "old") or new text where one segment ends and the next begins."""
    skip = "insert" if side == "old" else "delete"
    cuts, at = set(), 0
    for segment in segments:
        if segment["op"] == skip:
            continue
        at += len(segment["text"])
        cuts.add(at)
    return cuts


def cluster_insides(text: str, placeholders: bool = True) -> set[int]:
    """Offsets strictly inside a grapheme cluster (Unicode's, by `regex`) or an [X]/[Y]."""
    inside = set()
    for m in [*regex.finditer(r"\X", text), *(re.finditer(r"\[[XY]\]", text) if placeholders else [])]:
        inside.update(range(m.start() + 1, m.end()))
    return inside


@settings(max_examples=400, deadline=None)
@given(old=TEXT, new=TEXT)
def test_segments_rebuild_both_texts_and_never_cut_a_character_or_placeholder(old, new):
    segments = char_diff(old, new)
    assert "".join(s["text"] for s in segments if s["op"] != "insert") == old
    assert "".join(s["text"] for s in segments if s["op"] != "delete") == new
    assert all(s["text"] and s["op"] in ("equal", "insert", "delete") for s in segments)
    assert all(a["op"] != b["op"] for a, b in itertools.pairwise(segments))
    assert not boundaries(segments, "old") & cluster_insides(old)
    assert not boundaries(segments, "new") & cluster_insides(new)
    if old == new:
        assert segments == ([{"op": "equal", "text": old}] if old else [])


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_graphemes_never_cut_unicodes_clusters(text):
    clusters = graphemes(text)
    assert "".join(clusters) == text
    cuts, at = set(), 0
    for cluster in clusters:
        at += len(cluster)
        cuts.add(at)
    assert not cuts & cluster_insides(text, placeholders=False)


def test_a_doubled_letter_is_one_deletion():
    assert char_diff("el lugar orriginario de [X] es [Y]", "el lugar originario de [X] es [Y]") == [
        {"op": "equal", "text": "el lugar o"},
        {"op": "delete", "text": "r"},
        {"op": "equal", "text": "riginario de [X] es [Y]"},
    ]
    assert char_diff("el idioma naativo de [X] es [Y]", "el idioma nativo de [X] es [Y]") == [
        {"op": "equal", "text": "el idioma n"},
        {"op": "delete", "text": "a"},
        {"op": "equal", "text": "ativo de [X] es [Y]"},
    ]


def test_an_arabic_diacritic_change_replaces_its_letter_whole():
    # وُلِد (wulid, was born) → وَلَد (walad, a boy): the harakat changed, the letters did not
    old, new = "[X] وُلِد في [Y]", "[X] وَلَد في [Y]"
    segments = char_diff(old, new)
    changed = [s for s in segments if s["op"] != "equal"]
    assert changed == [{"op": "delete", "text": "وُلِ"}, {"op": "insert", "text": "وَلَ"}]
    assert not any(unicodedata.category(s["text"][0]).startswith("M") for s in segments)  # no lone mark


def test_placeholders_stay_whole_and_a_reworded_phrase_is_one_change():
    assert char_diff("[X] nació en [Y]", "[Y] nació en [X]") == [
        {"op": "delete", "text": "[X]"},
        {"op": "insert", "text": "[Y]"},
        {"op": "equal", "text": " nació en "},
        {"op": "delete", "text": "[Y]"},
        {"op": "insert", "text": "[X]"},
    ]
    segments = char_diff("[X] vio la luz en [Y]", "[X] nació en [Y]")
    assert segments == [
        {"op": "equal", "text": "[X] "},
        {"op": "delete", "text": "vio la luz"},
        {"op": "insert", "text": "nació"},
        {"op": "equal", "text": " en [Y]"},
    ]


@pytest.mark.parametrize(
    "text",
    [
        "\u094d\u064e\u0915",  # a virama, a mark, then a consonant: one cluster (a conjunct)
        "\U0001f1ea\u200d\U0001f1ea\U0001f1ea",  # a joiner between flag letters does not pair them
        "\u0600[X]",  # a Prepend character before a placeholder
        "[X]\u0301",  # a mark after a placeholder
    ],
)
def test_clusters_found_by_the_property_tests(text):
    assert not boundaries(char_diff(text, ""), "old") & cluster_insides(text)
    assert "".join(graphemes(text)) == text

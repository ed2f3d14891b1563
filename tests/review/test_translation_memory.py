"""The translation memory (issue 37 §5): accepted templates of other relations whose English
pattern is like the template's, by rapidfuzz's ratio of folded patterns — checked against a
plain-Python reference (longest common subsequence, float64) written from the definition, on
generated text and on ParaRel's real English patterns; the review screen's panel shows the
percentage."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from curator.review import context
from tests.plugins.real_data import need_shared


def reference_fold(text: str) -> str:
    """Case and accents dropped: casefold, NFD, no combining marks or tatweel, NFC again."""
    decomposed = unicodedata.normalize("NFD", text.casefold())
    kept = "".join(c for c in decomposed if c != "\u0640" and not unicodedata.category(c).startswith("M"))
    return unicodedata.normalize("NFC", kept)


def lcs(a: str, b: str) -> int:
    """Length of the longest common subsequence (dynamic programming, one row at a time)."""
    row = [0] * (len(b) + 1)
    for ca in a:
        previous = 0  # row[j - 1] of the row before
        for j, cb in enumerate(b, start=1):
            kept = row[j]
            row[j] = previous + 1 if ca == cb else max(row[j], row[j - 1])
            previous = kept
    return row[-1]


def reference_words(text: str) -> str:
    """The words compared: folded, each [X]/[Y] and each character that is neither a letter, a
    digit, "_" nor a space made a space, then single spaces between words."""
    text = reference_fold(text)
    for placeholder in ("[x]", "[y]"):
        text = text.replace(placeholder, " ")
    kept = "".join(c if c.isalnum() or c == "_" or c.isspace() else " " for c in text)
    return " ".join(kept.split())


def reference_similarity(a: str, b: str) -> float:
    """Indel similarity in percent of the words: 100 · 2·LCS / (len a + len b), 100 for two
    empty texts."""
    a, b = reference_words(a), reference_words(b)
    if not a and not b:
        return 100.0
    return 100.0 * 2 * lcs(a, b) / (len(a) + len(b))


def reference_rank(mine, pool, limit, threshold):
    best = {}
    for entry in pool:
        score = reference_similarity(mine, entry[3])
        key = (entry[0], entry[1])
        if score >= threshold and (key not in best or score > best[key][1]):
            best[key] = (entry, score)
    return sorted(best.values(), key=lambda found: (-found[1], found[0][0], found[0][1]))[:limit]


def same_ranking(got, expected) -> None:
    assert [e for e, _ in got] == [e for e, _ in expected]
    for (_, score), (_, want) in zip(got, expected, strict=True):
        assert score == pytest.approx(want, abs=1e-9)


TEXT = st.text(alphabet="abcdeéÉxyz [XY].ñÑ", max_size=24)


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_similarity_is_the_indel_ratio_of_folded_text(a, b):
    assert context.similarity(a, b) == pytest.approx(reference_similarity(a, b), abs=1e-9)


ENTRY = st.tuples(
    st.sampled_from(["P19", "P20", "P36"]), st.sampled_from(["t1", "t2", "t3"]), st.just("accepted"), TEXT
)


@settings(max_examples=200, deadline=None)
@given(TEXT, st.lists(ENTRY, max_size=8), st.integers(1, 5), st.sampled_from([0.0, 50.0, 60.0, 90.0]))
def test_ranking_matches_the_reference(mine, pool, limit, threshold):
    same_ranking(context.rank_memory(mine, pool, limit, threshold), reference_rank(mine, pool, limit, threshold))


def test_named_cases():
    assert context.similarity("[X] was born in [Y].", "[X] WAS BORN IN [Y].") == 100
    assert context.similarity("", "") == 100 and context.similarity("abc", "") == 0
    assert context.similarity("café", "CAFE") == 100  # accents and case do not count
    # the "[X] … [Y]." frame every pattern shares does not count: unrelated relations stay apart,
    # rewordings of one stay together (with the frame, born/located were 71 %)
    assert context.similarity("[X] was born in [Y].", "[X] is located in [Y].") == pytest.approx(50.0)
    assert context.similarity("[X] is located in [Y].", "[X] is situated in [Y].") > context.MEMORY_THRESHOLD
    assert context.similarity("[X] was born in [Y].", "[Y] was born in [X]") == 100  # the words alone
    # a text is shown with every character as stored, even when folding matched it
    pool = [("P19", "[X] nació en [Y]", "accepted", "[X] WAS BORN IN [Y]."), ("P20", "x", "amended", "zzzz")]
    assert context.rank_memory("[X] was born in [Y].", pool) == [(pool[0], 100.0)]


def test_real_pararel_patterns_against_the_reference():
    """Every English pattern of ParaRel's relations, each of ten relations' first pattern as the
    query: the same matches, order and scores as the reference."""
    root = need_shared() / "pararel" / "patterns"
    pool = []
    for path in sorted(root.glob("*.jsonl")):
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            if line.strip():
                pattern = json.loads(line)["pattern"]
                pool.append((path.stem, f"{path.stem}#{k}", "accepted", pattern))
    assert len(pool) > 200
    queries = [entry for entry in pool if entry[1].endswith("#0")][:10]
    for relation, _, _, mine in queries:
        others = [entry for entry in pool if entry[0] != relation]
        same_ranking(
            context.rank_memory(mine, others), reference_rank(mine, others, context.MEMORY, context.MEMORY_THRESHOLD)
        )

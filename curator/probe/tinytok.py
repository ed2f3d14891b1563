"""Deterministic subword training for the tiny models' tokenizers.

The `tokenizers` trainers break ties between equally frequent pairs in hash-map order, and
Rust seeds its hash maps at random: two builds from one corpus gave different vocabularies.
Here the merges are learnt in plain Python with every tie broken by the symbols' text, so the
same corpus always gives the same vocabulary, byte for byte. The corpora are small (a
release's templates and labels), so a simple incremental BPE is fast enough.

Why this stays hand-written although the project prefers a library: the `tokenizers` trainers
(BpeTrainer, WordPieceTrainer, UnigramTrainer) are non-deterministic upstream — the same data
gives a different vocabulary from run to run and with the number of threads, and no seed or
option turns that off. The tiny models (probe/tiny.py) are test fixtures: the tests compare
token ids, scores and whole model folders across runs and machines, so their tokenizers must
come out identical every time. Only the training is done here; the result is loaded into the
`tokenizers` library's own models (BPE, WordPiece, Unigram), which do all the tokenizing.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenizers.normalizers import Normalizer
    from tokenizers.pre_tokenizers import PreTokenizer


def word_counts(lines: Iterable[str], normalizer: Normalizer | None, pre_tokenizer: PreTokenizer) -> dict[str, int]:
    """Pre-tokenized words and their counts, through the tokenizer's own normalizer and pre-tokenizer."""
    counts: Counter[str] = Counter()
    for line in lines:
        text = normalizer.normalize_str(line) if normalizer is not None else line
        counts.update(word for word, _ in pre_tokenizer.pre_tokenize_str(text))
    return dict(sorted(counts.items()))


def _merge_symbols(syms: list[str], left: str, right: str, merged: str) -> list[str]:
    """A word's symbols with every (left, right) in turn, left to right, made `merged`."""
    out, j = [], 0
    while j < len(syms):
        if j + 1 < len(syms) and syms[j] == left and syms[j + 1] == right:
            out.append(merged)
            j += 2
        else:
            out.append(syms[j])
            j += 1
    return out


class _PairCounts:
    """Each adjacent pair's count over the words and the words it occurs in, kept current as
    pairs are merged; a heap of (−count, pair) holds the next most frequent (stale entries skipped)."""

    def __init__(self, words: list[tuple[list[str], int]]) -> None:
        self.words = words
        self.pairs: Counter[tuple[str, str]] = Counter()
        self.where: dict[tuple[str, str], set[int]] = defaultdict(set)
        for i, (syms, n) in enumerate(words):
            for pair in pairwise(syms):
                self.pairs[pair] += n
                self.where[pair].add(i)
        self.heap = [(-n, pair) for pair, n in self.pairs.items()]
        heapq.heapify(self.heap)

    def most_frequent(self) -> tuple[str, str] | None:
        while self.heap:
            neg, pair = heapq.heappop(self.heap)
            if self.pairs.get(pair, 0) == -neg and neg != 0:
                return pair
            # else a stale entry: the count changed since it was pushed
        return None

    def merge(self, pair: tuple[str, str], merged: str) -> None:
        touched: set[tuple[str, str]] = set()
        for i in sorted(self.where.pop(pair)):
            syms, n = self.words[i]
            for old in pairwise(syms):
                self.pairs[old] -= n
                touched.add(old)
            out = _merge_symbols(syms, pair[0], pair[1], merged)
            self.words[i] = (out, n)
            for new in pairwise(out):
                self.pairs[new] += n
                self.where[new].add(i)
                touched.add(new)
        self.pairs.pop(pair, None)
        for other in sorted(touched):
            if self.pairs.get(other, 0) > 0:
                heapq.heappush(self.heap, (-self.pairs[other], other))


def learn_bpe(
    counts: dict[str, int], size: int, prefix: str = ""
) -> tuple[list[str], list[tuple[str, str]], dict[str, int]]:
    """(alphabet, merges in order, final symbol counts): merges until alphabet + merges reach `size`.

    `prefix` marks symbols that continue a word (WordPiece's "##"). The most frequent pair is
    merged first; among equally frequent pairs the smallest (left, right) text wins."""
    words = [([w[0]] + [prefix + ch for ch in w[1:]], n) for w, n in sorted(counts.items()) if w]
    alphabet = sorted({s for syms, _ in words for s in syms})
    counter = _PairCounts(words)
    learnt: list[tuple[str, str]] = []
    while len(alphabet) + len(learnt) < size:
        pair = counter.most_frequent()
        if pair is None:
            break
        left, right = pair
        learnt.append(pair)
        counter.merge(pair, left + (right[len(prefix) :] if prefix and right.startswith(prefix) else right))
    final: Counter[str] = Counter()
    for syms, n in words:
        for s in syms:
            final[s] += n
    return alphabet, learnt, dict(final)


def merged_tokens(merges: list[tuple[str, str]], prefix: str = "") -> list[str]:
    """The new symbol of each merge, in merge order, without repeats."""
    out = []
    for left, right in merges:
        out.append(left + (right[len(prefix) :] if prefix and right.startswith(prefix) else right))
    return list(dict.fromkeys(out))


def unigram_pieces(
    alphabet: list[str], merges: list[tuple[str, str]], final: dict[str, int]
) -> list[tuple[str, float]]:
    """SentencePiece-style (piece, log-probability) list, most probable first.

    A piece's probability is its share of the corpus segmented by the learnt merges (add-½
    smoothed, so pieces only used inside longer ones keep a finite score)."""
    pieces = list(dict.fromkeys(alphabet + merged_tokens(merges)))
    total = sum(final.get(p, 0) + 0.5 for p in pieces)
    scored = [(p, math.log((final.get(p, 0) + 0.5) / total)) for p in pieces]
    return sorted(scored, key=lambda item: (-item[1], item[0]))

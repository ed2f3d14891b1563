"""Pseudo-log-likelihood scoring for masked LMs (`--score-mode pll`; Salazar et al. 2020, X-CSR).

Each candidate is written into the template's text and the whole sentence tokenized with its
special tokens, as for every other mode. The sentence's PLL is the SUM over its tokens (every
position but the special tokens the tokenizer adds around a text) of log P(token | the sentence
with that one token masked): Salazar's definition, so a longer candidate adds more (negative)
terms and is penalised, as in X-CSR's ranking of assertions. A sum rather than a mean because
that is what the seeds rank by; a per-token mean would be a different score.

Cost: one row per (sentence, masked position), i.e. about L × C rows per phrase (L tokens, C
candidates) where log-prob needs one row per phrase and candidate length. So the rows of MANY
sentences share each forward pass: sentences are sorted by length (little padding), a batch
of sentences is expanded on the device into its masked variants (no Python work per row), the
encoder runs once per slice of variants within the token budget, and the LM head runs only at
the one masked position of each row (split head: a dot product for the token's logit and the
tiled normaliser of head.py; the [rows, V] logits exist only in the fallback for heads that
cannot be split). Log-probabilities are added into a [queries × candidates] tensor on the
device with index_add_; the one copy to the host is at the end of the relation.

`Options.pll_variant` "within-word-l2r" (Kauf & Ivanova, ACL 2023, "PLL-word-l2r"; minicons'
`within_word_l2r`): when a token is scored, the later tokens of its word are masked too (the
earlier ones stay visible), so a word split into pieces is not scored from its own other
pieces. Words are the tokenizer's word ids (fast tokenizers only: Scorer refuses a Python one);
a word of one piece, and the last piece of any word, are scored exactly as in the original.
The rows and passes are the same as the original's, so is the floor; the extra masks are set
on the device from each sentence's word-id row, with no Python work per row.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
import torch

from curator.core.enums import PllVariant
from curator.probe.data import RelationData
from curator.probe.scorers import flops
from curator.probe.scorers.base import PllScorer, ProbeError
from curator.probe.scorers.head import log_normaliser, rows_per_chunk

if TYPE_CHECKING:
    import numpy.typing as npt
    from transformers import PreTrainedTokenizerBase

# sentences tokenized at once: bounds the host memory of the token lists on big relations while
# leaving enough sentences of each length that the length-sorted batches are full
CHUNK_SENTENCES = 32_768


def special_edges(tok: PreTrainedTokenizerBase) -> tuple[int, int]:
    """How many special tokens the tokenizer adds before and after a text ([CLS] … [SEP]: 1, 1).

    Read from the tokenizer's own special-tokens mask, so only what it adds around a text is
    left out: a [UNK] made from the text is a token of the sentence and is scored."""
    mask = tok(["a b"], add_special_tokens=True, return_special_tokens_mask=True)["special_tokens_mask"][0]
    if 0 not in mask:
        return 0, 0
    head = mask.index(0)
    tail = len(mask) - 1 - max(i for i, m in enumerate(mask) if m == 0)
    return head, tail


def sentences(
    scorer: PllScorer, data: RelationData
) -> Iterator[tuple[int, list[list[int]], npt.NDArray[np.int64], list[list[int]] | None]]:
    """(first query, token id lists, their lengths, word id lists) per chunk of queries: every
    query × every candidate, sentence q * C + c of the relation, tokenized whole in one call per
    chunk. Word ids (-1 for the special tokens) only for within-word-l2r, else None."""
    queries = scorer.queries(data)
    labels = [label for _, label in data.candidates]
    mask_text = scorer.tok.mask_token
    for text in labels + [part for query in queries for part in query]:
        if mask_text in text:
            raise ProbeError(
                f"{data.language} {data.relation}: {text!r} contains the mask token {mask_text!r}; "
                "pll masks each token itself"
            )
    step = max(1, CHUNK_SENTENCES // max(1, len(labels)))
    for q0 in range(0, len(queries), step):
        chunk = queries[q0 : q0 + step]
        texts = [before + label + after for before, after in chunk for label in labels]
        words: list[list[int]] | None = None
        if scorer.options.pll_variant == PllVariant.WITHIN_WORD_L2R:
            rows, word_ids = scorer.tokenize_words(texts)
            words = [[-1 if w is None else w for w in row] for row in word_ids]
        else:
            rows = scorer.tokenize(texts)
        lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        if scorer.max_positions is not None and len(lengths) and lengths.max() > scorer.max_positions:
            i = int(np.argmax(lengths > scorer.max_positions))
            scorer.check_fits(data, [int(lengths[i])], [q0 + i // len(labels)], candidate=labels[i % len(labels)])
        yield q0, rows, lengths, words


def floor_flops(scorer: PllScorer, data: RelationData) -> float:
    """Per sentence of L tokens with k scored tokens: k × (layers × layer(L, L) + 2H² head
    transform + head(1)): one encoder pass per masked variant, the vocabulary at one position
    (both variants: within-word-l2r masks more tokens of the same rows)."""
    s = flops.shape(scorer.model.config)
    head, tail = special_edges(scorer.tok)
    total = 0.0
    for _, _, lengths, _ in sentences(scorer, data):
        for length, count in zip(*np.unique(lengths, return_counts=True)):
            length, k = int(length), max(0, int(length) - head - tail)
            total += (
                count
                * k
                * (s["layers"] * flops.layer(s, length, length) + 2 * s["hidden"] ** 2 + flops.head(s, 1, True))
            )
    return total


@torch.inference_mode()
def score(scorer: PllScorer, data: RelationData) -> np.ndarray:
    """[queries, candidates] PLLs of the filled sentences (see the module's docstring)."""
    n_cands = len(data.candidates)
    n_queries = len(data.templates) * len(data.subjects)
    # float64: a sum of a few dozen log-probabilities sits near 100, where float32's spacing is 8e-6
    out = torch.zeros(n_queries * n_cands, dtype=torch.float64, device=scorer.device)
    head, tail = special_edges(scorer.tok)
    mask_id = scorer.tok.mask_token_id
    for q0, rows, lengths, words in sentences(scorer, data):
        first = q0 * n_cands
        cost = lambda b, length: b * max(1, length - head - tail) * length  # noqa: E731  (rows × width)
        for batch in scorer.batches(lengths.tolist(), cost):
            lens = lengths[batch]
            width = int(lens.max())
            ids, attn = scorer.pad([rows[i] for i in batch], scorer.pad_id)  # [B, W] on the device
            # within-word-l2r: each sentence's word ids ([B, W], -1 for special tokens and padding)
            word = None if words is None else scorer.pad([words[i] for i in batch], -1)[0]
            # the masked variants: (sentence of the batch, position), sentence-major, on the host
            pos = np.arange(width)
            keep = (pos >= head) & (pos < (lens - tail)[:, None])
            which, where = np.nonzero(keep)
            sentence_of = np.asarray(batch, dtype=np.int64)[which] + first
            per_pass = max(1, scorer.budget // width)  # a long sentence's variants may span passes
            if scorer.head is None:  # the model's own [rows, width, V] logits: within LOGITS_CAP
                per_pass = min(per_pass, rows_per_chunk(scorer.vocab, width))
            for r0 in range(0, len(which), per_pass):
                r1 = min(len(which), r0 + per_pass)
                full = int(lens[which[r0:r1]].min()) == width  # no padding in this slice: no mask needed
                out.index_add_(
                    0,
                    scorer.to_device(sentence_of[r0:r1]),
                    _variants(scorer, ids, None if full else attn, which[r0:r1], where[r0:r1], mask_id, word).double(),
                )
    scores = out.view(n_queries, n_cands).cpu().numpy()
    # a label that tokenizes to nothing leaves the template alone, whose PLL has the fewest terms:
    # it is no candidate at all (-inf, as log-prob mode scores it)
    empty = [c for c, ids in enumerate(scorer.encode([label for _, label in data.candidates])) if not ids]
    scores[:, empty] = -np.inf
    return scores


def _variants(
    scorer: PllScorer,
    ids: torch.Tensor,
    attn: torch.Tensor | None,
    which: np.ndarray,
    where: np.ndarray,
    mask_id: int,
    words: torch.Tensor | None = None,
) -> torch.Tensor:
    """log P(token at `where` | its sentence `which` with that token masked), one row each; with
    `words` (each sentence's word ids) the later tokens of the token's word are masked as well."""
    rows = scorer.to_device(which)
    at = scorer.to_device(where)
    arange = torch.arange(len(which), device=scorer.device)
    x = ids[rows]  # [R, W]: the sentences, one copy per variant
    targets = x[arange, at].clone()
    x[arange, at] = mask_id
    if words is not None:  # within-word-l2r: the rest of the target's word, built on the device
        word = words[rows]  # [R, W]
        own = word[arange, at]
        later = torch.arange(x.shape[1], device=x.device) > at[:, None]
        x.masked_fill_(later & (word == own[:, None]) & (own >= 0)[:, None], mask_id)
    mask = attn[rows] if attn is not None else None
    if scorer.head is None:  # no separable head: the whole model's logits, then the masked positions
        logits: torch.Tensor = scorer.model(input_ids=x, attention_mask=mask).logits[arange, at].float()
        return logits.gather(1, targets[:, None])[:, 0] - logits.logsumexp(-1)
    hidden = scorer.hidden_states(x, mask)[arange, at]  # [R, H]
    if scorer.split is None:  # a head we cannot take apart: full logits at the masked positions, a few rows at a time
        head, step, out = scorer.head, rows_per_chunk(scorer.vocab), []
        for r in range(0, len(hidden), step):
            logits = head(hidden[r : r + step]).float()
            out.append(logits.gather(1, targets[r : r + step, None])[:, 0] - logits.logsumexp(-1))
        return torch.cat(out)
    transform, decoder = scorer.split
    hidden = transform(hidden)
    weight, bias = decoder.weight, decoder.bias
    # the target logit in float32 even for bf16 weights (R × H: cheap), so a sum of ~15 terms
    # does not carry bf16's rounding of each
    picked = (hidden.float() * weight[targets].float()).sum(-1)
    if bias is not None:
        picked = picked + bias[targets].float()
    return picked - log_normaliser(hidden, weight, bias, scorer.tile_bytes)

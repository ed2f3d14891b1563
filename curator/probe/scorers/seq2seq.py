"""Encoder-decoder LMs (T5 style): the query has one sentinel where [Y] was; a candidate's score
is (1/n) Σ log P(cᵢ | sentinel, c<ᵢ, query).

The sentinel is written into the text and the query tokenized whole, so the spacing around it
is the tokenizer's own (e.g. whether "." after the slot is "▁." depends on its prepend scheme);
candidates are tokenized as words of running text ("▁Paris"), as T5's span targets are.

Speed (docs/probe.md, "Why it is fast"): every candidate's decoder input starts with the same
[start, sentinel], so per batch of queries the encoder and that two-token decoder prefix run
once. The prefix's output at the sentinel is the distribution of every candidate's first token
(one normaliser per query), and its cache holds the cross-attention keys/values, projected once
per query. Only candidates of n ≥ 2 tokens need decoder rows: c1 … c(n-1) for each (query,
candidate), batched across the batch's queries, each row's cache gathered from its query's
prefix cache. The head is applied only at scored positions (head.py)."""

from __future__ import annotations

import copy
import math
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import torch
from transformers.cache_utils import EncoderDecoderCache
from transformers.modeling_outputs import BaseModelOutput

from curator.probe.data import RelationData
from curator.probe.scorers import flops
from curator.probe.scorers.base import Options, ProbeError, Scorer
from curator.probe.scorers.head import OutputHead
from curator.probe.scorers.registry import register

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase
    from transformers.cache_utils import Cache

    # buffers reused from chunk to chunk, by (layer, "keys" or "values")
    Buffers = dict[tuple[int, str], torch.Tensor]


class Seq2SeqOutput(Protocol):
    """What the scorer reads of the model's output (`Seq2SeqLMOutput`, whose fields transformers
    types as optional: these two are set when logits are computed and use_cache is on)."""

    @property
    def logits(self) -> torch.Tensor: ...

    @property
    def past_key_values(self) -> EncoderDecoderCache: ...


@register(
    "seq2seq",
    auto_class="AutoModelForSeq2SeqLM",
    mapping="MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES",
    described="an encoder-decoder",
    precedence=1,
    encoder_decoder=True,
)
class Seq2SeqScorer(Scorer):
    def __init__(
        self, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, device: torch.device, options: Options
    ) -> None:
        super().__init__(model, tokenizer, device, options)
        sentinel = self.tok.convert_tokens_to_ids("<extra_id_0>")  # one token in, one id (or None) out
        if not isinstance(sentinel, int) or sentinel == self.tok.unk_token_id:
            raise ProbeError("this encoder-decoder model's tokenizer has no <extra_id_0> sentinel token")
        self.sentinel = sentinel
        sentinel_text = self.tok.convert_ids_to_tokens(sentinel)
        if not isinstance(sentinel_text, str):  # one id in, one token out
            raise ProbeError(f"this encoder-decoder model's tokenizer gives {sentinel_text!r} for its <extra_id_0> id")
        self.sentinel_text = sentinel_text
        self.start = self.model.config.decoder_start_token_id
        if self.start is None:
            self.start = self.pad_id
        # on CPU a vocabulary tile of 2 MB per thread stays in that core's cache between the
        # product and the exp-sum over it (8 MB on one thread: ~8% slower here); GPU: head.py's
        tile = (2 << 20) * torch.get_num_threads() if self.device.type == "cpu" else None
        self.head = OutputHead(self.model, tile_bytes=tile)
        tiny = torch.tensor([[self.sentinel, self.pad_id]], device=self.device)
        prefix = torch.tensor([[self.start, self.sentinel]], device=self.device)
        # with an unverified head (one that does more than the projection) scores come from full logits
        self.split = self.head.verify(lambda: self.model(input_ids=tiny, decoder_input_ids=prefix).logits)

    def score_relation(self, data: RelationData) -> np.ndarray:
        return self.with_oom_retry(lambda: self._score(data))

    def candidates(self, data: RelationData) -> list[list[int]]:
        return [ids or [self.tok.unk_token_id] for ids in self.encode([label for _, label in data.candidates])]

    def query_rows(self, data: RelationData) -> list[list[int]]:
        texts = [before + self.sentinel_text + after for before, after in self.queries(data)]
        rows = self.tokenize(texts)
        self.check_fits(data, [len(r) for r in rows])  # a no-op for T5 (relative positions)
        self.slot_positions(texts, rows, self.sentinel, 1)  # only to refuse a query without exactly one sentinel
        return rows

    def floor_flops(self, data: RelationData) -> float:
        """Per query of L tokens: the encoder, the cross-attention keys/values, the [start,
        sentinel] prefix and the head at the sentinel; per (query, candidate) of n tokens: n - 1
        decoder tokens and the head at them (docs/probe.md)."""
        s = flops.shape(self.model.config)
        log_prob = self.options.score_mode == "log-prob"
        dec = s["decoder_layers"]
        tail = [n - 1 for n in map(len, self.candidates(data)) if n > 1]
        total = 0.0
        for L in map(len, self.query_rows(data)):
            total += (
                s["layers"] * flops.layer(s, L, L)
                + dec * 2 * L * 2 * s["hidden"] * s["inner"]
                + dec * flops.layer(s, 2, 2, cross=L)
                + flops.head(s, 1, log_prob)
            )
            total += sum(dec * flops.layer(s, m, m + 2, cross=L) + flops.head(s, m, log_prob) for m in tail)
        return total

    def scored(self, out: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """[N, H] features (or [N, V] logits, unverified head), [N] token ids -> [N] scores."""
        log_prob = self.options.score_mode == "log-prob"
        if self.split:
            return self.head.score(out, targets, log_prob)
        logits = out.float()
        picked = logits.gather(1, targets[:, None])[:, 0]
        return picked - logits.logsumexp(-1) if log_prob else picked

    def decode(self, **kwargs: Any) -> Seq2SeqOutput:  # kwargs: keyword arguments of the model's forward
        """The model's output: features where the head is split (its projection bypassed), else logits."""
        out: Seq2SeqOutput
        if not self.split:
            out = self.model(**kwargs)
            return out
        with self.head.bypassed():
            out = self.model(**kwargs)
            return out

    @torch.inference_mode()
    def _score(self, data: RelationData) -> np.ndarray:
        cands = self.candidates(data)
        rows = self.query_rows(data)
        Q, C = len(rows), len(cands)
        lengths = np.array([len(c) for c in cands])
        ids = np.full((C, lengths.max() + 1), self.pad_id, dtype=np.int64)  # one spare column: slices stay in range
        for c, row in enumerate(cands):
            ids[c, : len(row)] = row
        first = self.to_device(ids[:, 0].copy())
        multi = np.flatnonzero(lengths > 1)  # the candidates that need decoder rows
        total = torch.zeros((Q, C), dtype=torch.float32, device=self.device)  # Σ of token scores, on the device
        start = torch.tensor([[self.start, self.sentinel]], device=self.device)
        for batch in self.batches([len(r) for r in rows], lambda b, length: b * length):
            qs = np.array(batch, dtype=np.int64)
            q_ids, attn = self.pad([rows[q] for q in batch], self.pad_id)
            attn = self.additive(attn)
            hidden = self.model.get_encoder()(input_ids=q_ids, attention_mask=attn).last_hidden_state
            # the shared prefix [start, sentinel]: its sentinel output scores every first token
            out = self.decode(
                encoder_outputs=BaseModelOutput(last_hidden_state=hidden),
                attention_mask=attn,
                decoder_input_ids=start.expand(len(batch), 2),
                use_cache=True,
            )
            total.index_copy_(0, self.to_device(qs), self.first_scores(out.logits[:, 1], first))
            if len(multi):
                q_len = np.array([len(rows[q]) for q in batch])
                self.decode_rows(out.past_key_values, hidden, attn, qs, q_len, multi, lengths, ids, total)
        return (total / self.to_device(lengths.astype(np.float32))).cpu().numpy()

    def additive(self, attn: torch.Tensor) -> torch.Tensor:
        """The [B, L] padding mask as the [B, 1, 1, L] additive mask the attention adds to its
        scores. Given a 2D mask, transformers asks whether it has any padding at all (`.all()`),
        a host sync on a GPU in every forward pass; a 4D mask is taken as it is."""
        dtype = next(self.model.parameters()).dtype
        return (1.0 - attn[:, None, None, :].to(dtype)) * torch.finfo(dtype).min

    def first_scores(self, out: torch.Tensor, first: torch.Tensor) -> torch.Tensor:
        """[B, H] features (or [B, V] logits) at the sentinel, [C] first tokens -> [B, C] scores:
        one product with the C output embeddings and one normaliser per query."""
        log_prob = self.options.score_mode == "log-prob"
        if not self.split:
            logits = out.float()
            picked = logits[:, first]
            return picked - logits.logsumexp(-1, keepdim=True) if log_prob else picked
        picked = out @ self.head.weight[first].T
        if self.head.bias is not None:
            picked = picked + self.head.bias[first]
        picked = picked.float()
        return picked - self.head.log_normaliser(out)[:, None] if log_prob else picked

    def chunks(self, width: np.ndarray, length: np.ndarray) -> list[tuple[int, int]]:
        """[lo, hi) ranges of rows, each costing rows × (widest + longest query) within the budget:
        self-attention and feed-forward scale with the width, the gathered cross-attention
        keys/values and scores with the encoder length. Vectorized: a batch can have 10⁵ rows."""
        out, lo = [], 0
        while lo < len(width):
            cap = max(1, self.budget // (width[lo] + length[lo]))  # no chunk from lo holds more rows
            cost = np.arange(1, cap + 1)[: len(width) - lo] * (
                np.maximum.accumulate(width[lo : lo + cap]) + np.maximum.accumulate(length[lo : lo + cap])
            )
            hi = lo + max(1, int(np.searchsorted(cost > self.budget, True)))
            out.append((lo, hi))
            lo = hi
        return out

    def decode_rows(
        self,
        cache: EncoderDecoderCache,
        hidden: torch.Tensor,
        attn: torch.Tensor,
        qs: np.ndarray,
        q_len: np.ndarray,
        multi: np.ndarray,
        lengths: np.ndarray,
        ids: np.ndarray,
        total: torch.Tensor,
    ) -> None:
        """Score c2 … cn of every (query of the batch, candidate in `multi`) row.

        Rows run by candidate width, then query (the batch is sorted by length), so a chunk's
        rows are of similar width and its queries of similar length: its cross-attention
        keys/values are cut to its longest query (right padding: the rest is masked for all of
        them) before they are gathered from the prefix cache, with the self-attention over
        [start, sentinel] (so T5's relative positions of a row start at 2)."""
        B, C = len(qs), total.shape[1]
        w_of = lengths[multi] - 1  # decoder tokens of each candidate's row
        groups = [multi[w_of == w] for w in np.unique(w_of)]
        cs = np.concatenate([np.tile(g, B) for g in groups])
        js = np.concatenate([np.repeat(np.arange(B), len(g)) for g in groups])
        width, length = lengths[cs] - 1, q_len[js]
        flat_total = total.view(-1)
        buffers: tuple[Buffers, Buffers] = ({}, {})
        for lo, hi in self.chunks(width, length):
            c, j, w, L, k = cs[lo:hi], js[lo:hi], width[lo:hi].max(), length[lo:hi].max(), hi - lo
            sel = self.to_device(j)
            chunk = EncoderDecoderCache(
                gathered(cache.self_attention_cache, sel, None, buffers[0]),
                gathered(cache.cross_attention_cache, sel, L, buffers[1]),
            )
            # the encoder output only lends its shape (masks): every layer's cross keys/values are cached
            stand_in = hidden[:1, :1].expand(k, L, hidden.shape[2])
            out = self.decode(
                encoder_outputs=BaseModelOutput(last_hidden_state=stand_in),
                attention_mask=attn[..., :L].index_select(0, sel),
                decoder_input_ids=self.to_device(ids[c, :w]),
                past_key_values=chunk,
                use_cache=True,
            ).logits
            # row i scores its positions t < n_i - 1 (token t + 2 of its candidate); padding is never scored
            where = np.flatnonzero(np.arange(w)[None] < width[lo:hi, None])
            at = self.to_device(where)
            picked = self.scored(
                out.reshape(k * w, -1).index_select(0, at), self.to_device(ids[c, 1 : w + 1].reshape(-1)[where])
            )
            sums = torch.zeros(k * w, device=total.device).index_copy_(0, at, picked).view(k, w).sum(1)
            # each (query, candidate) once: a deterministic gather-add-scatter, no atomics
            flat = self.to_device(qs[j] * C + c)
            flat_total.index_copy_(0, flat, flat_total.index_select(0, flat) + sums)


def gathered(cache: Cache, rows: torch.Tensor, length: int | None, buffers: Buffers) -> Cache:
    """The cache's rows `rows` (with repeats), positions cut to `length`, the prefix cache left
    as it is: its layers shallow-copied, each tensor index_selected into a buffer reused from
    chunk to chunk (as beam search reorders a cache, without a fresh tensor each time: on CPU
    the page faults of fresh ones cost ~10% of the whole run)."""
    out = copy.copy(cache)
    out.layers = []
    for i, layer in enumerate(cache.layers):
        layer = copy.copy(layer)
        for name in ("keys", "values"):
            source = getattr(layer, name)[:, :, :length]
            shape = (len(rows), *source.shape[1:])
            buffer = buffers.get((i, name))
            if buffer is None or buffer.numel() < math.prod(shape):
                buffer = buffers[(i, name)] = source.new_empty(math.prod(shape))
            setattr(layer, name, torch.index_select(source, 0, rows, out=buffer[: math.prod(shape)].view(shape)))
        out.layers.append(layer)
    return out

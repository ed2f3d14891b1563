"""Decoder-only LMs: a candidate's score is the mean log-probability of the tokens of the
filled sentence, tokenized whole (a byte-level BPE may merge a candidate with the letters
glued to it, as Korean particles are, so the pieces are never encoded apart).

BOS: a sentence starts with the tokenizer's BOS, added by the tokenizer itself (Llama) or, where
the tokenizer adds none but has one (GPT-2's <|endoftext|>, the separator it was trained with),
put in front, so that every token of the sentence has a probability. Without any BOS the first
token only conditions the rest.

Speed: the token prefix shared by all candidates' sentences of a query (usually the text before
[Y]) runs once, batched with the prefixes of the other queries of the same prefix length (no
padding), and its key/value cache serves every candidate. The rest of each sentence (its
suffix) is a (query, candidate) row; rows of many queries, sorted by suffix length, run in
chunks within the token budget on a cache gathered from the prefix pass. The output projection
runs only where a token is scored (OutputHead: target logit minus a tiled log-normaliser), the
distribution after the prefix once per query for all its candidates, and the scores stay on
the device until the relation is done (no host sync in the loop)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import torch

from curator.probe.data import RelationData
from curator.probe.scorers import flops
from curator.probe.scorers.base import Options, Scorer
from curator.probe.scorers.head import LOGITS_CAP, OutputHead
from curator.probe.scorers.registry import register

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase
    from transformers.cache_utils import Cache

# (query, the token prefix its candidates' sentences share, each candidate's suffix)
Split = tuple[int, list[int], list[list[int]]]


class LMOutput(Protocol):
    """What the scorer reads of a causal LM's output (`CausalLMOutputWithPast`, whose fields
    transformers types as optional: these two are set when logits are computed and use_cache is on)."""

    @property
    def logits(self) -> torch.Tensor: ...

    @property
    def past_key_values(self) -> Cache: ...


BLOCK_ROWS = 1 << 15  # sentences tokenized and held at once: enough rows to fill chunks, memory flat


@register(
    "causal",
    auto_class="AutoModelForCausalLM",
    mapping="MODEL_FOR_CAUSAL_LM_MAPPING_NAMES",
    described="a decoder-only",
    precedence=2,
)
class CausalScorer(Scorer):
    def __init__(
        self, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, device: torch.device, options: Options
    ) -> None:
        super().__init__(model, tokenizer, device, options)
        self.bos = self.tok.bos_token_id
        self.vocab = self.model.get_output_embeddings().weight.shape[0]  # type: ignore[no-untyped-call]  # unannotated in transformers
        head = OutputHead(self.model)
        probe = torch.tensor([[self.bos or 0, 1, 2]], device=self.device)
        # None: the model's head does more than the projection (soft-capping...): full logits
        self.head = head if head.verify(lambda: self.model(input_ids=probe).logits) else None

    def score_relation(self, data: RelationData) -> np.ndarray:
        return self.with_oom_retry(lambda: self._score(data))

    def sentences(self, texts: list[str]) -> list[list[int]]:
        rows = self.tokenize(texts)
        if self.bos is None:
            return rows
        return [row if row[:1] == [self.bos] else [self.bos] + row for row in rows]

    def split(
        self, data: RelationData, queries: list[tuple[str, str]], labels: list[str], which: Iterable[int]
    ) -> Iterator[Split]:
        """(query, shared prefix, every candidate's suffix) per query; checks the position limit."""
        which, C = list(which), len(labels)
        sentences = self.sentences([queries[q][0] + label + queries[q][1] for q in which for label in labels])
        for i, q in enumerate(which):
            rows = sentences[i * C : (i + 1) * C]
            if self.max_positions is not None:
                longest = max(range(C), key=lambda c: len(rows[c]))
                self.check_fits(data, [len(rows[longest])], [q], labels[longest])
            shared = shared_prefix(rows)
            yield q, rows[0][:shared], [r[shared:] for r in rows]

    def floor_flops(self, data: RelationData) -> float:
        """Per query the prefix (Lp tokens, Lp positions predicting a token: the prefix's own
        and the candidates' first), per row the m suffix tokens against Lp + m positions with
        m − 1 predictions of its own (docs/probe.md)."""
        s, log_prob = flops.shape(self.model.config), self.options.score_mode == "log-prob"
        queries, labels = self.queries(data), [label for _, label in data.candidates]
        total = 0.0
        for _, prefix, rows in self.split(data, queries, labels, range(len(queries))):
            lp = len(prefix)
            total += s["layers"] * flops.layer(s, lp, lp) + flops.head(s, lp, log_prob)
            for m in map(len, rows):
                total += s["layers"] * flops.layer(s, m, lp + m) + flops.head(s, max(0, m - 1), log_prob)
        return total

    @torch.inference_mode()
    def _score(self, data: RelationData) -> np.ndarray:
        queries, labels = self.queries(data), [label for _, label in data.candidates]
        Q, C = len(queries), len(labels)
        scores = torch.empty(Q * C, dtype=torch.float32, device=self.device)  # row q*C + c
        per_block = max(1, BLOCK_ROWS // C)
        for q0 in range(0, Q, per_block):
            by_length: dict[int, list[Split]] = defaultdict(list)
            for item in self.split(data, queries, labels, range(q0, min(Q, q0 + per_block))):
                by_length[len(item[1])].append(item)
            for lp, group in sorted(by_length.items()):
                step = max(1, self.budget // max(1, lp))
                if self.head is None:
                    step = max(1, min(step, LOGITS_CAP // (max(1, lp) * self.vocab)))
                for g0 in range(0, len(group), step):
                    self._run(group[g0 : g0 + step], lp, C, scores)
        return scores.view(Q, C).cpu().numpy()

    def _run(self, group: list[Split], lp: int, C: int, scores: torch.Tensor) -> None:
        """One pass over the prefixes (all lp tokens long) of `group`'s queries, then all their
        (query, candidate) rows in chunks; writes the rows' scores into `scores`."""
        log_prob = self.options.score_mode == "log-prob"
        if lp:
            prefix = self.to_device(np.array([p for _, p, _ in group], dtype=np.int64))  # [n, lp]
            out = self.forward(input_ids=prefix, use_cache=True)
            feats, cache = out.logits, out.past_key_values
            n, width = len(group), feats.shape[-1]
            norm = (
                self.norm(feats.reshape(n * lp, width)).view(n, lp)
                if log_prob
                else torch.zeros((n, lp), dtype=torch.float32, device=feats.device)
            )
            own = self.logit(feats[:, :-1].reshape(n * (lp - 1), width), prefix[:, 1:].reshape(-1)).view(n, lp - 1)
            # per query: its prefix tokens' log-probs, less the normaliser its candidates' first tokens share
            base, last = (own - norm[:, :-1]).sum(1) - norm[:, -1], feats[:, -1]
        rows = [(j, q * C + c, suffix) for j, (q, _, suffixes) in enumerate(group) for c, suffix in enumerate(suffixes)]

        def cost(k: int, m: int) -> int:
            if self.head is None and k * m * self.vocab > LOGITS_CAP:
                return self.budget + 1
            return k * (lp + m)  # the gathered prefix cache counts: it is memory and attention work

        for chunk in self.batches([len(r[2]) for r in rows], cost):
            ids, attn = self.pad([rows[i][2] for i in chunk], self.pad_id)
            k, m = ids.shape
            lengths = np.array([len(rows[i][2]) for i in chunk], dtype=np.int64)
            r, t = np.nonzero(np.arange(m - 1)[None, :] < (lengths - 1)[:, None])  # position t predicts t + 1
            at = r * m + t
            index = self.to_device(
                np.concatenate(
                    [
                        [rows[i][0] for i in chunk],
                        [rows[i][1] for i in chunk],
                        lengths + (lp - 1 if lp else -1),
                        r,
                        at,
                        at + 1,
                    ]
                ).astype(np.int64)
            )
            query, flat, count = index[:k], index[k : 2 * k], index[2 * k : 3 * k]
            row, at, target = index[3 * k :].view(3, len(r))
            if lp:
                past = _select_cache(cache, query)
                out = self.forward(
                    input_ids=ids,
                    past_key_values=past,
                    use_cache=True,
                    attention_mask=torch.cat([attn.new_ones((k, lp)), attn], 1),
                )
            else:
                out = self.forward(input_ids=ids, attention_mask=attn)
            f = out.logits.reshape(k * m, -1).index_select(0, at)
            picked = self.logit(f, ids.view(-1).index_select(0, target))
            if log_prob:
                picked = picked - self.norm(f)
            total = torch.zeros(k, dtype=torch.float32, device=ids.device).index_add_(0, row, picked)
            if lp:  # the candidate's first token, predicted by its query's last prefix position
                total += base.index_select(0, query) + self.logit(last.index_select(0, query), ids[:, 0])
            scores.index_copy_(0, flat, total / count.clamp(min=1))

    def forward(self, **inputs: Any) -> LMOutput:  # inputs: keyword arguments of the model's forward
        """The model's output; its .logits are the head's input features where the head is bypassed."""
        out: LMOutput
        if self.head is None:
            out = self.model(**inputs)
            return out
        with self.head.bypassed():
            out = self.model(**inputs)
            return out

    def logit(self, features: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """[N, H] features (or [N, V] logits) and [N] token ids -> [N] float32 logits."""
        if self.head is None:
            return features.float().gather(1, targets[:, None])[:, 0]
        return self.head.target_logits(features, targets)

    def norm(self, features: torch.Tensor) -> torch.Tensor:
        """[N, H] features (or [N, V] logits) -> [N] log Σ_v exp(logit_v), float32."""
        if self.head is None:
            return features.float().logsumexp(-1)
        return self.head.log_normaliser(features)


def shared_prefix(rows: list[list[int]]) -> int:
    """Length of the token prefix common to all rows, leaving each row at least one token."""
    limit = min(len(r) for r in rows) - 1
    first = rows[0]
    n = 0
    while n < limit and all(r[n] == first[n] for r in rows):
        n += 1
    return n


def _select_cache(
    cache: Cache | tuple[tuple[torch.Tensor, ...], ...], index: torch.Tensor
) -> Cache | tuple[tuple[torch.Tensor, ...], ...]:
    """A fresh key/value cache of the prefix rows `index` (one per candidate row; a row's
    suffix is appended to its own copy, so the prefix cache serves every chunk)."""
    from transformers import DynamicCache

    if isinstance(cache, tuple):
        return tuple(tuple(t.index_select(0, index) for t in layer) for layer in cache)
    legacy = (
        [(layer.keys, layer.values) for layer in cache.layers]  # type: ignore[union-attr]  # attention layers: keys and values
        if hasattr(cache, "layers")
        else cache.to_legacy_cache()  # type: ignore[attr-defined]  # older transformers' caches (no .layers)
    )
    out = DynamicCache()
    for i, (key, value) in enumerate(legacy):
        out.update(key.index_select(0, index), value.index_select(0, index), i)
    return out

"""Decoder-only LMs: a candidate's score is the mean log-probability of the tokens of the
filled sentence, tokenized whole (a byte-level BPE may merge a candidate with the letters
glued to it, as Korean particles are, so the pieces are never encoded apart).

BOS: a sentence starts with the tokenizer's BOS, added by the tokenizer itself (Llama) or, where
the tokenizer adds none but has one (GPT-2's <|endoftext|>, the separator it was trained with),
put in front, so that every token of the sentence has a probability. Without any BOS the first
token only conditions the rest.

Speed: the token prefix shared by all candidates' sentences (usually the text before [Y]) runs
once per query and its key/value cache serves every candidate; the rest of each sentence is
scored in candidate batches."""
from __future__ import annotations

import numpy as np
import torch

from curator.probe.data import RelationData
from curator.probe.scorers.base import Scorer


class CausalScorer(Scorer):
    kind = "causal"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.bos = self.tok.bos_token_id

    def score_relation(self, data: RelationData) -> np.ndarray:
        return self.with_oom_retry(lambda: self._score(data))

    def sentences(self, texts: list[str]) -> list[list[int]]:
        rows = self.tokenize(texts)
        if self.bos is None:
            return rows
        return [row if row[:1] == [self.bos] else [self.bos] + row for row in rows]

    @torch.inference_mode()
    def _score(self, data: RelationData) -> np.ndarray:
        queries = self.queries(data)
        labels = [label for _, label in data.candidates]
        C = len(labels)
        scores = np.empty((len(queries), C), dtype=np.float32)
        vocab = self.model.get_output_embeddings().weight.shape[0]
        for q, (before, after) in enumerate(queries):
            sentences = self.sentences([before + label + after for label in labels])
            if self.max_positions is not None:
                longest = max(range(C), key=lambda c: len(sentences[c]))
                self.check_fits(data, [len(sentences[longest])], [q], labels[longest])
            shared = shared_prefix(sentences)
            prefix = sentences[0][:shared]
            rows = [s[shared:] for s in sentences]
            width = max(len(r) for r in rows)
            per_chunk = max(1, min(self.budget // max(1, width), (64 << 20) // (width * vocab) or 1))
            prefix_ids = torch.tensor([prefix], device=self.device)
            past = self.model(input_ids=prefix_ids, use_cache=True) if prefix else None
            for start in range(0, C, per_chunk):
                stop = min(C, start + per_chunk)
                ids, attn = self.pad(rows[start:stop], self.pad_id)
                k = stop - start
                if past is not None:
                    cache = _expand_cache(past.past_key_values, k)
                    full_attn = torch.cat([torch.ones((k, len(prefix)), dtype=attn.dtype, device=self.device), attn], 1)
                    out = self.model(input_ids=ids, attention_mask=full_attn, past_key_values=cache, use_cache=True)
                    # position t's token is predicted by the prefix's last logits (t=0) or the row's t-1 logits
                    logits = torch.cat([past.logits[:, -1:].expand(k, -1, -1), out.logits[:, :-1]], 1).float()
                else:
                    out = self.model(input_ids=ids, attention_mask=attn)
                    logits = out.logits[:, :-1].float()
                    ids, attn = ids[:, 1:], attn[:, 1:]
                if self.options.score_mode == "log-prob":
                    logits = logits.log_softmax(-1)
                picked = logits.gather(2, ids[..., None])[..., 0]  # [k, width]
                # the prefix tokens' own log-probs are shared by every candidate but count in the mean
                total = (picked.float() * attn).sum(-1) + (_prefix_sum(past, prefix_ids, self.options.score_mode)
                                                          if past is not None else 0.0)
                count = attn.sum(-1) + (len(prefix) - 1 if past is not None else 0)
                scores[q, start:stop] = (total / count.clamp(min=1)).cpu().numpy()
        return scores


def shared_prefix(rows: list[list[int]]) -> int:
    """Length of the token prefix common to all rows, leaving each row at least one token."""
    limit = min(len(r) for r in rows) - 1
    first = rows[0]
    n = 0
    while n < limit and all(r[n] == first[n] for r in rows):
        n += 1
    return n


def _prefix_sum(past, prefix_ids: torch.Tensor, score_mode: str) -> torch.Tensor:
    if prefix_ids.shape[1] < 2:
        return torch.zeros((), device=prefix_ids.device)
    logits = past.logits[0, :-1].float()
    if score_mode == "log-prob":
        logits = logits.log_softmax(-1)
    return logits.gather(1, prefix_ids[0, 1:, None]).sum()


def _expand_cache(cache, k: int):
    """The prefix's key/value cache repeated for k candidates (a fresh copy per chunk)."""
    from transformers import DynamicCache

    if isinstance(cache, tuple):
        return tuple(tuple(t.expand(k, *t.shape[1:]).contiguous() for t in layer) for layer in cache)
    legacy = [(layer.keys, layer.values) for layer in cache.layers] if hasattr(cache, "layers") else cache.to_legacy_cache()
    out = DynamicCache()
    for i, (key, value) in enumerate(legacy):
        out.update(key.expand(k, *key.shape[1:]).contiguous(), value.expand(k, *value.shape[1:]).contiguous(), i)
    return out

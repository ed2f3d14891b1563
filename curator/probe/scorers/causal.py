"""Decoder-only LMs: a candidate's score is the mean log-probability of the tokens of the
filled sentence. The prefix before [Y] is encoded once per query and its key/value cache
serves every candidate; candidates and the rest of the sentence are scored as one batch."""
from __future__ import annotations

import numpy as np
import torch

from ..data import RelationData
from .base import Scorer


class CausalScorer(Scorer):
    kind = "causal"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        bos = self.tok.bos_token_id
        self.bos = [bos] if bos is not None else []  # with a BOS every sentence token has a probability

    def score_relation(self, data: RelationData) -> np.ndarray:
        return self.with_oom_retry(lambda: self._score(data))

    def sentence(self, before: list[int], cand: list[int], after: list[int]) -> list[int]:
        return self.bos + before + cand + after

    def pieces(self, data: RelationData):
        queries = self.queries(data)
        befores_text = [b.rstrip() for b, _ in queries]
        spaced = [b != b.rstrip() or not b for b, _ in queries]
        befores = self.encode(befores_text)
        afters = self.encode([a for _, a in queries])
        labels = [label for _, label in data.candidates]
        with_space, bare = self.encode([" " + label for label in labels]), self.encode(labels)
        return queries, befores, afters, spaced, with_space, bare

    @torch.inference_mode()
    def _score(self, data: RelationData) -> np.ndarray:
        queries, befores, afters, spaced, with_space, bare = self.pieces(data)
        C = len(data.candidates)
        scores = np.empty((len(queries), C), dtype=np.float32)
        vocab = self.model.get_output_embeddings().weight.shape[0]
        for q in range(len(queries)):
            cands = with_space if spaced[q] and befores[q] else bare
            prefix = self.bos + befores[q]
            if not prefix:  # nothing to condition on: the first token has no probability
                prefix = cands[0][:0]
            rows = [cands[c] + afters[q] for c in range(C)]
            width = max(len(r) for r in rows)
            per_chunk = max(1, min(self.options.batch_tokens // max(1, width), (64 << 20) // (width * vocab) or 1))
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

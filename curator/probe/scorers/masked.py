"""Masked LMs: one forward pass per (template, tuple, number of masks) scores every candidate
of that token length; the LM head runs only at the mask positions."""
from __future__ import annotations

from collections import defaultdict

import numpy as np
import torch

from ..data import RelationData
from .base import ProbeError, Scorer


class MaskedScorer(Scorer):
    kind = "masked"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.tok.mask_token_id is None:
            raise ProbeError("this masked language model's tokenizer has no mask token")
        self.head = next((getattr(self.model, n) for n in ("cls", "lm_head", "generator_lm_head")
                          if hasattr(self.model, n)), None)

    def hidden_to_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.head(hidden)

    def score_relation(self, data: RelationData) -> np.ndarray:
        return self.with_oom_retry(lambda: self._score(data))

    @torch.inference_mode()
    def _score(self, data: RelationData) -> np.ndarray:
        queries = self.queries(data)
        cand_ids = self.encode([label for _, label in data.candidates])
        scores = np.full((len(queries), len(cand_ids)), -np.inf, dtype=np.float32)
        by_length: dict[int, list[int]] = defaultdict(list)
        for c, ids in enumerate(cand_ids):
            if ids:
                by_length[len(ids)].append(c)
        befores = self.encode([b for b, _ in queries])
        afters = self.encode([a for _, a in queries])
        mask = self.tok.mask_token_id
        for n, members in sorted(by_length.items()):
            targets = torch.tensor([cand_ids[c] for c in members], device=self.device).T  # [n, Cn]
            rows = [self.head_ids + befores[q] + [mask] * n + afters[q] + self.tail_ids for q in range(len(queries))]
            starts = [len(self.head_ids) + len(befores[q]) for q in range(len(queries))]
            for batch in self.batches([len(r) for r in rows], lambda b, length: b * length):
                ids, attn = self.pad([rows[q] for q in batch], self.pad_id)
                positions = torch.tensor([starts[q] for q in batch], device=self.device)[:, None] + \
                    torch.arange(n, device=self.device)[None, :]  # [B, n]
                if self.head is not None:
                    hidden = self.model.base_model(input_ids=ids, attention_mask=attn)[0]
                    at_masks = hidden[torch.arange(len(batch), device=self.device)[:, None], positions]
                    logits = self.hidden_to_logits(at_masks).float()  # [B, n, V]
                else:  # no separable head: full logits, then pick the mask positions
                    full = self.model(input_ids=ids, attention_mask=attn).logits
                    logits = full[torch.arange(len(batch), device=self.device)[:, None], positions].float()
                if self.options.score_mode == "log-prob":
                    logits = logits.log_softmax(-1)
                picked = logits.gather(2, targets[None].expand(len(batch), -1, -1))  # [B, n, Cn]
                scores[np.ix_(batch, members)] = picked.mean(1).cpu().numpy()
        return scores

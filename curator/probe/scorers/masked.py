"""Masked LMs: one forward pass per (template, tuple, number of masks) scores every candidate
of that token length; the LM head runs only at the mask positions. Each query is the template
with the masks written into its text and tokenized whole, like the published mParaRel code and
the fill-mask pipeline, so the model sees what its tokenizer makes of running text."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np
import torch

from curator.core.enums import ScoreMode
from curator.probe.data import RelationData
from curator.probe.scorers import flops, pll
from curator.probe.scorers.base import Options, ProbeError, Scorer, SplitHead
from curator.probe.scorers.head import OutputHead, log_normaliser, rows_per_chunk
from curator.probe.scorers.registry import register

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


@register(
    "masked",
    auto_class="AutoModelForMaskedLM",
    mapping="MODEL_FOR_MASKED_LM_MAPPING_NAMES",
    described="a masked",
    precedence=0,
    pll=True,
)
class MaskedScorer(Scorer):
    def __init__(
        self, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, device: torch.device, options: Options
    ) -> None:
        super().__init__(model, tokenizer, device, options)
        if self.tok.mask_token_id is None:
            raise ProbeError("this masked language model's tokenizer has no mask token")
        # BERT's `cls`, RoBERTa's and XLM-R's `lm_head`: the head module over the encoder's states
        self.head: torch.nn.Module | None = next(
            (getattr(self.model, n) for n in ("cls", "lm_head") if hasattr(self.model, n)), None
        )
        self.split = self.split_head()
        # a head that is neither `cls` nor `lm_head` (XLM's pred_layer, DistilBERT's vocab_projector,
        # ELECTRA's generator_lm_head): the model runs with its output projection bypassed, so its
        # "logits" are the projection's input and only the scored positions are projected
        self.bypass: OutputHead | None = None
        if self.head is None:
            bypass = OutputHead(self.model)
            probe = torch.tensor([[self.tok.mask_token_id, 1, 2]], device=self.device)
            if bypass.verify(lambda: self.model(input_ids=probe).logits):
                assert bypass.decoder is not None  # verified, so there is one
                self.bypass, self.head = bypass, bypass.decoder  # hidden_states -> logits, like a head
                self.split = (torch.nn.Identity(), bypass.decoder)
        self.vocab = int(self.split[1].weight.shape[0]) if self.split is not None else int(self.model.config.vocab_size)
        self.tile_bytes = (8 << 20) if self.device.type == "cpu" else (256 << 20)  # logits per vocabulary tile

    def hidden_states(self, ids: torch.Tensor, attn: torch.Tensor | None) -> torch.Tensor:
        """[B, W, H]: what the head (with a split head: its transform) takes at every position."""
        if self.bypass is not None:
            with self.bypass.bypassed():
                features: torch.Tensor = self.model(input_ids=ids, attention_mask=attn).logits
                return features
        hidden: torch.Tensor = self.model.base_model(input_ids=ids, attention_mask=attn)[0]
        return hidden

    def pick(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """[rows, n, V] logits -> [rows, n, Cn] candidate scores (the fallback for heads we cannot split)."""
        logits = logits.float()
        picked = logits.gather(2, targets[None].expand(len(logits), -1, -1))
        if self.options.score_mode == "log-prob":
            picked = picked - logits.logsumexp(-1, keepdim=True)
        return picked

    def split_head(self) -> SplitHead | None:
        """(transform, decoder) of the LM head, checked against the head itself, or None.

        With them apart a candidate's logit is one dot product with its token's output embedding,
        and the [rows, V] logits are never held at once: the log-softmax normaliser is
        accumulated over vocabulary tiles in one reused buffer (a whole batch's logits would be
        hundreds of MB, fresh pages on every allocation on CPU and a memory peak on GPU)."""
        head = self.head
        if head is None:
            return None
        decoder = self.model.get_output_embeddings()  # type: ignore[no-untyped-call]  # unannotated in transformers
        if not isinstance(decoder, torch.nn.Linear):
            return None
        owner = next(
            ((m, name) for m in head.modules() for name, child in m.named_children() if child is decoder), None
        )
        if owner is None:
            return None
        parent, name = owner
        identity = torch.nn.Identity()

        def transform(hidden: torch.Tensor) -> torch.Tensor:
            setattr(parent, name, identity)
            try:
                out: torch.Tensor = head(hidden)
                return out
            finally:
                setattr(parent, name, decoder)

        with torch.inference_mode():
            weight = decoder.weight
            x = torch.randn(3, weight.shape[1], device=weight.device, dtype=weight.dtype)
            whole, apart = head(x).float(), decoder(transform(x)).float()
        if whole.shape != apart.shape or not torch.allclose(whole, apart, rtol=1e-3, atol=1e-3):
            return None
        return transform, decoder

    def head_scores(self, at_masks: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """[B, n, H] hidden states at the masks, [n, Cn] candidate tokens -> [B, n, Cn] scores."""
        if self.split is None:  # full logits, a few rows at a time (LOGITS_CAP): never [B, n, V] at once
            head = self.head
            assert head is not None  # head_scores is asked only of a model with a head
            step = rows_per_chunk(self.vocab, at_masks.shape[1])
            return torch.cat([self.pick(head(at_masks[r : r + step]), targets) for r in range(0, len(at_masks), step)])
        transform, decoder = self.split
        hidden = transform(at_masks)  # [B, n, H]
        weight, bias = decoder.weight, decoder.bias
        picked = torch.bmm(hidden.transpose(0, 1), weight[targets].transpose(1, 2)).transpose(0, 1)  # [B, n, Cn]
        if bias is not None:
            picked = picked + bias[targets]
        picked = picked.float()
        if self.options.score_mode == "log-prob":
            B, n, H = hidden.shape
            picked = picked - self.log_normaliser(hidden.reshape(B * n, H), weight, bias).view(B, n, 1)
        return picked

    def batch_cost(self, rows: int, length: int) -> int:
        """Tokens of a batch; over the budget where the model's own [rows, length, V] logits
        (no separable head) would pass LOGITS_CAP."""
        if self.head is None and rows > rows_per_chunk(self.vocab, length):
            return self.budget + 1
        return rows * length

    def log_normaliser(self, hidden: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
        """log Σ_v exp(logit_v) per row, over vocabulary tiles computed into one reused buffer."""
        return log_normaliser(hidden, weight, bias, self.tile_bytes)

    def score_relation(self, data: RelationData) -> np.ndarray:
        if self.options.score_mode == ScoreMode.PLL:  # whole sentences, one pass per token (pll.py)
            return self.with_oom_retry(lambda: pll.score(self, data))
        return self.with_oom_retry(lambda: self._score(data))

    def mask_slot(self, n: int) -> str:
        """n mask tokens joined by spaces, as the published code writes them into the template
        (with XLM-R's <mask>, which swallows the space before it, they come out adjacent)."""
        return " ".join([self.tok.mask_token] * n)

    def floor_flops(self, data: RelationData) -> float:
        """Per query and candidate token count n: the encoder over the query with n masks, the
        head transform at the n masks and the output projection there (docs/probe.md)."""
        if self.options.score_mode == ScoreMode.PLL:
            return pll.floor_flops(self, data)
        s = flops.shape(self.model.config)
        lengths = {len(ids) for ids in self.encode([label for _, label in data.candidates]) if ids}
        total = 0.0
        for n in lengths:
            for row in self.tokenize([before + self.mask_slot(n) + after for before, after in self.queries(data)]):
                total += (
                    s["layers"] * flops.layer(s, len(row), len(row))
                    + 2 * n * s["hidden"] ** 2
                    + flops.head(s, n, self.options.score_mode == "log-prob")
                )
        return total

    @torch.inference_mode()
    def _score(self, data: RelationData) -> np.ndarray:
        queries = self.queries(data)
        cand_ids = self.encode([label for _, label in data.candidates])
        # on the device until the relation is done: no host sync inside the batch loop on a GPU
        scores = torch.full((len(queries), len(cand_ids)), float("-inf"), device=self.device)
        by_length: dict[int, list[int]] = defaultdict(list)
        for c, tokens in enumerate(cand_ids):
            if tokens:
                by_length[len(tokens)].append(c)
        for n, members in sorted(by_length.items()):
            targets = self.to_device(np.array([cand_ids[c] for c in members], dtype=np.int64).T)  # [n, Cn]
            columns = self.to_device(np.array(members, dtype=np.int64))
            texts = [before + self.mask_slot(n) + after for before, after in queries]
            rows = self.tokenize(texts)
            self.check_fits(data, [len(r) for r in rows])
            where = self.slot_positions(texts, rows, self.tok.mask_token_id, n)
            for batch in self.batches([len(r) for r in rows], self.batch_cost):
                ids, attn = self.pad([rows[q] for q in batch], self.pad_id)
                positions = self.to_device(np.array([where[q] for q in batch], dtype=np.int64))  # [B, n]
                arange = torch.arange(len(batch), device=self.device)[:, None]
                if self.head is not None:
                    hidden = self.hidden_states(ids, attn)
                    picked = self.head_scores(hidden[arange, positions], targets)  # [B, n, Cn]
                else:  # no separable head: full logits, then pick the mask positions
                    full = self.model(input_ids=ids, attention_mask=attn).logits
                    picked = self.pick(full[arange, positions], targets)
                scores[self.to_device(np.array(batch, dtype=np.int64))[:, None], columns] = picked.mean(1)
        return scores.cpu().numpy()

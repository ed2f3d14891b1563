"""The output projection of a language model taken apart, shared by every scorer kind.

A candidate's score needs, per scored position, one logit (its token's) and, in log-prob mode,
the normaliser log Σᵥ exp(logitᵥ) over the vocabulary. With the head's last Linear (the output
embeddings) taken out of the model, a candidate logit is one dot product with its token's
output embedding, and the normaliser is accumulated over vocabulary tiles in one reused buffer
(online log-sum-exp): the [positions, V] logits of a batch — hundreds of MB at a 120k or 250k
vocabulary — never exist. On CPU every fresh allocation that size costs page faults comparable
to the matrix product itself; on GPU it is the memory peak.

`OutputHead(model, within)` finds the output embeddings inside `within` (the masked LM's head
module, or the whole model for decoder-only and encoder-decoder LMs) and `bypassed()` swaps
them for an identity while the model runs, so what comes out as "logits" are the features the
projection would have seen (after any final norm or scaling the model applies before it).
Whether that is exact is checked once at load time against the untouched model; a head that
does more after the projection (Gemma's logit soft-capping, a logit scale) fails the check and
the scorer falls back to full logits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from transformers import PreTrainedModel


# logit elements held at once where the head cannot be taken apart (the full-logits fallbacks):
# 64 Mi elements, 256 MB in float32 (a 250k vocabulary: 268 positions at a time)
LOGITS_CAP = 64 << 20


def rows_per_chunk(vocab: int, positions: int = 1) -> int:
    """How many rows (of `positions` positions each) keep full logits within LOGITS_CAP."""
    return max(1, LOGITS_CAP // max(1, vocab * positions))


class OutputHead:
    def __init__(
        self, model: PreTrainedModel, within: torch.nn.Module | None = None, tile_bytes: int | None = None
    ) -> None:
        decoder = model.get_output_embeddings()  # type: ignore[no-untyped-call]  # unannotated in transformers
        self.decoder = decoder if isinstance(decoder, torch.nn.Linear) else None
        within = within if within is not None else model
        self.owner: tuple[torch.nn.Module, str] | None = None  # (module, attribute) holding the decoder
        if self.decoder is not None:
            self.owner = next(
                ((m, name) for m in within.modules() for name, child in m.named_children() if child is self.decoder),
                None,
            )
        device = next(model.parameters()).device
        self.tile_bytes = tile_bytes or ((8 << 20) if device.type == "cpu" else (256 << 20))

    @property
    def usable(self) -> bool:
        return self.owner is not None

    @property
    def weight(self) -> torch.Tensor:
        assert self.decoder is not None  # asked only of a usable head
        return self.decoder.weight

    @property
    def bias(self) -> torch.Tensor | None:
        assert self.decoder is not None  # asked only of a usable head
        return self.decoder.bias

    @contextmanager
    def bypassed(self) -> Iterator[None]:
        """Within the block the model outputs the projection's input instead of logits."""
        assert self.owner is not None  # asked only of a usable head
        parent, name = self.owner
        setattr(parent, name, torch.nn.Identity())
        try:
            yield
        finally:
            setattr(parent, name, self.decoder)

    def verify(self, whole: Callable[[], torch.Tensor]) -> bool:
        """Whether projecting the bypassed output gives the model's own logits (`whole()` runs
        the model on some input and returns its logits; it is called twice)."""
        if not self.usable:
            return False
        with torch.inference_mode():
            expected = whole().float()
            with self.bypassed():
                features = whole()
            if features.shape[-1] != self.weight.shape[1]:
                return False
            assert self.decoder is not None  # it has an owner
            got = self.decoder(features).float()
        return got.shape == expected.shape and torch.allclose(got, expected, rtol=1e-3, atol=1e-3)

    def target_logits(self, features: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """[N, H] features, [N] token ids -> [N] logits of those tokens (float32)."""
        picked = (features * self.weight[targets]).sum(-1)
        if self.bias is not None:
            picked = picked + self.bias[targets]
        return picked.float()

    def log_normaliser(self, hidden: torch.Tensor) -> torch.Tensor:
        """log Σ_v exp(logit_v) per row of [N, H] features, over vocabulary tiles computed into
        one reused buffer; float32 out."""
        return log_normaliser(hidden, self.weight, self.bias, self.tile_bytes)

    def score(self, features: torch.Tensor, targets: torch.Tensor, log_prob: bool) -> torch.Tensor:
        """[N, H] features, [N] token ids -> [N] log-probabilities (or raw logits) of the tokens."""
        picked = self.target_logits(features, targets)
        if log_prob and len(features):
            picked = picked - self.log_normaliser(features)
        return picked


def logit_tiles(
    h: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, tile_bytes: int
) -> Iterator[tuple[int, torch.Tensor]]:
    """(first vocabulary id, [rows, tile] logits) of rows `h`, tile by tile. In float32/float64
    every tile is computed into one reused buffer (so a tile is overwritten by the next: reduce it
    before asking for another); in half precision the product is in that dtype and the tile is
    returned in float32."""
    vocab, rows = weight.shape[0], len(h)
    exact = h.dtype in (torch.float32, torch.float64)
    tile = min(vocab, max(16, tile_bytes // (max(4, h.element_size()) * rows)))
    buf = torch.empty(rows * tile, dtype=h.dtype, device=h.device) if exact else None
    for v0 in range(0, vocab, tile):
        v1 = min(vocab, v0 + tile)
        w = weight[v0:v1].t()
        if buf is not None:  # exact
            logits = buf[: rows * (v1 - v0)].view(rows, v1 - v0)
            if bias is None:
                torch.mm(h, w, out=logits)
            else:
                torch.addmm(bias[v0:v1], h, w, out=logits)
            yield v0, logits
        else:
            yield v0, (h @ w + (bias[v0:v1] if bias is not None else 0)).float()


def log_normaliser(
    hidden: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, tile_bytes: int
) -> torch.Tensor:
    """log Σ_v exp(hidden · weight_v + bias_v) per row, tile by tile (online log-sum-exp)."""
    exact = hidden.dtype in (torch.float32, torch.float64)
    out = []
    for r0 in range(0, len(hidden), 1024):
        h = hidden[r0 : r0 + 1024]
        run_max = torch.full((len(h),), float("-inf"), dtype=h.dtype if exact else torch.float32, device=h.device)
        run_sum = torch.zeros_like(run_max)
        for _, logits in logit_tiles(h, weight, bias, tile_bytes):
            new_max = torch.maximum(run_max, logits.amax(-1))
            run_sum = run_sum * (run_max - new_max).exp() + logits.sub_(new_max[:, None]).exp_().sum(-1)
            run_max = new_max
        out.append((run_max + run_sum.log()).float())
    if not out:
        return torch.zeros(0, device=hidden.device)
    return torch.cat(out)

"""The model side of X-FACTR decoding (`decoding.py`): run rows through the masked LM and reduce
the output vocabulary at the predicted positions, without ever holding [rows, V] logits.

A pass takes sentences (token ids, one per beam item or re-masked variant) and, per row, the
mask positions it predicts at; it runs them in length-bucketed batches within the scorer's
token budget, and at those positions only applies the LM head: with the scorer's split head,
the transform, then the output projection over vocabulary tiles, each tile reduced at once to a
running log-sum-exp (the normaliser: every token, special ones included) and the running top-k
of the non-special tokens (what a prediction may pick), plus the logits of given target tokens
(for recomputed confidences). A head that does not split gives its whole logits at the
positions; a model with no separable head its own logits.

`Passes` is a mixin of `MaskedDecoder`, which provides `scorer`, `device`, `dtype`, `out_dtype`,
`tile_bytes`, `blocked_ids` (sorted ids never predicted: special tokens and ids past
len(tokenizer)) and `blocked` (the same as a [V] bool mask on the device), the per-query `_lengths` and mask positions `_at`,
and the counters `passes` and `_work` (rows per (length, positions): the compute floor's input).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np
import torch

from curator.probe.scorers.head import logit_tiles, rows_per_chunk

if TYPE_CHECKING:
    from curator.probe.scorers.masked import MaskedScorer

# log-sum-exp [R, P], top-k logits [R, P, k] and ids, target logits [R, P] (empty when not asked)
PassResult = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

ROW_CHUNK = 1024  # predicted positions per vocabulary sweep


class Passes:
    # provided by MaskedDecoder (see the module's docstring)
    scorer: MaskedScorer
    device: torch.device
    out_dtype: torch.dtype
    tile_bytes: int
    blocked_ids: np.ndarray
    blocked: torch.Tensor
    _lengths: np.ndarray
    _at: np.ndarray
    passes: int
    _work: Counter[tuple[int, int]]

    def _pass(
        self, ids: np.ndarray, units: np.ndarray, mask_index: np.ndarray, k: int, targets: np.ndarray | None = None
    ) -> PassResult:
        """Rows `ids` [R, W] (sentences of `units`), predicting at mask indices [R, P]: log-sum-exp
        [R, P], the top-k non-special tokens' logits [R, P, k] and ids, and `targets`' logits
        [R, P], as numpy (one device-to-host copy)."""
        sc = self.scorer
        R, P = mask_index.shape
        lengths = self._lengths[units]
        positions = np.take_along_axis(self._at[units], mask_index, 1)
        self.passes += R
        for length, count in zip(*np.unique(lengths, return_counts=True)):
            self._work[(int(length), P)] += int(count)
        N = R * P
        dev, dt = self.device, self.out_dtype
        lse = torch.empty(N, dtype=dt, device=dev)
        top_v = torch.empty((N, k), dtype=dt, device=dev)
        top_i = torch.empty((N, k), dtype=torch.int64, device=dev)
        tgt = torch.empty(N, dtype=dt, device=dev)
        flat_targets = sc.to_device(np.ascontiguousarray(targets.reshape(-1))) if targets is not None else None
        pending: list[tuple[torch.Tensor, torch.Tensor]] = []
        held = 0

        def flush() -> None:
            nonlocal pending, held
            if not pending:
                return
            feats = torch.cat([f for f, _ in pending]) if len(pending) > 1 else pending[0][0]
            where = torch.cat([w for _, w in pending]) if len(pending) > 1 else pending[0][1]
            self._reduce(feats, None, where, k, flat_targets, lse, top_v, top_i, tgt)
            pending, held = [], 0

        for batch in sc.batches(lengths.tolist(), sc.batch_cost):
            bi = np.array(batch, dtype=np.int64)
            width = int(lengths[bi].max())
            ids_t = sc.to_device(np.ascontiguousarray(ids[bi, :width]))
            attn = sc.to_device((np.arange(width)[None, :] < lengths[bi, None]).astype(np.int64))
            pos_t = sc.to_device(np.ascontiguousarray(positions[bi]))
            where = sc.to_device((bi[:, None] * P + np.arange(P)[None, :]).reshape(-1))
            ar = torch.arange(len(bi), device=dev)[:, None]
            if sc.head is None:  # no separable head: the model's own logits at the positions
                logits = sc.model(input_ids=ids_t, attention_mask=attn).logits[ar, pos_t]
                self._reduce(None, logits.reshape(len(bi) * P, -1), where, k, flat_targets, lse, top_v, top_i, tgt)
                continue
            at = sc.hidden_states(ids_t, attn)[ar, pos_t].reshape(len(bi) * P, -1)
            if sc.split is None:  # a head that does not split: its full logits, a few rows at a time
                step = rows_per_chunk(sc.vocab)
                for r in range(0, len(at), step):
                    self._reduce(
                        None, sc.head(at[r : r + step]), where[r : r + step], k, flat_targets, lse, top_v, top_i, tgt
                    )
                continue
            pending.append((sc.split[0](at), where))
            held += len(where)
            if held >= ROW_CHUNK:
                flush()
        flush()
        out = [lse.view(R, P), top_v.view(R, P, k), top_i.view(R, P, k), tgt.view(R, P)]
        if targets is None:
            out[3] = torch.empty(0)
        if not k:
            out[1] = out[2] = torch.empty(0)
        lse_n, top_v_n, top_i_n, tgt_n = (x.cpu().numpy() for x in out)
        return lse_n, top_v_n, top_i_n, tgt_n

    def _reduce(
        self,
        feats: torch.Tensor | None,
        logits: torch.Tensor | None,
        where: torch.Tensor,
        k: int,
        flat_targets: torch.Tensor | None,
        lse: torch.Tensor,
        top_v: torch.Tensor,
        top_i: torch.Tensor,
        tgt: torch.Tensor,
    ) -> None:
        """Rows of features (split head; the output projection runs tile by tile) or of full
        logits: write their log-sum-exp, top-k and target logits at rows `where`."""
        if feats is not None:
            assert self.scorer.split is not None  # features come only from a split head
            decoder = self.scorer.split[1]
            weight, bias = decoder.weight, decoder.bias
            rows_total = len(feats)
        else:
            assert logits is not None  # one of the two is given
            rows_total = len(logits)
        tile_bytes = self.tile_bytes
        for r0 in range(0, rows_total, ROW_CHUNK):
            r1 = min(rows_total, r0 + ROW_CHUNK)
            w_rows = where[r0:r1]
            n = r1 - r0
            tiles: Iterator[tuple[int, torch.Tensor]]
            if feats is not None:
                h = feats[r0:r1]
                if flat_targets is not None:
                    t = flat_targets[w_rows]
                    # float32 (or float64) like the tiles' reduction, so a recomputed c matches
                    picked = (h.to(self.out_dtype) * weight[t].to(self.out_dtype)).sum(-1)
                    if bias is not None:
                        picked = picked + bias[t].to(self.out_dtype)
                    tgt[w_rows] = picked.to(tgt.dtype)
                tiles = logit_tiles(h, weight, bias, tile_bytes)
            else:
                assert logits is not None
                full = logits[r0:r1]
                full = full if full.dtype in (torch.float32, torch.float64) else full.float()
                if flat_targets is not None:
                    tgt[w_rows] = full.gather(1, flat_targets[w_rows][:, None])[:, 0].to(tgt.dtype)
                tiles = iter([(0, full.clone())])

            run_lse, tv, ti = self._sweep(tiles, n, k)
            lse[w_rows] = run_lse.to(lse.dtype)
            if k:
                assert tv is not None and ti is not None  # a top-k is kept when k > 0
                top_v[w_rows] = tv.to(top_v.dtype)
                top_i[w_rows] = ti

    def _sweep(
        self, tiles: Iterable[tuple[int, torch.Tensor]], n: int, k: int
    ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        """Online log-sum-exp over all logits and top-k over the non-special ones, tile by tile
        (each tile is overwritten); the top-k values and ids are None when k is 0."""
        run_max: torch.Tensor | None = None
        run_sum: torch.Tensor | None = None
        top_v: torch.Tensor | None = None
        top_i: torch.Tensor | None = None
        for v0, logits in tiles:
            width = logits.shape[1]
            if run_max is None:
                run_max = torch.full((n,), float("-inf"), dtype=logits.dtype, device=logits.device)
                run_sum = torch.zeros_like(run_max)
                if k:
                    top_v = torch.full((n, k), float("-inf"), dtype=logits.dtype, device=logits.device)
                    top_i = torch.zeros((n, k), dtype=torch.int64, device=logits.device)
            assert run_sum is not None  # set with run_max, on the first tile
            # on the host from the sorted ids, so no device value is read back per tile
            lo, hi = np.searchsorted(self.blocked_ids, [v0, v0 + width])
            special = bool(hi > lo)
            if k:
                assert top_v is not None and top_i is not None  # set on the first tile when k > 0
                cand = logits
                if special:  # one masked_fill against the device mask: no index list copied per tile
                    cand = logits.masked_fill(self.blocked[v0 : v0 + width], float("-inf"))
                if k == 1:
                    tile_v, tile_i = cand.max(-1, keepdim=True)
                    better = tile_v > top_v  # strict: the lowest id on ties
                    top_v = torch.where(better, tile_v, top_v)
                    top_i = torch.where(better, tile_i + v0, top_i)
                else:
                    tile_v, tile_i = cand.topk(min(k, width), -1)
                    all_v = torch.cat([top_v, tile_v], 1)
                    all_i = torch.cat([top_i, tile_i + v0], 1)
                    top_v, pick = all_v.topk(k, -1)
                    top_i = all_i.gather(1, pick)
                tile_max = logits.amax(-1) if special else tile_v[:, 0]
            else:
                tile_max = logits.amax(-1)
            new_max = torch.maximum(run_max, tile_max)
            run_sum = run_sum * (run_max - new_max).exp() + logits.sub_(new_max[:, None]).exp_().sum(-1)
            run_max = new_max
        assert run_max is not None and run_sum is not None  # there is at least one tile
        if k > 1:  # a defined order among the top k: by value, then the lower id (topk leaves ties unordered)
            assert top_v is not None and top_i is not None
            order = top_i.argsort(-1)
            top_v, top_i = top_v.gather(1, order), top_i.gather(1, order)
            order = torch.sort(top_v, dim=-1, descending=True, stable=True).indices
            top_v, top_i = top_v.gather(1, order), top_i.gather(1, order)
        return run_max + run_sum.log(), top_v, top_i

"""Open-vocabulary multi-token decoding for masked LMs (X-FACTR, Jiang et al. 2020, §4 and
Appendix C, Algorithm 1): no candidate set, the model writes the object itself.

For every query (template × tuple, rows q = template * n_tuples + tuple as `Scorer.score_relation`)
and every number of masks m = 1 … M (`max_masks`):

* The query text is the template with [X] = subject and [Y] = `scorer.mask_slot(m)` written into
  it (`split_template`, so `--final-punct` applies), tokenized whole; the m mask positions are
  where the mask token sits in the ids. A *state* is which of those m positions are filled and
  with which tokens; its sentence is the query's ids with the filled tokens written over their
  masks (unfilled positions stay masks).
* Probabilities are the model's softmax over the whole output vocabulary at a masked position
  (special tokens included in the normaliser), but a prediction never picks a special token
  (`tokenizer.all_special_ids` are left out of every argmax / top-k).
* Initial prediction (`init`):
  - independent: one pass over the all-mask sentence; every mask gets its argmax, c_k its
    probability. With beam B: the top-B joint assignments by Σ log p (exact: per-position top-B
    lists merged position by position, keeping the top B partial sums). Counts 1 iteration.
  - order: m steps, each one pass filling the leftmost unfilled mask with its argmax
    (c = its probability in that pass). Each step counts 1 iteration.
  - confidence: m steps, each one pass filling the (mask, token) pair of highest probability
    among all unfilled masks. Each step counts 1 iteration.
* Refinement (`refine`), after the initial prediction, while the iteration count < T
  (`iterations`, default 2·M), one iteration per step:
  - order: positions 0, 1, …, m−1, 0, … cyclically; each step re-masks one position and
    re-predicts it (argmax); converged after m consecutive steps (a full scan) with no change.
  - confidence: re-mask the position of lowest c (ties: the leftmost) and re-predict it;
    converged when the re-predicted token equals the old one.
  A re-predicted position takes the new probability as its c only when its token changes, else
  it keeps its old c (X-FACTR's code: its `changes` mask); `rescore_unchanged` sets c either way
  (curator's former rule, a deviation). m = 1 is not refined: re-masking the only mask re-runs
  the initial all-mask sentence, which gives the same token and probability again.
* recompute: whenever a token is filled or changed, every filled position j gets
  c_j = p(ŷ_j | current sentence with j masked, unfilled positions still masked); the final c
  are thus p(ŷ_k | ŝ \\ k). Position k just predicted already has that value (the prediction
  was made on exactly that sentence), so only the others take a pass. Without recompute c_k
  stays the probability from when ŷ_k was last predicted.
* v(m) = Σ_k log c_k (÷ m with `length_norm`); best = argmax over m (ties: the smaller m).
* Beam B (Alg. 1): S starts as {all-mask state}. Each step every item of S expands into its
  top-B successors (initial: top-B tokens at the chosen position, top-B (position, token) pairs
  for confidence; refinement: top-B tokens at the re-masked position), scored Σ log c over
  filled positions, and the top B (stable: pool order is item order, then successor rank) of
  the pool de-duplicated by the full state form the new S. `beam_style`:
  - joint (default): independent's successors are the top-B joint assignments (exact: per-
    position top-B lists merged position by position, keeping the top B partial sums); a
    duplicated state keeps its best score (the earlier on ties); the score is ÷ the filled
    count with length_norm; recompute recomputes the selected items. Refinement stops at T,
    for confidence when an iteration leaves S the same set of states, for order after m
    consecutive such iterations.
  - published (X-FACTR's code, `iter_decode_beam_search`): independent's item b is the b-th
    best token at every mask; the first duplicate in pool order is kept; the score is the
    plain sum; recompute recomputes every kept candidate before the top B are chosen.
    Order refinement keeps one position counter over the beam's items, so item b of step r
    re-masks position (r·B + b) mod m. Refinement stops at T, for confidence when S's states
    come back equal in order, for order when a step ends on the last mask and S changed in no
    step since the counter last passed the first mask (B = 1: a left-to-right pass without a
    change). X-FACTR breaks ties with a random 1e-5 jitter; here pool order breaks them.
  The prediction for m is S's top item by the score (the earlier on ties). With B = 1 both
  styles are exactly the greedy algorithm.

Batching: for each m, every query's beam items advance in lockstep; a step's rows (sentences ×
the positions they predict, or the re-masked variants recompute needs) run through the encoder
in length-bucketed batches within the scorer's token budget, and the LM head only at the
predicted positions: the scorer's split head (transform, then the output projection over
vocabulary tiles, reducing each tile at once to the running log-sum-exp and top-B, so [rows, V]
logits never exist), the whole head where it does not split. Converged queries drop out. All
host work per step is numpy over rows; the device results of a pass come back together at its
end (one copy per result array). Tokens tied at the top-k cutoff are kept in no defined order;
within the top k, ties go to the lower id.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, cast

import numpy as np
import torch

from curator.probe.data import RelationData
from curator.probe.decode_options import INITS as INITS
from curator.probe.decode_options import REFINES as REFINES
from curator.probe.decode_options import Decoded as Decoded
from curator.probe.decode_options import DecodeOptions as DecodeOptions
from curator.probe.decoding_beam import Beam, Pool
from curator.probe.scorers import flops
from curator.probe.scorers.base import ProbeError

if TYPE_CHECKING:
    from curator.probe.scorers.base import Scorer
    from curator.probe.scorers.masked import MaskedScorer


class MaskedDecoder(Beam):
    def __init__(self, scorer: Scorer, options: DecodeOptions) -> None:
        options.validate()
        if getattr(scorer, "kind", None) != "masked":
            raise ProbeError("decoding without candidates needs a masked language model")
        scorer = cast("MaskedScorer", scorer)  # the kind just checked
        self.scorer, self.options = scorer, options
        self.tok, self.device = scorer.tok, scorer.device
        self.dtype = next(scorer.model.parameters()).dtype
        self.out_dtype = torch.float64 if self.dtype == torch.float64 else torch.float32
        vocab = scorer.vocab
        # never predicted: special tokens, and the rows an output matrix padded past the tokenizer
        # (to a multiple of 8 or 64) has beyond len(tokenizer) — they are no token at all
        special = {i for i in self.tok.all_special_ids if i is not None and 0 <= i < vocab}
        self.blocked_ids = np.array(sorted(special | set(range(min(len(self.tok), vocab), vocab))), dtype=np.int64)
        self.blocked = torch.zeros(vocab, dtype=torch.bool, device=self.device)
        self.blocked[torch.from_numpy(self.blocked_ids).to(self.device)] = True
        # logits per vocabulary tile: on CPU 2 MB per thread (stays in cache between the product and
        # the reductions over it; 8 MB tiles decode ~12% slower), on GPU the scorer's 256 MB
        self.tile_bytes = (2 << 20) * torch.get_num_threads() if self.device.type == "cpu" else scorer.tile_bytes
        self.passes = 0
        # (row length, predicted positions) -> rows, of the last relation
        self._work: Counter[tuple[int, int]] = Counter()
        self._decoded: str | None = None

    # ---- public -------------------------------------------------------------------------

    def decode_relation(self, data: RelationData) -> Decoded:
        return self.scorer.with_oom_retry(lambda: self._decode(data))

    def floor_flops(self, data: RelationData) -> float:
        """Per forward-pass row the algorithm ran (of L tokens, predicting at p positions): the
        encoder layers × layer(L, L) + the head transform 2p·H² + the output projection over the
        whole vocabulary 2p·H·V (argmax and normaliser both need every logit)."""
        if self._decoded != data.digest():
            raise ProbeError("floor_flops needs decode_relation on the same relation first")
        s = flops.shape(self.scorer.model.config)
        return float(
            sum(
                count
                * (s["layers"] * flops.layer(s, length, length) + 2 * p * s["hidden"] ** 2 + flops.head(s, p, True))
                for (length, p), count in self._work.items()
            )
        )

    # ---- the algorithm --------------------------------------------------------------------

    @torch.inference_mode()
    def _decode(self, data: RelationData) -> Decoded:
        self.passes, self._work, self._decoded = 0, Counter(), None
        sc, M = self.scorer, self.options.max_masks
        queries = sc.queries(data)
        Q = len(queries)
        tokens: list[list[list[int]]] = [[[] for _ in range(M)] for _ in range(Q)]
        confidence = np.zeros((Q, M), dtype=np.float64)
        for m in range(1, M + 1):
            texts = [before + sc.mask_slot(m) + after for before, after in queries]
            rows = sc.tokenize(texts)
            sc.check_fits(data, [len(r) for r in rows])
            where = sc.slot_positions(texts, rows, self.tok.mask_token_id, m)
            if not Q:
                continue
            got, value = self._decode_m(m, rows, where)
            for q in range(Q):
                tokens[q][m - 1] = got[q].tolist()
            confidence[:, m - 1] = value
        # one sequence of ids decodes to one string (transformers types decode as str | list[str])
        strings = [
            [cast(str, self.tok.decode(ids, skip_special_tokens=True)).strip() for ids in per_q] for per_q in tokens
        ]
        confidence = confidence.astype(np.float32)  # as stored: best agrees with what is written
        best = np.argmax(confidence, axis=1).astype(np.int32)  # the first (smaller m) on ties
        self._decoded = data.digest()
        return Decoded(tokens, strings, confidence, best, self.passes)

    def _decode_m(self, m: int, rows: list[list[int]], where: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Tokens [Q, m] and v(m) [Q] for every query with m masks."""
        o = self.options
        Q, B = len(rows), o.beam
        self._lengths = np.array([len(r) for r in rows], dtype=np.int64)
        self._base = np.full((Q, int(self._lengths.max())), self.scorer.pad_id, dtype=np.int64)
        for q, row in enumerate(rows):
            self._base[q, : len(row)] = row
        self._at = np.array(where, dtype=np.int64).reshape(Q, m)
        self.S_tokens = np.full((Q, B, m), -1, dtype=np.int64)
        self.S_logc = np.zeros((Q, B, m), dtype=np.float64)
        self.S_alive = np.zeros((Q, B), dtype=bool)
        self.S_alive[:, 0] = True
        active = np.ones(Q, dtype=bool)

        if o.init == "independent":
            self._step(self._expand_independent(np.arange(Q), m))
            done = 1
        else:
            for t in range(m):
                self._step(self._expand_init(np.arange(Q), m, t))
            done = m
        run = np.zeros(Q, dtype=np.int64)
        modified = np.zeros(Q, dtype=bool)  # published, order: a change in this left-to-right pass
        published = o.beam_style == "published"
        r = 0
        # m = 1: re-masking the only mask re-runs the initial all-mask sentence, which can change nothing
        while o.refine != "none" and m > 1 and done < o.max_iterations and active.any():
            units = np.flatnonzero(active)
            before, before_alive = self.S_tokens[units].copy(), self.S_alive[units].copy()
            self._step(self._expand_refine(units, m, r))
            done, r = done + 1, r + 1
            after = self.S_tokens[units]
            if published:  # X-FACTR: the beam's states equal, in order
                alive = self.S_alive[units]
                unchanged = (alive == before_alive).all(-1) & ((after == before).all(-1) | ~alive).all(-1)
            else:  # the same set of B distinct states: every new state is one of the old
                unchanged = (after[:, :, None, :] == before[:, None, :, :]).all(-1).any(-1).all(-1)
            if o.refine == "confidence":
                active[units[unchanged]] = False
            elif published:
                # X-FACTR's code: its "modified" flag is cleared when the position counter passes the
                # first mask and set by a step that changes S; it stops when a step ends on the last
                # mask with the flag clear (with B = 1: after a left-to-right pass that changed nothing)
                first = (r - 1) * o.beam % m  # the position of this step's first item
                wrapped = first == 0 or first + o.beam > m
                modified[units] = ~unchanged | (modified[units] & (not wrapped))
                if (first + o.beam - 1) % m == m - 1:
                    active[units[~modified[units]]] = False
            else:
                run[units] = np.where(unchanged, run[units] + 1, 0)
                active[units[run[units] >= m]] = False

        score = self._score(self.S_tokens, self.S_logc)
        score = np.where(self.S_alive, score, -np.inf)
        top = np.argmax(score, axis=1)
        ar = np.arange(Q)
        value = self.S_logc[ar, top].sum(-1) / (m if o.length_norm else 1)
        return self.S_tokens[ar, top], value

    def _score(self, tokens: np.ndarray, logc: np.ndarray) -> np.ndarray:
        """A beam item's score: Σ log c over its filled positions (÷ their count with length_norm,
        joint style; X-FACTR's code ranks its beam by the plain sum)."""
        filled = tokens >= 0
        total: np.ndarray = np.where(filled, logc, 0.0).sum(-1)
        if self.options.length_norm and self.options.beam_style == "joint":
            total = total / np.maximum(filled.sum(-1), 1)
        return total

    def _step(self, pool: Pool) -> None:
        """De-duplicate the pool by state, keep the top B per unit as the new S, recompute
        (published style: every kept candidate before the selection, as X-FACTR's code does)."""
        o, B = self.options, self.options.beam
        published = o.beam_style == "published"
        C = len(pool.unit)
        order = np.arange(C)
        score = self._score(pool.tokens, pool.logc)
        if B > 1:
            # one candidate per (unit, state): joint, the best score (the earlier on ties); published, the first
            keys = (
                (order,)
                + (() if published else (-score,))
                + tuple(pool.tokens[:, j] for j in reversed(range(pool.tokens.shape[1])))
                + (pool.unit,)
            )
            srt = np.lexsort(keys)
            same = np.zeros(C, dtype=bool)
            same[1:] = (pool.unit[srt][1:] == pool.unit[srt][:-1]) & (
                pool.tokens[srt][1:] == pool.tokens[srt][:-1]
            ).all(1)
            kept = np.sort(srt[~same])
            if published and o.recompute:
                pool.logc[kept] = self._recomputed(
                    pool.unit[kept], pool.tokens[kept], pool.logc[kept], pool.changed[kept], pool.predicted[kept]
                )
                score = self._score(pool.tokens, pool.logc)
            srt = kept[np.lexsort((order[kept], -score[kept], pool.unit[kept]))]
        else:
            srt = order  # one candidate per unit already
        unit = pool.unit[srt]
        first = np.r_[True, unit[1:] != unit[:-1]]
        start = np.maximum.accumulate(np.where(first, np.arange(len(unit)), 0))
        rank = np.arange(len(unit)) - start
        sel = srt[rank < B]
        rank = rank[rank < B]
        units = np.unique(pool.unit)
        self.S_alive[units] = False
        u = pool.unit[sel]
        self.S_tokens[u, rank] = pool.tokens[sel]
        self.S_logc[u, rank] = pool.logc[sel]
        self.S_alive[u, rank] = True
        if o.recompute and not (published and B > 1):
            self.S_logc[u, rank] = self._recomputed(
                u, pool.tokens[sel], pool.logc[sel], pool.changed[sel], pool.predicted[sel]
            )

    def _recomputed(
        self, u: np.ndarray, tk: np.ndarray, logc: np.ndarray, changed: np.ndarray, predicted: np.ndarray
    ) -> np.ndarray:
        """`logc` [R, m] of the states `tk` of queries `u` with c_j = p(ŷ_j | sentence with j masked)
        for every filled j of the changed rows, except the position just predicted (its c is
        that already); an unchanged row's c were recomputed in the same state before."""
        m = tk.shape[1]
        need = (tk >= 0) & changed[:, None] & (np.arange(m)[None, :] != predicted[:, None])
        r_idx, j_idx = np.nonzero(need)
        if not len(r_idx):
            return logc
        uu = u[r_idx]
        lse, _, _, target = self._pass(
            self._fill(uu, tk[r_idx], remask=j_idx), uu, j_idx[:, None], 0, targets=tk[r_idx, j_idx][:, None]
        )
        out = logc.copy()
        # ≤ 0: the target's dot product and the tile's product may differ by an ulp
        out[r_idx, j_idx] = np.minimum(target[:, 0] - lse[:, 0], 0.0)
        return out

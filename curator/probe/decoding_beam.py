"""A step of X-FACTR decoding's beam (`decoding.py`): the successors each algorithm proposes for
the live items of S — the initial prediction (independent, order, confidence) and a refinement
step — as one flat `Pool` of candidate states, which `MaskedDecoder._step` de-duplicates and
cuts to the top B. Kept apart from the decoder's loop over m and its stop rules.

`Beam` is a mixin of `MaskedDecoder`, which provides `options`, the beam arrays `S_tokens`
[Q, B, m], `S_logc` [Q, B, m] and `S_alive` [Q, B], the queries' padded ids `_base` and mask
positions `_at`; the passes come from `Passes` (`decoding_passes.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from curator.probe.decode_options import DecodeOptions
from curator.probe.decoding_passes import Passes


@dataclass
class Pool:
    """Successor candidates of one step, in pool order (rows by unit then item, then rank)."""

    unit: np.ndarray  # [C]
    parent: np.ndarray  # [C] beam slot of the item it came from
    tokens: np.ndarray  # [C, m]
    logc: np.ndarray  # [C, m]
    changed: np.ndarray  # [C] bool: state differs from the parent's
    predicted: np.ndarray  # [C] position just predicted (-1: all, independent)


class Beam(Passes):
    # provided by MaskedDecoder (see the module's docstring)
    options: DecodeOptions
    S_tokens: np.ndarray
    S_logc: np.ndarray
    S_alive: np.ndarray
    _base: np.ndarray

    def _items(self, units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(unit, slot) of every live beam item of `units`, unit-major."""
        alive = self.S_alive[units]
        u_idx, b_idx = np.nonzero(alive)
        return units[u_idx], b_idx

    def _sentences(self, u: np.ndarray, b: np.ndarray, remask: np.ndarray | None = None) -> np.ndarray:
        """[R, W] ids: each item's sentence, with position `remask` (a mask index per row) masked."""
        return self._fill(u, self.S_tokens[u, b], remask)

    def _fill(self, u: np.ndarray, tk: np.ndarray, remask: np.ndarray | None = None) -> np.ndarray:
        """[R, W] ids: the queries `u` with the states `tk` [R, m] written over their masks."""
        ids: np.ndarray = self._base[u].copy()
        filled = tk >= 0
        if remask is not None:
            filled &= np.arange(tk.shape[1])[None, :] != remask[:, None]
        r_idx, j_idx = np.nonzero(filled)
        ids[r_idx, self._at[u[r_idx], j_idx]] = tk[r_idx, j_idx]
        return ids

    def _successors(
        self, u: np.ndarray, b: np.ndarray, j: np.ndarray, y: np.ndarray, lp: np.ndarray, changed: np.ndarray | None
    ) -> Pool:
        """Pool entries: [R, K] arrays of (position, token, log p) per row -> flat candidates."""
        R, K = j.shape
        tokens = np.repeat(self.S_tokens[u, b], K, axis=0)
        logc = np.repeat(self.S_logc[u, b], K, axis=0)
        flat = np.arange(R * K)
        jj = j.reshape(-1)
        old = tokens[flat, jj].copy()
        new = y.reshape(-1)
        tokens[flat, jj] = new
        # X-FACTR: a position takes the new probability only when its token changes
        take = (old != new) | self.options.rescore_unchanged
        logc[flat, jj] = np.where(take, lp.reshape(-1), logc[flat, jj])
        return Pool(
            np.repeat(u, K),
            np.repeat(b, K),
            tokens,
            logc,
            old != new if changed is None else np.repeat(changed, K),
            jj,
        )

    def _expand_independent(self, units: np.ndarray, m: int) -> Pool:
        u, b = self._items(units)
        B = self.options.beam
        pos = np.broadcast_to(np.arange(m), (len(u), m))
        lse, tv, ti, _ = self._pass(self._sentences(u, b), u, pos, B)
        logp = tv - lse[:, :, None]  # [R, m, K]
        R = len(u)
        if self.options.beam_style == "published":  # X-FACTR's code: item b = the b-th best token at every mask
            K = logp.shape[2]
            return Pool(
                np.repeat(u, K),
                np.repeat(b, K),
                ti.transpose(0, 2, 1).reshape(R * K, m),
                logp.transpose(0, 2, 1).reshape(R * K, m),
                np.ones(R * K, dtype=bool),
                np.full(R * K, -1, dtype=np.int64),
            )
        # exact top-B joint assignments: merge position by position, keeping the top B partial sums
        sums = np.zeros((R, 1))
        choice = np.zeros((R, 1, 0), dtype=np.int64)
        for j in range(m):
            K = logp.shape[2]
            cand = (sums[:, :, None] + logp[:, j, None, :]).reshape(R, -1)
            keep = np.argsort(-cand, axis=1, kind="stable")[:, :B]
            parent, pick = keep // K, keep % K
            sums = np.take_along_axis(cand, keep, 1)
            choice = np.concatenate([np.take_along_axis(choice, parent[:, :, None], 1), pick[:, :, None]], 2)
        n = choice.shape[1]
        rows = np.repeat(np.arange(R), n)
        ch = choice.reshape(R * n, m)
        cols = np.arange(m)[None, :]
        tokens = ti[rows[:, None], cols, ch]
        logc = logp[rows[:, None], cols, ch]
        return Pool(
            np.repeat(u, n),
            np.repeat(b, n),
            tokens,
            logc,
            np.ones(R * n, dtype=bool),
            np.full(R * n, -1, dtype=np.int64),
        )

    def _expand_init(self, units: np.ndarray, m: int, t: int) -> Pool:
        u, b = self._items(units)
        B = self.options.beam
        tk = self.S_tokens[u, b]
        R = len(u)
        if self.options.init == "order":
            pos = np.full((R, 1), t, dtype=np.int64)
        else:  # every item of this step has the same m - t unfilled positions (not the same ones)
            pos = np.nonzero(tk < 0)[1].reshape(R, m - t)
        lse, tv, ti, _ = self._pass(self._sentences(u, b), u, pos, B)
        logp = (tv - lse[:, :, None]).reshape(R, -1)  # [R, P*K]
        K = tv.shape[2]
        keep = np.argsort(-logp, axis=1, kind="stable")[:, :B]  # ties: the leftmost position, then rank
        j = np.take_along_axis(pos, keep // K, 1)
        y = np.take_along_axis(ti.reshape(R, -1), keep, 1)
        return self._successors(u, b, j, y, np.take_along_axis(logp, keep, 1), np.ones(R, dtype=bool))

    def _expand_refine(self, units: np.ndarray, m: int, r: int) -> Pool:
        u, b = self._items(units)
        R = len(u)
        if self.options.refine == "order" and self.options.beam_style == "published":
            # X-FACTR's code advances one position counter per beam item: a step's items re-mask
            # consecutive positions (item b of step r: r·B + b), not all the same one
            k = (r * self.options.beam + b) % m
        elif self.options.refine == "order":
            k = np.full(R, r % m, dtype=np.int64)
        else:
            k = np.argmin(self.S_logc[u, b], axis=1)
        lse, tv, ti, _ = self._pass(self._sentences(u, b, remask=k), u, k[:, None], self.options.beam)
        lp = tv[:, 0] - lse[:, :1]
        return self._successors(u, b, np.repeat(k[:, None], tv.shape[2], 1), ti[:, 0], lp, None)

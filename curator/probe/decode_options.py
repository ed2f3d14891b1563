"""What open-vocabulary decoding (decoding.py, X-FACTR) is asked for and what it gives back:
`DecodeOptions` (initial prediction, refinement, masks, beam and its style, normalisation,
iterations, whether an unchanged re-prediction takes its new confidence; checked
with one line per bad value) and `Decoded` (per query and number of masks: tokens, strings,
confidence, the best number). Kept apart from the decoder so the CLI, plans and stored runs can
name the options without loading the decoder itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from curator.core.enums import BeamStyle, DecodeInit, Refine, values
from curator.probe.scorers.base import ProbeError

INITS = values(DecodeInit)  # independent, order, confidence
REFINES = values(Refine)  # none, order, confidence
BEAM_STYLES = values(BeamStyle)  # joint, published


@dataclass(frozen=True)
class DecodeOptions:
    init: str = "independent"
    refine: str = "none"
    max_masks: int = 5  # M
    beam: int = 1  # B
    length_norm: bool = True  # X-FACTR divides v(m) by m unless told not to (--no_len_norm)
    recompute: bool = False
    iterations: int | None = None  # T; None means 2 * max_masks (X-FACTR's T = 2M)
    # True: a re-predicted position takes its new probability even when its token comes back the
    # same (curator's former rule, a deviation); False: it keeps its old one (X-FACTR's code)
    rescore_unchanged: bool = False
    beam_style: str = "joint"  # joint | published (X-FACTR's code; see decoding.py)

    def validate(self) -> None:
        if self.init not in INITS:
            raise ProbeError(f"decoding init must be one of {', '.join(INITS)}, not {self.init!r}")
        if self.refine not in REFINES:
            raise ProbeError(f"decoding refinement must be one of {', '.join(REFINES)}, not {self.refine!r}")
        if self.beam_style not in BEAM_STYLES:
            raise ProbeError(f"decoding beam style must be one of {', '.join(BEAM_STYLES)}, not {self.beam_style!r}")
        for name in ("max_masks", "beam") + (("iterations",) if self.iterations is not None else ()):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ProbeError(
                    f"decoding {name.replace('_', ' ')} must be a whole number of at least 1, not {value!r}"
                )
        for name in ("length_norm", "recompute", "rescore_unchanged"):
            if not isinstance(getattr(self, name), bool):
                raise ProbeError(
                    f"decoding {name.replace('_', ' ')} must be true or false, not {getattr(self, name)!r}"
                )

    @property
    def max_iterations(self) -> int:
        return self.iterations if self.iterations is not None else 2 * self.max_masks


@dataclass
class Decoded:
    """One relation: rows q are template-major like Scorer.score_relation (q = template * n_tuples + tuple)."""

    tokens: list[list[list[int]]]  # [Q][M]: the token ids predicted with m = index+1 masks
    strings: list[list[str]]  # [Q][M]: those tokens decoded to text (stripped)
    confidence: np.ndarray  # [Q, M] float32: v(m) = Σ log c_k (÷ m with length_norm)
    best: np.ndarray  # [Q] int32: argmax over m of confidence (ties: the smaller m)
    passes: int  # forward-pass rows run (for the benchmark)

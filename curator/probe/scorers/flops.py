"""The compute floor: matrix-product FLOPs a scorer cannot avoid, per model kind.

`benchmarks/probe.py` divides these by the GEMM rate it measures on the same device to get the
floor in phrases/s; docs/probe.md states each kind's formula. Only matrix products count
(2 FLOPs per multiply-add): embeddings, norms, softmax and the like are cheap next to them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from transformers import PretrainedConfig


class Shape(TypedDict):
    """The sizes of a model the FLOPs count takes."""

    hidden: int
    ff: int
    ffn_mats: int
    vocab: int
    layers: int
    decoder_layers: int
    inner: int


def shape(config: PretrainedConfig) -> Shape:
    """Hidden size, layers, feed-forward width, vocabulary and FFN matrices of a config, across
    the BERT/XLM-R, T5 and GPT-2/Llama naming schemes."""

    def get(*names: str) -> Any:  # the first of these config attributes that is set (each scheme names its own)
        return next((getattr(config, n) for n in names if getattr(config, n, None)), None)

    hidden = get("hidden_size", "d_model", "n_embd")
    ff = get("intermediate_size", "d_ff", "n_inner") or 4 * hidden
    gated = "gated" in str(getattr(config, "feed_forward_proj", "")) or config.model_type in (
        "llama",
        "mistral",
        "qwen2",
        "gemma",
    )
    inner = (get("num_heads", "num_attention_heads", "n_head") or 1) * (
        getattr(config, "d_kv", None) or hidden // (get("num_heads", "num_attention_heads", "n_head") or 1)
    )
    return {
        "hidden": hidden,
        "ff": ff,
        "ffn_mats": 3 if gated else 2,
        "vocab": config.vocab_size,
        "layers": get("num_hidden_layers", "num_layers", "n_layer"),
        "decoder_layers": get("num_decoder_layers", "num_layers", "num_hidden_layers", "n_layer"),
        "inner": inner,
    }


def layer(s: Shape, tokens: int, context: int, cross: int = 0) -> float:
    """One transformer layer on `tokens` new tokens attending to `context` positions (itself
    included), plus a cross-attention over `cross` encoder positions whose keys and values are
    already computed (T5's decoder)."""
    H, inner = s["hidden"], s["inner"]
    flops = 2 * tokens * 4 * H * inner + 2 * tokens * s["ffn_mats"] * H * s["ff"] + 4 * tokens * context * inner
    if cross:
        flops += 2 * tokens * 2 * H * inner + 4 * tokens * cross * inner  # query and output projections, scores
    return flops


def head(s: Shape, positions: int, log_prob: bool) -> float:
    """The output projection at `positions` scored positions: every vocabulary entry in log-prob
    mode (the normaliser), none worth counting in mean-logit mode (one dot product each)."""
    return 2 * positions * s["hidden"] * s["vocab"] if log_prob else 0.0

"""Candidate scorers (SPEC §5): one module per model kind, a registry, and one loader.

A scorer kind is a `Scorer` subclass in its own module of this package, decorated with
`@register(kind, auto_class=..., mapping=..., ...)` (registry.py). That is the one step: every
module here is imported below, so the kind is in `SCORERS`, `--kind` takes it, `load_scorer`
loads its models with its Auto class and `detect_kind` knows its configs from the transformers
mapping it names (docs/architecture.md, "where to add").
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING

from curator.core.enums import Attention, values
from curator.probe.scorers.base import PUNCT_END, Options, ProbeError, Scorer, pick_device, pick_dtype
from curator.probe.scorers.registry import SCORERS, detect_kind, kinds_in_order

if TYPE_CHECKING:
    import torch

# every module of the package, so each @register runs (registry.py holds the registry)
for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")

ATTENTION = values(Attention)


def load_scorer(
    name_or_path: str,
    device: str = "auto",
    dtype: str = "auto",
    options: Options | None = None,
    kind: str | None = None,
    attention: str = "auto",
    compile: bool = False,
) -> Scorer:
    """Any Hugging Face model by hub name or local path; the kind comes from its config.

    `attention` picks the model's own attention implementation (auto: what transformers picks,
    PyTorch's scaled-dot-product attention where the model supports it, which dispatches to
    flash or memory-efficient kernels on a GPU; eager for encoder-decoders on CPU, where T5's
    position bias keeps SDPA off its fused kernels and eager is faster); `compile` compiles the model's repeated
    layers with torch.compile (regional compilation: one compiled block serves every layer,
    so compiling takes seconds, and shapes are dynamic so length buckets do not recompile)."""
    import transformers
    from transformers import AutoConfig, AutoTokenizer

    if kind is not None and kind not in SCORERS:
        raise ProbeError(f"--kind must be one of {', '.join(kinds_in_order())}, not {kind!r}")
    try:
        config = AutoConfig.from_pretrained(name_or_path)
        tokenizer = AutoTokenizer.from_pretrained(name_or_path)
    except (OSError, ValueError) as exc:
        raise ProbeError(f"cannot load model {name_or_path!r}: {str(exc).splitlines()[0]}") from None
    import torch

    kind = kind or detect_kind(config, repr(name_or_path))
    dev = pick_device(device)
    if dev.type == "cuda" and dev.index is not None:
        torch.cuda.set_device(dev)  # this rank's GPU, before anything (the bf16 check, pinned copies) touches one
    torch_dtype = pick_dtype(dtype, dev)
    auto = getattr(transformers, SCORERS[kind].auto_class)
    if attention not in ATTENTION:
        raise ProbeError(f"attention must be one of {', '.join(ATTENTION)}")
    extra = {} if attention == "auto" else {"attn_implementation": attention}
    if attention == "auto" and SCORERS[kind].encoder_decoder and dev.type == "cpu":
        # T5's relative position bias is a float mask, so SDPA takes no fused kernel anyway, and
        # for a decoder row's few queries its CPU kernel's per-(row, head) blocks cost more than
        # eager's batched products (3-10% of a run); the scores are the same. run.json records it.
        extra = {"attn_implementation": "eager"}
    try:
        model = auto.from_pretrained(name_or_path, dtype=torch_dtype, **extra)
    except ImportError as exc:  # flash_attention_2 without the flash-attn package, and the like
        raise ProbeError(f"attention {attention!r} is not available here: {str(exc).splitlines()[0]}") from None
    except (OSError, ValueError) as exc:
        if extra and "attn" in str(exc).lower():
            raise ProbeError(
                f"model {name_or_path!r} cannot use attention {attention!r}: {str(exc).splitlines()[0]}"
            ) from None
        raise ProbeError(
            f"model {name_or_path!r} has no {kind} language-model head usable for probing: {str(exc).splitlines()[0]}"
        ) from None
    model.to(dev).eval()
    compiled = bool(compile) and compile_layers(model) > 0
    scorer = SCORERS[kind](model, tokenizer, dev, options or Options())
    scorer.compiled = compiled
    return scorer


def compile_layers(model: torch.nn.Module) -> int:
    """torch.compile every block of the model's layer stacks (a ModuleList of one class), in
    place; returns how many. The scorers call parts of the model apart (the body without its
    head, the decoder with a cache), which a whole-model compile would not cover."""
    import torch

    count = 0
    for stack in model.modules():
        if isinstance(stack, torch.nn.ModuleList) and len(stack) > 1 and len({type(m) for m in stack}) == 1:
            for block in stack:
                block.compile(dynamic=True)
                count += 1
    return count


__all__ = [
    "ATTENTION",
    "PUNCT_END",
    "SCORERS",
    "Options",
    "ProbeError",
    "Scorer",
    "detect_kind",
    "kinds_in_order",
    "load_scorer",
    "pick_device",
    "pick_dtype",
]

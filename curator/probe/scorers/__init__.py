"""Candidate scorers (SPEC §5): one module per model kind, a registry, and one loader.

A scorer kind is a `Scorer` subclass in its own module, registered in `SCORERS` under the
kind `detect_kind` returns for a model config. To add one: write the module (see
masked.py), add it here, and teach `detect_kind` (base.py) which configs belong to it.
"""
from __future__ import annotations


from curator.probe.scorers.base import (PUNCT_END, Options, ProbeError, Scorer, detect_kind, pick_device,  # noqa: F401
                                        pick_dtype)
from curator.probe.scorers.causal import CausalScorer
from curator.probe.scorers.masked import MaskedScorer
from curator.probe.scorers.seq2seq import Seq2SeqScorer

SCORERS: dict[str, type[Scorer]] = {"masked": MaskedScorer, "seq2seq": Seq2SeqScorer, "causal": CausalScorer}


def load_scorer(name_or_path: str, device: str = "auto", dtype: str = "auto", options: Options | None = None,
                kind: str | None = None) -> Scorer:
    """Any Hugging Face model by hub name or local path; the kind comes from its config."""
    from transformers import (AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM, AutoModelForSeq2SeqLM,
                              AutoTokenizer)

    try:
        config = AutoConfig.from_pretrained(name_or_path)
        tokenizer = AutoTokenizer.from_pretrained(name_or_path)
    except (OSError, ValueError) as exc:
        raise ProbeError(f"cannot load model {name_or_path!r}: {str(exc).splitlines()[0]}") from None
    import torch

    kind = kind or detect_kind(config)
    dev = pick_device(device)
    torch_dtype = pick_dtype(dtype, dev)
    auto = {"masked": AutoModelForMaskedLM, "seq2seq": AutoModelForSeq2SeqLM, "causal": AutoModelForCausalLM}[kind]
    try:
        model = auto.from_pretrained(name_or_path, dtype=torch_dtype)
    except (OSError, ValueError) as exc:
        raise ProbeError(f"model {name_or_path!r} has no {kind} language-model head usable for probing: "
                         f"{str(exc).splitlines()[0]}") from None
    if dev.type == "cuda" and dev.index is not None:
        torch.cuda.set_device(dev)  # this rank's GPU is also where pinned copies and the caches go
    model.to(dev).eval()
    return SCORERS[kind](model, tokenizer, dev, options or Options())


__all__ = ["PUNCT_END", "SCORERS", "Options", "ProbeError", "Scorer", "load_scorer"]

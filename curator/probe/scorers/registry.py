"""The scorer registry: every kind by name (`@register`), and which kind a model config is."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from curator.probe.scorers.base import ProbeError, Scorer

# every scorer kind, by name: filled by @register as probe/scorers/ imports its modules
SCORERS: dict[str, type[Scorer]] = {}


def register(
    kind: str,
    *,
    auto_class: str,
    mapping: str,
    described: str,
    precedence: int,
    encoder_decoder: bool = False,
    pll: bool = False,
) -> Callable[[type[Scorer]], type[Scorer]]:
    """Class decorator: the one step that makes a Scorer subclass a kind `curator probe` loads
    (`--kind`), detects (`detect_kind`, from `mapping`) and names in messages."""

    def add(cls: type[Scorer]) -> type[Scorer]:
        if kind in SCORERS and SCORERS[kind] is not cls:
            raise ValueError(f"scorer kind {kind!r} is registered twice ({SCORERS[kind].__name__}, {cls.__name__})")
        cls.kind, cls.auto_class, cls.mapping, cls.described = kind, auto_class, mapping, described
        cls.precedence, cls.encoder_decoder, cls.pll = precedence, encoder_decoder, pll
        SCORERS[kind] = cls
        return cls

    return add


def _class_names(mapping: Mapping[str, str | tuple[str, ...]]) -> set[str]:
    return {name for value in mapping.values() for name in ((value,) if isinstance(value, str) else value)}


def detect_kind(config: Any, name: str = "the model") -> str:
    """The scorer kind of a model config, from transformers' own mappings (masked-LM, seq2seq-LM,
    causal-LM: each registered kind's `mapping`). A class the config's `architectures` names
    decides first, then its `model_type`. Where several kinds hold it (XLM's XLMWithLMHeadModel is
    in the masked and the causal mapping, BERT's model_type in both, BART's class in the masked
    and the seq2seq one), a kind whose `encoder_decoder` matches the config's wins, then the lowest
    `precedence` (masked before seq2seq before causal). Anything else is a ProbeError: `--kind`."""
    from transformers.models.auto import modeling_auto

    families = {kind: getattr(modeling_auto, scorer.mapping) for kind, scorer in SCORERS.items()}
    encoder_decoder = bool(getattr(config, "is_encoder_decoder", False))

    def best(kinds: list[str]) -> str:
        return min(kinds, key=lambda k: (SCORERS[k].encoder_decoder != encoder_decoder, SCORERS[k].precedence))

    architectures = list(getattr(config, "architectures", None) or [])
    for architecture in architectures:
        kinds = [kind for kind, family in families.items() if architecture in _class_names(family)]
        if kinds:
            return best(kinds)
    model_type = getattr(config, "model_type", None)
    kinds = [kind for kind, family in families.items() if model_type in family]
    if kinds:
        return best(kinds)
    named = f"model_type {model_type!r}" + (f", architectures {', '.join(architectures)}" if architectures else "")
    raise ProbeError(
        f"cannot tell what kind of language model {name} is ({named}: in none of transformers' "
        f"{', '.join(kinds_in_order())} LM mappings); give --kind {'|'.join(kinds_in_order())}"
    )


def kinds_in_order() -> list[str]:
    """The registered kinds, by precedence (how messages and --help list them)."""
    return sorted(SCORERS, key=lambda kind: SCORERS[kind].precedence)

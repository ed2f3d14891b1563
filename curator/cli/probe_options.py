"""The options of `curator probe` checked before anything loads: those of the command line
(each decoding setting refused where it does not apply, `command_options`) or, with --plan,
the plan file's, refusing SRC and every option the plan owns (`plan_jobs`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from curator.core.errors import InputError

if TYPE_CHECKING:
    from curator.probe.plan import Job


DECODE_SETTINGS = (
    "refine",
    "max_masks",
    "beam",
    "length_norm",
    "recompute",
    "iterations",
    "rescore_unchanged",
    "beam_style",
)


def command_options(params: dict[str, Any]) -> dict[str, Any]:
    """The probe options of the command line (without --plan): each decoding setting refused
    where it does not apply."""
    decode, aliases, pll_variant, score_mode = (params[k] for k in ("decode", "aliases", "pll_variant", "score_mode"))
    given = {k: params[k] for k in DECODE_SETTINGS if params[k] is not None}
    if decode is None and (given or aliases):
        raise InputError(
            f"{', '.join('--' + k.replace('_', '-') for k in [*given, *(['aliases'] if aliases else [])])}"
            " only apply with --decode"
        )
    if pll_variant is not None and score_mode != "pll":
        raise InputError("--pll-variant only applies with --score-mode pll")
    if decode is not None and _given("score_mode"):
        raise InputError("--score-mode ranks candidates; --decode predicts without them: give one of the two")
    return dict(
        device=params["device"],
        dtype=params["dtype"],
        batch_tokens=params["batch_tokens"],
        final_punct=params["final_punct"],
        score_mode=score_mode,
        pll_variant=pll_variant or "original",
        keep_repeated_subjects=params["keep_repeated_subjects"],
        languages=params["languages"] or None,
        relations=params["relations"] or None,
        attention=params["attention"],
        compile=params["compile_"],
        kind=params["kind"],
        decoding=_decoding(decode, given),
        aliases=aliases,
    )


def plan_jobs(plan: str, src: str | None) -> tuple[list[Job], dict[str, Any]]:
    """The jobs and options of a --plan file; SRC and the options the plan owns are refused."""
    from curator.probe.plan import load_plan

    if src is not None:
        raise InputError("SRC and --plan are mutually exclusive: the plan names its releases")
    clashing = [_flag(name) for name in _PLAN_OWNS if _given(name)]
    if clashing:
        raise InputError(f"{', '.join(clashing)}: with --plan, set models, out and options in the plan file")
    chosen = load_plan(plan)
    return chosen.jobs(), chosen.options


_PLAN_OWNS = (
    "models",
    "out",
    "languages",
    "relations",
    "device",
    "dtype",
    "batch_tokens",
    "final_punct",
    "keep_repeated_subjects",
    "score_mode",
    "pll_variant",
    "attention",
    "compile_",
    "kind",
    "decode",
    *DECODE_SETTINGS,
    "aliases",
)


def _decoding(decode: str | None, given: dict) -> dict | None:
    """The decoding settings asked for (None: rank candidates), checked before anything loads."""
    if decode is None:
        return None
    from dataclasses import asdict

    from curator.probe.decoding import DecodeOptions

    chosen = DecodeOptions(init=decode, **given)
    chosen.validate()
    return asdict(chosen)


def _given(name: str) -> bool:
    """Whether the option was given on the command line (or its environment variable)."""
    source = click.get_current_context().get_parameter_source(name)
    return source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def _flag(name: str) -> str:
    return next(p.opts[0] for p in click.get_current_context().command.params if p.name == name)

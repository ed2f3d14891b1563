"""The quality checks (SPEC §7), as a registry in the manner of Weblate's checks.

A check is a class with an `id`, a `name`, a `description`, how to read its value from what
is stored for a template (the template row itself, or its `TemplateSignal` row), when that
value deserves a warning, what risk it adds, and — for a check that needs a model — the
command that computes and stores it. The review screen, the maintainers' dashboard, the
language page, the CLI and the risk score all iterate `CHECKS`; adding a check is one class
here (plus its column in `TemplateSignal` and a migration, when it stores something new).

Risk: each check gives a component in [0, 1] (1 = most likely wrong), or None when it has not
been computed; `risk` folds them as a noisy-OR, 1 − Π(1 − cᵢ), so a missing signal counts as
no evidence and a warning can only raise a template's risk.

Names, descriptions and displayed values are catalogue messages (marked with `N_`, English
here): `result` gives the English text (CLI, API scripts), and the web layer says them in the
page's language from `name`, `description` + `description_params` and `display_message`
(web/check_text.py), so this stage stays free of Flask-Babel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, NamedTuple, NotRequired, Protocol, TypedDict

import numpy as np

from curator.core.errors import N_, N_plural
from curator.core.models import TemplateSignal

WARN_SIMILARITY = 0.75  # SPEC §7


class TemplateFacts(Protocol):
    """What the checks read of a template: a `Template` row, or a stand-in with its votes."""

    @property
    def votes(self) -> int: ...

    @property
    def repaired(self) -> bool: ...


class CheckResult(TypedDict):
    """One computed check of a template, as the review screen, the API and the CLI show it."""

    id: str
    name: str
    description: str
    value: float
    display: str
    warn: bool
    risk: float | None
    # gender-pair (issue 39 §2): the other template and the two merged into one annotated template
    twin: NotRequired[str]
    merged: NotRequired[str]


class DisplayMessage(NamedTuple):
    """A check's value in words, as a catalogue message: `singular` (and `plural` for a count
    `n`, gettext's ngettext) with `%(name)s` placeholders filled from `params`."""

    singular: str
    plural: str | None = None
    n: int = 1
    params: Mapping[str, object] = {}

    def english(self) -> str:
        text = self.plural if self.plural is not None and self.n != 1 else self.singular
        return text % {"num": self.n, **self.params} if (self.plural is not None or self.params) else text


class Check:
    id: ClassVar[str]
    name: ClassVar[str]  # N_(...): a catalogue message
    description: ClassVar[str]  # N_(...), with %(name)s placeholders filled from description_params
    description_params: ClassVar[Mapping[str, object]] = {}
    computed_by: ClassVar[str | None] = None  # the command that computes it, when a model is needed

    def value(self, template: TemplateFacts, signal: TemplateSignal | None) -> float | None:
        raise NotImplementedError

    def warns(self, value: float, signal: TemplateSignal | None) -> bool:
        return False

    def risk(self, value: float, signal: TemplateSignal | None) -> float | None:
        """This check's risk component for a value; None: it adds no risk."""
        return None

    def display(self, value: float) -> str:
        return f"{value:g}"

    def display_message(self, value: float) -> DisplayMessage:
        """The value in words as a catalogue message; a number (no words) by default."""
        return DisplayMessage(self.display(value))

    def english_description(self) -> str:
        return self.description % dict(self.description_params) if self.description_params else self.description

    def result(self, template: TemplateFacts, signal: TemplateSignal | None) -> CheckResult | None:
        """What the review screen and the API show: None when not computed for this template."""
        value = self.value(template, signal)
        if value is None:
            return None
        risk = self.risk(value, signal)
        return CheckResult(
            id=self.id,
            name=self.name,
            description=self.english_description(),
            value=round(float(value), 4),
            display=self.display(value),
            warn=bool(self.warns(value, signal)),
            risk=None if risk is None else round(risk, 3),
        )


CHECKS: dict[str, Check] = {}


def register(cls: type[Check]) -> type[Check]:
    if cls.id in CHECKS:
        raise ValueError(f"check {cls.id!r} is registered twice")
    CHECKS[cls.id] = cls()
    return cls


@register
class Votes(Check):
    id = "votes"
    name = N_("MT agreement")
    description = N_(
        "How many translation systems produced this template (the trusted system counts twice). "
        "Fewer votes, more risk: 0.15 per vote short of 4."
    )

    def value(self, template: TemplateFacts, signal: TemplateSignal | None) -> float | None:
        return float(template.votes)

    def warns(self, value: float, signal: TemplateSignal | None) -> bool:
        return value < 2

    def risk(self, value: float, signal: TemplateSignal | None) -> float | None:
        return float(np.clip(0.15 * (4 - value), 0, 0.45))

    def display(self, value: float) -> str:
        return self.display_message(value).english()

    def display_message(self, value: float) -> DisplayMessage:
        return DisplayMessage(*N_plural("%(num)s vote", "%(num)s votes"), int(value))


@register
class Repaired(Check):
    id = "repaired"
    name = N_("Placeholder repair")
    description = N_("A voter's line needed its [X]/[Y] placeholders repaired before it matched.")

    def value(self, template: TemplateFacts, signal: TemplateSignal | None) -> float | None:
        return 1.0 if template.repaired else 0.0

    def warns(self, value: float, signal: TemplateSignal | None) -> bool:
        return bool(value)

    def display(self, value: float) -> str:
        return self.display_message(value).english()

    def display_message(self, value: float) -> DisplayMessage:
        return DisplayMessage(N_("repaired") if value else N_("none"))


@register
class Similarity(Check):
    id = "similarity"
    name = N_("Back-translation similarity")
    description = N_(
        "Cosine between the English ParaRel pattern and this template translated back to English "
        "(sentence embeddings); below %(threshold)s is a warning."
    )
    description_params: ClassVar[Mapping[str, object]] = {"threshold": f"{WARN_SIMILARITY:.0%}"}
    computed_by = "curator signals similarity"

    def value(self, template: TemplateFacts, signal: TemplateSignal | None) -> float | None:
        return None if signal is None else signal.similarity

    def warns(self, value: float, signal: TemplateSignal | None) -> bool:
        return value < WARN_SIMILARITY

    def risk(self, value: float, signal: TemplateSignal | None) -> float | None:
        # cosine 0.95 or more → 0, 0.75 → 0.44, 0.5 or less → 1
        return float(np.clip((0.95 - value) / 0.45, 0, 1))

    def display(self, value: float) -> str:
        return f"{value:.0%}"


@register
class Disagreement(Check):
    id = "disagreement"
    name = N_("Model disagreement")
    description = N_(
        "In a probe run, how often this template predicts what its relation's other templates "
        "predict, against the relation's average; 0.4 or more below it is the most risk."
    )
    computed_by = "curator signals disagreement"

    def value(self, template: TemplateFacts, signal: TemplateSignal | None) -> float | None:
        if signal is None or signal.agreement is None or signal.relation_agreement is None:
            return None
        return signal.agreement

    # a value exists only with the signal's relation agreement (`value`), so these never see None
    def warns(self, value: float, signal: TemplateSignal | None) -> bool:
        return signal is not None and signal.relation_agreement is not None and value < signal.relation_agreement - 0.2

    def risk(self, value: float, signal: TemplateSignal | None) -> float | None:
        if signal is None or signal.relation_agreement is None:
            return None
        return float(np.clip((signal.relation_agreement - value) / 0.4, 0, 1))

    def display(self, value: float) -> str:
        return f"{value:.0%}"


@register
class GenderPair(Check):
    """Another candidate of the relation differs from this one only in gendered forms (quality/
    gender_pairs.py: the rule, the per-language lists): each is wrong for part of the subjects, and
    merged into one annotated template the probe fills each query with the form that agrees."""

    id = "gender-pair"
    name = N_("Gendered twin")
    description = N_(
        "Another template of this relation differs from this one only in masculine/feminine forms: "
        "merge the two into one annotated template, so each subject gets the form that agrees with it."
    )
    computed_by = "curator signals gender-pairs"

    def value(self, template: TemplateFacts, signal: TemplateSignal | None) -> float | None:
        return 1.0 if signal is not None and signal.gender_twin else None

    def warns(self, value: float, signal: TemplateSignal | None) -> bool:
        return bool(value)

    def display(self, value: float) -> str:
        return self.display_message(value).english()

    def display_message(self, value: float) -> DisplayMessage:
        return DisplayMessage(N_("merge into one annotated template"))

    def result(self, template: TemplateFacts, signal: TemplateSignal | None) -> CheckResult | None:
        found = super().result(template, signal)
        if found is not None and signal is not None and signal.gender_twin:
            found["twin"] = signal.gender_twin
            found["merged"] = signal.gender_merged or ""
        return found


def results(template: TemplateFacts, signal: TemplateSignal | None) -> list[CheckResult]:
    """Every computed check of one template, in registry order."""
    return [r for check in CHECKS.values() if (r := check.result(template, signal)) is not None]


def risk_components(template: TemplateFacts, signal: TemplateSignal | None) -> dict[str, float]:
    out: dict[str, float] = {}
    for check in CHECKS.values():
        value = check.value(template, signal)
        if value is not None and (component := check.risk(value, signal)) is not None:
            out[check.id] = component
    return out


def combine(components: dict[str, float]) -> float:
    return float(1 - np.prod([1 - c for c in components.values()]))

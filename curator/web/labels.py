"""The stored values a page shows a person, in the page's language: one table per kind of value
(roles, decisions, proposal statuses, merge policies, queue orders, the activity log's actions
and the names of its details…), and `label(kind, value)`, which every template and view uses
(a Jinja global), so that "reviewer" or "amend" is said the same way on every page. A value a
table does not know (a new one, data) is shown as it is.

The tables are built with gettext for the page's language the first time a language needs
them (the messages are extracted from the calls below, like any other).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask
from flask_babel import get_locale, gettext, pgettext

from curator.core.enums import (
    Activity,
    DecisionKind,
    DisagreementKind,
    Policy,
    ProposalStatus,
    ProposalVerdict,
    QueueOrder,
    Role,
    VersionKind,
)
from curator.review.rule import NO_VERDICTS, Why, Whys

_CACHE: dict[str, dict[str, dict[str, str]]] = {}


def _tables() -> dict[str, dict[str, str]]:
    _ = gettext
    return {
        "role": {Role.REVIEWER: _("reviewer"), Role.MAINTAINER: _("maintainer")},
        # a reviewer's decision on a template, and none yet
        "decision": {
            DecisionKind.ACCEPT: _("accept"),
            DecisionKind.AMEND: _("amend"),
            DecisionKind.REJECT: _("reject"),
            DecisionKind.UNSURE: _("unsure"),
            "none": _("not decided yet"),
        },
        # a maintainer's answer to a proposal (the activity log's `verdict` of a proposal)
        "answer": {ProposalVerdict.CONFIRM: _("confirm"), ProposalVerdict.DROP: _("drop"), "edit": _("edit")},
        "status": {
            ProposalStatus.UNCONFIRMED: _("waiting for a second look"),
            ProposalStatus.REVIEWERS: _("confirmed by two reviewers"),
            ProposalStatus.TRUSTED: _("confirmed: trusted reviewer"),
            ProposalStatus.MAINTAINER: _("confirmed by a maintainer"),
            ProposalStatus.IMPORT: _("confirmed by import"),
            ProposalStatus.DROPPED: _("dropped"),
            ProposalStatus.SETTLED: _("resolved"),
            ProposalStatus.REJECTED: _("rejected by reviewers"),
            ProposalStatus.SUPERSEDED: _("superseded"),
        },
        # a merge policy's name, and what it means (a choice in a list)
        "policy": {
            Policy.ANY: pgettext("merge policy", "any"),
            Policy.MAJORITY: pgettext("merge policy", "majority"),
            Policy.UNANIMOUS: pgettext("merge policy", "unanimous"),
        },
        "policy_choice": {
            Policy.ANY: _("any: one accept keeps it (mParaRel)"),
            Policy.MAJORITY: _("majority: more than half accept"),
            Policy.UNANIMOUS: _("unanimous: every reviewer accepts"),
        },
        "queue_order": {QueueOrder.RANDOM: _("random"), QueueOrder.RISK: _("riskiest first")},
        "band": {"low": _("low"), "medium": _("medium"), "high": _("high")},
        "disagreement": {
            DisagreementKind.VERDICTS: _("different verdicts"),
            DisagreementKind.AMENDMENTS: _("different amendments"),
            DisagreementKind.UNSURE: _("a reviewer is unsure"),
        },
        "thread_state": {"open": _("open"), "resolved": _("resolved"), "all": _("all")},
        "version_kind": {
            VersionKind.CANDIDATES: _("candidates snapshot"),
            VersionKind.REVIEW: _("reviewed release"),
            VersionKind.IMPORT: _("imported release"),
        },
        # where a text of a release preview comes from (release.merge.Planned.origin)
        "origin": {
            "candidate": pgettext("where a line comes from", "candidate"),
            "amended": pgettext("where a line comes from", "amended"),
            "suggested": pgettext("where a line comes from", "suggested"),
            "edited": pgettext("where a line comes from", "edited"),
            "resolved": pgettext("where a line comes from", "resolved"),
            "confirmed": pgettext("where a line comes from", "confirmed"),
        },
        **_log_tables(),
    }


def _log_tables() -> dict[str, dict[str, str]]:
    """The activity log's: its actions, the names of an entry's details and their values."""
    _ = gettext
    return {
        "activity": {
            Activity.INVITE: _("invitation"),
            Activity.INVITE_REVOKE: _("invitation withdrawn"),
            Activity.INVITE_RESEND: _("invitation sent again"),
            Activity.ROLE: _("role changed"),
            Activity.ASSIGN: _("language assigned"),
            Activity.UNASSIGN: _("language unassigned"),
            Activity.TRUST: _("reviewer trusted"),
            Activity.DISTRUST: _("reviewer no longer trusted"),
            Activity.DEACTIVATE: _("account deactivated"),
            Activity.REACTIVATE: _("account reactivated"),
            Activity.PASSWORD_RESET: _("password-reset link"),
            "reset-request-dismiss": _("password-reset request dismissed"),
            Activity.RESOLUTION: _("resolution"),
            Activity.PROPOSAL: _("proposal answered"),
            Activity.LINE_DROP: _("line dropped"),
            Activity.LINE_RESTORE: _("line restored"),
            Activity.GUIDELINES: _("guidelines"),
            Activity.GLOSSARY: _("glossary"),
            Activity.COMMENT_RESOLVE: _("thread resolved or reopened"),
            Activity.SNAPSHOT: _("candidates snapshot"),
            Activity.BUILD: _("reviewed release"),
            Activity.EXPORT: _("export"),
            Activity.QUEUE_ORDER: _("queue order"),
            Activity.SAMPLE_FRACTION: _("sample fraction"),
            Activity.IMPORT: _("import"),
            Activity.ACCOUNT_CREATE: _("account created"),
            Activity.PASSWORD_SET: _("password set"),
            Activity.API_TOKEN: _("API token issued"),
            Activity.POLICY: _("merge policy"),
        },
        "detail": _detail_names(),
        # a glossary's or the guidelines' change
        "change": {
            "add": _("added"),
            "edit": _("edited"),
            "delete": _("deleted"),
            "import": _("imported"),
            "customise": _("written for this language"),
            "reset": _("back to the default"),
        },
        "sample": {"new": _("a new sample"), "restored": _("the same sample back")},
        "import": {"reviews": _("reviews"), "release": _("a release")},
        "boolean": {"True": _("yes"), "False": _("no")},
    }


def _detail_names() -> dict[str, str]:
    """The names of an activity entry's details."""
    _ = gettext
    return {
        "from": _("before"),
        "to": _("after"),
        "invitation": _("invitation"),
        "role": _("role"),
        "languages": _("languages"),
        "fraction": _("sample fraction"),
        "change": _("change"),
        "characters": _("characters"),
        "term": _("English term"),
        "translation": _("Preferred translation"),
        "note": _("Note for reviewers"),
        "thread": _("thread"),
        "state": _("state"),
        "template_id": _("template"),
        "resolution": _("resolution"),
        "verdict": _("verdict"),
        "correction": _("correction"),
        "reason": _("reason"),
        "supersedes": _("replaces resolution"),
        "retracted": _("withdrawn"),
        "line_drop": _("dropped line"),
        "relation": _("relation"),
        "pattern": _("template"),
        "text": _("template"),
        "edited_to": _("edited to"),
        "sample": _("sample"),
        "project": _("the project's"),
        "parent": _("parent"),
        "patterns": _("patterns"),
        "policy": _("merge policy"),
        "what": _("what"),
        "source": _("source"),
        "lines": _("lines"),
        "stored": _("stored"),
        "users_created": _("reviewers created"),
        "download": _("downloaded"),
        "hf": _("Hugging Face files"),
        "out": _("folder"),
        "counts": _("counts"),
    }


def tables() -> dict[str, dict[str, str]]:
    """Every table, in the page's language (built once per language)."""
    locale = str(get_locale() or "en")
    if locale not in _CACHE:
        _CACHE[locale] = _tables()
    return _CACHE[locale]


def label(kind: str, value: Any) -> str:
    """`value` (a stored value of that kind) as a person reads it in the page's language; a
    value the table does not know as it is, and none as a dash."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        kind, value = "boolean", str(value)
    return tables().get(kind, {}).get(str(value), str(value))


# what the values of an activity entry's details are, by detail (and for `from`/`to`, by action)
_DETAIL_KINDS = {"role": "role", "state": "thread_state", "change": "change", "sample": "sample", "what": "import"}
_BEFORE_AFTER: dict[str, str] = {Activity.ROLE: "role", Activity.QUEUE_ORDER: "queue_order", Activity.POLICY: "policy"}


def detail_value(action: str, key: str, value: Any, join: Callable[[list[str]], str] = ", ".join) -> str:
    """The value of one detail of an activity entry as a person reads it: enum values said in
    the page's language (a role, a verdict, a policy…), a list joined, none as a dash."""
    if value is None:
        return "–"
    if isinstance(value, list | tuple):
        return join([detail_value(action, key, v) for v in value])
    if isinstance(value, dict):
        return join([f"{k}={detail_value(action, k, v)}" for k, v in value.items()])
    if isinstance(value, bool):
        return label("boolean", value)
    if key == "verdict":
        return label("decision" if action == Activity.RESOLUTION else "answer", value)
    if key in ("from", "to"):
        kind = _BEFORE_AFTER.get(action)
        return label(kind, value) if kind else str(value)
    if key in ("policy", "project"):
        return label("policy", value)
    return label(_DETAIL_KINDS[key], value) if key in _DETAIL_KINDS else str(value)


def init_labels(app: Flask) -> None:
    app.jinja_env.globals.update(
        label=label, risk_group=risk_group, why_text=why_text, plan_why=plan_why, removed_because=removed_because
    )


def risk_group(group: str) -> str:
    """A group of the dashboard's "were risky templates rejected more often?" table
    (analysis.outcomes: "high risk", "similarity < 0.5") in the page's language."""
    import re

    _ = gettext
    bands = {"low": _("low risk"), "medium": _("medium risk"), "high": _("high risk")}
    band = re.fullmatch(r"(low|medium|high) risk", group)
    if band:
        return bands[band.group(1)]
    similarity = re.fullmatch(r"similarity ([<≥]) (\S+)", group)
    if similarity:
        below = similarity.group(1) == "<"
        value = similarity.group(2)
        return _("similarity < %(value)s", value=value) if below else _("similarity ≥ %(value)s", value=value)
    return group


def why_text(why: Why | Whys | None, fallback: str = "") -> str:
    """Why the release rule decided a text (review/rule.py's `Why`) in the page's language: its
    message translated, the decisions and policies it names said as `label` says them, a list
    of who said what joined as the language joins a list; `fallback` (the English reason)
    when there is no message."""
    from babel.lists import format_list

    if why is None:
        return fallback
    if isinstance(why, Whys):
        if not why.items:
            return gettext(NO_VERDICTS)
        return format_list([why_text(w) for w in why.items], locale=str(get_locale() or "en"))
    params: dict[str, object] = {}
    for key, value in why.params:
        if isinstance(value, Why | Whys):
            params[key] = why_text(value)
        elif key in ("decision", "verdict"):
            params[key] = label("decision", value)
        elif key == "policy":
            params[key] = label("policy", value)
        else:
            params[key] = value
    return gettext(why.message, **params)


def plan_why(plan: Any, text: str) -> str:
    """Why the rule keeps a text of a release preview's relation (`release.merge.RelationPlan`)
    apart — waiting, rejected, dropped — in the page's language (its English reason if the
    relation's outcomes do not hold it)."""
    for decided in plan.outcomes:
        if decided.text == text:
            return why_text(decided.why, decided.reason)
    return ""


def removed_because(decisions: list[str]) -> str:
    """What took a parent line out of a release preview (`release.merge.Removed.decisions`: the
    reviewers' decision kinds, then "resolution: reject" or "dropped by a maintainer"), said in
    the page's language and joined by commas."""
    _ = gettext
    by_maintainer = {
        "dropped by a maintainer": _("dropped by a maintainer"),
        "superseded by a maintainer": _("replaced by a maintainer's edit"),
    }
    said = []
    for d in decisions:
        if d.startswith("resolution: "):
            said.append(_("resolution: %(verdict)s", verdict=label("decision", d.removeprefix("resolution: "))))
        else:
            said.append(by_maintainer.get(d) or label("decision", d))
    return ", ".join(said)

"""Merge policies (SPEC §3): whether a set of reviewers' verdicts keeps a text. The merge
(release/merge.py) judges candidate templates with it and review/proposals.py the second
reviewers' verdicts on a proposal, so both follow the same policy."""

from __future__ import annotations

from curator.core.enums import DecisionKind, Policy, values
from curator.core.errors import InputError

POLICIES = values(Policy)
IGNORED = frozenset({DecisionKind.UNSURE})  # decision kinds that are not verdicts (never merged)


def stays(decisions: list[str], policy: str) -> bool:
    """Whether a template with these standing decisions stays under `policy`. Unsure decisions
    are left out; with none left the template stays (nobody decided it)."""
    decisions = [d for d in decisions if d not in IGNORED]
    if not decisions and policy in POLICIES:
        return True
    accepted = decisions.count(DecisionKind.ACCEPT)
    if policy == Policy.ANY:
        return accepted >= 1
    if policy == Policy.MAJORITY:
        return accepted * 2 > len(decisions)
    if policy == Policy.UNANIMOUS:
        return accepted == len(decisions)
    raise InputError(f"unknown merge policy {policy!r} (choose from {', '.join(POLICIES)})")

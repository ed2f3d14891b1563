"""Merge policies (SPEC §3): whether a set of reviewers' verdicts keeps a text. The merge
(release/merge.py) judges candidate templates with it and review/proposals.py the second
reviewers' verdicts on a proposal, so both follow the same policy."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import DecisionKind, Policy, values
from curator.core.errors import InputError
from curator.core.models import Language, ProjectSetting

POLICIES = values(Policy)
POLICY_KEY = "merge_policy"  # the ProjectSetting row holding the project's policy
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


def project_policy(session: Session) -> str:
    """The project's stored merge policy (`Policy.ANY` until a maintainer sets one)."""
    value = session.scalar(select(ProjectSetting.value).where(ProjectSetting.key == POLICY_KEY))
    return value if value in POLICIES else Policy.ANY


def language_policies(session: Session) -> dict[str, str]:
    """Every language code -> its effective merge policy: its own override, else the project's."""
    default = project_policy(session)
    return {code: own or default for code, own in session.execute(select(Language.code, Language.merge_policy))}


def language_policy(session: Session, language: str) -> str:
    """The merge policy of `language`'s releases: its override, else the project's."""
    own = session.scalar(select(Language.merge_policy).where(Language.code == language))
    return own or project_policy(session)

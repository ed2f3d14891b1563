"""Merge policies (SPEC §3): whether a set of reviewers' verdicts keeps a text. The merge
(release/merge.py) judges candidate templates with it and review/proposals.py the second
reviewers' verdicts on a proposal, so both follow the same policy.

Which policy applies is stored (issue 36 §3): one for the project (`ProjectSetting` row
`merge_policy`, default `any`, mParaRel's) and, per language, an override
(`Language.merge_policy`; None: the project's). The dashboard, the Proposals page, the preview,
`curator review proposals` and `release build --from-review` use the stored one unless a
command or a URL names another (`--policy`, `?policy=`). Only maintainers change it, and each
change is in the activity log, written in the caller's unit of work."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core import languages
from curator.core.enums import Activity, DecisionKind, Policy, values
from curator.core.errors import Forbidden, InputError, NotFound
from curator.core.models import Language, ProjectSetting, User
from curator.core.models.base import utcnow
from curator.review import activity

POLICIES = values(Policy)
IGNORED = frozenset({DecisionKind.UNSURE})  # decision kinds that are not verdicts (never merged)
SETTING = "merge_policy"  # the ProjectSetting key of the project's policy
DEFAULT = Policy.ANY  # the project's policy until a maintainer stores one (mParaRel's)
PROJECT = "project"  # an activity entry's target when the project's policy changed


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
    """The project's merge policy: the stored one, else `any`."""
    stored = session.scalar(select(ProjectSetting.value).where(ProjectSetting.key == SETTING))
    return stored if stored is not None else DEFAULT.value


def language_policy(session: Session, language: str) -> str:
    """The policy `language` is merged under: its override, else the project's (a language not
    in the `languages` table has no override)."""
    override = session.scalar(select(Language.merge_policy).where(Language.code == language))
    return override if override is not None else project_policy(session)


def language_overrides(session: Session) -> dict[str, str]:
    """{code: policy} of the languages that override the project's policy."""
    rows = session.execute(
        select(Language.code, Language.merge_policy).where(Language.merge_policy.is_not(None)).order_by(Language.code)
    ).all()
    return {code: policy for code, policy in rows if policy is not None}


def language_policies(session: Session) -> dict[str, str]:
    """{code: effective policy} of every language in the `languages` table, in code order."""
    project = project_policy(session)
    rows = session.execute(select(Language.code, Language.merge_policy).order_by(Language.code)).all()
    return {code: policy if policy is not None else project for code, policy in rows}


def check_policy(policy: object) -> str:
    """`policy` when it is a merge policy, else an InputError naming the allowed ones."""
    if isinstance(policy, str) and policy in POLICIES:
        return policy
    raise InputError(f"unknown merge policy {policy!r}: choose {', '.join(POLICIES)}", field="policy")


def _maintainer(maintainer: User | None) -> None:
    if maintainer is not None and not maintainer.is_maintainer:
        raise Forbidden("only a maintainer changes the merge policy")


def set_project_policy(session: Session, maintainer: User | None, policy: str) -> None:
    """Store the project's policy (`maintainer` None: the command line); a change is in the
    activity log, an unchanged one writes nothing."""
    _maintainer(maintainer)
    policy = check_policy(policy)
    row = session.get(ProjectSetting, SETTING)
    before = row.value if row is not None else DEFAULT.value
    if before == policy:
        return
    if row is None:
        row = ProjectSetting(key=SETTING, value=policy)
        session.add(row)
    row.value, row.updated_at = policy, utcnow()
    row.updated_by = maintainer.id if maintainer is not None else None
    activity.record(session, maintainer, Activity.POLICY, PROJECT, None, {"from": before, "to": policy})


def set_language_policy(session: Session, maintainer: User | None, language: str, policy: str | None) -> None:
    """Store `language`'s override (None: clear it, the project's applies again); a change is in
    the activity log with the override before and after (None: the project's)."""
    _maintainer(maintainer)
    languages.check_code(language, "language")
    if policy is not None:
        policy = check_policy(policy)
    row = session.get(Language, language)
    if row is None:
        raise NotFound(f"unknown language {language!r}: it has no row yet (ingest its translations first)")
    before = row.merge_policy
    if before == policy:
        return
    row.merge_policy = policy
    activity.record(
        session,
        maintainer,
        Activity.POLICY,
        policy if policy is not None else PROJECT,
        language,
        {"from": before, "to": policy, "project": project_policy(session)},
    )

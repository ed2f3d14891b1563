"""The merge policy stored per project and overridable per language (issue 36 §3): the services
(set, clear, refused input, the activity log), `curator policy show|set|clear`, the dashboard's
form (maintainers only, CSRF), and the stored policy as the default of the preview, the
Proposals page and its API, `curator review proposals`, `release preview|build` and the
dashboard's follow-up counts."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from curator.core.enums import Activity, Policy
from curator.core.errors import Forbidden, InputError, NotFound
from curator.core.models import ActivityEntry, Language, ProjectSetting
from curator.review.accounts import find_user
from curator.review.policy import (
    language_overrides,
    language_policies,
    language_policy,
    project_policy,
    set_language_policy,
    set_project_policy,
)

from .conftest import table_snapshot

pytestmark = pytest.mark.backends("sqlite", "postgresql")

BOSS = "boss@example.org"
TEXT = "[X] vino al mundo en [Y]"  # Ana's suggestion: Bo accepts it, Cy rejects it


def _entries(sessions) -> list[tuple]:
    with sessions() as s:
        return [
            (e.action, e.actor_id, e.language, e.target, e.details)
            for e in s.scalars(select(ActivityEntry).where(ActivityEntry.action == Activity.POLICY))
        ]


# ---------------------------------------------------------------- the services
def test_project_and_language_policies_are_stored_and_logged(review_app, sessions):
    with sessions() as s:
        assert project_policy(s) == Policy.ANY  # nothing stored: mParaRel's
        assert language_policy(s, "es") == Policy.ANY
        everything = language_policies(s)
        assert set(everything) == set(s.scalars(select(Language.code))) and set(everything.values()) == {"any"}
        assert language_policy(s, "xx") == Policy.ANY  # no row, no override: the project's
    with sessions.begin() as s:
        boss = find_user(s, BOSS)
        set_project_policy(s, boss, "majority")
        set_language_policy(s, boss, "es", "unanimous")
        boss_id = boss.id
    with sessions() as s:
        assert project_policy(s) == "majority"
        assert language_policy(s, "es") == "unanimous" and language_policy(s, "ar") == "majority"
        assert language_overrides(s) == {"es": "unanimous"}
        assert language_policies(s)["es"] == "unanimous" and language_policies(s)["el"] == "majority"
        row = s.get(ProjectSetting, "merge_policy")
        assert (row.value, row.updated_by) == ("majority", boss_id)
    assert _entries(sessions) == [
        ("policy", boss_id, None, "project", {"from": "any", "to": "majority"}),
        ("policy", boss_id, "es", "unanimous", {"from": None, "to": "unanimous", "project": "majority"}),
    ]
    # unchanged: nothing written, nothing logged
    with sessions.begin() as s:
        set_project_policy(s, None, "majority")
        set_language_policy(s, None, "es", "unanimous")
    assert len(_entries(sessions)) == 2
    # cleared from the command line (actor None): the project's applies again
    with sessions.begin() as s:
        set_language_policy(s, None, "es", None)
        set_project_policy(s, None, "any")
    with sessions() as s:
        assert language_policy(s, "es") == "any" and language_overrides(s) == {}
        assert s.get(ProjectSetting, "merge_policy").updated_by is None
    assert _entries(sessions)[2:] == [
        ("policy", None, "es", "project", {"from": "unanimous", "to": None, "project": "majority"}),
        ("policy", None, None, "project", {"from": "majority", "to": "any"}),
    ]


def test_bad_input_and_reviewers_are_refused_and_change_nothing(review_app, sessions, engine):
    before = table_snapshot(engine)
    with sessions.begin() as s:
        ana, boss = find_user(s, "ana@example.org"), find_user(s, BOSS)
        for call, error, words in [
            (lambda: set_project_policy(s, boss, "most"), InputError, "choose any, majority, unanimous"),
            (lambda: set_project_policy(s, boss, ""), InputError, "choose any, majority, unanimous"),
            (lambda: set_language_policy(s, boss, "es", "most"), InputError, "choose any, majority, unanimous"),
            (lambda: set_language_policy(s, boss, "xx", "majority"), NotFound, "unknown language 'xx'"),
            (lambda: set_language_policy(s, boss, "Not A Code", None), InputError, "not a language code"),
            (lambda: set_project_policy(s, ana, "majority"), Forbidden, "only a maintainer"),
            (lambda: set_language_policy(s, ana, "es", None), Forbidden, "only a maintainer"),
        ]:
            with pytest.raises(error, match=words) as raised:
                call()
            assert "\n" not in str(raised.value)
    assert table_snapshot(engine) == before

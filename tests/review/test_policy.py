"""The merge policy stored per project and overridable per language (issue 36 §3): the services
(set, clear, refused input, the activity log), `curator policy show|set|clear`, the dashboard's
form (maintainers only, CSRF), and the stored policy as the default of the preview, the
Proposals page and its API, `curator review proposals`, `release preview|build` and the
dashboard's follow-up counts."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from curator.core.enums import Activity, Policy, ProposalStatus
from curator.core.errors import Forbidden, InputError, NotFound
from curator.core.models import ActivityEntry, DatasetVersion, Language, ProjectSetting, Template
from curator.review.accounts import create_user, find_user
from curator.review.policy import (
    language_overrides,
    language_policies,
    language_policy,
    project_policy,
    set_language_policy,
    set_project_policy,
)
from curator.review.sampling import add_item, assign
from curator.review.service import decide, get_assignment
from curator.review.suggestions import suggest
from tests.plugins.databases import PASSWORD, table_snapshot
from tests.plugins.servers import Browser, csrf_from

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


# ---------------------------------------------------------------- the command line
def test_policy_commands_show_set_and_clear(review_app, cli, sessions):
    shown = json.loads(cli("policy", "show", "--json").output)
    assert shown["project"] == "any" and shown["languages"]["es"] == {"policy": "any", "override": False}
    assert cli("policy", "set", "majority").output.strip() == "project: merged under majority"
    assert cli("policy", "set", "unanimous", "--language", "es").output.strip() == "es: merged under unanimous"
    shown = json.loads(cli("policy", "show", "--json").output)
    assert shown["project"] == "majority"
    assert shown["languages"]["es"] == {"policy": "unanimous", "override": True}
    assert shown["languages"]["ar"] == {"policy": "majority", "override": False}
    lines = cli("policy", "show").output.splitlines()
    assert lines[0] == "project: majority"
    assert any(line.split() == ["es", "unanimous", "override"] for line in lines), lines
    assert any(line.split() == ["ar", "majority", "project"] for line in lines), lines
    out = cli("policy", "clear", "--language", "es").output
    assert out.strip() == "es: no override, merged under the project's policy (majority)"
    with sessions() as s:
        assert language_overrides(s) == {} and project_policy(s) == "majority"
        actors = {e.actor_id for e in s.scalars(select(ActivityEntry).where(ActivityEntry.action == Activity.POLICY))}
    assert actors == {None}  # three entries, all "command line"
    assert len(_entries(sessions)) == 3


def test_policy_commands_refuse_bad_input_in_one_line(review_app, cli, engine):
    before = table_snapshot(engine)
    for args, code, words in [
        (("policy", "set", "most"), 2, "'most' is not one of"),
        (("policy", "set", "any", "--language", "xx"), 1, "Error: unknown language 'xx'"),
        (("policy", "set", "any", "--language", "Not A Code"), 1, "not a language code"),
        (("policy", "clear"), 2, "Missing option '--language'"),
        (("policy", "clear", "--language", "xx"), 1, "Error: unknown language 'xx'"),
    ]:
        result = cli(*args, ok=False)
        assert result.exit_code == code and words in result.output, (args, result.output)
        if code == 1:
            assert result.output.count("\n") == 1, result.output
    assert table_snapshot(engine) == before


# ---------------------------------------------------------------- the stored policy as every default
def _decide(sessions, email: str, text: str, kind: str) -> None:
    with sessions.begin() as s:
        user = find_user(s, email)
        assignment = get_assignment(s, user, "es")
        row = s.scalar(
            select(Template).where(Template.language == "es", Template.relation_id == "P19", Template.text == text)
        )
        if row is None:  # the proposal's own template row, as the second-look queue makes it
            row = Template(language="es", relation_id="P19", text=text, is_candidate=False)
            s.add(row)
            s.flush()
        decide(s, user, assignment, add_item(s, assignment, row), kind)


@pytest.fixture
def split(review_app, sessions, cli):
    """v0 snapshotted; Ana's suggestion TEXT in es/P19, accepted by Bo and rejected by Cy: confirmed
    by two reviewers under `any` and `majority`, rejected by reviewers under `unanimous` (issue 36)."""
    cli("release", "build", "v0")
    with sessions.begin() as s:
        assign(s, create_user(s, "cy@example.org", PASSWORD, "reviewer", "Cy"), "es")
        ana = find_user(s, "ana@example.org")
        suggest(s, ana, get_assignment(s, ana, "es"), "P19", TEXT)
    _decide(sessions, "bo@example.org", TEXT, "accept")
    _decide(sessions, "cy@example.org", TEXT, "reject")


def _rejected(preview: dict) -> list[str]:
    return [w["pattern"] for r in preview["relations"] for w in r["rejected_proposals"]]


def test_the_commands_default_to_the_stored_policy(split, cli, sessions, tmp_path):
    def status() -> str:
        (p,) = [p for p in json.loads(cli("review", "proposals", "es", "--json").output) if p["text"] == TEXT]
        return p["status"]

    def preview(*args: str) -> dict:
        return json.loads(cli("release", "preview", "--language", "es", "--json", *args).output)

    assert status() == ProposalStatus.REVIEWERS and TEXT not in _rejected(preview())
    cli("policy", "set", "unanimous", "--language", "es")
    assert status() == ProposalStatus.REJECTED  # no --policy: es's stored one
    out = cli("review", "proposals", "es", "--status", "rejected").output
    assert TEXT in out and "(statuses under the stored policy of es: unanimous)" in out
    listed = cli("review", "proposals", "es", "--policy", "any", "--status", "rejected").output
    assert TEXT not in listed and "(statuses under policy any (--policy))" in listed  # the flag wins
    stored = preview()
    assert stored["policy"] is None and stored["policies"] == {"es": "unanimous"} and TEXT in _rejected(stored)
    assert TEXT not in _rejected(preview("--policy", "any"))
    assert "with the stored policy of es: unanimous:" in cli("release", "preview", "--language", "es").output
    # the build: the project's stored policy unless --policy says otherwise; the version records it
    cli("policy", "set", "unanimous")
    out = cli("release", "build", "r1", "--from-review").output
    assert "reviews applied with the stored policy: project unanimous; es unanimous" in out
    out = cli("release", "build", "r2", "--from-review", "--policy", "any").output
    assert "reviews applied with policy any (--policy)" in out
    with sessions() as s:
        params = {
            v.name: v.params for v in s.scalars(select(DatasetVersion).where(DatasetVersion.name.in_(["r1", "r2"])))
        }
    assert params["r1"]["policy"] == "unanimous" and params["r1"]["proposals"]["rejected"] == 1
    assert params["r2"]["policy"] == "any" and params["r2"]["proposals"]["rejected"] == 0
    assert params["r1"]["policies"]["es"] == "unanimous" and params["r2"]["policies"]["es"] == "any"
    # and the dataset card says the policy the version was built with
    cli("release", "export", "r1", tmp_path / "r1")
    assert "Reviews applied with the `unanimous` merge policy." in (tmp_path / "r1" / "README.md").read_text()


# ---------------------------------------------------------------- the dashboard's form
def _post(client: Browser, path: str, **data):
    return client.client.post(path, data={**data, "csrf_token": client.token})


def _without_sign_ins(engine) -> dict:
    return {k: v for k, v in table_snapshot(engine).items() if k != "login_sessions"}


def test_the_dashboard_shows_and_changes_the_stored_policy(review_app, sessions, engine):
    boss = Browser(review_app).login(BOSS)
    page = boss.get("/admin/").get_data(as_text=True)
    assert 'id="project-policy" data-policy="any"' in page and 'id="no-policy-overrides"' in page
    assert 'id="project-policy-form"' in page and 'id="language-policy-form"' in page
    assert '<option value="es">' in page  # every language of the table can get its own
    r = _post(boss, "/admin/merge-policy", policy="majority")
    assert r.status_code == 302 and r.headers["Location"].endswith("/admin/#merge-policy")
    assert _post(boss, "/admin/merge-policy", language="es", policy="unanimous").status_code == 302
    page = boss.get("/admin/").get_data(as_text=True)
    assert 'id="project-policy" data-policy="majority"' in page
    assert '<li data-language="es" data-policy="unanimous">' in page and 'id="no-policy-overrides"' not in page
    assert "Spanish is now merged under unanimous." in page  # the flash of the last change
    # the language page says its effective policy and where it comes from
    es = boss.get("/admin/languages/es").get_data(as_text=True)
    assert 'id="merge-policy" data-policy="unanimous"' in es and "Merge policy: unanimous (this language's own)." in es
    ar = boss.get("/admin/languages/ar").get_data(as_text=True)
    assert 'id="merge-policy" data-policy="majority"' in ar and "Merge policy: majority (the project's)." in ar
    # an empty policy with a language clears its override
    assert _post(boss, "/admin/merge-policy", language="es", policy="").status_code == 302
    with sessions() as s:
        assert project_policy(s) == "majority" and language_overrides(s) == {}
        boss_id = find_user(s, BOSS).id
    assert [(a, actor, lang, target) for a, actor, lang, target, _ in _entries(sessions)] == [
        ("policy", boss_id, None, "project"),
        ("policy", boss_id, "es", "unanimous"),
        ("policy", boss_id, "es", "project"),
    ]
    # refused: a 422 (or 404) with the reason on the dashboard, and nothing changed
    before = _without_sign_ins(engine)
    for data, status, words in [
        ({"policy": "most"}, 422, "“most” is not a merge policy"),
        ({}, 422, "is not a merge policy: choose any, majority or unanimous"),
        ({"language": "es", "policy": "most"}, 422, "“most” is not a merge policy"),
        ({"language": "xx", "policy": "any"}, 404, "unknown language"),
    ]:
        r = _post(boss, "/admin/merge-policy", **data)
        html = r.get_data(as_text=True).replace("&#39;", "'")
        assert r.status_code == status and words in html, (data, r.status_code)
    # a reviewer may not (403), nor a form without the CSRF token (400)
    ana = Browser(review_app).login("ana@example.org")
    assert _post(ana, "/admin/merge-policy", policy="unanimous").status_code == 403
    assert boss.client.post("/admin/merge-policy", data={"policy": "unanimous"}).status_code == 400
    assert _without_sign_ins(engine) == before


# ---------------------------------------------------------------- the pages default to the stored policy
def _shown(html: str) -> tuple[str, str]:
    """(data-policy, data-stored) of the page's "which policy" line."""
    attributes = html.split('id="policy-shown"', 1)[1].split(">", 1)[0]
    return attributes.split('data-policy="')[1].split('"')[0], attributes.split('data-stored="')[1].split('"')[0]


def test_the_pages_default_to_the_stored_policy(split, review_app, sessions):
    boss = Browser(review_app).login(BOSS)
    page, api = "/admin/languages/es/proposals", "/api/v1/languages/es/proposals"
    listed = boss.get(page + "?status=all").get_data(as_text=True)
    assert f'data-text="{TEXT}" data-status="reviewers"' in listed and _shown(listed) == ("any", "yes")
    assert _post(boss, "/admin/merge-policy", language="es", policy="unanimous").status_code == 302
    # the Proposals page: no ?policy=, es's stored one; Cy's reject: rejected by reviewers
    rejected = boss.get(page + "?status=rejected").get_data(as_text=True)
    assert f'data-text="{TEXT}" data-status="rejected"' in rejected and _shown(rejected) == ("unanimous", "yes")
    assert '<option value="" selected>' in rejected  # the filter's choice: the stored policy
    chosen = boss.get(page + "?policy=any&status=rejected").get_data(as_text=True)
    assert f'data-text="{TEXT}"' not in chosen and _shown(chosen) == ("any", "no")
    assert "Statuses under any, chosen here; this language's stored merge policy is unanimous." in chosen
    # its API: the same, and says which policy it used
    r = boss.get(api + "?status=rejected").get_json()
    assert [p["text"] for p in r["proposals"]] == [TEXT]
    assert (r["policy"], r["stored_policy"], r["policy_source"]) == ("unanimous", "unanimous", "stored")
    r = boss.get(api + "?status=rejected&policy=any").get_json()
    assert r["proposals"] == [] and (r["policy"], r["policy_source"]) == ("any", "query")
    # the preview: es judged under unanimous without ?policy=, and its build form keeps "stored"
    preview = boss.get("/admin/release/preview?language=es").get_data(as_text=True)
    assert _shown(preview) == ("", "yes") and '<input type="hidden" name="policy" value="">' in preview
    assert TEXT in preview.split('class="rejected-proposal"', 1)[1].split("</li>", 1)[0]
    assert 'href="/admin/languages/es/proposals?status=rejected"' in preview  # no policy: the stored one
    chosen = boss.get("/admin/release/preview?language=es&policy=any").get_data(as_text=True)
    assert 'class="rejected-proposal"' not in chosen and _shown(chosen) == ("any", "no")
    assert '<input type="hidden" name="policy" value="any">' in chosen
    # a line dropped from the preview brings it back without a policy (still the stored one)
    r = _post(boss, "/admin/release/drop-line", language="es", relation="P19", pattern=TEXT, reason="r", policy="")
    assert r.status_code == 302 and "policy" not in r.headers["Location"]


def test_the_build_and_the_follow_up_follow_the_stored_policy(split, review_app, sessions):
    boss = Browser(review_app).login(BOSS)

    def waiting_on_dashboard() -> str | None:
        html = boss.get("/admin/").get_data(as_text=True)
        if 'id="follow-up"' not in html or '<tr data-language="es">' not in html.split('id="follow-up"', 1)[1]:
            return None
        row = html.split('id="follow-up"', 1)[1].split('<tr data-language="es">', 1)[1].split("</tr>", 1)[0]
        return row.split('data-count="unconfirmed-proposals">', 1)[1].split(">", 1)[1].split("<", 1)[0]

    with sessions.begin() as s:  # a suggestion nobody else has looked at yet: waiting under every policy
        ana = find_user(s, "ana@example.org")
        suggest(s, ana, get_assignment(s, ana, "es"), "P19", "[X] vio la luz en [Y]")
    assert waiting_on_dashboard() == "1"  # under any: Bo's accept confirmed TEXT; the new one waits
    assert _post(boss, "/admin/merge-policy", policy="unanimous").status_code == 302
    # under the stored unanimous Cy's reject answers TEXT (rejected): still only the new one waits
    assert waiting_on_dashboard() == "1"
    assert "proposals: 1 waiting" in boss.get("/admin/").get_data(as_text=True)
    with sessions() as s:
        from curator.review.proposals import status_counts

        assert status_counts(s)["es"] == {"rejected": 1, "unconfirmed": 1}  # the dashboard's counts
    # the build form without a policy: the stored one
    page = boss.get("/admin/release/preview").get_data(as_text=True)
    r = boss.client.post(
        "/admin/release/build",
        data={"csrf_token": csrf_from(page), "name": "r1", "policy": "", "parent": "v0", "confirm": "1"},
    )
    assert r.status_code == 302, r.get_data(as_text=True)
    with sessions() as s:
        version = s.scalar(select(DatasetVersion).where(DatasetVersion.name == "r1"))
        assert version.params["proposals"]["rejected"] == 1 and version.params["proposals"]["withheld"] == 1
        shipped = s.scalars(
            select(Template.text).where(Template.text == TEXT)  # the row exists; the version must not hold it
        ).all()
    assert shipped and TEXT not in _version_patterns(sessions, "r1")


def _version_patterns(sessions, name: str) -> set[str]:
    from curator.core.models import VersionPattern

    with sessions() as s:
        version = s.scalar(select(DatasetVersion).where(DatasetVersion.name == name))
        return set(s.scalars(select(VersionPattern.pattern).where(VersionPattern.version_id == version.id)))

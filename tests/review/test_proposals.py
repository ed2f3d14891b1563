"""Proposals (issue 28 §1): an amendment's correction or a suggestion ships as checked by a human
only once confirmed — by a second reviewer, a trusted one, a maintainer or an import — under
every merge policy; the Proposals page, its commands, the version's counts and bad input."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from curator.core.enums import ProposalStatus
from curator.core.errors import InputError, NotFound
from curator.core.models import (
    ActivityEntry,
    DatasetVersion,
    ProposalReview,
    Template,
    VersionPattern,
)
from curator.review.accounts import find_user
from curator.review.policy import POLICIES
from curator.review.proposal_answers import review_proposal, set_trusted
from curator.review.proposals import proposals, status_counts
from curator.review.sampling import add_item
from curator.review.service import decide, get_assignment
from curator.review.suggestions import suggest
from tests.plugins.databases import PASSWORD, table_snapshot
from tests.plugins.servers import Browser, csrf_from, signed_in_state

pytestmark = pytest.mark.backends("sqlite", "postgresql")

LANG = "es"
# a line of `review import`: a suggestion confirmed by import
IMPORTED_SUGGESTION = {
    "reviewer": "eve@example.org",
    "language": LANG,
    "relation": "P19",
    "decision": "suggest",
    "correction": "[X] nació allá en [Y]",
}


# ---------------------------------------------------------------- helpers
def _candidates(sessions, relation: str) -> list[str]:
    with sessions() as s:
        return list(
            s.scalars(
                select(Template.text)
                .where(Template.language == LANG, Template.relation_id == relation, Template.is_candidate)
                .order_by(Template.id)
            )
        )


def _decide(sessions, email: str, relation: str, template: str, kind: str, correction: str | None = None) -> None:
    with sessions.begin() as s:
        user = find_user(s, email)
        assignment = get_assignment(s, user, LANG)
        row = s.scalar(
            select(Template).where(
                Template.language == LANG, Template.relation_id == relation, Template.text == template
            )
        )
        if row is None:  # a proposal's own template row, as the second-reviewer queue makes it
            row = Template(language=LANG, relation_id=relation, text=template, is_candidate=False)
            s.add(row)
            s.flush()
        decide(s, user, assignment, add_item(s, assignment, row), kind, correction)


def _suggest(sessions, email: str, relation: str, text: str) -> None:
    with sessions.begin() as s:
        user = find_user(s, email)
        suggest(s, user, get_assignment(s, user, LANG), relation, text)


def _status(sessions, relation: str, text: str) -> ProposalStatus | None:
    with sessions() as s:
        found = {(p.relation, p.text): p.status for p in proposals(s, LANG)}
    return found.get((relation, text))


def _boss(s):
    return find_user(s, "boss@example.org")


def _import(cli, tmp_path, rows: list[dict]) -> None:
    path = tmp_path / f"import-{len(list(tmp_path.glob('import-*')))}.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    cli("review", "import", path)


def _version_patterns(sessions, name: str, relation: str) -> dict[str, bool]:
    with sessions() as s:
        version = s.scalar(select(DatasetVersion).where(DatasetVersion.name == name))
        return dict(
            s.execute(
                select(VersionPattern.pattern, VersionPattern.checked_by_human).where(
                    VersionPattern.version_id == version.id,
                    VersionPattern.language == LANG,
                    VersionPattern.relation_id == relation,
                )
            ).all()
        )


# ---------------------------------------------------------------- the status rule
def test_status_rule_case_by_case(review_app, sessions, cli, tmp_path):
    p19 = _candidates(sessions, "P19")
    # 5. one reviewer's amendment: unconfirmed
    _decide(sessions, "ana@example.org", "P19", p19[0], "amend", "[X] vio la luz en [Y]")
    assert _status(sessions, "P19", "[X] vio la luz en [Y]") == ProposalStatus.UNCONFIRMED
    # 3. a second reviewer proposes the same text (here as a suggestion): reviewers
    _suggest(sessions, "bo@example.org", "P19", "[X] vio la luz en [Y]")
    assert _status(sessions, "P19", "[X] vio la luz en [Y]") == ProposalStatus.REVIEWERS
    # 4. trusted: Ana's own suggestion counts once she is trusted in Spanish, and not after
    _suggest(sessions, "ana@example.org", "P19", "[X] vino al mundo en [Y]")
    assert _status(sessions, "P19", "[X] vino al mundo en [Y]") == ProposalStatus.UNCONFIRMED
    with sessions.begin() as s:
        set_trusted(s, _boss(s), "ana@example.org", LANG, True)
    assert _status(sessions, "P19", "[X] vino al mundo en [Y]") == ProposalStatus.TRUSTED
    with sessions.begin() as s:
        set_trusted(s, _boss(s), "ana@example.org", LANG, False)
    assert _status(sessions, "P19", "[X] vino al mundo en [Y]") == ProposalStatus.UNCONFIRMED
    # 3. a reviewer who did not propose it accepts its template row ("proposed by another reviewer")
    _suggest(sessions, "ana@example.org", "P36", "[Y] es la capital de [X]")
    _decide(sessions, "bo@example.org", "P36", "[Y] es la capital de [X]", "reject")
    # issue 36: a second reviewer's reject is an answer, not "waiting for a second look"
    assert _status(sessions, "P36", "[Y] es la capital de [X]") == ProposalStatus.REJECTED
    _decide(sessions, "bo@example.org", "P36", "[Y] es la capital de [X]", "accept")
    assert _status(sessions, "P36", "[Y] es la capital de [X]") == ProposalStatus.REVIEWERS
    with sessions() as s:
        (p,) = [p for p in proposals(s, LANG) if p.text == "[Y] es la capital de [X]"]
        assert p.kind == "suggestion" and p.proposers == ["ana@example.org"]
        assert [(v.reviewer, v.decision) for v in p.verdicts] == [("bo@example.org", "accept")]
        (amendment,) = [p for p in proposals(s, LANG) if p.text == "[X] vio la luz en [Y]"]
        assert amendment.kind == "amendment" and amendment.amends == p19[0]
        assert amendment.proposers == ["ana@example.org", "bo@example.org"]
    # 2. a line of `review import`: import
    _import(
        cli,
        tmp_path,
        [IMPORTED_SUGGESTION],
    )
    assert _status(sessions, "P19", "[X] nació allá en [Y]") == ProposalStatus.IMPORT
    # 1. a maintainer's answer comes first: drop beats import, confirm beats unconfirmed
    with sessions.begin() as s:
        review_proposal(s, _boss(s), LANG, "P19", "[X] nació allá en [Y]", "drop", "not natural")
        review_proposal(s, _boss(s), LANG, "P19", "[X] vino al mundo en [Y]", "confirm")
    assert _status(sessions, "P19", "[X] nació allá en [Y]") == ProposalStatus.DROPPED
    assert _status(sessions, "P19", "[X] vino al mundo en [Y]") == ProposalStatus.MAINTAINER
    with sessions() as s:
        assert status_counts(s)[LANG] == {"dropped": 1, "maintainer": 1, "reviewers": 2}
        actions = [a for (a,) in s.execute(select(ActivityEntry.action).order_by(ActivityEntry.id))]
        assert [a for a in actions if a != "import"] == [
            "trust",
            "distrust",
            "proposal",
            "proposal",
        ]  # import: the sheets
        (dropped,) = [p for p in proposals(s, LANG) if p.status == ProposalStatus.DROPPED]
        assert dropped.review.maintainer == "boss@example.org" and dropped.review.reason == "not natural"


# ---------------------------------------------------------------- the merge, under every policy
@pytest.fixture
def proposed(review_app, sessions, cli, tmp_path):
    """v0 snapshotted; in P19: Ana's amendment waiting (unconfirmed), Ana's suggestion equal to an
    unreviewed candidate (unconfirmed), and a suggestion of Ana's that Bo proposed too (confirmed)."""
    cli("release", "build", "v0")
    p19 = _candidates(sessions, "P19")
    assert len(p19) >= 4
    _decide(sessions, "ana@example.org", "P19", p19[0], "amend", "[X] vio la luz en [Y]")
    _decide(sessions, "bo@example.org", "P19", p19[0], "accept")  # the candidate itself stays under `any`
    _suggest(sessions, "ana@example.org", "P19", p19[-1])  # equals a candidate nobody reviewed
    for email in ("ana@example.org", "bo@example.org"):
        _suggest(sessions, email, "P19", "[X] vino al mundo en [Y]")
    return p19


@pytest.mark.parametrize("policy", ["any", "majority", "unanimous"])
def test_every_policy_ships_no_unconfirmed_proposal(proposed, sessions, cli, policy):
    p19 = proposed
    preview = json.loads(cli("release", "preview", "--policy", policy, "--language", LANG, "--json").output)
    (plan,) = [r for r in preview["relations"] if r["relation"] == "P19"]
    assert [w["pattern"] for w in plan["waiting"]] == ["[X] vio la luz en [Y]"]
    assert all(not w["checked"] for w in plan["waiting"])
    # the suggestion equal to a candidate nobody reviewed: the candidate ships unchecked (rule 10)
    outcome = {o["text"]: o for o in plan["outcomes"]}[p19[-1]]
    assert (outcome["outcome"], outcome["rule"]) == ("shipped-unreviewed", 10)
    text = cli("release", "preview", "--policy", policy, "--language", LANG).output
    assert "? [X] vio la luz en [Y]   (amended: waiting for a second look, not shipped)" in text
    cli("release", "build", f"r-{policy}", "--from-review", "--policy", policy)
    patterns = _version_patterns(sessions, f"r-{policy}", "P19")
    assert "[X] vio la luz en [Y]" not in patterns  # the unconfirmed amendment is withheld
    assert patterns[p19[-1]] is False  # the equal unconfirmed suggestion does not check the candidate
    assert patterns["[X] vino al mundo en [Y]"] is True  # two reviewers proposed it
    with sessions() as s:
        version = s.scalar(select(DatasetVersion).where(DatasetVersion.name == f"r-{policy}"))
        assert version.params["proposals"] == {
            "reviewers": 1,
            "trusted": 0,
            "maintainer": 0,
            "import": 0,
            "withheld": 1,
            "rejected": 0,
            "dropped": 0,
        }


def test_edit_drop_trust_and_counts_in_manifest_and_card(proposed, sessions, cli, tmp_path):
    p19 = proposed
    # the maintainer edits the waiting amendment from the command line, with a reason
    out = cli(
        "review",
        "confirm",
        LANG,
        "P19",
        "[X] vio la luz en [Y]",
        "--edit",
        "[X] vio la luz por primera vez en [Y]",
        "--reason",
        "more natural",
    ).output
    assert "[X] vio la luz por primera vez en [Y] is now maintainer" in out
    with sessions() as s:
        rows = s.execute(
            select(
                ProposalReview.text, ProposalReview.verdict, ProposalReview.edited_from, ProposalReview.edited_to
            ).order_by(ProposalReview.id)
        ).all()
        assert [tuple(r) for r in rows] == [
            ("[X] vio la luz en [Y]", "drop", None, "[X] vio la luz por primera vez en [Y]"),
            ("[X] vio la luz por primera vez en [Y]", "confirm", "[X] vio la luz en [Y]", None),
        ]
        edited = {p.text: p for p in proposals(s, LANG)}["[X] vio la luz por primera vez en [Y]"]
        assert edited.kind == "amendment" and edited.proposers == [] and edited.review.reason == "more natural"
    # the equal-to-a-candidate suggestion is dropped; trusting Bo confirms his later suggestion
    cli("review", "drop", LANG, "P19", p19[-1])
    assert "is trusted in es" in cli("user", "trust", "bo@example.org", LANG).output
    _suggest(sessions, "bo@example.org", "P19", "[X] fue alumbrado en [Y]")
    listing = json.loads(cli("review", "proposals", LANG, "--json").output)
    assert {p["text"]: p["status"] for p in listing} == {
        "[X] vio la luz en [Y]": "superseded",  # edited by the maintainer
        "[X] vio la luz por primera vez en [Y]": "maintainer",
        p19[-1]: "dropped",
        "[X] vino al mundo en [Y]": "reviewers",
        "[X] fue alumbrado en [Y]": "trusted",
    }
    assert "1 proposals" in cli("review", "proposals", LANG, "--status", "trusted").output
    built = cli("release", "build", "r1", "--from-review").output
    assert "proposals: 1 lines confirmed by two reviewers, 1 by a trusted reviewer, 1 by a maintainer" in built
    patterns = _version_patterns(sessions, "r1", "P19")
    assert patterns["[X] vio la luz por primera vez en [Y]"] is True
    assert patterns["[X] fue alumbrado en [Y]"] is True
    # a maintainer's drop of a text drops it, a parent line too (rule 2)
    assert "[X] vio la luz en [Y]" not in patterns and p19[-1] not in patterns
    cli("release", "export", "r1", tmp_path / "r1")
    manifest = json.loads((tmp_path / "r1" / "manifest.json").read_text(encoding="utf-8"))
    counts = {"reviewers": 1, "trusted": 1, "maintainer": 1, "import": 0, "withheld": 0, "rejected": 0, "dropped": 1}
    assert manifest["params"]["proposals"] == counts
    card = (tmp_path / "r1" / "README.md").read_text(encoding="utf-8")
    assert (
        "1 lines were confirmed by two reviewers, 1 by one trusted reviewer, 1 by a maintainer and 0 by import"
        " (sheets reviewed before); 0 proposals were withheld unconfirmed, 0 rejected by reviewers and 1 dropped"
        " by a maintainer." in card
    )
    with sessions() as s:
        actions = [a for (a,) in s.execute(select(ActivityEntry.action).order_by(ActivityEntry.id))]
        ours = [a for a in actions if a in ("proposal", "trust", "distrust")]  # besides snapshot, build, export
        assert ours == ["proposal", "proposal", "trust"]


def test_import_lines_are_confirmed_by_import(review_app, sessions, cli, tmp_path):
    cli("release", "build", "v0")
    p19 = _candidates(sessions, "P19")
    _import(
        cli,
        tmp_path,
        [
            {
                "reviewer": "ana@example.org",
                "language": LANG,
                "relation": "P19",
                "template": p19[0],
                "decision": "amend",
                "correction": "[X] vio la luz en [Y]",
            },
            {
                "reviewer": "ana@example.org",
                "language": LANG,
                "relation": "P19",
                "decision": "suggest",
                "correction": "[X] vino al mundo en [Y]",
            },
        ],
    )
    cli("release", "build", "r-import", "--from-review")
    patterns = _version_patterns(sessions, "r-import", "P19")
    assert patterns["[X] vio la luz en [Y]"] is True and patterns["[X] vino al mundo en [Y]"] is True
    with sessions() as s:
        version = s.scalar(select(DatasetVersion).where(DatasetVersion.name == "r-import"))
        assert version.params["proposals"]["import"] == 2 and version.params["proposals"]["withheld"] == 0


# ---------------------------------------------------------------- bad input
def test_bad_input_changes_nothing(review_app, sessions, cli, engine):
    _suggest(sessions, "ana@example.org", "P19", "[X] vino al mundo en [Y]")
    before = {k: v for k, v in table_snapshot(engine).items() if k != "login_sessions"}
    with sessions() as s:
        with pytest.raises(NotFound, match="no proposal"):
            review_proposal(s, _boss(s), LANG, "P19", "[X] nunca propuesto [Y]", "confirm")
        with pytest.raises(InputError, match=r"field 'edited_to'.*object slot"):
            review_proposal(s, _boss(s), LANG, "P19", "[X] vino al mundo en [Y]", "confirm", edited_to="[X] sin objeto")
        with pytest.raises(InputError, match="field 'verdict'"):
            review_proposal(s, _boss(s), LANG, "P19", "[X] vino al mundo en [Y]", "maybe")
        with pytest.raises(NotFound, match="does not review es"):
            set_trusted(s, _boss(s), "eleni@example.org", LANG, True)
        s.rollback()
    result = cli("review", "drop", LANG, "P19", "[X] nunca propuesto [Y]", ok=False)
    assert result.exit_code == 1 and "no proposal" in result.output and "Traceback" not in result.output
    assert cli("user", "trust", "nobody@example.org", LANG, ok=False).exit_code == 1
    # the web: a reviewer is refused the maintainer routes; a maintainer's bad form is a 4xx
    # naming the problem, the form kept; no CSRF token: 400
    url = f"/admin/languages/{LANG}/proposals"
    ana = Browser(review_app).login("ana@example.org")
    assert ana.get(url).status_code == 403
    form = {"relation": "P19", "text": "[X] vino al mundo en [Y]", "action": "confirm"}
    assert ana.client.post(url, data={**form, "csrf_token": ana.token}).status_code == 403
    assert (
        ana.client.post(
            f"/admin/languages/{LANG}/trusted",
            data={"email": "ana@example.org", "trusted": "1", "csrf_token": ana.token},
        ).status_code
        == 403
    )
    boss = Browser(review_app).login("boss@example.org")
    assert boss.client.post(url, data=form).status_code == 400
    bad = boss.client.post(url, data={**form, "action": "edit", "edited": "[X] sin objeto", "csrf_token": boss.token})
    assert bad.status_code == 422 and "field &#39;edited_to&#39;" in bad.get_data(as_text=True)
    assert 'value="[X] sin objeto"' in bad.get_data(as_text=True)
    missing = boss.client.post(url, data={**form, "text": "[X] nunca propuesto [Y]", "csrf_token": boss.token})
    assert missing.status_code == 404 and "no proposal" in missing.get_data(as_text=True)
    assert boss.client.post(url, data={**form, "action": "hmm", "csrf_token": boss.token}).status_code == 422
    trust = boss.client.post(
        f"/admin/languages/{LANG}/trusted",
        data={"email": "ana@example.org", "trusted": "yes", "csrf_token": boss.token},
    )
    assert trust.status_code == 422
    after = table_snapshot(engine)
    assert {k: v for k, v in after.items() if k != "login_sessions"} == before  # the sign-ins only


def test_page_escapes_user_text_and_filters(review_app, sessions):
    evil = "[X] <script>alert(1)</script> [Y]"
    _suggest(sessions, "ana@example.org", "P19", evil)
    boss = Browser(review_app).login("boss@example.org")
    assert 'id="proposals-link"' in boss.get(f"/admin/languages/{LANG}").get_data(as_text=True)
    assert "proposals: 1 waiting" in boss.get("/admin/").get_data(as_text=True)
    page = boss.get(f"/admin/languages/{LANG}/proposals").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page
    assert "&lt;script&gt;" not in boss.get(f"/admin/languages/{LANG}/proposals?status=trusted").get_data(as_text=True)


# ---------------------------------------------------------------- the JSON API
def test_the_api_lists_and_answers_proposals(review_app, sessions, engine):
    for text in ("[X] vio la luz en [Y]", "[X] vino al mundo en [Y]", "[X] fue alumbrado en [Y]"):
        _suggest(sessions, "ana@example.org", "P19", text)
    for email in ("ana@example.org", "bo@example.org"):  # confirmed by two reviewers
        _suggest(sessions, email, "P19", "[X] nació allí en [Y]")
    url = f"/api/v1/languages/{LANG}/proposals"
    boss = Browser(review_app).login("boss@example.org")
    listed = boss.get(url)
    assert listed.status_code == 200 and listed.json["status"] == "all"
    assert listed.json["counts"] == {"unconfirmed": 3, "reviewers": 1}
    waiting = boss.get(url + "?status=unconfirmed").json["proposals"]
    assert sorted(p["text"] for p in waiting) == [
        "[X] fue alumbrado en [Y]",
        "[X] vino al mundo en [Y]",
        "[X] vio la luz en [Y]",
    ]
    assert waiting[0]["proposers"] == ["ana@example.org"] and waiting[0]["review"] is None
    # bad input: a JSON error naming the field, nothing changed
    before = {k: v for k, v in table_snapshot(engine).items() if k != "login_sessions"}
    ok = {"relation": "P19", "text": "[X] vio la luz en [Y]", "action": "confirm"}
    for body, field, status in [
        ({**ok, "relation": None}, "relation", 422),
        ({k: v for k, v in ok.items() if k != "text"}, "text", 422),
        ({**ok, "action": "maybe"}, "action", 422),
        ({**ok, "action": "edit"}, "edited_to", 422),  # an edit without its new text
        ({**ok, "action": "edit", "edited_to": "[X] sin objeto"}, "edited_to", 422),
        ({**ok, "edited_to": "[X] en [Y]"}, "edited_to", 422),  # only an edit takes one
        ({**ok, "reason": ["a list"]}, "reason", 422),
        ({**ok, "text": "[X] nunca propuesto [Y]"}, "no proposal", 404),
    ]:
        r = boss.post(url, json=body)
        assert r.status_code == status and field in r.json["error"], (body, r.json)
    bad_filter = boss.get(url + "?status=maybe")
    assert bad_filter.status_code == 422 and bad_filter.json["error"].startswith("field 'status': ")
    assert boss.get("/api/v1/languages/Not-A-Code/proposals").status_code == 422
    # reviewers are refused (403), anonymous callers asked to sign in (401), with a JSON error
    ana = Browser(review_app).login("ana@example.org")
    assert ana.get(url).status_code == 403 and "error" in ana.get(url).json
    assert ana.post(url, json=ok).status_code == 403
    anonymous = review_app.test_client()
    token = csrf_from(anonymous.get("/login").get_data(as_text=True))  # past CSRF: the sign-in is what is missing
    assert anonymous.get(url).status_code == 401
    assert anonymous.post(url, json=ok, headers={"X-CSRFToken": token}).status_code == 401
    after = {k: v for k, v in table_snapshot(engine).items() if k != "login_sessions"}
    assert after == before
    # confirm, edit, drop: each answer is the proposal as it stands now, and in the activity log
    confirmed = boss.post(url, json={**ok, "reason": "natural"})
    assert confirmed.status_code == 200 and confirmed.json["proposal"]["status"] == "maintainer"
    assert confirmed.json["proposal"]["review"]["reason"] == "natural"
    edit = {"relation": "P19", "text": "[X] vino al mundo en [Y]", "action": "edit"}
    edited = boss.post(url, json={**edit, "edited_to": "[X] vino al mundo en la ciudad de [Y]"}).json["proposal"]
    assert edited["text"] == "[X] vino al mundo en la ciudad de [Y]" and edited["status"] == "maintainer"
    assert edited["review"]["edited_from"] == "[X] vino al mundo en [Y]"
    drop = {"relation": "P19", "text": "[X] fue alumbrado en [Y]", "action": "drop", "reason": "odd"}
    assert boss.post(url, json=drop).json["proposal"]["status"] == "dropped"
    assert boss.get(url + "?status=unconfirmed").json["proposals"] == []
    assert boss.get(url).json["counts"] == {"maintainer": 2, "dropped": 1, "superseded": 1, "reviewers": 1}
    with sessions() as s:
        actions = s.scalars(select(ActivityEntry.action).where(ActivityEntry.action == "proposal")).all()
        assert len(actions) == 3
        assert len(s.scalars(select(ProposalReview)).all()) == 4  # an edit: the old text dropped, the new confirmed


def test_the_page_shows_unconfirmed_ones_by_default_fifty_a_page(review_app, sessions, cli, tmp_path):
    with sessions.begin() as s:
        ana = find_user(s, "ana@example.org")
        assignment = get_assignment(s, ana, LANG)
        for n in range(52):
            suggest(s, ana, assignment, "P19", f"[X] vio la luz número {n:02d} en [Y]")
    _import(  # an imported line: confirmed, shown under "all" only
        cli,
        tmp_path,
        [IMPORTED_SUGGESTION],
    )
    boss = Browser(review_app).login("boss@example.org")
    url = f"/admin/languages/{LANG}/proposals"
    first = boss.get(url).get_data(as_text=True)
    assert first.count('data-status="unconfirmed"') == 50 and 'data-status="import"' not in first
    assert '<option value="unconfirmed" selected' in first and '<option value="all" >' in first
    assert "page 1 of 2" in first and f'href="{url}?status=unconfirmed&amp;page=2"' in first
    second = boss.get(url + "?status=unconfirmed&page=2").get_data(as_text=True)
    assert second.count('data-status="unconfirmed"') == 2 and f'href="{url}?status=unconfirmed&amp;page=1"' in second
    every = boss.get(url + "?status=all").get_data(as_text=True)
    assert every.count("<tr data-relation") == 50 and f'href="{url}?status=all&amp;page=2"' in every
    assert 'data-status="import"' in boss.get(url + "?status=import").get_data(as_text=True)
    assert boss.get(url + "?status=maybe").status_code == 422
    assert boss.get(url + "?page=0").status_code == 422
    # an answer on page 2 comes back to page 2 of the same filter
    answered = boss.client.post(
        url,
        data={
            "csrf_token": boss.token,
            "relation": "P19",
            "text": "[X] vio la luz número 51 en [Y]",
            "action": "confirm",
            "filter": "unconfirmed",
            "page": "2",
        },
    )
    assert answered.status_code == 302 and answered.headers["Location"].endswith(
        f"{url}?status=unconfirmed&page=2"  # no policy asked: the links keep the stored one
    )
    again = boss.get(url + "?status=unconfirmed&page=2").get_data(as_text=True)
    assert again.count('data-status="unconfirmed"') == 1


# ---------------------------------------------------------------- one walk in Chromium
@pytest.mark.backends("sqlite")  # one browser walk; the services above run on both backends
def test_proposals_page_in_the_browser(chromium, live, sessions, cli):
    cli("release", "build", "v0")
    for text in ("[X] vio la luz en [Y]", "[X] vino al mundo en [Y]", "[X] fue alumbrado en [Y]"):
        _suggest(sessions, "ana@example.org", "P19", text)
    context = chromium.new_context()
    page = context.new_page()
    try:
        state = signed_in_state(live.url, "boss@example.org")
        if state is not None:
            context.add_cookies(state["cookies"])
        else:
            page.goto(live.url + "/login")
            page.fill("input[name=email]", "boss@example.org")
            page.fill("input[name=password]", PASSWORD)
            page.keyboard.press("Enter")
            page.wait_for_url(live.url + "/admin/")
        page.goto(f"{live.url}/admin/languages/{LANG}")
        page.click("#proposals-link")
        page.select_option("#proposal-filter select[name=status]", "all")  # unconfirmed by default
        page.click("#proposal-filter button[type=submit]")
        page.wait_for_url("**status=all**")
        row = page.locator('tr[data-text="[X] vio la luz en [Y]"]')
        row.locator("button[value=confirm]").click()
        page.wait_for_selector('tr[data-text="[X] vio la luz en [Y]"][data-status="maintainer"]')
        row = page.locator('tr[data-text="[X] vino al mundo en [Y]"]')
        row.locator("input[name=edited]").fill("[X] vino al mundo en la ciudad de [Y]")
        row.locator("input[name=reason]").fill("more precise")
        row.locator("button[value=edit]").click()
        page.wait_for_selector('tr[data-text="[X] vino al mundo en la ciudad de [Y]"][data-status="maintainer"]')
        assert "more precise" in page.locator('tr[data-text="[X] vino al mundo en la ciudad de [Y]"]').inner_text()
        page.locator('tr[data-text="[X] fue alumbrado en [Y]"] button[value=drop]').click()
        page.wait_for_selector('tr[data-text="[X] fue alumbrado en [Y]"][data-status="dropped"]')
        assert "boss@example.org" in page.locator('tr[data-text="[X] fue alumbrado en [Y]"]').inner_text()
        page.locator('li[data-reviewer="bo@example.org"] button').click()
        page.wait_for_selector('li[data-reviewer="bo@example.org"][data-trusted="1"]')
        page.goto(f"{live.url}/admin/release/preview")
        card = page.locator('.plan-card[data-relation="P19"]')
        added = card.locator("li.added").all_inner_texts()
        assert any("[X] vio la luz en [Y]" in t for t in added)
        assert any("[X] vino al mundo en la ciudad de [Y]" in t for t in added)
        dropped = card.locator("li.dropped-proposal").all_inner_texts()
        assert any("[X] vino al mundo en [Y]" in t for t in dropped) and any(
            "[X] fue alumbrado en [Y]" in t for t in dropped
        )
        assert page.locator("#proposal-counts").get_attribute("data-withheld") == "0"
    finally:
        context.close()


# ---------------------------------------------------------------- resolutions and policies decide proposals
def _cy(sessions) -> None:
    """A third Spanish reviewer."""
    from curator.review.accounts import create_user
    from curator.review.sampling import assign

    with sessions.begin() as s:
        assign(s, create_user(s, "cy@example.org", PASSWORD, "reviewer", "Cy"), LANG)


def _p19_plan(sessions, policy: str):
    from curator.release.merge import latest_candidates, plan

    with sessions() as s:
        (p19,) = [p for p in plan(s, latest_candidates(s), policy, [LANG]) if p.relation == "P19"]
    return p19


def _row(sessions, relation: str, text: str) -> int:
    with sessions() as s:
        return s.scalar(
            select(Template.id).where(
                Template.language == LANG, Template.relation_id == relation, Template.text == text
            )
        )


def test_a_resolution_decides_proposals_under_every_policy(review_app, sessions, cli):
    from curator.review.follow_up import follow_up
    from curator.review.resolutions import disagreements

    cli("release", "build", "v0")
    _cy(sessions)
    p19 = _candidates(sessions, "P19")
    light, first, second = "[X] vio la luz en [Y]", "[X] vino al mundo en [Y]", "[X] fue alumbrado en [Y]"
    by = ("--by", "boss@example.org")
    # Ana's amendment: Bo accepts it in his queue, Cy rejects it; the page lists its row; resolved reject
    _decide(sessions, "ana@example.org", "P19", p19[0], "amend", light)
    _decide(sessions, "bo@example.org", "P19", light, "accept")
    _decide(sessions, "cy@example.org", "P19", light, "reject")
    with sessions() as s:
        assert light in {d["template"] for d in disagreements(s, LANG)}
    cli("review", "resolve", str(_row(sessions, "P19", light)), "reject", "--reason", "not P19's wording", *by)
    # a candidate resolved reject, then suggested by Ana and Bo
    cli("review", "resolve", str(_row(sessions, "P19", p19[1])), "reject", "--reason", "origin, not birth", *by)
    for email in ("ana@example.org", "bo@example.org"):
        _suggest(sessions, email, "P19", p19[1])
    # Ana's amendment of a template the maintainer then resolved: settled, not shipped
    _decide(sessions, "bo@example.org", "P19", p19[2], "amend", "[X] nació allá en [Y]")
    cli("review", "resolve", str(_row(sessions, "P19", p19[2])), "accept", "--reason", "fine as it is", *by)
    # resolutions of suggestions' rows (their queue items): accept; amend to another text
    _suggest(sessions, "ana@example.org", "P19", first)
    _suggest(sessions, "ana@example.org", "P19", second)
    cli("review", "resolve", str(_row(sessions, "P19", first)), "accept", "--reason", "natural", *by)
    cli(
        "review", "resolve", str(_row(sessions, "P19", second)), "amend", "--reason", "tense",
        "--correction", "[X] fue alumbrada en [Y]", *by,
    )  # fmt: skip
    for policy in ("any", "majority", "unanimous"):
        plan = _p19_plan(sessions, policy)
        shipped = {e.pattern: (e.checked, e.confirmed) for e in plan.patterns}
        assert light not in shipped and p19[1] not in shipped and second not in shipped, policy
        assert "[X] nació allá en [Y]" not in shipped, policy
        assert shipped[first] == (True, "maintainer") and shipped["[X] fue alumbrada en [Y]"] == (True, "maintainer")
        apart = {d.pattern: d.reason for d in plan.dropped_proposals}
        assert apart[light] == "resolution: reject by boss@example.org: not P19's wording", policy
        # a parent line has one outcome: taken out by the resolution (not also a dropped proposal)
        assert p19[1] not in apart and {r["pattern"]: r["decisions"] for r in plan.removed}[p19[1]] == [
            "resolution: reject"
        ], policy
        assert apart[second].startswith("resolution: amend"), policy
        assert not plan.waiting, policy
        assert {r["template"] for r in plan.resolutions} == {light, p19[1], p19[2], first, second}, policy
    preview = cli("release", "preview", "--language", LANG).output
    assert f"x {light}   (amended: resolution: reject by boss@example.org: not P19's wording)" in preview
    with sessions() as s:
        found = {p.text: p for p in proposals(s, LANG, policy="unanimous")}
        assert {t: found[t].status for t in (light, p19[1], "[X] nació allá en [Y]", first, second)} == {
            light: ProposalStatus.SETTLED,  # issue 36: decided by a resolution, whatever its verdict
            p19[1]: ProposalStatus.SETTLED,
            "[X] nació allá en [Y]": ProposalStatus.SETTLED,
            first: ProposalStatus.MAINTAINER,
            second: ProposalStatus.SETTLED,
        }
        assert found[light].resolution["reason"] == "not P19's wording"
        assert found[light].to_dict()["resolution"]["verdict"] == "reject"
        assert LANG not in follow_up(s)  # nothing left waiting for a maintainer
    page = Browser(review_app).login("boss@example.org").get(f"/admin/languages/{LANG}/proposals?status=settled")
    html = page.get_data(as_text=True)
    assert 'data-status="settled"' in html and 'data-status="dropped"' not in html


def test_second_reviewers_verdicts_follow_the_policy(review_app, sessions, cli):
    cli("release", "build", "v0")
    _cy(sessions)
    text = "[X] vino al mundo en [Y]"
    _suggest(sessions, "ana@example.org", "P19", text)
    _decide(sessions, "bo@example.org", "P19", text, "accept")
    _decide(sessions, "cy@example.org", "P19", text, "reject")
    assert text in {e.pattern for e in _p19_plan(sessions, "any").added}
    unanimous = _p19_plan(sessions, "unanimous")
    rejected = {r.pattern for r in unanimous.rejected_proposals}
    assert text not in {e.pattern for e in unanimous.patterns} and text in rejected
    with sessions() as s:
        status = {policy: {p.text: p.status for p in proposals(s, LANG, policy=policy)}[text] for policy in POLICIES}
    assert status == {
        "any": ProposalStatus.REVIEWERS,
        "majority": ProposalStatus.REVIEWERS,  # Ana (her own text), Bo: two of three
        "unanimous": ProposalStatus.REJECTED,  # Cy's reject: rejected by reviewers (issue 36)
    }
    # the page and the API judge under the policy asked for (the preview's link passes its own)
    boss = Browser(review_app).login("boss@example.org")
    for policy, listed in (("any", False), ("unanimous", True)):
        html = boss.get(f"/admin/languages/{LANG}/proposals?status=rejected&policy={policy}").get_data(as_text=True)
        assert (f'data-text="{text}"' in html) is listed, policy
        r = boss.get(f"/api/v1/languages/{LANG}/proposals?status=rejected&policy={policy}")
        assert ([p["text"] for p in r.get_json()["proposals"]] == [text]) is listed, policy
    assert boss.get(f"/api/v1/languages/{LANG}/proposals?policy=most").status_code == 422
    assert "policy=unanimous" in boss.get("/admin/release/preview?policy=unanimous").get_data(as_text=True)


def test_an_unconfirmed_text_equal_to_a_checked_candidate_is_not_withheld(review_app, sessions, cli):
    cli("release", "build", "v0")
    p19 = _candidates(sessions, "P19")
    _decide(sessions, "bo@example.org", "P19", p19[1], "accept")
    _suggest(sessions, "bo@example.org", "P19", p19[1])
    # one outcome: the candidate Bo accepted ships checked, so his proposal of it is confirmed (rule 7)
    assert _status(sessions, "P19", p19[1]) == ProposalStatus.REVIEWERS
    plan = _p19_plan(sessions, "any")
    assert p19[1] in {k.pattern for k in plan.kept if k.checked}
    assert p19[1] not in {w.pattern for w in plan.waiting}


def test_a_line_a_maintainer_edited_can_be_dropped(review_app, sessions, cli):
    cli("release", "build", "v0")
    _suggest(sessions, "ana@example.org", "P19", "[X] vino al mundo en [Y]")
    cli("review", "confirm", LANG, "P19", "[X] vino al mundo en [Y]", "--edit", "[X] vino al mundo allá en [Y]")
    line = (LANG, "P19", "[X] vino al mundo allá en [Y]")
    assert line[2] in {e.pattern for e in _p19_plan(sessions, "any").added}
    cli("release", "drop-line", *line, "--reason", "regional", "--by", "boss@example.org")
    plan = _p19_plan(sessions, "any")
    assert line[2] not in {e.pattern for e in plan.patterns}
    assert [d["reason"] for d in plan.line_drops] == ["regional"]


def test_no_line_twice_and_a_dropped_correction_stays_out(review_app, sessions, cli):
    """Re-review of issue 28: an amendment equal to a LATER candidate, confirmed (trusted), makes
    that candidate checked rather than shipping the line twice, and a resolution is recorded
    once; a resolution's correction that a maintainer then drops on the Proposals page does not
    ship (the page says "it does not ship")."""
    cli("release", "build", "v0")
    cli("user", "trust", "ana@example.org", LANG)
    p19 = _candidates(sessions, "P19")
    by = ("--by", "boss@example.org")
    _decide(sessions, "ana@example.org", "P19", p19[0], "amend", p19[-1])  # the text of the last candidate
    cli("review", "resolve", str(_row(sessions, "P19", p19[-1])), "accept", "--reason", "fine", *by)
    changed = "[X] fue dado a luz en [Y]"
    cli("review", "resolve", str(_row(sessions, "P19", p19[1])), "amend", "--reason", "r", "--correction", changed, *by)
    _suggest(sessions, "bo@example.org", "P19", changed)  # the same text, proposed by a reviewer
    cli("review", "drop", LANG, "P19", changed, "--reason", "no, after all", *by)
    # and a resolution whose correction is a later candidate's text
    cli("review", "resolve", str(_row(sessions, "P19", p19[2])), "amend", "--reason", "r", "--correction", p19[3], *by)
    for policy in ("any", "majority", "unanimous"):
        plan = _p19_plan(sessions, policy)
        lines = [e.pattern for e in plan.patterns]
        assert len(lines) == len(set(lines)), policy  # no line twice
        assert lines.count(p19[3]) == 1, policy
        assert lines.count(p19[-1]) == 1 and next(e for e in plan.patterns if e.pattern == p19[-1]).checked
        ids = [r["id"] for r in plan.resolutions]
        assert len(ids) == len(set(ids)) == 3, policy  # each resolution once
        assert changed not in lines and changed in {d.pattern for d in plan.dropped_proposals}, policy


def test_a_dropped_proposal_equal_to_a_candidate_drops_that_line_once(review_app, sessions, cli):
    """Issue 36 (rule 2: a maintainer's latest act decides a text): dropping a suggestion whose
    text is a candidate reviewers accepted takes that line out — one outcome, listed once, as a
    removed parent line with the maintainer's act, not also as a dropped proposal."""
    cli("release", "build", "v0")
    p19 = _candidates(sessions, "P19")
    _decide(sessions, "ana@example.org", "P19", p19[1], "accept")
    _suggest(sessions, "bo@example.org", "P19", p19[1])
    cli("review", "drop", LANG, "P19", p19[1], "--reason", "a duplicate", "--by", "boss@example.org")
    plan = _p19_plan(sessions, "any")
    assert p19[1] not in {e.pattern for e in plan.patterns}
    assert {r["pattern"]: r["decisions"] for r in plan.removed}[p19[1]] == ["accept", "dropped by a maintainer"]
    assert p19[1] not in {d.pattern for d in plan.dropped_proposals}
    (outcome,) = [d for d in plan.outcomes if d.text == p19[1]]
    assert (outcome.outcome, outcome.rule) == ("dropped", 2) and "a duplicate" in outcome.reason

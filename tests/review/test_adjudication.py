"""Adjudication (issue 28 §2): the disagreements of a language, a maintainer's resolution under
every merge policy (agreement statistics untouched), supersede and retract, and a single line
dropped from a build and restored — through the services, the CLI, the pages and the JSON API,
on SQLite and PostgreSQL, and once in Chromium."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from curator.core.enums import Activity
from curator.core.models import ActivityEntry, DatasetVersion, LineDrop, Resolution, Template, User, VersionPattern
from curator.review.stats import review_summary
from tests.plugins.servers import Browser, csrf_from, signed_in_state

pytestmark = pytest.mark.backends("sqlite", "postgresql")

# Spanish templates of the demo seed, and what Ana and Bo decide on them
BORN = ("P19", "[X] nació en [Y]")  # accept vs reject
CAPITAL = ("P36", "la capital de [X] es [Y]")  # two different amendments
OFFICIAL = ("P37", "el idioma oficial de [X] es [Y]")  # accept vs amend
NATIVE = ("P103", "el idioma nativo de [X] es [Y]")  # accept + unsure
CONTINENT = ("P30", "[X] se encuentra en [Y]")  # both accept: no disagreement
DECISIONS = [
    ("ana", BORN, "accept", None),
    ("bo", BORN, "reject", None),
    ("ana", CAPITAL, "amend", "la capital de [X] es [Y] hoy"),
    ("bo", CAPITAL, "amend", "[Y] es hoy la capital de [X]"),
    ("ana", OFFICIAL, "accept", None),
    ("bo", OFFICIAL, "amend", "la lengua oficial de [X] es [Y]"),
    ("ana", NATIVE, "unsure", None),
    ("bo", NATIVE, "accept", None),
    ("ana", CONTINENT, "accept", None),
    ("bo", CONTINENT, "accept", None),
]


@pytest.fixture
def disputed(review_app, cli, tmp_path):
    """Ana and Bo's decisions above, imported; a candidates version v0 exists."""
    cli("release", "build", "v0")
    rows = []
    for who, (relation, template), decision, correction in DECISIONS:
        row = {
            "reviewer": f"{who}@example.org",
            "language": "es",
            "relation": relation,
            "template": template,
            "decision": decision,
        }
        if correction:
            row["correction"] = correction
        rows.append(row)
    path = tmp_path / "decisions.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    cli("review", "import", path)
    return review_app


def template_id(sessions, text: str) -> int:
    with sessions() as s:
        return s.scalar(select(Template.id).where(Template.language == "es", Template.text == text))


def patterns(sessions, version: str) -> dict[str, bool]:
    """pattern -> checked-by-human of the Spanish lines of `version`."""
    with sessions() as s:
        rows = s.execute(
            select(VersionPattern.pattern, VersionPattern.checked_by_human)
            .join(DatasetVersion, DatasetVersion.id == VersionPattern.version_id)
            .where(DatasetVersion.name == version, VersionPattern.language == "es")
        ).all()
    return dict(rows)


def test_disagreements_of_each_kind_in_the_service_cli_page_and_api(disputed, cli, sessions):
    listed = json.loads(cli("review", "disagreements", "es", "--json").output)
    by_text = {item["template"]: item for item in listed["items"]}
    assert set(by_text) == {BORN[1], CAPITAL[1], OFFICIAL[1], NATIVE[1]}  # the agreed one is not listed
    assert by_text[BORN[1]]["why"] == ["verdicts"]
    assert by_text[CAPITAL[1]]["why"] == ["amendments"]
    assert by_text[OFFICIAL[1]]["why"] == ["verdicts"]
    assert by_text[NATIVE[1]]["why"] == ["unsure"]
    capital = by_text[CAPITAL[1]]
    assert [(d["reviewer"], d["decision"], d["correction"]) for d in capital["decisions"]] == [
        ("ana@example.org", "amend", "la capital de [X] es [Y] hoy"),
        ("bo@example.org", "amend", "[Y] es hoy la capital de [X]"),
    ]
    assert capital["resolution"] is None and capital["decisions"][0]["at"]
    text = cli("review", "disagreements", "es").output
    assert "4 templates to look at" in text and "amend   bo@example.org -> [Y] es hoy la capital de [X]" in text
    # a comment on the template is shown beside the decisions, escaped
    from curator.review.comments import add_comment
    from curator.review.service import get_assignment

    with sessions.begin() as s:
        bo = s.scalar(select(User).where(User.email == "bo@example.org"))
        assignment = get_assignment(s, bo, "es")
        from curator.core.models import AssignmentItem

        item = s.scalar(
            select(AssignmentItem).where(
                AssignmentItem.assignment_id == assignment.id,
                AssignmentItem.template_id == template_id(sessions, CAPITAL[1]),
            )
        )
        add_comment(s, bo, assignment, "<b>hoy</b> sobra", item=item)
    boss = Browser(disputed).login("boss@example.org")
    page = boss.get("/admin/languages/es/disagreements")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and html.count('class="card disagreement"') == 4
    assert "&lt;b&gt;hoy&lt;/b&gt; sobra" in html and "<b>hoy</b>" not in html
    assert "[Y] es hoy la capital de [X]" in html and "bo@example.org" in html
    language_page = boss.get("/admin/languages/es?disagreement=1").get_data(as_text=True)
    assert 'href="/admin/languages/es/disagreements"' in language_page and 'id="resolve-link"' in language_page
    api = boss.get("/api/v1/languages/es/disagreements")
    assert api.status_code == 200 and api.json["language"] == "es"
    api_capital = next(i for i in api.json["items"] if i["template"] == CAPITAL[1])
    assert [c["text"] for c in api_capital["comments"]] == ["<b>hoy</b> sobra"]
    assert {i["template"] for i in api.json["items"]} == set(by_text)


def test_a_resolution_judges_the_template_under_every_policy_and_kappa_keeps_the_reviewers(
    disputed, cli, sessions, tmp_path
):
    with sessions() as s:
        before = review_summary(s, ["es"]).languages[0].to_dict()
    # without resolutions: any keeps "nació" (one accept); unanimous removes "el idioma oficial…"
    cli("release", "build", "plain-any", "--from-review", "--policy", "any")
    cli("release", "build", "plain-unanimous", "--from-review", "--policy", "unanimous")
    assert BORN[1] in patterns(sessions, "plain-any")
    assert OFFICIAL[1] not in patterns(sessions, "plain-unanimous")
    assert "[Y] es hoy la capital de [X]" in patterns(sessions, "plain-any")
    by = ("--by", "boss@example.org")
    cli("review", "resolve", str(template_id(sessions, BORN[1])), "reject", "--reason", "born ≠ from", *by)
    cli(
        "review",
        "resolve",
        str(template_id(sessions, CAPITAL[1])),
        "amend",
        "--reason",
        "neither amendment: plain present tense",
        "--correction",
        "la capital de [X] es  [Y] ahora",  # cleaned as a reviewer's correction is
        *by,
    )
    cli("review", "resolve", str(template_id(sessions, OFFICIAL[1])), "accept", "--reason", "fine as it is", *by)
    for policy in ("any", "majority", "unanimous"):
        cli("release", "build", f"r-{policy}", "--from-review", "--policy", policy)
        got = patterns(sessions, f"r-{policy}")
        assert BORN[1] not in got, policy  # rejected by the resolution, though Ana accepted
        assert got.get("la capital de [X] es [Y] ahora") is True, policy
        assert CAPITAL[1] not in got and "la capital de [X] es [Y] hoy" not in got, policy
        assert "[Y] es hoy la capital de [X]" not in got, policy  # the reviewers' corrections are settled
        assert got.get(OFFICIAL[1]) is True, policy  # accepted by the resolution, though Bo amended
    with sessions() as s:
        version = s.scalar(select(DatasetVersion).where(DatasetVersion.name == "r-unanimous"))
        recorded = {r["template"]: r for r in version.params["resolutions"]}
        assert recorded[BORN[1]]["verdict"] == "reject" and recorded[BORN[1]]["reason"] == "born ≠ from"
        assert recorded[CAPITAL[1]]["by"] == "a maintainer"  # boss has no display name; never the address
        after = review_summary(s, ["es"]).languages[0].to_dict()
        assert (
            s.scalar(select(func.count()).select_from(ActivityEntry).where(ActivityEntry.action == Activity.RESOLUTION))
            == 3
        )
    assert after == before  # kappa, agreement and shares count the reviewers' own decisions only
    cli("release", "export", "r-any", tmp_path / "r-any")
    card = (tmp_path / "r-any" / "README.md").read_text(encoding="utf-8")
    assert "## Resolutions" in card and "| es | P19 | [X] nació en [Y] | reject |  | born ≠ from |" in card
    assert before["kappa"] is not None and before["pairs_compared"] == 4
    preview = json.loads(cli("release", "preview", "--policy", "any", "--json").output)
    p36 = next(r for r in preview["relations"] if r["language"] == "es" and r["relation"] == "P36")
    removed = next(r for r in p36["removed"] if r["pattern"] == CAPITAL[1])
    assert removed["decisions"] == ["amend", "amend", "resolution: amend"]
    assert [a["origin"] for a in p36["added"] if a["pattern"] == "la capital de [X] es [Y] ahora"] == ["resolved"]


def test_a_later_resolution_supersedes_and_a_retraction_hands_back_to_the_reviewers(disputed, sessions):
    from curator.core.errors import NotFound
    from curator.release.merge import latest_candidates, plan
    from curator.review.resolutions import resolve, retract_resolution, standing_resolutions

    born = template_id(sessions, BORN[1])

    def born_stays() -> bool:
        with sessions() as s:
            p19 = next(p for p in plan(s, latest_candidates(s), "any", ["es"]) if p.relation == "P19")
            return any(k.pattern == BORN[1] for k in p19.kept)

    assert born_stays()  # Ana's accept is enough under `any`
    with sessions.begin() as s:
        boss = s.scalar(select(User).where(User.email == "boss@example.org"))
        first = resolve(s, boss, born, "accept", "looks right")
        resolve(s, boss, born, "reject", "on second thought: P19 is place of birth")
        assert standing_resolutions(s, "es")[born]["reason"] == "on second thought: P19 is place of birth"
        assert first.id in {r.id for r in s.scalars(select(Resolution))}  # kept, superseded
    assert not born_stays()
    with sessions.begin() as s:
        boss = s.scalar(select(User).where(User.email == "boss@example.org"))
        retract_resolution(s, boss, born)
        assert born not in standing_resolutions(s)
    assert born_stays()  # the reviewers' decisions judge it again
    with sessions.begin() as s, pytest.raises(NotFound, match="no standing resolution"):
        boss = s.scalar(select(User).where(User.email == "boss@example.org"))
        retract_resolution(s, boss, born)
    with sessions() as s:
        entries = s.scalars(select(ActivityEntry).where(ActivityEntry.action == Activity.RESOLUTION)).all()
        assert [e.details.get("retracted", False) for e in entries] == [False, False, True]
        assert entries[1].details["supersedes"] == first.id and entries[0].actor_id is not None


def test_a_dropped_line_is_left_out_of_builds_recorded_and_restored(disputed, cli, sessions, tmp_path):
    line = ("es", "P30", "[X] se encuentra en [Y]")
    by = ("--by", "boss@example.org")
    cli("release", "drop-line", *line, "--reason", "too close to P131", *by)
    assert cli("release", "drop-line", *line, "--reason", "again", *by, ok=False).exit_code == 1  # already dropped
    preview = cli("release", "preview", "--language", "es").output
    assert "⊘ [X] se encuentra en [Y]   (dropped by boss@example.org: too close to P131)" in preview
    cli("release", "build", "v1", "--from-review")
    assert line[2] not in patterns(sessions, "v1")
    with sessions() as s:
        version = s.scalar(select(DatasetVersion).where(DatasetVersion.name == "v1"))
        (recorded,) = version.params["line_drops"]
        assert {k: recorded[k] for k in ("language", "relation", "pattern", "reason", "by")} == {
            "language": "es",
            "relation": "P30",
            "pattern": line[2],
            "reason": "too close to P131",
            "by": "a maintainer",
        }
        assert recorded["at"]
    out = tmp_path / "v1"
    cli("release", "export", "v1", out)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["params"]["line_drops"][0]["pattern"] == line[2]
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "## Dropped lines" in card and "| es | P30 | [X] se encuentra en [Y] | too close to P131 |" in card
    cli("release", "restore-line", *line, *by)
    assert cli("release", "restore-line", *line, *by, ok=False).exit_code == 1  # nothing to restore
    cli("release", "build", "v2", "--from-review")
    assert patterns(sessions, "v2").get(line[2]) is True
    with sessions() as s:
        assert s.scalar(select(DatasetVersion.params).where(DatasetVersion.name == "v2"))["line_drops"] == []
        actions = s.scalars(select(ActivityEntry.action).order_by(ActivityEntry.id)).all()
        lines = [a for a in actions if a in (Activity.LINE_DROP, Activity.LINE_RESTORE)]  # besides the builds
        assert lines == [Activity.LINE_DROP, Activity.LINE_RESTORE]
        assert s.scalar(select(LineDrop.restored_by)) is not None


def test_an_exported_card_and_manifest_name_maintainers_never_their_addresses(disputed, cli, sessions, tmp_path):
    """Resolutions and dropped lines are published with the maintainer's display name (or "a
    maintainer"); an older version whose params still hold addresses is exported without them."""
    import re

    address = re.compile(r"[^\s@\"|]+@[^\s@\"|]+")
    with sessions.begin() as s:
        s.scalar(select(User).where(User.email == "boss@example.org")).name = "Mina Boss"
    by = ("--by", "boss@example.org")
    cli("review", "resolve", str(template_id(sessions, BORN[1])), "reject", "--reason", "born ≠ from", *by)
    cli("release", "drop-line", "es", "P30", CONTINENT[1], "--reason", "too close to P131", *by)
    cli("release", "build", "named", "--from-review")
    with sessions.begin() as s:
        version = s.scalar(select(DatasetVersion).where(DatasetVersion.name == "named"))
        assert [r["by"] for r in version.params["resolutions"]] == ["Mina Boss"]
        assert [d["by"] for d in version.params["line_drops"]] == ["Mina Boss"]
        # as a version built before releases named maintainers recorded them: by address
        # a version as one built before releases named maintainers recorded them: by address
        # (versions never change, so a copy of "named" with the old params, line by line)
        legacy = DatasetVersion(
            name="legacy",
            kind=version.kind,
            parent_id=version.parent_id,
            params={
                **version.params,
                "resolutions": [{**version.params["resolutions"][0], "by": "boss@example.org"}],
                "line_drops": [{**version.params["line_drops"][0], "by": "gone@example.org"}],  # no such account
            },
        )
        s.add(legacy)
        s.flush()
        for line in s.scalars(select(VersionPattern).where(VersionPattern.version_id == version.id)).all():
            s.add(
                VersionPattern(
                    version_id=legacy.id,
                    language=line.language,
                    relation_id=line.relation_id,
                    position=line.position,
                    pattern=line.pattern,
                    checked_by_human=line.checked_by_human,
                    template_id=line.template_id,
                )
            )
    for name, drop_by in (("named", "Mina Boss"), ("legacy", "a maintainer")):
        cli("release", "export", name, tmp_path / name)
        manifest = (tmp_path / name / "manifest.json").read_text(encoding="utf-8")
        card = (tmp_path / name / "README.md").read_text(encoding="utf-8")
        assert address.findall(manifest) == [] and address.findall(card) == [], name
        assert "| born ≠ from | Mina Boss |" in card and f"| too close to P131 | {drop_by} |" in card, name
        params = json.loads(manifest)["params"]
        assert params["resolutions"][0]["by"] == "Mina Boss" and params["line_drops"][0]["by"] == drop_by, name
    with sessions() as s:  # the database keeps who did it, by account
        assert s.scalar(select(User.email).join(Resolution, Resolution.user_id == User.id)) == "boss@example.org"


def test_the_preview_drops_a_line_nobody_checked(disputed, sessions):
    """An unchecked candidate of a relation the preview lists can be dropped from the page too:
    one form per relation, the line chosen from its unchecked ones."""
    import html as html_module
    import re

    boss = Browser(disputed).login("boss@example.org")
    page = boss.get("/admin/release/preview?policy=any&language=es").get_data(as_text=True)
    card = page[page.index('id="plan-es-P19"') :]
    card = card[: card.index("</section>")]
    assert 'class="unchecked-lines"' in card
    options = [html_module.unescape(o) for o in re.findall(r'<option value="([^"]*)"', card)]
    with sessions() as s:
        unchecked = [
            t
            for t in s.scalars(
                select(Template.text).where(
                    Template.language == "es", Template.relation_id == "P19", Template.is_candidate
                )
            )
            if t != BORN[1]
        ]
    assert options and set(options) <= set(unchecked) and BORN[1] not in options
    form = {
        "csrf_token": boss.token,
        "policy": "any",
        "language": "es",
        "relation": "P19",
        "pattern": options[0],
        "reason": "a calque",
    }
    assert boss.client.post("/admin/release/drop-line", data=form).status_code == 302
    after = boss.get("/admin/release/preview?policy=any&language=es").get_data(as_text=True)
    assert f'class="line-dropped" data-pattern="{html_module.escape(options[0])}"' in after
    with sessions() as s:
        assert s.scalar(select(LineDrop.pattern)) == options[0]


def test_bad_input_changes_nothing_and_reviewers_are_refused(disputed, cli, sessions):
    born = template_id(sessions, BORN[1])
    boss = Browser(disputed).login("boss@example.org")
    page = boss.get("/admin/languages/es/disagreements").get_data(as_text=True)
    token = csrf_from(page)
    url = f"/admin/languages/es/disagreements/{born}/resolve"

    def post(data: dict) -> tuple[int, str]:
        r = boss.client.post(url, data={"csrf_token": token, **data})
        return r.status_code, r.get_data(as_text=True)

    status, html = post({"verdict": "reject", "reason": "  "})
    assert status == 422 and "field &#39;reason&#39;: give a reason" in html
    status, html = post({"verdict": "amend", "reason": "r"})
    assert status == 422 and "field &#39;correction&#39;: an amend needs" in html
    status, html = post({"verdict": "amend", "reason": "r", "correction": "sin marcadores"})
    assert status == 422 and "field &#39;correction&#39;: " in html and "[X]" in html
    status, html = post({"verdict": "maybe", "reason": "r"})
    assert status == 422 and "field &#39;verdict&#39;: choose accept, amend, reject" in html
    status, html = post({"verdict": "reject", "reason": "r", "correction": "[X] en [Y]"})
    assert status == 422 and "field &#39;correction&#39;: only an amend" in html
    assert 'value="r"' in html  # the form keeps what was typed
    r = boss.client.post(
        "/admin/languages/es/disagreements/999999/resolve",
        data={"csrf_token": token, "verdict": "accept", "reason": "r"},
    )
    assert r.status_code == 404
    # a Spanish template through the Arabic page's URL
    assert (
        boss.client.post(
            f"/admin/languages/ar/disagreements/{born}/resolve",
            data={"csrf_token": token, "verdict": "accept", "reason": "r"},
        ).status_code
        == 404
    )
    assert boss.client.post(url, data={"verdict": "accept", "reason": "r"}).status_code == 400  # no CSRF token
    assert (
        boss.client.post(f"/admin/languages/es/disagreements/{born}/retract", data={"csrf_token": token}).status_code
        == 404
    )
    # the JSON API: an error naming the field
    api = boss.post(f"/api/v1/templates/{born}/resolution", json={"verdict": "amend", "reason": "r"})
    assert api.status_code == 422 and api.json["error"].startswith("field 'correction': ")
    api = boss.post(f"/api/v1/templates/{born}/resolution", json={"verdict": "accept"})
    assert api.status_code == 422 and "reason" in api.json["error"]
    assert (
        boss.post("/api/v1/templates/999999/resolution", json={"verdict": "accept", "reason": "r"}).status_code == 404
    )
    # the dropped-line forms
    drop = {"csrf_token": token, "language": "es", "relation": "P30", "pattern": CONTINENT[1], "policy": "any"}
    r = boss.client.post("/admin/release/drop-line", data={**drop, "reason": ""})
    assert r.status_code == 422 and "field &#39;reason&#39;: give a reason" in r.get_data(as_text=True)
    r = boss.client.post("/admin/release/drop-line", data={**drop, "pattern": "[X] no existe [Y]", "reason": "r"})
    assert r.status_code == 404 and "pattern: no line" in r.get_data(as_text=True)
    r = boss.client.post("/admin/release/restore-line", data=drop)
    assert r.status_code == 404
    # the CLI: one line, exit 1
    result = cli("review", "resolve", str(born), "amend", "--reason", "r", "--by", "boss@example.org", ok=False)
    assert (
        result.exit_code == 1
        and "field 'correction': an amend needs" in result.output
        and "Traceback" not in result.output
    )
    result = cli("review", "resolve", str(born), "accept", "--reason", "r", "--by", "ana@example.org", ok=False)
    assert result.exit_code == 1 and "not a maintainer" in result.output
    assert (
        cli("review", "resolve", "999999", "accept", "--reason", "r", "--by", "boss@example.org", ok=False).exit_code
        == 1
    )
    # reviewers: 403 on every page, form and endpoint
    ana = Browser(disputed).login("ana@example.org")
    assert ana.get("/admin/languages/es/disagreements").status_code == 403
    assert ana.client.post(url, data={"csrf_token": ana.token, "verdict": "accept", "reason": "r"}).status_code == 403
    assert ana.get("/api/v1/languages/es/disagreements").status_code == 403
    refused = ana.post(f"/api/v1/templates/{born}/resolution", json={"verdict": "accept", "reason": "r"})
    assert refused.status_code == 403 and "error" in refused.json
    assert (
        ana.client.post("/admin/release/drop-line", data={**drop, "csrf_token": ana.token, "reason": "r"}).status_code
        == 403
    )
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Resolution)) == 0
        assert s.scalar(select(func.count()).select_from(LineDrop)) == 0
        refused_actions = (Activity.RESOLUTION, Activity.LINE_DROP, Activity.LINE_RESTORE)  # builds are logged too
        assert s.scalar(select(func.count()).where(ActivityEntry.action.in_(refused_actions))) == 0
    ok = boss.post(f"/api/v1/templates/{born}/resolution", json={"verdict": "reject", "reason": "place of birth"})
    assert ok.status_code == 200 and ok.json["resolution"]["verdict"] == "reject"
    assert boss.post(f"/api/v1/templates/{born}/resolution/retract").json["template_id"] == born


@pytest.mark.backends("sqlite")
def test_resolve_drop_a_line_and_build_in_the_browser(chromium, disputed, live, sessions):
    base = live.url
    context = chromium.new_context(
        viewport={"width": 1200, "height": 900}, storage_state=signed_in_state(base, "boss@example.org")
    )
    page = context.new_page()
    page.goto(base + "/admin/languages/es")
    page.click("#disagreements-link")
    born = template_id(sessions, BORN[1])
    card = page.locator(f"#t{born}")
    card.locator(":scope > summary").click()  # one disagreement open at a time (issue 37 §2)
    card.locator("input[name=verdict][value=reject]").check()
    card.locator("input[name=reason]").fill("P19 is the place of birth, not origin")
    card.locator("button[type=submit].primary").click()
    page.wait_for_selector(f"#h{born} [data-resolved=reject]")  # the heading beside the card
    assert "P19 is the place of birth, not origin" in page.locator(f"#t{born} .resolution").inner_text()
    page.goto(base + "/admin/release/preview?policy=any")
    plan = page.locator("#plan-es-P19")
    assert BORN[1] in plan.locator("li.removed").inner_text()
    line = page.locator("#plan-es-P36 li.added", has_text="[Y] es hoy la capital de [X]")
    line.locator("summary").click()
    line.locator("input[name=reason]").fill("word order of a question")
    line.locator("button", has_text="Drop this line").click()
    page.wait_for_selector("#plan-es-P36 li.line-dropped")
    assert "word order of a question" in page.locator("#plan-es-P36 li.line-dropped").inner_text()
    page.fill("#build input[name=name]", "adjudicated")
    page.check("#build input[name=confirm]")
    page.click("#build button[type=submit]")
    page.wait_for_url(lambda url: "/admin/diff" in url)
    assert "adjudicated" in page.content()
    context.close()
    got = patterns(sessions, "adjudicated")
    assert BORN[1] not in got and "[Y] es hoy la capital de [X]" not in got
    assert "la capital de [X] es [Y] hoy" in got

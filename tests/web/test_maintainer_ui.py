"""The maintainer's whole job in the browser, from a freshly seeded demo (`bash bin/dev serve`:
`curator init && curator seed --demo-users`) to a downloaded release, without a terminal; the
invitations, a language's candidates page, the counts, right-to-left templates, and 390 px screens.

Browser tests drive Debian's chromium through Playwright (the `chromium` fixture skips with the
reason when either is missing); the services are tested on a real database beside them.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
from datetime import timedelta

import pytest
from sqlalchemy import select

from curator.core.errors import Gone, InputError
from curator.core.models import Assignment, AssignmentItem, Comment, DatasetVersion, Invite, Template, User
from curator.core.models.base import utcnow
from curator.review.overview import RowFilter, language_counts, language_rows
from tests.analysis.test_report import TEMPLATES, make_run
from tests.plugins.cli import Cli
from tests.plugins.real_data import need_shared
from tests.plugins.servers import Browser, csrf_from
from tests.support.files import tree_bytes

DEMO_PASSWORD = "curator-demo"
MAINTAINER = "maintainer@demo.invalid"
REVIEWER = "reviewer@demo.invalid"  # es, ar
NEW_PASSWORD = "violet tractor umbrella"


@pytest.fixture
def demo(cli, db_url, sessions, tmp_path):
    """What `bash bin/dev serve` serves: an initialised database, the demo seed and its users."""
    from curator.web import create_app

    cli("init")
    cli("seed", "--demo-users")
    runs = tmp_path / "runs"
    runs.mkdir()
    return create_app(
        {"DATABASE_URL": db_url, "SECRET_KEY": "test-secret", "RUNS_DIR": str(runs), "RATELIMIT_ENABLED": False}
    )


@pytest.fixture
def demo_live(demo):
    from curator.web.testing import LiveServer

    with LiveServer(demo) as server:
        yield server


def sign_in(page, base: str, email: str, password: str = DEMO_PASSWORD) -> None:
    page.goto(base + "/login")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", password)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/login" not in url)


def decide(sessions, email: str, lang: str, decisions: list[tuple[str, str | None]]) -> list[str]:
    """`email` decides the first items of their `lang` sample through the service; returns the templates."""
    from curator.review.service import decide as store

    texts = []
    with sessions.begin() as s:
        user = s.scalar(select(User).where(User.email == email))
        assignment = s.scalar(select(Assignment).where(Assignment.user_id == user.id, Assignment.language == lang))
        items = s.scalars(
            select(AssignmentItem)
            .where(AssignmentItem.assignment_id == assignment.id)
            .order_by(AssignmentItem.position)
        ).all()
        for item, (decision, correction) in zip(items, decisions):
            store(s, user, assignment, item, decision, correction)
            texts.append(s.get(Template, item.template_id).text)
    return texts


def no_overflow(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


# ---------------------------------------------------------------- the whole path in the browser
def test_from_a_fresh_demo_to_a_downloaded_release_without_a_terminal(chromium, demo_live, sessions, cli, tmp_path):
    base = demo_live.url
    boss_ctx = chromium.new_context(viewport={"width": 1200, "height": 900}, accept_downloads=True)
    page = boss_ctx.new_page()
    sign_in(page, base, MAINTAINER)

    # no snapshot yet: the preview says what to do and does it
    page.goto(base + "/admin/")
    page.get_by_role("link", name="Preview a reviewed release").click()
    assert page.locator("#no-candidates").is_visible()
    page.locator("#no-candidates input[name=confirm]").check()
    page.locator("#no-candidates").get_by_role("button", name="Snapshot the candidates").click()
    page.wait_for_url(re.compile(r"/admin/release/preview\?parent=candidates-1"))
    assert "Snapshot candidates-1" in page.locator(".flash.info").inner_text()
    with sessions() as s:
        snapshot = s.scalar(select(DatasetVersion).where(DatasetVersion.name == "candidates-1"))
        assert snapshot.kind == "candidates"

    # invite a reviewer for Spanish; the link is shown once
    page.goto(base + "/admin/reviewers")
    form = page.locator("#invite-form")
    form.locator("input[name=email]").fill("nuria@example.org")
    form.locator("input[name=languages][value=es]").check()
    form.locator("input[name=fraction]").fill("1")
    form.get_by_role("button", name="Create invitation link").click()
    link = page.locator("code.invite-link").inner_text()
    assert "/invite/" in link
    assert "nuria@example.org" in page.locator("#invites-table").inner_text()

    # the reviewer signs up in another browser and decides a few templates (through the page's API)
    reviewer_ctx = chromium.new_context(viewport={"width": 1000, "height": 800})
    rpage = reviewer_ctx.new_page()
    rpage.goto(link)
    rpage.fill("input[name=name]", "Nuria")
    rpage.fill("input[name=password]", NEW_PASSWORD)
    rpage.fill("input[name=password2]", NEW_PASSWORD)
    rpage.get_by_role("button", name="Create my account").click()
    rpage.wait_for_load_state()
    token = rpage.locator("meta[name=csrf-token]").get_attribute("content")
    items = reviewer_ctx.request.get(base + "/api/v1/languages/es/queue").json()["items"]
    first_relation = [i for i in items if i["relation"] == items[0]["relation"]]
    rejected = first_relation[0]["template"]
    for item, decision in zip(first_relation, ("reject", "accept", "accept")):
        r = reviewer_ctx.request.post(
            f"{base}/api/v1/languages/es/items/{item['id']}/decision",
            data=json.dumps({"decision": decision}),
            headers={"X-CSRFToken": token, "Content-Type": "application/json"},
        )
        assert r.status == 201, r.text()
    reviewer_ctx.close()
    # the invitation is used: no longer pending
    page.goto(base + "/admin/reviewers")
    assert "nuria@example.org" not in (
        page.locator("#invites-table").inner_text() if page.locator("#invites-table").count() else ""
    )

    # preview shows the reviewed change
    page.goto(base + "/admin/release/preview")
    assert rejected in page.locator("li.removed").first.inner_text()

    # a bad name is refused, the input is kept, nothing is created
    build = page.locator("#build")
    build.locator("input[name=name]").fill("bad name/with slash")
    build.locator("input[name=confirm]").check()
    build.get_by_role("button", name="Build (immutable)").click()
    page.wait_for_selector("#build-error")
    assert "not a valid version name" in page.locator("#build-error").inner_text()
    assert page.locator("#build input[name=name]").input_value() == "bad name/with slash"
    with sessions() as s:
        assert s.scalars(select(DatasetVersion.name)).all() == ["candidates-1"]

    # without the confirmation the browser does not even send it (required checkbox); with it, it builds
    build = page.locator("#build")
    build.locator("input[name=name]").fill("v1-reviewed")
    build.locator("input[name=confirm]").uncheck()
    build.get_by_role("button", name="Build (immutable)").click()
    confirm = page.locator("#build input[name=confirm]")
    assert confirm.evaluate("el => el.validity.valueMissing")  # the browser's own error on the checkbox
    assert page.locator("#build input[name=name]").input_value() == "v1-reviewed"
    with sessions() as s:
        assert s.scalar(select(DatasetVersion.id).where(DatasetVersion.name == "v1-reviewed")) is None
    build.locator("input[name=confirm]").check()
    build.get_by_role("button", name="Build (immutable)").click()
    page.wait_for_url(re.compile(r"/admin/diff\?a=candidates-1&b=v1-reviewed"))
    assert rejected in page.locator("li.removed").first.inner_text()

    # download the release and compare it with the export service's folder
    with page.expect_download() as info:
        page.locator("a.download").first.click()
    download = info.value
    assert download.suggested_filename == "v1-reviewed.zip"
    path = tmp_path / "download.zip"
    download.save_as(path)
    cli("release", "export", "v1-reviewed", tmp_path / "exported")
    expected = tree_bytes(tmp_path / "exported")
    with zipfile.ZipFile(path) as archive:
        got = {
            name.removeprefix("v1-reviewed/"): archive.read(name)
            for name in archive.namelist()
            if not name.endswith("/")
        }
        assert all(name.startswith("v1-reviewed/") for name in archive.namelist())
    assert sorted(got) == sorted(expected) and got == expected
    assert any(p.startswith("patterns/es/") for p in got) and "manifest.json" in got
    assert json.loads(got["manifest.json"])["parent"] == "candidates-1"
    # the dashboard lists the version with its download link
    page.goto(base + "/admin/")
    assert page.locator("tr[data-version='v1-reviewed'] a.download").count() == 1
    boss_ctx.close()


# ---------------------------------------------------------------- release service and build form
def test_one_version_name_rule_for_cli_and_web(demo, cli, sessions, engine):
    from curator.release.versions import check_version_name

    for good in ("v1", "v1.0-reviewed_2", "A" * 64, "CONTENT", "com10", "lpt"):
        assert check_version_name(good) == good
    for bad in (
        "bad name/with slash",
        "",
        "-v1",
        ".hidden",
        "a" * 65,
        "v1/../x",
        "ü",
        "v1.",
        "CON",
        "nul",
        "Com1",
        "lpt9.txt",
        "aux.v2",
    ):
        with pytest.raises(InputError, match="not a valid version name"):
            check_version_name(bad)
    result = cli("release", "build", "bad name/with slash", ok=False)
    assert result.exit_code == 1 and "not a valid version name" in result.output
    boss = Browser(demo).login(MAINTAINER, DEMO_PASSWORD)
    for form, message in (
        ({"name": "a/b", "confirm": "1"}, "“a/b” is not a valid version name"),
        ({"name": "snap-1"}, "a version is permanent"),
    ):
        r = boss.client.post("/admin/release/snapshot", data={"csrf_token": boss.token, **form})
        text = r.get_data(as_text=True)
        assert r.status_code == 422 and message in text and 'id="snapshot-error"' in text
        assert f'value="{form["name"]}"' in text.replace("&#34;", '"')
    with sessions() as s:
        assert s.scalars(select(DatasetVersion.name)).all() == []
    # a build with no snapshot and no parent says why on the page, and a bogus policy is a 422 with a message
    page = boss.get("/admin/release/preview").get_data(as_text=True)
    r = boss.client.post(
        "/admin/release/build", data={"csrf_token": csrf_from(page), "name": "v9", "confirm": "1", "policy": "any"}
    )
    text = r.get_data(as_text=True)
    assert r.status_code == 404 and 'id="no-candidates"' in text and 'id="build-error"' in text
    cli("release", "build", "v0")
    page = boss.get("/admin/release/preview").get_data(as_text=True)
    for form, message in (
        ({"name": "bad name/with slash", "confirm": "1"}, "not a valid version name"),
        ({"name": "v1"}, "a version is permanent"),
    ):
        r = boss.client.post(
            "/admin/release/build", data={"csrf_token": csrf_from(page), "policy": "any", "parent": "v0", **form}
        )
        text = r.get_data(as_text=True)
        assert r.status_code == 422 and message in text
        assert f'value="{form["name"]}"' in text.replace("&#34;", '"')
    r = boss.client.post(
        "/admin/release/build",
        data={"csrf_token": csrf_from(page), "policy": "bogus", "parent": "v0", "name": "v1", "confirm": "1"},
    )
    assert r.status_code == 422 and "“bogus” is not a merge policy" in r.get_data(as_text=True).replace("&#34;", '"')
    with sessions() as s:
        assert s.scalars(select(DatasetVersion.name)).all() == ["v0"]


def test_download_is_the_export_and_maintainer_only(demo, cli, tmp_path):
    from curator.release.export import export_zip

    cli("release", "build", "v0")
    boss = Browser(demo).login(MAINTAINER, DEMO_PASSWORD)
    r = boss.get("/admin/versions/v0/download.zip")
    assert r.status_code == 200 and r.mimetype == "application/zip"
    assert "attachment" in r.headers["Content-Disposition"] and "v0.zip" in r.headers["Content-Disposition"]
    again = boss.get("/admin/versions/v0/download.zip").data
    assert r.data == again  # same version, same bytes
    with demo.extensions["curator.sessions"]() as s:
        created = s.scalar(select(DatasetVersion).where(DatasetVersion.name == "v0")).created_at
    stamp = (max(created.year, 1980), created.month, created.day, created.hour, created.minute, created.second)
    with zipfile.ZipFile(io.BytesIO(r.data)) as archive:  # dated by the version, never by the clock
        infos = archive.infolist()
        assert infos and all(i.date_time == stamp[:5] + (stamp[5] // 2 * 2,) for i in infos)
    cli("release", "export", "v0", tmp_path / "v0")
    with zipfile.ZipFile(io.BytesIO(r.data)) as archive:
        assert {n.removeprefix("v0/"): archive.read(n) for n in archive.namelist()} == tree_bytes(tmp_path / "v0")
    assert boss.get("/admin/versions/nope/download.zip").status_code == 404
    reviewer = Browser(demo).login(REVIEWER, DEMO_PASSWORD)
    assert reviewer.get("/admin/versions/v0/download.zip").status_code == 403
    assert demo.test_client().get("/admin/versions/v0/download.zip").status_code == 302
    buffer = io.BytesIO()  # the service on its own gives the same bytes as the page
    with demo.extensions["curator.sessions"]() as s:
        export_zip(s, "v0", buffer)
    assert buffer.getvalue() == r.data


# ---------------------------------------------------------------- invitations
def test_invitation_revoke_and_resend(demo, sessions):
    boss = Browser(demo).login(MAINTAINER, DEMO_PASSWORD)
    page = boss.get("/admin/reviewers").get_data(as_text=True)
    # an error keeps every field
    r = boss.client.post(
        "/admin/reviewers",
        data={
            "csrf_token": csrf_from(page),
            "email": "not-an-address",
            "languages": "es",
            "fraction": "0.3",
            "role": "maintainer",
        },
    )
    text = r.get_data(as_text=True)
    assert r.status_code == 422 and "not an e-mail address" in text
    assert 'value="not-an-address"' in text and 'value="0.3"' in text
    assert re.search(r'value="es"\s+checked', text) and re.search(r'value="maintainer"\s+selected', text)
    r = boss.client.post(
        "/admin/reviewers",
        data={"csrf_token": csrf_from(page), "email": "x@example.org", "languages": "es", "fraction": "lots"},
    )
    assert r.status_code == 422 and 'value="lots"' in r.get_data(as_text=True)

    r = boss.client.post(
        "/admin/reviewers",
        data={"csrf_token": csrf_from(page), "email": "kim@example.org", "languages": "es", "fraction": "0.5"},
        follow_redirects=True,
    )
    old = re.search(
        r'<code class="invite-link"[^>]*>https?://[^/]+(/invite/[^<]+)</code>', r.get_data(as_text=True)
    ).group(1)
    with sessions() as s:
        invite = s.scalar(select(Invite).where(Invite.email == "kim@example.org"))
        invite_id, first_expiry = invite.id, invite.expires_at
    listing = boss.get("/admin/reviewers").get_data(as_text=True)
    row = re.search(rf'<tr data-invite="{invite_id}".*?</tr>', listing, re.S).group(0)
    assert "kim@example.org" in row and "reviewer" in row and "es" in row
    anon = demo.test_client()
    assert anon.get(old).status_code == 200
    with sessions.begin() as s:  # let it expire: resending must revive it
        s.get(Invite, invite_id).expires_at = utcnow() - timedelta(days=1)
    assert anon.get(old).status_code != 200

    r = boss.client.post(f"/admin/invites/{invite_id}/resend", data={"csrf_token": boss.token}, follow_redirects=True)
    assert r.status_code == 200
    new = re.search(
        r'<code class="invite-link"[^>]*>https?://[^/]+(/invite/[^<]+)</code>', r.get_data(as_text=True)
    ).group(1)
    assert new != old
    assert anon.get(old).status_code == 404  # the old link is dead
    assert anon.get(new).status_code == 200
    assert "it is shown only once" in r.get_data(as_text=True)
    with sessions() as s:
        expires = s.get(Invite, invite_id).expires_at
        assert expires >= first_expiry and _naive(expires) > _naive(utcnow() + timedelta(days=13))

    r = boss.client.post(f"/admin/invites/{invite_id}/revoke", data={"csrf_token": boss.token})
    assert r.status_code == 302
    assert "no longer works" in boss.get("/admin/reviewers").get_data(as_text=True)
    gone = anon.get(new)
    assert gone.status_code == 410 and "withdrawn" in gone.get_data(as_text=True)
    with sessions() as s:
        assert s.get(Invite, invite_id).revoked_at is not None
    assert f'data-invite="{invite_id}"' not in boss.get("/admin/reviewers").get_data(as_text=True)
    # neither can be done twice, nor without the token
    assert boss.client.post(f"/admin/invites/{invite_id}/resend", data={"csrf_token": boss.token}).status_code == 409
    assert boss.client.post(f"/admin/invites/{invite_id}/revoke", data={}).status_code == 400


def _naive(moment):
    return moment.replace(tzinfo=None)  # SQLite gives naive UTC back


def test_open_invite_refuses_a_revoked_one(sessions, cli):
    from curator.review.invitations import create_invite, open_invite, revoke_invite

    cli("seed")
    with sessions.begin() as s:
        invite, token = create_invite(s, ["es"])
        revoke_invite(s, invite.id)
    with sessions() as s, pytest.raises(Gone, match="withdrawn"):
        open_invite(s, token)


# ---------------------------------------------------------------- a language's candidates
def _comment(s, email, lang, relation, template_id, text):
    user = s.scalar(select(User).where(User.email == email))
    s.add(Comment(user_id=user.id, language=lang, relation_id=relation, template_id=template_id, text=text))


def test_language_rows_filters_search_and_paging(demo, sessions, cli):
    from curator.review.accounts import create_user
    from curator.review.sampling import assign

    with sessions.begin() as s:
        second = create_user(s, "second@example.org", NEW_PASSWORD, "reviewer", "Second")
        assign(s, second, "es")
    first = decide(
        sessions,
        REVIEWER,
        "es",
        [("reject", None), ("accept", None), ("unsure", None), ("amend", "[X] nació en la ciudad de [Y]")],
    )
    second_texts = decide(sessions, "second@example.org", "es", [("accept", None), ("accept", None)])
    with sessions.begin() as s:
        t0 = s.scalar(select(Template).where(Template.language == "es", Template.text == first[0]))
        _comment(s, REVIEWER, "es", t0.relation_id, t0.id, "suena raro con países")
        _comment(s, REVIEWER, "es", t0.relation_id, None, "la relación mezcla ciudades y países")
    with sessions() as s:
        every = language_rows(s, "es", RowFilter(), page_size=1000)
        assert every.total == every.matched == len(every.rows) == language_counts(s, ["es"])["es"].candidates
        by_text = {r.text: r for r in every.rows}
        assert {d.decision for d in by_text[first[0]].decisions} == {"reject"} | (
            {"accept"} if first[0] in second_texts else set()
        )

        def texts(**kw):
            return {r.text for r in language_rows(s, "es", RowFilter(**kw), page_size=1000).rows}

        assert first[0] in texts(decision="reject") and first[1] not in texts(decision="reject")
        assert texts(decision="unsure") == texts(unsure=True) == {first[2]}
        assert first[3] in texts(decision="amend")
        undecided = texts(decision="none")
        assert (
            undecided
            and not undecided & set(first)
            # the amendment reached Second's queue as a proposal (not a candidate, not a row here)
            and len(undecided) + len((set(first) | set(second_texts)) & set(by_text)) == every.total
        )
        disagree = texts(disagreement=True)
        assert disagree == {
            t
            for t in set(first) & set(second_texts)  # unsure is no verdict
            if len({d.decision for d in by_text[t].decisions} - {"unsure"}) > 1
        }
        assert texts(q="RARO CON") == {first[0]}  # comments are searched, case-insensitively
        assert texts(q="ciudad de [Y]") == {first[3]}  # and corrections
        relation = every.rows[0].relation
        assert texts(relation=relation) == {r.text for r in every.rows if r.relation == relation}
        for band in ("low", "medium", "high"):
            assert texts(band=band) == {r.text for r in every.rows if r.band == band}
        size = 3
        n_pages = -(-every.total // size)
        pages = [language_rows(s, "es", RowFilter(page=n), page_size=size) for n in range(1, n_pages + 1)]
        assert all(p.pages == n_pages and len(p.rows) == size for p in pages[:-1])
        assert [r.text for p in pages for r in p.rows] == [r.text for r in every.rows]
        assert language_rows(s, "es", RowFilter(page=99), page_size=size).page == n_pages  # past the end: the last
        n_reject = len(texts(decision="reject"))
        result = language_rows(s, "es", RowFilter(relation=t0.relation_id))
        assert result.relation_comments[t0.relation_id][0]["text"] == "la relación mezcla ciudades y países"
        with pytest.raises(InputError):
            language_rows(s, "es", RowFilter(decision="maybe"))

    boss = Browser(demo).login(MAINTAINER, DEMO_PASSWORD)
    page = boss.get("/admin/languages/es?decision=reject").get_data(as_text=True)
    assert first[0] in page and "suena raro con países" in page and "la relación mezcla" in page
    assert f'data-matched="{n_reject}"' in page
    assert boss.get("/admin/languages/es?decision=maybe").status_code == 422
    # the queue-order form still works
    r = boss.client.post("/admin/languages/es/queue-order", data={"csrf_token": boss.token, "order": "risk"})
    assert r.status_code == 302
    assert 'value="risk" selected' in boss.get("/admin/languages/es").get_data(as_text=True)


def test_language_page_search_filters_and_page_links_in_the_browser(chromium, demo_live, sessions):
    first = decide(sessions, REVIEWER, "es", [("reject", None), ("unsure", None)])
    page = chromium.new_context(viewport={"width": 1200, "height": 900}).new_page()
    sign_in(page, demo_live.url, MAINTAINER)
    page.goto(demo_live.url + "/admin/languages/es")
    total = int(page.locator("#result-count").get_attribute("data-total"))
    assert page.locator("#candidates-table tbody tr").count() == min(total, 50)
    page.select_option("select[name=decision]", "unsure")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url(re.compile(r"decision=unsure"))
    assert page.locator("#candidates-table tbody tr").count() == 1
    assert page.locator("#candidates-table td.template-text").inner_text() == first[1]
    page.goto(demo_live.url + "/admin/languages/es")
    page.fill("input[name=q]", first[0][:12])
    page.get_by_role("button", name="Filter").click()
    page.wait_for_load_state()
    assert first[0] in page.locator("#candidates-table").inner_text()
    assert page.locator("input[name=q]").input_value() == first[0][:12]


@pytest.fixture(scope="module")
def german(tmp_path_factory):
    """The real German candidates (only German, to keep it quick), when ../shared/data is there."""
    data = need_shared()
    root = tmp_path_factory.mktemp("german")
    translations = root / "translations"
    for system in (data / "mpararel" / "translations").iterdir():
        if (system / "de").is_dir():
            shutil.copytree(system / "de", translations / system.name / "de")  # the walk skips symlinks
    tuples = root / "tuples"
    tuples.mkdir()
    for lang in ("de", "en"):
        if (data / "mpararel" / "tuples" / lang).is_dir():
            shutil.copytree(data / "mpararel" / "tuples" / lang, tuples / lang)
    cli = Cli(f"sqlite:///{root / 'de.sqlite'}")
    cli("init")
    cli("ingest", "pararel", data / "pararel" / "patterns")
    cli("ingest", "translations", translations)
    cli("ingest", "tuples", tuples)
    cli("candidates", "build")
    return cli.url


def test_real_german_page_filters_and_paging(german, tmp_path):
    from curator.core.db import make_engine, make_session_factory
    from curator.review.accounts import create_user
    from curator.web import create_app

    engine = make_engine(german)
    sessions = make_session_factory(engine)
    with sessions.begin() as s:
        if s.scalar(select(User).where(User.email == "boss@example.org")) is None:
            create_user(s, "boss@example.org", NEW_PASSWORD, "maintainer")
    with sessions() as s:
        counts = language_counts(s, ["de"])["de"]
        every = language_rows(s, "de", RowFilter(), page_size=10_000)
        assert every.total == counts.candidates > 100
        first_page = language_rows(s, "de", RowFilter())
        assert len(first_page.rows) == 50 and first_page.pages == -(-counts.candidates // 50)
        rel = every.rows[-1].relation
        assert {r.text for r in language_rows(s, "de", RowFilter(relation=rel), page_size=10_000).rows} == {
            r.text for r in every.rows if r.relation == rel
        }
        # a substring of one template, without its slots: found, and the search narrows the list
        target = max(every.rows, key=lambda r: len(r.text.replace("[X]", "").replace("[Y]", "")))
        needle = max(re.split(r"\[[XY]\]", target.text), key=len).strip()
        found = language_rows(s, "de", RowFilter(q=needle), page_size=10_000)
        assert target.text in {r.text for r in found.rows}
        assert 0 < found.matched < found.total == every.total
        assert all(needle.casefold() in r.text.casefold() for r in found.rows if not r.decisions)
        expected = [r for r in every.rows if r.relation == rel and r.band == "low"]
    app = create_app({"DATABASE_URL": german, "SECRET_KEY": "t", "RUNS_DIR": str(tmp_path), "RATELIMIT_ENABLED": False})
    boss = Browser(app).login("boss@example.org", NEW_PASSWORD)
    html = boss.get(f"/admin/languages/de?relation={rel}&band=low&page=").get_data(as_text=True)
    assert f'data-total="{counts.candidates}"' in html
    assert f'data-matched="{len(expected)}"' in html
    rows = re.findall(r'<tr data-template="\d+" data-relation="([^"]*)" data-band="([^"]*)"', html)
    assert len(rows) == min(len(expected), 50) and all(row == (rel, "low") for row in rows)
    html = boss.get("/admin/languages/de?page=2&order=risk").get_data(as_text=True)
    assert html.count("<tr data-template=") == 50
    # page links keep the filters
    assert re.search(r'href="/admin/languages/de\?page=3&amp;order=risk"', html)
    engine.dispose()


# ---------------------------------------------------------------- counts agree across pages
def test_counts_agree_on_dashboard_coverage_and_language_pages(demo, sessions, cli):
    boss = Browser(demo).login(MAINTAINER, DEMO_PASSWORD)
    with sessions() as s:
        counts = language_counts(s)
    dashboard = boss.get("/admin/?languages=all").get_data(as_text=True)
    coverage = boss.get("/admin/coverage").get_data(as_text=True)
    for code, c in counts.items():
        expected = {"relations": c.relations, "candidates": c.candidates, "patterns": c.patterns, "phrases": c.phrases}
        language = boss.get(f"/admin/languages/{code}").get_data(as_text=True)
        for html in (_row(dashboard, code), _row(coverage, code), _block(language, code)):
            got = {k: int(v) for k, v in re.findall(r'data-count="(\w+)">(\d+)<', html)}
            assert got == expected, (code, got, expected)
        assert f'data-total="{c.candidates}"' in language
    # a snapshot holds exactly the included languages' patterns
    cli("release", "build", "v0")
    from curator.release.versions import get_version
    from curator.release.versions import language_counts as version_counts

    with sessions() as s:
        patterns, _ = version_counts(s, get_version(s, "v0"))
    assert patterns == {code: c.patterns for code, c in counts.items() if c.included}


def _row(html: str, code: str) -> str:
    match = re.search(rf'<tr[^>]*data-language="{code}".*?</tr>', html, re.S)
    assert match, code
    return match.group(0)


def _block(html: str, code: str) -> str:
    return re.search(rf'<p id="language-counts" data-language="{code}">.*?</p>', html, re.S).group(0)


def test_dashboard_lists_included_languages_unless_asked(demo, sessions):
    from curator.core.models import LanguageCoverage

    decide(sessions, REVIEWER, "ar", [("reject", None), ("accept", None)])  # ar has reviews, so a row everywhere
    decide(sessions, REVIEWER, "es", [("reject", None)])
    with sessions.begin() as s:
        s.get(LanguageCoverage, "ar").included = False
    with sessions() as s:
        counts = language_counts(s)
    included = {code for code, c in counts.items() if c.included}
    assert "ar" in counts and "ar" not in included and included
    boss = Browser(demo).login(MAINTAINER, DEMO_PASSWORD)
    default = boss.get("/admin/").get_data(as_text=True)
    every_page = boss.get("/admin/?languages=all").get_data(as_text=True)
    assert set(re.findall(r'<tr data-language="(\w+)">', default)) == included
    assert set(re.findall(r'<tr data-language="(\w+)">', every_page)) == set(counts)
    for table in ("review-summary", "signal-summary", "risk-outcomes"):
        shown, everything = _table(default, table), _table(every_page, table)
        assert "<small>ar</small>" not in shown, table
        if table == "review-summary":
            assert "<small>ar</small>" in everything and "<small>es</small>" in shown
    assert "Show all languages (1 more)" in default and "Show all languages" not in every_page
    # the summary sentence counts only the languages shown
    assert "Across the 1 language with reviews" in default
    assert "Across the 2 languages with reviews" in every_page


def _table(html: str, table_id: str) -> str:
    match = re.search(rf'<table[^>]*id="{table_id}".*?</table>', html, re.S)
    return match.group(0) if match else ""


# ---------------------------------------------------------------- right-to-left templates
def test_arabic_template_cells_are_rtl_on_every_maintainer_view(chromium, demo_live, demo, sessions, cli, tmp_path):
    cli("release", "build", "v0")
    decide(sessions, REVIEWER, "ar", [("reject", None), ("accept", None)])  # so v1 differs from v0
    boss = Browser(demo).login(MAINTAINER, DEMO_PASSWORD)
    page = boss.get("/admin/release/preview").get_data(as_text=True)
    r = boss.client.post(
        "/admin/release/build",
        data={"csrf_token": csrf_from(page), "name": "v1", "parent": "v0", "policy": "any", "confirm": "1"},
    )
    assert r.status_code == 302
    make_run(demo.extensions["curator.settings"].runs / "run-ar", TEMPLATES)

    ctx = chromium.new_context(viewport={"width": 1200, "height": 900})
    browser_page = ctx.new_page()
    sign_in(browser_page, demo_live.url, MAINTAINER)
    views = {
        "preview": "/admin/release/preview?parent=v0",
        "diff": "/admin/diff?a=v0&b=v1",
        "language": "/admin/languages/ar",
        "probe report": "/probe/runs/run-ar",
    }
    for view, path in views.items():
        browser_page.goto(demo_live.url + path)
        cells = browser_page.locator("[lang=ar]:is(.tpl, .template-text)")
        assert cells.count() > 0, view
        for i in range(cells.count()):
            cell = cells.nth(i)
            assert cell.get_attribute("dir") == "rtl", (view, cell.inner_text())
            assert cell.evaluate("el => getComputedStyle(el).direction") == "rtl", view
        spanish = browser_page.locator("[lang=es]:is(.tpl, .template-text)")
        if spanish.count():
            assert spanish.first.get_attribute("dir") == "ltr"
    ctx.close()

    # the standalone report (curator.analysis, no Flask) too
    from curator.analysis.report import build_report

    index = build_report(demo.extensions["curator.settings"].runs / "run-ar", tmp_path / "report")
    html = index.read_text(encoding="utf-8")
    cells = re.findall(r'<(?:td|span) class="template-text" lang="ar" dir="(\w+)">', html)
    assert cells and set(cells) == {"rtl"}
    assert set(re.findall(r'<(?:td|span) class="template-text" lang="es" dir="(\w+)">', html)) == {"ltr"}


# ---------------------------------------------------------------- 390 px screens
def test_no_horizontal_overflow_at_390px(chromium, demo_live, sessions, cli):
    cli("release", "build", "v0")
    decide(sessions, REVIEWER, "es", [("reject", None), ("amend", "[X] nació en la ciudad de [Y] en el año")])
    cli("release", "build", "v1", "--from-review")
    ctx = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, device_scale_factor=2)
    page = ctx.new_page()
    sign_in(page, demo_live.url, MAINTAINER)
    for path in (
        "/admin/",
        "/admin/?languages=all",
        "/admin/coverage",
        "/admin/reviewers",
        "/admin/languages/es",
        "/admin/languages/ar",
        "/admin/release/preview",
        "/admin/diff?a=v0&b=v1",
    ):
        page.goto(demo_live.url + path)
        assert no_overflow(page), (path, page.evaluate("document.documentElement.scrollWidth"))
    ctx.close()

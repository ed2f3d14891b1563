"""The activity log (issue 28 §4) and two smaller things (§5): every maintainer action that
existed before (invitations, guidelines, glossary, queue order and sample fraction, snapshot,
build, export, imports) leaves exactly one entry with its actor, action, language and target, in
the browser and on the command line (actor "command line"); the Activity page and `curator
activity` filter and page it, refuse bad filters naming the field or option, escape what people
typed, and are for maintainers only. The build form is pre-filled (a build with no typing), and the
browser's download offers the Hugging Face files (or says which extra to install)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import zipfile
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select

from curator.core.enums import Activity
from curator.core.models import ActivityEntry, DatasetVersion, GlossaryTerm, Invite, User
from curator.review import activity
from tests.plugins.databases import PASSWORD
from tests.plugins.servers import Browser, signed_in_state

pytestmark = pytest.mark.backends("sqlite", "postgresql")

ROOT = Path(__file__).resolve().parents[2]
BOSS = "boss@example.org"
CLI = activity.COMMAND_LINE
EVIL = "<script>alert(1)</script>"


class Log:
    """The entries added since the last check."""

    def __init__(self, sessions):
        self.sessions = sessions
        with sessions() as s:
            self.seen = s.scalar(select(func.max(ActivityEntry.id))) or 0

    def new(self) -> list[activity.ActivityRow]:
        with self.sessions() as s:
            rows = [r for r in reversed(activity.entries(s, limit=1000)) if r.id > self.seen]
        if rows:
            self.seen = rows[-1].id
        return rows

    def one(self, action: str, actor: str, language: str | None, target: str) -> activity.ActivityRow:
        rows = self.new()
        assert len(rows) == 1, rows
        (row,) = rows
        assert (row.action, row.actor, row.language, row.target) == (action, actor, language, target), row
        return row


def _post(boss: Browser, path: str, **data):
    return boss.client.post(path, data={**data, "csrf_token": boss.token})


def test_each_action_in_the_browser_leaves_one_entry(review_app, sessions):
    log = Log(sessions)
    boss = Browser(review_app).login(BOSS)
    # invitations: create, resend, revoke
    assert _post(boss, "/admin/reviewers", email="nuria@example.org", languages="es").status_code == 303
    row = log.one(Activity.INVITE, BOSS, "es", "nuria@example.org")
    assert row.details["languages"] == ["es"] and row.details["role"] == "reviewer"
    with sessions() as s:
        invite_id = s.scalar(select(Invite.id).where(Invite.email == "nuria@example.org"))
    assert _post(boss, f"/admin/invites/{invite_id}/resend").status_code == 303
    log.one(Activity.INVITE_RESEND, BOSS, "es", "nuria@example.org")
    assert _post(boss, f"/admin/invites/{invite_id}/revoke").status_code == 302
    log.one(Activity.INVITE_REVOKE, BOSS, "es", "nuria@example.org")
    # refused: nothing logged (a revoked invitation, a bad fraction)
    _post(boss, f"/admin/invites/{invite_id}/revoke")
    assert _post(boss, "/admin/reviewers", languages="es", fraction="2").status_code == 422
    assert log.new() == []
    # two languages: the entry names no single language, its details both
    _post(boss, "/admin/reviewers", languages=["es", "ar"])
    with sessions() as s:
        second = s.scalar(select(func.max(Invite.id)))
    assert log.one(Activity.INVITE, BOSS, None, f"invitation #{second}").details["languages"] == ["ar", "es"]

    # guidelines: saved, saved unchanged (nothing), back to the default
    url = "/admin/languages/es/guidelines"
    assert _post(boss, url, text="Be kind.", action="save").status_code == 302
    assert log.one(Activity.GUIDELINES, BOSS, "es", "guidelines").details["change"] == "customise"
    _post(boss, url, text="Be kind.", action="save")
    assert log.new() == []
    _post(boss, url, action="reset")
    assert log.one(Activity.GUIDELINES, BOSS, "es", "default guidelines").details["change"] == "reset"

    # glossary: add, edit, delete; a refused term logs nothing
    url = "/admin/languages/es/glossary"
    assert _post(boss, url, term="born", translation="nació").status_code == 302
    log.one(Activity.GLOSSARY, BOSS, "es", "born")
    assert _post(boss, url, term="BORN", translation="otra").status_code == 422
    assert log.new() == []
    with sessions() as s:
        term_id = s.scalar(select(GlossaryTerm.id))
    _post(boss, f"{url}/{term_id}", term="born", translation="vino al mundo", action="save")
    assert log.one(Activity.GLOSSARY, BOSS, "es", "born").details == {
        "change": "edit",
        "term": "born",
        "translation": "vino al mundo",
        "note": "",
    }
    _post(boss, f"{url}/{term_id}", action="delete")
    assert log.one(Activity.GLOSSARY, BOSS, "es", "born").details["change"] == "delete"

    # queue order: a change is logged, a refused order is not
    assert _post(boss, "/admin/languages/es/queue-order", order="risk").status_code == 302
    assert log.one(Activity.QUEUE_ORDER, BOSS, "es", "risk").details == {"from": "random", "to": "risk"}
    _post(boss, "/admin/languages/es/queue-order", order="bogus")
    assert log.new() == []

    # snapshot, build, download (with and without the Hugging Face files)
    assert _post(boss, "/admin/release/snapshot", name="c1", confirm="1").status_code == 302
    assert log.one(Activity.SNAPSHOT, BOSS, None, "c1").details["patterns"] > 0
    assert _post(boss, "/admin/release/snapshot", name="c1", confirm="1").status_code != 302  # taken
    assert log.new() == []
    r = _post(boss, "/admin/release/build", name="r1", policy="any", parent="c1", confirm="1")
    assert r.status_code == 302
    row = log.one(Activity.BUILD, BOSS, None, "r1")
    assert row.details["parent"] == "c1" and row.details["policy"] == "any"
    assert boss.get("/admin/versions/r1/download.zip").status_code == 200
    assert log.one(Activity.EXPORT, BOSS, None, "r1").details["hf"] is False
    hf = boss.get("/admin/versions/r1/download.zip?hf=1")
    assert hf.status_code == 200 and "r1-hf.zip" in hf.headers["Content-Disposition"]
    assert log.one(Activity.EXPORT, BOSS, None, "r1").details["hf"] is True
    # the zip holds the release and the Hugging Face files `release export --hf` writes
    with zipfile.ZipFile(io.BytesIO(hf.data)) as archive:
        names = set(archive.namelist())
        assert {f"r1/hf/{k}.{e}" for k in ("patterns", "tuples") for e in ("jsonl", "parquet")} <= names
        assert "r1/manifest.json" in names and any(n.startswith("r1/patterns/es/") for n in names)
        first = json.loads(archive.read("r1/hf/patterns.jsonl").splitlines()[0])
        assert first["language"] and first["pattern"]
    # and both pages offer it
    dashboard = boss.get("/admin/").get_data(as_text=True)
    assert 'href="/admin/versions/r1/download.zip?hf=1"' in dashboard
    assert "download.zip?hf=1" in boss.get("/admin/diff?a=c1&b=r1").get_data(as_text=True)


def test_each_command_leaves_one_entry_by_the_command_line(review_app, cli, sessions, tmp_path):
    log = Log(sessions)
    cli("user", "invite", "--language", "es", "--email", "carla@example.org")
    log.one(Activity.INVITE, CLI, "es", "carla@example.org")
    cli("review", "fraction", "es", "0.3")
    assert log.one(Activity.SAMPLE_FRACTION, CLI, "es", "0.3").details["to"] == 0.3
    cli("review", "fraction", "es", "0.3")  # unchanged: nothing to log
    assert cli("review", "fraction", "es", "2", ok=False).exit_code == 1
    assert log.new() == []
    cli("review", "order", "es", "risk")
    log.one(Activity.QUEUE_ORDER, CLI, "es", "risk")
    csv = tmp_path / "terms.csv"
    csv.write_text("language,term,translation,note\nes,born,nació,\nar,born,ولد,\nes,capital,capital,\n")
    cli("glossary", "import", csv)
    rows = log.new()  # one entry per language the file changed
    assert [(r.action, r.actor, r.language, r.target) for r in rows] == [
        (Activity.GLOSSARY, CLI, "ar", "terms.csv"),
        (Activity.GLOSSARY, CLI, "es", "terms.csv"),
    ]
    assert rows[1].details == {"change": "import", "added": 2, "updated": 0}
    cli("glossary", "import", csv)  # nothing changes: nothing logged
    assert log.new() == []
    cli("release", "build", "c1")
    log.one(Activity.SNAPSHOT, CLI, None, "c1")
    cli("release", "build", "r1", "--from-review")
    assert log.one(Activity.BUILD, CLI, None, "r1").details["parent"] == "c1"
    cli("release", "export", "r1", tmp_path / "r1")
    assert log.one(Activity.EXPORT, CLI, None, "r1").details["out"] == str((tmp_path / "r1").resolve())
    cli("release", "import", tmp_path / "r1", "--version", "again")
    assert log.one(Activity.IMPORT, CLI, None, "again").details["what"] == "release"
    assert cli("release", "build", "c1", ok=False).exit_code == 1  # a name taken: nothing logged
    assert log.new() == []
    sheet = tmp_path / "sheet.jsonl"
    with sessions() as s:
        from curator.core.models import Template

        template = s.scalars(select(Template).where(Template.language == "es", Template.is_candidate)).first()
        line = {
            "reviewer": "legacy",
            "language": "es",
            "relation": template.relation_id,
            "template": template.text,
            "decision": "accept",
        }
    sheet.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    cli("review", "import", sheet)
    assert log.one(Activity.IMPORT, CLI, None, "sheet.jsonl").details["what"] == "reviews"


def test_user_commands_leave_entries_and_never_the_token(review_app, cli, sessions):
    """`curator user create` (its role, and one `assign` per --language), `user password` and
    `user token` are maintainer actions too; a refused command logs nothing."""
    log = Log(sessions)
    strong = "violet tractor umbrella"
    cli("user", "create", "carla@example.org", "--role", "reviewer", "--password", strong, "--language", "es")
    rows = log.new()
    assert [(r.action, r.actor, r.language, r.target, r.details) for r in rows] == [
        (Activity.ACCOUNT_CREATE, CLI, None, "carla@example.org", {"role": "reviewer"}),
        (Activity.ASSIGN, CLI, "es", "carla@example.org", {"sample": "new"}),
    ]
    cli("user", "create", "dora@example.org", "--role", "maintainer", "--password", strong)
    assert log.one(Activity.ACCOUNT_CREATE, CLI, None, "dora@example.org").details == {"role": "maintainer"}
    assert cli("user", "create", "dora@example.org", "--password", strong, ok=False).exit_code == 1  # taken
    assert cli("user", "create", "eva@example.org", "--password", strong, "--language", "zz", ok=False).exit_code
    assert log.new() == []
    cli("user", "password", "carla@example.org", "--password", "amber kettle horizon")
    log.one(Activity.PASSWORD_SET, CLI, None, "carla@example.org")
    assert cli("user", "password", "nobody@example.org", "--password", strong, ok=False).exit_code == 1
    assert log.new() == []
    token = cli("user", "token", "carla@example.org").output.strip()
    row = log.one(Activity.API_TOKEN, CLI, None, "carla@example.org")
    assert token and token not in json.dumps(row.details) and token not in row.target


def _fill(sessions) -> None:
    """90 entries: 4 old invitations (ar) and 61 glossary edits (es) by boss, one of them with a
    target typed to attack the page, and 25 builds by the command line."""
    with sessions.begin() as s:
        boss = s.scalar(select(User).where(User.email == BOSS))
        for i in range(4):
            entry = activity.record(s, boss, Activity.INVITE, f"old{i}@example.org", "ar", {"languages": ["ar"]})
            entry.created_at = datetime(2020, 1, 1, 12, i)
        for i in range(25):
            activity.record(s, None, Activity.BUILD, f"v{i}", None, {"policy": "any", "languages": 3})
        for i in range(60):
            activity.record(s, boss, Activity.GLOSSARY, f"term{i}", "es", {"change": "add", "note": EVIL})
        activity.record(s, boss, Activity.GLOSSARY, EVIL, "es", {"change": "add"})


def _entries(html: str) -> list[str]:
    return re.findall(r'data-entry="(\d+)"', html)


def test_activity_page_filters_pages_escapes_and_is_for_maintainers(review_app, sessions):
    _fill(sessions)
    ana = Browser(review_app).login("ana@example.org")
    assert ana.get("/admin/activity").status_code == 403
    assert ana.get("/admin/activity.json").status_code == 403
    assert review_app.test_client().get("/admin/activity").status_code == 302  # to sign in
    boss = Browser(review_app).login(BOSS)
    assert 'id="activity-link"' in boss.get("/admin/").get_data(as_text=True)
    page = boss.get("/admin/activity").get_data(as_text=True)
    first = _entries(page)
    assert len(first) == 50 and first == sorted(first, key=int, reverse=True)  # newest first
    assert EVIL not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&amp;lt;" not in page  # escaped once: the details read as typed
    older = re.search(r'id="older" href="([^"]+)"', page).group(1).replace("&amp;", "&")
    rest = boss.get(older).get_data(as_text=True)
    assert len(_entries(rest)) == 40 and int(_entries(rest)[0]) < int(first[-1]) and 'id="older"' not in rest
    # filters as GET parameters, kept on the older-entries link
    page = boss.get("/admin/activity?action=glossary").get_data(as_text=True)
    assert len(_entries(page)) == 50 and 'data-action="build"' not in page
    older = re.search(r'id="older" href="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert "action=glossary" in older and len(_entries(boss.get(older).get_data(as_text=True))) == 11
    assert len(_entries(boss.get("/admin/activity?actor=command+line").get_data(as_text=True))) == 25
    by_boss = boss.get(f"/admin/activity.json?limit=1000&actor={BOSS.upper()}").get_json()["entries"]
    assert len(by_boss) == 65 and {e["actor"] for e in by_boss} == {BOSS}
    assert len(_entries(boss.get("/admin/activity?language=ar").get_data(as_text=True))) == 4
    assert len(_entries(boss.get("/admin/activity?since=2021-01-01&language=ar").get_data(as_text=True))) == 0
    assert len(_entries(boss.get("/admin/activity?since=2020-01-01T12:02&language=ar").get_data(as_text=True))) == 2
    # bad filters: the page says which field, shows nothing else
    for query, field in (
        ("action=nope", "action"),
        ("actor=nobody%40example.org", "actor"),
        ("language=zz", "language"),
        ("language=..%2Fetc", "language"),
        ("since=yesterday", "since"),
    ):
        r = boss.get(f"/admin/activity?{query}")
        assert r.status_code == 422, query
        html = r.get_data(as_text=True)
        assert f"field &#39;{field}&#39;" in html and not _entries(html), query
        answer = boss.get(f"/admin/activity.json?{query}")
        assert answer.status_code == 422 and f"field '{field}'" in answer.get_json()["error"], query
    assert boss.get("/admin/activity?before=x").status_code == 422
    # JSON: the same entries and the link to the older ones
    data = boss.get("/admin/activity.json?action=build&limit=20").get_json()
    assert len(data["entries"]) == 20 and {e["actor"] for e in data["entries"]} == {CLI}
    more = boss.get(f"/admin/activity.json?action=build&limit=20&before={data['older']}").get_json()
    assert len(more["entries"]) == 5 and more["older"] is None
    assert boss.get("/admin/activity.json?limit=0").status_code == 422


def test_curator_activity_filters_and_refuses_bad_options(review_app, cli, sessions):
    _fill(sessions)
    out = cli("activity", "--action", "invite", "--json").output
    data = json.loads(out)
    assert [e["target"] for e in data["entries"]] == [f"old{i}@example.org" for i in (3, 2, 1, 0)]
    assert data["entries"][0]["actor"] == BOSS and data["entries"][0]["language"] == "ar" and not data["more"]
    lines = cli("activity", "--actor", CLI, "--limit", "3").output.splitlines()
    assert len(lines) == 1 + 3 + 1 and "v24" in lines[1] and "older entries" in lines[-1]
    assert all(" build " in line for line in lines[1:4])
    assert "no activity matches" in cli("activity", "--since", "2030-01-01").output
    assert len(json.loads(cli("activity", "--language", "es", "--limit", "100", "--json").output)["entries"]) == 61
    text = cli("activity", "--action", "glossary", "--limit", "1").output
    assert EVIL in text  # a terminal shows it as typed (nothing renders it)
    for option, value in (
        ("--action", "nope"),
        ("--actor", "nobody@example.org"),
        ("--language", "zz"),
        ("--since", "yesterday"),
        ("--limit", "0"),
        ("--limit", "many"),
    ):
        result = cli("activity", option, value, ok=False)
        assert result.exit_code == 2, (option, result.output)
        message = result.output.strip()
        assert "\n" not in message and message.startswith(f"Error: {option}: "), message
        assert "Traceback" not in message


def _sign_in(page, base: str, email: str) -> None:
    state = signed_in_state(base, email)
    if state is not None:
        page.context.add_cookies(state["cookies"])
    else:
        page.goto(base + "/login")
        page.fill("input[name=email]", email)
        page.fill("input[name=password]", PASSWORD)
        page.keyboard.press("Enter")
        page.wait_for_url(lambda url: "/login" not in url)


@pytest.mark.backends("sqlite")  # one browser walk; the same pages on PostgreSQL are checked above
def test_build_with_no_typing_then_the_activity_page_in_chromium(chromium, live, sessions):
    ctx = chromium.new_context(viewport={"width": 1200, "height": 900})
    page = ctx.new_page()
    _sign_in(page, live.url, BOSS)
    page.goto(live.url + "/admin/release/preview")
    page.locator("#no-candidates input[name=confirm]").check()
    page.locator("#no-candidates").get_by_role("button", name="Snapshot the candidates").click()
    page.wait_for_url(re.compile(r"/admin/release/preview\?parent="))
    build = page.locator("#build")
    suggested = build.locator("input[name=name]").input_value()
    assert suggested  # pre-filled: nothing to type
    build.locator("input[name=confirm]").check()
    build.get_by_role("button", name="Build (immutable)").click()
    page.wait_for_url(re.compile(r"/admin/diff\?"))
    with sessions() as s:
        assert s.scalar(select(DatasetVersion.kind).where(DatasetVersion.name == suggested)) == "review"
    # the Activity page from the menu: both versions, filtered by action through the form
    page.locator("#activity-link").click()
    page.wait_for_selector("#activity-table")
    rows = page.locator("#activity-table tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).get_attribute("data-action") == "build" and suggested in rows.nth(0).inner_text()
    assert BOSS in rows.nth(1).inner_text()
    page.select_option("select[name=action]", "snapshot")
    page.locator("#activity-filters").get_by_role("button", name="Filter").click()
    page.wait_for_url(re.compile(r"action=snapshot"))
    assert page.locator("#activity-table tbody tr").count() == 1
    ctx.close()


_NO_PYARROW = """
import sys
sys.modules["pyarrow"] = None
sys.path.insert(0, sys.argv[2])
from curator.review import accounts
accounts.PASSWORD_METHOD = "pbkdf2:sha256:1"
from curator.web import create_app
from tests.plugins.servers import Browser
app = create_app({"DATABASE_URL": sys.argv[1], "SECRET_KEY": "t", "RUNS_DIR": sys.argv[3], "RATELIMIT_ENABLED": False})
boss = Browser(app).login("boss@example.org")
dashboard = boss.get("/admin/").get_data(as_text=True)
r = boss.get("/admin/versions/c1/download.zip?hf=1")
print(__import__("json").dumps({
    "dashboard_hint": "pip install &#39;curator[hf]&#39;" in dashboard,
    "hf_link": "download.zip?hf=1" in dashboard,
    "plain_link": "/admin/versions/c1/download.zip" in dashboard,
    "status": r.status_code,
    "page": r.get_data(as_text=True),
    "plain": boss.get("/admin/versions/c1/download.zip").status_code,
}))
"""


@pytest.mark.backends("sqlite")  # about the install, not the database
def test_without_pyarrow_the_page_says_which_extra(review_app, cli, db_url, tmp_path):
    cli("release", "build", "c1")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURATOR_")}
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, "-c", _NO_PYARROW, db_url, str(ROOT), str(tmp_path / "runs")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout.strip().splitlines()[-1])
    assert got["dashboard_hint"] and not got["hf_link"] and got["plain_link"]
    assert got["status"] == 501 and "pip install &#39;curator[hf]&#39;" in got["page"]
    assert got["plain"] == 200  # the plain zip needs no extra

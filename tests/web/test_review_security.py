"""Authorization, CSRF, escaping, invitations and sign-in."""

from __future__ import annotations

import html
import re
import shutil

from sqlalchemy import func, select

from curator.core.models import Assignment, AssignmentItem, Invite, Template, User
from tests.conftest import SEED
from tests.plugins.databases import PASSWORD, review_sample
from tests.plugins.servers import Browser, csrf_from


def _item_of(sessions, email, lang):
    with sessions() as s:
        return s.scalar(
            select(AssignmentItem.id)
            .join(Assignment)
            .join(User)
            .where(User.email == email, Assignment.language == lang)
            .limit(1)
        )


def test_reviewer_cannot_touch_another_language(review_app, sessions):
    eleni = Browser(review_app).login("eleni@example.org")  # Greek only
    es_item = _item_of(sessions, "ana@example.org", "es")
    assert eleni.get("/review/es").status_code == 403
    assert eleni.get("/api/v1/languages/es/queue").status_code == 403
    assert eleni.get(f"/api/v1/languages/es/items/{es_item}").status_code == 403
    assert eleni.post(f"/api/v1/languages/es/items/{es_item}/decision", {"decision": "reject"}).status_code == 403
    assert eleni.post("/api/v1/languages/es/relations/P19/suggestions", {"text": "[X] de [Y]"}).status_code == 403
    assert eleni.post("/api/v1/validate", {"text": "[X] de [Y]", "language": "es"}).status_code == 403


def test_reviewer_cannot_read_or_write_another_reviewers_items(review_app, sessions):
    bo = Browser(review_app).login("bo@example.org")  # also Spanish
    ana_item = _item_of(sessions, "ana@example.org", "es")
    assert bo.get(f"/api/v1/languages/es/items/{ana_item}").status_code == 404
    assert bo.post(f"/api/v1/languages/es/items/{ana_item}/decision", {"decision": "reject"}).status_code == 404
    ana = Browser(review_app).login("ana@example.org")
    ana.post(f"/api/v1/languages/es/items/{ana_item}/decision", {"decision": "accept"})
    assert bo.get("/api/v1/languages/es/history").get_json()["decisions"] == []
    assert bo.post("/api/v1/languages/es/undo").get_json()["undone"] is None  # cannot undo Ana's
    assert ana.get("/api/v1/languages/es/history").get_json()["decisions"][0]["decision"] == "accept"


def test_reviewer_cannot_open_maintainer_pages(review_app):
    ana = Browser(review_app).login("ana@example.org")
    for path in ("/admin/", "/admin/languages/es", "/admin/reviewers"):
        assert ana.get(path).status_code == 403
    assert ana.post("/admin/reviewers", {}).status_code == 403
    boss = Browser(review_app).login("boss@example.org")
    for path in ("/admin/", "/admin/languages/es", "/admin/reviewers"):
        assert boss.get(path).status_code == 200


def test_anonymous_visitors_are_sent_to_sign_in(review_app):
    client = review_app.test_client()
    for path in ("/", "/review/es", "/review/es/history", "/admin/"):
        r = client.get(path)
        assert r.status_code == 302 and "/login" in r.headers["Location"]
    assert client.get("/api/v1/languages/es/queue").status_code == 401


def test_forms_and_api_calls_without_csrf_token_are_refused(review_app):
    client = review_app.test_client()
    assert client.post("/login", data={"email": "ana@example.org", "password": PASSWORD}).status_code == 400
    ana = Browser(review_app).login("ana@example.org")
    item = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["id"]
    r = ana.client.post(f"/api/v1/languages/es/items/{item}/decision", json={"decision": "accept"})
    assert r.status_code == 400 and "CSRF" in r.get_json()["error"]
    assert ana.client.post("/logout").status_code == 400
    assert ana.client.post("/admin/reviewers", data={"languages": "es"}).status_code in (400, 403)


def test_template_text_with_script_is_shown_as_text(review_app, sessions):
    ana = Browser(review_app).login("ana@example.org")
    item = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["id"]
    with sessions.begin() as s:
        template = s.get(Template, s.get(AssignmentItem, item).template_id)
        template.text = "<script>alert(1)</script> [X] [Y]"
    ana.post(f"/api/v1/languages/es/items/{item}/decision", {"decision": "accept"})
    page = ana.get("/review/es/history").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    boss = Browser(review_app).login("boss@example.org")
    page = boss.get("/admin/languages/es").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page
    # the API returns it as data; the page inserts it with textContent (tested in the browser)
    assert ana.get(f"/api/v1/languages/es/items/{item}").get_json()["template"]["text"].startswith("<script>")
    assert "script-src" not in ana.get("/review/es").headers["Content-Security-Policy"]  # default-src 'self'


def test_invitation_flow(review_app, sessions, cli):
    link = cli("user", "invite", "--language", "el", "--language", "ar", "--fraction", "1").output.strip()
    path = link[link.index("/invite/") :]
    client = review_app.test_client()
    page = client.get(path)
    assert page.status_code == 200 and "as reviewer for Arabic, Greek." in page.get_data(as_text=True)
    token = csrf_from(page.get_data(as_text=True))
    mismatch = client.post(
        path,
        data={"csrf_token": token, "email": "new@example.org", "password": "longenough1", "password2": "different1"},
    )
    assert mismatch.status_code == 422
    short = client.post(
        path, data={"csrf_token": token, "email": "new@example.org", "password": "short", "password2": "short"}
    )
    assert short.status_code == 422 and "8 characters" in short.get_data(as_text=True)
    ok = client.post(
        path,
        data={
            "csrf_token": token,
            "email": "new@example.org",
            "name": "Nia",
            "password": "longenough1",
            "password2": "longenough1",
        },
    )
    assert ok.status_code == 302
    home = client.get("/").get_data(as_text=True)
    assert "Greek" in home and "Arabic" in home
    with sessions() as s:
        user = s.scalar(select(User).where(User.email == "new@example.org"))
        assert user.password_hash and "longenough1" not in user.password_hash
        assert {a.language: a.fraction for a in user.assignments} == {"ar": 1.0, "el": 1.0}
    assert client.get(path).status_code == 410  # used once
    assert review_app.test_client().get("/invite/not-a-token").status_code == 404


def test_maintainer_creates_invitation_in_the_page(review_app, sessions):
    boss = Browser(review_app).login("boss@example.org")
    page = boss.get("/admin/reviewers").get_data(as_text=True)
    r = boss.client.post(
        "/admin/reviewers",
        data={"csrf_token": csrf_from(page), "languages": ["es", "el"], "email": "x@example.org"},
        follow_redirects=True,
    )
    body = r.get_data(as_text=True)
    assert r.status_code == 200 and "/invite/" in body and "/invite/" not in page
    link = html.unescape(re.search(r'<code class="invite-link"[^>]*>([^<]+)</code>', body).group(1))
    with sessions() as s:
        invite = s.scalar(select(Invite))
        boss_id = s.scalar(select(User.id).where(User.email == "boss@example.org"))
        assert (invite.languages, invite.email, invite.role, invite.created_by) == (
            ["el", "es"],
            "x@example.org",
            "reviewer",
            boss_id,
        )
    opened = review_app.test_client().get(link[link.index("/invite/") :]).get_data(as_text=True)
    assert "as reviewer for Greek, Spanish." in opened and 'value="x@example.org" readonly' in opened


def test_wrong_password_and_open_redirect(review_app):
    client = review_app.test_client()
    token = csrf_from(client.get("/login").get_data(as_text=True))
    r = client.post("/login", data={"email": "ana@example.org", "password": "wrong", "csrf_token": token})
    assert r.status_code == 401 and "do not match" in r.get_data(as_text=True)
    r = client.post(
        "/login?next=https://evil.example/",
        data={"email": "ana@example.org", "password": PASSWORD, "csrf_token": token},
    )
    assert r.status_code == 302 and r.headers["Location"] == "/"
    for target in ("//evil.example/", "/%5Cevil.example", "/\\evil.example"):  # browsers read /\ as //
        fresh = review_app.test_client()
        token = csrf_from(fresh.get("/login").get_data(as_text=True))
        r = fresh.post(
            f"/login?next={target}", data={"email": "ana@example.org", "password": PASSWORD, "csrf_token": token}
        )
        assert r.status_code == 302 and r.headers["Location"] == "/", (target, r.headers["Location"])


def test_an_invitation_for_one_address_is_refused_to_another_signed_in_account(review_app, sessions, cli):
    link = cli(
        "user", "invite", "--language", "el", "--email", "someone@example.org", "--role", "maintainer"
    ).output.strip()
    path = link[link.index("/invite/") :]
    ana = Browser(review_app).login("ana@example.org")
    page = ana.get(path).get_data(as_text=True)
    r = ana.client.post(path, data={"csrf_token": csrf_from(page)})
    assert r.status_code == 403 and "someone@example.org" in r.get_data(as_text=True)
    with sessions() as s:
        user = s.scalar(select(User).where(User.email == "ana@example.org"))
        assert user.role == "reviewer" and "el" not in {a.language for a in user.assignments}
        assert s.scalar(select(Invite)).used_at is None


def test_session_cookie_flags(review_app):
    client = review_app.test_client()
    token = csrf_from(client.get("/login").get_data(as_text=True))
    r = client.post("/login", data={"email": "ana@example.org", "password": PASSWORD, "csrf_token": token})
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_invitation_to_a_language_without_candidates_is_a_clear_message(review_app, sessions, cli, tmp_path):
    """French exists (one untrusted system translated two P19 patterns) but no template has the two
    votes a candidate needs: accepting an invitation for it says so (422, not a 500), creates no
    account and leaves the link unused, so it works once French has candidates."""
    lines = (
        '{"pattern": "[X] est né à [Y].", "lemma": "born", "extended_lemma": "born-in", "tense": "past"}\n'
        '{"pattern": "[X] est originaire de [Y].", "lemma": "from", "extended_lemma": "is-originally-from", '
        '"tense": "present"}\n'
    )

    def translated_by(system: str) -> None:
        folder = tmp_path / system / system / "fr"
        folder.mkdir(parents=True)
        (folder / "P19.jsonl").write_text(lines, encoding="utf-8")
        cli("ingest", "translations", tmp_path / system)
        cli("candidates", "build")

    def french(**where) -> int:
        with sessions() as s:
            return s.scalar(select(func.count()).select_from(Template).filter_by(language="fr", **where))

    translated_by("pararel_opus_mt")
    assert french() == 2 and french(is_candidate=True) == 0
    link = cli("user", "invite", "--language", "fr").output.strip()
    path = link[link.index("/invite/") :]
    client = review_app.test_client()
    page = client.get(path)
    assert page.status_code == 200 and "as reviewer for French." in page.get_data(as_text=True)
    form = {
        "csrf_token": csrf_from(page.get_data(as_text=True)),
        "email": "flo@example.org",
        "name": "Flo",
        "password": "longenough1",
        "password2": "longenough1",
    }
    answer = client.post(path, data=form)
    body = html.unescape(answer.get_data(as_text=True))
    assert answer.status_code == 422, body
    # the language by its name and its code, isolated in the flashed message (issue 37 §4)
    assert (
        'There is nothing to review in <bdi dir="auto">French (fr)</bdi> yet. Ask the maintainer who invited you'
        in body
    )
    # in the volunteer's language, all of it (issue 27 §1)
    spanish = html.unescape(client.post(path, data=form, headers={"Accept-Language": "es"}).get_data(as_text=True))
    assert (
        'Todavía no hay nada que revisar en <bdi dir="auto">francés (fr)</bdi>. Pregunta a la persona que te invitó'
        in (spanish)
    )
    assert 'name="password"' in body  # the form again, with the message
    with sessions() as s:
        assert s.scalar(select(User).where(User.email == "flo@example.org")) is None
    assert client.get(path).status_code == 200  # not used up

    (tmp_path / "tuples" / "fr").mkdir(parents=True)  # facts to ask, so that P19 can be usable in French
    shutil.copy(SEED / "tuples" / "es" / "P19.jsonl", tmp_path / "tuples" / "fr" / "P19.jsonl")
    cli("ingest", "tuples", tmp_path / "tuples")
    translated_by("pararel_bing")  # the trusted system agrees: two votes each
    assert french(is_candidate=True) == 2
    assert client.post(path, data=form).status_code == 302
    assert "French" in client.get("/").get_data(as_text=True)
    assert sorted(text for _, _, text in review_sample(sessions, "flo@example.org", "fr")) == [
        "[X] est né à [Y]",
        "[X] est originaire de [Y]",
    ]  # cleaned: no final dot
    assert client.get(path).status_code == 410


def test_a_bad_address_on_the_invitation_is_said_in_the_page_language(review_app, cli):
    """The e-mail validator's own reasons are English only: the invitation page says, in its
    language, what is wrong and what to do (issue 27: no English on a volunteer's path)."""
    link = cli("user", "invite", "--language", "es").output.strip()
    path = link[link.index("/invite/") :]
    client = review_app.test_client()
    headers = {"Accept-Language": "es"}
    page = client.get(path, headers=headers).get_data(as_text=True)
    form = {
        "csrf_token": csrf_from(page),
        "email": "ana@@example",
        "password": "longenough1",
        "password2": "longenough1",
    }
    body = client.post(path, data=form, headers=headers).get_data(as_text=True)
    assert "no es una dirección de correo: comprueba que esté escrita como nombre@example.org" in html.unescape(body)
    assert "is not an e-mail address" not in body

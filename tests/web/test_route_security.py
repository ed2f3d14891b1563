"""Every route × every method × every role, against an explicit table.

`EXPECTED` names each rule of `app.url_map` and, for each method, the status that an anonymous
visitor, a reviewer of another language, a reviewer of the URL's language (Ana, es) and a
maintainer get. A route missing from the table fails `test_every_route_is_in_the_table`, so a
new page or endpoint cannot ship without deciding who may use it. POSTs carry a valid CSRF
token here (this checks roles); `test_every_post_needs_a_csrf_token` checks CSRF separately.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from curator.core.models import Assignment, AssignmentItem, User
from tests.analysis.test_report import TEMPLATES, make_run
from tests.plugins.databases import PASSWORD
from tests.plugins.servers import Browser, csrf_from

ROLES = ("anonymous", "other_reviewer", "reviewer", "maintainer")
SIGN_IN = 302  # a page sends an anonymous visitor to the sign-in page
A, O, R, M = ROLES  # noqa: E741  (one-letter column heads for the tables below: O, the other reviewer)


def _all(status):
    return dict.fromkeys(ROLES, status)


def _pages(reviewer=200):
    """A signed-in page about the URL's language: sign-in redirect, 403 for another language."""
    return {A: SIGN_IN, O: 403, R: reviewer, M: 403}


def _api(reviewer=200):
    """An API call about the URL's language: 401 (JSON) anonymous, 403 for anyone not reviewing it
    (the maintainer reviews no language in the fixture)."""
    return {A: 401, O: 403, R: reviewer, M: 403}


MAINTAINER_PAGE = {A: SIGN_IN, O: 403, R: 403, M: 200}

# rule -> method -> role -> status
EXPECTED: dict[str, dict[str, dict[str, int]]] = {
    "/": {"GET": {A: SIGN_IN, O: 200, R: 200, M: 302}},  # a maintainer reviewing nothing: the dashboard
    "/login": {
        "GET": {A: 200, O: 302, R: 302, M: 302},  # signed in already: home
        "POST": _all(401),
    },  # empty form: "do not match", whoever asks
    "/logout": {"POST": _all(302)},  # anonymous: to sign-in; signed in: signed out, to sign-in
    "/account": {
        "GET": {A: SIGN_IN, O: 200, R: 200, M: 200},
        "POST": {A: SIGN_IN, O: 422, R: 422, M: 422},
    },  # empty form: wrong current password
    "/invite/<token>": {
        "GET": _all(200),
        "POST": {A: 422, O: 302, R: 302, M: 302},
    },  # anonymous: no e-mail; signed in: joins
    "/healthz": {"GET": _all(200)},
    "/locale": {"POST": _all(302)},  # the language switcher: anyone, back to `next`
    "/favicon.ico": {"GET": _all(301)},  # to /static/favicon.svg
    "/static/<path:filename>": {"GET": _all(200)},
    "/review/<lang>": {"GET": _pages()},
    "/review/<lang>/history": {"GET": _pages()},
    "/review/<lang>/find": {"GET": _pages()},  # a reviewer's search of their queue (issue 37 §5)
    "/api/v1/me": {"GET": {A: 401, O: 200, R: 200, M: 200}},
    "/api/v1/languages/<lang>/queue": {"GET": _api()},
    "/api/v1/languages/<lang>/items/<int:item_id>": {"GET": _api()},
    "/api/v1/languages/<lang>/items/<int:item_id>/decision": {"POST": _api(201)},
    "/api/v1/languages/<lang>/undo": {"POST": _api()},
    "/api/v1/languages/<lang>/relations/<relation>/suggestions": {"POST": _api(201)},
    "/api/v1/languages/<lang>/history": {"GET": _api()},
    "/api/v1/languages/<lang>/find": {"GET": _api()},
    "/api/v1/validate": {"POST": _api()},
    "/api/v1/languages/<lang>/items/<int:item_id>/context": {"GET": _api()},
    "/api/v1/me/context-languages": {"GET": {A: 401, O: 200, R: 200, M: 200}, "POST": {A: 401, O: 200, R: 200, M: 200}},
    "/admin/": {"GET": MAINTAINER_PAGE},
    "/admin/coverage": {"GET": MAINTAINER_PAGE},
    "/admin/dashboard.csv": {"GET": MAINTAINER_PAGE},
    "/admin/diff": {"GET": MAINTAINER_PAGE},
    "/admin/languages/<code>": {"GET": MAINTAINER_PAGE},
    "/admin/languages/<code>/queue-order": {"POST": {**MAINTAINER_PAGE, M: 302}},
    "/admin/merge-policy": {"POST": {**MAINTAINER_PAGE, M: 302}},  # issue 36 §3: the stored merge policy
    "/admin/release/build": {"POST": {**MAINTAINER_PAGE, M: 302}},
    "/admin/release/snapshot": {"POST": {**MAINTAINER_PAGE, M: 302}},
    "/admin/versions/<name>/download.zip": {"GET": MAINTAINER_PAGE},
    "/admin/invites/<int:invite_id>/resend": {"POST": {**MAINTAINER_PAGE, M: 303}},  # to the page with the new link
    "/admin/invites/<int:invite_id>/revoke": {"POST": {**MAINTAINER_PAGE, M: 302}},  # after resend (sorted)
    "/admin/release/preview": {"GET": MAINTAINER_PAGE},
    "/admin/reviewers": {"GET": MAINTAINER_PAGE, "POST": {**MAINTAINER_PAGE, M: 303}},  # to the page with the link
    "/admin/versions/<name>/chart.svg": {"GET": MAINTAINER_PAGE},
    "/probe/runs": {"GET": MAINTAINER_PAGE},
    "/probe/runs/<name>": {"GET": MAINTAINER_PAGE},
    "/probe/runs/<name>/<chart>.png": {"GET": MAINTAINER_PAGE},
    # a relation's decoded queries: the table's run ranks, so a maintainer gets 404 (the page: test_probe_decode_run)
    "/probe/runs/<name>/decoded/<language>/<relation>": {"GET": {**MAINTAINER_PAGE, M: 404}},
    "/probe/compare": {"GET": MAINTAINER_PAGE},  # models × languages of the runs ticked (?run=…)
    # review guidance (issue 15): guidelines, comments, suggestion edits
    "/admin/languages/<code>/guidelines": {"GET": MAINTAINER_PAGE, "POST": {**MAINTAINER_PAGE, M: 302}},
    "/api/v1/languages/<lang>/guidelines": {"GET": _api()},
    "/api/v1/languages/<lang>/guidelines/seen": {"POST": _api()},
    "/api/v1/languages/<lang>/items/<int:item_id>/comments": {"POST": _api(201)},
    "/api/v1/languages/<lang>/relations/<relation>/comments": {"POST": _api(201)},
    "/api/v1/languages/<lang>/comments": {"GET": _api()},
    # the suggestion and comment ids are Bo's (another Spanish reviewer, `others_rows`): Ana gets 404
    # from the API, and on the history page's forms the same refusal as a message after the redirect
    "/api/v1/languages/<lang>/comments/<int:comment_id>/withdraw": {"POST": _api(404)},  # not Ana's comment
    "/api/v1/languages/<lang>/suggestions/<int:suggestion_id>/withdraw": {"POST": _api(404)},  # not Ana's
    "/review/<lang>/suggestions/<int:suggestion_id>/edit": {"POST": {**_pages(302), A: SIGN_IN}},
    "/review/<lang>/suggestions/<int:suggestion_id>/withdraw": {"POST": {**_pages(302), A: SIGN_IN}},
    "/review/<lang>/comments/<int:comment_id>/withdraw": {"POST": {**_pages(302), A: SIGN_IN}},
    # a reply from the history page (a mentioned reviewer answers there): the maintainers may too
    "/review/<lang>/threads/<int:thread_id>/reply": {"POST": {A: SIGN_IN, O: 403, R: 302, M: 302}},
    # the glossary (issue 27 §6)
    "/admin/languages/<code>/glossary": {"GET": MAINTAINER_PAGE, "POST": {**MAINTAINER_PAGE, M: 302}},
    "/admin/languages/<code>/glossary/<int:term_id>": {"POST": {**MAINTAINER_PAGE, M: 302}},
    "/api/v1/languages/<lang>/items/<int:item_id>/glossary": {"GET": _api()},
    # people (issue 28 §4): Carl, deactivated in `world`, reactivated, assigned, reset, promoted (sorted)
    "/admin/users": {"GET": MAINTAINER_PAGE},
    "/admin/users/<int:user_id>": {"GET": MAINTAINER_PAGE},
    "/admin/users/<int:user_id>/active": {"POST": {**MAINTAINER_PAGE, M: 302}},
    "/admin/users/<int:user_id>/languages": {"POST": {**MAINTAINER_PAGE, M: 302}},
    "/admin/users/<int:user_id>/reset": {"POST": MAINTAINER_PAGE},  # the page with the link, 200
    # dismissing a "Forgot password?" request made in the app: Carl has none open (the link just
    # made would have answered one), so the page says so, 409
    "/admin/users/<int:user_id>/reset-request": {"POST": {**MAINTAINER_PAGE, M: 409}},
    "/admin/users/<int:user_id>/role": {"POST": {**MAINTAINER_PAGE, M: 302}},
    "/reset/<token>": {"GET": _all(200), "POST": _all(422)},  # Dora's link, anyone holding it; no password
    # issue 37 §3: "Forgot password?" is for anyone; without e-mail configured (as here) the POST
    # is a request to the maintainers, answered like every POST there: to the "sent" page
    "/forgot": {"GET": _all(200), "POST": _all(303)},
    # issue 37 §5: a mention's link (Ana's: to her history page; anyone else's: 404), "mark as read"
    "/mentions/<int:mention_id>": {"GET": {A: SIGN_IN, O: 404, R: 302, M: 404}},
    "/mentions/read": {"POST": {A: SIGN_IN, O: 302, R: 302, M: 302}},
    # adjudication (issue 28 §2); retract after resolve, restore after drop (sorted)
    "/admin/languages/<code>/disagreements": {"GET": MAINTAINER_PAGE},
    "/admin/languages/<code>/disagreements/<int:template_id>/resolve": {"POST": {**MAINTAINER_PAGE, M: 302}},
    "/admin/languages/<code>/disagreements/<int:template_id>/retract": {"POST": {**MAINTAINER_PAGE, M: 302}},
    "/api/v1/languages/<lang>/disagreements": {"GET": {A: 401, O: 403, R: 403, M: 200}},
    "/api/v1/templates/<int:template_id>/resolution": {"POST": {A: 401, O: 403, R: 403, M: 200}},
    "/api/v1/templates/<int:template_id>/resolution/retract": {"POST": {A: 401, O: 403, R: 403, M: 200}},
    "/admin/release/drop-line": {"POST": {**MAINTAINER_PAGE, M: 302}},
    "/admin/release/restore-line": {"POST": {**MAINTAINER_PAGE, M: 302}},
    # proposals (issue 28 §1): Bo's suggestion (`others_rows`) is the proposal answered
    "/admin/languages/<code>/proposals": {"GET": MAINTAINER_PAGE, "POST": {**MAINTAINER_PAGE, M: 302}},
    "/admin/languages/<code>/trusted": {"POST": {**MAINTAINER_PAGE, M: 302}},
    "/api/v1/languages/<lang>/proposals": {
        "GET": {A: 401, O: 403, R: 403, M: 200},
        "POST": {A: 401, O: 403, R: 403, M: 200},
    },
    # the activity log (issue 28 §4)
    "/admin/activity": {"GET": MAINTAINER_PAGE},
    "/admin/activity.json": {"GET": MAINTAINER_PAGE},
    # comment threads (issue 28 §3): the thread is Bo's comment; any reviewer of the language and
    # the maintainers reply and read; only the maintainers (and Bo, who opened it) resolve / reopen
    "/api/v1/languages/<lang>/comments/<int:comment_id>/replies": {"POST": {A: 401, O: 403, R: 201, M: 201}},
    "/api/v1/languages/<lang>/comments/<int:comment_id>/resolve": {"POST": {A: 401, O: 403, R: 403, M: 200}},
    "/api/v1/languages/<lang>/comments/<int:comment_id>/reopen": {"POST": {A: 401, O: 403, R: 403, M: 200}},
    "/api/v1/languages/<lang>/threads": {"GET": {A: 401, O: 403, R: 200, M: 200}},
    "/api/v1/languages/<lang>/threads/<int:comment_id>": {"GET": {A: 401, O: 403, R: 200, M: 200}},
    "/api/v1/me/replies": {"GET": {A: 401, O: 200, R: 200, M: 200}},
    "/api/v1/csrf": {"GET": {A: 401, O: 200, R: 200, M: 200}},  # a fresh CSRF token (issue 38 §2)
    "/admin/languages/<code>/threads": {"GET": MAINTAINER_PAGE},
    "/admin/languages/<code>/threads/<int:thread_id>/reply": {"POST": {**MAINTAINER_PAGE, M: 302}},
    "/admin/languages/<code>/threads/<int:thread_id>/resolve": {"POST": {**MAINTAINER_PAGE, M: 302}},
    "/admin/languages/<code>/threads/<int:thread_id>/reopen": {"POST": {**MAINTAINER_PAGE, M: 302}},
}

# what each POST sends (a valid request, so that the status shows the role, not the input)
BODIES = {
    "/login": {},
    "/account": {},
    "/invite/<token>": {},
    "/locale": {"locale": "en", "next": "/"},
    "/api/v1/languages/<lang>/items/<int:item_id>/decision": {"decision": "reject"},
    "/api/v1/languages/<lang>/relations/<relation>/suggestions": {"text": "[X] vino al mundo en [Y]"},
    "/api/v1/validate": {"text": "[X] nació en [Y]", "language": "es"},
    "/api/v1/me/context-languages": {"languages": ["es"]},
    "/admin/languages/<code>/queue-order": {"order": "risk"},
    "/admin/merge-policy": {"language": "es", "policy": "majority"},
    "/admin/release/build": {"name": "v2", "policy": "any", "parent": "v1", "confirm": "1"},
    "/admin/release/snapshot": {"name": "v1-snapshot", "confirm": "1"},
    "/admin/reviewers": {"languages": "es", "email": "someone@example.org"},
    "/admin/diff": {"a": "v1", "b": "v1"},
    "/api/v1/languages/<lang>/items/<int:item_id>/comments": {"text": "odd"},
    "/api/v1/languages/<lang>/relations/<relation>/comments": {"text": "odd"},
    "/admin/languages/<code>/guidelines": {"text": "Be kind.", "action": "save"},
    "/review/<lang>/suggestions/<int:suggestion_id>/edit": {"text": "[X] vino al mundo en [Y]"},
    "/admin/languages/<code>/glossary": {"term": "native", "translation": "natural"},
    "/admin/languages/<code>/glossary/<int:term_id>": {"term": "born", "translation": "nació", "action": "save"},
    "/admin/users/<int:user_id>/active": {"action": "reactivate"},
    "/admin/users/<int:user_id>/languages": {"action": "assign", "language": "es"},
    "/admin/users/<int:user_id>/role": {"role": "maintainer"},
    "/admin/languages/<code>/disagreements/<int:template_id>/resolve": {"verdict": "accept", "reason": "fine"},
    "/api/v1/templates/<int:template_id>/resolution": {"verdict": "accept", "reason": "fine"},
    "/admin/release/drop-line": {"language": "es", "relation": "P19", "pattern": "[X] nació en [Y]", "reason": "r"},
    "/admin/release/restore-line": {"language": "es", "relation": "P19", "pattern": "[X] nació en [Y]"},
    "/admin/languages/<code>/proposals": {"relation": "P19", "text": "[X] es oriundo de [Y]", "action": "confirm"},
    "/admin/languages/<code>/trusted": {"email": "bo@example.org", "trusted": "1"},
    "/api/v1/languages/<lang>/proposals": {"relation": "P19", "text": "[X] es oriundo de [Y]", "action": "confirm"},
    "/api/v1/languages/<lang>/comments/<int:comment_id>/replies": {"text": "Bien visto."},
    "/admin/languages/<code>/threads/<int:thread_id>/reply": {"text": "Bien visto."},
    "/review/<lang>/threads/<int:thread_id>/reply": {"text": "Bien visto."},
}
QUERY = {"/admin/diff": "?a=v1&b=v1", "/probe/compare": "?run=mbert-v1"}
USERS = {O: "eleni@example.org", R: "ana@example.org", M: "boss@example.org"}


def _methods(rule) -> list[str]:
    return sorted(rule.methods - {"HEAD", "OPTIONS"})


@pytest.fixture
def world(review_app, sessions, cli, tmp_path):
    """Real values for every URL argument: Ana's first Spanish item, a built version, a probe run."""
    cli("release", "build", "v1")
    make_run(tmp_path / "runs" / "mbert-v1", TEMPLATES)
    with sessions() as s:
        item = s.scalar(
            select(AssignmentItem.id)
            .join(Assignment)
            .join(User)
            .where(User.email == "ana@example.org", Assignment.language == "es")
            .order_by(AssignmentItem.position)
            .limit(1)
        )
    boss = Browser(review_app).login("boss@example.org")
    chart = re.search(r"/probe/runs/mbert-v1/(\w+)\.png", boss.get("/probe/runs/mbert-v1").get_data(as_text=True))
    assert chart, "the probe run page links no chart"
    from curator.review.invitations import create_invite

    with sessions.begin() as s:
        invite_id = create_invite(s, ["es"], email="invited@example.org")[0].id
    suggestion_id, comment_id = others_rows(sessions)
    from curator.review.glossary import add_term

    with sessions.begin() as s:
        term_id = add_term(s, "es", "born", "nació").id
    from curator.review.accounts import create_user

    with sessions.begin() as s:  # the people pages' accounts: Carl (deactivated) and Dora (reset links)
        carl = create_user(s, "carl@example.org", PASSWORD, "reviewer")
        carl.active = False
        user_id = carl.id
        create_user(s, "dora@example.org", PASSWORD, "reviewer")
        from curator.core.models import Template

        template_id = s.scalar(
            select(Template.id).where(Template.language == "es", Template.text == "[X] nació en [Y]")
        )
        from curator.core.models import Mention
        from curator.review.people import get_person

        # Bo's comment mentions Ana (issue 37 §5): her link; anyone else's answer is 404
        mention = Mention(comment_id=comment_id, user_id=get_person(s, "ana@example.org").id)
        s.add(mention)
        s.flush()
        mention_id = mention.id
    values = {
        "invite_id": invite_id,
        "lang": "es",
        "language": "es",
        "code": "es",
        "item_id": item,
        "relation": "P19",
        "name": "v1",
        "chart": chart.group(1),
        "filename": "curator.css",
        "suggestion_id": suggestion_id,
        "comment_id": comment_id,
        "thread_id": comment_id,
        "term_id": term_id,
        "user_id": user_id,
        "template_id": template_id,
        "mention_id": mention_id,
    }
    return review_app, values, sessions


def others_rows(sessions) -> tuple[int, int]:
    """A suggestion and a comment that exist, in Spanish, but are Bo's: Ana may not change them
    (the ownership rows of the table are about real rows, not missing ones)."""
    from curator.review.comments import add_comment
    from curator.review.service import get_assignment
    from curator.review.suggestions import suggest

    with sessions.begin() as s:
        bo = s.scalar(select(User).where(User.email == "bo@example.org"))
        assignment = get_assignment(s, bo, "es")
        suggestion, _ = suggest(s, bo, assignment, "P19", "[X] es oriundo de [Y]")
        comment, _ = add_comment(s, bo, assignment, "Bo's comment", relation="P19")
        return suggestion.id, comment.id


def _others_rows_untouched(sessions, values) -> None:
    from curator.core.models import Comment, Suggestion

    with sessions() as s:
        suggestion, comment = s.get(Suggestion, values["suggestion_id"]), s.get(Comment, values["comment_id"])
        assert suggestion.text == "[X] es oriundo de [Y]" and not suggestion.retracted
        assert comment.text == "Bo's comment" and not comment.retracted


def _url(rule, values, sessions) -> str:
    path = rule.rule
    if rule.rule.startswith("/probe/runs/"):
        values = {**values, "name": "mbert-v1"}
    if rule.rule.startswith("/reset/"):
        from curator.review.people import create_reset, get_person

        with sessions.begin() as s:
            _, token = create_reset(s, None, get_person(s, "dora@example.org"))
        values = {**values, "token": token}
    elif "<token>" in path:
        from curator.review.invitations import create_invite

        with sessions.begin() as s:
            _, token = create_invite(s, ["el"], role="reviewer", fraction=1)
        values = {**values, "token": token}
    for match in re.finditer(r"<(?:[^:>]+:)?([^>]+)>", rule.rule):
        path = path.replace(match.group(0), str(values[match.group(1)]))
    return path + QUERY.get(rule.rule, "")


class Visitor:
    """One role's client: signs in (again after /logout) and sends POSTs with the CSRF token."""

    def __init__(self, app, role):
        self.app, self.role, self.browser = app, role, None
        self.sign_in()

    def sign_in(self):
        if self.role == A:
            self.client, self.token = self.app.test_client(), None
            self.token = csrf_from(self.client.get("/login").get_data(as_text=True))
        else:
            self.browser = Browser(self.app).login(USERS[self.role])
            self.client, self.token = self.browser.client, self.browser.token

    def call(self, method, rule, url):
        if method == "GET":
            return self.client.get(url)
        body = BODIES.get(rule, {})
        if url.startswith("/api/"):
            return self.client.post(url, json=body, headers={"X-CSRFToken": self.token})
        return self.client.post(url, data={**body, "csrf_token": self.token})


def test_every_route_is_in_the_table(review_app):
    rules = {rule.rule: _methods(rule) for rule in review_app.url_map.iter_rules()}
    missing = sorted(f"{m} {r}" for r, ms in rules.items() for m in ms if m not in EXPECTED.get(r, {}))
    assert not missing, f"routes without expected statuses per role: {missing}"
    stale = sorted(set(EXPECTED) - set(rules))
    assert not stale, f"table rows for routes that no longer exist: {stale}"


def _cache_wrong(role, method, rule, answer) -> list[str]:
    """Issue 38 §2: every answer but a static file's is `Cache-Control: no-store` (a shared
    computer's cache or back button keeps no page, API answer or link after sign-out); static
    files keep their caching."""
    cache = answer.headers.get("Cache-Control", "")
    if rule.startswith("/static/"):
        return [] if "no-store" not in cache else [f"{role:15} {method:4} {rule}: a static file is no-store"]
    return [] if cache == "no-store" else [f"{role:15} {method:4} {rule}: Cache-Control {cache!r}, not no-store"]


def test_every_route_answers_each_role_as_expected(world):
    app, values, sessions = world
    wrong = []
    for role in ROLES:
        visitor = Visitor(app, role)
        for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
            for method in _methods(rule):
                expected = EXPECTED[rule.rule][method][role]
                answer = visitor.call(method, rule.rule, _url(rule, values, sessions))
                got = answer.status_code
                if got != expected:
                    wrong.append(f"{role:15} {method:4} {rule.rule}: {got}, expected {expected}")
                wrong.extend(_cache_wrong(role, method, rule.rule, answer))
                if rule.rule in ("/logout", "/account") or rule.rule.startswith("/invite/"):
                    visitor.sign_in()  # signed out (or re-signed): continue as the same role
    assert not wrong, "\n".join(wrong)
    _others_rows_untouched(sessions, values)  # Bo's suggestion and comment: nobody else changed them


def test_every_post_needs_a_csrf_token(world):
    """Without the token, every POST route is refused (400) before its view runs, signed in or not."""
    app, values, sessions = world
    posts = [rule for rule in app.url_map.iter_rules() if "POST" in rule.methods]
    assert len(posts) >= 10
    for role in (A, R, M):
        visitor = Visitor(app, role)
        for rule in posts:
            url, body = _url(rule, values, sessions), BODIES.get(rule.rule, {})
            r = visitor.client.post(url, json=body) if url.startswith("/api/") else visitor.client.post(url, data=body)
            assert r.status_code == 400, (role, rule.rule, r.status_code)
            text = r.get_json()["error"] if url.startswith("/api/") else r.get_data(as_text=True)
            assert "CSRF" in text, (role, rule.rule)


def test_no_template_marks_text_safe():
    """Autoescaping is the only defence the templates need: no `|safe`, no Markup on what people typed
    (the probe report inlines only our own stylesheet as Markup)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "curator"
    templates = [*(root / "web" / "templates").glob("*.html"), *(root / "analysis" / "templates").glob("*.html")]
    assert templates
    for path in templates:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\|\s*safe\b|autoescape\s+false|Markup", text), path.name


def test_another_reviewers_rows_are_refused_to_ana(world):
    """The ownership rows of the table, looked at closely: Bo's suggestion and comment exist, and
    Ana's requests about them are refused as not hers, changing nothing."""
    app, values, sessions = world
    ana = Visitor(app, R)
    sid, cid = values["suggestion_id"], values["comment_id"]
    for url in (f"/api/v1/languages/es/suggestions/{sid}/withdraw", f"/api/v1/languages/es/comments/{cid}/withdraw"):
        r = ana.client.post(url, json={}, headers={"X-CSRFToken": ana.token})
        assert r.status_code == 404, url
    for url, body, said in (
        (f"/review/es/suggestions/{sid}/edit", {"text": "[X] vino al mundo en [Y]"}, "no such suggestion of yours"),
        (f"/review/es/suggestions/{sid}/withdraw", {}, "no such suggestion of yours"),
        (f"/review/es/comments/{cid}/withdraw", {}, "no such comment of yours"),
    ):
        r = ana.client.post(url, data={**body, "csrf_token": ana.token}, follow_redirects=True)
        assert r.status_code == 200 and said in r.get_data(as_text=True), url
    _others_rows_untouched(sessions, values)


TOO_BIG = (99999999999999999999, 2**63)  # beyond a 64-bit integer (SQLite: OverflowError) and just past it


@pytest.mark.backends("sqlite", "postgresql")
def test_integer_arguments_beyond_a_database_integer_match_no_route(world):
    """Every `<int:…>` of every route, for the roles that get past the role check: a number no
    database integer holds is a 404 (JSON under /api/), never a 500; the largest one that fits
    reaches the view, which finds no such row."""
    app, values, sessions = world
    rules = [rule for rule in app.url_map.iter_rules() if re.search(r"<int:", rule.rule)]
    assert len(rules) >= 9, [r.rule for r in rules]
    wrong = []
    for role in (R, M):
        visitor = Visitor(app, role)
        for rule in rules:
            names = re.findall(r"<int:(\w+)>", rule.rule)
            for method in _methods(rule):
                for number in (*TOO_BIG, 2**63 - 1):
                    url = _url(rule, {**values, **dict.fromkeys(names, number)}, sessions)
                    got = visitor.call(method, rule.rule, url)
                    if (
                        number in TOO_BIG
                        and (got.status_code != 404 or (url.startswith("/api/") and "error" not in got.get_json()))
                    ) or got.status_code >= 500:
                        wrong.append(f"{role} {method} {url}: {got.status_code}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    "page, status",
    [
        ("99999999999999999999", 422),
        ("9" * 5000, 422),
        ("0", 422),
        ("-1", 422),
        ("two", 422),
        ("", 200),
        ("2", 200),
        ("9223372036854775807", 200),
    ],
)
def test_integer_query_parameters_are_range_checked(review_app, page, status):
    boss = Browser(review_app).login("boss@example.org")
    r = boss.get(f"/admin/languages/es?page={page}")
    assert r.status_code == status, r.get_data(as_text=True)[:500]
    if status == 422:
        assert "page must be a whole number from 1 to 9223372036854775807" in r.get_data(as_text=True)

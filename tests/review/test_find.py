"""A reviewer's filters and search over their own queue (issue 37 §5) and over their own past
decisions (My decisions): the service against a reference written from the description
(hypothesis, on a queue with decisions, an undo and proposals, and on random decisions stored in
the SQLite database), the page without JavaScript and the JSON API (with the test client and over
real HTTP), a language one is not assigned to, the rate limit."""

from __future__ import annotations

import re

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from curator.core.errors import Forbidden, InputError
from curator.core.models import Assignment, AssignmentItem, Decision, EnglishPattern, Suggestion, Template, User
from curator.review import find, threads
from curator.web import create_app
from tests.plugins.databases import PASSWORD, review_sample
from tests.plugins.servers import Browser, csrf_from
from tests.review.test_translation_memory import reference_fold

API = "/api/v1/languages/es"
GUARD = 300  # seconds: a guard against a hang, never a measure of speed


def _decide(browser: Browser, item: int, kind: str, correction: str | None = None) -> None:
    body = {"decision": kind, **({"correction": correction} if correction else {})}
    r = browser.post(f"{API}/items/{item}/decision", json=body)
    assert r.status_code in (200, 201), r.get_json()


@pytest.fixture
def worked(review_app, sessions):
    """Ana's Spanish queue after some work: an unsure, an accept, an undone decision, an amend;
    and Bo's amendment and suggestion, which put proposals in her queue (one she then decides)."""
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    mine = review_sample(sessions, "ana@example.org", "es")
    theirs = review_sample(sessions, "bo@example.org", "es")
    _decide(ana, mine[0][0], "unsure")
    _decide(ana, mine[1][0], "accept")
    _decide(ana, mine[2][0], "reject")
    assert ana.post(f"{API}/undo").status_code == 200  # the reject undone: undecided again
    _decide(ana, mine[3][0], "unsure")
    _decide(ana, mine[4][0], "amend", "[X] vino al mundo en [Y]")
    _decide(bo, theirs[0][0], "amend", "[X] nació allá en [Y]")
    r = bo.post(f"{API}/relations/P36/suggestions", json={"text": "la capital del país [X] es [Y]"})
    assert r.status_code == 201
    r = bo.post(f"{API}/relations/P37/suggestions", json={"text": "el idioma de [X] es el [Y]"})
    assert r.status_code == 201
    queue = review_sample(sessions, "ana@example.org", "es")
    proposed = [i for i, _, text in queue if text == "el idioma de [X] es el [Y]"]
    _decide(ana, proposed[0], "accept")  # decided: no longer waiting for her
    return ana, bo


def reference(sessions, email: str, lang: str) -> list[dict]:
    with sessions() as s:
        return reference_in(s, email, lang)


def reference_in(s, email: str, lang: str) -> list[dict]:
    """The queue as the issue describes it, from the rows: each item's latest decision not undone
    (and its correction), and whether it is another reviewer's standing amendment or suggestion."""
    user = s.scalars(select(User).where(User.email == email)).one()
    assignment = s.scalars(select(Assignment).where(Assignment.user_id == user.id, Assignment.language == lang)).one()
    items = s.scalars(
        select(AssignmentItem)
        .where(AssignmentItem.assignment_id == assignment.id, AssignmentItem.retired_at.is_(None))
        .order_by(AssignmentItem.position)
    ).all()
    decisions = s.scalars(select(Decision).where(Decision.retracted.is_(False))).all()
    latest: dict[int, Decision] = {}
    for d in decisions:
        if d.item_id not in latest or d.id > latest[d.item_id].id:
            latest[d.item_id] = d
    standing_amends = {
        (d.relation_id, d.correction)
        for d in latest.values()
        if d.decision == "amend" and d.user_id != user.id and d.language == lang and d.source != "import"
    }
    suggested = {
        (x.relation_id, x.text)
        for x in s.scalars(select(Suggestion).where(Suggestion.retracted.is_(False))).all()
        if x.user_id != user.id and x.language == lang and x.source != "import"
    }
    out = []
    for k, item in enumerate(items, start=1):
        template = s.get(Template, item.template_id)
        english = s.scalars(
            select(EnglishPattern.pattern).where(
                EnglishPattern.relation_id == template.relation_id,
                EnglishPattern.position == template.first_position,
            )
        ).first()
        decision = latest.get(item.id)
        key = (item.relation_id, template.text)
        out.append(
            {
                "id": item.id,
                "number": k,
                "relation": item.relation_id,
                "template": template.text,
                "english": english,
                "decision": decision.decision if decision else None,
                "correction": decision.correction if decision else None,
                "reason": decision.reason if decision else None,
                "proposal": item.extra and (key in standing_amends or key in suggested),
            }
        )
    return out


def reference_wanted(item: dict, show: str, relation: str | None, text: str, verdict: str | None = None) -> bool:
    """Every filter given holds: `show`, the verdict of the standing decision ("undecided": none),
    the relation, and the search folded in the template, its English pattern, the correction or the
    reason."""
    kept = {
        "all": True,
        "undecided": item["decision"] is None,
        "unsure": item["decision"] == "unsure",
        "proposals": item["proposal"] and item["decision"] is None,
    }[show]
    needle = reference_fold(text.strip())
    searched = (item["template"], item["english"], item["correction"], item["reason"])
    in_text = any(needle in reference_fold(t or "") for t in searched)
    standing = item["decision"] or "undecided"
    return kept and verdict in (None, standing) and relation in (None, item["relation"]) and (not needle or in_text)


WORDS = ["nació", "NACIO", "capital", "Capítal", "idioma", "born", "BORN IN", "[x]", "de [X]", "zzz", "", "  es  "]
WORDS += ["vino al", "MUNDO", "al mundo en"]  # only in Ana's correction
WORDS += ["formal", "NO ES NATURAL"]  # only in reasons (the random decisions')
VERDICT = st.sampled_from([None, *find.ITEM_VERDICTS])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    show=st.sampled_from(find.SHOWS),
    relation=st.sampled_from([None, "P19", "P36", "P37", "P103", "P30"]),
    text=st.sampled_from(WORDS) | st.text(alphabet="aeiouáéíóú nlcdX[]", max_size=4),
    per_page=st.integers(1, 7),
    verdict=VERDICT,
)
def test_filters_match_the_reference(worked, sessions, show, relation, text, per_page, verdict):
    expected = [i for i in REF["ana"] if reference_wanted(i, show, relation, text, verdict)]
    got = []
    with sessions() as s:
        ana = s.scalars(select(User).where(User.email == "ana@example.org")).one()
        page = 1
        while True:
            found = find.find_items(s, ana, "es", find.check_query(show, relation, text, page, per_page, verdict))
            got += found["items"]
            assert found["matched"] == len(expected) and found["total"] == len(REF["ana"])
            if page >= found["pages"]:
                break
            page += 1
    assert got == expected


REF: dict[str, list[dict]] = {}


@pytest.fixture(autouse=True)
def _reference(request, sessions):
    if "worked" in request.fixturenames:
        request.getfixturevalue("worked")
        REF["ana"] = reference(sessions, "ana@example.org", "es")
    yield
    REF.clear()


def test_the_worked_queue_has_every_case(worked):
    """The property above sees each kind: unsure, decided, undecided, waiting and decided proposals."""
    items = REF["ana"]
    assert {i["decision"] for i in items} >= {None, "unsure", "accept", "amend"}
    waiting = [i for i in items if i["proposal"] and i["decision"] is None]
    decided = [i for i in items if i["proposal"] and i["decision"] is not None]
    assert sorted(i["template"] for i in waiting) == ["[X] nació allá en [Y]", "la capital del país [X] es [Y]"]
    assert [i["template"] for i in decided] == ["el idioma de [X] es el [Y]"]
    assert not any(i["proposal"] for i in items if i["template"] == "[X] vino al mundo en [Y]")  # her own


def test_page_and_api(worked, review_app, sessions):
    ana, bo = worked
    # the page, without JavaScript: a form and links that open each item on the review screen
    html = ana.get("/review/es/find?show=proposals").get_data(as_text=True)
    waiting = [i for i in REF["ana"] if i["proposal"] and i["decision"] is None]
    assert re.findall(r'href="/review/es#item-(\d+)"', html) == [str(i["id"]) for i in waiting]
    assert '<form method="get"' in html and 'name="q"' in html and "Proposals waiting for me" in html
    assert '<bdi class="find-template" lang="es" dir="ltr">[X] nació allá en [Y]</bdi>' in html
    # the API answers the same query
    answer = ana.get(f"{API}/find?show=proposals").get_json()
    assert [i["id"] for i in answer["items"]] == [i["id"] for i in waiting] and answer["matched"] == 2
    answer = ana.get(f"{API}/find?q=NACIO&relation=P19&per_page=1&page=2").get_json()
    assert answer["page"] == 2 and answer["per_page"] == 1 and len(answer["items"]) <= 1
    # "a proposal for me" is one rule (proposal_queue.item_proposal): the review card's badge says
    # the same as the search for every item of the queue
    everything = ana.get(f"{API}/find?per_page=100").get_json()["items"]
    assert [i["proposal"] for i in everything] == [i["proposal"] for i in REF["ana"]]
    cards = {i["id"]: ana.get(f"{API}/items/{i['id']}").get_json()["proposal"] for i in everything}
    assert [cards[i["id"]] is not None for i in everything] == [i["proposal"] for i in everything]
    # only one's own queue: Bo's search lists his items, never Ana's
    bo_items = {i for i, _, _ in review_sample(sessions, "bo@example.org", "es")}
    listed = {i["id"] for i in bo.get(f"{API}/find?per_page=100").get_json()["items"]}
    assert listed == bo_items and not listed & {i["id"] for i in REF["ana"]}
    # refused values: 422, named
    for query in (
        "show=mine",
        "verdict=maybe",
        "verdict=UNDECIDED",
        "per_page=0",
        "per_page=101",
        "page=0",
        "q=" + "a" * 201,
        "relation=" + "P" * 40,
    ):
        r = ana.get(f"{API}/find?{query}")
        assert r.status_code == 422 and r.get_json()["error"], query
        assert ana.get(f"/review/es/find?{query}").status_code == 422, query


def test_a_language_not_assigned_is_refused(review_app, sessions):
    ana, bo = Browser(review_app).login("ana@example.org"), Browser(review_app).login("bo@example.org")
    for browser, lang in ((bo, "ar"), (ana, "el"), (bo, "el")):
        assert browser.get(f"/api/v1/languages/{lang}/find").status_code == 403, lang
        page = browser.get(f"/review/{lang}/find?q=x")
        assert page.status_code == 403 and "find-results" not in page.get_data(as_text=True)
    assert ana.get("/api/v1/languages/ar/find?q=%D9%85%D9%86").status_code == 200
    with pytest.raises(Forbidden):
        with sessions() as s:
            bo_user = s.scalars(select(User).where(User.email == "bo@example.org")).one()
            find.find_items(s, bo_user, "ar", find.Query())
    anonymous = review_app.test_client()
    assert anonymous.get("/review/es/find").status_code == 302
    assert anonymous.get(f"{API}/find").status_code == 401
    with pytest.raises(InputError):
        find.check_query(show="everything")


def test_search_is_rate_limited_per_account(review_app, db_url, tmp_path):
    app = create_app(
        {
            "DATABASE_URL": db_url,
            "SECRET_KEY": "test-secret",
            "RUNS_DIR": str(tmp_path / "runs"),
            "RATELIMIT_ENABLED": True,
            "RATELIMIT_SEARCH": "3/minute",
        }
    )
    ana, bo = Browser(app).login("ana@example.org"), Browser(app).login("bo@example.org")
    answers = [ana.get(f"{API}/find?q=de").status_code, ana.get("/review/es/find?q=de").status_code]
    answers += [ana.get(f"{API}/find").status_code, ana.get("/review/es/find").status_code]
    assert answers == [200, 200, 200, 429]  # the page and the API share one count
    limited = ana.get(f"{API}/find")
    assert limited.status_code == 429 and limited.headers.get("Retry-After")
    assert bo.get(f"{API}/find").status_code == 200  # another account counts apart
    assert ana.get(f"{API}/queue").status_code == 200  # the rest of the API is not limited


# ---------------------------------------------------------------- random decisions, My decisions

CORRECTIONS = ["[X] vino al mundo en [Y]", "[X] llegó a la VIDA en [Y]", "la capitál de [X] es [Y]", "[X] es de [Y]"]
REASONS = [None, "no es natural", "Suena demasiado FORMAL", "la capital no es esa"]  # a reject's or an unsure's
# (item index in Ana's queue, verdict, correction or reason index, undone): stored in this order
DECISIONS = st.lists(
    st.tuples(st.integers(0, 11), st.sampled_from(find.VERDICTS), st.integers(0, 3), st.booleans()),
    max_size=14,
)
PAST_WORDS = st.sampled_from(
    ["", "vida", "LLEGO A LA", "capital", "nació", "[x] es", "mundo en", "zzz", " de ", "formal", "natural"]
)


def _store_decisions(s, decisions) -> tuple[User, Assignment]:
    """Ana's `decisions` on her Spanish queue, as rows of the session (rolled back by the caller)."""
    ana = s.scalars(select(User).where(User.email == "ana@example.org")).one()
    assignment = s.scalars(select(Assignment).where(Assignment.user_id == ana.id, Assignment.language == "es")).one()
    items = s.scalars(
        select(AssignmentItem)
        .where(AssignmentItem.assignment_id == assignment.id, AssignmentItem.retired_at.is_(None))
        .order_by(AssignmentItem.position)
    ).all()
    for index, verdict, k, undone in decisions:
        item = items[index % len(items)]
        correction = CORRECTIONS[k] if verdict == "amend" else None
        reason = REASONS[k] if verdict in ("reject", "unsure") else None
        s.add(
            Decision(
                item_id=item.id,
                user_id=ana.id,
                template_id=item.template_id,
                language="es",
                relation_id=item.relation_id,
                decision=verdict,
                correction=correction,
                correction_raw=correction,
                reason=reason,
                retracted=undone,
            )
        )
        s.flush()  # one id after another: the order they were made in
    return ana, assignment


def reference_past(s, user: User, assignment: Assignment, verdict: str | None, text: str) -> list[tuple]:
    """My decisions as described: every decision of the reviewer on an item of the language's
    queue (undone, replaced and retired ones included), newest first, whose own verdict is `verdict`
    (None: any) and whose template, correction or reason holds the search, folded."""
    needle = reference_fold(text.strip())
    rows = []
    for d in s.scalars(select(Decision).where(Decision.user_id == user.id)).all():
        if s.get(AssignmentItem, d.item_id).assignment_id != assignment.id:
            continue
        template = s.get(Template, d.template_id).text
        if verdict not in (None, d.decision):
            continue
        if needle and not any(needle in reference_fold(t or "") for t in (template, d.correction, d.reason)):
            continue
        rows.append((d.id, d.decision, d.correction, d.reason, template))
    return sorted(rows, reverse=True)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    decisions=DECISIONS,
    show=st.sampled_from(find.SHOWS),
    verdict=VERDICT,
    text=st.sampled_from(WORDS) | PAST_WORDS,
    per_page=st.integers(1, 9),
)
def test_find_on_random_decisions_matches_the_reference(worked, sessions, decisions, show, verdict, text, per_page):
    with sessions() as s:
        try:
            ana, _ = _store_decisions(s, decisions)
            queue = reference_in(s, "ana@example.org", "es")
            expected = [i for i in queue if reference_wanted(i, show, None, text, verdict)]
            got, page = [], 1
            while True:
                found = find.find_items(s, ana, "es", find.check_query(show, None, text, page, per_page, verdict))
                got += found["items"]
                assert found["matched"] == len(expected) and found["total"] == len(queue)
                if page >= found["pages"]:
                    break
                page += 1
            assert got == expected
        finally:
            s.rollback()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(decisions=DECISIONS, verdict=st.sampled_from([None, *find.VERDICTS]), text=PAST_WORDS | st.sampled_from(WORDS))
def test_my_decisions_on_random_decisions_match_the_reference(worked, sessions, decisions, verdict, text):
    with sessions() as s:
        try:
            ana, assignment = _store_decisions(s, decisions)
            expected = reference_past(s, ana, assignment, verdict, text)
            past = find.past_decisions(s, ana, assignment, find.check_past_query(verdict, text))
            got = [(d["id"], d["decision"], d["correction"], d["reason"], d["template"]) for d in past["decisions"]]
            assert got == expected
            assert past["matched"] == len(expected) and past["total"] == len(
                reference_past(s, ana, assignment, None, "")
            )
        finally:
            s.rollback()


def test_verdicts_and_searches_refused():
    for verdict in ("undecided", "accepted", "ACCEPT", "x" * 40):
        with pytest.raises(InputError, match=re.escape("Verdict: one of accept, amend, reject, unsure.")):
            find.check_past_query(verdict=verdict)
    with pytest.raises(InputError, match="undecided"):
        find.check_query(verdict="maybe")
    with pytest.raises(InputError, match="at most 200"):
        find.check_past_query(text="a" * 201)
    assert find.check_query(verdict="undecided").verdict == "undecided"
    assert find.check_past_query(verdict="", text="  vida ") == find.PastQuery(None, "vida")


# ---------------------------------------------------------------- over real HTTP

VIDA = "[X] llegó a la vida en [Y]"  # a correction whose words no template nor English pattern has
FORMAL = "Suena demasiado formal"  # a reject's reason, the same


def _signed_in(base: str, email: str) -> requests.Session:
    web = requests.Session()
    page = web.get(base + "/login", timeout=GUARD).text
    answer = web.post(
        base + "/login",
        data={"email": email, "password": PASSWORD, "csrf_token": csrf_from(page)},
        allow_redirects=False,
        timeout=GUARD,
    )
    assert answer.status_code == 302, answer.text
    return web


def _ids(html: str, attribute: str) -> list[int]:
    return [int(x) for x in re.findall(rf'{attribute}="(\d+)"', html)]


@pytest.fixture
def over_http(worked, live, sessions):
    """Ana's worked queue with one more amend (VIDA) and a reject with a reason (FORMAL), and her
    browser session over real HTTP."""
    ana, _ = worked
    undecided = [i for i in reference(sessions, "ana@example.org", "es") if i["decision"] is None and not i["proposal"]]
    _decide(ana, undecided[0]["id"], "amend", VIDA)
    r = ana.post(f"{API}/items/{undecided[1]['id']}/decision", json={"decision": "reject", "reason": FORMAL})
    assert r.status_code == 201, r.get_json()
    REF["ana"] = reference(sessions, "ana@example.org", "es")
    return ana, _signed_in(live.url, "ana@example.org"), live.url


def test_find_page_and_api_over_http(over_http, sessions):
    _ana, web, base = over_http
    get = lambda path, **kw: web.get(base + path, timeout=GUARD, **kw)  # noqa: E731
    vida = next(i for i in REF["ana"] if i["correction"] == VIDA)
    # your own correction is searched, folded (no accent, other case), on the page and the API
    for q in ("LLEGO A LA VIDA", "llegó a la"):
        html = get("/review/es/find", params={"q": q}).text
        assert _ids(html, "data-item") == [vida["id"]], q
        assert f'<bdi class="find-correction" lang="es" dir="ltr">{VIDA}</bdi>' in html
        assert [i["id"] for i in get(API + "/find", params={"q": q}).json()["items"]] == [vida["id"]]
    # and your reason
    formal = next(i for i in REF["ana"] if i["reason"] == FORMAL)
    html = get("/review/es/find", params={"q": "DEMASIADO FORMAL", "verdict": "reject"}).text
    assert _ids(html, "data-item") == [formal["id"]] and re.search(
        rf'class="find-reason">[^<]*<q><bdi[^>]*>{FORMAL}</bdi></q>', html
    )
    answer = get(API + "/find", params={"q": "demasiado formal"}).json()
    assert [(i["id"], i["reason"]) for i in answer["items"]] == [(formal["id"], FORMAL)]
    # the verdict filter: the standing decision's, or none ("undecided")
    for verdict in find.ITEM_VERDICTS:
        expected = [i["id"] for i in REF["ana"] if (i["decision"] or "undecided") == verdict]
        answer = get(API + "/find", params={"verdict": verdict, "per_page": 100}).json()
        assert [i["id"] for i in answer["items"]] == expected and answer["matched"] == len(expected), verdict
        assert _ids(get("/review/es/find", params={"verdict": verdict, "per_page": 100}).text, "data-item") == expected
    assert {i["decision"] for i in REF["ana"]} >= {"accept", "amend", "unsure", None}
    # with show: both hold; none left is said so
    html = get("/review/es/find", params={"show": "unsure", "verdict": "accept"}).text
    assert "find-results" not in html and "No template in your queue matches these filters." in html
    # paging keeps every filter and the page size: the next link, followed, is the next page
    undecided = [i["id"] for i in REF["ana"] if i["decision"] is None and reference_wanted(i, "all", None, "de")]
    assert len(undecided) > 2
    shown, path = [], "/review/es/find?verdict=undecided&q=de&per_page=2"
    while path:
        html = get(path).text
        shown += _ids(html, "data-item")
        assert 'id="find-verdict"' in html and '<option value="undecided" selected>' in html
        following = re.search(r'<a rel="next" href="([^"]+)"', html)
        path = following.group(1).replace("&amp;", "&") if following else None
        if path:
            assert all(p in path for p in ("verdict=undecided", "q=de", "per_page=2")), path
    assert shown == undecided
    # a refused value: one line, in the page's language, and never a 500
    for locale, said in (
        ("en", "Verdict: one of accept, amend, reject, unsure, undecided."),
        ("es", "Veredicto: uno de accept, amend, reject, unsure, undecided."),
        ("ar", "الحكم: واحد من accept, amend, reject, unsure, undecided."),
    ):
        page = get("/review/es/find?verdict=maybe&q=de", headers={"Accept-Language": locale})
        assert page.status_code == 422 and "find-results" not in page.text, locale
        error = re.search(r'<p class="validation invalid" id="find-error" role="alert">([^<]*)</p>', page.text)
        assert error and error.group(1) == said, (locale, error and error.group(1))
        assert 'id="find-form"' in page.text  # the form is there to correct it
        answer = get(API + "/find?verdict=maybe", headers={"Accept-Language": locale})
        assert answer.status_code == 422 and answer.json() == {"error": said}, locale
    for query in ("verdict=accepted", "verdict=%20", "q=" + "a" * 201, "verdict=amend&page=0"):
        page, answer = get(f"/review/es/find?{query}"), get(f"{API}/find?{query}")
        expected = 200 if query == "verdict=%20" else 422  # blank: no filter
        assert (page.status_code, answer.status_code) == (expected, expected), query
        assert "\n" not in answer.json().get("error", ""), query


def test_my_decisions_page_and_api_over_http(over_http, sessions):
    ana, web, base = over_http
    get = lambda path, **kw: web.get(base + path, timeout=GUARD, **kw)  # noqa: E731
    with sessions() as s:
        user = s.scalars(select(User).where(User.email == "ana@example.org")).one()
        assignment = s.scalars(
            select(Assignment).where(Assignment.user_id == user.id, Assignment.language == "es")
        ).one()
        everything = reference_past(s, user, assignment, None, "")
        wanted = {
            (verdict, q): [row[0] for row in reference_past(s, user, assignment, verdict, q)]
            for verdict in (None, *find.VERDICTS)
            for q in ("", "VIDA", "mundo", "nacio", "FORMAL")
        }
    assert {row[1] for row in everything} == set(find.VERDICTS)
    assert wanted["reject", ""] and wanted[None, "VIDA"] and wanted["amend", "mundo"] and wanted["reject", "FORMAL"]
    for (verdict, q), ids in wanted.items():
        params = {"verdict": verdict or "", "q": q}
        html = get("/review/es/history", params=params).text
        assert _ids(html, "data-decision") == ids, params
        answer = get(API + "/history", params=params).json()
        assert [d["id"] for d in answer["decisions"]] == ids, params
        assert (answer["matched"], answer["total"]) == (len(ids), len(everything))
        if verdict or q:
            assert f'data-matched="{len(ids)}" data-total="{len(everything)}"' in html
            assert ids or "None of your decisions matches these filters." in html
    # an undone reject is still found by its verdict, marked undone
    html = get("/review/es/history?verdict=reject").text
    assert "state-retracted" in html and "decision-kind reject" in html and "decision-kind accept" not in html
    # a refused value: the page says it in one line above the list and keeps the rest; the API 422
    for locale, said in (
        ("en", "Verdict: one of accept, amend, reject, unsure."),
        ("es", "Veredicto: uno de accept, amend, reject, unsure."),
    ):
        page = get("/review/es/history?verdict=undecided", headers={"Accept-Language": locale})
        assert page.status_code == 422 and "data-decision=" not in page.text, locale
        assert f'<p class="validation invalid" id="past-error" role="alert">{said}</p>' in page.text
        assert 'id="my-suggestions"' in page.text and 'id="my-comments"' in page.text
        answer = get(API + "/history?verdict=undecided", headers={"Accept-Language": locale})
        assert answer.status_code == 422 and answer.json() == {"error": said}
    answer = get(API + "/history?q=" + "a" * 201)
    assert answer.status_code == 422 and "200" in answer.json()["error"]
    assert get("/review/es/history?q=" + "a" * 201).status_code == 422
    # the comments' pager keeps the decisions' filters, and the form the pager's page
    for k in range(threads.PER_PAGE + 1):
        assert ana.post(f"{API}/relations/P19/comments", json={"text": f"nota {k}"}).status_code == 201
    html = get("/review/es/history?verdict=amend&q=vida").text
    pager = re.search(r'<nav class="pager" id="comments-pager".*?</nav>', html, re.S)
    assert pager, "no comments pager"
    second = re.search(r'href="([^"]*page=2[^"]*)"', pager.group(0)).group(1).replace("&amp;", "&")
    assert "verdict=amend" in second and "q=vida" in second, second
    html = get(second).text
    assert _ids(html, "data-decision") == wanted["amend", "VIDA"]
    assert '<input type="hidden" name="page" value="2">' in html

"""A reviewer's filters and search over their own queue (issue 37 §5): the service against a
reference written from the issue (hypothesis, on a queue with decisions, an undo and proposals),
the page without JavaScript and the JSON API, a language one is not assigned to, the rate limit."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from curator.core.errors import Forbidden, InputError
from curator.core.models import Assignment, AssignmentItem, Decision, EnglishPattern, Suggestion, Template, User
from curator.review import find
from curator.web import create_app
from tests.plugins.databases import review_sample
from tests.plugins.servers import Browser
from tests.review.test_translation_memory import reference_fold

API = "/api/v1/languages/es"


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
    """The queue as the issue describes it, from the rows: each item's latest decision not undone,
    and whether it is another reviewer's standing amendment or suggestion."""
    with sessions() as s:
        user = s.scalars(select(User).where(User.email == email)).one()
        assignment = s.scalars(
            select(Assignment).where(Assignment.user_id == user.id, Assignment.language == lang)
        ).one()
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
                    "proposal": item.extra and (key in standing_amends or key in suggested),
                }
            )
        return out


def reference_wanted(item: dict, show: str, relation: str | None, text: str) -> bool:
    kept = {
        "all": True,
        "undecided": item["decision"] is None,
        "unsure": item["decision"] == "unsure",
        "proposals": item["proposal"] and item["decision"] is None,
    }[show]
    needle = reference_fold(text.strip())
    in_text = needle in reference_fold(item["template"]) or needle in reference_fold(item["english"] or "")
    return kept and relation in (None, item["relation"]) and (not needle or in_text)


WORDS = ["nació", "NACIO", "capital", "Capítal", "idioma", "born", "BORN IN", "[x]", "de [X]", "zzz", "", "  es  "]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    show=st.sampled_from(find.SHOWS),
    relation=st.sampled_from([None, "P19", "P36", "P37", "P103", "P30"]),
    text=st.sampled_from(WORDS) | st.text(alphabet="aeiouáéíóú nlcdX[]", max_size=4),
    per_page=st.integers(1, 7),
)
def test_filters_match_the_reference(worked, sessions, show, relation, text, per_page):
    expected = [i for i in REF["ana"] if reference_wanted(i, show, relation, text)]
    got = []
    with sessions() as s:
        ana = s.scalars(select(User).where(User.email == "ana@example.org")).one()
        page = 1
        while True:
            found = find.find_items(s, ana, "es", find.check_query(show, relation, text, page, per_page))
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
    for query in ("show=mine", "per_page=0", "per_page=101", "page=0", "q=" + "a" * 201, "relation=" + "P" * 40):
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

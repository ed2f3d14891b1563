"""Every field of every JSON API endpoint is checked for type, length and range: a bad value is
a JSON 422 (or 400 for a body that is not a JSON object, 404 for an id no row can have), never
an HTML 500; and anything unexpected under /api/ is still a JSON 500."""

from __future__ import annotations

import json

import pytest

from tests.plugins.servers import Browser

SURROGATE = "\ud800"  # a lone surrogate: valid JSON ("\\ud800"), not encodable as UTF-8
LONG = "x" * 10_000

# (endpoint, field, bad value); the endpoint's other fields are valid
DECISION = "/api/v1/languages/es/items/{item}/decision"
SUGGEST = "/api/v1/languages/es/relations/P19/suggestions"
VALIDATE = "/api/v1/validate"
VALID = {
    DECISION: {"decision": "amend", "correction": "[X] nació en [Y] hoy", "seconds": 3, "request_id": "r1"},
    SUGGEST: {"text": "[X] vino al mundo en [Y]", "request_id": "s1"},
    VALIDATE: {"text": "[X] nació en [Y]", "language": "es"},
}
BAD = {
    DECISION: {
        "decision": [None, 1, {}, [], SURROGATE, LONG, "maybe"],
        "correction": [1, {}, [], SURROGATE, "[X] " + SURROGATE + " [Y]", LONG],
        "seconds": ["3", True, -1, {}, [], 10**30, "1e400", "NaN", "-Infinity"],
        "request_id": [1, 10**30, {}, [], "", SURROGATE, "r" * 65],
    },
    SUGGEST: {
        "text": [None, 1, {}, [], SURROGATE, "[X] " + SURROGATE + " [Y]", LONG],
        "request_id": [1, {}, [], "", SURROGATE, "r" * 65],
    },
    VALIDATE: {"text": [1, {}, [], SURROGATE, LONG], "language": [None, 1, {}, [], SURROGATE, LONG]},
}
CASES = [(path, field) for path, fields in BAD.items() for field in fields]


def _raw(body: dict, field: str, value) -> str:
    """The JSON text with `value` in `field`; "1e400", "NaN", "-Infinity" go in as bare JSON numbers."""
    text = json.dumps({**body, field: "__BAD__"})
    bare = value in ("1e400", "NaN", "-Infinity")
    return text.replace('"__BAD__"', value if bare else json.dumps(value))


@pytest.fixture
def ana(review_app):
    return Browser(review_app).login("ana@example.org")


@pytest.mark.parametrize("path,field", CASES, ids=[f"{p.rsplit('/', 1)[-1]}-{f}" for p, f in CASES])
def test_bad_field_is_a_json_422_and_stores_nothing(ana, sessions, path, field):
    from tests.plugins.databases import table_snapshot

    item = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["id"]
    url = path.format(item=item)
    before = table_snapshot(sessions.kw["bind"])
    for value in BAD[path][field]:
        r = ana.client.post(
            url,
            data=_raw(VALID[path], field, value),
            headers={"X-CSRFToken": ana.token, "Content-Type": "application/json"},
        )
        shown = repr(value)[:40]
        assert r.status_code == 422, (shown, r.status_code, r.get_data(as_text=True)[:300])
        assert r.is_json and r.get_json()["error"], (shown, r.get_data(as_text=True)[:300])
    assert table_snapshot(sessions.kw["bind"]) == before


def test_valid_bodies_still_work(ana):
    item = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["id"]
    assert ana.post(DECISION.format(item=item), VALID[DECISION]).status_code == 201
    assert ana.post(SUGGEST, VALID[SUGGEST]).status_code == 201
    assert ana.post(VALIDATE, VALID[VALIDATE]).get_json()["valid"] is True
    assert ana.post(DECISION.format(item=item), {"decision": "accept", "seconds": 7200.5}).status_code == 201


@pytest.mark.parametrize("item", [2**63, 2**64 + 5, 10**30])
def test_huge_ids_in_the_url_are_404(ana, item):
    for r in (
        ana.get(f"/api/v1/languages/es/items/{item}"),
        ana.post(f"/api/v1/languages/es/items/{item}/decision", {"decision": "accept"}),
    ):
        assert r.status_code == 404 and r.is_json, r.get_data(as_text=True)[:200]


@pytest.mark.parametrize(
    "path",
    ["/api/v1/languages/" + "e" * 5000 + "/queue", "/api/v1/languages/es/relations/" + "P" * 5000 + "/suggestions"],
)
def test_long_url_parts_are_json_errors(ana, path):
    r = ana.post(path, {"text": "[X] de [Y]"}) if path.endswith("suggestions") else ana.get(path)
    assert r.status_code in (403, 404, 422) and r.is_json


def test_body_that_is_not_an_object_is_400(ana):
    for raw in ("[]", "1", '"x"', "not json", '{"text": '):
        r = ana.client.post(VALIDATE, data=raw, headers={"X-CSRFToken": ana.token, "Content-Type": "application/json"})
        assert r.status_code == 400 and r.is_json


def test_unexpected_exception_under_api_is_a_json_500(review_app, monkeypatch, caplog):
    from curator.review import service

    def boom(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(service, "history", boom)
    ana = Browser(review_app).login("ana@example.org")
    r = ana.get("/api/v1/languages/es/history")
    assert r.status_code == 500 and r.is_json and "a bug" not in r.get_json()["error"]
    assert any("a bug" in (rec.exc_text or "") or "a bug" in str(rec.exc_info) for rec in caplog.records)
    from curator.web import review as review_pages

    monkeypatch.setattr(review_pages, "queue", boom)  # the review page's queue (review/progress.py)
    page = ana.get("/review/es")  # a page stays HTML
    assert not page.is_json

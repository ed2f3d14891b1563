"""Twenty reviewers submitting at once against a live server on SQLite lose nothing."""
from __future__ import annotations

import threading

import requests
from sqlalchemy import func, select

from curator.core.models import Decision, Suggestion
from curator.review.accounts import create_user, issue_api_token
from curator.review.sampling import assign

REVIEWERS = 20


def test_parallel_reviewers_lose_no_decision(review_app, sessions, live):
    tokens = []
    with sessions.begin() as s:
        for n in range(REVIEWERS):
            user = create_user(s, f"r{n}@example.org", None)
            assign(s, user, ("es", "el", "ar")[n % 3], 1.0)
            tokens.append(issue_api_token(s, user))
    sent: list[int] = []
    duplicates: list[int] = []
    errors: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(REVIEWERS)

    def reviewer(n: int, token: str) -> None:
        http = requests.Session()
        http.headers["Authorization"] = f"Bearer {token}"
        lang = ("es", "el", "ar")[n % 3]
        base = f"{live.url}/api/v1/languages/{lang}"
        items = http.get(f"{base}/queue", timeout=30).json()["items"]
        start.wait()
        for k, item in enumerate(items):
            body = {"decision": ("accept", "reject")[k % 2], "request_id": f"{n}-{item['id']}", "seconds": 1}
            r = http.post(f"{base}/items/{item['id']}/decision", json=body, timeout=60)
            if r.status_code != 201:
                with lock:
                    errors.append(f"{r.status_code} {r.text}")
                continue
            with lock:
                sent.append(r.json()["decision"]["id"])
            if k % 3 == 0:  # the same request again (a double click / a retry): stored once
                again = http.post(f"{base}/items/{item['id']}/decision", json=body, timeout=60)
                with lock:
                    duplicates.append(again.status_code)
        r = http.post(f"{base}/relations/{items[0]['relation']}/suggestions",
                      json={"text": f"[X] sugerencia {n} [Y]", "request_id": f"s{n}"}, timeout=60)
        if r.status_code != 201:
            with lock:
                errors.append(f"suggest {r.status_code} {r.text}")

    threads = [threading.Thread(target=reviewer, args=(n, t)) for n, t in enumerate(tokens)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert errors == []
    assert set(duplicates) == {200}
    with sessions() as s:
        stored = s.scalars(select(Decision.id)).all()
        assert sorted(stored) == sorted(sent)  # count in == count stored, no duplicates
        assert len(stored) == len(set(s.execute(select(Decision.user_id, Decision.item_id)).all()))
        assert s.scalar(select(func.count()).select_from(Suggestion)) == REVIEWERS

"""Twenty reviewers submitting at once against a live server lose nothing (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import requests
from sqlalchemy import func, select

from curator.core.models import Decision, Language, Suggestion, Template
from curator.review.accounts import create_user, issue_api_token
from curator.review.sampling import assign
from tests.plugins.databases import WriteLock

GUARD = 300  # s; a guard against a hang, never a measure of speed (issue 26 §5)

pytestmark = pytest.mark.backends("sqlite", "postgresql")

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
        items = http.get(f"{base}/queue", timeout=GUARD).json()["items"]
        start.wait()
        for k, item in enumerate(items):
            body = {"decision": ("accept", "reject")[k % 2], "request_id": f"{n}-{item['id']}", "seconds": 1}
            r = http.post(f"{base}/items/{item['id']}/decision", json=body, timeout=GUARD)
            if r.status_code != 201:
                with lock:
                    errors.append(f"{r.status_code} {r.text}")
                continue
            with lock:
                sent.append(r.json()["decision"]["id"])
            if k % 3 == 0:  # the same request again (a double click / a retry): stored once
                again = http.post(f"{base}/items/{item['id']}/decision", json=body, timeout=GUARD)
                with lock:
                    duplicates.append(again.status_code)
        r = http.post(
            f"{base}/relations/{items[0]['relation']}/suggestions",
            json={"text": f"[X] sugerencia {n} [Y]", "request_id": f"s{n}"},
            timeout=GUARD,
        )
        if r.status_code != 201:
            with lock:
                errors.append(f"suggest {r.status_code} {r.text}")

    threads = [threading.Thread(target=reviewer, args=(n, t)) for n, t in enumerate(tokens)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=GUARD)
    assert errors == []
    assert set(duplicates) == {200}
    with sessions() as s:
        stored = s.scalars(select(Decision.id)).all()
        assert sorted(stored) == sorted(sent)  # count in == count stored, no duplicates
        assert len(stored) == len(set(s.execute(select(Decision.user_id, Decision.item_id)).all()))
        assert s.scalar(select(func.count()).select_from(Suggestion)) == REVIEWERS


# ------------------------------------------------------------ a busy database, and the CLI beside the app
CURATOR = str(Path(sys.executable).parent / "curator")


def _lock(db_url: str) -> WriteLock:
    """Another process's writer, mid-transaction: holds the write lock until released."""
    return WriteLock(db_url)


def _reviewer(sessions, email: str, lang: str) -> str:
    with sessions.begin() as s:
        user = create_user(s, email, None)
        assign(s, user, lang, 1.0)
        return issue_api_token(s, user)


def _cli(db_url: str, *args: str, busy_timeout: float | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "CURATOR_DATABASE_URL": db_url}
    if busy_timeout is not None:
        env["CURATOR_BUSY_TIMEOUT"] = str(busy_timeout)
    return subprocess.run([CURATOR, *args], env=env, capture_output=True, text=True, timeout=120)


def test_busy_database_is_a_json_503_and_the_retried_request_is_stored_once(review_app, sessions, db_url):
    from curator.web import create_app
    from curator.web.testing import LiveServer

    token = _reviewer(sessions, "busy@example.org", "es")
    app = create_app({"DATABASE_URL": db_url, "SECRET_KEY": "test", "BUSY_TIMEOUT": 0.2})
    with LiveServer(app) as server:
        http = requests.Session()
        http.headers["Authorization"] = f"Bearer {token}"
        base = f"{server.url}/api/v1/languages/es"
        item = http.get(f"{base}/queue", timeout=GUARD).json()["items"][0]
        body = {"decision": "reject", "request_id": "busy-1", "seconds": 2}
        holder = _lock(db_url)
        try:
            busy = http.post(f"{base}/items/{item['id']}/decision", json=body, timeout=GUARD)
            assert busy.status_code == 503, busy.text
            assert busy.json() == {"error": "database busy, retry"}
            assert int(busy.headers["Retry-After"]) >= 1
            assert http.get(f"{base}/queue", timeout=GUARD).status_code == 200  # readers are never blocked
        finally:
            holder.release()
        first = http.post(f"{base}/items/{item['id']}/decision", json=body, timeout=GUARD)
        again = http.post(f"{base}/items/{item['id']}/decision", json=body, timeout=GUARD)
        assert (first.status_code, again.status_code) == (201, 200)
    with sessions() as s:
        assert s.scalars(select(Decision.decision).where(Decision.item_id == item["id"])).all() == ["reject"]


def test_cli_writer_on_a_busy_database_says_one_line_and_changes_nothing(review_app, sessions, db_url):
    with sessions() as s:
        before = s.get(Language, "es").review_fraction
    holder = _lock(db_url)
    try:
        result = _cli(db_url, "review", "fraction", "es", "0.9", busy_timeout=0.2)
    finally:
        holder.release()
    assert result.returncode == 75, result.stderr
    assert result.stderr.strip() == "Error: database busy, retry"
    assert "Traceback" not in result.stdout + result.stderr
    with sessions() as s:
        assert s.get(Language, "es").review_fraction == before
    # with the default timeout the same command waits its turn and succeeds
    assert _cli(db_url, "review", "fraction", "es", "0.9").returncode == 0
    with sessions() as s:
        assert s.get(Language, "es").review_fraction == 0.9


def test_cli_import_racing_web_reviewers_loses_nothing(review_app, sessions, db_url, live, tmp_path):
    """`curator review import` writes Greek decisions while reviewers post Spanish and Arabic
    ones to the running app: both finish without an error and every decision is stored."""
    with sessions() as s:
        greek = s.execute(
            select(Template.relation_id, Template.text).where(Template.language == "el", Template.is_candidate)
        ).all()
    rows = [
        {
            "reviewer": f"legacy{n % 3}@example.org",
            "language": "el",
            "relation": rel,
            "template": text,
            "decision": "accept",
        }
        for n, (rel, text) in enumerate(greek)
    ]
    legacy = tmp_path / "legacy.jsonl"
    legacy.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    tokens = [(_reviewer(sessions, f"w{n}@example.org", lang), lang) for n, lang in enumerate(("es", "ar") * 3)]
    sent, errors = [], []

    def reviewer(token: str, lang: str) -> None:
        http = requests.Session()
        http.headers["Authorization"] = f"Bearer {token}"
        base = f"{live.url}/api/v1/languages/{lang}"
        for item in http.get(f"{base}/queue", timeout=GUARD).json()["items"]:
            r = http.post(
                f"{base}/items/{item['id']}/decision",
                timeout=GUARD,
                json={"decision": "accept", "request_id": f"{token[:8]}-{item['id']}"},
            )
            (sent if r.status_code == 201 else errors).append(r.status_code)

    threads = [threading.Thread(target=reviewer, args=pair) for pair in tokens]
    for t in threads:
        t.start()
    result = _cli(db_url, "review", "import", str(legacy))
    for t in threads:
        t.join(timeout=GUARD)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert f"{len(rows)} lines: {len(rows)} stored" in result.stdout
    assert errors == [] and sent
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Decision)) == len(sent) + len(rows)


def test_an_exhausted_connection_pool_is_a_json_503_not_a_500(review_app, sessions, db_url):
    """Every pooled connection held (e.g. by slow requests) past the busy timeout: a reader
    gets the same retryable 503 as a writer facing a held lock."""
    from curator.web import create_app

    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite's pool does not take the busy timeout as its wait")
    token = _reviewer(sessions, "pool@example.org", "es")
    app = create_app({"DATABASE_URL": db_url, "SECRET_KEY": "test", "BUSY_TIMEOUT": 1})
    engine = app.extensions["curator.engine"]
    held = [engine.connect() for _ in range(engine.pool.size() + engine.pool._max_overflow)]
    try:
        response = app.test_client().get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 503, response.get_data(as_text=True)
        assert response.get_json() == {"error": "database busy, retry"}
        assert "Retry-After" in response.headers
    finally:
        for connection in held:
            connection.close()
    assert app.test_client().get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200

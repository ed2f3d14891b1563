"""Issue 38 §2: the shared rate-limit store (a real redis-server) failing in the middle of a
request never turns the answer into a 500, and CURATOR_RATELIMIT_PREFIX lets two instances
share one redis without counting each other's requests."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from flask import request

from curator.web import create_app

from .conftest import PASSWORD, Browser, _started, csrf_from


def _app(db_url, tmp_path, storage: str, **config):
    return create_app(
        {
            "DATABASE_URL": db_url,
            "SECRET_KEY": "test-secret",
            "RUNS_DIR": str(tmp_path / "runs"),
            "RATELIMIT_ENABLED": True,
            "RATELIMIT_STORAGE_URI": storage,
            **config,
        }
    )


def _sign_in_attempt(client, password: str):
    token = csrf_from(client.get("/login").get_data(as_text=True))
    return client.post("/login", data={"email": "ana@example.org", "password": password, "csrf_token": token})


@pytest.fixture
def own_redis():
    """A redis-server of this test only: it is stopped in the middle of the test."""
    from tests.redis_server import RedisServer

    pytest.importorskip("redis", reason="the redis Python package is not installed")
    server = _started(RedisServer)
    yield server
    server.stop()


def test_the_store_stopping_mid_request_is_never_a_500(review_app, db_url, tmp_path, own_redis):
    """Six sign-ins in flight at once have been counted in redis when it stops; their rate-limit
    headers then fail on the dead store. Flask-Limiter falls back to memory on the first such
    error, and re-raised the others (a 500) before `swallow_errors`."""
    app = _app(db_url, tmp_path, own_redis.url)
    clients = 6
    hold = {"on": False}
    barrier = threading.Barrier(clients + 1)

    @app.before_request
    def _hold_after_the_check() -> None:
        # after the limiter's check (its hook runs first), before the view and the headers
        if hold["on"] and request.path == "/login" and request.method == "POST":
            barrier.wait()

    pages = [app.test_client() for _ in range(clients)]
    tokens = [csrf_from(c.get("/login").get_data(as_text=True)) for c in pages]
    assert _sign_in_attempt(app.test_client(), "wrong").status_code == 401  # counted in redis
    keys = own_redis.client().keys("*")
    assert keys and all(k.startswith(b"LIMITS:LIMITER/curator/") for k in keys), keys  # the default prefix
    hold["on"] = True
    data = {"email": "ana@example.org", "password": PASSWORD}
    with ThreadPoolExecutor(clients) as pool:
        futures = [pool.submit(c.post, "/login", data={**data, "csrf_token": t}) for c, t in zip(pages, tokens)]
        barrier.wait()  # every request has passed the limiter's check in redis
        own_redis.stop()
        barrier.reset()
        statuses = [f.result().status_code for f in futures]
    hold["on"] = False
    assert own_redis.process.poll() is not None  # the store is really gone
    assert statuses == [302] * clients, statuses
    # after it: every limited door still answers (counted in this process meanwhile)
    browser = Browser(app).login("bo@example.org")
    assert browser.get("/review/es/find?q=nació").status_code == 200
    assert app.test_client().get("/api/v1/me", headers={"Authorization": "Bearer junk"}).status_code == 401
    statuses = [_sign_in_attempt(app.test_client(), f"guess {i}").status_code for i in range(12)]
    assert 429 in statuses and 500 not in statuses  # still limited: the fallback counts


def test_two_instances_share_one_redis_with_their_own_prefix(review_app, db_url, tmp_path, redis_server):
    redis_server.flush()
    limit = {"RATELIMIT_ACCOUNT": "3/minute"}
    staging = _app(db_url, tmp_path, redis_server.url, RATELIMIT_KEY_PREFIX="staging", **limit)
    production = _app(db_url, tmp_path, redis_server.url, RATELIMIT_KEY_PREFIX="production", **limit)
    assert [_sign_in_attempt(staging.test_client(), "x").status_code for _ in range(4)] == [401, 401, 401, 429]
    assert _sign_in_attempt(production.test_client(), "x").status_code == 401  # its own count
    keys = redis_server.client().keys("*")
    assert keys and all(k.startswith((b"LIMITS:LIMITER/staging/", b"LIMITS:LIMITER/production/")) for k in keys), keys
    # the same prefix: one count (two workers or hosts of one instance)
    again = _app(db_url, tmp_path, redis_server.url, RATELIMIT_KEY_PREFIX="staging", **limit)
    assert _sign_in_attempt(again.test_client(), "x").status_code == 429

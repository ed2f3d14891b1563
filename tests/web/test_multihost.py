"""Two app hosts behind a load balancer: two `curator serve` processes on one PostgreSQL
database and one redis (the rate-limit counts), driven by a round-robin client like nginx's
default upstream — every request to the next host, one cookie jar, no sticky sessions.

- a sign-in made through one host is good on the other (the session cookie is signed with the
  shared CURATOR_SECRET_KEY, the login session is a database row);
- password guesses spread over both hosts hit the 429 at exactly the configured limit (with
  the per-process memory:// store each host would count alone: twice the limit);
- a decision sent to both hosts (the same request id, at the same moment) is stored once, and
  decisions made through either host are all stored.
"""

from __future__ import annotations

import threading

import pytest
import requests
from sqlalchemy import func, select

from curator.core.db import make_engine, make_session_factory
from curator.core.models import Decision
from curator.web.testing import ServeProcess
from tests.plugins.cli import Cli
from tests.plugins.databases import PASSWORD
from tests.plugins.servers import csrf_from

LIMIT = 5  # CURATOR_RATELIMIT_ACCOUNT for these hosts: guesses per account per minute
HTTP_TIMEOUT = 120  # s; a guard only (a hung host), never reached by a passing test


class RoundRobin:
    """What nginx does with an `upstream` of several servers by default: each request goes to
    the next one. Both hosts are 127.0.0.1 on different ports, and cookies ignore the port,
    so the one cookie jar is sent to both, as a browser's is behind one public name."""

    def __init__(self, bases: list[str]):
        self.bases = bases
        self.http = requests.Session()
        self.sent = 0
        self.hosts: list[str] = []  # which host answered each request, in order

    def request(self, method: str, path: str, **kwargs) -> requests.Response:
        base = self.bases[self.sent % len(self.bases)]
        self.sent += 1
        self.hosts.append(base)
        kwargs.setdefault("allow_redirects", False)
        return self.http.request(method, base + path, timeout=HTTP_TIMEOUT, **kwargs)

    def get(self, path: str, **kwargs) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs) -> requests.Response:
        return self.request("POST", path, **kwargs)


@pytest.fixture(scope="module")
def hosts(postgres, redis_server):
    """(base URLs of two hosts, database URL): one PostgreSQL database, one redis, two servers."""
    from curator.review.accounts import create_user
    from curator.review.sampling import assign

    redis_server.flush()
    name = postgres.new_database()
    url = postgres.url(name)
    Cli(url)("seed")
    engine = make_engine(url)
    with make_session_factory(engine).begin() as s:
        for email in ("ana@example.org", "bo@example.org", "cy@example.org"):
            assign(s, create_user(s, email, PASSWORD, "reviewer"), "es")
        create_user(s, "target@example.org", PASSWORD, "reviewer")
    engine.dispose()
    env = {
        "CURATOR_SECRET_KEY": "two-hosts-one-key",
        "CURATOR_RATELIMIT_STORAGE": redis_server.url,
        "CURATOR_RATELIMIT_ACCOUNT": f"{LIMIT}/minute",
        "CURATOR_RATELIMIT_ADDRESS": "1000/minute",
    }
    try:
        with (
            ServeProcess(url, "--workers", "1", "--threads", "4", env=env) as a,
            ServeProcess(url, "--workers", "1", "--threads", "4", env=env) as b,
        ):
            yield [a.url, b.url], url
    finally:
        postgres.drop_database(name)


def sign_in(client: RoundRobin, email: str) -> str:
    """Sign in through the hosts in turn (the form from one, the POST to the next); the CSRF
    token for API calls."""
    token = csrf_from(client.get("/login").text)
    response = client.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": token})
    assert response.status_code == 302, response.text
    return csrf_from(client.get("/", allow_redirects=True).text)


def stored(url: str, *request_ids: str) -> int:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return conn.scalar(select(func.count()).select_from(Decision).where(Decision.request_id.in_(request_ids)))
    finally:
        engine.dispose()


def test_sign_in_on_one_host_works_on_the_other(hosts):
    bases, _ = hosts
    client = RoundRobin(bases)
    sign_in(client, "ana@example.org")
    for _ in range(4):  # two rounds over both hosts
        me = client.get("/api/v1/me")
        assert me.status_code == 200 and me.json()["email"] == "ana@example.org", (client.hosts[-1], me.text)
    assert set(client.hosts) == set(bases)
    token = csrf_from(client.get("/", allow_redirects=True).text)  # sign out through one host: both refuse the cookie
    assert client.post("/logout", data={"csrf_token": token}).status_code == 302
    for _ in range(2):
        assert client.get("/api/v1/me").status_code == 401


def test_password_guesses_hit_the_limit_across_hosts(hosts):
    bases, _ = hosts
    client = RoundRobin(bases)
    token = csrf_from(client.get("/login").text)
    guesses = [
        client.post(
            "/login", data={"email": "target@example.org", "password": f"guess {n}", "csrf_token": token}
        ).status_code
        for n in range(LIMIT + 1)
    ]
    assert guesses == [401] * LIMIT + [429], guesses  # memory://: each host would allow LIMIT on its own
    assert set(client.hosts[1:]) == set(bases)  # the guesses went to both hosts
    for _ in range(2):  # now even the right password waits, on either host
        right = client.post("/login", data={"email": "target@example.org", "password": PASSWORD, "csrf_token": token})
        assert right.status_code == 429 and "Retry-After" in right.headers


def test_the_same_decision_sent_to_both_hosts_is_stored_once(hosts):
    bases, url = hosts
    client = RoundRobin(bases)
    token = sign_in(client, "bo@example.org")
    item = client.get("/api/v1/languages/es/queue").json()["next"]
    body = {"decision": "accept", "seconds": 5, "request_id": "both-hosts-at-once"}
    start, answers = threading.Barrier(2), {}

    def send(base: str) -> None:
        http = requests.Session()
        http.cookies.update(client.http.cookies)
        start.wait()  # both requests in flight together: a real race between the hosts
        answers[base] = http.post(
            f"{base}/api/v1/languages/es/items/{item}/decision",
            json=body,
            headers={"X-CSRFToken": token},
            timeout=HTTP_TIMEOUT,
        )

    threads = [threading.Thread(target=send, args=(base,)) for base in bases]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status_code for r in answers.values()) == [200, 201], {b: r.text for b, r in answers.items()}
    assert [r.json()["created"] for r in answers.values()].count(True) == 1
    assert len({r.json()["decision"]["id"] for r in answers.values()}) == 1  # both name the one stored decision
    assert stored(url, "both-hosts-at-once") == 1


def test_decisions_through_either_host_are_all_stored(hosts):
    bases, url = hosts
    client = RoundRobin(bases)
    token = sign_in(client, "cy@example.org")
    headers = {"X-CSRFToken": token}
    item = client.get("/api/v1/languages/es/queue").json()["next"]
    sent = []  # (item, body) of each decision
    for n in range(6):
        body = {"decision": ("accept", "reject")[n % 2], "seconds": 5, "request_id": f"cy-{n}"}
        r = client.post(f"/api/v1/languages/es/items/{item}/decision", headers=headers, json=body)
        assert r.status_code == 201, r.text
        sent.append((item, body))
        item = r.json()["next"]
        assert item is not None
    assert set(client.hosts[-6:]) == set(bases)
    client.get("/healthz")  # one step, so that each resend below goes to the other host than its first send
    for item, body in sent:  # a resend (a client that lost the answer) changes nothing
        r = client.post(f"/api/v1/languages/es/items/{item}/decision", headers=headers, json=body)
        assert r.status_code == 200 and r.json()["created"] is False, r.text
    assert stored(url, *(body["request_id"] for _, body in sent)) == len(sent)


def test_sign_in_survives_the_store_going_away(db_url, engine, tmp_path):
    """While redis is down the app counts in its own process (Flask-Limiter's in-memory
    fallback): sign-in still works and the limit still holds, instead of a 500 on every
    sign-in page until redis is back."""
    from curator.review.accounts import create_user
    from curator.web import create_app
    from tests.support.redis_server import RedisServer

    pytest.importorskip("redis", reason="the redis Python package is not installed (pip install redis)")
    try:
        store = RedisServer().start()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    try:
        with make_session_factory(engine).begin() as s:
            create_user(s, "ana@example.org", PASSWORD, "reviewer")
        app = create_app(
            {
                "DATABASE_URL": db_url,
                "SECRET_KEY": "k",
                "RUNS_DIR": str(tmp_path / "runs"),
                "RATELIMIT_STORAGE_URI": store.url,
                "RATELIMIT_ACCOUNT": f"{LIMIT}/minute",
            }
        )
        client = app.test_client()
        token = csrf_from(client.get("/login").get_data(as_text=True))

        def attempt(password: str) -> int:
            return client.post(
                "/login", data={"email": "ana@example.org", "password": password, "csrf_token": token}
            ).status_code

        assert attempt("wrong") == 401  # counted in redis
        store.stop()
        assert attempt(PASSWORD) == 302  # redis gone: still signs in
        token = csrf_from(client.get("/", follow_redirects=True).get_data(as_text=True))  # a new one with the sign-in
        assert [attempt("wrong") for _ in range(LIMIT)] == [401] * (LIMIT - 1) + [429]  # and still limits
    finally:
        store.stop()

"""Issue 38 §2: the shared rate-limit store (a real redis-server) failing in the middle of a
request never turns the answer into a 500, and CURATOR_RATELIMIT_PREFIX lets two instances
share one redis without counting each other's requests.

The failure is a real one: the app's redis is demoted to a replica (what a failover does to the
primary an app still points at) while two replies are in flight, so their writes are refused with
READONLY. Flask-Limiter survives the first such error by falling back to memory; a second request
already inside the store when that happens fails too, after the fallback, and without
`swallow_errors` that error is raised from the view: a 500. A TCP front the test runs between the
app and redis holds both requests' commands and lets them through one after the other, so that
order is certain, not a race (`Holding`)."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

import pytest
from sqlalchemy import func, select

from curator.core.models import AssignmentItem, Comment, User
from curator.web import create_app, limits
from tests.plugins.databases import _started, review_sample
from tests.plugins.servers import Browser, csrf_from

HOLD_TIMEOUT = 60.0  # only a guard against a request that never reaches the store; it does in milliseconds


class _Link:
    """One client connection through the front: the client's socket and redis's."""

    def __init__(self, client: socket.socket, upstream: socket.socket) -> None:
        self.client, self.upstream = client, upstream
        self.passing = True  # False while held: what the client sends waits in `kept`
        self.kept: list[bytes] = []


class Holding:
    """A TCP front of a real redis-server (its Unix socket). `hold()` keeps back what every
    connection sends from then on; `held(n)` waits until n connections have a command kept back
    and gives them in the order they arrived; `release(link)` sends that connection's commands on
    and lets it pass from then on. Answers always come straight back."""

    def __init__(self, unix_socket: str) -> None:
        self.unix_socket = unix_socket
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self.listener.getsockname()[1]}"
        self.lock = threading.Condition()
        self.links: list[_Link] = []
        self.waiting: list[_Link] = []  # held links with a command kept back, in arrival order
        self.holding = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(self.unix_socket)
            link = _Link(client, upstream)
            with self.lock:
                link.passing = not self.holding
                self.links.append(link)
            threading.Thread(target=self._forward, args=(link,), daemon=True).start()
            threading.Thread(target=self._answer, args=(link,), daemon=True).start()

    def _forward(self, link: _Link) -> None:
        while data := self._recv(link.client):
            with self.lock:
                if link.passing:
                    link.upstream.sendall(data)
                    continue
                link.kept.append(data)
                if link not in self.waiting:
                    self.waiting.append(link)
                self.lock.notify_all()
        self._close(link)

    def _answer(self, link: _Link) -> None:
        while data := self._recv(link.upstream):
            try:
                link.client.sendall(data)
            except OSError:
                break
        self._close(link)

    @staticmethod
    def _recv(sock: socket.socket) -> bytes:
        try:
            return sock.recv(65536)
        except OSError:
            return b""

    @staticmethod
    def _close(link: _Link) -> None:
        for sock in (link.client, link.upstream):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def hold(self) -> None:
        with self.lock:
            self.holding = True
            for link in self.links:
                link.passing = False

    def held(self, count: int) -> list[_Link]:
        with self.lock:
            assert self.lock.wait_for(lambda: len(self.waiting) >= count, HOLD_TIMEOUT), "no command reached the store"
            return list(self.waiting[:count])

    def release(self, link: _Link) -> None:
        with self.lock:
            link.passing = True
            for data in link.kept:
                link.upstream.sendall(data)
            link.kept.clear()

    def close(self) -> None:
        self.listener.close()
        with self.lock:
            links = list(self.links)
        for link in links:
            self._close(link)


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


def _thread_of_ana(sessions) -> int:
    """A thread Ana opened on her first item (Bo and Ana reply in it)."""
    item_id, relation, _text = review_sample(sessions, "ana@example.org", "es")[0]
    with sessions() as s:
        ana = s.scalars(select(User).where(User.email == "ana@example.org")).one()
        template_id = s.get_one(AssignmentItem, item_id).template_id
        root = Comment(user_id=ana.id, language="es", relation_id=relation, template_id=template_id, text="¿Vale?")
        s.add(root)
        s.commit()
        return root.id


def _saved(sessions, text: str) -> int:
    with sessions() as s:
        return s.scalar(select(func.count()).where(Comment.text == text)) or 0


@pytest.fixture
def own_redis():
    """A redis-server of this test only: it is demoted to a replica in the middle of the test."""
    from tests.support.redis_server import RedisServer

    pytest.importorskip("redis", reason="the redis Python package is not installed")
    server = _started(RedisServer)
    yield server
    server.stop()


@pytest.fixture
def front(own_redis):
    proxy = Holding(str(own_redis.socket))
    yield proxy
    proxy.close()


def _limiter_log(caplog, text: str) -> int:
    return sum(text in r.getMessage() for r in caplog.records if r.name == "flask-limiter")


def _two_replies_when_the_store_fails(app, sessions, own_redis, front) -> list[int]:
    """Ana and Bo each reply once while the store works, then each again with both replies'
    commands held at the store; redis becomes a read-only replica; Ana's or Bo's command goes on
    first (refused: Flask-Limiter falls back to memory and that reply is answered), then the
    other's (refused after the fallback). The two answers' statuses, in the order released."""
    thread = _thread_of_ana(sessions)
    url = f"/api/v1/languages/es/comments/{thread}/replies"
    people = [Browser(app).login("ana@example.org"), Browser(app).login("bo@example.org")]
    assert [p.post(url, {"text": "antes"}).status_code for p in people] == [201, 201]  # counted in redis
    keys = own_redis.client().keys("*")
    assert keys and all(k.startswith(b"LIMITS:LIMITER/curator/") for k in keys), keys  # the default prefix
    front.hold()
    with ThreadPoolExecutor(len(people)) as pool:
        futures = [pool.submit(p.post, url, {"text": "durante"}) for p in people]
        first, second = front.held(2)  # both replies are inside the store
        own_redis.client().replicaof("127.0.0.1", "1")  # demoted: its writes are refused (READONLY)
        front.release(first)
        done, _ = wait(futures, return_when=FIRST_COMPLETED)  # answered from the in-memory fallback
        front.release(second)
        answers = [f.result().status_code for f in done] + [f.result().status_code for f in futures if f not in done]
    assert own_redis.client().info("replication")["role"] == "slave"  # a real refusal, still so
    return answers


def test_the_store_failing_mid_request_is_never_a_500(review_app, db_url, tmp_path, sessions, own_redis, front, caplog):
    """Both replies in flight are answered 201 and saved; afterwards every limited door still
    answers and is still limited (counted in this process), and the fallback is logged once, not
    once per request."""
    caplog.set_level(logging.INFO, logger="flask-limiter")
    app = _app(db_url, tmp_path, front.url, RATELIMIT_REPLY="6/minute")
    assert _two_replies_when_the_store_fails(app, sessions, own_redis, front) == [201, 201]
    assert _saved(sessions, "durante") == 2
    # Once per failure of the store, not once per request. Flask-Limiter may also re-check the store
    # on the way (a PING, which a replica answers) when a second has passed since it last did —
    # the app's creation, on a busy machine —, find it "recovered" and fall back once more.
    early = _limiter_log(caplog, "Rate limit storage recovered")
    assert early <= 1 and _limiter_log(caplog, "falling back to in-memory storage") == 1 + early
    assert _limiter_log(caplog, "Swallowing error") == 1  # the second request's refusal, logged

    # a flood after it: every door answers, the limits still hold, no line per request
    bo, ana = Browser(app).login("bo@example.org"), Browser(app).login("ana@example.org")
    searches = [bo.get(f"/review/es/find?q=nació{n}").status_code for n in range(10)]
    tokens = [app.test_client().get("/api/v1/me", headers={"Authorization": "Bearer junk"}).status_code]
    with sessions() as s:
        thread = s.scalar(select(Comment.id).where(Comment.parent_id.is_(None)))
    url = f"/api/v1/languages/es/comments/{thread}/replies"
    replies = [ana.post(url, {"text": f"después {n}"}).status_code for n in range(10)]
    assert set(searches) == {200} and tokens == [401]
    assert 201 in replies and 429 in replies and 500 not in replies, replies  # still limited: the fallback counts
    with sessions() as s:
        saved = s.scalar(select(func.count()).where(Comment.text.startswith("después"))) or 0
    assert saved == replies.count(201)
    recovered = _limiter_log(caplog, "Rate limit storage recovered")  # Flask-Limiter re-checks the store
    assert _limiter_log(caplog, "falling back to in-memory storage") == 1 + recovered  # then falls back once more
    assert _limiter_log(caplog, "falling back to in-memory storage") < len(searches + replies) // 4
    assert _limiter_log(caplog, "Swallowing error") == 1


def test_without_swallowing_store_errors_the_same_failure_is_a_500(
    review_app, db_url, tmp_path, sessions, own_redis, front, monkeypatch
):
    """The control of the test above: with Flask-Limiter's `swallow_errors` off, the same
    scenario answers the second reply with a 500 and loses it — so the test above can fail."""
    monkeypatch.setattr(limits, "store_failure_options", lambda prefix: {"swallow_errors": False, "key_prefix": prefix})
    app = _app(db_url, tmp_path, front.url, PROPAGATE_EXCEPTIONS=False)
    assert _two_replies_when_the_store_fails(app, sessions, own_redis, front) == [201, 500]
    assert _saved(sessions, "durante") == 1


def test_two_instances_share_one_redis_with_their_own_prefix(review_app, db_url, tmp_path, redis_server, monkeypatch):
    """Two apps on one real redis: with different prefixes each counts alone, with the same one
    they count together; the prefix comes from CURATOR_RATELIMIT_PREFIX (the environment)."""
    redis_server.flush()
    limit = {"RATELIMIT_ACCOUNT": "3/minute"}
    staging = _app(db_url, tmp_path, redis_server.url, RATELIMIT_KEY_PREFIX="staging", **limit)
    monkeypatch.setenv("CURATOR_RATELIMIT_PREFIX", "production")
    production = _app(db_url, tmp_path, redis_server.url, **limit)
    assert [_sign_in_attempt(staging.test_client(), "x").status_code for _ in range(4)] == [401, 401, 401, 429]
    assert _sign_in_attempt(production.test_client(), "x").status_code == 401  # its own count
    keys = redis_server.client().keys("*")
    assert keys and all(k.startswith((b"LIMITS:LIMITER/staging/", b"LIMITS:LIMITER/production/")) for k in keys), keys
    # the same prefix: one count (two workers or hosts of one instance)
    again = _app(db_url, tmp_path, redis_server.url, RATELIMIT_KEY_PREFIX="staging", **limit)
    assert _sign_in_attempt(again.test_client(), "x").status_code == 429

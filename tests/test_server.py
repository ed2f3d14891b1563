"""`curator serve` is gunicorn with deadlines: stalled or slow clients hold nothing.

Every test runs the real command as a child process on a real port and talks to it over
real sockets: a client that sends half a request and then nothing (a slow-loris), one that
sends a POST's headers but not its body, one that trickles a byte at a time. With plain
gunicorn threads (or the old development server and its process-wide lock) such clients
held a thread — or every writer — until they gave up; here they are cut off after the read
timeout and every other reviewer goes on being served.
"""
from __future__ import annotations

import signal
import socket
import threading
import time

import pytest
import requests

from curator.web.testing import ServeProcess
from tests.conftest import PASSWORD, csrf_from, review_sample

READ_TIMEOUT = 1.5


@pytest.fixture
def served(review_app, db_url):
    """The seeded review app under `curator serve`: 1 worker x 2 threads, so two stalled
    clients would take every thread if nothing cut them off."""
    with ServeProcess(db_url, "--workers", "1", "--threads", "2", "--read-timeout", str(READ_TIMEOUT),
                      env={"CURATOR_SECRET_KEY": "test-secret", "CURATOR_MAX_BODY": "65536"}) as server:
        yield server


def sign_in(base: str, email: str) -> tuple[requests.Session, str]:
    web = requests.Session()
    page = web.get(base + "/login", timeout=10).text
    response = web.post(base + "/login", data={"email": email, "password": PASSWORD, "csrf_token": csrf_from(page)},
                        allow_redirects=False, timeout=10)
    assert response.status_code == 302, response.text
    return web, csrf_from(web.get(base + "/", timeout=10).text)


def stalled(base_port: int, payload: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", base_port))
    sock.sendall(payload)
    return sock


def closed_within(sock: socket.socket, seconds: float) -> bytes | None:
    """What the server sent before closing the connection, or None if it is still open."""
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except socket.timeout:
        return None
    except ConnectionResetError:
        pass
    return received


def test_stalled_clients_are_cut_off_and_hold_no_thread(served, sessions):
    half_headers = stalled(served.port, b"GET /login HTTP/1.1\r\nHost: x\r\n")
    no_body = stalled(served.port, b"POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                   b"Content-Length: 200\r\n\r\n{")
    stop = threading.Event()
    trickler = stalled(served.port, b"G")

    def trickle():  # a byte every 0.2 s: each read is quick, the request never completes
        for byte in b"ET /login HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 200:
            if stop.wait(0.2):
                return
            try:
                trickler.send(bytes([byte]))
            except OSError:
                return

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    try:
        time.sleep(0.3)
        # both threads of the only worker are taken by stalled clients right now; a reviewer
        # is still served once their deadline passes (and never waits forever)
        web, token = sign_in(served.url, "ana@example.org")
        item_id = review_sample(sessions, "ana@example.org", "es")[0][0]
        response = web.post(f"{served.url}/api/v1/languages/es/items/{item_id}/decision",
                            json={"decision": "accept", "request_id": "r-1"}, headers={"X-CSRFToken": token},
                            timeout=5 * READ_TIMEOUT)
        assert response.status_code == 201, response.text
        for sock in (half_headers, no_body, trickler):
            reply = closed_within(sock, 3 * READ_TIMEOUT)
            assert reply is not None, "a stalled connection was never closed"
            assert reply == b"" or reply.startswith(b"HTTP/1.1 408"), reply[:80]
    finally:
        stop.set()
        for sock in (half_headers, no_body, trickler):
            sock.close()
    log = served.read_log()
    assert log.count("its request did not arrive within 1.5 s") >= 3  # one line per cut-off, no traceback
    assert "Traceback" not in log


def test_a_stalled_decision_blocks_no_other_reviewer_and_is_not_stored(served, sessions):
    """The old finding: a POST that sent its headers and then nothing blocked every decision
    of every reviewer (a process-wide lock) until it disconnected."""
    from sqlalchemy import func, select

    from curator.core.models import Decision

    ana, ana_token = sign_in(served.url, "ana@example.org")
    bo, bo_token = sign_in(served.url, "bo@example.org")
    ana_item = review_sample(sessions, "ana@example.org", "es")[0][0]
    cookie = "; ".join(f"{c.name}={c.value}" for c in ana.cookies)
    body = b'{"decision": "accept", "request_id": "stalled"}'
    sock = stalled(served.port, (f"POST /api/v1/languages/es/items/{ana_item}/decision HTTP/1.1\r\nHost: x\r\n"
                                 f"Cookie: {cookie}\r\nX-CSRFToken: {ana_token}\r\nContent-Type: application/json\r\n"
                                 f"Content-Length: {len(body)}\r\n\r\n").encode() + body[:10])
    try:
        for n, (item_id, *_rest) in enumerate(review_sample(sessions, "bo@example.org", "es")[:5]):
            response = bo.post(f"{served.url}/api/v1/languages/es/items/{item_id}/decision",
                               json={"decision": "accept", "request_id": f"bo-{n}"},
                               headers={"X-CSRFToken": bo_token}, timeout=5 * READ_TIMEOUT)
            assert response.status_code == 201, response.text
        reply = closed_within(sock, 3 * READ_TIMEOUT)
        assert reply is not None and (reply == b"" or reply.startswith(b"HTTP/1.1 408")), reply
    finally:
        sock.close()
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Decision).where(Decision.request_id == "stalled")) == 0
        assert s.scalar(select(func.count()).select_from(Decision).where(Decision.request_id.like("bo-%"))) == 5


def test_a_body_over_the_limit_is_refused_unread(served):
    web, token = sign_in(served.url, "ana@example.org")
    response = web.post(served.url + "/api/v1/validate", data=b"x" * 70_000,
                        headers={"X-CSRFToken": token, "Content-Type": "application/json"}, timeout=10)
    assert response.status_code == 413
    assert "error" in response.json()


def test_sighup_reloads_workers_without_failing_a_request(served):
    failures, done = [], threading.Event()

    def poll():
        while not done.is_set():
            try:
                if requests.get(served.url + "/healthz", timeout=10).status_code != 200:
                    failures.append("status")
            except requests.RequestException as exc:
                failures.append(repr(exc))

    thread = threading.Thread(target=poll)
    thread.start()
    try:
        time.sleep(0.5)
        served.signal(signal.SIGHUP)
        time.sleep(3)
    finally:
        done.set()
        thread.join()
    assert failures == []
    assert "Handling signal: hup" in served.read_log()


def test_serve_refuses_an_uninitialised_database(cli):
    result = cli("serve", "--port", "1", ok=False)
    assert result.exit_code != 0
    assert "not initialised: run `curator init`" in result.output
    assert "Traceback" not in result.output


def test_clients_that_never_hang_up_do_not_stall_the_worker(served):
    """gunicorn closes an HTTP/1.0 connection after its response by draining it in the worker's
    main loop; clients that keep their end open must not hold that loop (it held 10 s each)."""
    idle = [stalled(served.port, b"GET /healthz HTTP/1.0\r\n\r\n") for _ in range(3)]
    try:
        time.sleep(0.5)
        for _ in range(3):
            assert requests.get(served.url + "/healthz", timeout=2 * READ_TIMEOUT).status_code == 200
    finally:
        for sock in idle:
            sock.close()
    assert "did not arrive" not in served.read_log()  # they did arrive; nothing to report

"""A flaky connection loses nothing, and a restart signs nobody out: the real server (`curator
serve`, without CURATOR_SECRET_KEY) is stopped in the middle of a session while the reviewer goes
on in Chromium, and a minute passes on the page's clock (Playwright's, moved forward timer by
timer: every reconnect try really runs and is really refused); the decisions wait in the browser
and are stored once each, in order, when the server is back, and the page recovers by itself. Also behind a proxy that refuses
a request once (429), and with a server that hangs (SIGSTOP) rather than refusing connections."""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from sqlalchemy import select

from curator.core.db import make_engine, make_session_factory
from curator.core.models import Decision, User
from curator.web.testing import ServeProcess, free_port
from tests.plugins.databases import PASSWORD, review_sample
from tests.web.test_review_ui import start_reviewing, wait_for_item

OUTAGE = 60  # s of the page's time with the server down: the scenario (the page used to give up after ~7.5 s)
RECONNECT_MAX = 5  # s, outbox.js Reconnect.MAX_MS: the longest the page waits between two tries

WAITING = """n => (document.getElementById('connection').textContent.includes(`Offline — ${n} decision`)
                  || document.getElementById('status').classList.contains('error'))"""
OUTBOX = """() => Object.keys(localStorage).filter(k => k.startsWith('curator.outbox.'))
                  .map(k => JSON.parse(localStorage.getItem(k)).map(e => [e.item, e.body.decision]))"""


def test_an_outage_loses_nothing_and_the_page_recovers(chromium, sqlite_templates, tmp_path):
    db = tmp_path / "curator.sqlite"
    shutil.copyfile(sqlite_templates("review"), db)
    engine = make_engine(f"sqlite:///{db}")
    sessions = make_session_factory(engine)
    items = [i[0] for i in review_sample(sessions, "ana@example.org", "es")]
    assert len(items) >= 8
    proc = ServeProcess(
        f"sqlite:///{db}", "--workers", "2", "--threads", "4", env={"CURATOR_INSTANCE_PATH": str(tmp_path / "instance")}
    )
    proc.env.pop("CURATOR_SECRET_KEY", None)  # the key kept in the instance folder keeps Ana signed in

    context = chromium.new_context(viewport={"width": 1100, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.clock.install()  # time flows as usual until the outage moves it on
    with proc:
        page.goto(proc.url + "/login")
        page.fill("input[name=email]", "ana@example.org")
        page.fill("input[name=password]", PASSWORD)
        page.keyboard.press("Enter")
        page.wait_for_url(proc.url + "/")
        page.goto(proc.url + "/review/es")
        start_reviewing(page)
        wait_for_item(page, items[0])
        page.keyboard.press("a")  # online: saved at once
        wait_for_item(page, items[1])
        page.wait_for_function("Number(document.getElementById('review').dataset.ahead) >= 6")
        page.evaluate("window.sameDocument = true")  # gone if the page reloads

    # the server is down: six decisions wait in the browser, the last one undone again
    keys = ["r", "n", "a", "r", "a", "n"]
    for k, key in enumerate(keys, start=1):
        page.keyboard.press(key)
        page.wait_for_function(WAITING, arg=k)
        assert page.locator("#status").get_attribute("class") != "status error", page.locator("#status").inner_text()
        wait_for_item(page, items[k + 1])  # on to the next template, loaded before the outage
    assert page.locator("#connection").inner_text() == "Offline — 6 decisions waiting"
    page.keyboard.press("u")  # undo the last: it leaves the outbox, never reaching the server
    wait_for_item(page, items[6])
    page.wait_for_function(WAITING, arg=5)
    expected = [(items[0], "accept")] + [
        (items[k], kind) for k, kind in enumerate(["reject", "unsure", "accept", "reject", "accept"], 1)
    ]
    assert page.evaluate(OUTBOX) == [[list(e) for e in expected[1:]]]
    # a minute passes on the page's clock, one reconnect delay at a time; each step waits for the
    # try it fires to be refused (a page that stopped trying fails here), so every try really runs
    refused: list[str] = []
    page.on("requestfailed", lambda request: refused.append(request.url))
    start = page.evaluate("Date.now()")
    for _ in range(OUTAGE // RECONNECT_MAX):  # a fixed number of steps: real time passing adds none
        with page.expect_event("requestfailed"):
            page.clock.fast_forward(RECONNECT_MAX * 1000)
    assert page.evaluate("Date.now()") - start >= OUTAGE * 1000  # a minute at least, on the page's clock
    assert len(refused) >= OUTAGE // RECONNECT_MAX  # a try at least every 5 s of the minute
    assert page.locator("#connection").inner_text() == "Offline — 5 decisions waiting"
    assert page.evaluate(OUTBOX) == [[list(e) for e in expected[1:]]]

    with proc:  # the same command, port and database
        page.clock.fast_forward(RECONNECT_MAX * 1000)  # the next try is due at once
        page.wait_for_function(
            "document.getElementById('status').textContent.includes('Back online')"
            " || document.getElementById('sign-in-again') !== null"
        )
        assert page.locator("#status").inner_text() == "Back online — every decision is saved."
        assert page.locator("#connection").is_hidden()
        assert page.evaluate("window.sameDocument") is True  # recovered without a reload
        assert page.evaluate(OUTBOX) == []
        with sessions() as s:
            stored = s.execute(
                select(Decision.item_id, Decision.decision, Decision.request_id)
                .join(User, User.id == Decision.user_id)
                .where(User.email == "ana@example.org", Decision.language == "es")
                .order_by(Decision.id)
            ).all()
        assert [(i, d) for i, d, _ in stored] == expected  # each once, in the order made
        assert len({r for _, _, r in stored}) == len(expected)
        assert page.locator("#progress-text").inner_text().startswith("6 of ")
        # and on as before: the next decision is saved at once
        wait_for_item(page, items[6])
        page.keyboard.press("r")
        page.wait_for_function("document.getElementById('status').textContent.includes('Saved')")
        with sessions() as s:
            assert s.scalar(select(Decision.decision).where(Decision.item_id == items[6])) == "reject"
    context.close()
    engine.dispose()


def _family(pid: int) -> list[int]:
    """`pid` and all its descendants (the server (granian) master and its workers), parents first."""
    found, k = [pid], 0
    while k < len(found):
        for task in Path(f"/proc/{found[k]}/task").glob("*/children"):
            found += [int(c) for c in task.read_text().split()]
        k += 1
    return found


class _Proxy(ThreadingHTTPServer):
    """A plain HTTP proxy in front of the real server that answers the first decision it sees
    429 (as a rate-limiting proxy would) and forwards everything else as it is."""

    daemon_threads = True

    def __init__(self, upstream_port: int):
        self.upstream_port, self.refused = upstream_port, 0
        super().__init__(("127.0.0.1", free_port()), _Forward)


class _Forward(BaseHTTPRequestHandler):
    server: _Proxy

    def _forward(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.command == "POST" and self.path.endswith("/decision") and not self.server.refused:
            self.server.refused += 1
            self.send_response(429)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "17")
            self.end_headers()
            self.wfile.write(b"Too many requests")
            return
        upstream = http.client.HTTPConnection("127.0.0.1", self.server.upstream_port)  # no timeout: SIGSTOP
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "keep-alive")}
        upstream.request(self.command, self.path, body=body or None, headers=headers)
        response = upstream.getresponse()
        data = response.read()
        self.send_response(response.status)
        for k, v in response.getheaders():
            if k.lower() not in ("connection", "keep-alive", "transfer-encoding", "content-length"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        upstream.close()

    do_GET = do_POST = _forward

    def log_message(self, *args) -> None:
        pass


# POSTs the page has sent and not yet seen settle (answered, failed or aborted): the page's own
# code runs after the count drops, so a page that gives a request up before saying "offline"
# shows 0 there
POSTS_IN_FLIGHT = """(() => {
  const original = window.fetch;
  window.__postsInFlight = 0;
  window.fetch = function (input, init) {
    const promise = original.apply(this, arguments);
    if (!init || String(init.method || "GET").toUpperCase() !== "POST") return promise;
    window.__postsInFlight++;
    return promise.finally(() => { window.__postsInFlight--; });
  };
})();"""


def test_a_refusing_proxy_and_a_hung_server_lose_nothing(chromium, sqlite_templates, tmp_path):
    """Behind a proxy that answers the first decision 429, the decision is sent again and stored
    once; then the server hangs (SIGSTOP: the connection stays open, nothing answers) and the page
    says the decisions wait instead of freezing; one undone while its request hangs is undone on
    the server too, and all are stored once, in order, when the server answers again (SIGCONT)."""
    db = tmp_path / "curator.sqlite"
    shutil.copyfile(sqlite_templates("review"), db)
    engine = make_engine(f"sqlite:///{db}")
    sessions = make_session_factory(engine)
    items = [i[0] for i in review_sample(sessions, "ana@example.org", "es")]
    proc = ServeProcess(f"sqlite:///{db}", "--workers", "1", "--threads", "4")
    context = chromium.new_context(viewport={"width": 1100, "height": 900}, bypass_csp=True)
    context.add_init_script(POSTS_IN_FLIGHT)
    page = context.new_page()

    def stored() -> list[tuple[int, str, bool]]:
        with sessions() as s:
            return [
                tuple(row)
                for row in s.execute(
                    select(Decision.item_id, Decision.decision, Decision.retracted)
                    .join(User, User.id == Decision.user_id)
                    .where(User.email == "ana@example.org", Decision.language == "es")
                    .order_by(Decision.id)
                ).all()
            ]

    with proc:
        proxy = _Proxy(proc.port)
        threading.Thread(target=proxy.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{proxy.server_address[1]}"
        stopped: list[int] = []
        try:
            page.goto(url + "/login")
            page.fill("input[name=email]", "ana@example.org")
            page.fill("input[name=password]", PASSWORD)
            page.keyboard.press("Enter")
            page.wait_for_url(url + "/")
            page.goto(url + "/review/es")
            start_reviewing(page)
            wait_for_item(page, items[0])
            page.keyboard.press("a")  # answered 429 by the proxy: sent again, not dropped
            page.wait_for_function(
                "['Back online', 'Saved'].some(t => document.getElementById('status').textContent.includes(t))"
                " || document.getElementById('status').classList.contains('error')"
            )
            assert proxy.refused == 1
            assert stored() == [(items[0], "accept", False)], page.locator("#status").inner_text()
            wait_for_item(page, items[1])
            page.wait_for_function("Number(document.getElementById('review').dataset.ahead) >= 3")

            stopped = _family(proc.process.pid)
            for pid in stopped:
                os.kill(pid, signal.SIGSTOP)  # hung: connections are accepted, nothing answers
            page.keyboard.press("a")  # its request hangs: after a moment it waits, and the page goes on
            # the page says the decision waits while its request is still open (it used to hold the
            # decision until it gave the request up, 40 s later, and only then say so): no clock here
            page.wait_for_function(WAITING, arg=1)
            assert page.evaluate("window.__postsInFlight") >= 1, "offline only after the request was given up"
            assert page.locator("#status").get_attribute("class") != "status error", page.locator(
                "#status"
            ).inner_text()
            wait_for_item(page, items[2])
            page.keyboard.press("u")  # undone while its request hangs: undone on the server once stored
            wait_for_item(page, items[1])
            page.keyboard.press("r")
            wait_for_item(page, items[2])
            page.keyboard.press("n")
            page.wait_for_function(WAITING, arg=2)
            assert page.locator("#connection").inner_text() == "Offline — 2 decisions waiting"

            for pid in reversed(stopped):  # workers first: the master finds them alive
                os.kill(pid, signal.SIGCONT)
            stopped = []
            page.wait_for_function(
                "document.getElementById('status').textContent.includes('Back online')"
                " || document.getElementById('status').classList.contains('error')"
            )
            assert page.locator("#status").inner_text() == "Back online — every decision is saved."
            assert page.evaluate(OUTBOX) == []
            assert stored() == [
                (items[0], "accept", False),
                (items[1], "accept", True),  # sent, then undone
                (items[1], "reject", False),
                (items[2], "unsure", False),
            ]
        finally:
            for pid in reversed(stopped):
                os.kill(pid, signal.SIGCONT)
            proxy.shutdown()
            proxy.server_close()
    context.close()
    engine.dispose()


def test_the_waiting_count_has_each_plural_form_of_the_language(tmp_path):
    """The page gets one form per CLDR category of its language (the browser's Intl.PluralRules
    picks one), each the catalogue's form for a number of that category."""
    from curator.web import create_app
    from curator.web.i18n import js_plurals

    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite'}", "SECRET_KEY": "k"})
    expected = {
        "en": {"one": "Offline — %(num)s decision waiting", "other": "Offline — %(num)s decisions waiting"},
        "es": {
            "one": "Sin conexión — %(num)s decisión en espera",
            "other": "Sin conexión — %(num)s decisiones en espera",
        },
        "ar": {
            "zero": "غير متصل — %(num)s قرارات في الانتظار",
            "one": "غير متصل — %(num)s قرار في الانتظار",
            "two": "غير متصل — %(num)s قراران في الانتظار",
            "few": "غير متصل — %(num)s قرارات في الانتظار",  # 3–10
            "many": "غير متصل — %(num)s قرارًا في الانتظار",  # 11–99
            "other": "غير متصل — %(num)s قرار في الانتظار",  # 100–102
        },
    }
    for locale, forms in expected.items():
        with app.test_request_context(headers={"Accept-Language": locale}):
            assert js_plurals()["Offline — %(num)s decision waiting"] == forms
    app.extensions["curator.engine"].dispose()

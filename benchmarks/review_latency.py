"""Latency of "submit a decision and load the next item" against `curator serve` (granian).

Loads the full real data (../shared/data) into a fresh database — SQLite, PostgreSQL (a
throwaway server from Debian's binaries, as the tests start it: tests/support/postgres.py), or both — creates reviewers with
full samples, starts `curator serve` in its own process group and drives it over HTTP:

| scenario            | what it shows                                                           |
|---------------------|-------------------------------------------------------------------------|
| 20 paced / 100 paced| reviewers like people: 2–4 s reading each template (target p95 < 50 ms) |
| 20, no pause        | throughput: every reviewer clicks as fast as the server answers         |
| 20 paced + loris    | the same with one slow-loris client open all the time (p95 must not move)|
| 20 paced + 40 loris | the same with 40 slow-loris clients, no proxy in front (target p95 < 1 s)|
| 20 paced + conns    | one client holding 2,000 connections that each sent one byte (re-opened) |
| 20 paced + bodies   | 600 requests announcing 1 MiB and sending all but one byte (re-opened)   |
| 20 paced + ingest   | during a full `curator ingest tuples` (a changed copy: 1M rows rewritten)|

Each table has a column "p95 / quiet": the scenario's p95 over the quiet "20 reviewers, paced"
p95 of the same run (issue 38: under the attacks within 1.5x). The attack scenarios also print
the server's memory (RSS of the process and its workers) at the start and the largest seen.

One request = POST the decision + GET the next item's context, timed together. A 503 (busy)
is retried with the same request id after Retry-After, as the review screen does, and
counted; so is a request whose connection dropped under it ("drops": a keep-alive connection
the server closed just as the client reused it — with several hosts in turn, a connection
idles longer than `--keepalive`). After each scenario the decisions stored for its request ids are counted: sent
(answered 2xx) must equal stored. Prints one table per backend; exits 1 if any scenario
lost a decision or answered 5xx; with both backends, then the ratio PostgreSQL / SQLite of
median, p95 and p99 per scenario.

`--hosts N` starts N `curator serve` processes on the same database (and, for N > 1, one
redis-server for the rate-limit counts when Debian's is installed, as docs/deploy.md's "Two or
more app hosts" has it); each reviewer sends its requests to the hosts in turn, as nginx's
round-robin upstream does.

Usage: python benchmarks/review_latency.py [--backend sqlite,postgresql] [--data ../shared/data]
       [--database URL ...] [--scale 1.0] [--workers 2 --threads 8] [--hosts 1]
       [--scenarios p20,p100,np,loris,loris40,conns,bodies,ingest]
       [--compare CHECKOUT | --wsgi [--wsgi-threads N]] [--flood]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from curator.web.testing import process_tree, tree_rss  # noqa: E402 -- once the checkout is on sys.path

RESENDS = 8  # as the review screen (review.js) resends a request whose connection dropped
LANGUAGES = ("es", "de", "fr", "ru", "ar", "el", "fi", "ja", "ko", "hi")


def cli(env: dict, *args) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "curator.cli", *map(str, args)], env=env, capture_output=True, text=True
    )
    if out.returncode:
        sys.exit(f"curator {' '.join(map(str, args))} failed:\n{out.stdout}\n{out.stderr}")
    return out.stdout


def load(env: dict, data: Path) -> float:
    t0 = time.perf_counter()
    cli(env, "init")
    cli(env, "ingest", "pararel", data / "pararel" / "patterns")
    cli(env, "ingest", "translations", data / "mpararel" / "translations")
    cli(env, "ingest", "tuples", data / "mpararel" / "tuples")
    cli(env, "candidates", "build")
    return time.perf_counter() - t0


def changed_tuples(data: Path, work: Path) -> Path:
    """A copy of the real tuples with every file changed (its last line dropped), so
    importing it rewrites every list: a full ingest, not 'unchanged, skipped'."""
    out = work / "tuples-changed"
    if out.exists():
        shutil.rmtree(out)
    for path in sorted((data / "mpararel" / "tuples").rglob("*.jsonl")):
        target = out / path.relative_to(data / "mpararel" / "tuples")
        target.parent.mkdir(parents=True, exist_ok=True)
        lines = path.read_bytes().splitlines(keepends=True)
        target.write_bytes(b"".join(lines[:-1] if len(lines) > 1 else lines))
    return out


def make_reviewers(url: str, count: int, tag: str) -> list[tuple[str, str]]:
    """(language, API token) per reviewer, each with a full (fraction 1) sample."""
    from curator.core.db import make_engine, make_session_factory, unit_of_work
    from curator.review.accounts import create_user, issue_api_token
    from curator.review.sampling import assign

    engine = make_engine(url)
    out = []
    with unit_of_work(make_session_factory(engine)) as s:
        for n in range(count):
            lang = LANGUAGES[n % len(LANGUAGES)]
            user = create_user(s, f"bench-{tag}-{n}@example.org", None)
            assign(s, user, lang, 1.0)
            out.append((lang, issue_api_token(s, user)))
    engine.dispose()
    return out


def stored(url: str, request_ids: list[str]) -> int:
    from sqlalchemy import func, select

    from curator.core.db import make_engine
    from curator.core.models import Decision

    engine = make_engine(url)
    total = 0
    with engine.connect() as conn:
        for start in range(0, len(request_ids), 500):
            total += conn.scalar(
                select(func.count())
                .select_from(Decision)
                .where(Decision.request_id.in_(request_ids[start : start + 500]))
            )
    engine.dispose()
    return total


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)  # request ids answered 2xx
    busy: int = 0  # 503s (retried)
    dropped: int = 0  # connections closed under a request (retried, as the review screen does)
    errors: list[str] = field(default_factory=list)  # other 5xx / failures
    lock: threading.Lock = field(default_factory=threading.Lock)


def reviewer(
    bases: list[str],
    lang: str,
    token: str,
    tag: str,
    items: int,
    pause: tuple[float, float],
    start: threading.Barrier,
    stop: threading.Event,
    tally: Tally,
) -> None:
    http = requests.Session()
    http.headers["Authorization"] = f"Bearer {token}"
    turn = iter(range(1 << 62))

    def api() -> str:  # the next host, round robin (one host: always the same)
        return f"{bases[next(turn) % len(bases)]}/api/v1/languages/{lang}"

    def send(method: str, path: str, **kwargs) -> requests.Response:
        """A request, resent (same body) when the connection drops under it, like review.js:
        a keep-alive connection the server closes just as the client reuses it."""
        for attempt in range(RESENDS + 1):
            try:
                return http.request(method, f"{api()}{path}", timeout=120, **kwargs)
            except requests.ConnectionError:
                if attempt == RESENDS:
                    raise
                with tally.lock:
                    tally.dropped += 1
                time.sleep(0.5)

    current = send("GET", "/queue").json()["next"]
    start.wait()
    rng = random.Random(token)
    time.sleep(rng.uniform(0, pause[1]))  # reviewers do not all click at the same instant
    k = 0
    while current is not None and (k < items or (items == 0 and not stop.is_set())):
        request_id = f"{tag}-{token[:12]}-{k}"
        t0 = time.perf_counter()
        body = {"decision": ("accept", "reject")[k % 2], "seconds": 5, "request_id": request_id}
        try:
            r = decide(send, f"/items/{current}/decision", body, tally)
        except requests.RequestException as exc:
            with tally.lock:
                tally.errors.append(repr(exc))
            return
        if r.status_code >= 300:
            with tally.lock:
                tally.errors.append(f"{r.status_code} {r.text[:100]}")
            return
        current = r.json()["next"]
        ok = True
        if current is not None:
            try:
                ok = send("GET", f"/items/{current}").status_code == 200
            except requests.RequestException:
                ok = False
        elapsed = (time.perf_counter() - t0) * 1000
        with tally.lock:
            tally.sent.append(request_id)
            tally.latencies.append(elapsed)
            if not ok:
                tally.errors.append("GET next item failed")
        k += 1
        time.sleep(rng.uniform(*pause))


def decide(send, path: str, body: dict, tally: Tally) -> requests.Response:
    """POST a decision; a 503 (busy) is sent again with the same request id after Retry-After,
    as the review screen does, and counted."""
    while True:
        r = send("POST", path, json=body)
        if r.status_code != 503:
            return r
        with tally.lock:
            tally.busy += 1
        time.sleep(float(r.headers.get("Retry-After", 1)))


def slow_loris(port: int, stop: threading.Event, cut_off: list[int], lock: threading.Lock) -> None:
    """One client that always holds a connection open with half a request, trickling a
    byte now and then; when the server cuts it off it opens the next one."""
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
                sock.sendall(b"POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
                while not stop.wait(0.5) and still_open(sock):
                    sock.send(b" ")
        except OSError:
            pass
        if not stop.is_set():
            with lock:
                cut_off[0] += 1


def still_open(sock: socket.socket) -> bool:
    """Neither answered (a 408) nor closed by the server yet: a peek that does not wait."""
    try:
        sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except BlockingIOError:
        return True
    except OSError:
        pass
    return False


def hold(port: int, count: int, stop: threading.Event, box: dict, send, counted: str, again: float = 0.0) -> None:
    """One client holding `count` connections, each given `send(sock)`; each one the server
    answers or closes is counted in `box[counted]` and opened again, `again` seconds later."""
    import selectors

    chooser = selectors.DefaultSelector()

    def open_one() -> None:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            send(sock)
            chooser.register(sock, selectors.EVENT_READ)
        except OSError:
            box["failed"] = box.get("failed", 0) + 1

    for _ in range(count):
        open_one()
    while not stop.is_set():
        answered = chooser.select(0.2)
        for key, _ in answered:
            chooser.unregister(key.fileobj)
            key.fileobj.close()  # type: ignore[union-attr]
            box[counted] = box.get(counted, 0) + 1
        if answered and (not again or not stop.wait(again)):
            for _ in answered:
                open_one()
    for key in list(chooser.get_map().values()):
        key.fileobj.close()  # type: ignore[union-attr]


def connection_hog(port: int, count: int, stop: threading.Event, box: dict) -> None:
    """`count` connections that each sent one byte; each one the server closes is opened again
    at once (the finding: ~2,200 took every connection slot)."""
    hold(port, count, stop, box, lambda sock: sock.sendall(b"G"), "reopened")


MIB = 1 << 20


def body_stallers(port: int, count: int, stop: threading.Event, box: dict, flood: bool = False) -> None:
    """`count` requests announcing 1 MiB bodies and sending all but one byte; each one the
    server answers (503 over its budget, 408 after the read timeout) or closes is sent again
    a second later (--flood: at once, a bandwidth flood whose cost on these shared cores is
    mostly the client's own copying)."""
    head = (
        f"POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {MIB}\r\n\r\n"
    ).encode()
    body = b"x" * (MIB - 1)

    def send(sock: socket.socket) -> None:
        sock.sendall(head)
        with contextlib.suppress(OSError):  # refused and closed meanwhile
            sock.sendall(body)

    hold(port, count, stop, box, send, "answered", again=0.0 if flood else 1.0)


def tree_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds (user, system) used so far by a process and its descendants (/proc)."""
    user, system = 0.0, 0.0
    for current in process_tree(pid):
        try:
            with open(f"/proc/{current}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        user += int(fields[11]) / os.sysconf("SC_CLK_TCK")
        system += int(fields[12]) / os.sysconf("SC_CLK_TCK")
    return user, system


def attack(server, target, count: int):
    """A scenario's companion: `target(port, count, stop, box)` on a thread, and the server's
    memory (process and workers) sampled every half second into the box, with the CPU seconds
    the server and this client (attacker and reviewers) used meanwhile."""

    def start(stop: threading.Event) -> dict:
        assert server.process is not None
        pid = server.process.pid
        box = {"rss_start": tree_rss(pid), "rss_max": 0, "cpu_server": (0.0, 0.0), "cpu_client": 0.0, "cpu_wall": 0.0}
        began = (tree_cpu(pid), time.process_time(), time.perf_counter())

        def watch() -> None:
            while not stop.wait(0.5):
                box["rss_max"] = max(box["rss_max"], tree_rss(pid))
                box["cpu_server"] = tuple(now - then for now, then in zip(tree_cpu(pid), began[0]))
                box["cpu_client"] = time.process_time() - began[1]
                box["cpu_wall"] = time.perf_counter() - began[2]

        threading.Thread(target=target, args=(server.port, count, stop, box), daemon=True).start()
        threading.Thread(target=watch, daemon=True).start()
        return box

    return start


def scenario(
    bases: list[str],
    url: str,
    reviewers: list[tuple[str, str]],
    tag: str,
    items: int,
    pause: tuple[float, float],
    during=None,
) -> dict:
    tally, stop = Tally(), threading.Event()
    start = threading.Barrier(len(reviewers) + 1)
    threads = [
        threading.Thread(target=reviewer, args=(bases, lang, tok, f"{tag}{n}", items, pause, start, stop, tally))
        for n, (lang, tok) in enumerate(reviewers)
    ]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    extra = during(stop) if during else None
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    stop.set()
    return dict(tally=tally, wall=wall, stored=stored(url, tally.sent), extra=extra)


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, max(0, round(q * len(sorted_values)) - 1))]


def postgres():
    """A throwaway PostgreSQL server for the run (the tests' tests/support/postgres.py); None without binaries."""
    from tests.support.postgres import Server

    try:
        server = Server().start()
    except FileNotFoundError:
        return None
    server.admin("CREATE DATABASE bench")
    return server


def run_backend(
    name: str, url: str, opts, data: Path, work: Path, loaded: bool, serve_from: str | None = None, wsgi: bool = False
) -> tuple[list, bool]:
    env = {**os.environ, "CURATOR_DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    if not loaded:
        print(f"[{name}] loading the full real dataset…", file=sys.stderr)
        print(f"[{name}] loaded in {load(env, data):.0f} s", file=sys.stderr)
    scale = opts.scale
    run = f"{int(time.time())}"  # an already loaded database (--database) may hold earlier runs' reviewers
    groups = {
        key: make_reviewers(url, count, f"{name}-{key}-{run}")
        for key, count in (
            ("p20", 20),
            ("p100", 100),
            ("np", 20),
            ("loris", 20),
            ("loris40", 20),
            ("conns", 20),
            ("bodies", 20),
            ("ingest", 20),
        )
    }
    tuples_copy = changed_tuples(data, work) if "ingest" in opts.scenarios.split(",") else None
    from contextlib import ExitStack

    results = []
    serve_env = {"CURATOR_SECRET_KEY": "bench"}
    if serve_from:  # the server from another checkout (--compare): the same database, machine and run
        serve_env["PYTHONPATH"] = serve_from
    with ExitStack() as stack:
        if opts.hosts > 1:
            from tests.support.redis_server import RedisServer

            try:
                store = RedisServer().start()
            except FileNotFoundError:
                print(f"[{name}] no redis-server: each host counts rate limits alone", file=sys.stderr)
            else:
                stack.callback(store.stop)
                serve_env["CURATOR_RATELIMIT_STORAGE"] = store.url
        servers = [stack.enter_context(serve_process(url, opts, serve_env, wsgi)) for _ in range(opts.hosts)]
        bases = [server.url for server in servers]
        server = servers[0]
        paced = (2.0, 4.0)
        runs = [
            ("20 reviewers, paced", groups["p20"], int(20 * scale), paced, None),
            ("100 reviewers, paced", groups["p100"], int(12 * scale), paced, None),
            ("20 reviewers, no pause", groups["np"], int(40 * scale), (0.0, 0.0), None),
        ]

        def lorises(count):
            def start(stop):
                cut, lock = [0], threading.Lock()
                for _ in range(count):
                    threading.Thread(target=slow_loris, args=(server.port, stop, cut, lock), daemon=True).start()
                return cut

            return start

        def ingest(stop):
            box = {}

            def go():
                t0 = time.perf_counter()
                out = subprocess.run(
                    [sys.executable, "-m", "curator.cli", "ingest", "tuples", str(tuples_copy)],
                    env=env,
                    capture_output=True,
                    text=True,
                )
                box.update(seconds=time.perf_counter() - t0, rc=out.returncode, out=(out.stdout + out.stderr)[-300:])
                stop.set()  # the reviewers stop when the ingest is done

            threading.Thread(target=go, daemon=True).start()
            return box

        runs += [
            ("20 paced + slow-loris", groups["loris"], int(20 * scale), paced, lorises(1)),
            ("20 paced + 40 slow-loris", groups["loris40"], int(20 * scale), paced, lorises(40)),
            ("20 paced + 2,000 conns", groups["conns"], int(20 * scale), paced, attack(server, connection_hog, 2000)),
            (
                "20 paced + 600 1 MiB bodies",
                groups["bodies"],
                int(20 * scale),
                paced,
                attack(server, functools.partial(body_stallers, flood=opts.flood), 600),
            ),
            ("20 paced + tuples ingest", groups["ingest"], 0, paced, ingest),
        ]
        keys = ("p20", "p100", "np", "loris", "loris40", "conns", "bodies", "ingest")
        runs = [run for key, run in zip(keys, runs) if key in opts.scenarios.split(",")]
        for label, group, items, pause, during in runs:
            print(f"[{name}] {label}…", file=sys.stderr)
            results.append((label, scenario(bases, url, group, f"{name[:2]}{len(results)}", items, pause, during)))
    return results, print_table(name, results, opts, server_label(opts, serve_from, wsgi))


def server_label(opts, serve_from: str | None, wsgi: bool) -> str:
    if wsgi:
        return f"granian's own WSGI interface, no glue, {opts.wsgi_threads or opts.threads} blocking threads"
    return f"from {serve_from}" if serve_from else "this checkout"


def serve_process(url: str, opts, env: dict, wsgi: bool):
    """`curator serve` (granian's RSGI interface and curator.web.server's glue); with `wsgi`,
    granian's own WSGI interface running the same app on the same settings (--wsgi): as many
    connections per worker, the same header read timeout (CURATOR_READ_TIMEOUT's default 10 s),
    `--wsgi-threads` blocking threads (default: --threads) calling the app."""
    from curator.web.server import connection_limit
    from curator.web.testing import ServeProcess

    if not wsgi:
        return ServeProcess(url, "--workers", str(opts.workers), "--threads", str(opts.threads), env=env)
    server = ServeProcess(url, env={**env, "CURATOR_DATABASE_URL": url})
    server.command = [
        *(sys.executable, "-m", "granian", "--interface", "wsgi", "--factory", "--http", "1"),
        *("--host", "127.0.0.1", "--port", str(server.port), "--workers", str(opts.workers)),
        *("--blocking-threads", str(opts.wsgi_threads or opts.threads), "--backpressure", str(connection_limit())),
        *("--http1-header-read-timeout", "10000", "curator.web:create_app"),
    ]
    return server


def print_table(name: str, results: list, opts, label: str) -> bool:
    """One backend's table; False if a scenario lost a decision, answered 5xx or its ingest failed."""
    healthy = True
    hosts = f"{opts.hosts} x " if opts.hosts > 1 else ""
    print(
        f"\n{name}: {hosts}curator serve ({label}, "
        f"{opts.workers} workers x {opts.threads} threads), "
        f"{os.cpu_count()} cores shared with the client threads; load average at the end "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(
        f"{'scenario':<26} {'requests':>8} {'median ms':>9} {'p95 ms':>7} {'p99 ms':>7} {'max ms':>7} "
        f"{'dec/s':>6} {'503s':>5} {'drops':>5} {'5xx/err':>7} {'sent=stored':>11} {'p95 / quiet':>11}"
    )
    quiet = next((sorted(r["tally"].latencies) for label, r in results if label == "20 reviewers, paced"), [])
    for label, r in results:
        t = r["tally"]
        lat = sorted(t.latencies) or [float("nan")]
        same = len(t.sent) == r["stored"]
        healthy &= same and not t.errors
        print(
            f"{label:<26} {len(t.latencies):>8} {statistics.median(lat):>9.1f} {percentile(lat, 0.95):>7.1f} "
            f"{percentile(lat, 0.99):>7.1f} {lat[-1]:>7.1f} {len(t.latencies) / r['wall']:>6.1f} {t.busy:>5} {t.dropped:>5} "
            f"{len(t.errors):>7} {str(len(t.sent)) + ('=' if same else '≠') + str(r['stored']):>11} "
            f"{(f'{percentile(lat, 0.95) / percentile(quiet, 0.95):.2f}x' if quiet else '-'):>11}"
        )
        healthy &= print_extra(r["extra"])
        for err in t.errors[:3]:
            print(f"{'':<26} error: {err}")
    return healthy


def print_extra(extra) -> bool:
    """What a scenario's companion did (attack, slow-loris, ingest); False if the ingest failed."""
    if isinstance(extra, dict) and "rss_start" in extra:
        counts = ", ".join(f"{k} {v}" for k, v in extra.items() if not k.startswith(("rss", "cpu")))
        print(
            f"{'':<26} server RSS {extra['rss_start'] / MIB:.0f} MiB at the start, at most "
            f"{max(extra['rss_max'], extra['rss_start']) / MIB:.0f} MiB; {counts or 'nothing closed'}"
        )
        print(
            f"{'':<26} CPU over {extra['cpu_wall']:.0f} s: server {sum(extra['cpu_server']):.0f} s "
            f"(user {extra['cpu_server'][0]:.0f}, system {extra['cpu_server'][1]:.0f}), "
            f"this client (attacker and reviewers) {extra['cpu_client']:.0f} s, on {os.cpu_count()} cores"
        )
    elif isinstance(extra, dict):
        print(f"{'':<26} ingest: {extra.get('seconds', 0):.0f} s, exit {extra.get('rc')}")
        return extra.get("rc") == 0
    elif extra is not None:
        print(f"{'':<26} slow-loris connections cut off by the server: {extra[0]}")
    return True


def ratios(postgresql: list, sqlite: list) -> None:
    """PostgreSQL against SQLite, scenario by scenario, from the same run (same machine, same load)."""
    print("\nPostgreSQL / SQLite, same run:")
    print(f"{'scenario':<26} {'median':>7} {'p95':>7} {'p99':>7}")
    for (label, pg), (_, lite) in zip(postgresql, sqlite):
        a, b = sorted(pg["tally"].latencies), sorted(lite["tally"].latencies)
        if a and b:
            print(
                f"{label:<26} {statistics.median(a) / statistics.median(b):>6.2f}x "
                f"{percentile(a, 0.95) / percentile(b, 0.95):>6.2f}x {percentile(a, 0.99) / percentile(b, 0.99):>6.2f}x"
            )


def compare(before: list, now: list, name: str, other: str = "--compare checkout") -> None:
    """This checkout's server against the other one (checkout, or granian's WSGI mode), scenario by scenario, same run."""
    print(f"\n{name}: this checkout / {other}, same run:")
    print(f"{'scenario':<26} {'p95 before':>10} {'p95 now':>8} {'ratio':>7}")
    for (label, old), (_, new) in zip(before, now):
        a, b = sorted(new["tally"].latencies), sorted(old["tally"].latencies)
        if a and b:
            print(
                f"{label:<26} {percentile(b, 0.95):>10.1f} {percentile(a, 0.95):>8.1f} {percentile(a, 0.95) / percentile(b, 0.95):>6.2f}x"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="sqlite,postgresql", help="comma-separated: sqlite, postgresql")
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument(
        "--database",
        action="append",
        default=[],
        help="an already loaded database, used instead of loading one for its backend (sqlite:… or "
        "postgresql…); may be given once per backend",
    )
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the decisions per reviewer")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--hosts", type=int, default=1, help="curator serve processes on the one database")
    parser.add_argument(
        "--flood", action="store_true", help="bodies: send each refused body again at once, not a second later"
    )
    parser.add_argument(
        "--compare",
        metavar="CHECKOUT",
        help="also serve from this checkout (PYTHONPATH; e.g. a worktree before issue 38) first, "
        "on the same database, and print p95 now / before per scenario",
    )
    parser.add_argument(
        "--wsgi",
        action="store_true",
        help="also serve with granian's own WSGI interface (no glue) first, on the same database, and "
        "print p95 glue / WSGI per scenario (docs/deploy.md: why the glue)",
    )
    parser.add_argument("--wsgi-threads", type=int, default=0, help="--wsgi: blocking threads (default: --threads)")
    parser.add_argument(
        "--scenarios",
        default="p20,p100,np,loris,loris40,conns,bodies,ingest",
        help="comma-separated subset: p20 p100 (paced), np (no pause), loris (1 slow-loris), "
        "loris40 (40 slow-loris), conns (2,000 held connections), bodies (600 stalled 1 MiB bodies), ingest",
    )
    opts = parser.parse_args()
    data = Path(opts.data)
    if not (data / "mpararel" / "tuples").is_dir():
        sys.exit(f"real data not found at {data}")
    work = Path(tempfile.mkdtemp(prefix="curator-latency-"))
    healthy, measured = True, {}
    try:
        given = {("sqlite" if u.startswith("sqlite") else "postgresql"): u for u in opts.database}
        for name in opts.backend.split(","):
            if name in given:
                url = given[name]
            elif name == "sqlite":
                url = f"sqlite:///{work / 'bench.sqlite'}"
            else:
                server = postgres()
                if server is None:
                    print("postgresql: skipped (no server binaries: apt-get install postgresql)")
                    continue
                url = server.url("bench")
            try:
                loaded = name in given
                if opts.compare or opts.wsgi:  # first the other server (before issue 38; WSGI), then this one
                    before, _ = run_backend(
                        name, url, opts, data, work, loaded=loaded, serve_from=opts.compare, wsgi=opts.wsgi
                    )
                    loaded = True
                measured[name], ok = run_backend(name, url, opts, data, work, loaded=loaded)
                healthy &= ok
                if opts.compare or opts.wsgi:
                    compare(before, measured[name], name, "granian WSGI" if opts.wsgi else "--compare checkout")
            finally:
                if name == "postgresql" and name not in given:
                    server.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if "sqlite" in measured and "postgresql" in measured:
        ratios(measured["postgresql"], measured["sqlite"])
    print("\npaced = 2–4 s per template (people read); a decision's request = POST decision + GET next item.")
    sys.exit(0 if healthy else 1)


if __name__ == "__main__":
    main()

"""Latency of "submit a decision and load the next item" on the full real dataset.

Loads ../shared/data into a fresh SQLite file (or reuses --database), creates reviewers with
their samples, starts `curator serve` in its own process and drives it over HTTP with 1 and
then 20 concurrent reviewers (one thread each). Prints median, p95 and max per scenario.

Usage: python benchmarks/review_latency.py [--data ../shared/data] [--database URL] [--items 60]
(--database postgresql+psycopg://…: an already loaded PostgreSQL database, see README "PostgreSQL")
"""
from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = ("es", "de", "fr", "ru", "ar", "el", "fi", "ja", "ko", "hi")


def cli(env: dict, *args) -> str:
    out = subprocess.run([sys.executable, "-m", "curator.cli", *map(str, args)], env=env, capture_output=True,
                         text=True)
    if out.returncode:
        sys.exit(f"curator {' '.join(map(str, args))} failed:\n{out.stdout}\n{out.stderr}")
    return out.stdout


def load(env: dict, data: Path) -> None:
    cli(env, "init")
    cli(env, "ingest", "pararel", data / "pararel" / "patterns")
    cli(env, "ingest", "translations", data / "mpararel" / "translations")
    cli(env, "ingest", "tuples", data / "mpararel" / "tuples")
    cli(env, "candidates", "build")


def make_reviewers(env: dict, count: int, tag: str) -> list[tuple[str, str]]:
    """(language, API token) per reviewer, each with a full (fraction 1) sample."""
    from curator.core.db import make_engine, make_session_factory, transaction
    from curator.review.accounts import create_user, issue_api_token
    from curator.review.sampling import assign

    engine = make_engine(env["CURATOR_DATABASE_URL"])
    out = []
    with transaction(make_session_factory(engine)) as s:
        for n in range(count):
            lang = LANGUAGES[n % len(LANGUAGES)]
            user = create_user(s, f"bench-{tag}-{n}-{time.time_ns()}@example.org", None)
            assign(s, user, lang, 1.0)
            out.append((lang, issue_api_token(s, user)))
    engine.dispose()
    return out


def reviewer(base: str, lang: str, token: str, items: int, start: threading.Barrier, out: list[float],
             pause: float) -> None:
    http = requests.Session()
    http.headers["Authorization"] = f"Bearer {token}"
    api = f"{base}/api/v1/languages/{lang}"
    queue = http.get(f"{api}/queue", timeout=60).json()
    current = queue["next"]
    start.wait()
    rng = random.Random(token)
    time.sleep(rng.uniform(0, pause))  # reviewers do not all click at the same instant
    for k in range(items):
        if current is None:
            break
        t0 = time.perf_counter()
        r = http.post(f"{api}/items/{current}/decision", json={"decision": ("accept", "reject")[k % 2],
                                                              "seconds": 5}, timeout=60)
        r.raise_for_status()
        current = r.json()["next"]
        if current is not None:
            http.get(f"{api}/items/{current}", timeout=60).raise_for_status()
        out.append((time.perf_counter() - t0) * 1000)
        time.sleep(rng.uniform(0.5 * pause, 1.5 * pause))  # reading the next template


def scenario(base: str, reviewers: list[tuple[str, str]], items: int, pause: float = 0.0
             ) -> tuple[list[float], float]:
    latencies: list[float] = []
    start = threading.Barrier(len(reviewers) + 1)
    threads = [threading.Thread(target=reviewer, args=(base, lang, tok, items, start, latencies, pause))
               for lang, tok in reviewers]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    return latencies, time.perf_counter() - t0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--database", default=None, help="an already loaded database (skips the ingest)")
    parser.add_argument("--items", type=int, default=60, help="decisions per reviewer")
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="curator-latency-"))
    url = opts.database or f"sqlite:///{work / 'bench.sqlite'}"
    env = {**os.environ, "CURATOR_DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    if not opts.database:
        print("loading the full real dataset…", file=sys.stderr)
        load(env, Path(opts.data))
    single = make_reviewers(env, 1, "one")
    many = make_reviewers(env, 20, "many")
    paced = make_reviewers(env, 20, "paced")
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "curator.cli", "serve", "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                requests.get(base + "/healthz", timeout=1)
                break
            except requests.RequestException:
                time.sleep(0.1)
        results = [("1 reviewer", *scenario(base, single, opts.items * 3)),
                   ("20 reviewers, ~1 s pause", *scenario(base, paced, opts.items // 2, pause=1.0)),
                   ("20 reviewers, no pause", *scenario(base, many, opts.items))]
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"{'scenario':<24} {'requests':>8} {'median ms':>10} {'p95 ms':>8} {'max ms':>8} {'decisions/s':>12}")
    for name, lat, wall in results:
        lat.sort()
        p95 = lat[max(0, int(round(0.95 * len(lat))) - 1)]
        print(f"{name:<24} {len(lat):>8} {statistics.median(lat):>10.1f} {p95:>8.1f} {lat[-1]:>8.1f}"
              f" {len(lat) / wall:>12.1f}")
    print("one request = POST decision + GET next item context; a real reviewer pauses ~20 s per template, so\n"
          "'no pause' is a stress test of throughput. Server: curator serve (werkzeug, threaded), "
          f"{'PostgreSQL' if url.startswith('postgresql') else 'SQLite'};"
          f" cores: {os.cpu_count()} (shared with the 20 client threads)")


if __name__ == "__main__":
    main()

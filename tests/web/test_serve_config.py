"""`curator serve` refuses a setting that would stop every worker, in one line, before it forks;
a worker that fails to boot anyway stops the whole server instead of a restart loop.

Each test runs the real command (the ServeProcess command line) and waits for it to exit by
itself: before these fixes it kept running (gunicorn restarting workers that died the same
way), so the guard timeout below would fail the test.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from curator.web.testing import ServeProcess, free_port

GUARD = 120  # s; only a server that never stops reaches it (the failure these tests catch)


def serve(db_url: str, *args: str, env: dict | None = None, python: list[str] | None = None):
    """Run `curator serve` to its exit; (exit code, output lines)."""
    proc = ServeProcess(db_url, "--workers", "1", "--threads", "2", *args, env=env)
    command = [*(python or [sys.executable, "-m", "curator.cli"]), *proc.command[3:]]
    try:
        out = subprocess.run(command, env=proc.env, capture_output=True, text=True, timeout=GUARD)
    except subprocess.TimeoutExpired as exc:
        tail = (exc.stderr or b"")[-2000:].decode(errors="replace")
        pytest.fail(f"curator serve still running after {GUARD} s (a restart loop?): …{tail}")
    return out.returncode, (out.stdout + out.stderr).strip().splitlines()


def test_unreachable_redis_is_one_line(engine, db_url):
    port = free_port()  # nothing listens there
    code, lines = serve(db_url, env={"CURATOR_RATELIMIT_STORAGE": f"redis://:hunter2@127.0.0.1:{port}/0"})
    assert code == 1
    assert len(lines) == 1, lines
    assert lines[0].startswith(
        f"Error: CURATOR_RATELIMIT_STORAGE=redis://:***@127.0.0.1:{port}/0: cannot reach the store: "
    ), lines
    assert "hunter2" not in lines[0]  # the password is never printed


def test_unknown_scheme_is_one_line(engine, db_url):
    code, lines = serve(db_url, env={"CURATOR_RATELIMIT_STORAGE": "reddis://localhost:6379"})
    assert code == 1
    assert lines == [
        "Error: CURATOR_RATELIMIT_STORAGE=reddis://localhost:6379: unknown storage scheme 'reddis': "
        "memory:// counts in one process, redis://host:6379 is shared by every worker and host"
    ]


def test_missing_redis_client_is_one_line(engine, db_url, tmp_path):
    """The measured failure: redis:// without the `redis` package killed every worker at boot and
    gunicorn restarted them forever. A `redis` package that cannot be imported stands in for it."""
    shadow = tmp_path / "shadow" / "redis"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('not installed (test)')\n")
    path = os.pathsep.join(filter(None, [str(shadow.parent), os.environ.get("PYTHONPATH")]))
    code, lines = serve(db_url, env={"CURATOR_RATELIMIT_STORAGE": "redis://127.0.0.1:6379", "PYTHONPATH": path})
    assert code == 1
    assert len(lines) == 1, lines
    assert lines[0].startswith(
        "Error: CURATOR_RATELIMIT_STORAGE=redis://127.0.0.1:6379: 'redis' prerequisite not available"
    ), lines


def test_storage_without_the_limiters_strategy(engine, db_url):
    code, lines = serve(db_url, env={"CURATOR_RATELIMIT_STORAGE": "async+memory://"})
    assert (code, lines) == (1, ["Error: CURATOR_RATELIMIT_STORAGE=async+memory://: not a synchronous storage"])


def test_unparsable_limit_is_one_line(engine, db_url):
    """Flask-Limiter skips a limit it cannot parse: sign-in would have had no limit at all."""
    code, lines = serve(db_url, env={"CURATOR_RATELIMIT_ACCOUNT": "10 a minute"})
    assert (code, lines) == (
        1,
        ["Error: CURATOR_RATELIMIT_ACCOUNT=10 a minute: not a rate limit (expected e.g. 10/minute;50/hour)"],
    )


def test_beyond_loopback_needs_a_secret_key(engine, db_url):
    proc = ServeProcess(db_url, "--host", "0.0.0.0")
    proc.env.pop("CURATOR_SECRET_KEY", None)
    out = subprocess.run(proc.command, env=proc.env, capture_output=True, text=True, timeout=GUARD)
    lines = (out.stdout + out.stderr).strip().splitlines()
    assert out.returncode == 1
    assert len(lines) == 1 and lines[0].startswith(
        "Error: CURATOR_SECRET_KEY: not set, and the server listens on 0.0.0.0"
    ), lines


BOOT_FAILS_IN_WORKERS = """
import os, sys
import curator.web
master, real = os.getpid(), curator.web.create_app
def create_app(settings):  # the check in the master passes; every worker fails to boot
    if os.getpid() != master:
        raise RuntimeError("boot failure (test)")
    return real(settings)
curator.web.create_app = create_app
from curator.cli import main
sys.argv[0] = "curator"
main()
"""


def test_worker_boot_failure_stops_the_server(engine, db_url):
    code, lines = serve(db_url, "--workers", "2", python=[sys.executable, "-c", BOOT_FAILS_IN_WORKERS])
    text = "\n".join(lines)
    assert code == 1, text
    assert lines[-1] == ("Error: a worker stopped unexpectedly, so the server stopped (exit 1); see the log above"), (
        text
    )
    assert "boot failure (test)" in text
    # the first worker that dies stops the server: no worker is started twice (no restart loop)
    assert text.count("Spawning worker") == 2, text


def test_unusable_database_url_is_one_line(tmp_path):
    code, lines = serve("nonsense://x")
    assert code == 1
    assert lines == [
        "Error: CURATOR_DATABASE_URL (or --database): not a database URL curator can use: "
        "Can't load plugin: sqlalchemy.dialects:nonsense"
    ], lines


def test_read_only_redis_is_one_line(engine, db_url, redis_server):
    """A replica (or a read-only ACL user) answers reads but refuses every count: each rate
    limit would fail and fall back to per-process counting, silently. Checked with a write."""
    client = redis_server.client()
    client.execute_command("REPLICAOF", "127.0.0.1", str(free_port()))  # a master that never answers
    try:
        assert client.get("curator/preflight") is None  # reads still answered (stale data served)
        code, lines = serve(db_url, env={"CURATOR_RATELIMIT_STORAGE": redis_server.url})
    finally:
        client.execute_command("REPLICAOF", "NO", "ONE")
    assert code == 1
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"Error: CURATOR_RATELIMIT_STORAGE={redis_server.url}: the store refuses writes: "), (
        lines
    )


def test_a_bad_serve_variable_is_one_line(tmp_path):
    """`curator serve`'s variables are read with every other setting (core.settings): a bad one
    is one line naming it (it was click's three-line usage error)."""
    code, lines = serve(f"sqlite:///{tmp_path / 'x.sqlite'}", env={"CURATOR_WORKERS": "0"})
    assert (code, lines) == (1, ["Error: CURATOR_WORKERS: expected a number of processes, from 1 to 64, not '0'"])


def test_serve_takes_its_defaults_from_the_settings(engine, db_url):
    """Without options, `curator serve` listens, forks and threads as the Settings say (here
    from CURATOR_PORT, CURATOR_WORKERS, CURATOR_THREADS), and its help names each default."""
    from click.testing import CliRunner

    from curator.cli import main
    from curator.core.settings import ENV, default

    proc = ServeProcess(db_url, env={"CURATOR_WORKERS": "1", "CURATOR_THREADS": "3"})
    at = proc.command.index("--port")
    del proc.command[at : at + 2]
    proc.env["CURATOR_PORT"] = str(proc.port)
    with proc:
        log = proc.read_log()
    assert f"serving on http://127.0.0.1:{proc.port} (1 workers x 3 threads)" in log, log
    help_text = " ".join(CliRunner().invoke(main, ["serve", "--help"], terminal_width=1000).output.split())
    for name in ("host", "port", "workers", "threads", "graceful_timeout", "read_timeout"):
        assert f"[default: ${ENV[name]}, else {default(name)}]" in help_text, name


def test_rate_limits_switched_off_still_serve(engine, db_url):
    """CURATOR_RATELIMIT_ENABLED=0 (a deployment limiting at its proxy): the check before the
    fork built the app without a limiter store and then tried to close that store (a traceback)."""
    import urllib.request

    with ServeProcess(db_url, "--workers", "1", env={"CURATOR_RATELIMIT_ENABLED": "0"}) as server:
        with urllib.request.urlopen(server.url + "/healthz", timeout=GUARD) as response:
            assert response.status == 200

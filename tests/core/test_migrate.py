"""The app factory serves the overview pages, and the migrations match the models."""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import threading
import time

import pytest
import requests
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from curator.core.models import Base
from curator.web import create_app
from tests.conftest import ROOT
from tests.plugins.servers import Browser, csrf_from

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_overview_pages_on_the_seed(review_app):
    boss = Browser(review_app).login("boss@example.org")
    page = boss.get("/admin/coverage").get_data(as_text=True)
    for code in ("ar", "el", "en", "es"):
        assert f'href="/admin/languages/{code}"' in page
    arabic = boss.get("/admin/languages/ar").get_data(as_text=True)
    assert 'dir="rtl"' in arabic and 'lang="ar"' in arabic and "[X]" in arabic
    assert review_app.test_client().get("/healthz").get_json() == {"status": "ok"}


def test_demo_users_can_sign_in(cli, db_url):
    out = cli("seed", "--demo-users", "--demo-password", "demo-pass-1").output
    assert "reviewer@demo.invalid / demo-pass-1" in out
    cli("seed", "--demo-users", "--demo-password", "demo-pass-1")  # safe to re-run
    app = create_app({"DATABASE_URL": db_url})
    reviewer = Browser(app).login("reviewer@demo.invalid", "demo-pass-1")
    home = reviewer.get("/").get_data(as_text=True)
    assert "Spanish" in home and "Arabic" in home


def test_serve_command_answers_over_http(cli, db_url, tmp_path):
    """`curator --database URL serve --port N` in its own process: the app on that port, on that
    database (a demo user signs in with a real form post and sees the seed's languages)."""
    cli("seed", "--demo-users", "--demo-password", "demo-pass-1")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "CURATOR_INSTANCE_PATH": str(tmp_path / "instance"),
        "CURATOR_RUNS_DIR": str(tmp_path / "runs"),
    }
    env.pop("CURATOR_DATABASE_URL", None)
    server = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from curator.cli import main; main()",
            "--database",
            db_url,
            "serve",
            "--port",
            str(port),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    output = OutputLines(server)
    try:
        # granian logs "Listening at" once it has checked the address; on Linux each worker then
        # binds its own socket (SO_REUSEPORT) once it has built the app, so the test waits until
        # one accepts a connection, however long a busy machine takes to get there
        output.wait_for(f"Listening at: {base}")
        deadline = time.monotonic() + GUARD
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=GUARD).close()
                break
            except ConnectionRefusedError:
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail(f"no worker accepted within {GUARD} s: {''.join(output.seen)}")
                time.sleep(0.1)
        web = requests.Session()
        page = web.get(f"{base}/login", timeout=GUARD)
        assert page.status_code == 200 and 'name="password"' in page.text
        signed_in = web.post(
            f"{base}/login",
            data={"email": "reviewer@demo.invalid", "password": "demo-pass-1", "csrf_token": csrf_from(page.text)},
            timeout=GUARD,
        )
        assert signed_in.status_code == 200 and signed_in.url == f"{base}/", signed_in.text
        assert "Spanish" in signed_in.text and "Arabic" in signed_in.text
        assert web.get(f"{base}/healthz", timeout=GUARD).json() == {"status": "ok"}
    finally:
        server.terminate()
        server.wait(timeout=GUARD)
        output.thread.join(timeout=GUARD)
        server.stdout.close()


# Only a guard against a hang, never a measure of speed: a step that needs it has failed anyway.
GUARD = 300


class OutputLines:
    """A child's output, read line by line in a thread (so the pipe never fills and stalls it)."""

    def __init__(self, process: subprocess.Popen):
        self.process = process
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)  # the child closed its output: it has exited

    def wait_for(self, text: str) -> None:
        deadline = time.monotonic() + GUARD
        while not any(text in line for line in self.seen):
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no line with {text!r} within {GUARD} s: {''.join(self.seen)}")
            if line is None:
                pytest.fail(f"the server exited ({self.process.wait()}) before {text!r}: {''.join(self.seen)}")
            self.seen.append(line)


@pytest.mark.backends("sqlite")
def test_sqlite_runs_with_wal_and_foreign_keys(engine):
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_migrations_create_exactly_the_models(engine):
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []

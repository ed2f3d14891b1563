"""The app factory serves the overview pages, and the migrations match the models."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest
import requests
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from curator.core.models import Base
from curator.web import create_app

from .conftest import ROOT, Browser, csrf_from

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
    try:
        web = requests.Session()
        for _ in range(600):  # until it listens (or exits)
            assert server.poll() is None, server.stdout.read()
            try:
                page = web.get(f"{base}/login", timeout=5)
                break
            except requests.ConnectionError:
                time.sleep(0.1)
        else:
            pytest.fail("curator serve did not start listening")
        assert page.status_code == 200 and 'name="password"' in page.text
        signed_in = web.post(
            f"{base}/login",
            data={"email": "reviewer@demo.invalid", "password": "demo-pass-1", "csrf_token": csrf_from(page.text)},
            timeout=5,
        )
        assert signed_in.status_code == 200 and signed_in.url == f"{base}/", signed_in.text
        assert "Spanish" in signed_in.text and "Arabic" in signed_in.text
        assert web.get(f"{base}/healthz", timeout=5).json() == {"status": "ok"}
    finally:
        server.terminate()
        server.wait(timeout=30)
        server.stdout.close()


@pytest.mark.backends("sqlite")
def test_sqlite_runs_with_wal_and_foreign_keys(engine):
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_migrations_create_exactly_the_models(engine):
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []

"""The app factory serves the overview pages, and the migrations match the models."""
from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from curator.web import create_app
from curator.core.models import Base

from .conftest import Browser


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


def test_sqlite_runs_with_wal_and_foreign_keys(engine):
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_migrations_create_exactly_the_models(engine):
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []

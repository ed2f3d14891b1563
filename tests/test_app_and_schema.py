"""The app factory serves the overview pages, and the migrations match the models."""
from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from curator import create_app
from curator.models import Base


def test_overview_pages_on_the_seed(cli, db_url):
    cli("seed")
    app = create_app({"DATABASE_URL": db_url, "TESTING": True})
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    assert client.get("/").status_code == 200
    for code in ("ar", "el", "en", "es"):
        assert f'href="/languages/{code}"' in page
    arabic = client.get("/languages/ar").get_data(as_text=True)
    assert 'dir="rtl"' in arabic and 'lang="ar"' in arabic and "[X]" in arabic
    assert client.get("/healthz").get_json() == {"status": "ok"}


def test_template_text_is_escaped(cli, db_url, sessions):
    cli("seed")
    from curator.models import Template

    with sessions.begin() as s:
        t = s.query(Template).filter_by(language="es", is_candidate=True).first()
        t.text = "<script>alert(1)</script> [X] [Y]"
    page = create_app({"DATABASE_URL": db_url}).test_client().get("/languages/es").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def test_sqlite_runs_with_wal_and_foreign_keys(engine):
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_migrations_create_exactly_the_models(engine):
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []

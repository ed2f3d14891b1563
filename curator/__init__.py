"""curator: machine-translated paraphrase templates to a reviewed multilingual dataset."""
from __future__ import annotations

from flask import Flask

from .config import load_config

__version__ = "0.1.0"


def create_app(config: dict | None = None) -> Flask:
    """App factory: config, database, blueprints — nothing else."""
    from pathlib import Path

    from .db import make_engine, make_session_factory
    from .probe import views as probe_views
    from .release import views as release_views
    from .review import admin, api, auth, views
    from .web import init_web

    root = Path(__file__).resolve().parent.parent
    app = Flask(__name__, template_folder=str(root / "templates"), static_folder=str(root / "static"))
    app.config.from_mapping(load_config(config))
    engine = make_engine(app.config["DATABASE_URL"])
    app.extensions["curator.engine"] = engine
    app.extensions["curator.sessions"] = make_session_factory(engine)
    init_web(app)
    for blueprint in (auth.bp, views.bp, api.bp, admin.bp, release_views.bp, probe_views.bp):
        app.register_blueprint(blueprint)

    @app.get("/healthz")
    def healthz():
        from sqlalchemy import text

        from .web import db

        db().execute(text("SELECT 1"))
        return {"status": "ok"}

    return app

"""The review web app: the factory, one blueprint per area, templates and static files.

`create_app` is the only way in (flaskr's pattern): it takes the settings, builds the engine
and session factory, and registers the shared request handling (`context`), the error
handlers (`errors`) and the blueprints. Nothing in the stage services imports this package.
"""

from __future__ import annotations

from flask import Flask
from jinja2 import ChoiceLoader, FileSystemLoader

from curator.core.db import make_engine, make_session_factory
from curator.core.enums import DecisionKind, Policy, QueueOrder, Role, VersionKind
from curator.core.settings import Settings


def create_app(settings: Settings | dict | None = None) -> Flask:
    """App factory: settings, database, blueprints — nothing else. `settings` is a Settings
    (the CLI passes its own) or Flask config overrides on top of the environment (tests): keys
    that name a setting go into the Settings (curator.web.settings)."""
    from importlib.resources import files

    from curator.web.bidi import init_bidi
    from curator.web.context import init_web
    from curator.web.diffs import init_diffs
    from curator.web.i18n import init_i18n
    from curator.web.labels import init_labels
    from curator.web.limits import init_limits
    from curator.web.marks import init_marks
    from curator.web.request_body import read_body_first
    from curator.web.settings import CuratorFlask, install, resolve

    settings, other = resolve(settings)
    app = CuratorFlask(__name__)
    # the probe report's body is shared with the standalone HTML report (curator.analysis)
    assert app.jinja_loader is not None  # the package's templates/ folder
    app.jinja_loader = ChoiceLoader([app.jinja_loader, FileSystemLoader(str(files("curator.analysis") / "templates"))])
    install(app, settings, other)
    # one pooled connection per thread of the worker (PostgreSQL; a small overflow beside it)
    engine = make_engine(settings.database_url, busy_timeout=settings.busy_timeout, pool_size=settings.threads)
    app.extensions["curator.engine"] = engine
    app.extensions["curator.sessions"] = make_session_factory(engine)
    init_web(app)
    init_i18n(app)
    init_labels(app)
    init_marks(app)
    init_bidi(app)
    init_diffs(app)
    # templates compare with the enums' members, never their raw strings (tests/core/test_enums.py)
    app.jinja_env.globals.update(
        DecisionKind=DecisionKind, Role=Role, VersionKind=VersionKind, Policy=Policy, QueueOrder=QueueOrder
    )
    # Flask's documented way to add WSGI middleware; its stubs type wsgi_app as a plain method
    app.wsgi_app = read_body_first(app.wsgi_app, settings.max_body)  # type: ignore[method-assign]
    _register_blueprints(app)
    init_limits(app)  # after the blueprints: it wraps the sign-in and invitation views

    app.get("/healthz")(_healthz)
    return app


def _register_blueprints(app: Flask) -> None:
    """Every area's blueprint, in the order the app has always registered them."""
    from curator.web import (
        adjudication,
        admin,
        api,
        auth,
        errors,
        glossary,
        guidance,
        people,
        probe,
        proposals,
        release,
        review,
        threads,
    )

    for blueprint in (errors.bp, auth.bp, review.bp, api.bp, admin.bp, guidance.bp, glossary.bp, release.bp, probe.bp):
        app.register_blueprint(blueprint)
    app.register_blueprint(people.bp)  # people management and password-reset links (issue 28 §4)
    app.register_blueprint(adjudication.bp)  # issue 28 §2: disagreements, resolutions, dropped lines
    app.register_blueprint(proposals.bp)  # issue 28 §1: the Proposals page
    from curator.web import (
        proposals_api,  # the proposals as JSON (docs/review-api.md)
        threads_api,  # comment threads as JSON (docs/review-api.md)
    )

    app.register_blueprint(proposals_api.bp)
    app.register_blueprint(threads_api.bp)
    from curator.web import activity  # issue 28: the activity log

    app.register_blueprint(activity.bp)
    app.register_blueprint(threads.bp)  # comment threads (issue 28 §3)
    from curator.web import mentions  # @mentions in threads (issue 37 §5)

    app.register_blueprint(mentions.bp)
    mentions.init_mentions(app)
    from curator.web import find  # a reviewer's filters and search over their queue (issue 37 §5)

    app.register_blueprint(find.bp)


def _healthz() -> dict[str, str]:
    """GET /healthz: the app answers and its database does."""
    from sqlalchemy import text

    from curator.web.context import db

    db().execute(text("SELECT 1"))
    return {"status": "ok"}

"""What every page and endpoint shares: the request's database session, sign-in, CSRF,
security headers, and error pages. Blueprints live with their stage."""

from __future__ import annotations

from flask import Flask, current_app, g, has_request_context, jsonify, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import LoginManager
from flask_wtf.csrf import CSRFProtect
from sqlalchemy.orm import Session

from curator.core.db import autocommit_reads, unit_of_work
from curator.web.settings import settings_of

login_manager = LoginManager()
login_manager.login_view = "auth.login"
# shown (flashed) when a page sends a signed-out browser to the sign-in page; the API says the same
SIGNED_OUT = _l("Your session ended — sign in again; your place is kept.")
login_manager.login_message = SIGNED_OUT
login_manager.login_message_category = "info"
csrf = CSRFProtect()

UNSAFE = ("POST", "PUT", "PATCH", "DELETE")


def db() -> Session:
    """The request's session, for reading; closed (rolled back if open) after the request.
    A view that writes does so in `write()`. A GET (or HEAD) reads without a transaction on
    PostgreSQL (core.db.autocommit_reads: two round trips fewer); a POST's read transaction
    becomes its write transaction there."""
    if "db" not in g:
        session = current_app.extensions["curator.sessions"]()
        g.db = autocommit_reads(session) if has_request_context() and request.method not in UNSAFE else session
    return g.db


def write():
    """The request's unit of work: `with write() as session:` commits at the end of the block,
    rolls back on any error, and takes SQLite's write lock at its start (see core.db)."""
    return unit_of_work(db())


def wants_json() -> bool:
    return request.path.startswith("/api/")


@login_manager.user_loader
def _load_user(login_session: str):
    """The session and remember cookies carry "user_id:secret" of a login session: only an
    unrevoked one of an active user, within its idle and absolute limits, signs the request in.
    A bare user id (a cookie from before login sessions) or a signed-out one is nobody."""
    from curator.review.login_sessions import touch, user_for_login_session

    user = user_for_login_session(db(), login_session, session_limits())
    if user is not None and user.stale_login_session is not None:
        # its own short write (a GET's session only reads): the idle limits count from this use
        with unit_of_work(current_app.extensions["curator.sessions"]()) as session:
            touch(session, user.stale_login_session)
    return user


def session_limits():
    """The app's sign-in limits (issue 38 §2: CURATOR_SESSION_IDLE, CURATOR_REMEMBER_DAYS,
    CURATOR_SESSION_LIFETIME), for the user loader and each new sign-in."""
    from curator.review.login_sessions import SessionLimits

    idle, remember_idle, lifetime = settings_of(current_app).session_limits
    return SessionLimits(idle=idle, remember_idle=remember_idle, lifetime=lifetime)


def bearer_token() -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    header = request.headers.get("Authorization", "")
    return header[len("Bearer ") :].strip() if header.startswith("Bearer ") else None


@login_manager.request_loader
def _load_from_token(req):
    """Scripts authenticate with `Authorization: Bearer <token>` instead of a cookie — on the
    JSON API only: a page or a form sent with a token gets no session (the sign-in redirect,
    and a POST still needs its CSRF token), so a leaked token cannot drive the maintainers'
    forms. A refused token is counted for the rate limit (web/limits.py)."""
    from curator.review.accounts import user_for_token

    token = bearer_token()
    if token is None or not wants_json():
        return None
    user = user_for_token(db(), token)
    if user is None:
        g.token_refused = True
    else:
        g.token_auth = True  # the one case that needs no CSRF token: no cookie was involved
    return user


@login_manager.unauthorized_handler
def _unauthorized():
    """Signed out (never signed in, signed out elsewhere, or the session expired): the API answers
    401 with a plain sentence and a machine-readable code; a page goes to the sign-in page, which
    brings the browser back here (`next`) — with a note when this browser was signed in before
    (a first visit needs no explanation)."""
    if wants_json():
        return jsonify(error=_("Your session ended — sign in again; your place is kept."), code="signed_out"), 401
    from flask import flash, redirect, session, url_for

    # "_user_id" stays in the session cookie when the login session behind it ended (revoked,
    # too old); signing out removes it, so a deliberate sign-out is not called an expiry
    if "_user_id" in session or current_app.config.get("REMEMBER_COOKIE_NAME", "remember_token") in request.cookies:
        flash(str(login_manager.login_message), login_manager.login_message_category)
    return redirect(url_for("auth.login", next=request.full_path if request.query_string else request.path))


CSRF_LIFETIME = 12 * 3600  # seconds: a working day's open page


def new_csrf_secret() -> None:
    """Forget the session's CSRF secret (Flask-WTF keeps it in the session under the field's
    name, and this request's token in `g`): called at sign-in and sign-out, so that a token
    planted in a browser before (session fixation) is refused after; the next page gets a new one."""
    from flask import session

    field = current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token")
    session.pop(field, None)
    g.pop(field, None)


def token_authenticated() -> bool:
    """Whether a valid Bearer token (not a cookie) signed this request in. A cookie session
    wins over a header (Flask-Login asks the session first), so a junk or even a valid
    `Authorization` header beside a session cookie does not lift the CSRF check."""
    from flask_login import current_user

    return bool(current_user.is_authenticated and g.get("token_auth"))


def not_cached(endpoint: str | None) -> bool:
    """Whether an answer must not be stored by a browser or a proxy (issue 38 §2, ASVS 8.2.1): every
    answer but the static files' (their own caching stays). Pages and API answers show a person's
    data, a CSRF token or a one-time link; a shared computer's back button or cache must not keep
    them after sign-out. Signed out answers (the sign-in page, 401s) are no different: one rule."""
    return endpoint != "static"


def init_web(app: Flask) -> None:
    app.config.setdefault("WTF_CSRF_CHECK_DEFAULT", False)  # checked below, except for token-authenticated calls
    # a token lives CSRF_LIFETIME seconds (a stolen one is not good for ever); a volunteer's review
    # screen, open all day, fetches a fresh one (GET /api/v1/csrf) and sends again (static/review/server.js)
    app.config.setdefault("WTF_CSRF_TIME_LIMIT", CSRF_LIFETIME)
    hops = settings_of(app).proxy_fix
    if hops > 0:
        # behind nginx: the client's address (rate limits) and scheme come from the trusted proxies' headers
        from werkzeug.middleware.proxy_fix import ProxyFix

        # X-Forwarded-Host stays ignored: nginx passes the real Host itself, and a client's own
        # X-Forwarded-Host would otherwise become the host of invitation links
        # Flask's documented way to add WSGI middleware; its stubs type wsgi_app as a plain method
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=0)  # type: ignore[method-assign]
    from curator.web.fields import BoundedInt

    # before any blueprint adds its rules: every <int:…> in a URL is a database id, so one
    # beyond a 64-bit integer matches no route (404) instead of overflowing a query (500)
    app.url_map.converters["int"] = BoundedInt
    login_manager.init_app(app)
    csrf.init_app(app)

    @app.before_request
    def _before() -> None:
        # a refused Bearer token (on the API, no cookie session) signs nobody in: there is no
        # session to forge a request for, and every API view answers such a request 401; the
        # CSRF check would answer 400 first, before the rate limit counts the refusal, and so
        # tell a guesser "wrong token" for free (web/limits.py)
        if request.method in UNSAFE and not token_authenticated() and not g.get("token_refused"):
            csrf.protect()

    @app.after_request
    def _headers(response):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")  # invitation tokens live in URLs
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
        )
        if not_cached(request.endpoint):
            response.headers["Cache-Control"] = "no-store"
        return response

    @app.get("/favicon.ico")
    def favicon():
        """Browsers ask for /favicon.ico whatever the page links: send them to the SVG icon
        instead of a logged 404."""
        from flask import redirect, url_for

        return redirect(url_for("static", filename="favicon.svg"), 301)

    @app.teardown_appcontext
    def _close(_exc) -> None:
        session = g.pop("db", None)
        if session is not None:
            session.close()

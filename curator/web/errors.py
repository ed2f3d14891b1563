"""Every error page and JSON error of the app, in one place (microblog's errors blueprint).

The services raise `curator.core.errors` classes without any HTTP in them; `STATUS` is the
only map from those classes to HTTP statuses. A path under /api/ gets `{"error": message}`,
any other path the HTML error page. A busy database answers 503 with Retry-After so the
review screen (and scripts) retry the same request; a rate limit answers 429 with
Retry-After; an unexpected exception answers 500 (JSON under /api/) after rolling the
request's transaction back.
"""
from __future__ import annotations

import logging

from flask import Blueprint, g, jsonify, render_template
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import DataError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException, InternalServerError, TooManyRequests

from curator.core.db import is_busy
from curator.core.errors import Busy, Conflict, CuratorError, Forbidden, Gone, InputError, NotFound, Unreadable
from curator.web.context import wants_json

bp = Blueprint("errors", __name__)
log = logging.getLogger(__name__)

# most specific first: the first class the error is an instance of wins
STATUS: tuple[tuple[type[CuratorError], int], ...] = (
    (Gone, 410), (NotFound, 404), (Forbidden, 403), (Conflict, 409), (InputError, 422),
    (Busy, 503), (Unreadable, 500), (CuratorError, 400))
RETRY_AFTER = 2  # seconds; SQLite's write lock is held for milliseconds per transaction

FRIENDLY = {403: "You do not have access to this page.", 404: "Page not found.", 405: "Method not allowed.",
            500: "Something went wrong on our side; it has been logged. Please try again."}


def status_for(exc: CuratorError) -> int:
    return next(status for cls, status in STATUS if isinstance(exc, cls))


def error_response(message: str, status: int, headers: dict | None = None):
    if wants_json():
        response = jsonify(error=message)
    else:
        response = render_template("error.html", message=message, status=status)
    return response, status, headers or {}


def _rollback() -> None:
    session = g.get("db")
    if session is not None:
        session.rollback()


@bp.app_errorhandler(CuratorError)
def curator_error(exc: CuratorError):
    _rollback()
    status = status_for(exc)
    return error_response(exc.message, status, {"Retry-After": str(RETRY_AFTER)} if status == 503 else None)


@bp.app_errorhandler(OperationalError)
def database_error(exc: OperationalError):
    """A lock held past the busy timeout is an expected, retryable state; anything else is a bug."""
    _rollback()
    if is_busy(exc):
        return curator_error(Busy())
    log.exception("database error", exc_info=exc)
    return error_response(FRIENDLY[500], 500)


@bp.app_errorhandler(PoolTimeout)
def pool_exhausted(exc: PoolTimeout):
    """Every pooled connection stayed in use for the busy timeout (a read outside a unit of
    work; a writer gets `Busy` from the unit of work itself): as busy as a held lock — 503."""
    _rollback()
    log.warning("database connection pool exhausted: %s", exc)
    return curator_error(Busy())


@bp.app_errorhandler(DataError)
def unstorable_value(exc: DataError):
    """A value the database refuses in a read (PostgreSQL: a NUL in text, a number out of range)
    that no check caught first: bad input, 422, not a 500. Logged: a check should catch it."""
    _rollback()
    log.warning("database refused a value: %s", str(exc.orig or exc).splitlines()[0])
    return curator_error(InputError("a value in the request cannot be stored or compared (e.g. a NUL character)"))


@bp.app_errorhandler(CSRFError)
def csrf_error(exc: CSRFError):
    return error_response(f"The form was refused: {exc.description} Reload the page and try again.", 400)


@bp.app_errorhandler(HTTPException)
def http_error(exc: HTTPException):
    # an abort(400, "what was wrong") keeps its own words; a bare abort(404) gets ours
    custom = exc.description and exc.description != type(exc).description
    message = exc.description if custom else FRIENDLY.get(exc.code, exc.name)
    headers = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}  # e.g. Allow on a 405
    return error_response(message, exc.code or 500, headers)


@bp.app_errorhandler(TooManyRequests)
def too_many_requests(exc: TooManyRequests):
    """A rate limit (web/limits.py): the limiter adds Retry-After to the response; the message
    says which limit, never whether the password was right."""
    limit = exc.description if exc.description != TooManyRequests.description else "a limit"
    headers = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
    return error_response(f"Too many attempts ({limit}). Wait a little and try again.", 429, headers)


@bp.app_errorhandler(InternalServerError)
def server_error(exc: InternalServerError):
    """Any unexpected exception (Flask has logged it with its traceback): rolled back, and
    answered as JSON under /api/ like every other API error, the error page elsewhere."""
    _rollback()
    return error_response(FRIENDLY[500], 500)

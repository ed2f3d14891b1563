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

from flask import Blueprint, Response, g, jsonify, render_template
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf.csrf import CSRFError
from markupsafe import Markup
from sqlalchemy.exc import DataError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException, InternalServerError, TooManyRequests

from curator.core.db import is_busy
from curator.core.errors import Busy, Conflict, CuratorError, Forbidden, Gone, InputError, NotFound, Unreadable
from curator.core.extras import MissingExtra
from curator.web.bidi import isolate
from curator.web.context import wants_json
from curator.web.i18n import language_name

bp = Blueprint("errors", __name__)
log = logging.getLogger(__name__)

# most specific first: the first class the error is an instance of wins
STATUS: tuple[tuple[type[CuratorError], int], ...] = (
    (Gone, 410),
    (NotFound, 404),
    (Forbidden, 403),
    (Conflict, 409),
    (InputError, 422),
    (Busy, 503),
    (MissingExtra, 501),  # this install lacks an optional extra: the page names it (core/extras.py)
    (Unreadable, 500),
    (CuratorError, 400),
)
RETRY_AFTER = 2  # seconds; SQLite's write lock is held for milliseconds per transaction

# what a bare abort(status) says (lazy: translated when shown, in the page's language)
FRIENDLY = {
    403: _l("You do not have access to this page."),
    404: _l("Page not found."),
    405: _l("Method not allowed."),
    500: _l("Something went wrong on our side; it has been logged. Please try again."),
}

# the error page: a title and a plain explanation of what happened and what to do next
TITLES = {
    400: _l("The request was refused"),
    401: _l("Please sign in"),
    403: _l("No access to this page"),
    404: _l("Page not found"),
    405: _l("This action is not possible here"),
    408: _l("The request took too long"),
    409: _l("Changed in the meantime"),
    410: _l("This link is no longer valid"),
    413: _l("Too much at once"),
    422: _l("Something needs correcting"),
    429: _l("Too many attempts"),
    500: _l("Something went wrong"),
    503: _l("Busy for a moment"),
}
EXPLAIN = {
    400: _l("Reload the page and try again."),
    403: _l(
        "This page is for another role or another language. If you think you should see it, ask the "
        "maintainer who invited you."
    ),
    404: _l("The address may be mistyped, or the page was moved or removed."),
    409: _l("Someone else changed the same thing. Reload the page to see the current state."),
    410: _l("Ask the person who sent it for a new one."),
    422: _l("Nothing was saved. Go back, correct it and send it again."),
    429: _l("Wait a little and try again."),
    500: _l("Nothing you did caused this. Your earlier work is saved; try again in a moment."),
    503: _l("The server is busy with other work. Nothing was lost: try again in a few seconds."),
}


def status_for(exc: CuratorError) -> int:
    return next(status for cls, status in STATUS if isinstance(exc, cls))


def error_response(
    message: object, status: int, headers: dict[str, str] | None = None, code: str | None = None
) -> tuple[Response | str, int, dict[str, str]]:
    """`{"error": message}` under /api/ (with `"code"` when the error has one, e.g. "retired"),
    else the error page: title, the message, what to do next."""
    message = message if isinstance(message, Markup) else str(message)  # Markup: isolated parts (translated)
    response: Response | str
    if wants_json():
        response = jsonify(error=message, code=code) if code else jsonify(error=message)
    else:
        title = TITLES.get(status) or (_("Something went wrong") if status >= 500 else _("The request was refused"))
        explain = EXPLAIN.get(status)
        if status in (403, 404, 405) and message == str(FRIENDLY[status]):
            message = ""  # a bare abort: the title says it already
        response = render_template(
            "error.html",
            message=message,
            status=status,
            title=str(title),
            explain=str(explain) if explain and str(explain) != message else None,
            back=_same_site_referrer(),
        )
    return response, status, headers or {}


def _same_site_referrer() -> str | None:
    """The page the visitor came from, when it is one of ours: the error page's "Back" link."""
    from urllib.parse import urlsplit

    from flask import request

    referrer = request.referrer
    if not referrer:
        return None
    parts, here = urlsplit(referrer), urlsplit(request.host_url)
    if (parts.scheme, parts.netloc) != (here.scheme, here.netloc) or parts.path == request.path:
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _rollback() -> None:
    session = g.get("db")
    if session is not None:
        session.rollback()


@bp.app_errorhandler(CuratorError)
def curator_error(exc: CuratorError):
    _rollback()
    status = status_for(exc)
    return error_response(
        translated(exc, html=not wants_json()),
        status,
        {"Retry-After": str(RETRY_AFTER)} if status == 503 else None,
        code=exc.code,
    )


# parameters that name a data language by its code: said as the language's name with the code
# ("griego (el)"), and on a page isolated in a <bdi> so the sentence's direction does not move it
LANGUAGE_PARAMS = frozenset({"language"})
# parameters that hold what a person typed (an e-mail address): on a page isolated in a
# <bdi dir="auto">, so a Latin address keeps its place inside an Arabic sentence
PERSON_PARAMS = frozenset({"email"})


def translated(exc: CuratorError, html: bool = False) -> str:
    """The error's message in the page's language when the service raised a catalogue message
    (`msgid` + `params`, see core.errors.N_), else its English text. `html`: Markup, with each
    language parameter and each typed address isolated (`|bdi`), for a page. An InputError says
    where, as the command line's one line does: an English one is that line itself
    ("field 'reason': at most 2000 characters"), a catalogue one gets the field in the page's
    language ("campo 'kind': …")."""
    if isinstance(exc, InputError) and exc.msgid is None:
        return str(exc)  # the CLI's one line: location, line, field, message
    message = _message(exc, html)
    if not isinstance(exc, InputError) or not exc.field:
        return message
    if not html:
        return _("field '%(field)s': %(message)s", field=exc.field, message=message)
    return Markup.escape(_("field '%(field)s': %(message)s")) % {
        "field": isolate(exc.field, dir="ltr"),
        "message": message,
    }


def _message(exc: CuratorError, html: bool) -> str:
    """A catalogue message in the page's language, its parameters shown (see `translated`)."""
    if exc.msgid is None:
        return exc.message
    if not exc.params:
        return _(exc.msgid)
    params = {
        # a catalogue message inside another (the annotation parser's refusal inside "Not saved: …")
        k: translated(v) if isinstance(v, CuratorError) else _language_shown(str(v)) if k in LANGUAGE_PARAMS else v
        for k, v in exc.params.items()
    }
    if not html:
        return _(exc.msgid, **params)
    shown = {k: isolate(v) if k in LANGUAGE_PARAMS | PERSON_PARAMS else v for k, v in params.items()}
    return Markup.escape(_(exc.msgid)) % shown


def _language_shown(code: str) -> str:
    """A language as a message names it: its name in the interface language and its code."""
    name = language_name(code)
    return f"{name} ({code})" if name != code else code


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
    return curator_error(InputError(_("a value in the request cannot be stored or compared (e.g. a NUL character)")))


@bp.app_errorhandler(CSRFError)
def csrf_error(exc: CSRFError):
    return error_response(
        _("The form was refused: %(reason)s Reload the page and try again.", reason=exc.description), 400
    )


@bp.app_errorhandler(HTTPException)
def http_error(exc: HTTPException):
    # an abort(400, "what was wrong") keeps its own words; a bare abort(404) gets ours
    custom = exc.description and exc.description != type(exc).description
    message = exc.description if custom else (FRIENDLY.get(exc.code, exc.name) if exc.code is not None else exc.name)
    headers = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}  # e.g. Allow on a 405
    return error_response(message, exc.code or 500, headers)


@bp.app_errorhandler(TooManyRequests)
def too_many_requests(exc: TooManyRequests):
    """A rate limit (web/limits.py): the limiter adds Retry-After to the response; the message
    says which limit, never whether the password was right."""
    limit = exc.description if exc.description != TooManyRequests.description else _("a limit")
    headers = {k: v for k, v in exc.get_headers() if k.lower() != "content-type"}
    return error_response(_("Too many attempts (%(limit)s). Wait a little and try again.", limit=limit), 429, headers)


@bp.app_errorhandler(InternalServerError)
def server_error(exc: InternalServerError):
    """Any unexpected exception (Flask has logged it with its traceback): rolled back, and
    answered as JSON under /api/ like every other API error, the error page elsewhere."""
    _rollback()
    return error_response(FRIENDLY[500], 500)

"""Read the whole request body before the app runs.

A view that reads `request.json` lazily would wait on the network *inside* the request,
possibly inside a write transaction; reading first means a view never waits for a client,
and a body over `MAX_CONTENT_LENGTH` is refused unread (Flask's 413). Under `curator serve`
the whole body has already been read on granian's event loop (`curator.web.rsgi_app.BufferedApp`),
so this reads from memory; under any other server (the development server, `LiveServer` in
tests) it is what keeps views off the network. No server import here: the middleware is part
of every app, whatever serves it.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable

CHUNK = 64 * 1024


def read_body_first(app: Callable, max_body: int | None) -> Callable:
    """WSGI middleware: read the whole request body before the app runs. Over `max_body`
    bytes: 413 unread; not there in time (the socket's deadline passed): 408."""

    def middleware(environ: dict, start_response: Callable) -> Iterable[bytes]:
        length = environ.get("CONTENT_LENGTH") or ""
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if not (length.isdigit() and int(length) > 0) and not chunked:
            return app(environ, start_response)
        if max_body is not None and length.isdigit() and int(length) > max_body:
            return app(environ, start_response)  # Flask answers 413 without reading it
        stream = environ["wsgi.input"]
        limit = int(length) if length.isdigit() else (max_body or 2**31) + 1
        body = io.BytesIO()
        try:
            while body.tell() < limit:
                chunk = stream.read(min(CHUNK, limit - body.tell()))
                if not chunk:
                    break
                body.write(chunk)
        except (TimeoutError, ConnectionResetError):  # the server's read deadline passed
            environ["wsgi.input"] = io.BytesIO()
            return _plain(start_response, "408 Request Timeout", "The request did not arrive in time.\n")
        if max_body is not None and body.tell() > max_body:
            return _plain(start_response, "413 Request Entity Too Large", "The request is too large.\n")
        environ["wsgi.input"] = io.BytesIO(body.getvalue())
        environ["CONTENT_LENGTH"] = str(body.tell())
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ["wsgi.input_terminated"] = True
        return app(environ, start_response)

    return middleware


def _plain(start_response: Callable, status: str, text: str) -> list[bytes]:
    data = text.encode()
    start_response(
        status,
        [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(data))), ("Connection", "close")],
    )
    return [data]

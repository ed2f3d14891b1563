"""The RSGI glue between granian and the Flask app: `BufferedApp` reads each request body whole
on granian's event loop (within `read_timeout`, into a per-worker memory budget), then runs the
WSGI app on a thread; a large response is streamed in batches. Why, and what it guards against:
`curator.web.server`'s docstring and docs/deploy.md §8."""

from __future__ import annotations

import asyncio
import io
import logging
import os
import signal
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

log = logging.getLogger("curator.server")

SMALL_BODY = 64 * 1024  # bytes: a body this small is read outside the budget (review requests: a few hundred)
CHUNKED = "Transfer-Encoding: chunked is not accepted; send a Content-Length.\n"


class StartingWorker:
    """A stop (SIGTERM/SIGINT) that reached this worker process before granian gave it its own
    signal handlers, kept for `BufferedApp.__rsgi_init__` to ask again (see `server_class`)."""

    stop_asked = False


class BufferedApp:
    """An RSGI application (granian) that runs a WSGI app on a thread pool, each request's body
    read first, on the event loop. One per worker process."""

    def __init__(
        self,
        wsgi: Callable[..., Iterable[bytes]],
        *,
        threads: int,
        read_timeout: float,
        max_body: int | None,
        body_budget: int,
    ):
        self.wsgi = wsgi
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="curator")
        self.read_timeout = read_timeout
        self.max_body = max_body
        self.body_budget = body_budget
        self.buffered = 0  # bytes reserved by the bodies being read now (one event loop: no lock)

    def __rsgi_init__(self, loop: Any) -> None:
        # after granian has given this worker its own signal handlers (server_class): a stop asked
        # while the worker started is asked again, now of granian, which stops it as any worker
        if StartingWorker.stop_asked:
            os.kill(os.getpid(), signal.SIGTERM)

    def __rsgi_del__(self, loop: Any) -> None:
        self.pool.shutdown(wait=True)  # requests in flight finish before the worker exits

    async def __rsgi__(self, scope: Any, proto: Any) -> None:
        if scope.proto != "http":
            return
        length = scope.headers.get("content-length", "")
        announced = int(length) if length.isdigit() else 0
        if self.over_budget(announced):  # answered before anything is built: a flood's cheapest answer
            return plain(proto, 503, "The server is busy: try again in a moment.\n", [("Retry-After", "1")])
        environ = wsgi_environ(scope)
        if "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
            return plain(proto, 411, CHUNKED)
        close = False
        if announced and (self.max_body is None or announced <= self.max_body):
            body = await self.read_body(scope, proto, announced)
            if body is None:
                return None
            environ["wsgi.input"] = io.BytesIO(body)
        else:
            # nothing to read, or over the limit: the app answers 413 without reading it
            environ["wsgi.input"] = io.BytesIO()
            close = announced > 0
        loop = asyncio.get_running_loop()
        status, headers, data, rest = await loop.run_in_executor(self.pool, self.call, environ)
        if close:
            headers = [*headers, ("Connection", "close")]
        if rest is None:
            proto.response_bytes(status, headers, data)
        else:
            await self.stream(proto, status, headers, data, rest)
        return None

    def over_budget(self, announced: int) -> bool:
        """A larger body the app would read (not over `max_body`: the app answers that 413) that
        does not fit in what is left of the budget now."""
        if announced <= SMALL_BODY or (self.max_body is not None and announced > self.max_body):
            return False
        return self.buffered + announced > self.body_budget

    async def read_body(self, scope: Any, proto: Any, announced: int) -> bytes | None:
        """The whole body (its bytes reserved in the budget while they come; `over_budget` was
        checked just before, with no await between), or None once a 408 has been answered."""
        reserved = announced if announced > SMALL_BODY else 0
        self.buffered += reserved
        try:
            body = await asyncio.wait_for(receive(proto, announced), self.read_timeout)
            return body if len(body) == announced else None  # shorter: the client went away
        except TimeoutError:
            log.warning(
                "%s %s from %s: its request did not arrive within %g s; answered 408",
                scope.method,
                scope.path,
                scope.client,
                self.read_timeout,
            )
            plain(proto, 408, "The request did not arrive in time.\n")
            return None
        except Exception:  # the client went away (granian's ProtocolClosed)
            return None
        finally:
            self.buffered -= reserved

    def call(self, environ: dict[str, Any]) -> tuple[int, list[tuple[str, str]], bytes, Body | None]:
        """Run the WSGI app on a pool thread: status, headers, the body's first `STREAM_BATCH`
        bytes, and the rest of it (None when that was all: every page and API answer)."""
        started: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
            started[:] = [int(status.split(" ", 1)[0]), headers]

        body = Body(self.wsgi(environ, start_response))
        try:
            data = body.next_batch()
        except BaseException:
            body.close()
            raise
        if body.done:
            body.close()
            return started[0], started[1], data, None
        return started[0], started[1], data, body

    async def stream(self, proto: Any, status: int, headers: list[tuple[str, str]], data: bytes, rest: Body) -> None:
        """A large body (a download: send_file, a generator) sent as the app makes it, a batch
        at a time read on a pool thread (a thread holds it only while reading a batch, never
        while the client is slow), instead of the whole of it in memory."""
        loop = asyncio.get_running_loop()
        try:
            transport = proto.response_stream(status, headers)
            await transport.send_bytes(data)
            while not rest.done:
                data = await loop.run_in_executor(self.pool, rest.next_batch)
                if data:
                    await transport.send_bytes(data)
        except Exception as exc:  # the client went away (granian's ProtocolClosed), or the app failed mid-body
            log.warning("a streamed response (%s) stopped before its end: %r", status, exc)
        finally:
            await loop.run_in_executor(self.pool, rest.close)


STREAM_BATCH = 256 * 1024  # bytes: a body up to this is sent whole (one hop); a longer one is streamed


class Body:
    """A WSGI app's response body, read `STREAM_BATCH` bytes at a time (on a pool thread)."""

    def __init__(self, result: Iterable[bytes]):
        self.result = result
        self.chunks = iter(result)
        self.done = False

    def next_batch(self) -> bytes:
        parts: list[bytes] = []
        size = 0
        while size < STREAM_BATCH:
            chunk = next(self.chunks, None)
            if chunk is None:
                self.done = True
                break
            parts.append(chunk)
            size += len(chunk)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def close(self) -> None:
        close = getattr(self.result, "close", None)
        if close is not None:
            close()


async def receive(proto: Any, announced: int) -> bytes:
    body = bytearray()
    async for chunk in proto:
        body += chunk
        if len(body) >= announced:
            break
    return bytes(body[:announced])


def plain(proto: Any, status: int, text: str, extra: list[tuple[str, str]] | None = None) -> None:
    headers = [("Content-Type", "text/plain; charset=utf-8"), ("Connection", "close"), *(extra or [])]
    proto.response_str(status, headers, text)


def wsgi_environ(scope: Any) -> dict[str, Any]:
    """PEP 3333's environ from granian's RSGI scope."""
    host, _, port = scope.server.rpartition(":")
    client, _, client_port = scope.client.rpartition(":")
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope.method,
        "SCRIPT_NAME": "",
        "PATH_INFO": scope.path.encode("utf-8").decode("latin-1"),
        "QUERY_STRING": scope.query_string,
        "SERVER_NAME": host.strip("[]"),
        "SERVER_PORT": port,
        "SERVER_PROTOCOL": f"HTTP/{scope.http_version}",
        "REMOTE_ADDR": client.strip("[]"),
        "REMOTE_PORT": client_port,
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.scheme,
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.input_terminated": True,
    }
    for name, value in scope.headers.items():
        key = name.upper().replace("-", "_")
        if key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            environ[key] = value
            continue
        key = "HTTP_" + key
        if key in environ:  # a header sent twice: one value (cookies joined as browsers join them)
            value = f"{environ[key]}{'; ' if key == 'HTTP_COOKIE' else ', '}{value}"
        environ[key] = value
    return environ

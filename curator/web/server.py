"""The production server: gunicorn with threads, and deadlines no client can outlast.

Volunteers reach the app over the internet, so a client that opens a connection and then
sends slowly (a phone going through a tunnel, or a slow-loris on purpose) must not hold a
thread, let alone a database lock. Three measures, each cheap:

- every connection has a *deadline* per request: the request line, headers and body must
  arrive within `read_timeout` seconds in total (`DeadlineSocket`), and a response the
  client does not read is cut off after the same time — a stalled client costs one thread
  for at most that long, then the connection is closed;
- the body is read completely, under that deadline, *before* the app sees the request
  (`read_body_first`): a view (and the write transaction it may open) never waits on the
  network, and a body over `MAX_CONTENT_LENGTH` is refused unread (413);
- gunicorn's gthread worker keeps idle keep-alive connections in its poller, not in a thread.

In production nginx sits in front (docs/deploy.md) and buffers whole requests anyway; these
deadlines make the app safe on its own too. `curator serve --dev` keeps Flask's reloader.
"""
from __future__ import annotations

import errno
import logging
import socket
import time
from typing import Any, Callable

from gunicorn.app.base import BaseApplication
from gunicorn.workers.gthread import ThreadWorker

READ_TIMEOUT = 10.0  # seconds for a whole request (line, headers, body) to arrive
DRAIN = 0.2  # seconds gunicorn may wait on a connection it is closing (it would wait 2)
log = logging.getLogger(__name__)


class DeadlinePassed(ConnectionResetError):
    """The client did not send its request in time. A connection-reset error, so gunicorn
    closes the connection quietly (as for a client that went away) instead of logging a
    traceback; `curator.web.request_body` answers 408 if the app was already reading."""

    def __init__(self):
        super().__init__(errno.ECONNRESET, "the request did not arrive within the read timeout")


class DeadlineSocket:
    """A connection socket whose reads share one deadline per request.

    gunicorn's threads switch the socket to blocking mode before each request
    (`setblocking(True)`); here that starts the request's clock instead, and every read
    waits at most for what is left of it, so trickling a byte at a time does not help.
    Writes wait at most `timeout` each. Anything else goes to the real socket."""

    __slots__ = ("_sock", "timeout", "deadline", "_reported")

    def __init__(self, sock: socket.socket, timeout: float):
        self._sock = sock
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self._reported = False

    def setblocking(self, flag: bool) -> None:
        if flag:
            self.deadline = time.monotonic() + self.timeout
            self._reported = False
            self._sock.settimeout(self.timeout)
        else:
            self._sock.setblocking(False)

    def settimeout(self, seconds: float | None) -> None:
        """gunicorn's own explicit waits: draining a connection it closes, up to 2 s, in the
        worker's main loop — where every client that keeps its end open (an HTTP/1.0 client
        that never hangs up) would stall all the others. The body was read before the app
        ran, so only a misbehaving client leaves anything to drain: `DRAIN` is plenty. Not a
        request arriving late either, so nothing is reported."""
        seconds = self.timeout if seconds is None else min(seconds, DRAIN)
        self.deadline = time.monotonic() + seconds
        self._reported = True
        self._sock.settimeout(seconds)

    def _read(self, method, *args):
        left = self.deadline - time.monotonic()
        try:
            if left <= 0:
                raise socket.timeout()
            self._sock.settimeout(left)
            return method(*args)
        except socket.timeout:
            if not self._reported:  # one line per cut-off connection, not per read
                self._reported = True
                log.warning("closed a connection from %s: its request did not arrive within %g s",
                            _peer(self._sock), self.timeout)
            raise DeadlinePassed() from None

    def recv(self, *args):
        return self._read(self._sock.recv, *args)

    def recv_into(self, *args):
        return self._read(self._sock.recv_into, *args)

    def sendall(self, data, *args):
        self._sock.settimeout(self.timeout)
        return self._sock.sendall(data, *args)

    def send(self, data, *args):
        self._sock.settimeout(self.timeout)
        return self._sock.send(data, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


def _peer(sock: socket.socket) -> str:
    try:
        peer = sock.getpeername()
    except OSError:
        return "a client"
    return "%s:%s" % peer[:2] if isinstance(peer, tuple) else str(peer or "a client")


class DeadlineThreadWorker(ThreadWorker):
    """gunicorn's gthread worker whose connections carry a `DeadlineSocket`. A request cut
    off by its deadline ends like a disconnected client: the connection is closed."""

    read_timeout = READ_TIMEOUT  # set by `Server` before the workers fork

    def handle(self, conn):
        if not isinstance(conn.sock, DeadlineSocket) and not self.cfg.is_ssl:
            conn.sock = DeadlineSocket(conn.sock, self.read_timeout)
        return super().handle(conn)


class Server(BaseApplication):
    """gunicorn run in-process by `curator serve`: each worker builds its own app (and its
    own connection pool) from the settings, after the fork."""

    def __init__(self, make_app: Callable[[], Callable], options: dict, read_timeout: float = READ_TIMEOUT):
        self.make_app = make_app
        self.options = options
        DeadlineThreadWorker.read_timeout = read_timeout  # the workers are forks of this process
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            if value is not None and key in self.cfg.settings:  # older gunicorns lack newer settings
                self.cfg.set(key, value)

    def load(self) -> Callable:
        return self.make_app()


def gunicorn_options(*, bind: str, workers: int, threads: int, timeout: float, graceful_timeout: float,
                     keepalive: float, access_log: str | None) -> dict:
    return {
        "bind": bind,
        "workers": workers,
        "threads": threads,
        "worker_class": "curator.web.server.DeadlineThreadWorker",
        "timeout": timeout,  # a worker silent this long is killed and replaced
        "graceful_timeout": graceful_timeout,  # SIGHUP / SIGTERM: finish requests in flight first
        "keepalive": keepalive,
        "accesslog": access_log,
        "errorlog": "-",
        "limit_request_line": 4094,
        "limit_request_fields": 100,
        "proc_name": "curator",
        "control_socket_disable": True,  # gunicorn >= 25: one fixed path per user; not needed
    }

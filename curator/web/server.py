"""The production server: gunicorn with threads, and deadlines no client can outlast.

Volunteers reach the app over the internet, so a client that opens a connection and then
sends slowly (a phone going through a tunnel, or a slow-loris on purpose) must not hold a
thread, let alone a database lock. The worker class (`BufferingThreadWorker`, in
`curator.web.buffered_worker`) is gunicorn's gthread worker with one change: its poller reads
each request whole, without blocking, before a thread serves it, so

- an incomplete request holds no thread at all, however many there are and however slowly
  they trickle; each must arrive whole within `read_timeout` seconds, or the poller answers
  408 and closes the connection;
- a view (and the write transaction it may open) never waits on the network, and a body over
  `MAX_CONTENT_LENGTH` is refused unread (413);
- idle keep-alive connections wait in the poller too (gunicorn's own design), and closing a
  connection never blocks the poller.

nginx in front (docs/deploy.md) buffers whole requests as well and terminates TLS; the app is
safe on its own too. `curator serve --dev` keeps Flask's reloader.
"""

from __future__ import annotations

from collections.abc import Callable

from gunicorn.app.base import BaseApplication

from curator.core.settings import Settings
from curator.web.buffered_worker import BufferingThreadWorker


class Server(BaseApplication):
    """gunicorn run in-process by `curator serve`: each worker builds its own app (and its
    own connection pool) from the settings, after the fork."""

    def __init__(
        self,
        make_app: Callable[[], Callable],
        options: dict,
        read_timeout: float = Settings.read_timeout,
        max_body: int | None = None,
    ):
        self.make_app = make_app
        self.options = options
        BufferingThreadWorker.read_timeout = read_timeout  # the workers are forks of this process
        BufferingThreadWorker.max_body = max_body
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            if value is not None and key in self.cfg.settings:  # older gunicorns lack newer settings
                self.cfg.set(key, value)

    def load(self) -> Callable:
        return self.make_app()


def gunicorn_options(
    *,
    bind: str,
    workers: int,
    threads: int,
    timeout: float,
    graceful_timeout: float,
    keepalive: float,
    access_log: str | None,
) -> dict:
    return {
        "bind": bind,
        "workers": workers,
        "threads": threads,
        "worker_class": "curator.web.buffered_worker.BufferingThreadWorker",
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

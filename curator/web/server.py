"""The production server: granian (Rust, hyper and tokio), with the Flask app on a thread pool.

Volunteers reach the app over the internet, so a client that opens a connection and then
sends slowly (a phone going through a tunnel, or a slow-loris on purpose) must hold neither a
Python thread nor a database lock, and many of them must not take every connection slot or
grow the memory without a budget. granian does the HTTP: it accepts, parses and times out
connections in Rust (`http1 header read timeout` = `read_timeout`), keeps thousands of them
open per worker (`backpressure`, bounded by the file-descriptor limit, not by threads),
stops gracefully on SIGTERM and replaces its workers on SIGHUP (a worker that dies stops the
server, for the service manager to restart).

The app is served through granian's RSGI interface by `BufferedApp` (curator/web/rsgi_app.py), the glue between the two
(no HTTP is parsed here): on granian's event loop it reads each request body whole, within
`read_timeout` seconds of the head (else 408) and only into a per-worker memory budget
(bodies over `SMALL_BODY` bytes share `body_budget` bytes; beyond it 503, "busy"), and only
then hands the request to one of `threads` threads that run the Flask app (WSGI). So

- an incomplete request holds no thread at all, however many there are;
- a view (and the write transaction it may open) never waits on the network; a
  `Content-Length` over `MAX_CONTENT_LENGTH` is given to the app unread, which answers 413 in
  its own words, and the connection is closed;
- memory for request bodies is bounded: `body_budget` + connections × `SMALL_BODY`;
- a response body over `STREAM_BATCH` bytes (a download) is streamed a batch at a time, not
  built whole in memory (granian's RSGI stream has no backpressure, though: a client slower
  than the app leaves the unsent rest in the worker's memory; docs/deploy.md);
- the listening socket is made before anything says the server is up (`listen`).

Why not granian's own WSGI interface (`--interface wsgi`), which would need no glue: read in
granian 2.8's source and measured (docs/deploy.md §8, `benchmarks/review_latency.py --wsgi`),
it calls the app on one of its blocking threads as soon as the head has arrived
(src/wsgi/callbacks.rs, `spawn_blocking`), and `wsgi.input` reads the body from that thread,
blocking it (src/wsgi/types.rs, `block_on`); no deadline applies to the body (the HTTP/1
header read timeout covers the head only) and no size limit but the app's own. So each stalled
or trickling body holds a Python thread until its client gives up: with 2 workers x 8 threads,
40 slow-loris clients took paced reviewers' p95 from 17.7 ms to 59 s (3,332x the quiet run;
here 1.09x), and 600 stalled 1 MiB bodies left not one of 200 reviewer requests answered
within 120 s (here 0.60x). More blocking threads only move the line: 64 a worker absorbed the
40 slow-loris clients, but the 600 bodies still left 1 of 120 requests answered while granian
grew from 249 to 562 MiB (a body per thread), and PostgreSQL needs a connection per thread.
What it does better: its memory is bounded by threads x bodies (a body is read only by a
thread), and its downloads have backpressure (a bounded channel; a thread blocked per slow
downloader).

`curator serve --dev` keeps Flask's reloader.
"""

from __future__ import annotations

import os
import signal
import socket
from collections.abc import Callable, Iterable
from typing import Any

from curator.web.rsgi_app import BufferedApp, StartingWorker

STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}  # held around each worker's fork (server_class)

BACKLOG = 2048  # connections the kernel queues (handshake done) until a worker accepts them


def listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound and listening, made before anything says the server is up.

    granian on Linux lets each worker bind a socket of its own (SO_REUSEPORT) once it has built
    the app, about a second after granian's "Listening at" line: a client that connected at
    once was refused (ECONNREFUSED), and on SIGHUP the connections queued at an old worker's
    socket were reset (without net.ipv4.tcp_migrate_req). One socket listening from here on,
    shared by the workers (as gunicorn does), makes a connection wait in the backlog for a
    worker instead; and without SO_REUSEPORT a second server on the same port is refused (an
    OSError: 'Address already in use') instead of silently sharing it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host, port), family=family, backlog=BACKLOG)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as granian's own socket; inherited on accept
    sock.set_inheritable(True)
    return sock


def granian_server(
    make_app: Callable[[], Callable[..., Iterable[bytes]]],
    *,
    listener: socket.socket,
    workers: int,
    threads: int,
    read_timeout: float,
    keepalive: int,
    graceful_timeout: int,
    max_body: int | None,
    access_log: str | None,
) -> tuple[Any, Callable[[str], BufferedApp]]:
    """granian's server set up from curator's settings, and the loader that builds each worker's
    app: `server.serve(target_loader=load)` runs until SIGTERM/SIGINT (SIGHUP: new workers)."""
    from granian.constants import HTTPModes, Interfaces
    from granian.http import HTTP1Settings

    SharedSocketServer = server_class(listener)
    connections = connection_limit()

    def load(_target: str) -> BufferedApp:  # in each worker, after the fork
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # a stop asked meanwhile is kept here
        return BufferedApp(
            make_app(),
            threads=threads,
            read_timeout=read_timeout,
            max_body=max_body,
            body_budget=body_budget(max_body, threads),
        )

    host, port = listener.getsockname()[:2]
    server = SharedSocketServer(
        "curator.web:create_app",  # a name for the log; `load` builds the app
        address=host,
        port=port,
        interface=Interfaces.RSGI,
        workers=workers,
        http=HTTPModes.http1,
        websockets=False,
        backlog=BACKLOG,
        backpressure=connections,  # connections per worker: bounded by file descriptors, not threads
        http1_settings=HTTP1Settings(
            header_read_timeout=max(1, min(60_000, int(read_timeout * 1000))),  # also idle keep-alive
            keep_alive=keepalive > 0,
        ),
        log_access=access_log is not None,
        log_dictconfig=log_config(access_log),
        # a worker that dies stops the server (one line, exit 1) for the service manager to restart
        # (docs/deploy.md: Restart=on-failure): granian's respawn alternated between two workers
        # that could not boot for several rounds before its crash-loop check stopped it
        respawn_failed_workers=False,
        workers_kill_timeout=graceful_timeout,
    )
    return server, load


def server_class(listener: socket.socket) -> type:
    """granian's server class, made to serve on `listener` (see `listen`) and to stop a worker
    asked to stop while it started (its `load` releases the stop signals held around its fork,
    `BufferedApp.__rsgi_init__` asks the stop again). It leans
    on granian 2's internals (`_init_shared_socket`, `_spawn_worker`, a worker's `inner` process);
    tests/web/test_server.py fails if an upgrade changes them."""
    from granian._granian import SocketHolder
    from granian.server import Server

    main_pid = os.getpid()

    class SharedSocketServer(Server):  # type: ignore[misc, valid-type]
        """granian's server on `listener`: what granian does with a shared socket where
        SO_REUSEPORT is not available (its MPServer._init_shared_socket, non-Linux branch)."""

        # A stop (SIGTERM/SIGINT) asked while a worker starts. The worker inherits this
        # process's handler with the fork and keeps it until granian gives it its own, once the
        # app is built: the stop only set the stop flag of the worker's copy of this object, so
        # the worker never heard it and the stop waited `graceful_timeout` for the kill. And a
        # signal that came before Python's after-fork reset in the child was dropped. So the
        # fork happens with the stop signals held (pending, in the child too), `load` releases
        # them in the worker, this handler keeps the stop there, and once granian's own
        # handlers are in place `BufferedApp.__rsgi_init__` asks it again: the worker stops as
        # a started one does. (Ending it at once raced the main process when a stop reached
        # every process, Ctrl-C or systemd's control-group kill: a worker gone before the main
        # had asked it to stop read as a worker that died, exit 1.)

        def signal_handler_interrupt(self, *args: Any, **kwargs: Any) -> None:
            if os.getpid() != main_pid:
                StartingWorker.stop_asked = True
                return
            super().signal_handler_interrupt(*args, **kwargs)

        def _spawn_worker(self, *args: Any, **kwargs: Any) -> Any:
            worker = super()._spawn_worker(*args, **kwargs)
            fork = worker.inner.start

            def fork_with_stops_held() -> None:
                held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
                try:
                    fork()
                finally:
                    signal.pthread_sigmask(signal.SIG_SETMASK, held)

            worker.inner.start = fork_with_stops_held
            return worker

        def _init_shared_socket(self) -> None:
            self._ssp = None
            self._shd = SocketHolder(listener.fileno(), False, BACKLOG)  # type: ignore[call-arg]
            self._sfd = listener.fileno()
            self._sso = listener

    return SharedSocketServer


def connection_limit() -> int:
    """Open connections each worker may hold: what its file-descriptor limit allows (raised to the
    hard limit first), less a margin for the database, log files and the like."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        wanted = 65536 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return max(64, soft - 128)


def body_budget(max_body: int | None, threads: int) -> int:
    """Bytes of (larger) request bodies one worker buffers at once: enough for every thread to
    have a largest body waiting, and never less than 16 MiB."""
    return max(16 << 20, 2 * threads * (max_body or 1 << 20))


def log_config(access_log: str | None) -> dict[str, Any]:
    """granian's log to stderr; the access log to stderr ('-') or appended to a file."""
    access: dict[str, Any] = {"class": "logging.StreamHandler", "formatter": "access", "stream": "ext://sys.stderr"}
    if access_log not in (None, "-"):
        access = {"class": "logging.FileHandler", "formatter": "access", "filename": access_log}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "generic": {"format": "[%(levelname)s] %(message)s"},
            "access": {"format": "%(message)s"},
        },
        "handlers": {
            "console": {"class": "logging.StreamHandler", "formatter": "generic", "stream": "ext://sys.stderr"},
            "access": access,
        },
        "loggers": {
            "_granian": {"handlers": ["console"], "level": "INFO", "propagate": False},
            "granian.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
            "curator.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
        },
    }

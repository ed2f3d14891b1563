"""Real HTTP servers on localhost for browser tests, load tests and benchmarks:
`LiveServer` (werkzeug's threaded server in a background thread, in this process) and
`ServeProcess` (`curator serve` itself — granian — as a child process)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from flask import Flask
from werkzeug.serving import WSGIRequestHandler, make_server


class LiveServer:
    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0):
        # requests in flight: stopping waits for them, so no handler thread is still running the
        # app (compiling a template, say) once the block ends — CPython 3.11's ast/compile is not
        # safe to run in two threads at once (gh-106905: "AST constructor recursion depth
        # mismatch" in the next test's create_app)
        self.busy = threading.Condition()
        self.in_flight = 0
        self.server = make_server(host, port, app, threaded=True, request_handler=self._counting_handler())
        self.url = f"http://{host}:{self.server.server_port}"
        # shutdown() waits for the loop to see its flag, which it checks every poll interval
        # (socketserver's default 0.5 s: up to half a second per test server stopped)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
        with self.busy:  # werkzeug's handler threads are daemons that server_close does not join
            self.busy.wait_for(lambda: self.in_flight == 0, timeout=10)

    def _counting_handler(self) -> type[WSGIRequestHandler]:
        """werkzeug's handler, counting each request from before the app runs until werkzeug is
        done with it. Counted around `run_wsgi`, not by the body's `close`: when the browser
        resets the connection, werkzeug's drain of the socket raises before it closes the
        body, so a count kept by `close` never came down and stopping waited its whole timeout
        (10 s a Chromium test, now and then)."""
        live = self

        class Counting(WSGIRequestHandler):
            def run_wsgi(self) -> None:
                with live.busy:
                    live.in_flight += 1
                try:
                    super().run_wsgi()
                finally:
                    live._done()

        return Counting

    def _done(self) -> None:
        with self.busy:
            self.in_flight -= 1
            self.busy.notify_all()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServeProcess:
    """`python -m curator.cli --database URL serve …` on a free port until the block ends
    (SIGTERM: granian finishes the requests in flight)."""

    def __init__(self, database_url: str, *args: str, env: dict | None = None, start_timeout: float = 60.0):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.command = [
            sys.executable,
            "-m",
            "curator.cli",
            "--database",
            database_url,
            "serve",
            "--port",
            str(self.port),
            *args,
        ]
        self.env = {**os.environ, **(env or {})}
        # an instance folder of its own unless one is given: the server keeps its secret key
        # there (and reads runs from it), never in the folder the tests are run from
        self._instance: tempfile.TemporaryDirectory[str] | None = None
        if "CURATOR_INSTANCE_PATH" not in self.env:
            self._instance = tempfile.TemporaryDirectory(prefix="curator-instance-")
            self.env["CURATOR_INSTANCE_PATH"] = self._instance.name
        self.start_timeout = start_timeout
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> ServeProcess:
        self.log_file = tempfile.TemporaryFile("w+")  # a pipe nobody reads could fill and stall the server
        self.process = subprocess.Popen(
            self.command, env=self.env, stdout=self.log_file, stderr=subprocess.STDOUT, text=True
        )
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"curator serve exited {self.process.returncode}: {self.read_log()}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        self.__exit__()
        raise RuntimeError(f"curator serve did not answer on {self.url} within {self.start_timeout} s")

    def signal(self, sig: int) -> None:
        if self.process is None:
            raise RuntimeError("the server is not started (use it in a `with` block)")
        self.process.send_signal(sig)

    def __exit__(self, *exc) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._instance is not None:
            self._instance.cleanup()

    def read_log(self) -> str:
        # pread: the child writes through the same open file, so moving its offset (seek) could
        # make it overwrite the log while a test reads it
        fd = self.log_file.fileno()
        return os.pread(fd, os.fstat(fd).st_size, 0).decode("utf-8", "replace")


def process_tree(pid: int) -> list[int]:
    """A process and its descendants (a served command's workers), from /proc; gone ones left out."""
    pids, at = [pid], 0
    while at < len(pids):
        current = pids[at]
        at += 1
        try:
            with open(f"/proc/{current}/task/{current}/children") as children:
                pids += [int(child) for child in children.read().split()]
        except OSError:
            continue
    return pids


def tree_rss(pid: int) -> int:
    """Resident memory of a process and its descendants, in bytes (/proc; a process gone meanwhile counts 0)."""
    total = 0
    for current in process_tree(pid):
        try:
            with open(f"/proc/{current}/status") as status:
                total += next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS:"))
        except OSError:
            continue
    return total

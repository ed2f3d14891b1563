"""A throwaway redis-server for the tests (Debian's `redis-server`, as `bin/dev test` installs it).

It listens only on a Unix socket in a temporary folder (no port to race for, nothing reachable
from outside), keeps nothing on disk (no RDB snapshots, no append-only file) and is ready when
it answers PING on that socket. `url` is what CURATOR_RATELIMIT_STORAGE takes.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

MISSING = "redis-server not found (apt-get install redis-server)"
START_TIMEOUT = 60.0  # only a guard against a server that never comes up; it is ready in milliseconds


class RedisServer:
    def __init__(self) -> None:
        self.binary = shutil.which("redis-server")
        if self.binary is None:
            raise FileNotFoundError(MISSING)
        self.root = Path(tempfile.mkdtemp(prefix="curator-redis-"))
        self.socket = self.root / "redis.sock"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis+unix://{self.socket}"

    def client(self):
        import redis

        return redis.Redis(unix_socket_path=str(self.socket))

    def start(self) -> RedisServer:
        self.log = open(self.root / "log", "w+")  # noqa: SIM115  (open while the server runs; stop() closes it)
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                "0",
                "--unixsocket",
                str(self.socket),
                "--unixsocketperm",
                "700",
                "--dir",
                str(self.root),
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + START_TIMEOUT
        while True:  # ready when it answers on its socket
            if self.process.poll() is not None:
                self.stop()
                raise RuntimeError(f"redis-server exited {self.process.returncode}: {self.read_log()}")
            try:
                if self.client().ping():
                    return self
            except Exception as err:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(
                        f"redis-server did not answer within {START_TIMEOUT} s: {self.read_log()}"
                    ) from err
                time.sleep(0.05)

    def flush(self) -> None:
        self.client().flushall()

    def read_log(self) -> str:
        self.log.seek(0)
        return self.log.read()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)

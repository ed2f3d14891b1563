"""A real HTTP server on localhost in a background thread, for browser tests, load tests
and benchmarks (werkzeug's threaded server, one thread per request like `curator serve`)."""
from __future__ import annotations

import threading

from flask import Flask
from werkzeug.serving import make_server


class LiveServer:
    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0):
        self.server = make_server(host, port, app, threaded=True)
        self.url = f"http://{host}:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

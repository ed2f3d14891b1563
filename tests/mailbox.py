"""A real SMTP server for the tests that read e-mail (aiosmtpd, as tests/test_people.py uses):
`running_inbox()` starts one on a free local port and stops it afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from .test_people import Inbox, _closed_port


@contextmanager
def running_inbox() -> Iterator[Inbox]:
    aiosmtpd = pytest.importorskip("aiosmtpd.controller", reason="aiosmtpd is not installed (the test extra)")
    inbox = Inbox()
    inbox.port = _closed_port()  # a free port (aiosmtpd's start-up check cannot use port 0)
    controller = aiosmtpd.Controller(inbox, hostname="127.0.0.1", port=inbox.port)
    controller.start()  # returns once the server answers
    try:
        yield inbox
    finally:
        controller.stop()

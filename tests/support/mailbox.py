"""A real SMTP server for the tests that read e-mail (aiosmtpd, as tests/review/test_people.py uses):
`running_inbox()` starts one on a free local port and stops it afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.review.test_people import Inbox, _closed_port


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


BASE = "https://review.example.org"  # CURATOR_BASE_URL of the apps below: every e-mailed link starts with it


def mail_app(db_url, tmp_path, port: int | None = None, **extra):
    """The review app on `db_url`, rate limits off; with `port`, e-mailing through the inbox
    listening there, links from BASE."""
    from curator.web import create_app

    config = {
        "DATABASE_URL": db_url,
        "SECRET_KEY": "test-secret",
        "RUNS_DIR": str(tmp_path / "runs"),
        "RATELIMIT_ENABLED": False,
    }
    if port is not None:
        config |= {
            "SMTP_HOST": "127.0.0.1",
            "SMTP_PORT": port,
            "SMTP_FROM": "curator@example.org",
            "SMTP_STARTTLS": False,
            "BASE_URL": BASE,
        }
    return create_app(config | extra)

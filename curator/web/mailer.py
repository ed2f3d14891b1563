"""Work done after the request has answered: a "Forgot password?" request — its e-mail, or
where the app sends no e-mail the request it records for the maintainers
(review.reset_requests) — and @mention e-mails.

A job runs on one background thread of the process (made on first use, so each server
worker has its own after the fork), inside the app's context, with its own database session.
So the answer a visitor gets takes the same time and says the same whatever the job finds (an
unknown address, a deactivated account, a server that is slow to accept the mail): the
"Forgot password?" page cannot tell anyone whether an address has an account. A job that fails
is logged (a mail server that refuses is one warning line); it never reaches the visitor.

Whole links in these e-mails come from `Settings.link` (CURATOR_BASE_URL), never from the
request, which a job does not even see. `drain` waits for the jobs submitted so far (tests,
and a clean stop).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait

from flask import Flask, current_app
from limits import parse_many

from curator.core.settings import Settings

log = logging.getLogger("curator.mail")

KEY = "curator.mailer"


class Mailer:
    def __init__(self, app: Flask):
        self.app = app
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._pending: set[Future[None]] = set()

    def submit(self, job: Callable[[Flask], None]) -> None:
        """Run `job(app)` on the background thread, in an app context."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="curator-mail")
            future = self._pool.submit(self._run, job)
            self._pending.add(future)
        future.add_done_callback(self._done)

    def _run(self, job: Callable[[Flask], None]) -> None:
        with self.app.app_context():
            try:
                job(self.app)
            except Exception:  # a background job has no one to answer: its failure is logged
                log.exception("an e-mail job failed")

    def _done(self, future: Future[None]) -> None:
        with self._lock:
            self._pending.discard(future)

    def drain(self, timeout: float = 60.0) -> None:
        """Wait for every job submitted so far."""
        with self._lock:
            pending = set(self._pending)
        wait(pending, timeout=timeout)


def mailer(app: Flask | None = None) -> Mailer:
    app = app or current_app._get_current_object()  # type: ignore[attr-defined]
    found: Mailer | None = app.extensions.get(KEY)
    if found is None:
        found = app.extensions.setdefault(KEY, Mailer(app))
    return found


def within_mail_limit(app: Flask, settings: Settings, scope: str, key: str) -> bool:
    """Count one e-mail against CURATOR_RATELIMIT_MAIL for `key` (a person) in `scope`: False
    (and nothing counted) once the limit is reached. Counted in the rate-limit store the sign-in
    limits use (web/limits.py); with the limits off (tests), always True."""
    if not settings.ratelimit_enabled:
        return True
    strategy = app.extensions["curator.limiter"].limiter
    items = parse_many(settings.ratelimit_mail)
    if not all(strategy.test(item, scope, key) for item in items):
        return False
    for item in items:
        strategy.hit(item, scope, key)
    return True

"""What the HTTP backends share: keys from the environment, rate limit, retries, clear errors.

Retries cover what is worth waiting for: 429 (too many requests), 5xx and network errors,
with exponential backoff, honouring the server's Retry-After. Any other status is
permanent and fails at once with the system's name, the status and an excerpt of the body.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

import requests

from curator.core.errors import InputError
from curator.core.settings import Settings
from curator.translate.backends.base import Translator
from curator.translate.errors import TranslationError

DEFAULT_TIMEOUT = (10.0, 60.0)  # connect, read (seconds)
MAX_WAIT = 600.0  # the longest Retry-After worth sleeping through


class RateLimiter:
    """At most `rate` request starts per second (None: no limit)."""

    def __init__(
        self,
        rate: float | None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if rate is not None and rate <= 0:
            raise InputError("the rate must be positive (requests per second)")
        self.interval = 1.0 / rate if rate else 0.0
        self.clock, self.sleep = clock, sleep
        self.next_start = 0.0

    def wait(self) -> None:
        now = self.clock()
        if now < self.next_start:
            self.sleep(self.next_start - now)
            now = self.next_start
        self.next_start = now + self.interval


def retry_after(response: requests.Response) -> float | None:
    """Seconds the server asks us to wait (Retry-After as seconds or an HTTP date), if it says."""
    value = response.headers.get("Retry-After", "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def excerpt(text: str, limit: int = 300) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[:limit] + "…"


class HttpTranslator(Translator):
    """A JSON-over-HTTPS translation API. Subclasses set `env`, `default_url` and build requests."""

    env: str = ""  # CURATOR_<env>_KEY / CURATOR_<env>_URL
    default_url: str = ""
    key_required: bool = True

    def __init__(
        self,
        key: str | None = None,
        url: str | None = None,
        rate: float | None = None,
        retries: int | None = None,
        timeout: float | tuple[float, float] = DEFAULT_TIMEOUT,
        backoff: float = 1.0,
        batch_size: int | None = None,
        session: requests.Session | None = None,
        settings: Settings | None = None,
    ):
        settings = settings or Settings.from_env()
        self.key = key or settings.env(f"{self.env}_KEY")
        if self.key_required and not self.key:
            raise TranslationError(self.name, f"no API key: set CURATOR_{self.env}_KEY")
        self.url = (url or settings.env(f"{self.env}_URL") or self.base_url()).rstrip("/")
        self.settings = settings
        if retries is None:
            retries = settings.translate_retries  # CURATOR_TRANSLATE_RETRIES
        if retries < 0:
            raise InputError("retries must be 0 or more")
        self.retries, self.timeout, self.backoff = retries, timeout, backoff
        self.limiter = RateLimiter(rate)
        if batch_size is not None:
            if batch_size < 1:
                raise InputError("the batch size must be at least 1")
            self.max_items = min(self.max_items, batch_size)
        self.http = session or requests.Session()
        self.sleep: Callable[[float], None] = time.sleep

    def base_url(self) -> str:
        return self.default_url

    def post(
        self, path: str, body: Any, headers: dict[str, str] | None = None, params: dict[str, str] | None = None
    ) -> Any:
        """POST JSON, retrying 429/5xx/network errors; the parsed JSON answer, or TranslationError."""
        url = self.url + path
        attempts = self.retries + 1
        problem = ""
        for attempt in range(1, attempts + 1):
            self.limiter.wait()
            delay = self.backoff * 2 ** (attempt - 1)
            try:
                response = self.http.post(url, json=body, headers=headers, params=params, timeout=self.timeout)
            except (requests.ConnectionError, requests.Timeout) as exc:
                problem = f"{type(exc).__name__} at {url}"
            except requests.RequestException as exc:
                detail = str(exc).replace(self.key, "***") if self.key else str(exc)  # the key may be in the URL
                raise TranslationError(self.name, f"request to {url} failed: {type(exc).__name__}: {detail}") from None
            else:
                if response.status_code == 200:
                    try:
                        return response.json()
                    except ValueError:
                        raise TranslationError(
                            self.name, f"HTTP 200 from {url} but not JSON: {excerpt(response.text)}"
                        ) from None
                problem = f"HTTP {response.status_code} from {url}: {excerpt(response.text)}"
                if response.status_code != 429 and response.status_code < 500:
                    raise TranslationError(self.name, problem)
                asked = retry_after(response)
                if asked is not None:
                    if asked > MAX_WAIT:
                        raise TranslationError(self.name, f"{problem} (asked to retry after {asked:.0f} s)")
                    delay = asked
            if attempt < attempts:
                self.sleep(min(delay, MAX_WAIT))
        raise TranslationError(self.name, f"gave up after {attempts} attempts: {problem}")

    def shape_error(self, url_path: str, answer: Any) -> TranslationError:
        return TranslationError(self.name, f"unexpected answer from {self.url + url_path}: {excerpt(repr(answer))}")

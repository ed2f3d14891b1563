"""What the HTTP backends share: keys from the environment, rate limit, retries, clear errors.

Retries are urllib3's `Retry`, mounted on the requests session: 429 (too many requests), 5xx
and network errors are retried with exponential backoff (urllib3's schedule: no wait after
the first failure, then `backoff` × 2, × 4, …), honouring the server's Retry-After (seconds
or an HTTP date). A Retry-After longer than MAX_WAIT fails at once rather than sleeping for
hours. Any other status is permanent and fails at once with the system's name, the status
and an excerpt of the body.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypedDict

import requests
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import ConnectionPool
from urllib3.exceptions import InvalidHeader, MaxRetryError, ResponseError
from urllib3.response import BaseHTTPResponse
from urllib3.util.retry import Retry

from curator.core.errors import InputError
from curator.core.settings import Settings
from curator.translate.backends.base import Translator
from curator.translate.errors import TranslationError

if TYPE_CHECKING:
    from typing import Self

DEFAULT_TIMEOUT = (10.0, 60.0)  # connect, read (seconds)
MAX_WAIT = 600.0  # the longest Retry-After worth sleeping through
RETRY_STATUSES = frozenset([429, *range(500, 600)])  # worth waiting for; any other status is permanent


class HttpOptions(TypedDict, total=False):
    """`HttpTranslator`'s keyword arguments, for subclasses that pass them on (`**options`)."""

    key: str | None
    url: str | None
    rate: float | None
    retries: int
    timeout: float | tuple[float, float]
    backoff: float
    batch_size: int | None
    session: requests.Session | None
    settings: Settings | None


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


class TranslatorRetry(Retry):
    """urllib3's `Retry` with two changes: the waits between attempts go through `pause` (the
    translator's `sleep`, then its rate limit, so a retry is a request start like any other and
    tests can record the waits), and a Retry-After over MAX_WAIT ends the retries at once (the
    response comes back to `HttpTranslator.post`, which names the wait)."""

    pause: Callable[[float], None] = staticmethod(time.sleep)

    def new(self, **kw: Any) -> Self:
        retry = super().new(**kw)
        retry.pause = self.pause
        return retry

    def get_retry_after(self, response: BaseHTTPResponse) -> float | None:
        try:
            return super().get_retry_after(response)
        except InvalidHeader:  # neither seconds nor a date: use the backoff
            return None

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: BaseHTTPResponse | None = None,
        error: Exception | None = None,
        _pool: ConnectionPool | None = None,
        _stacktrace: Any = None,
    ) -> Self:
        if response is not None and (self.get_retry_after(response) or 0.0) > MAX_WAIT:
            raise MaxRetryError(_pool, url or "", ResponseError(f"Retry-After over {MAX_WAIT:.0f} s"))  # type: ignore[arg-type]
        return super().increment(method, url, response, error, _pool, _stacktrace)

    def sleep(self, response: BaseHTTPResponse | None = None) -> None:
        asked = self.get_retry_after(response) if response is not None else None
        self.pause(self.get_backoff_time() if asked is None else asked)


def retry_after(response: requests.Response) -> float | None:
    """Seconds the server asks us to wait (Retry-After as seconds or an HTTP date), if it says."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return Retry().parse_retry_after(value)
    except InvalidHeader:
        return None


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
        retry = TranslatorRetry(
            total=retries,
            status_forcelist=RETRY_STATUSES,
            # POST too: a translation request only reads (the same texts give the same answer and
            # nothing is stored on the server), so sending it again is safe
            allowed_methods=frozenset(["POST"]),
            backoff_factor=backoff,
            backoff_max=MAX_WAIT,
            raise_on_status=False,  # the last 429/5xx comes back as a response: post() names it
        )
        retry.pause = self._between_attempts
        self.http.mount(self.url, HTTPAdapter(max_retries=retry))

    def base_url(self) -> str:
        return self.default_url

    def _between_attempts(self, seconds: float) -> None:
        if seconds > 0:
            self.sleep(seconds)
        self.limiter.wait()

    def post(
        self, path: str, body: Any, headers: dict[str, str] | None = None, params: dict[str, str] | None = None
    ) -> Any:
        """POST JSON, retrying 429/5xx/network errors; the parsed JSON answer, or TranslationError."""
        url = self.url + path
        attempts = self.retries + 1
        self.limiter.wait()
        try:
            response = self.http.post(url, json=body, headers=headers, params=params, timeout=self.timeout)
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise TranslationError(
                self.name, f"gave up after {attempts} attempts: {type(exc).__name__} at {url}"
            ) from None
        except requests.RequestException as exc:
            detail = str(exc).replace(self.key, "***") if self.key else str(exc)  # the key may be in the URL
            raise TranslationError(self.name, f"request to {url} failed: {type(exc).__name__}: {detail}") from None
        if response.status_code == 200:
            try:
                return response.json()
            except ValueError:
                raise TranslationError(
                    self.name, f"HTTP 200 from {url} but not JSON: {excerpt(response.text)}"
                ) from None
        problem = f"HTTP {response.status_code} from {url}: {excerpt(response.text)}"
        if response.status_code not in RETRY_STATUSES:
            raise TranslationError(self.name, problem)
        asked = retry_after(response)
        if asked is not None and asked > MAX_WAIT:
            raise TranslationError(self.name, f"{problem} (asked to retry after {asked:.0f} s)")
        raise TranslationError(self.name, f"gave up after {attempts} attempts: {problem}")

    def shape_error(self, url_path: str, answer: Any) -> TranslationError:
        return TranslationError(self.name, f"unexpected answer from {self.url + url_path}: {excerpt(repr(answer))}")

"""The settings checked once, in `curator serve`'s own process, before granian forks workers.

A setting that stops the app from being built stops every worker the same way: the old server
(gunicorn) restarted them forever while `curator serve` kept running and answered nothing (a
redis:// rate-limit store without the `redis` package, for instance). So the server checks
first and refuses to start with one line naming the setting (`Error: CURATOR_RATELIMIT_STORAGE=…:
<reason>`, exit 1); a worker that still fails to boot stops the whole server (granian's crash
loop detection: a worker that dies again within seconds of its restart stops it).

Checked: the rate-limit store (a scheme `limits` knows, its Python client installed, a
synchronous store that supports the limiter's strategy, and reachable: one read), every
`CURATOR_RATELIMIT_*` limit string (Flask-Limiter would skip an unparsable one silently, i.e.
no limit at all), a fixed `CURATOR_SECRET_KEY` when the server listens beyond loopback (other
machines reach it: a second app host must accept this one's cookies, and a restart must not
sign everyone out) and strong enough there (`check_key_strength`: not short, not a well-known
example), and then the app itself, built once and thrown away, for anything else.
The database (reachable, at the code's migration level) is checked by `check_current` before.
"""

from __future__ import annotations

import ipaddress
from dataclasses import fields
from urllib.parse import urlsplit

from curator.core.errors import CuratorError, InputError
from curator.core.settings import Settings

PROBE_KEY = "curator/preflight"  # read, then counted once (expires in a second): the store answers and takes writes


def masked(uri: str) -> str:
    """The URI as it may be printed: a password in it replaced by ***."""
    try:
        password = urlsplit(uri).password
    except ValueError:
        return uri
    return uri.replace(f":{password}@", ":***@", 1) if password else uri


def _reason(exc: BaseException, secret: str | None) -> str:
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return text.replace(secret, "***") if secret else text


def check_ratelimit_storage(uri: str) -> None:
    """The rate-limit store answers and suits the limiter; else InputError naming the setting."""
    from limits.errors import ConfigurationError
    from limits.storage import Storage, storage_from_string
    from limits.strategies import STRATEGIES

    from curator.web.limits import STRATEGY

    where = f"CURATOR_RATELIMIT_STORAGE={masked(uri)}"
    try:
        parts = urlsplit(uri)
        secret = parts.password
    except ValueError as exc:
        raise InputError(f"not a storage URI ({exc})", location=where) from None
    try:
        storage = storage_from_string(uri)
    except ConfigurationError as exc:  # e.g. "'redis' prerequisite not available": its client is not installed
        if str(exc).startswith("unknown storage scheme"):  # limits' message repeats the whole URI
            raise InputError(
                f"unknown storage scheme {parts.scheme!r}: memory:// counts in one process, "
                "redis://host:6379 is shared by every worker and host",
                location=where,
            ) from None
        raise InputError(_reason(exc, secret), location=where) from None
    except Exception as exc:
        raise InputError(f"not a usable storage URI: {_reason(exc, secret)}", location=where) from None
    if not isinstance(storage, Storage):
        raise InputError("not a synchronous storage", location=where)
    try:
        STRATEGIES[STRATEGY](storage)
    except NotImplementedError:
        raise InputError(
            f"this storage does not support the {STRATEGY} limits the app uses (use redis:// or memory://)",
            location=where,
        ) from None
    try:
        storage.get(PROBE_KEY)
    except Exception as exc:
        raise InputError(f"cannot reach the store: {_reason(exc, secret)}", location=where) from None
    try:  # a write too: a read-only replica or ACL user answers reads, and every count would fail
        storage.incr(PROBE_KEY, 1)
    except Exception as exc:
        raise InputError(f"the store refuses writes: {_reason(exc, secret)}", location=where) from None
    finally:
        _close(storage)


def _close(storage) -> None:
    """Drop the check's connections: the workers open their own after the fork."""
    pool = getattr(getattr(storage, "storage", None), "connection_pool", None)
    if pool is not None:
        pool.disconnect()


def check_rate_limits(settings: Settings) -> None:
    """Every CURATOR_RATELIMIT_* limit string parses ("10/minute;50/hour")."""
    from limits import parse_many

    for f in fields(settings):
        value = getattr(settings, f.name)
        if (
            f.name.startswith("ratelimit_")
            and f.name not in ("ratelimit_enabled", "ratelimit_storage", "ratelimit_prefix")
            and isinstance(value, str)
        ):
            try:
                parse_many(value)
            except ValueError:
                raise InputError(
                    "not a rate limit (expected e.g. 10/minute;50/hour)", location=f"CURATOR_{f.name.upper()}={value}"
                ) from None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: other machines may reach it


def check_secret_key(settings: Settings, host: str) -> None:
    """A server other machines reach needs CURATOR_SECRET_KEY: without it each process makes a
    random key, so another app host refuses this one's cookies and a restart signs everyone out."""
    if not settings.secret_key_from_env and not is_loopback(host):
        raise InputError(
            f"not set, and the server listens on {host}, beyond this machine: "
            'set the same key on every app host (python3 -c "import secrets; '
            "print(secrets.token_hex(32))\"), or each host signs the others' users out",
            location="CURATOR_SECRET_KEY",
        )


# keys seen in tutorials, examples and these docs: a key anyone can look up signs anyone's cookie
KNOWN_KEYS = frozenset(
    {"secret", "secret-key", "secret_key", "changeme", "change-me", "dev", "development", "test", "test-secret"}
    | {"password", "curator", "flask", "default", "your-secret-key", "super-secret", "supersecret"}
)
MIN_KEY_LENGTH = 32  # characters: `secrets.token_hex(32)` gives 64


def weak_key_reason(key: str) -> str | None:
    """Why a CURATOR_SECRET_KEY is too weak to sign cookies others can reach, or None."""
    if key.strip().lower() in KNOWN_KEYS:
        return "a well-known example key"
    if len(key) < MIN_KEY_LENGTH:
        return f"shorter than {MIN_KEY_LENGTH} characters"
    if len(set(key)) < 8:
        return "too few different characters"
    return None


def check_key_strength(settings: Settings, host: str) -> None:
    """Beyond loopback a short or well-known CURATOR_SECRET_KEY is refused (issue 38 §2): whoever
    guesses it signs a cookie for any account. Loopback (tests, a laptop) takes any key."""
    reason = weak_key_reason(settings.secret_key) if settings.secret_key_from_env else None
    if reason and not is_loopback(host):
        raise InputError(
            f"{reason}, and the server listens on {host}, beyond this machine: "
            'make one with python3 -c "import secrets; print(secrets.token_hex(32))"',
            location="CURATOR_SECRET_KEY",
        )


def check_dev_host(host: str) -> None:
    """`curator serve --dev` runs Werkzeug's debugger, which runs any Python it is sent: loopback only."""
    if not is_loopback(host):
        raise InputError(
            f"the debugger runs any code sent to it, so --dev listens on loopback only, not {host} "
            "(drop --dev, or use --host 127.0.0.1)",
            location="--dev",
        )


def cookie_warning(settings: Settings, host: str) -> str | None:
    """The one-line warning `curator serve` prints when it listens beyond loopback and is not told
    it is behind HTTPS: cookies then go over plain HTTP too (None when all is well)."""
    if settings.https or is_loopback(host):
        return None
    return (
        f"Warning: the server listens on {host} and cookies are not Secure: behind HTTPS set "
        "CURATOR_BASE_URL=https://… (or CURATOR_SECURE_COOKIES=1)"
    )


def check_app(settings: Settings) -> None:
    """Build the app once, as each worker will, and throw it away."""
    from curator.web import create_app

    try:
        app = create_app(settings)
    except CuratorError:
        raise
    except Exception as exc:
        raise CuratorError(f"the app cannot start: {type(exc).__name__}: {_reason(exc, None)}") from None
    app.extensions["curator.engine"].dispose()
    limiter = app.extensions.get("curator.limiter")
    if limiter is not None and settings.ratelimit_enabled:  # a disabled limiter has no storage to close
        _close(limiter.storage)


def check_before_fork(settings: Settings, host: str) -> None:
    """Everything above, in order; the first failure raises (a CuratorError: one line, exit 1)."""
    if settings.ratelimit_enabled:
        check_ratelimit_storage(settings.ratelimit_storage)
        check_rate_limits(settings)
    check_secret_key(settings, host)
    check_key_strength(settings, host)
    check_app(settings)

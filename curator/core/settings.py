"""Settings: one object, read once from the environment, handed to the app and the CLI.

Secrets (the session key, translation API keys) come only from the environment, never from
code or the repository. Everything that reads configuration takes a `Settings` (or a value
from one) as an argument, so a test or a second app in the same process can use its own.

Every default lives here, once: the field's default below. The modules that use a value read
it from a `Settings` (or, as a keyword default, from the field: `Settings.busy_timeout`), the
CLI's options show it in their help, and the settings reference (docs/reference/settings.md, a
table made from these fields when the site is built: docs/hooks/settings_table.py, checked by
tests/core/test_settings.py) lists each variable of `ENV` with its default.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

from curator.core.errors import InputError
from curator.core.secret_key import kept_secret_key


@dataclass(frozen=True)
class Settings:
    database_url: str
    instance_path: Path
    secret_key: str
    # False: CURATOR_SECRET_KEY unset, `secret_key` is this process's random one (`curator serve`
    # replaces it with the key kept in the instance folder: `with_kept_key`)
    secret_key_from_env: bool = True
    secure_cookies: bool = False
    runs_dir: Path | None = None
    busy_timeout: float = 30.0  # seconds a writer waits for another writer's lock (SQLite or PostgreSQL)
    threads: int = 8  # requests a web worker serves at once: its PostgreSQL pool holds as many connections
    max_body: int = 1 << 20  # bytes; review requests are a few hundred bytes, forms a few KB
    remember_days: float = 14.0  # a stolen remember cookie must not be good for a year (Flask-Login's default)
    # reverse proxies trusted for X-Forwarded-For and -Proto (never -Host: nginx passes the Host
    # itself, and a client's own X-Forwarded-Host would become the host of invitation links)
    proxy_fix: int = 0
    ratelimit_enabled: bool = True
    ratelimit_storage: str = "memory://"  # per process: several workers need a shared one (redis://)
    ratelimit_account: str = "10/minute;50/hour"  # guesses at one account's password
    ratelimit_address: str = "30/minute;300/hour"  # from one address (a classroom behind one NAT signs in too)
    ratelimit_password: str = "5/minute;20/hour"  # wrong current passwords on the account page
    ratelimit_token: str = "10/minute;50/hour"  # refused API tokens from one address
    # e-mails a visitor can make the app send: "forgot password" per typed address, and @mention
    # e-mails per person mentioned
    ratelimit_mail: str = "3/hour;10/day"
    # "forgot password" requests per client address: higher, a classroom behind one NAT shares it
    ratelimit_mail_client: str = "20/hour;100/day"
    ratelimit_search: str = "60/minute;600/hour"  # a reviewer's searches of their queue (page and API)
    ratelimit_reply: str = "20/minute;200/hour"  # replies in comment threads per account (every form and the API)
    fetch_timeout: float = 600.0  # seconds in all for one file of a URL source (a trickling server is cut off)
    # bytes per file of a URL source, on the wire and decompressed (an endless stream or a gzip bomb
    # is cut off): 250x the largest real file (253 KiB), and a file at the limit parses in < 1 GB
    fetch_max_bytes: int = 64 << 20
    # `curator serve` (each also an option of that command, which wins over the variable)
    host: str = "127.0.0.1"  # loopback: nginx in front, or a private address on an app host
    port: int = 5000
    workers: int = 2  # server (granian) processes: about one per core (SQLite has one writer at a time anyway)
    graceful_timeout: int = 30  # seconds to finish the requests in flight on SIGHUP / SIGTERM
    read_timeout: float = 10.0  # seconds a whole request (line, headers, body) may take to arrive
    keepalive: int = 5  # 0: no keep-alive; else granian keeps an idle connection until the read timeout
    access_log: str | None = None  # a file, '-' for stderr; none by default
    translate_retries: int = 5  # retries of an HTTP translation API after 429, 5xx and network errors
    # e-mail (password-reset links, invitations): sent only when smtp_host is set, else shown to copy
    smtp_host: str | None = None
    smtp_port: int = 587  # submission; 465 means TLS from the first byte (SMTP_SSL)
    smtp_user: str | None = None  # no user: no AUTH (a local relay)
    smtp_password: str | None = None
    smtp_from: str | None = None  # the sender address; required with smtp_host
    smtp_starttls: bool = True  # STARTTLS before AUTH (ignored on port 465)
    # the address the app is served at, as its users open it (https://review.example.org): every
    # link made for someone else (invitations, reset links, e-mails) starts with it, never with
    # the Host header of a request. Unset: the CLI prints paths, e-mails that need it are not sent
    base_url: str | None = None
    # how visitors reach whoever runs the review (an e-mail address, a web address or a sentence),
    # shown on "Forgot your password?"; unset: nothing shown
    help_contact: str | None = None
    # issue 38 §2 (hardening): the rate-limit keys' prefix, so that two instances (staging and
    # production, two projects) can share one redis without counting each other's requests
    ratelimit_prefix: str = "curator"
    # a sign-in ends when unused this long (hours; "remember me": CURATOR_REMEMBER_DAYS unused)
    session_idle: float = 8.0
    # and, used or not, this long after it was made (days): a stolen cookie is not good forever
    session_lifetime: float = 30.0
    # CURATOR_* variables for the translation backends (keys, URLs, region), by name
    translation: Mapping[str, str] = field(default_factory=dict)

    # the range a number may take, wherever it comes from (a variable, or `curator serve`'s option)
    RANGES: ClassVar[dict[str, tuple[float, float | None]]] = {
        "port": (0, 65535),
        "workers": (1, 64),
        "threads": (1, 256),
        "graceful_timeout": (1, None),
        "read_timeout": (0.1, None),
        "keepalive": (0, None),
        "smtp_port": (1, 65535),
        "session_idle": (0.01, None),
        "session_lifetime": (0.01, None),
    }

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        env = os.environ if environ is None else environ
        instance = Path(overrides.get("instance_path") or env.get("CURATOR_INSTANCE_PATH") or Path.cwd() / "instance")
        fetch_timeout = _number(env, "fetch_timeout", float, "seconds")
        if fetch_timeout == 0:
            raise InputError("expected seconds > 0, not 0", location="CURATOR_FETCH_TIMEOUT")
        fetch_max_bytes = _number(env, "fetch_max_bytes", int, "a number of bytes")
        if fetch_max_bytes == 0:
            raise InputError("expected a number of bytes > 0, not 0", location="CURATOR_FETCH_MAX_BYTES")
        settings = cls(
            database_url=env.get("CURATOR_DATABASE_URL") or f"sqlite:///{instance / 'curator.sqlite'}",
            instance_path=instance,
            # a random key per process is safe but signs everyone out on restart
            secret_key=env.get("CURATOR_SECRET_KEY") or secrets.token_hex(32),
            secret_key_from_env=bool(env.get("CURATOR_SECRET_KEY") or overrides.get("secret_key")),
            secure_cookies=_flag(env, "secure_cookies"),
            runs_dir=Path(env["CURATOR_RUNS_DIR"]) if env.get("CURATOR_RUNS_DIR") else None,
            busy_timeout=_number(env, "busy_timeout", float, "seconds"),
            threads=_number(env, "threads", int, "a number of threads"),
            max_body=_number(env, "max_body", int, "a number of bytes"),
            remember_days=_number(env, "remember_days", float, "days"),
            proxy_fix=_number(env, "proxy_fix", int, "a number of proxies"),
            ratelimit_enabled=_flag(env, "ratelimit_enabled"),
            ratelimit_storage=_text(env, "ratelimit_storage"),
            ratelimit_account=_text(env, "ratelimit_account"),
            ratelimit_address=_text(env, "ratelimit_address"),
            ratelimit_password=_text(env, "ratelimit_password"),
            ratelimit_token=_text(env, "ratelimit_token"),
            ratelimit_mail=_text(env, "ratelimit_mail"),
            ratelimit_mail_client=_text(env, "ratelimit_mail_client"),
            ratelimit_search=_text(env, "ratelimit_search"),
            ratelimit_reply=_text(env, "ratelimit_reply"),
            fetch_timeout=fetch_timeout,
            fetch_max_bytes=fetch_max_bytes,
            host=_text(env, "host"),
            port=_number(env, "port", int, "a port number"),
            workers=_number(env, "workers", int, "a number of processes"),
            graceful_timeout=_number(env, "graceful_timeout", int, "whole seconds"),
            read_timeout=_number(env, "read_timeout", float, "seconds"),
            keepalive=_number(env, "keepalive", int, "whole seconds"),
            access_log=env.get("CURATOR_ACCESS_LOG") or None,
            translate_retries=_number(env, "translate_retries", int, "a number of retries"),
            smtp_host=env.get("CURATOR_SMTP_HOST") or None,
            smtp_port=_number(env, "smtp_port", int, "a port number"),
            smtp_user=env.get("CURATOR_SMTP_USER") or None,
            smtp_password=env.get("CURATOR_SMTP_PASSWORD") or None,
            smtp_from=env.get("CURATOR_SMTP_FROM") or None,
            smtp_starttls=_flag(env, "smtp_starttls"),
            base_url=check_base_url(env.get("CURATOR_BASE_URL")),
            help_contact=(env.get("CURATOR_HELP_CONTACT") or "").strip() or None,
            ratelimit_prefix=_text(env, "ratelimit_prefix"),
            session_idle=_number(env, "session_idle", float, "hours"),
            session_lifetime=_number(env, "session_lifetime", float, "days"),
            translation={
                k: v
                for k, v in env.items()
                if k.startswith("CURATOR_")
                and k.endswith(("_KEY", "_URL", "_REGION"))
                and k not in ("CURATOR_SECRET_KEY", "CURATOR_DATABASE_URL")
            },
        )
        settings = replace(settings, **overrides) if overrides else settings
        if settings.smtp_host and not settings.smtp_from:
            raise InputError(
                "set the sender address of the e-mails (CURATOR_SMTP_HOST is set)", location="CURATOR_SMTP_FROM"
            )
        return settings

    @property
    def runs(self) -> Path:
        """The folder of probe runs: CURATOR_RUNS_DIR, else `runs` in the instance folder."""
        return self.runs_dir or self.instance_path / "runs"

    @property
    def secret_key_file(self) -> Path:
        """Where `curator serve` keeps its key when CURATOR_SECRET_KEY is not set."""
        return self.instance_path / "secret_key"

    def with_kept_key(self) -> Settings:
        """These settings with the key kept in `secret_key_file` (generated there once, mode
        0600; core.secret_key), unless CURATOR_SECRET_KEY or the caller gave one: what `curator
        serve` runs with, so that a restart signs nobody out."""
        if self.secret_key_from_env:
            return self
        return replace(self, secret_key=kept_secret_key(self.secret_key_file))

    def link(self, path: str) -> str | None:
        """The whole link to `path` (the app's path, "/reset/…") for someone else to open: the
        configured base URL and the path, or None without one. The one place such a link is made
        (the CLI, the web pages, every e-mail): never from a request's Host header."""
        if not self.base_url:
            return None
        return self.base_url + "/" + path.lstrip("/")

    @property
    def https(self) -> bool:
        """Whether the app is served over HTTPS (issue 38 §2): CURATOR_SECURE_COOKIES=1, or a
        CURATOR_BASE_URL that starts with https:// — then every cookie is `Secure` by itself."""
        return self.secure_cookies or (self.base_url or "").startswith("https://")

    @property
    def session_limits(self) -> tuple[timedelta, timedelta, timedelta]:
        """(idle, idle with "remember me", lifetime) of a sign-in (review.login_sessions.SessionLimits)."""
        return (
            timedelta(hours=self.session_idle),
            timedelta(days=self.remember_days),
            timedelta(days=self.session_lifetime),
        )

    def env(self, name: str) -> str | None:
        """A translation backend's CURATOR_<NAME> value, e.g. env("MICROSOFT_KEY")."""
        return self.translation.get(f"CURATOR_{name}") or None

    def flask_config(self) -> dict[str, Any]:
        """The Flask config keys Flask and its extensions read (Flask-Login, Flask-Limiter),
        derived from these settings. The app's own code reads the Settings itself
        (`curator.web.settings.current_settings()`), never a copy in `app.config`."""
        return {
            "SECRET_KEY": self.secret_key,
            "SESSION_COOKIE_HTTPONLY": True,
            "SESSION_COOKIE_SAMESITE": "Lax",
            "SESSION_COOKIE_SECURE": self.https,
            "REMEMBER_COOKIE_SECURE": self.https,
            "REMEMBER_COOKIE_HTTPONLY": True,
            "REMEMBER_COOKIE_SAMESITE": "Lax",
            # the remember cookie lives as long as a sign-in may (CURATOR_SESSION_LIFETIME); the idle
            # limit (CURATOR_REMEMBER_DAYS since the last use) is the server's, on the login session's
            # row. Not refreshed on each request: Flask-Login would then rewrite the session cookie
            # on every answer, a signed-out visitor's included (a refused form would set a cookie,
            # and an answer still in flight would put back a cookie the browser had just dropped)
            "REMEMBER_COOKIE_DURATION": timedelta(days=self.session_lifetime),
            "REMEMBER_COOKIE_REFRESH_EACH_REQUEST": False,
            "RATELIMIT_ENABLED": self.ratelimit_enabled,
            "RATELIMIT_STORAGE_URI": self.ratelimit_storage,
            "RATELIMIT_KEY_PREFIX": self.ratelimit_prefix,
            "MAX_CONTENT_LENGTH": self.max_body,
        }


# the variable each field is read from (the fields not here have no default of their own:
# database_url, instance_path, secret_key and runs_dir follow the instance folder or the process)
ENV: dict[str, str] = {
    "secure_cookies": "CURATOR_SECURE_COOKIES",
    "busy_timeout": "CURATOR_BUSY_TIMEOUT",
    "threads": "CURATOR_THREADS",
    "max_body": "CURATOR_MAX_BODY",
    "remember_days": "CURATOR_REMEMBER_DAYS",
    "proxy_fix": "CURATOR_PROXY_FIX",
    "ratelimit_enabled": "CURATOR_RATELIMIT_ENABLED",
    "ratelimit_storage": "CURATOR_RATELIMIT_STORAGE",
    "ratelimit_account": "CURATOR_RATELIMIT_ACCOUNT",
    "ratelimit_address": "CURATOR_RATELIMIT_ADDRESS",
    "ratelimit_password": "CURATOR_RATELIMIT_PASSWORD",
    "ratelimit_token": "CURATOR_RATELIMIT_TOKEN",
    "ratelimit_mail": "CURATOR_RATELIMIT_MAIL",
    "ratelimit_mail_client": "CURATOR_RATELIMIT_MAIL_CLIENT",
    "ratelimit_search": "CURATOR_RATELIMIT_SEARCH",
    "ratelimit_reply": "CURATOR_RATELIMIT_REPLY",
    "fetch_timeout": "CURATOR_FETCH_TIMEOUT",
    "fetch_max_bytes": "CURATOR_FETCH_MAX_BYTES",
    "host": "CURATOR_HOST",
    "port": "CURATOR_PORT",
    "workers": "CURATOR_WORKERS",
    "graceful_timeout": "CURATOR_GRACEFUL_TIMEOUT",
    "read_timeout": "CURATOR_READ_TIMEOUT",
    "keepalive": "CURATOR_KEEPALIVE",
    "access_log": "CURATOR_ACCESS_LOG",
    "translate_retries": "CURATOR_TRANSLATE_RETRIES",
    "smtp_host": "CURATOR_SMTP_HOST",
    "smtp_port": "CURATOR_SMTP_PORT",
    "smtp_user": "CURATOR_SMTP_USER",
    "smtp_password": "CURATOR_SMTP_PASSWORD",
    "smtp_from": "CURATOR_SMTP_FROM",
    "smtp_starttls": "CURATOR_SMTP_STARTTLS",
    "base_url": "CURATOR_BASE_URL",
    "help_contact": "CURATOR_HELP_CONTACT",
    # issue 38 §2 (hardening)
    "ratelimit_prefix": "CURATOR_RATELIMIT_PREFIX",
    "session_idle": "CURATOR_SESSION_IDLE",
    "session_lifetime": "CURATOR_SESSION_LIFETIME",
}


# `curator serve` variables that meant something once: refused at start (one line saying what
# replaces them), never silently ignored
RETIRED = {
    "CURATOR_WORKER_TIMEOUT": (
        "gone with gunicorn (granian kills no busy worker): remove it; CURATOR_READ_TIMEOUT bounds how long "
        "a request may take to arrive, CURATOR_GRACEFUL_TIMEOUT how long a stop or reload waits"
    ),
}


def check_retired(environ: Mapping[str, str] | None = None) -> None:
    """Refuse a retired variable that is set (an InputError naming it and what replaces it)."""
    env = os.environ if environ is None else environ
    for name, instead in RETIRED.items():
        if env.get(name):
            raise InputError(instead, location=name)


def default(name: str) -> Any:
    """The default of the field `name` (what a variable that is unset or empty gives)."""
    return Settings.__dataclass_fields__[name].default


def check_base_url(value: str | None, where: str = "CURATOR_BASE_URL") -> str | None:
    """A base URL: an http(s) address without query or fragment, kept without its final slash
    (links append their path); unset or empty: None."""
    if not value or not value.strip():
        return None
    value = value.strip().rstrip("/")
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise InputError(f"expected the app's address like https://review.example.org, not {value!r}", location=where)
    return value


def _text(env: Mapping[str, str], name: str) -> str:
    return env.get(ENV[name]) or default(name)


def _flag(env: Mapping[str, str], name: str) -> bool:
    """1 or 0 (an unset or empty variable: the default)."""
    value = env.get(ENV[name]) or ("1" if default(name) else "0")
    if value not in ("0", "1"):
        raise InputError(f"expected 1 or 0, not {value!r}", location=ENV[name])
    return value == "1"


def _number(env: Mapping[str, str], name: str, kind: type, unit: str) -> Any:
    variable = ENV[name]
    low, high = Settings.RANGES.get(name, (0, None))
    try:
        value = kind(env.get(variable) or default(name))
    except ValueError:
        raise InputError(f"expected {unit}, not {env[variable]!r}", location=variable) from None
    if value < low or (high is not None and value > high):
        within = f"from {low:g} to {high:g}" if high is not None else f"{low:g} or more"
        raise InputError(f"expected {unit}, {within}, not {env[variable]!r}", location=variable)
    return value

"""Settings: one object, read once from the environment, handed to the app and the CLI.

Secrets (the session key, translation API keys) come only from the environment, never from
code or the repository. Everything that reads configuration takes a `Settings` (or a value
from one) as an argument, so a test or a second app in the same process can use its own.

| variable                         | meaning                                               | default              |
|----------------------------------|-------------------------------------------------------|----------------------|
| CURATOR_DATABASE_URL             | SQLAlchemy URL                                        | sqlite in instance/  |
| CURATOR_INSTANCE_PATH            | folder for the SQLite file, runs, translations        | ./instance           |
| CURATOR_SECRET_KEY               | Flask session key (set it where the app outlives one process; the same on every app host; `curator serve` beyond loopback requires it) | random per process |
| CURATOR_SECURE_COOKIES           | 1: cookies (session, remember-me) only over HTTPS     | 0                    |
| CURATOR_REMEMBER_DAYS            | lifetime of "remember me" and of any one sign-in      | 14                   |
| CURATOR_PROXY_FIX                | trusted reverse proxies in front (nginx: 1); werkzeug's ProxyFix then takes the client address and scheme from X-Forwarded-For/-Proto. 0 ignores those headers (anyone can send them) | 0 |
| CURATOR_RATELIMIT_ENABLED        | 0 turns the rate limits off (sign-in, invitations, password change, API tokens) | 1 |
| CURATOR_RATELIMIT_STORAGE        | where the counts live (Flask-Limiter URI); with several gunicorn workers or app hosts use a shared one (redis://host:6379), else each worker counts alone | memory:// |
| CURATOR_RATELIMIT_ACCOUNT        | sign-in/invitation attempts per submitted e-mail (per invitation link) | 10/minute;50/hour |
| CURATOR_RATELIMIT_ADDRESS        | sign-in/invitation attempts per client address        | 30/minute;300/hour   |
| CURATOR_RATELIMIT_PASSWORD       | password changes (each POST) on the account page, per account and per client address | 5/minute;20/hour |
| CURATOR_RATELIMIT_TOKEN          | refused API tokens (Authorization: Bearer) per client address | 10/minute;50/hour |
| CURATOR_RUNS_DIR                 | probe runs the app serves and hints come from         | instance/runs        |
| CURATOR_BUSY_TIMEOUT             | seconds a writer waits for another's write lock       | 30                   |
| CURATOR_THREADS                  | threads per web worker (`curator serve --threads`); also the PostgreSQL connections each worker keeps | 8 |
| CURATOR_MAX_BODY                 | largest request body the app accepts, bytes (413)     | 1048576 (1 MiB)      |
| CURATOR_FETCH_TIMEOUT            | seconds an import may spend on one file over HTTP     | 600                  |
| CURATOR_FETCH_MAX_BYTES          | bytes one file over HTTP may have, on the wire and decompressed | 67108864 (64 MiB) |
| CURATOR_<SYSTEM>_KEY / _URL      | translation API key / endpoint (MICROSOFT, GOOGLE, …) | none                 |
| CURATOR_MICROSOFT_REGION         | Azure region of the Microsoft key                     | none                 |
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path

from curator.core.errors import InputError


@dataclass(frozen=True)
class Settings:
    database_url: str
    instance_path: Path
    secret_key: str
    secret_key_from_env: bool = True  # False: CURATOR_SECRET_KEY unset, `secret_key` is this process's random one
    secure_cookies: bool = False
    runs_dir: Path | None = None
    busy_timeout: float = 30.0  # seconds a writer waits for another writer's lock (SQLite or PostgreSQL)
    threads: int = 8  # requests a web worker serves at once: its PostgreSQL pool holds as many connections
    max_body: int = 1 << 20  # bytes; review requests are a few hundred bytes, forms a few KB
    remember_days: float = 14.0  # a stolen remember cookie must not be good for a year (Flask-Login's default)
    proxy_fix: int = 0  # reverse proxies trusted for X-Forwarded-For/-Proto (never -Host)
    ratelimit_enabled: bool = True
    ratelimit_storage: str = "memory://"  # per process: several workers need a shared one (redis://)
    ratelimit_account: str = "10/minute;50/hour"  # guesses at one account's password
    ratelimit_address: str = "30/minute;300/hour"  # from one address (a classroom behind one NAT signs in too)
    ratelimit_password: str = "5/minute;20/hour"  # wrong current passwords on the account page
    ratelimit_token: str = "10/minute;50/hour"  # refused API tokens from one address
    fetch_timeout: float = 600.0  # seconds in all for one file of a URL source (a trickling server is cut off)
    # bytes per file of a URL source, on the wire and decompressed (an endless stream or a gzip bomb
    # is cut off): 250x the largest real file (253 KiB), and a file at the limit parses in < 1 GB
    fetch_max_bytes: int = 64 << 20
    # CURATOR_* variables for the translation backends (keys, URLs, region), by name
    translation: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides) -> Settings:
        env = os.environ if environ is None else environ
        instance = Path(overrides.get("instance_path") or env.get("CURATOR_INSTANCE_PATH") or Path.cwd() / "instance")
        max_body = _number(env, "CURATOR_MAX_BODY", 1 << 20, int, "a number of bytes")
        busy_timeout = _number(env, "CURATOR_BUSY_TIMEOUT", 30.0, float, "seconds")
        remember_days = _number(env, "CURATOR_REMEMBER_DAYS", 14.0, float, "days")
        proxy_fix = _number(env, "CURATOR_PROXY_FIX", 0, int, "a number of proxies")
        fetch_timeout = _number(env, "CURATOR_FETCH_TIMEOUT", 600.0, float, "seconds")
        threads = _number(env, "CURATOR_THREADS", 8, int, "a number of threads")
        if fetch_timeout == 0:
            raise InputError("CURATOR_FETCH_TIMEOUT", "expected seconds > 0, not 0")
        fetch_max_bytes = _number(env, "CURATOR_FETCH_MAX_BYTES", 64 << 20, int, "a number of bytes")
        if fetch_max_bytes == 0:
            raise InputError("CURATOR_FETCH_MAX_BYTES", "expected a number of bytes > 0, not 0")
        settings = cls(
            database_url=env.get("CURATOR_DATABASE_URL") or f"sqlite:///{instance / 'curator.sqlite'}",
            instance_path=instance,
            # a random key per process is safe but signs everyone out on restart
            secret_key=env.get("CURATOR_SECRET_KEY") or secrets.token_hex(32),
            secret_key_from_env=bool(env.get("CURATOR_SECRET_KEY") or overrides.get("secret_key")),
            secure_cookies=env.get("CURATOR_SECURE_COOKIES", "0") == "1",
            runs_dir=Path(env["CURATOR_RUNS_DIR"]) if env.get("CURATOR_RUNS_DIR") else instance / "runs",
            busy_timeout=busy_timeout,
            threads=max(threads, 1),
            max_body=max_body,
            remember_days=remember_days,
            proxy_fix=proxy_fix,
            ratelimit_enabled=env.get("CURATOR_RATELIMIT_ENABLED", "1") != "0",
            ratelimit_storage=env.get("CURATOR_RATELIMIT_STORAGE") or "memory://",
            ratelimit_account=env.get("CURATOR_RATELIMIT_ACCOUNT") or "10/minute;50/hour",
            ratelimit_address=env.get("CURATOR_RATELIMIT_ADDRESS") or "30/minute;300/hour",
            ratelimit_password=env.get("CURATOR_RATELIMIT_PASSWORD") or "5/minute;20/hour",
            ratelimit_token=env.get("CURATOR_RATELIMIT_TOKEN") or "10/minute;50/hour",
            fetch_timeout=fetch_timeout,
            fetch_max_bytes=fetch_max_bytes,
            translation={
                k: v
                for k, v in env.items()
                if k.startswith("CURATOR_")
                and k.endswith(("_KEY", "_URL", "_REGION"))
                and k not in ("CURATOR_SECRET_KEY", "CURATOR_DATABASE_URL")
            },
        )
        return replace(settings, **overrides) if overrides else settings

    def env(self, name: str) -> str | None:
        """A translation backend's CURATOR_<NAME> value, e.g. env("MICROSOFT_KEY")."""
        return self.translation.get(f"CURATOR_{name}") or None

    def flask_config(self) -> dict:
        return {
            "DATABASE_URL": self.database_url,
            "SECRET_KEY": self.secret_key,
            "SESSION_COOKIE_HTTPONLY": True,
            "SESSION_COOKIE_SAMESITE": "Lax",
            "SESSION_COOKIE_SECURE": self.secure_cookies,
            "REMEMBER_COOKIE_SECURE": self.secure_cookies,
            "REMEMBER_COOKIE_HTTPONLY": True,
            "REMEMBER_COOKIE_SAMESITE": "Lax",
            "REMEMBER_COOKIE_DURATION": timedelta(days=self.remember_days),
            "PROXY_FIX": self.proxy_fix,
            "RATELIMIT_ENABLED": self.ratelimit_enabled,
            "RATELIMIT_STORAGE_URI": self.ratelimit_storage,
            "RATELIMIT_ACCOUNT": self.ratelimit_account,
            "RATELIMIT_ADDRESS": self.ratelimit_address,
            "RATELIMIT_PASSWORD": self.ratelimit_password,
            "RATELIMIT_TOKEN": self.ratelimit_token,
            "RUNS_DIR": str(self.runs_dir or self.instance_path / "runs"),
            "BUSY_TIMEOUT": self.busy_timeout,
            "THREADS": self.threads,
            "MAX_CONTENT_LENGTH": self.max_body,
        }


def _number(env: Mapping[str, str], name: str, default, kind, unit: str):
    try:
        value = kind(env.get(name) or default)
    except ValueError:
        raise InputError(name, f"expected {unit}, not {env[name]!r}") from None
    if value < 0:
        raise InputError(name, f"expected {unit}, not {env[name]!r}")
    return value


_FLASK_TO_FIELD = {
    "DATABASE_URL": "database_url",
    "SECRET_KEY": "secret_key",
    "RUNS_DIR": "runs_dir",
    "BUSY_TIMEOUT": "busy_timeout",
    "THREADS": "threads",
}


def app_config(settings: Settings | Mapping | None = None) -> tuple[Settings, dict]:
    """(settings, Flask config) for `create_app`: a Settings as is, or environment settings with
    overrides given as Flask config keys (tests pass {"DATABASE_URL": ..., "TESTING": True})."""
    if isinstance(settings, Settings):
        return settings, settings.flask_config()
    overrides = dict(settings or {})
    fields = {
        _FLASK_TO_FIELD[k]: (Path(v) if k == "RUNS_DIR" else v) for k, v in overrides.items() if k in _FLASK_TO_FIELD
    }
    resolved = Settings.from_env(**fields)
    return resolved, {**resolved.flask_config(), **overrides}

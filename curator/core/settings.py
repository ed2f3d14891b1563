"""Settings: one object, read once from the environment, handed to the app and the CLI.

Secrets (the session key, translation API keys) come only from the environment, never from
code or the repository. Everything that reads configuration takes a `Settings` (or a value
from one) as an argument, so a test or a second app in the same process can use its own.

| variable                         | meaning                                               | default              |
|----------------------------------|-------------------------------------------------------|----------------------|
| CURATOR_DATABASE_URL             | SQLAlchemy URL                                        | sqlite in instance/  |
| CURATOR_INSTANCE_PATH            | folder for the SQLite file, runs, translations        | ./instance           |
| CURATOR_SECRET_KEY               | Flask session key (set it where the app outlives one process) | random per process |
| CURATOR_SECURE_COOKIES           | 1: cookies only over HTTPS                            | 0                    |
| CURATOR_RUNS_DIR                 | probe runs the app serves and hints come from         | instance/runs        |
| CURATOR_BUSY_TIMEOUT             | seconds a writer waits for another's write lock       | 30                   |
| CURATOR_<SYSTEM>_KEY / _URL      | translation API key / endpoint (MICROSOFT, GOOGLE, …) | none                 |
| CURATOR_MICROSOFT_REGION         | Azure region of the Microsoft key                     | none                 |
"""
from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping

from curator.core.errors import InputError


@dataclass(frozen=True)
class Settings:
    database_url: str
    instance_path: Path
    secret_key: str
    secure_cookies: bool = False
    runs_dir: Path | None = None
    busy_timeout: float = 30.0  # seconds a writer waits for another writer's lock (SQLite or PostgreSQL)
    # CURATOR_* variables for the translation backends (keys, URLs, region), by name
    translation: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides) -> "Settings":
        env = os.environ if environ is None else environ
        instance = Path(overrides.get("instance_path") or env.get("CURATOR_INSTANCE_PATH") or Path.cwd() / "instance")
        try:
            busy_timeout = float(env.get("CURATOR_BUSY_TIMEOUT") or 30.0)
        except ValueError:
            raise InputError("CURATOR_BUSY_TIMEOUT", f"expected seconds, not {env['CURATOR_BUSY_TIMEOUT']!r}") from None
        settings = cls(
            database_url=env.get("CURATOR_DATABASE_URL") or f"sqlite:///{instance / 'curator.sqlite'}",
            instance_path=instance,
            # a random key per process is safe but signs everyone out on restart
            secret_key=env.get("CURATOR_SECRET_KEY") or secrets.token_hex(32),
            secure_cookies=env.get("CURATOR_SECURE_COOKIES", "0") == "1",
            runs_dir=Path(env["CURATOR_RUNS_DIR"]) if env.get("CURATOR_RUNS_DIR") else instance / "runs",
            busy_timeout=busy_timeout,
            translation={k: v for k, v in env.items()
                         if k.startswith("CURATOR_") and k.endswith(("_KEY", "_URL", "_REGION"))
                         and k not in ("CURATOR_SECRET_KEY", "CURATOR_DATABASE_URL")},
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
            "RUNS_DIR": str(self.runs_dir or self.instance_path / "runs"),
            "BUSY_TIMEOUT": self.busy_timeout,
        }


_FLASK_TO_FIELD = {"DATABASE_URL": "database_url", "SECRET_KEY": "secret_key", "RUNS_DIR": "runs_dir",
                   "BUSY_TIMEOUT": "busy_timeout"}


def app_config(settings: Settings | Mapping | None = None) -> tuple[Settings, dict]:
    """(settings, Flask config) for `create_app`: a Settings as is, or environment settings with
    overrides given as Flask config keys (tests pass {"DATABASE_URL": ..., "TESTING": True})."""
    if isinstance(settings, Settings):
        return settings, settings.flask_config()
    overrides = dict(settings or {})
    fields = {_FLASK_TO_FIELD[k]: (Path(v) if k == "RUNS_DIR" else v) for k, v in overrides.items() if k in _FLASK_TO_FIELD}
    resolved = Settings.from_env(**fields)
    return resolved, {**resolved.flask_config(), **overrides}

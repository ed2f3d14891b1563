"""Settings come from the environment so that secrets never live in the code or the repo."""
from __future__ import annotations

import os
import secrets
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def instance_path() -> Path:
    return Path(os.environ.get("CURATOR_INSTANCE_PATH", PROJECT_ROOT / "instance"))


def default_database_url() -> str:
    return f"sqlite:///{instance_path() / 'curator.sqlite'}"


def database_url() -> str:
    return os.environ.get("CURATOR_DATABASE_URL") or default_database_url()


def load_config(overrides: dict | None = None) -> dict:
    """The Flask config: environment first, then explicit overrides (tests, CLI)."""
    config = {
        "DATABASE_URL": database_url(),
        # A random key per process is safe but logs everyone out on restart; set
        # CURATOR_SECRET_KEY in any deployment that outlives one process.
        "SECRET_KEY": os.environ.get("CURATOR_SECRET_KEY") or secrets.token_hex(32),
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": os.environ.get("CURATOR_SECURE_COOKIES", "0") == "1",
        # probe runs (one sub-folder each) that maintainers browse and reviewers get hints from
        "RUNS_DIR": os.environ.get("CURATOR_RUNS_DIR") or str(instance_path() / "runs"),
    }
    config.update(overrides or {})
    return config

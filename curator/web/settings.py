"""The app's settings: one `Settings` per app, in `app.extensions["curator.settings"]`, and the
only place the web layer reads configuration from (`current_settings()` in a request,
`settings_of(app)` while the app is made).

`app.config` holds only what Flask and its extensions read themselves (the session key, the
cookie flags, Flask-Limiter's switch and store, the body limit), derived from the Settings by
`Settings.flask_config()`. So there is one truth: a Flask config key given to `create_app` that
names a setting (tests pass {"DATABASE_URL": ..., "RUNS_DIR": ...}) goes into the Settings;
one derived from a setting in another way (the cookie flags) is refused; and once the app is
made, setting any of these keys in `app.config` is refused too (`SettingsConfig`) instead of
being silently ignored. Other Flask keys (TESTING, SERVER_NAME, ...) pass through as given.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, current_app
from flask.config import Config

from curator.core.errors import InputError
from curator.core.settings import Settings

KEY = "curator.settings"

# Flask config keys create_app takes for a setting: each goes into the Settings field
FIELDS = {
    "DATABASE_URL": "database_url",
    "SECRET_KEY": "secret_key",
    "RUNS_DIR": "runs_dir",
    "BUSY_TIMEOUT": "busy_timeout",
    "THREADS": "threads",
    "PROXY_FIX": "proxy_fix",
    "MAX_CONTENT_LENGTH": "max_body",
    "RATELIMIT_ENABLED": "ratelimit_enabled",
    "RATELIMIT_STORAGE_URI": "ratelimit_storage",
    "RATELIMIT_ACCOUNT": "ratelimit_account",
    "RATELIMIT_ADDRESS": "ratelimit_address",
    "RATELIMIT_PASSWORD": "ratelimit_password",
    "RATELIMIT_TOKEN": "ratelimit_token",
    "RATELIMIT_MAIL": "ratelimit_mail",
    "RATELIMIT_MAIL_CLIENT": "ratelimit_mail_client",
    "RATELIMIT_SEARCH": "ratelimit_search",
    "RATELIMIT_REPLY": "ratelimit_reply",
    "SMTP_HOST": "smtp_host",
    "SMTP_PORT": "smtp_port",
    "SMTP_FROM": "smtp_from",
    "SMTP_STARTTLS": "smtp_starttls",
    "BASE_URL": "base_url",
    "HELP_CONTACT": "help_contact",
    "RATELIMIT_KEY_PREFIX": "ratelimit_prefix",  # issue 38 §2
    "SESSION_IDLE": "session_idle",
    "SESSION_LIFETIME": "session_lifetime",
}


def current_settings() -> Settings:
    """The settings of the app handling this request."""
    return settings_of(current_app)


def settings_of(app: Flask) -> Settings:
    settings: Settings = app.extensions[KEY]
    return settings


def resolve(given: Settings | Mapping[str, Any] | None) -> tuple[Settings, dict[str, Any]]:
    """(settings, the other Flask config keys) for `create_app`: a Settings as is, or the
    environment's settings with the setting keys of `given` put in (see FIELDS)."""
    if isinstance(given, Settings):
        return given, {}
    given = dict(given or {})
    derived = set(Settings("", Path("."), "").flask_config()) - set(FIELDS)
    refused = sorted(key for key in given if key in derived)
    if refused:
        raise InputError(
            f"{', '.join(refused)}: derived from the Settings (secure_cookies, remember_days); "
            "pass create_app a Settings with those fields instead",
            location="create_app",
        )
    changes: dict[str, Any] = {FIELDS[k]: (Path(v) if k == "RUNS_DIR" else v) for k, v in given.items() if k in FIELDS}
    settings = Settings.from_env(**changes)
    return settings, {k: v for k, v in given.items() if k not in FIELDS}


def install(app: Flask, settings: Settings, other: Mapping[str, Any]) -> None:
    """Put the settings on the app and the keys Flask reads in its config, then guard them."""
    app.extensions[KEY] = settings
    app.config.from_mapping({**other, **settings.flask_config()})
    if isinstance(app.config, SettingsConfig):
        app.config.owned = frozenset(FIELDS) | frozenset(settings.flask_config())


class SettingsConfig(Config):
    """Flask's config, refusing a key the Settings own once the app is made: the app reads
    those from its Settings, or Flask read them when the app was made, so a late change would
    be ignored (a test pointing `RUNS_DIR` elsewhere) or half applied."""

    owned: frozenset[str] = frozenset()

    def __setitem__(self, key: str, value: Any) -> None:
        if key in self.owned:
            raise InputError(
                "set from the app's Settings when it was made: pass create_app the value "
                "(or a Settings, e.g. dataclasses.replace(settings_of(app), ...)) instead",
                location=f"app.config[{key!r}]",
            )
        super().__setitem__(key, value)


class CuratorFlask(Flask):
    config_class = SettingsConfig

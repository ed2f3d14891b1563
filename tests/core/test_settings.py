"""One source for each setting: the `Settings` fields hold every default, the documentation
shows those defaults, each variable is read, and every part of the app reads the Settings
(the web app only through `app.extensions["curator.settings"]`; a Flask key given for a
setting goes into the Settings or is refused)."""

from __future__ import annotations

import importlib.util
import re
from dataclasses import fields, replace
from pathlib import Path

import pytest

from curator.core.errors import InputError
from curator.core.settings import ENV, Settings, default

ROOT = Path(__file__).resolve().parents[2]
# the fields whose default follows the instance folder or the process, not a value of their own
DERIVED = {"database_url", "instance_path", "secret_key", "secret_key_from_env", "runs_dir", "translation"}
ROW = re.compile(r"^\|\s*(?P<names>`CURATOR_[^|]*)\|.*\|\s*(?P<default>[^|]*?)\s*\|\s*$")


def shown(value: object) -> str | None:
    """A default as the documentation writes it (None: "none")."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def documented(path: Path) -> dict[str, str]:
    """{variable: its default cell} from the `| `CURATOR_…` | … | default |` rows of the tables
    whose last column is "default"."""
    rows: dict[str, str] = {}
    header: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            header = []
            continue
        if not header:
            header = [cell.strip() for cell in line.strip("|").split("|")]
            continue
        match = ROW.match(line)
        if match and header[-1] == "default":
            names = re.findall(r"`(CURATOR_[A-Z_<>]+)`", match["names"])
            for name in names:
                assert name not in ENV.values() or len(names) == 1, f"{path.name}: give {name} a row of its own"
                rows[name] = match["default"]
    return rows


def check_defaults(rows: dict[str, str], where: str) -> None:
    for name, variable in ENV.items():
        if variable not in rows:
            continue
        cell, expected = rows[variable], shown(default(name))
        if expected is None:
            assert cell.startswith("none"), f"{where}: {variable}'s default is none, not {cell!r}"
        else:
            first = re.match(r"`([^`]*)`", cell)
            assert first and first[1] == expected, f"{where}: {variable}'s default is `{expected}`, not {cell!r}"


def test_every_field_with_a_default_has_a_variable():
    """A new setting gets a variable (and so a row in the settings reference, below)."""
    assert {f.name for f in fields(Settings)} - DERIVED == set(ENV)


def settings_table() -> str:
    """The table the docs hook writes into docs/reference/settings.md when the site is built."""
    spec = importlib.util.spec_from_file_location("settings_table", ROOT / "docs" / "hooks" / "settings_table.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = (ROOT / "docs" / "reference" / "settings.md").read_text(encoding="utf-8")
    assert module.MARKER in page, "docs/reference/settings.md lost the table's marker"
    return str(module.on_page_markdown(page, page=None))


def test_the_settings_reference_lists_every_variable_with_the_settings_default(tmp_path):
    page = tmp_path / "settings.md"
    page.write_text(settings_table(), encoding="utf-8")
    rows = documented(page)
    missing = sorted(set(ENV.values()) - set(rows))
    assert not missing, f"docs/reference/settings.md's table lacks {missing}"
    check_defaults(rows, "docs/reference/settings.md")


def test_deploy_guide_shows_the_settings_defaults():
    rows = documented(ROOT / "docs" / "deploy.md")
    assert len(rows) >= 15  # the table is there
    check_defaults(rows, "docs/deploy.md")


def other_value(name: str) -> str:
    """A valid value of `name`'s variable that is not its default."""
    value = default(name)
    if isinstance(value, bool):
        return "0" if value else "1"
    if isinstance(value, (int, float)):
        return str(value + 1)
    if name == "base_url":  # checked: an http(s) address
        return "https://review.example.org"
    if value is None:
        return "-"
    return "2/minute" if name.startswith("ratelimit_") and "/" in value else value + "x"


def test_every_variable_is_read(tmp_path):
    environ = {variable: other_value(name) for name, variable in ENV.items()}
    settings = Settings.from_env(environ, instance_path=tmp_path)
    same = [name for name in ENV if getattr(settings, name) == default(name)]
    assert not same, f"not read from their variables: {same}"
    assert Settings.from_env({}, instance_path=tmp_path).port == default("port")


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("CURATOR_PORT", "70000", "CURATOR_PORT: expected a port number, from 0 to 65535, not '70000'"),
        ("CURATOR_THREADS", "0", "CURATOR_THREADS: expected a number of threads, from 1 to 256, not '0'"),
        ("CURATOR_READ_TIMEOUT", "soon", "CURATOR_READ_TIMEOUT: expected seconds, not 'soon'"),
        ("CURATOR_SECURE_COOKIES", "true", "CURATOR_SECURE_COOKIES: expected 1 or 0, not 'true'"),
        (
            "CURATOR_BASE_URL",
            "review.example.org/?x=1",
            "CURATOR_BASE_URL: expected the app's address like https://review.example.org, not 'review.example.org/?x=1'",
        ),
    ],
)
def test_a_bad_variable_is_one_line(tmp_path, variable, value, message):
    with pytest.raises(InputError) as caught:
        Settings.from_env({variable: value}, instance_path=tmp_path)
    assert str(caught.value) == message


# ---------------------------------------------------------------- the web app reads its Settings
@pytest.fixture
def plain_url(tmp_path) -> str:
    """An SQLite file (made, not migrated: these apps serve no page from it)."""
    return f"sqlite:///{tmp_path / 'curator.sqlite'}"


def test_flask_keys_for_settings_go_into_the_settings(plain_url, tmp_path):
    from curator.web import create_app
    from curator.web.settings import settings_of

    app = create_app(
        {
            "DATABASE_URL": plain_url,
            "SECRET_KEY": "k",
            "RUNS_DIR": str(tmp_path / "elsewhere"),
            "BUSY_TIMEOUT": 7,
            "RATELIMIT_ACCOUNT": "3/minute",
            "MAX_CONTENT_LENGTH": 4096,
            "TESTING": True,
        }
    )
    settings = settings_of(app)
    assert settings.runs == tmp_path / "elsewhere" and settings.busy_timeout == 7
    assert settings.ratelimit_account == "3/minute" and settings.max_body == 4096
    assert app.config["MAX_CONTENT_LENGTH"] == 4096 and app.config["TESTING"] is True
    assert "RUNS_DIR" not in app.config and "RATELIMIT_ACCOUNT" not in app.config  # no second copy
    with app.extensions["curator.engine"].connect() as connection:  # the engine's own wait for a lock
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 7000


def test_flask_keys_derived_from_settings_are_refused(plain_url):
    from curator.web import create_app

    with pytest.raises(InputError, match="SESSION_COOKIE_SECURE: derived from the Settings"):
        create_app({"DATABASE_URL": plain_url, "SESSION_COOKIE_SECURE": True})


def test_a_setting_changed_in_app_config_later_is_refused(plain_url):
    """It would be ignored (the app reads its Settings), so it is refused, in words."""
    from curator.web import create_app

    app = create_app({"DATABASE_URL": plain_url, "SECRET_KEY": "k"})
    for key, value in [("RUNS_DIR", "/tmp"), ("SECRET_KEY", "other"), ("RATELIMIT_ENABLED", False)]:
        with pytest.raises(InputError, match=re.escape(f"app.config[{key!r}]: set from the app's Settings")):
            app.config[key] = value
    app.config["SERVER_NAME"] = "review.example.org"  # Flask's own keys stay Flask's


def test_the_runs_page_reads_the_apps_settings(review_app, tmp_path):
    from curator.web import create_app
    from curator.web.settings import settings_of
    from tests.plugins.servers import Browser

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    app = create_app(replace(settings_of(review_app), runs_dir=elsewhere))
    page = Browser(app).login("boss@example.org").get("/probe/runs").get_data(as_text=True)
    assert str(elsewhere) in page


def test_proxy_fix_trusts_forwarded_for_and_proto_but_never_host(plain_url):
    """CURATOR_PROXY_FIX=1: the client address and scheme come from nginx's headers; a client's
    own X-Forwarded-Host must not become the host of the links the app writes."""
    from flask import request, url_for

    from curator.core.settings import Settings as S
    from curator.web import create_app

    app = create_app(replace(S.from_env({}, database_url=plain_url, secret_key="k"), proxy_fix=1))

    @app.get("/_seen")
    def _seen():
        return {"addr": request.remote_addr, "url": url_for("_seen", _external=True)}

    seen = (
        app.test_client()
        .get(
            "/_seen",
            headers={
                "Host": "review.example.org",
                "X-Forwarded-For": "203.0.113.9",
                "X-Forwarded-Proto": "https",
                "X-Forwarded-Host": "evil.example",
            },
        )
        .get_json()
    )
    assert seen == {"addr": "203.0.113.9", "url": "https://review.example.org/_seen"}


# ---------------------------------------------------------------- the other readers
def test_translation_retries_come_from_the_settings(tmp_path):
    from curator.translate.backends import get_translator

    settings = Settings.from_env({"CURATOR_TRANSLATE_RETRIES": "2"}, instance_path=tmp_path)
    assert get_translator("libretranslate", url="http://127.0.0.1:9", settings=settings).retries == 2
    assert get_translator("libretranslate", url="http://127.0.0.1:9", settings=settings, retries=0).retries == 0
    plain = Settings.from_env({}, instance_path=tmp_path)
    assert get_translator("libretranslate", url="http://127.0.0.1:9", settings=plain).retries == default(
        "translate_retries"
    )

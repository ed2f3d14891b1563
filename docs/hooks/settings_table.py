"""The settings table of docs/reference/settings.md, made when the site is built (a mkdocs hook,
mkdocs.yml `hooks:`).

What a variable means is written here, once (ROWS); its name and its default come from
`Settings` (curator/core/settings.py: `ENV` and the fields' defaults), so the table cannot
drift from the code. A variable of `ENV` without a row here, or a row whose default is taken
from `Settings` but that names no variable of `ENV`, stops the build with one line.
tests/core/test_settings.py checks the table this writes.
"""

from __future__ import annotations

from typing import Any

from curator.core.settings import ENV, default

MARKER = "<!-- settings-table -->"

# (variables, meaning, default): default None = the Settings field's default, shown by the hook;
# a string = a default that follows the instance folder or the process (no value of its own),
# or a variable outside `Settings` (read by one command, or by the translation backends)
ROWS: list[tuple[str, str, str | None]] = [
    (
        "CURATOR_DATABASE_URL",
        "SQLAlchemy URL (`curator --database URL` overrides it)",
        "`sqlite:///instance/curator.sqlite`",
    ),
    (
        "CURATOR_INSTANCE_PATH",
        "folder of the default database, runs and translations",
        "`./instance` (the working folder's)",
    ),
    (
        "CURATOR_BUSY_TIMEOUT",
        "seconds a writer waits for another writer's lock (SQLite's, or PostgreSQL's advisory lock) before \"database busy, retry\"",
        None,
    ),
    (
        "CURATOR_FETCH_TIMEOUT",
        "seconds an import may spend on one file of an `http(s)://` source, in all (a per-read timeout of 30 s applies too)",
        None,
    ),
    (
        "CURATOR_FETCH_MAX_BYTES",
        "bytes one file of an `http(s)://` source may have, on the wire and once decompressed; above it the import stops with one line naming the URL and the limit",
        None,
    ),
    (
        "CURATOR_SECRET_KEY",
        "Flask secret key (signs the session cookie and the CSRF token); the same on every app host (`curator serve` beyond loopback refuses to start without it)",
        "`curator serve`: generated once into `<instance>/secret_key` (mode 600) and read on every later start, so a restart signs nobody out; elsewhere random per process",
    ),
    (
        "CURATOR_SECURE_COOKIES",
        "`1` to mark cookies `Secure` (behind HTTPS); an `https://` `CURATOR_BASE_URL` turns them `Secure` by itself",
        None,
    ),
    (
        "CURATOR_REMEMBER_DAYS",
        'a "remember me" sign-in ends when unused this long (checked on the server; the cookie itself lives `CURATOR_SESSION_LIFETIME`)',
        None,
    ),
    (
        "CURATOR_SESSION_IDLE",
        'hours a sign-in without "remember me" may stay unused before it ends (server-side)',
        None,
    ),
    (
        "CURATOR_SESSION_LIFETIME",
        "days after which any sign-in ends, used or not",
        None,
    ),
    (
        "CURATOR_PROXY_FIX",
        "number of trusted reverse proxies (nginx in front: `1`); werkzeug's ProxyFix then takes the client's address from `X-Forwarded-For` and the scheme from `X-Forwarded-Proto`. `X-Forwarded-Host` is never trusted: nginx passes the real `Host` itself, and a client's own header would otherwise become the host of invitation links",
        None,
    ),
    (
        "CURATOR_RATELIMIT_ENABLED",
        "`0` turns the rate limits off (sign-in, invitations, password change, API tokens)",
        None,
    ),
    (
        "CURATOR_RATELIMIT_STORAGE",
        "Flask-Limiter storage URI of the counts; several workers or hosts need a shared one (`redis://…`, checked at start)",
        None,
    ),
    (
        "CURATOR_RATELIMIT_ACCOUNT",
        "attempts per submitted e-mail / invitation link",
        None,
    ),
    (
        "CURATOR_RATELIMIT_ADDRESS",
        "attempts per client address",
        None,
    ),
    (
        "CURATOR_RATELIMIT_PASSWORD",
        "password changes (each POST) on the *Account* page, per account and per client address",
        None,
    ),
    (
        "CURATOR_RATELIMIT_TOKEN",
        "refused API tokens (`Authorization: Bearer`) per client address",
        None,
    ),
    (
        "CURATOR_RATELIMIT_MAIL",
        "e-mails a visitor can cause: *Forgot your password?* per typed address; @mention e-mails per person mentioned",
        None,
    ),
    (
        "CURATOR_RATELIMIT_MAIL_CLIENT",
        "*Forgot your password?* requests per client address (higher: a classroom behind one NAT shares it)",
        None,
    ),
    (
        "CURATOR_RATELIMIT_PREFIX",
        "the start of every rate-limit key in the store: give two instances (staging, production) sharing one redis different prefixes",
        None,
    ),
    (
        "CURATOR_RATELIMIT_SEARCH",
        "a reviewer's searches of their queue (the *Find* page and its API, together), per account",
        None,
    ),
    (
        "CURATOR_RATELIMIT_REPLY",
        "replies in comment threads (the review screen, the history page, the maintainers' *Threads* page and the API, together), per account",
        None,
    ),
    (
        "CURATOR_RUNS_DIR",
        "folder of probe runs shown in the web app",
        "`instance/runs`",
    ),
    (
        "CURATOR_MAX_BODY",
        "largest request body in bytes; larger ones get 413 unread",
        None,
    ),
    (
        "CURATOR_HOST",
        "address `curator serve` listens on (`--host`; see docs/deploy.md)",
        None,
    ),
    (
        "CURATOR_PORT",
        "its port (`--port`)",
        None,
    ),
    (
        "CURATOR_WORKERS",
        "granian worker processes (`--workers`, 1 to 64)",
        None,
    ),
    (
        "CURATOR_THREADS",
        "threads per worker (`--threads`, 1 to 256); also the PostgreSQL connections each worker keeps",
        None,
    ),
    (
        "CURATOR_GRACEFUL_TIMEOUT",
        "seconds to finish the requests in flight on SIGHUP or SIGTERM (`--graceful-timeout`)",
        None,
    ),
    (
        "CURATOR_READ_TIMEOUT",
        "seconds a request's head may take to arrive (else closed; at most 60), and its body after it (else 408); also how long an idle keep-alive connection stays open (`--read-timeout`)",
        None,
    ),
    (
        "CURATOR_KEEPALIVE",
        "`0` turns keep-alive off; any other value keeps idle connections open until the read timeout (`--keepalive`)",
        None,
    ),
    (
        "CURATOR_ACCESS_LOG",
        "access log file, `-` for stderr (`--access-log`)",
        None,
    ),
    (
        "CURATOR_TRANSLATE_RETRIES",
        "retries of a translation API after 429, 5xx and network errors (`curator translate --retries`)",
        None,
    ),
    (
        "CURATOR_SMTP_HOST",
        "SMTP server for password-reset links and invitations (unset: links are shown to copy)",
        None,
    ),
    (
        "CURATOR_SMTP_PORT",
        "its port (`465`: TLS from the start)",
        None,
    ),
    (
        "CURATOR_SMTP_USER",
        "user name for AUTH (unset: no AUTH, a local relay)",
        None,
    ),
    (
        "CURATOR_SMTP_PASSWORD",
        "its password (a secret: environment only)",
        None,
    ),
    (
        "CURATOR_SMTP_FROM",
        "sender address; required with `CURATOR_SMTP_HOST`",
        None,
    ),
    (
        "CURATOR_SMTP_STARTTLS",
        "`0` to send without STARTTLS (a relay on localhost)",
        None,
    ),
    (
        "CURATOR_BASE_URL",
        "the address the app is served at, as its users open it (`https://review.example.org`): every link made for someone else — invitations, reset links, every e-mail — starts with it, never with a request's Host; needed (with SMTP) for *Forgot your password?* and @mention e-mails; `--base-url` of `curator user invite`/`reset-link` overrides it",
        None,
    ),
    (
        "CURATOR_HELP_CONTACT",
        "how visitors reach whoever runs the review — an e-mail address (shown as a mail link), a web address (a link) or a sentence — shown on *Forgot your password?*, with or without e-mail",
        None,
    ),
    (
        "CURATOR_MICROSOFT_KEY, CURATOR_MICROSOFT_REGION, CURATOR_GOOGLE_KEY, CURATOR_DEEPL_KEY, CURATOR_LIBRETRANSLATE_KEY",
        "MT API keys for `curator translate` / `signals similarity`",
        "unset",
    ),
    (
        "CURATOR_<SYSTEM>_URL",
        "another endpoint for that API (self-hosted LibreTranslate, a proxy)",
        "the public one",
    ),
    (
        "CURATOR_PASSWORD, CURATOR_DEMO_PASSWORD",
        "one command's secret: the password of `curator user create` / `curator user password` / of the demo accounts of `curator seed --demo-users` (read by that command only, so it never sits in shell history)",
        "prompt / `curator-demo`",
    ),
]

# what follows the shown default in its cell
NOTES: dict[str, str] = {
    "CURATOR_FETCH_MAX_BYTES": "(64 MiB)",
    "CURATOR_PROXY_FIX": "(headers ignored)",
    "CURATOR_RATELIMIT_STORAGE": "(per process)",
    "CURATOR_MAX_BODY": "(1 MiB)",
}


def shown(value: object) -> str | None:
    """A default as the table writes it (None: "none")."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def default_cell(variable: str) -> str:
    """The default column of `variable`, a variable of `ENV`: the field's default, then its note."""
    names = {v: k for k, v in ENV.items()}
    value = shown(default(names[variable]))
    cell = "none" if value is None else f"`{value}`"
    return f"{cell} {NOTES[variable]}" if variable in NOTES else cell


def check_rows() -> None:
    """Every variable of `ENV` has a row; a row that takes its default from `Settings` names one."""
    named = {name.strip() for names, _, _ in ROWS for name in names.split(",")}
    missing = sorted(set(ENV.values()) - named)
    if missing:
        raise ValueError(
            f"docs/hooks/settings_table.py: no row for {', '.join(missing)} (a new setting: add its meaning)"
        )
    for names, _, given in ROWS:
        if given is None and names not in ENV.values():
            raise ValueError(
                f"docs/hooks/settings_table.py: {names} is not a variable of Settings (curator/core/settings.py ENV)"
            )
    stale = sorted(set(NOTES) - set(ENV.values()))
    if stale:
        raise ValueError(f"docs/hooks/settings_table.py: notes for unknown variables {', '.join(stale)}")


def table() -> str:
    """The Markdown table: variable, meaning, default."""
    check_rows()
    lines = ["| variable | meaning | default |", "| --- | --- | --- |"]
    for names, meaning, given in ROWS:
        variables = ", ".join(f"`{name.strip()}`" for name in names.split(","))
        lines.append(f"| {variables} | {meaning} | {given if given is not None else default_cell(names)} |")
    return "\n".join(lines) + "\n"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """mkdocs hook: the table in place of MARKER, on the page that holds it."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, table())

"""`curator seed` (the demo dataset) and `curator serve` (the web app, made lazily)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from curator.cli.common import Context, pass_ctx
from curator.core.db import unit_of_work
from curator.core.settings import ENV, Settings, check_retired, default

SEED = Path(__file__).resolve().parent.parent / "demo" / "data"


@click.command()
@click.option("--path", default=str(SEED), show_default=True, type=click.Path(exists=True, file_okay=False))
@click.option(
    "--demo-users/--no-demo-users",
    default=False,
    help="Also create maintainer@demo.invalid and reviewer@demo.invalid (es, ar).",
)
@click.option("--demo-password", envvar="CURATOR_DEMO_PASSWORD", default="curator-demo", show_default=True)
@pass_ctx
def seed(ctx: Context, path: str, demo_users: bool, demo_password: str) -> None:
    """Load the demo dataset (init, ingest, candidates build); safe to re-run."""
    from curator.core.migrate import upgrade
    from curator.demo import DEMO_USERS, create_demo_users, load_seed

    upgrade(ctx.engine)
    with unit_of_work(ctx.sessions()) as session:
        summary = load_seed(session, Path(path))
        if demo_users:
            create_demo_users(session, demo_password)
    click.echo(f"demo seed loaded: {', '.join(summary.included)} included")
    if demo_users:
        for email, role, _ in DEMO_USERS:
            click.echo(f"  sign in as {role}: {email} / {demo_password}")


def _setting(name: str, what: str) -> str:
    """An option's help: what it is, and the variable and default it falls back to (Settings)."""
    fallback = default(name)
    return f"{what} [default: ${ENV[name]}, else {'none' if fallback is None else fallback}]"


def _range(name: str, integer: bool = True) -> click.ParamType:
    """The option's type: the range of the setting (Settings.RANGES), as the variable has."""
    low, high = Settings.RANGES[name]
    if integer:
        return click.IntRange(int(low), None if high is None else int(high))
    return click.FloatRange(low, high)


@click.command()
@click.option("--host", default=None, help=_setting("host", "Address to listen on."))
@click.option("--port", default=None, type=_range("port"), help=_setting("port", "Port to listen on."))
@click.option(
    "--workers",
    default=None,
    type=_range("workers"),
    help=_setting(
        "workers", "Worker processes (one core each; a few suffice on SQLite, which has one writer at a time)."
    ),
)
@click.option(
    "--threads",
    default=None,
    type=_range("threads"),
    help=_setting("threads", "Threads per worker: requests served at once by each process."),
)
@click.option(
    "--graceful-timeout",
    default=None,
    type=_range("graceful_timeout"),
    help=_setting("graceful_timeout", "On restart (SIGHUP) or stop (SIGTERM): seconds to finish requests in flight."),
)
@click.option(
    "--read-timeout",
    default=None,
    type=_range("read_timeout", integer=False),
    help=_setting("read_timeout", "Seconds a whole request (headers and body) may take to arrive."),
)
@click.option(
    "--keepalive",
    default=None,
    type=_range("keepalive"),
    help=_setting(
        "keepalive",
        "0 turns keep-alive off; otherwise an idle connection is kept open for the next request until the read timeout.",
    ),
)
@click.option(
    "--access-log",
    default=None,
    metavar="FILE",
    help=_setting("access_log", "Access log file ('-' for stderr)."),
)
@click.option(
    "--dev", is_flag=True, help="Flask's development server with the reloader and debugger (never in production)."
)
@pass_ctx
def serve(
    ctx: Context,
    host: str | None,
    port: int | None,
    workers: int | None,
    threads: int | None,
    graceful_timeout: int | None,
    read_timeout: float | None,
    keepalive: int | None,
    access_log: str | None,
    dev: bool,
) -> None:
    """Run the web app: granian with worker processes, each running the app on threads (`--dev`:
    Flask's reloader).

    SIGHUP replaces the workers without dropping requests; SIGTERM stops after the requests in
    flight. Put a proxy in front for TLS (docs/deploy.md)."""
    from dataclasses import replace

    from curator.core.migrate import check_current
    from curator.web import create_app
    from curator.web.preflight import check_before_fork, check_dev_host, cookie_warning

    # an option given wins over its variable (read into the Settings with the others)
    given: dict[str, Any] = {
        "host": host,
        "port": port,
        "workers": workers,
        "threads": threads,  # each worker's pool: a connection per thread
        "graceful_timeout": graceful_timeout,
        "read_timeout": read_timeout,
        "keepalive": keepalive,
        "access_log": access_log,
    }
    check_retired()  # CURATOR_WORKER_TIMEOUT: one line saying it is gone, not a knob silently ignored
    settings = replace(ctx.settings, **{k: v for k, v in given.items() if v is not None})
    host, port = settings.host, settings.port
    if dev:
        check_dev_host(host)  # issue 38 §2: the debugger never beyond loopback
    check_current(ctx.engine)  # one line ("run `curator init`"), not a worker that fails to boot
    ctx.engine.dispose()  # each worker opens its own connections after the fork
    check_before_fork(settings, host)  # the rate-limit store, limits, secret key, the app: one line each
    # without CURATOR_SECRET_KEY: the key kept in the instance folder (made once), so a restart
    # (or --dev's reloader) signs nobody out; read here, once, so every worker has the same
    settings = settings.with_kept_key()
    warning = cookie_warning(settings, host)  # issue 38 §2: public and not told it is behind HTTPS
    if warning:
        click.echo(warning, err=True)
    if dev:
        create_app(settings).run(host=host, port=port, debug=True, use_reloader=True)
        return
    _run_granian(settings, host, port)


def _run_granian(settings: Settings, host: str, port: int) -> None:
    """Listen, say so on one line, then serve with granian's workers until stopped."""
    from curator.core.errors import CuratorError
    from curator.web import create_app
    from curator.web.server import granian_server, listen

    try:  # listening before the line below: a client that connects once it is printed is not refused
        listener = listen(host, port)
    except OSError as exc:
        raise CuratorError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    port = listener.getsockname()[1]  # the one chosen, for port 0
    server, load = granian_server(
        lambda: create_app(settings),
        listener=listener,
        workers=settings.workers,
        threads=settings.threads,
        read_timeout=settings.read_timeout,
        keepalive=settings.keepalive,
        graceful_timeout=settings.graceful_timeout,
        max_body=settings.max_body,
        access_log=settings.access_log,
    )
    click.echo(
        f"curator: serving on http://{host}:{port} ({settings.workers} workers x {settings.threads} threads)", err=True
    )
    try:
        server.serve(target_loader=load)
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise CuratorError(
                f"a worker stopped unexpectedly, so the server stopped (exit {exc.code}); see the log above"
            ) from None
        raise


COMMANDS = (seed, serve)

"""`curator seed` (the demo dataset) and `curator serve` (the web app, made lazily)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from curator.cli.common import Context, pass_ctx
from curator.core.db import unit_of_work

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


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, envvar="CURATOR_HOST")
@click.option("--port", default=5000, show_default=True, envvar="CURATOR_PORT", type=click.IntRange(0, 65535))
@click.option(
    "--workers",
    default=2,
    show_default=True,
    envvar="CURATOR_WORKERS",
    type=click.IntRange(1, 64),
    help="Worker processes (one core each; a few suffice on SQLite, which has one writer at a time).",
)
@click.option(
    "--threads",
    default=8,
    show_default=True,
    envvar="CURATOR_THREADS",
    type=click.IntRange(1, 256),
    help="Threads per worker: requests served at once by each process.",
)
@click.option(
    "--timeout",
    default=30,
    show_default=True,
    envvar="CURATOR_WORKER_TIMEOUT",
    type=click.IntRange(1),
    help="Seconds a silent worker lives before it is killed and replaced.",
)
@click.option(
    "--graceful-timeout",
    default=30,
    show_default=True,
    envvar="CURATOR_GRACEFUL_TIMEOUT",
    type=click.IntRange(1),
    help="On restart (SIGHUP) or stop (SIGTERM): seconds to finish requests in flight.",
)
@click.option(
    "--read-timeout",
    default=10.0,
    show_default=True,
    envvar="CURATOR_READ_TIMEOUT",
    type=click.FloatRange(0.1),
    help="Seconds a whole request (headers and body) may take to arrive.",
)
@click.option(
    "--keepalive",
    default=5,
    show_default=True,
    envvar="CURATOR_KEEPALIVE",
    type=click.IntRange(0),
    help="Seconds an idle connection is kept open for the client's next request.",
)
@click.option(
    "--access-log",
    default=None,
    envvar="CURATOR_ACCESS_LOG",
    metavar="FILE",
    help="Access log file ('-' for stderr); none by default.",
)
@click.option(
    "--dev", is_flag=True, help="Flask's development server with the reloader and debugger (never in production)."
)
@pass_ctx
def serve(
    ctx: Context,
    host: str,
    port: int,
    workers: int,
    threads: int,
    timeout: int,
    graceful_timeout: int,
    read_timeout: float,
    keepalive: int,
    access_log: str | None,
    dev: bool,
) -> None:
    """Run the web app: gunicorn with worker processes and threads (`--dev`: Flask's reloader).

    SIGHUP reloads the workers one by one without dropping requests; SIGTERM stops after the
    requests in flight. Put nginx in front for TLS (docs/deploy.md)."""
    from dataclasses import replace

    from curator.core.errors import CuratorError
    from curator.core.migrate import check_current
    from curator.web import create_app
    from curator.web.preflight import check_before_fork

    settings = replace(ctx.settings, threads=threads)  # each worker's pool: a connection per thread
    check_current(ctx.engine)  # one line ("run `curator init`"), not a worker that fails to boot
    ctx.engine.dispose()  # each worker opens its own connections after the fork
    check_before_fork(settings, host)  # the rate-limit store, limits, secret key, the app: one line each
    if dev:
        create_app(settings).run(host=host, port=port, debug=True, use_reloader=True)
        return
    from gunicorn.arbiter import Arbiter
    from gunicorn.errors import HaltServer

    from curator.web.server import Server, gunicorn_options

    options = gunicorn_options(
        bind=f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        workers=workers,
        threads=threads,
        timeout=timeout,
        graceful_timeout=graceful_timeout,
        keepalive=keepalive,
        access_log=access_log,
    )
    click.echo(f"curator: serving on http://{host}:{port} ({workers} workers x {threads} threads)", err=True)
    master = os.getpid()
    try:
        Server(lambda: create_app(settings), options, read_timeout=read_timeout, max_body=settings.max_body).run()
    except HaltServer as exc:
        # a second worker that failed to boot while the arbiter was already halting for the
        # first: gunicorn raises out of its halt instead of exiting (both workers boot at once)
        if os.getpid() != master:
            raise
        raise CuratorError(
            f"a worker could not start the app, so the server stopped (exit {exc.exit_status}); see the log above"
        ) from None
    except SystemExit as exc:
        if os.getpid() != master:
            # a worker leaving: its exit code is gunicorn's message to the arbiter (3: could not
            # boot, which halts the server instead of restarting workers that fail the same way)
            raise
        if exc.code in (Arbiter.WORKER_BOOT_ERROR, Arbiter.APP_LOAD_ERROR):
            raise CuratorError(
                f"a worker could not start the app, so the server stopped (exit {exc.code}); see the log above"
            ) from None
        if exc.code not in (0, None):
            raise CuratorError(f"the server stopped (exit {exc.code}); see the log above") from None
        raise


COMMANDS = (seed, serve)

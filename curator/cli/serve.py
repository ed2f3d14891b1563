"""`curator seed` (the demo dataset) and `curator serve` (the web app, made lazily)."""
from __future__ import annotations

from pathlib import Path

import click

from curator.cli.common import Context, pass_ctx
from curator.core.db import transaction

SEED = Path(__file__).resolve().parent.parent / "demo" / "data"


@click.command()
@click.option("--path", default=str(SEED), show_default=True, type=click.Path(exists=True, file_okay=False))
@click.option("--demo-users/--no-demo-users", default=False,
              help="Also create maintainer@demo.invalid and reviewer@demo.invalid (es, ar).")
@click.option("--demo-password", envvar="CURATOR_DEMO_PASSWORD", default="curator-demo", show_default=True)
@pass_ctx
def seed(ctx: Context, path: str, demo_users: bool, demo_password: str) -> None:
    """Load the demo dataset (init, ingest, candidates build); safe to re-run."""
    from curator.core.migrate import upgrade
    from curator.demo import DEMO_USERS, create_demo_users, load_seed

    upgrade(ctx.engine)
    with transaction(ctx.sessions()) as session:
        summary = load_seed(session, Path(path))
        if demo_users:
            create_demo_users(session, demo_password)
    click.echo(f"demo seed loaded: {', '.join(summary.included)} included")
    if demo_users:
        for email, role, _ in DEMO_USERS:
            click.echo(f"  sign in as {role}: {email} / {demo_password}")


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True)
@click.option("--debug", is_flag=True)
@pass_ctx
def serve(ctx: Context, host: str, port: int, debug: bool) -> None:
    """Run the web app (development server)."""
    from curator.web import create_app

    create_app(ctx.settings).run(host=host, port=port, debug=debug)


COMMANDS = (seed, serve)

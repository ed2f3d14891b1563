"""`curator db …`: back up and check the database (SQLite or PostgreSQL), see core/maintenance.py."""

from __future__ import annotations

from pathlib import Path

import click

from curator.cli.common import Context, pass_ctx


@click.group("db")
def db() -> None:
    """Back up and check the database."""


@db.command("backup")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@pass_ctx
def db_backup(ctx: Context, out: Path) -> None:
    """Write a consistent backup to OUT while the app runs (never overwrites OUT).

    SQLite: a database file (the online backup API). PostgreSQL: a `pg_dump --format=custom`
    archive; restore it with `pg_restore --dbname=NEW OUT`."""
    from curator.core.maintenance import backup, display_url

    how = backup(ctx.engine, out)
    click.echo(f"backed up {display_url(ctx.engine)} to {out} ({how})")


@db.command("check")
@pass_ctx
def db_check(ctx: Context) -> None:
    """Connectivity, integrity (SQLite: integrity and foreign key checks) and the migration level."""
    from curator.core.maintenance import check

    for line in check(ctx.engine):
        click.echo(line)


COMMANDS = (db,)

"""The `curator` command: the root group and its settings; one module per command group.

| module      | commands                                   |
|-------------|--------------------------------------------|
| ingest      | init, ingest …, candidates …               |
| release     | release …, stats                           |
| review      | user …, review …                           |
| oversight   | user trust …, review proposals … resolve … (joins user, review) |
| probe       | probe, models …, runs …                    |
| analysis    | metrics, rankc, compare                    |
| reports     | report, models-table                       |
| signals     | signals …                                  |
| translate   | translate                                  |
| serve       | seed, serve                                |
| db          | db backup, db check                        |
| glossary    | glossary import, glossary export           |
| activity    | activity                                   |
| policy      | policy show, policy set, policy clear      |

`common` holds what they share (the context, list options, tables); `errors` maps every
expected failure (a `curator.core.errors.CuratorError`) to a one-line message and an exit
code, once, for all of them: commands let those errors propagate.
"""

from __future__ import annotations

import click

from curator.cli import (
    analysis,
    db,
    glossary,
    ingest,
    oversight,
    policy,
    probe,
    release,
    reports,
    review,
    serve,
    signals,
    translate,
)
from curator.cli.common import Context
from curator.cli.errors import CuratorGroup
from curator.core.settings import Settings

__all__ = ["Context", "main"]


@click.group(cls=CuratorGroup)
@click.option(
    "--database",
    default=None,
    metavar="URL",
    help="SQLAlchemy URL (default: $CURATOR_DATABASE_URL or ./instance/curator.sqlite).",
)
@click.version_option(package_name="curator")
@click.pass_context
def main(ctx: click.Context, database: str | None) -> None:
    """Curate machine-translated paraphrase templates into a reviewed multilingual dataset."""
    ctx.obj = Context(Settings.from_env(database_url=database) if database else Settings.from_env())


for _module in (
    ingest,
    release,
    review,
    oversight,
    policy,
    probe,
    analysis,
    reports,
    signals,
    translate,
    serve,
    db,
    glossary,
):
    for _command in _module.COMMANDS:
        main.add_command(_command)

from curator.cli import activity as _activity  # noqa: E402 - issue 28: `curator activity`

for _command in _activity.COMMANDS:
    main.add_command(_command)

"""`curator activity`: the activity log of every maintainer action (curator/review/activity.py),
newest first, filtered as on the Activity page (/admin/activity)."""

from __future__ import annotations

import json

import click

from curator.cli.common import Column, Context, echo_table, pass_ctx
from curator.core.db import reading
from curator.core.errors import InputError
from curator.core.text import visible  # a target's invisible characters shown marked


class BadOption(click.ClickException):
    """A filter value refused: one line naming the option (`Error: --since: …`), exit 2 as for
    click's own usage errors, without the usage text around it."""

    exit_code = 2


@click.command("activity")
@click.option("--action", default=None, help="Only this action (invite, build, glossary, …).")
@click.option("--actor", default=None, metavar="EMAIL", help="Only this maintainer's ('command line': commands').")
@click.option("--language", default=None, metavar="CODE", help="Only this language.")
@click.option("--since", default=None, metavar="DATE", help="From this date (YYYY-MM-DD, UTC) or ISO time on.")
@click.option("--limit", default="50", show_default=True, metavar="N", help="At most N entries (1 to 10000).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object: entries, newest first.")
@pass_ctx
def activity_command(
    ctx: Context,
    action: str | None,
    actor: str | None,
    language: str | None,
    since: str | None,
    limit: str,
    as_json: bool,
) -> None:
    """Maintainer actions, newest first, with who did them and when (UTC)."""
    from curator.review import activity

    try:
        count = int(limit.strip()) if limit.strip().isdigit() and len(limit.strip()) < 7 else 0
        if not 1 <= count <= activity.MAX_LIMIT:
            raise InputError(f"{limit!r} is not a whole number from 1 to {activity.MAX_LIMIT}", field="limit")
        with reading(ctx.sessions()) as session:
            filters = activity.check_filters(session, action, actor, language, since)
            rows, older = activity.page(session, filters, count)
    except InputError as exc:
        raise BadOption(f"--{exc.field}: {exc.message}" if exc.field else str(exc)) from None
    if as_json:
        entries = [
            {
                "id": e.id,
                "at": e.at.isoformat(timespec="seconds") + "Z",
                "actor": e.actor,
                "action": e.action,
                "language": e.language,
                "target": e.target,
                "details": e.details,
            }
            for e in rows
        ]
        click.echo(json.dumps({"entries": entries, "more": older is not None}, indent=2, ensure_ascii=False))
        return
    if not rows:
        click.echo("no activity matches" if any((action, actor, language, since)) else "no activity recorded yet")
        return
    echo_table(
        [Column("when (UTC)", 19), Column("who", 24), Column("action", 15), Column("lang", 6), Column("what", 0)],
        [
            (
                e.at.strftime("%Y-%m-%d %H:%M:%S"),
                e.actor,
                e.action,
                e.language or "-",
                visible(e.target + ("  " + _details(e.details) if e.details else "")),
            )
            for e in rows
        ],
    )
    if older is not None:
        click.echo("(older entries: raise --limit or narrow the filters)")


def _details(details: dict[str, object]) -> str:
    return ", ".join(
        f"{k}={json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v}" for k, v in details.items()
    )


COMMANDS = (activity_command,)

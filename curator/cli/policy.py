"""`curator policy show|set|clear`: the merge policy stored for the project and each language's
override (curator/review/policy.py). `release preview`, `release build --from-review` and
`review proposals` use it unless given `--policy`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from curator.cli.common import Column, Context, echo_table, language_argument, pass_ctx
from curator.core.db import reading, unit_of_work
from curator.core.enums import Policy, values

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


@click.group("policy")
def policy() -> None:
    """The merge policy: one for the project, overridable per language (any, majority, unanimous)."""


@policy.command("show")
@click.option("--json", "as_json", is_flag=True, help="One JSON object: project, and each language's policy.")
@pass_ctx
def policy_show(ctx: Context, as_json: bool) -> None:
    """The project's policy and each language's, marking the languages that override it."""
    from curator.review.policy import language_overrides, language_policies, project_policy

    with reading(ctx.sessions()) as session:
        project = project_policy(session)
        effective = language_policies(session)
        overrides = language_overrides(session)
    if as_json:
        shown = {code: {"policy": p, "override": code in overrides} for code, p in effective.items()}
        click.echo(json.dumps({"project": project, "languages": shown}, indent=2))
        return
    click.echo(f"project: {project}")
    echo_table(
        [Column("language", 9), Column("policy", 10), Column("from", 0)],
        [(code, p, "override" if code in overrides else "project") for code, p in effective.items()],
    )


@policy.command("set")
@click.argument("name", metavar="POLICY", type=click.Choice(values(Policy)))
@click.option(
    "--language", default=None, metavar="CODE", callback=language_argument, help="Override it for this language only."
)
@pass_ctx
def policy_set(ctx: Context, name: str, language: str | None) -> None:
    """Store POLICY for the project, or (--language) as that language's override."""
    from curator.review.policy import set_language_policy, set_project_policy

    with unit_of_work(ctx.sessions()) as session:  # actor None: the activity log says "command line"
        if language is None:
            set_project_policy(session, None, name)
        else:
            set_language_policy(session, None, language, name)
    click.echo(f"{language}: merged under {name}" if language else f"project: merged under {name}")


@policy.command("clear")
@click.option("--language", required=True, metavar="CODE", callback=language_argument, help="The language.")
@pass_ctx
def policy_clear(ctx: Context, language: str) -> None:
    """Remove the language's override: the project's policy applies to it again."""
    from curator.review.policy import language_policy, set_language_policy

    with unit_of_work(ctx.sessions()) as session:
        set_language_policy(session, None, language, None)
        now = language_policy(session, language)
    click.echo(f"{language}: no override, merged under the project's policy ({now})")


COMMANDS = (policy,)


def policies_used(session: Session, asked: str | None, languages: list[str] | None = None) -> dict[str, str]:
    """{code: the policy a command judges it under}: `asked` (its --policy) for every language,
    else each language's stored one; `languages`: only these (default: every known language)."""
    from curator.review.policy import language_policies, language_policy

    codes = languages if languages else list(language_policies(session))
    return {code: asked if asked is not None else language_policy(session, code) for code in codes}


def describe(session: Session, asked: str | None, languages: list[str] | None = None) -> str:
    """What a command says of its policy: `policy P (--policy)`, or the stored one — the
    project's and the overrides of the languages concerned."""
    from curator.review.policy import language_overrides, project_policy

    if asked is not None:
        return f"policy {asked} (--policy)"
    overrides = language_overrides(session)
    if languages:
        overrides = {code: p for code, p in overrides.items() if code in languages}
    if languages and len(languages) == 1:
        (code,) = languages
        return f"the stored policy of {code}: {overrides.get(code, project_policy(session))}"
    shown = "; ".join(f"{code} {p}" for code, p in overrides.items())
    return f"the stored policy: project {project_policy(session)}" + (f"; {shown}" if shown else "")

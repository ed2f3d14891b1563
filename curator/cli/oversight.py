"""The maintainers' answers from a terminal (issue 28): proposals (`curator review proposals |
confirm | drop`, `curator user trust | distrust`) and disagreements (`curator review
disagreements | resolve`). The commands join the `user` and `review` groups of
`curator.cli.review` when this module is imported (cli/__init__.py does). `acting_maintainer` names
the account a command's answer is recorded under (`--by`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from curator.cli.common import Column, Context, echo_table, language_argument, pass_ctx
from curator.cli.review import review, user
from curator.core.db import reading, unit_of_work
from curator.core.enums import DecisionKind, DisagreementKind, Policy, ProposalStatus, Role, values
from curator.core.errors import InputError

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from curator.core.models import User

COMMANDS: tuple[click.Command, ...] = ()  # everything here is a subcommand of `user` or `review`


# ---------------------------------------------------------------- proposals (issue 28 §1)
@user.command("trust")
@click.argument("email")
@click.argument("language", callback=language_argument)
@pass_ctx
def user_trust(ctx: Context, email: str, language: str) -> None:
    """Trust a reviewer in LANGUAGE: their amendments and suggestions count as confirmed."""
    _set_trusted(ctx, email, language, True)
    click.echo(f"{email} is trusted in {language}: their proposals count as confirmed")


def _set_trusted(ctx: Context, email: str, language: str, trusted: bool) -> None:
    from curator.review.proposal_answers import set_trusted

    with unit_of_work(ctx.sessions()) as session:
        set_trusted(session, None, email, language, trusted)


@user.command("distrust")
@click.argument("email")
@click.argument("language", callback=language_argument)
@pass_ctx
def user_distrust(ctx: Context, email: str, language: str) -> None:
    """Stop trusting a reviewer in LANGUAGE: their proposals wait for a second look again."""
    _set_trusted(ctx, email, language, False)
    click.echo(f"{email} is no longer trusted in {language}: their proposals wait for a second look")


@review.command("proposals")
@click.argument("language", callback=language_argument)
@click.option(
    "--status", type=click.Choice(values(ProposalStatus)), default=None, help="Only proposals with this status."
)
@click.option(
    "--policy",
    type=click.Choice(values(Policy)),
    default=None,
    help="Judge the second reviewers' verdicts under this policy (default: LANGUAGE's stored one).",
)
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def review_proposals(ctx: Context, language: str, status: str | None, policy: str | None, as_json: bool) -> None:
    """LANGUAGE's amendments and suggestions with their status (only confirmed ones ship)."""
    from curator.cli.policy import describe
    from curator.core.text import visible
    from curator.review.proposals import proposals

    with reading(ctx.sessions()) as session:  # policy None: the language's stored one
        found = [p for p in proposals(session, language, policy=policy) if status is None or p.status == status]
        used = describe(session, policy, [language])
    if as_json:
        click.echo(json.dumps([p.to_dict() for p in found], indent=2, ensure_ascii=False))
        return
    echo_table(
        [Column("relation", 9), Column("status", 12), Column("proposal", 0), Column("proposed by", 0, gap="   ")],
        [(p.relation, p.status.value, visible(p.text), ", ".join(p.proposers) or "-") for p in found],
    )
    click.echo(f"{len(found)} proposals (statuses under {used})")


def acting_maintainer(session: Session, email: str | None) -> User:
    """The maintainer account a command acts as: --by (an active maintainer), or the only active
    maintainer there is."""
    from sqlalchemy import select

    from curator.core.models import User
    from curator.review.accounts import find_user

    if email:
        account = find_user(session, email)
        if account is None or account.role != Role.MAINTAINER:
            raise InputError(f"--by: {email} is not a maintainer account")
        if not account.active:  # a deactivated maintainer acts no more, on the command line either
            raise InputError(f"--by: {email} is deactivated")
        return account
    maintainers = session.scalars(select(User).where(User.role == Role.MAINTAINER, User.active.is_(True))).all()
    if len(maintainers) != 1:
        raise InputError("--by: name the maintainer account it is recorded under")
    return maintainers[0]


def _answer(
    ctx: Context, language: str, relation: str, text: str, verdict: str, reason: str, edit: str | None, by: str | None
) -> None:
    from curator.core.text import visible
    from curator.review.proposal_answers import review_proposal

    with unit_of_work(ctx.sessions()) as session:
        p = review_proposal(session, acting_maintainer(session, by), language, relation, text, verdict, reason, edit)
        shown, status_now = visible(p.text), p.status.value
    click.echo(f"{language}/{relation}: {shown} is now {status_now}")


@review.command("confirm")
@click.argument("language", callback=language_argument)
@click.argument("relation")
@click.argument("text")
@click.option("--reason", default="", help="Why (kept with the answer and in the activity log).")
@click.option("--edit", "edit", default=None, help="Confirm this text instead (the proposal is dropped).")
@click.option("--by", "by", default=None, help="The maintainer account (default: the only active one).")
@pass_ctx
def review_confirm(
    ctx: Context, language: str, relation: str, text: str, reason: str, edit: str | None, by: str | None
) -> None:
    """Accept a proposal (or, with --edit, replace it with a corrected text): it ships as checked by a human."""
    _answer(ctx, language, relation, text, "confirm", reason, edit, by)


@review.command("drop")
@click.argument("language", callback=language_argument)
@click.argument("relation")
@click.argument("text")
@click.option("--reason", default="", help="Why (kept with the answer and in the activity log).")
@click.option("--by", "by", default=None, help="The maintainer account (default: the only active one).")
@pass_ctx
def review_drop(ctx: Context, language: str, relation: str, text: str, reason: str, by: str | None) -> None:
    """Drop a proposal: it never ships."""
    _answer(ctx, language, relation, text, "drop", reason, None, by)


BY = click.option(
    "--by", "by", default=None, help="The maintainer account it is recorded under (default: the only active one)."
)


@review.command("disagreements")
@click.argument("language", callback=language_argument)
@click.option("--json", "as_json", is_flag=True)
@click.option(
    "--kind",
    type=click.Choice(values(DisagreementKind)),  # review.resolutions.KINDS, without loading it
    help="only this kind: different verdicts, different amendments, a reviewer unsure",
)
@pass_ctx
def review_disagreements(ctx: Context, language: str, as_json: bool, kind: str | None) -> None:
    """LANGUAGE's templates where reviewers disagree or are unsure, with each decision, the
    comments and the standing resolution."""
    from curator.core.text import visible
    from curator.review.resolutions import disagreements, of_kind

    with reading(ctx.sessions()) as session:
        items = of_kind(disagreements(session, language), kind)
    if as_json:
        click.echo(json.dumps({"language": language, "items": items}, indent=2, ensure_ascii=False))
        return
    click.echo(f"{language}: {len(items)} templates to look at")
    for item in items:
        click.echo(
            f"#{item['template_id']} {item['relation']}: {visible(item['template'])}  ({', '.join(item['why'])})"
        )
        for d in item["decisions"]:
            fix = f" -> {visible(d['correction'])}" if d["correction"] else ""
            why = f": {visible(d['reason'])}" if d["reason"] else ""
            click.echo(f"  {d['decision']:<7} {d['reviewer']}{fix}{why}")
        for c in item["comments"]:
            click.echo(f"  comment by {c['reviewer']}: {visible(c['text'])}")
        r = item["resolution"]
        if r:
            fix = f" -> {visible(r['correction'])}" if r["correction"] else ""
            click.echo(f"  RESOLVED {r['verdict']}{fix} by {r['by']} {r['at']}: {visible(r['reason'])}")


@review.command("resolve")
@click.argument("template_id", type=int)
@click.argument(
    "verdict", type=click.Choice([*(k for k in values(DecisionKind) if k != DecisionKind.UNSURE), "retract"])
)
@click.option("--reason", default=None, help="Why (required, except to retract).")
@click.option("--correction", default=None, help="The corrected template (amend only).")
@BY
@pass_ctx
def review_resolve(
    ctx: Context, template_id: int, verdict: str, reason: str | None, correction: str | None, by: str | None
) -> None:
    """Resolve a disagreement on TEMPLATE_ID: every merge policy follows the resolution; a later
    one supersedes it; `retract` withdraws it."""
    from curator.review.resolutions import resolve, retract_resolution

    with unit_of_work(ctx.sessions()) as session:
        maintainer = acting_maintainer(session, by)
        if verdict == "retract":
            retract_resolution(session, maintainer, template_id)
            click.echo(f"template {template_id}: resolution withdrawn; the reviewers' decisions count again")
            return
        row = resolve(session, maintainer, template_id, verdict, reason or "", correction)
        fix = f" -> {row.correction}" if row.correction else ""
        click.echo(f"template {template_id} ({row.language}/{row.relation_id}): resolved {verdict}{fix}")

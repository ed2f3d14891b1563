"""`curator user …` (accounts, invitations, API tokens) and `curator review …` (sampling, statistics,
legacy decisions)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import click

from curator.cli.common import Column, Context, echo_table, language_argument, list_option, pass_ctx
from curator.core.db import reading, unit_of_work
from curator.core.enums import Activity, QueueOrder, Role, values
from curator.core.errors import InputError, NotFound
from curator.core.settings import Settings, check_base_url


# ---------------------------------------------------------------- users
@click.group()
def user() -> None:
    """Accounts: maintainers, invitations, API tokens."""


@user.command("create")
@click.argument("email")
@click.option("--role", type=click.Choice(values(Role)), default="reviewer", show_default=True)
@click.option("--name", default="")
@click.option(
    "--password", envvar="CURATOR_PASSWORD", default=None, help="Default: prompt (or $CURATOR_PASSWORD for scripts)."
)
@list_option("--language", "languages", help="Assign a language (repeatable).")
@pass_ctx
def user_create(ctx: Context, email: str, role: str, name: str, password: str | None, languages: list[str]) -> None:
    """Create an account that can sign in (e.g. the first maintainer)."""
    from curator.review import activity
    from curator.review.accounts import create_user
    from curator.review.sampling import assign

    if password is None:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    with unit_of_work(ctx.sessions()) as session:
        account = create_user(session, email, password, role, name)
        activity.record(session, None, Activity.ACCOUNT_CREATE, account.email, details={"role": role})
        for code in languages:
            assign(session, account, code)
            activity.record(session, None, Activity.ASSIGN, account.email, language=code, details={"sample": "new"})
    click.echo(f"created {role} {email}" + (f" reviewing {', '.join(languages)}" if languages else ""))


@user.command("password")
@click.argument("email")
@click.option(
    "--password", envvar="CURATOR_PASSWORD", default=None, help="Default: prompt (or $CURATOR_PASSWORD for scripts)."
)
@pass_ctx
def user_password(ctx: Context, email: str, password: str | None) -> None:
    """Set a new password (e.g. a reviewer who forgot theirs); signs the account out everywhere
    and revokes its API token."""
    from curator.review import activity
    from curator.review.accounts import find_user, set_password

    if password is None:
        password = click.prompt("New password", hide_input=True, confirmation_prompt=True)
    with unit_of_work(ctx.sessions()) as session:
        account = find_user(session, email)
        if account is None:
            raise NotFound(f"no user {email}")
        set_password(session, account, password)
        activity.record(session, None, Activity.PASSWORD_SET, account.email)
    click.echo(f"password of {email} changed; every sign-in of the account and its API token are revoked")


@user.command("deactivate")
@click.argument("email")
@click.option(
    "--undo",
    is_flag=True,
    help="Reactivate the account instead (same as `curator user reactivate`).",
)
@pass_ctx
def user_deactivate(ctx: Context, email: str, undo: bool) -> None:
    """Stop an account from signing in: every sign-in and its API token are revoked; its decisions,
    suggestions and comments are kept. The last active maintainer cannot be deactivated."""
    if undo:
        _reactivate(ctx, email)
        return
    from curator.review import people

    with unit_of_work(ctx.sessions()) as session:
        people.deactivate(session, None, people.get_person(session, email))
    click.echo(f"{email} deactivated; every sign-in of the account and its API token are revoked")


@user.command("reactivate")
@click.argument("email")
@pass_ctx
def user_reactivate(ctx: Context, email: str) -> None:
    """Let a deactivated account sign in again with its password (a script needs a new token)."""
    _reactivate(ctx, email)


def _reactivate(ctx: Context, email: str) -> None:
    from curator.review import people

    with unit_of_work(ctx.sessions()) as session:
        people.reactivate(session, None, people.get_person(session, email))
    click.echo(f"{email} reactivated")


@user.command("role")
@click.argument("email")
@click.argument("role", type=click.Choice(values(Role)))
@pass_ctx
def user_role(ctx: Context, email: str, role: str) -> None:
    """Make the account a reviewer or a maintainer (the last active maintainer stays one)."""
    from curator.review import people

    with unit_of_work(ctx.sessions()) as session:
        people.change_role(session, None, people.get_person(session, email), role)
    click.echo(f"{email} is now a {role}")


@user.command("assign")
@click.argument("email")
@click.argument("language")
@pass_ctx
def user_assign(ctx: Context, email: str, language: str) -> None:
    """Give the account LANGUAGE to review: a new sample, or the same one back if it was unassigned."""
    from curator.review import people

    with unit_of_work(ctx.sessions()) as session:
        _, restored = people.assign_language(session, None, people.get_person(session, email), language)
    click.echo(f"{email} reviews {language}" + (" again (the same sample)" if restored else " (a new sample)"))


@user.command("unassign")
@click.argument("email")
@click.argument("language")
@pass_ctx
def user_unassign(ctx: Context, email: str, language: str) -> None:
    """Take LANGUAGE off the account: hidden from it and refused; its decisions still count."""
    from curator.review import people

    with unit_of_work(ctx.sessions()) as session:
        people.unassign_language(session, None, people.get_person(session, email), language)
    click.echo(f"{email} no longer reviews {language} (decisions kept; `curator user assign` brings the sample back)")


@user.command("reset-link")
@click.argument("email")
@click.option(
    "--base-url",
    default=None,
    help="The address the app is served at, as its users open it (https://review.example.org); "
    "default: CURATOR_BASE_URL (the setting), else only the link's path is printed.",
)
@pass_ctx
def user_reset_link(ctx: Context, email: str, base_url: str | None) -> None:
    """Print a one-time password-reset link (valid 72 hours); e-mailed too when CURATOR_SMTP_HOST is set."""
    from curator.review import mail, people

    settings = _settings(ctx, base_url)
    with unit_of_work(ctx.sessions()) as session:
        user = people.get_person(session, email)
        _mail_needs_base_url(settings, user.email)
        _, token = people.create_reset(session, None, user)
        address = user.email
    link = _link(settings, people.reset_path(token))
    _mail(ctx, address, *mail.password_reset(link, address, people.RESET_HOURS))


def _settings(ctx: Context, base_url: str | None) -> Settings:
    """The settings with --base-url in place of CURATOR_BASE_URL when given (checked the same way)."""
    if base_url is None:
        return ctx.settings
    return replace(ctx.settings, base_url=check_base_url(base_url, "--base-url"))


def _link(settings: Settings, path: str) -> str:
    """Print the link (Settings.link: the base URL and the path), or (none configured) the path
    alone, with one line on stderr saying what to put in front of it. Returned as printed."""
    link = settings.link(path)
    if link is None:
        click.echo("no base URL configured (CURATOR_BASE_URL or --base-url): the link's path only", err=True)
        click.echo(path)
        return path
    click.echo(link)
    return link


def _mail_needs_base_url(settings: Settings, to: str | None) -> None:
    """An e-mailed link must be a whole one: refused before anything is made."""
    from curator.review import mail

    if to and mail.configured(settings) and not mail.may_mail_links(settings):
        raise InputError(
            "set the address the app is served at to e-mail the link (or --base-url)", location="CURATOR_BASE_URL"
        )


def _mail(ctx: Context, to: str | None, subject: str, body: str) -> None:
    """E-mail a link already printed (and committed), when SMTP is configured: a failure is one
    line on stderr and exit 1, and the printed link still works."""
    from curator.review import mail

    if not to or not mail.configured(ctx.settings):
        return
    mail.send(ctx.settings, to, subject, body)  # MailNotSent: `Error: …`, exit 1 (cli/errors.py)
    click.echo(f"e-mailed to {to}", err=True)


@user.command("invite")
@list_option("--language", "languages", help="Language to review (repeatable).")
@click.option("--email", default=None, help="Bind the invitation to this address.")
@click.option("--role", type=click.Choice(values(Role)), default="reviewer", show_default=True)
@click.option("--fraction", type=float, default=None, help="Share of each relation's candidates to sample (0.5).")
@click.option(
    "--base-url",
    default=None,
    help="The address the app is served at, as its users open it (https://review.example.org); "
    "default: CURATOR_BASE_URL (the setting), else only the link's path is printed.",
)
@pass_ctx
def user_invite(
    ctx: Context, languages: list[str], email: str | None, role: str, fraction: float | None, base_url: str | None
) -> None:
    """Print an invitation link (valid 14 days); e-mailed too to --email when CURATOR_SMTP_HOST is set."""
    from curator.review import mail
    from curator.review.invitations import INVITE_DAYS, create_invite, invite_path

    settings = _settings(ctx, base_url)
    with unit_of_work(ctx.sessions()) as session:
        _mail_needs_base_url(settings, email)
        invite, token = create_invite(session, languages, None, email, role, fraction)
        address, codes = invite.email, list(invite.languages)
    link = _link(settings, invite_path(token))
    _mail(ctx, address, *mail.invitation(link, role, codes, INVITE_DAYS))


@user.command("token")
@click.argument("email")
@pass_ctx
def user_token(ctx: Context, email: str) -> None:
    """Issue an API token for scripts (replaces the previous one); printed once."""
    from curator.review import activity
    from curator.review.accounts import find_user, issue_api_token

    with unit_of_work(ctx.sessions()) as session:
        account = find_user(session, email)
        if account is None:
            raise NotFound(f"no user {email}")
        token = issue_api_token(session, account)
        activity.record(session, None, Activity.API_TOKEN, account.email)
    click.echo(token)  # after the commit: a printed token is one that works


# ---------------------------------------------------------------- review
@click.group()
def review() -> None:
    """Reviews: sampling settings, legacy decisions."""


@review.command("fraction")
@click.argument("language", callback=language_argument)
@click.argument("fraction", type=float)
@pass_ctx
def review_fraction(ctx: Context, language: str, fraction: float) -> None:
    """Set LANGUAGE's sample fraction (default 0.5) for reviewers who join from now on."""
    from curator.review.sampling import set_fraction

    with unit_of_work(ctx.sessions()) as session:
        set_fraction(session, language, fraction)
    click.echo(f"{language}: new reviewers sample {fraction:g} of each relation's candidates (at least 2)")


@review.command("order")
@click.argument("language", callback=language_argument)
@click.argument("order", type=click.Choice(values(QueueOrder)))
@pass_ctx
def review_order(ctx: Context, language: str, order: str) -> None:
    """How new reviewers' samples are drawn: random, or the riskiest templates first."""
    from curator.review.sampling import set_queue_order

    with unit_of_work(ctx.sessions()) as session:
        set_queue_order(session, language, order)
    click.echo(f"new reviewers of {language} get a {order} sample")


@review.command("stats")
@click.option("--csv", "as_csv", is_flag=True, help="CSV instead of a table (what the dashboard downloads).")
@click.option("--json", "as_json", is_flag=True)
@pass_ctx
def review_stats(ctx: Context, as_csv: bool, as_json: bool) -> None:
    """Per language: reviewers, progress, decision shares, pace, agreement (Cohen's kappa)."""
    from curator.review.stats import review_summary, summary_csv

    with reading(ctx.sessions()) as session:
        summary = review_summary(session)
    if as_csv:
        click.echo(summary_csv(summary), nl=False)
        return
    if as_json:
        click.echo(json.dumps(summary.to_dict(), indent=2))
        return

    def pct(x: float | None) -> str:
        return "-" if x is None else f"{100 * x:.0f}%"

    echo_table(
        [
            Column("lang", 8),
            Column("reviewers", 9, ">"),
            Column("done", 9, ">"),
            Column("accept", 7, ">"),
            Column("amend", 6, ">"),
            Column("reject", 7, ">"),
            Column("unsure", 6, ">"),
            Column("sugg", 5, ">"),
            Column("med s", 6, ">"),
            Column("agree", 6, ">"),
            Column("kappa", 6, ">"),
        ],
        [
            (
                r.language,
                r.reviewers,
                f"{r.done}/{r.assigned}",
                pct(r.share("accepted")),
                pct(r.share("amended")),
                pct(r.share("rejected")),
                r.unsure,
                r.suggestions,
                "-" if r.median_seconds is None else r.median_seconds,
                pct(r.agreement),
                "-" if r.kappa is None else f"{r.kappa:.2f}",
            )
            for r in summary.languages
        ],
    )
    for kind, label in (("rejected", "wrong"), ("amended", "amended")):
        pair = summary.across(kind)
        if pair:
            click.echo(f"{label}: {100 * pair[0]:.0f}% ± {100 * pair[1]:.0f}% across languages")


@review.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--fraction", type=float, default=None, help="Sample fraction for reviewers new to a language.")
@pass_ctx
def review_import(ctx: Context, file: str, fraction: float | None) -> None:
    """Load decisions from JSONL: reviewer, language, relation, template, decision, correction."""
    from curator.core.enums import Activity
    from curator.review import activity
    from curator.review.importer import import_reviews

    with unit_of_work(ctx.sessions()) as session:
        s = import_reviews(session, file, fraction)
        if s.stored or s.users_created:  # a re-import that changes nothing logs nothing
            activity.record(
                session,
                None,
                Activity.IMPORT,
                Path(file).name,
                None,
                {"what": "reviews", "lines": s.lines, "stored": s.stored, "users_created": s.users_created},
            )
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(s.kinds.items()))
    click.echo(
        f"{s.lines} lines: {s.stored} stored, {s.unchanged} already there ({kinds});"
        f" {s.users_created} reviewers created"
    )


COMMANDS = (user, review)

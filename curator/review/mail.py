"""E-mail to people: invitation and password-reset links, sent through the SMTP server of the
settings (CURATOR_SMTP_*) with the standard library's smtplib and email. Without
CURATOR_SMTP_HOST nothing is sent and the maintainer copies the link from the page or the
command's output, as before. A link is made (and committed) before its e-mail is sent, so a
failed send leaves a working link to copy and one clear message, never half an invitation."""

from __future__ import annotations

import smtplib
import ssl
from collections.abc import Callable
from email.message import EmailMessage

from curator.core.errors import N_, CuratorError
from curator.core.settings import Settings

# a gettext-like function: (message, **placeholders) -> the message in a language, filled in
Translate = Callable[..., str]

# a guard against a server that accepts the connection and never answers, not a speed limit
SMTP_TIMEOUT = 60.0


class MailNotSent(CuratorError):
    """The SMTP server refused the message or could not be reached (the link still works)."""


def configured(settings: Settings) -> bool:
    return bool(settings.smtp_host)


def may_mail_links(settings: Settings) -> bool:
    """The one rule for every e-mail that carries a link (invitation, reset, "Forgot
    password?", mention), read by the pages and the commands: an SMTP server and
    CURATOR_BASE_URL, the address the link starts with. A link is never built from the address
    a request came to (its Host header is the sender's to choose)."""
    return bool(settings.smtp_host and settings.base_url)


def send(settings: Settings, to: str, subject: str, body: str) -> None:
    """Send one plain-text message to `to`; MailNotSent names the server and the reason."""
    if not (settings.smtp_host and settings.smtp_from):  # callers check `configured`; Settings demands a sender
        raise MailNotSent(
            f"the e-mail to {to} was not sent: no SMTP server or sender is configured; copy the link instead"
        )
    message = EmailMessage()
    message["From"] = settings.smtp_from
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    where = f"{settings.smtp_host}:{settings.smtp_port}"
    try:
        if settings.smtp_port == 465:  # TLS from the first byte (RFC 8314)
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(
                settings.smtp_host, settings.smtp_port, timeout=SMTP_TIMEOUT, context=ssl.create_default_context()
            )
        else:
            smtp = smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=SMTP_TIMEOUT)
        with smtp:
            if settings.smtp_starttls and settings.smtp_port != 465:
                smtp.starttls(context=ssl.create_default_context())
            if settings.smtp_user:
                smtp.login(settings.smtp_user, settings.smtp_password or "")
            smtp.send_message(message)
    except (smtplib.SMTPException, OSError) as exc:
        raise MailNotSent(f"the e-mail to {to} was not sent ({where}: {exc}); copy the link instead") from None


def invitation(link: str, role: str, languages: list[str], days: int) -> tuple[str, str]:
    """(subject, body) of an invitation e-mail."""
    what = f"as {role}" + (f" for {', '.join(languages)}" if languages else "")
    return (
        "Your invitation to review on curator",
        f"You are invited to curator {what}.\n\n"
        f"Open this link to choose a password and start:\n{link}\n\n"
        f"The link works once and for {days} days.\n",
    )


def password_reset(link: str, email: str, hours: int) -> tuple[str, str]:
    """(subject, body) of a password-reset e-mail."""
    return (
        "Choose a new password for curator",
        f"A maintainer made a password-reset link for your account {email}.\n\n"
        f"Open it to choose a new password (you are then signed out everywhere else):\n{link}\n\n"
        f"The link works once and for {hours} hours. If you did not ask for it, tell the maintainers.\n",
    )


def _plain(message: str, **params: object) -> str:
    """English: the message itself, its %(name)s placeholders filled (gettext's signature)."""
    return message % params if params else message


def self_service_reset(link: str, email: str, hours: int, tr: Translate = _plain) -> tuple[str, str]:
    """(subject, body) of the e-mail a "Forgot password?" request sends to an account, in the
    language of `tr` (the web passes Flask-Babel's gettext in the asker's interface language)."""
    return (
        tr(N_("Choose a new password for curator")),
        tr(
            N_(
                "Someone asked for a new password for your account %(email)s on curator's sign-in page.\n\n"
                "Open this link to choose one (you are then signed out everywhere else):\n%(link)s\n\n"
                "The link works once and for %(hours)s hours. If you did not ask for it, ignore this e-mail: "
                "your password stays as it is.\n"
            ),
            email=email,
            link=link,
            hours=hours,
        ),
    )


def mention(link: str, author: str, language: str, text: str, tr: Translate = _plain) -> tuple[str, str]:
    """(subject, body) of the e-mail telling someone they were mentioned in a comment thread;
    `language` is the language's name as the reader says it ("español"), `tr` as above."""
    quoted = "".join(f"> {line}\n" for line in text.splitlines())
    return (
        tr(N_("%(author)s mentioned you in a comment (%(language)s) on curator"), author=author, language=language),
        tr(
            N_(
                "%(author)s mentioned you in a comment thread of the %(language)s review:\n\n%(quoted)s\nOpen the thread:\n%(link)s\n"
            ),
            author=author,
            language=language,
            quoted=quoted,
            link=link,
        ),
    )

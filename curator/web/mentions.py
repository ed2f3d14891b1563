"""@mentions (review.mentions) on the web: the notifications on the home page (`home_context`),
the link that opens a mention's thread (/mentions/<id>: the maintainers' threads page, or a
reviewer's history page where the thread is listed), marking them read (CSRF-protected forms),
the e-mail a mention sends when SMTP and CURATOR_BASE_URL are configured (after the answer, on
the mail thread: web/mailer.py; at most CURATOR_RATELIMIT_MAIL per person mentioned), and the
`mentions` filter: a comment's text escaped, the @handles of its stored mentions highlighted."""

from __future__ import annotations

import logging
from functools import partial

from flask import Blueprint, Flask, abort, flash, g, redirect, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required
from markupsafe import Markup, escape

from curator.core.db import unit_of_work
from curator.review import mail, mentions
from curator.review.readers import Account
from curator.web import fields
from curator.web.context import db, write
from curator.web.i18n import LOCALES, language_name, select_locale, speaking
from curator.web.mailer import mailer, within_mail_limit
from curator.web.marks import mark_invisible
from curator.web.settings import current_settings, settings_of

bp = Blueprint("mentions", __name__)
log = logging.getLogger("curator.mail")


def thread_url(record: mentions.MentionRecord) -> str:
    """Where a mention's thread is shown to the signed-in person: the one rule for every link."""
    anchor = f"thread-{record['thread']}"
    if current_user.is_maintainer:
        return url_for("threads.index", code=record["language"], state="all", _anchor=anchor)
    return url_for("review.past", lang=record["language"], _anchor=anchor)


@bp.get("/mentions/<int:mention_id>")
@login_required
def open_mention(mention_id: int):
    """The link of a notification and of its e-mail: to the thread (only one's own mention)."""
    return redirect(thread_url(mentions.get_mention(db(), current_user, fields.row_id(mention_id))))


@bp.post("/mentions/read")
@login_required
def read():
    """Mark one mention (`mention`) or all of them read; back to the home page."""
    raw = request.form.get("mention", "")
    if raw and not (raw.isascii() and raw.isdigit()):  # one mention's id, or nothing (all of them)
        abort(400, _("mention: a number, or nothing to mark every mention read."))
    mention_id = fields.row_id(int(raw)) if raw else None
    with write() as session:
        mentions.mark_read(session, current_user, mention_id)
    flash(_("Marked as read."), "info")
    return redirect(url_for("review.home", _anchor="mentions"))


def home_context() -> dict:
    """The home page's notifications: the list (unread first) and the unread count."""
    rows = mentions.notifications(db(), current_user)
    return {"mentions": rows, "mentions_unread": sum(not r["read"] for r in rows)}


def notify(comment_id: int) -> None:
    """After a comment or reply is stored: e-mail its mentions (when configured), after the answer."""
    if mail.may_mail_links(current_settings()):
        mailer().submit(partial(_send_mentions, comment_id, select_locale()))


def _send_mentions(comment_id: int, locale: str, app: Flask) -> None:
    """E-mail the mentions of a comment, each in its reader's interface language (the one stored
    with their account), else in the language of the page the comment was written on (`locale`)."""
    settings = settings_of(app)
    sessions = app.extensions["curator.sessions"]
    with sessions() as session:
        waiting = mentions.unmailed(session, comment_id)
    for row in waiting:
        if not within_mail_limit(app, settings, "mention-mail", row["to"].lower()):
            log.info("mention #%s not e-mailed: the person's mail limit is reached", row["id"])
            continue
        link = settings.link(f"/mentions/{row['id']}")
        assert link is not None  # mail.may_mail_links
        with speaking(row["locale"] if row["locale"] in LOCALES else locale):
            message = mail.mention(link, row["author"], language_name(row["language"]), row["text"], _)
        try:
            mail.send(settings, row["to"], *message)
        except mail.MailNotSent as exc:
            log.warning("%s", exc)
            continue
        with unit_of_work(sessions) as session:
            mentions.mark_mailed(session, row["id"])


def highlight(text: str, comment_id: int | None = None) -> Markup:
    """`text` escaped (invisible characters marked), each @handle behind one of the comment's
    stored mentions (review.mentions.marked) in a `<mark class="mention">` isolated left-to-right
    (a Latin handle inside Arabic text). Without a comment id nothing is highlighted."""
    spans: list[tuple[int, int]] = []
    if comment_id is not None and "@" in text:
        known: dict[int, list[Account]] = g.setdefault("mention_accounts", {})  # per request
        if comment_id not in known:
            known[comment_id] = mentions.stored_accounts(db(), [comment_id]).get(comment_id, [])
        spans = mentions.marked(text, known[comment_id])
    out, at = [], 0
    for start, end in spans:
        out.append(mark_invisible(text[at:start]))
        out.append(Markup('<mark class="mention"><bdi dir="ltr">{}</bdi></mark>').format(text[start:end]))
        at = end
    out.append(mark_invisible(text[at:]))
    return Markup("").join(escape(part) for part in out)


def mention_handles(language: str) -> list[str]:
    """The handles a comment in `language` can mention (review.mentions.reader_handles), for the
    hint beside the comment and reply boxes; nobody signed in: none."""
    if not current_user.is_authenticated:
        return []
    cache: dict[str, list[str]] = g.setdefault("mention_hints", {})
    if language not in cache:
        cache[language] = mentions.reader_handles(db(), language, current_user.id)
    return cache[language]


def init_mentions(app: Flask) -> None:
    app.add_template_filter(highlight, "mentions")
    app.add_template_global(mention_handles, "mention_handles")

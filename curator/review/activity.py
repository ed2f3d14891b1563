"""The activity log: every maintainer action (invitations, people, resolutions, proposals,
dropped lines, guidelines, glossary, releases) with who did it and when. A service that changes
something a maintainer is accountable for calls `record` in the same unit of work, so the entry
exists exactly when the change does. Read by /admin/activity and `curator activity`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from curator.core import languages
from curator.core.enums import Activity, values
from curator.core.errors import InputError
from curator.core.models import ActivityEntry, Language, User

TARGET_MAX = 500
COMMAND_LINE = "command line"  # the actor of an entry made by a `curator` command
ACTIONS = values(Activity)
MAX_LIMIT = 10_000


def record(
    session: Session,
    actor: User | None,
    action: Activity,
    target: str = "",
    language: str | None = None,
    details: Mapping[str, Any] | None = None,
) -> ActivityEntry:
    """Add one entry (actor None: done from the command line). `target` names what was acted on
    in words (an e-mail address, a version name, a template); `details` holds the rest (JSON)."""
    entry = ActivityEntry(
        actor_id=actor.id if actor is not None else None,
        action=Activity(action).value,
        language=language,
        target=target[:TARGET_MAX],
        details=dict(details or {}),
    )
    session.add(entry)
    return entry


@dataclass(frozen=True)
class ActivityRow:
    id: int
    at: datetime
    actor: str  # e-mail address, or "command line"
    action: str
    language: str | None
    target: str
    details: dict[str, Any]


def entries(
    session: Session,
    *,
    action: str | None = None,
    actor: str | None = None,
    language: str | None = None,
    since: datetime | None = None,
    limit: int = 200,
    before_id: int | None = None,
    command_line: bool = False,
) -> list[ActivityRow]:
    """Newest first, filtered by action, actor's e-mail (or `command_line`: entries made by a
    command), language and time; `before_id` pages."""
    query = select(ActivityEntry, User.email).outerjoin(User, User.id == ActivityEntry.actor_id)
    if action:
        query = query.where(ActivityEntry.action == action)
    if actor:
        query = query.where(User.email == actor)
    if command_line:
        query = query.where(ActivityEntry.actor_id.is_(None))
    if language:
        query = query.where(ActivityEntry.language == language)
    if since is not None:
        query = query.where(ActivityEntry.created_at >= since)
    if before_id is not None:
        query = query.where(ActivityEntry.id < before_id)
    rows = session.execute(query.order_by(ActivityEntry.id.desc()).limit(limit)).all()
    return [
        ActivityRow(e.id, e.created_at, email or COMMAND_LINE, e.action, e.language, e.target, dict(e.details or {}))
        for e, email in rows
    ]


@dataclass(frozen=True)
class Filters:
    """The checked filters of the Activity page and `curator activity` (see `check_filters`)."""

    action: str | None = None
    actor: str | None = None  # an e-mail address as stored, or COMMAND_LINE
    language: str | None = None
    since: datetime | None = None


def _since(value: str) -> datetime:
    """A date (from its first moment, UTC) or an ISO date and time (UTC, as stored)."""
    try:
        return datetime.combine(date.fromisoformat(value), time())
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise InputError(
            f"{value!r} is not a date: write it like 2026-11-24 (or 2026-11-24T18:30)", field="since"
        ) from None
    return moment.replace(tzinfo=None) if moment.tzinfo is None else moment.astimezone(UTC).replace(tzinfo=None)


def check_filters(
    session: Session,
    action: str | None = None,
    actor: str | None = None,
    language: str | None = None,
    since: str | None = None,
) -> Filters:
    """The filters as typed (blank: no filter), checked: an unknown action, account or language
    and a malformed date are an InputError naming the field (nothing is read with them)."""
    action, actor, language, since = (
        v.strip() if isinstance(v, str) and v.strip() else None for v in (action, actor, language, since)
    )
    if action is not None and action not in ACTIONS:
        raise InputError(f"{action!r} is not an action: choose one of {', '.join(ACTIONS)}", field="action")
    if actor is not None and actor != COMMAND_LINE:
        email = None
        if len(actor) <= 320 and not any(ord(c) < 32 for c in actor):  # PostgreSQL cannot compare a NUL
            email = session.scalar(select(User.email).where(func.lower(User.email) == actor.lower()))
        if email is None:
            raise InputError(f"no account {actor!r} (write an e-mail address, or {COMMAND_LINE!r})", field="actor")
        actor = email
    if language is not None:
        try:
            languages.check_code(language)
        except InputError as exc:
            raise InputError(exc.message, field="language") from None
        if session.get(Language, language) is None:
            raise InputError(f"no language {language!r} in the database", field="language")
    return Filters(action, actor, language, _since(since) if since is not None else None)


def page(
    session: Session, filters: Filters, limit: int, before_id: int | None = None
) -> tuple[list[ActivityRow], int | None]:
    """One page of entries (newest first) and the id to pass as `before_id` for the older ones
    (None: this is the last page)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise InputError(f"the limit must be a whole number from 1 to {MAX_LIMIT}", field="limit")
    rows = entries(
        session,
        action=filters.action,
        actor=None if filters.actor == COMMAND_LINE else filters.actor,
        command_line=filters.actor == COMMAND_LINE,
        language=filters.language,
        since=filters.since,
        limit=limit + 1,
        before_id=before_id,
    )
    return rows[:limit], (rows[limit - 1].id if len(rows) > limit else None)


def actors(session: Session) -> list[str]:
    """The e-mail addresses of everyone with an entry (the page's actor filter), sorted."""
    return sorted(session.scalars(select(User.email).where(User.id.in_(select(ActivityEntry.actor_id).distinct()))))

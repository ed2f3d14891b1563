"""The activity log: every maintainer action (invitations, people, resolutions, proposals,
dropped lines, guidelines, glossary, releases) with who did it and when. A service that changes
something a maintainer is accountable for calls `record` in the same unit of work, so the entry
exists exactly when the change does. Read by /admin/activity and `curator activity`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import Activity
from curator.core.models import ActivityEntry, User

TARGET_MAX = 500


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
) -> list[ActivityRow]:
    """Newest first, filtered by action, actor's e-mail, language and time; `before_id` pages."""
    query = select(ActivityEntry, User.email).outerjoin(User, User.id == ActivityEntry.actor_id)
    if action:
        query = query.where(ActivityEntry.action == action)
    if actor:
        query = query.where(User.email == actor)
    if language:
        query = query.where(ActivityEntry.language == language)
    if since is not None:
        query = query.where(ActivityEntry.created_at >= since)
    if before_id is not None:
        query = query.where(ActivityEntry.id < before_id)
    rows = session.execute(query.order_by(ActivityEntry.id.desc()).limit(limit)).all()
    return [
        ActivityRow(e.id, e.created_at, email or "command line", e.action, e.language, e.target, dict(e.details or {}))
        for e, email in rows
    ]

"""Single lines a maintainer takes out of the releases built from reviews (issue 28 §2): one
(language, relation, pattern) with a reason, dropped from the preview or `curator release
drop-line`. Every later `build --from-review` leaves an active drop out and records it in the
version's params (and so in its manifest and card) until it is restored. Rows are never
deleted: restoring stamps `restored_at`."""

from __future__ import annotations

from typing import TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core import languages
from curator.core.enums import Activity, DecisionKind, ProposalVerdict, VersionKind
from curator.core.errors import Conflict, Forbidden, InputError, NotFound
from curator.core.models import (
    DatasetVersion,
    Decision,
    LineDrop,
    ProposalReview,
    Resolution,
    Suggestion,
    User,
    VersionPattern,
)
from curator.core.models.base import utcnow
from curator.review import activity
from curator.review.resolutions import check_reason

Line = tuple[str, str, str]  # (language, relation, pattern)


class LineDropRecord(TypedDict):
    """An active drop, as the preview, the version's params and the manifest show it."""

    id: int
    language: str
    relation: str
    pattern: str
    reason: str
    by: str  # the maintainer's e-mail address
    at: str  # ISO 8601, to the second


def active_drops(session: Session, language: str | None = None) -> dict[Line, LineDropRecord]:
    """(language, relation, pattern) -> its active drop (the latest, if dropped twice)."""
    query = (
        select(LineDrop, User.email)
        .join(User, User.id == LineDrop.user_id)
        .where(LineDrop.restored_at.is_(None))
        .order_by(LineDrop.id)
    )
    if language is not None:
        query = query.where(LineDrop.language == language)
    return {
        (d.language, d.relation_id, d.pattern): LineDropRecord(
            id=d.id,
            language=d.language,
            relation=d.relation_id,
            pattern=d.pattern,
            reason=d.reason,
            by=email,
            at=d.created_at.isoformat(timespec="seconds"),
        )
        for d, email in session.execute(query)
    }


def _check(user: User, language: str, relation: str, pattern: str) -> None:
    if not user.is_maintainer:
        raise Forbidden("only a maintainer drops or restores a line")
    languages.check_code(language, "language")
    if not isinstance(relation, str) or not relation.strip():
        raise InputError("name the relation (e.g. P19)", field="relation")
    if not isinstance(pattern, str) or not pattern.strip():
        raise InputError("name the line to drop, as the preview shows it", field="pattern")


def _line_exists(session: Session, language: str, relation: str, pattern: str) -> bool:
    """Whether a build from reviews could hold the line: a pattern of a candidates snapshot or a
    human-written template of that relation (an amendment, a suggestion, a resolution's, a text a
    maintainer confirmed or wrote editing a proposal)."""
    queries = (
        select(VersionPattern.id)
        .join(DatasetVersion, DatasetVersion.id == VersionPattern.version_id)
        .where(
            DatasetVersion.kind == VersionKind.CANDIDATES,
            VersionPattern.language == language,
            VersionPattern.relation_id == relation,
            VersionPattern.pattern == pattern,
        ),
        select(Decision.id).where(
            Decision.language == language,
            Decision.relation_id == relation,
            Decision.decision == DecisionKind.AMEND,
            Decision.correction == pattern,
        ),
        select(Suggestion.id).where(
            Suggestion.language == language, Suggestion.relation_id == relation, Suggestion.text == pattern
        ),
        select(Resolution.id).where(
            Resolution.language == language, Resolution.relation_id == relation, Resolution.correction == pattern
        ),
        select(ProposalReview.id).where(
            ProposalReview.language == language,
            ProposalReview.relation_id == relation,
            ProposalReview.text == pattern,
            ProposalReview.verdict == ProposalVerdict.CONFIRM,
        ),
    )
    return any(session.scalar(query.limit(1)) is not None for query in queries)


def drop_line(
    session: Session, maintainer: User, language: str, relation: str, pattern: str, reason: str
) -> LineDropRecord:
    """Leave one line out of every later build from reviews, with a reason."""
    _check(maintainer, language, relation, pattern)
    reason = check_reason(reason)
    if (language, relation, pattern) in active_drops(session, language):
        raise Conflict(f"pattern: {language}/{relation} {pattern!r} is already dropped")
    if not _line_exists(session, language, relation, pattern):
        raise NotFound(f"pattern: no line {pattern!r} in {language}/{relation}")
    row = LineDrop(language=language, relation_id=relation, pattern=pattern, reason=reason, user_id=maintainer.id)
    session.add(row)
    session.flush()
    activity.record(
        session,
        maintainer,
        Activity.LINE_DROP,
        target=f"{language}/{relation}: {pattern}",
        language=language,
        details={"line_drop": row.id, "relation": relation, "pattern": pattern, "reason": reason},
    )
    return active_drops(session, language)[language, relation, pattern]


def restore_line(session: Session, maintainer: User, language: str, relation: str, pattern: str) -> LineDrop:
    """Put a dropped line back: builds from now on hold it again (if the reviews keep it)."""
    _check(maintainer, language, relation, pattern)
    rows = session.scalars(
        select(LineDrop).where(
            LineDrop.language == language,
            LineDrop.relation_id == relation,
            LineDrop.pattern == pattern,
            LineDrop.restored_at.is_(None),
        )
    ).all()
    if not rows:
        raise NotFound(f"pattern: {language}/{relation} {pattern!r} is not dropped")
    for row in rows:
        row.restored_at, row.restored_by = utcnow(), maintainer.id
    activity.record(
        session,
        maintainer,
        Activity.LINE_RESTORE,
        target=f"{language}/{relation}: {pattern}",
        language=language,
        details={"line_drop": rows[-1].id, "relation": relation, "pattern": pattern},
    )
    session.flush()
    return rows[-1]

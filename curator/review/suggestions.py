"""A reviewer's suggestions: other paraphrases of a relation, added, edited and withdrawn.

Like decisions they are stored at most once per request id, validated as templates
(`validation.validate_template`, in the candidates' case) and never deleted: withdrawing marks
them retracted, and merges add only the standing ones. A suggestion is a proposal in the other
reviewers' queues (`proposal_queue.enqueue`); withdrawn or edited to another text, it leaves them
at once (`proposal_queue.retire`) unless someone else suggests or amends to the same text.
"""

from __future__ import annotations

from typing import TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import DecisionSource
from curator.core.errors import N_, InputError, NotFound
from curator.core.models import Assignment, Suggestion, User
from curator.core.models.base import valid_id
from curator.review.proposal_queue import enqueue, retire
from curator.review.service import relation_titles_of
from curator.review.validation import keeps_case, validate_template
from curator.review.writes import check_in_sample, insert_once, replayed


class SuggestionRecord(TypedDict):
    """A standing suggestion as the pages and the JSON API list it."""

    id: int
    relation: str
    relation_title: str
    text: str
    created_at: str  # ISO 8601, to the second


def suggest(
    session: Session,
    user: User,
    assignment: Assignment,
    relation: str,
    text: str,
    request_id: str | None = None,
    source: DecisionSource = DecisionSource.WEB,
) -> tuple[Suggestion, bool]:
    check_in_sample(session, assignment, relation)
    known = replayed(session, Suggestion, user, request_id)
    if known is not None:
        return known, False
    cleaned = validate_template(text, assignment.language, keeps_case(session))
    same = session.scalar(
        select(Suggestion).where(
            Suggestion.user_id == user.id,
            Suggestion.language == assignment.language,
            Suggestion.relation_id == relation,
            Suggestion.text == cleaned,
            Suggestion.retracted.is_(False),
        )
    )
    if same is not None:
        return same, False
    row = Suggestion(
        user_id=user.id,
        language=assignment.language,
        relation_id=relation,
        text_raw=text,
        text=cleaned,
        source=source,
        request_id=request_id,
    )
    stored, created = insert_once(session, row)
    if created:  # a proposal until a second person confirms it
        enqueue(session, row.user_id, assignment.language, relation, cleaned, source)
    return stored, created


def _own_suggestion(session: Session, user: User, assignment: Assignment, suggestion_id: int) -> Suggestion:
    row = session.get(Suggestion, suggestion_id) if valid_id(suggestion_id) else None
    if row is None or row.user_id != user.id or row.language != assignment.language:
        raise NotFound("no such suggestion of yours")
    return row


def withdraw_suggestion(session: Session, user: User, assignment: Assignment, suggestion_id: int) -> Suggestion:
    """Retract one of your suggestions (kept, marked retracted; merges no longer add it, and it
    leaves the other reviewers' queues)."""
    row = _own_suggestion(session, user, assignment, suggestion_id)
    if not row.retracted:
        _retract(session, row)
    return row


def _retract(session: Session, row: Suggestion) -> None:
    row.retracted = True
    session.flush()
    if row.source != DecisionSource.IMPORT:  # an imported one put nothing in the queues
        retire(session, row.language, row.relation_id, row.text)


def edit_suggestion(
    session: Session,
    user: User,
    assignment: Assignment,
    suggestion_id: int,
    text: str,
    request_id: str | None = None,
    source: DecisionSource = DecisionSource.WEB,
) -> tuple[Suggestion, bool]:
    """Replace a suggestion's text: the new text is validated and added first, then the old one
    withdrawn, so a refused text changes nothing. Returns (new suggestion, created); the old one
    itself when the text is unchanged (nothing to do)."""
    old = _own_suggestion(session, user, assignment, suggestion_id)
    if old.retracted:
        # A form sent twice: the first one made the change. Its result standing is success.
        try:
            cleaned = validate_template(text, assignment.language, keeps_case(session))
        except InputError:
            cleaned = None
        done = cleaned is not None and session.scalar(
            select(Suggestion)
            .where(
                Suggestion.user_id == user.id,
                Suggestion.language == old.language,
                Suggestion.relation_id == old.relation_id,
                Suggestion.text == cleaned,
                Suggestion.retracted.is_(False),
            )
            .limit(1)
        )
        if done:
            return done, False
        raise InputError(N_("That suggestion was withdrawn already."), params={})
    cleaned = validate_template(text, assignment.language, keeps_case(session))
    if cleaned == old.text:
        return old, False
    new, created = suggest(session, user, assignment, old.relation_id, text, request_id, source)
    _retract(session, old)
    return new, created


def list_suggestions(session: Session, user: User, assignment: Assignment) -> list[SuggestionRecord]:
    """Your standing suggestions in the language, by relation then age."""
    rows = session.scalars(
        select(Suggestion)
        .where(
            Suggestion.user_id == user.id, Suggestion.language == assignment.language, Suggestion.retracted.is_(False)
        )
        .order_by(Suggestion.relation_id, Suggestion.id)
    ).all()
    titles = relation_titles_of(session, (s.relation_id for s in rows))
    return [
        {
            "id": s.id,
            "relation": s.relation_id,
            "relation_title": titles[s.relation_id],
            "text": s.text,
            "created_at": s.created_at.isoformat(timespec="seconds"),
        }
        for s in rows
    ]

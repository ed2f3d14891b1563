"""Review services: the context a reviewer needs, decisions, undo, history.

They take a session and plain values and return plain values, so the pages, the JSON API,
the importer and the tests all share them (the queue and progress: review.progress;
suggestions: review.suggestions; comments: review.comments). Resending a request (same request id, or the
same decision as the current one) changes nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BindParameter, Select, and_, bindparam, false, inspect, literal, or_, select, true
from sqlalchemy.orm import Session, aliased

from curator.core import languages
from curator.core.annotated import accepts
from curator.core.enums import DecisionKind, DecisionSource, values
from curator.core.errors import N_, Forbidden, InputError, NotFound, Retired
from curator.core.models import (
    Assignment,
    AssignmentItem,
    Decision,
    EnglishPattern,
    Relation,
    Suggestion,
    Template,
    TemplateSignal,
    User,
)
from curator.core.models.base import utcnow, valid_id
from curator.core.text import describe_char, first_control
from curator.ingest.candidates import CandidateParams, current_params, params_of, stored_params
from curator.ingest.clean import PLACEHOLDER
from curator.ingest.relations import relation_title
from curator.review.annotations import example_rows, gendered_examples
from curator.review.evidence import signals_of, template_sources
from curator.review.progress import in_queue
from curator.review.proposal_queue import enqueue, item_proposal, retire
from curator.review.records import (
    DecisionRecord,
    Example,
    HistoryEntry,
    ItemContext,
    TemplatePart,
)
from curator.review.standing import not_undone, standing_among, standing_by_item, standing_id
from curator.review.threads import NOT_REVIEWING, item_threads
from curator.review.validation import keeps_case, validate_correction
from curator.review.writes import check_request_id, insert_once

DECISIONS = values(DecisionKind)
REASONED = frozenset({DecisionKind.REJECT.value, DecisionKind.UNSURE.value})  # the decisions that may give a reason
REASON_MAX = 2000
EXAMPLES = 3
# a second-look item retired meanwhile (proposal_queue.retire): said by the API, and the review page moves on
RETIRED = N_("This proposal was withdrawn by its author and has left your queue; nothing was saved on it.")


def get_assignment(session: Session, user: User, language: str) -> Assignment:
    languages.check_code(language)
    assignment = session.scalar(
        select(Assignment).where(
            Assignment.user_id == user.id, Assignment.language == language, Assignment.unassigned_at.is_(None)
        )
    )
    if assignment is None:  # (or taken off the language by a maintainer: review.people)
        raise Forbidden(NOT_REVIEWING, params={"language": language})
    return assignment


def get_item(session: Session, assignment: Assignment, item_id: int) -> AssignmentItem:
    item = session.get(AssignmentItem, item_id) if valid_id(item_id) else None
    if item is None or item.assignment_id != assignment.id:
        raise NotFound("no such item in your sample")
    return item


def user_id_of(user: User) -> int:
    """The user's id without reading the row again: after a unit of work began, the signed-in
    user is expired, and `user.id` alone would cost a SELECT."""
    identity = inspect(user).identity
    assert identity is not None  # a signed-in user is a persistent row
    return int(identity[0])


@dataclass
class Target:
    """One item of the reviewer's sample with what a request about it needs, read in one
    statement (`find_item`): the review screen's hot path is counted in round trips."""

    assignment: Assignment
    item: AssignmentItem
    # held here so that the session (whose identity map keeps only weak references) still has them
    # when a service asks for them by primary key
    template: Template
    relation: Relation
    signal: TemplateSignal | None = None
    params: CandidateParams | None = None  # the candidates' parameters (to show the item)
    standing: tuple[Decision | None, Decision | None] | None = None  # (replayed, current): see `decide`


def find_item(
    session: Session, user: User, language: str, item_id: int, *, request_id: str | None = None, deciding: bool = False
) -> Target:
    """`get_assignment` and `get_item` in one statement (the same Forbidden / NotFound), with the
    item's template and relation — and its quality signals to show it, or (`deciding`) the
    decision stored under `request_id` and the item's standing one to decide on it — loaded
    alongside, so the services find them in the session. The user's row is read again with them
    (inside a unit of work it was expired: a user switched off meanwhile is seen). An item
    retired from the queue is `Retired` to show (`decide` refuses it in its turn)."""
    languages.check_code(language)
    if deciding and request_id is not None:
        check_request_id(request_id)
    row = session.execute(
        _find_item_query(deciding),
        {
            "user_id": user_id_of(user),
            "language": language,
            "item_id": item_id if valid_id(item_id) else None,
            **({"request_id": request_id} if deciding else {}),
        },
    ).first()
    if row is None:
        raise Forbidden(NOT_REVIEWING, params={"language": language})
    if row[2] is None:
        raise NotFound("no such item in your sample")
    if not deciding and row[2].retired_at is not None:
        raise Retired(RETIRED, params={}, position=row[2].position)
    if deciding:
        return Target(row[0], row[2], row[3], row[4], standing=(row[5], row[6]))
    return Target(row[0], row[2], row[3], row[4], signal=row[5], params=params_of(row[6]))


@functools.cache
def _find_item_query(deciding: bool) -> Select[Any, Any, Any, Any, Any, Any, Any]:
    """`find_item`'s statement, built once (building it costs more than running it): every value
    is a bound parameter; a None item id or request id matches nothing."""
    uid: BindParameter[int] = bindparam("user_id")
    entities: list[Any] = [Assignment, User, AssignmentItem, Template, Relation]
    query = (
        select()
        .join_from(Assignment, User, User.id == Assignment.user_id)
        .outerjoin(
            AssignmentItem,
            and_(AssignmentItem.assignment_id == Assignment.id, AssignmentItem.id == bindparam("item_id")),
        )
        .outerjoin(Template, Template.id == AssignmentItem.template_id)
        .outerjoin(Relation, Relation.id == AssignmentItem.relation_id)
    )
    if deciding:
        replay, current = aliased(Decision), aliased(Decision)
        entities += [replay, current]
        query = query.outerjoin(
            replay, and_(replay.user_id == uid, replay.request_id == bindparam("request_id"))
        ).outerjoin(current, and_(current.item_id == AssignmentItem.id, current.id == standing_id(AssignmentItem.id)))
    else:
        entities += [TemplateSignal, stored_params().scalar_subquery()]
        query = query.outerjoin(TemplateSignal, TemplateSignal.template_id == AssignmentItem.template_id)
    return query.add_columns(*entities).where(
        Assignment.user_id == uid, Assignment.language == bindparam("language"), Assignment.unassigned_at.is_(None)
    )


def _populate(template: str, subject: str, obj: str) -> list[TemplatePart]:
    """The template as parts, so the page can fill the slots without building HTML from data."""
    fill = {"[X]": ("X", subject), "[Y]": ("Y", obj)}
    return [
        TemplatePart(text=fill[p][1], slot=fill[p][0]) if p in fill else TemplatePart(text=p)
        for p in PLACEHOLDER.split(template)
        if p
    ]


def examples_of(session: Session, template: Template) -> list[Example]:
    """The first EXAMPLES tuples of the template's language and relation (translated ones, not
    English fallbacks) with the template filled in, as parts: the review screen's examples, and
    the Disagreements page's (issue 37 §2). An annotated template: one subject that is a man and
    one that is a woman, each with the forms that agree (review/annotations.py)."""
    if accepts(template.text, template.language):  # a stray MT bracket is plain text: plain examples
        return [
            {"subject": s, "object": o, "parts": _populate(text, s, o), "gender": gender}
            for gender, s, o, text in gendered_examples(session, template)
        ]
    rows = session.execute(example_rows(template).limit(EXAMPLES)).all()
    return [{"subject": s, "object": o, "parts": _populate(template.text, s, o)} for s, o, _, _ in rows]


def item_context(
    session: Session, user: User, assignment: Assignment, item: AssignmentItem, found: Target | None = None
) -> ItemContext:
    """Everything the review screen shows for one item (SPEC §3). `found`: what `find_item`
    read with the item (its signals and the candidates' parameters are then not read again)."""
    template = session.get_one(Template, item.template_id)
    relation = session.get_one(Relation, item.relation_id)
    english = session.scalars(
        select(EnglishPattern).where(EnglishPattern.relation_id == relation.id).order_by(EnglishPattern.position)
    ).all()
    params = found.params if found is not None else current_params(session)
    lines = template_sources(session, template, params)
    history = session.scalars(select(Decision).where(Decision.item_id == item.id).order_by(Decision.id)).all()
    suggestions = session.scalars(
        select(Suggestion)
        .where(
            Suggestion.user_id == user.id,
            Suggestion.language == assignment.language,
            Suggestion.relation_id == relation.id,
            Suggestion.retracted.is_(False),
        )
        .order_by(Suggestion.id)
    ).all()
    current = standing_among(history)
    on_item, on_relation = item_threads(session, user, assignment.language, relation.id, template.id)
    return {
        "item": {"id": item.id, "position": item.position},
        "language": {
            "code": assignment.language,
            "name": languages.name(assignment.language),
            "dir": languages.direction(assignment.language),
        },
        "relation": {
            "id": relation.id,
            "lemma": relation.lemma,
            "title": relation_title(relation.id, relation.lemma),
            "english": [p.pattern for p in english],
        },
        "template": {"id": template.id, "text": template.text, "votes": template.votes, "systems": template.systems},
        "signals": signals_of(session, template, found.signal if found is not None else True),
        "sources": [{"system": s, "raw": raw, "repairs": repairs, "english": en} for s, raw, repairs, en in lines],
        "examples": examples_of(session, template),
        "decision": decision_dict(current) if current else None,
        "history": [decision_dict(d) for d in history],
        "suggestions": [{"id": s.id, "text": s.text} for s in suggestions],
        "comments": {"item": on_item, "relation": on_relation},
        "proposal": item_proposal(session, template, item.extra, user_id_of(user)),
    }


def decision_dict(d: Decision) -> DecisionRecord:
    return {
        "id": d.id,
        "item_id": d.item_id,
        "decision": d.decision,
        "correction": d.correction,
        "reason": d.reason,
        "seconds": d.seconds,
        "created_at": d.created_at.isoformat(timespec="seconds"),
        "retracted": d.retracted,
        "source": d.source,
    }


def decide(
    session: Session,
    user: User,
    assignment: Assignment,
    item: AssignmentItem,
    decision: str,
    correction: str | None = None,
    seconds: float | None = None,
    request_id: str | None = None,
    source: DecisionSource = DecisionSource.WEB,
    standing: tuple[Decision | None, Decision | None] | None = None,
    reason: str | None = None,
) -> tuple[Decision, bool]:
    """Store a decision; returns (decision, created). Resends are no-ops. `reason`: why, for a
    reject or an unsure only (`check_reason`), stored on the decision itself. `standing`: the
    decision stored under `request_id` and the item's standing one, when the caller read them
    already (`find_item(deciding=True)`, in the same unit of work). A retired item (its proposal
    withdrawn meanwhile) takes none: `Retired`, nothing stored — unless it is the resend of one
    stored before. An amendment replaced by another decision is withdrawn from the others'
    queues (`proposal_queue.retire`); a new one is put in them."""
    if decision not in DECISIONS:
        raise InputError(f"decision must be one of {', '.join(DECISIONS)}")
    known, current = standing if standing is not None else _standing(session, user, item, request_id)
    if known is not None:
        return known, False
    if item.retired_at is not None:
        raise Retired(RETIRED, params={}, position=item.position)
    template = session.get_one(Template, item.template_id)
    cleaned = raw = None
    if decision == DecisionKind.AMEND:
        raw = correction
        cleaned = validate_correction(correction or "", assignment.language, keeps_case(session), template.text)
    why = check_reason(decision, reason)
    if seconds is not None:
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or seconds < 0:
            raise InputError("seconds must be a non-negative number")
        seconds = min(float(seconds), 3600.0)
    if current is not None and current.decision == decision and current.correction == cleaned and current.reason == why:
        return current, False
    row = Decision(
        item_id=item.id,
        user_id=user_id_of(user),
        template_id=template.id,
        language=assignment.language,
        relation_id=item.relation_id,
        decision=decision,
        correction_raw=raw,
        correction=cleaned,
        reason=why,
        seconds=seconds,
        source=source,
        request_id=request_id,
    )
    stored, created = insert_once(session, row)
    if created:
        replaced = _proposed(current)
        if replaced is not None and replaced != cleaned:  # that amendment is no proposal any more
            retire(session, assignment.language, item.relation_id, replaced)
        if cleaned is not None:  # an amendment: a proposal until a second person confirms it
            enqueue(session, row.user_id, assignment.language, item.relation_id, cleaned, source)
    return stored, created


def check_reason(decision: str, reason: object) -> str | None:
    """A decision's reason as stored: surrounding blanks trimmed, else kept as typed (line breaks
    and tabs included); blank or absent is None. Only a reject or an unsure has one; it holds at
    most REASON_MAX characters and no other control or format character (U+202E reversing the
    line, NUL that PostgreSQL cannot store: the rule of every typed text). Else an InputError
    naming the field."""
    if reason is None:
        return None
    if not isinstance(reason, str):
        raise InputError("must be text", field="reason")
    reason = reason.strip()
    if not reason:
        return None
    if decision not in REASONED:
        raise InputError(N_("Only a Reject or an Unsure decision can have a reason."), params={}, field="reason")
    if len(reason) > REASON_MAX:
        raise InputError(
            N_("That reason is too long (%(limit)s characters at most)."), params={"limit": REASON_MAX}, field="reason"
        )
    control = first_control(reason, whitespace_ok=True)
    if control is not None:
        raise InputError(
            N_(
                "Not saved: the reason contains an invisible character (%(character)s). "
                "Type it without invisible characters."
            ),
            params={"character": describe_char(control)},
            field="reason",
        )
    return reason


def _proposed(decision: Decision | None) -> str | None:
    """The text a decision proposes to the other reviewers: an amendment's correction, unless
    it was imported (imports put nothing in their queues)."""
    if decision is None or decision.decision != DecisionKind.AMEND or decision.source == DecisionSource.IMPORT:
        return None
    return decision.correction


def _standing(
    session: Session, user: User, item: AssignmentItem, request_id: str | None
) -> tuple[Decision | None, Decision | None]:
    """(the decision this user stored under `request_id`, the item's standing decision), in one query."""
    uid = user_id_of(user)
    if request_id is not None:
        check_request_id(request_id)
    mine = and_(Decision.user_id == uid, Decision.request_id == request_id) if request_id is not None else false()
    rows = session.scalars(select(Decision).where(or_(mine, Decision.id == standing_id(literal(item.id))))).all()
    known = next((d for d in rows if request_id is not None and d.user_id == uid and d.request_id == request_id), None)
    # the standing decision is among the rows whenever there is one, and has the highest id of them
    current = standing_among(d for d in rows if d.item_id == item.id)
    return known, current


def undo(
    session: Session, user: User, assignment: Assignment, request_id: str | None = None, item_id: int | None = None
) -> tuple[Decision | None, bool]:
    """Retract the reviewer's latest standing decision in this language (kept in history), on an
    item of their queue (one retired meanwhile is no longer theirs to revise) — on item `item_id`
    when given (the template the reviewer last decided: a decision that repeated the standing one
    stored nothing new, and undoing it undoes that template's, not another's); returns (the
    decision undone or None, whether this call undid it). An undo under a `request_id` already
    used by this reviewer undoes nothing more: the decision it retracted is returned (the
    review screen's outbox sends an undo again when its answer was lost). An amendment undone is
    withdrawn from the others' queues (`proposal_queue.retire`); one that stands again (the
    decision before it) is put back in them."""
    if request_id is not None:
        check_request_id(request_id)
        known = session.scalar(
            select(Decision).where(Decision.user_id == user.id, Decision.undo_request_id == request_id)
        )
        if known is not None:
            return known, False
    latest = session.scalar(
        select(Decision)
        .join(AssignmentItem, AssignmentItem.id == Decision.item_id)
        .where(AssignmentItem.assignment_id == assignment.id, in_queue(), Decision.user_id == user.id, not_undone())
        .where(true() if item_id is None else Decision.item_id == item_id)
        .order_by(Decision.id.desc())
        .limit(1)
    )
    if latest is not None:
        latest.retracted, latest.retracted_at, latest.undo_request_id = True, utcnow(), request_id
        session.flush()
        undone = _proposed(latest)
        if undone is not None:
            retire(session, assignment.language, latest.relation_id, undone)
        before = session.scalar(select(Decision).where(Decision.id == standing_id(literal(latest.item_id))))
        again = _proposed(before)
        if before is not None and again is not None and again != undone:
            enqueue(session, before.user_id, assignment.language, before.relation_id, again, before.source)
    return latest, latest is not None


def relation_titles_of(session: Session, relation_ids: Iterable[str]) -> dict[str, str]:
    """Plain-language titles for these relations, with the lemma fallback of `item_context`."""
    ids = set(relation_ids)
    lemmas: dict[str, str | None] = (
        dict(session.execute(select(Relation.id, Relation.lemma).where(Relation.id.in_(ids))).all()) if ids else {}
    )
    return {r: relation_title(r, lemmas.get(r)) for r in ids}


def history(session: Session, user: User, assignment: Assignment) -> list[HistoryEntry]:
    """All of the reviewer's decisions in the language, newest first, with template text.

    `superseded`: a later decision on the same item stands instead (it is not undone);
    `retracted`: undone. Neither counts; `standing` is the one that does. `retired`: the item
    left the queue (a second look whose proposal was withdrawn): kept here, out of the progress."""
    rows = session.execute(
        select(Decision, Template.text, AssignmentItem.retired_at)
        .join(Template, Template.id == Decision.template_id)
        .join(AssignmentItem, AssignmentItem.id == Decision.item_id)
        .where(AssignmentItem.assignment_id == assignment.id, Decision.user_id == user.id)
        .order_by(Decision.id.desc())
    ).all()
    titles = relation_titles_of(session, (d.relation_id for d, _, _ in rows))
    current = standing_by_item(d for d, _, _ in rows)
    return [
        {
            **decision_dict(d),
            "template": text,
            "relation": d.relation_id,
            "relation_title": titles[d.relation_id],
            "superseded": not d.retracted and current.get(d.item_id) != d.id,
            "standing": current.get(d.item_id) == d.id,
            "retired": retired_at is not None,
        }
        for d, text, retired_at in rows
    ]

"""Proposals in front of a second reviewer (issue 28 §1).

A reviewer's amendment (an `amend` decision's correction) or suggestion is a *proposal* until a
second person confirms it; one way is another reviewer of the language accepting the template
it proposes. So when a proposal is made (`service.decide`, `suggestions.suggest`, whatever path
called them: page, JSON API), every *other* reviewer with an active assignment in the language
gets that template as an item of their sample: the Template row with the proposed text (reused,
or made as a non-candidate with no systems and no votes) and an `extra` AssignmentItem.

Where it goes (issue 37 §2, `insertion_point`, the one ordering rule): a relation's items stay
together, so the "new relation" banner does not flip back and forth (P19 → P30 → P19). A proposal
for relation R goes right after the reviewer's last undecided item of R when they still have
some; else right after the current relation's block (the first undecided item — where
"Continue" resumes — and the undecided items of its relation that follow it), never splitting
it; with nothing left undecided, at the end. They meet it soon, not after hundreds of templates,
and the current item never moves. The items after it move down (positions stay unique per
assignment).

Idempotent: a template already in a sample is not added again (a resent decision or suggestion
adds nothing). Imports (`source="import"`) do not enqueue: the published sheets are confirmed by
import. A reviewer assigned to the language later gets the standing proposals too (`catch_up`,
called by `sampling.assign`). `item_proposal` tells whether an item is one for its reviewer — the
one rule the review card and "proposals waiting for me" (review.find) read — and never who
proposed it.

Queues stay true (issue 36 §4): when a proposal stops existing — its author withdraws the
suggestion or edits it to another text, undoes the amendment or replaces it by another decision —
`retire` takes its items out of the reviewers' queues at once, in the same unit of work
(`AssignmentItem.retired_at`), each reviewer's unless someone other than that reviewer still
proposes the same (language, relation, text): no longer listed, counted or offered next, refused
when decided (`core.errors.Retired`); the decisions made on them stay in history. Only `extra`
items are retired, never sampled candidates nor an item an import decided on. Proposed again
later, the text's retired items come back (`place`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from sqlalchemy import ColumnElement, exists, func, select, update
from sqlalchemy.orm import Session

from curator.core.enums import DecisionKind, DecisionSource, ImportKind
from curator.core.models import Assignment, AssignmentItem, Decision, Suggestion, Template
from curator.core.models.base import utcnow
from curator.review.progress import in_queue
from curator.review.standing import decided, is_standing
from curator.review.text_diff import DiffSegment, char_diff


class ProposalRef(TypedDict):
    """What the review screen says of a proposed item: its kind ("amend" or "suggest") and, for
    an amendment, the text of the template it amends and what it changes (`text_diff.char_diff`
    of that text → the proposal; empty for a suggestion). Never the proposer."""

    kind: str
    amends: str | None
    diff: list[DiffSegment]


def proposed_template(session: Session, language: str, relation_id: str, text: str) -> Template:
    """The Template row with this text: reused when it exists (a candidate or an earlier
    proposal), else a new one that is no candidate (no systems, no votes: nothing voted for it).
    `curator candidates build` keeps such rows (it drops votes of texts no line yields, never rows)."""
    template = session.scalar(
        select(Template).where(
            Template.language == language, Template.relation_id == relation_id, Template.text == text
        )
    )
    if template is None:
        template = Template(
            language=language, relation_id=relation_id, text=text, systems=[], votes=0, is_candidate=False
        )
        session.add(template)
        session.flush()
    return template


def enqueue(session: Session, proposer_id: int, language: str, relation_id: str, text: str, source: str) -> int:
    """Put a just-made proposal in front of every other active reviewer of the language; returns
    how many items were added or brought back (0 for an import, or when everyone has it already)."""
    if source == DecisionSource.IMPORT:
        return 0
    others = session.scalars(
        select(Assignment)
        .where(
            Assignment.language == language,
            Assignment.user_id != proposer_id,
            Assignment.unassigned_at.is_(None),
        )
        .order_by(Assignment.id)
    ).all()
    if not others:
        return 0
    template = proposed_template(session, language, relation_id, text)
    return sum(len(place(session, assignment, [template])) for assignment in others)


def _amendments(*conditions: ColumnElement[bool]) -> list[ColumnElement[bool]]:
    """The conditions of a live amendment proposal: an item's standing `amend` with a
    correction, not imported; and `conditions`."""
    return [
        Decision.decision == DecisionKind.AMEND,
        Decision.correction.is_not(None),
        Decision.source != DecisionSource.IMPORT,
        is_standing(Decision),
        *conditions,
    ]


def _suggestions(*conditions: ColumnElement[bool]) -> list[ColumnElement[bool]]:
    """The conditions of a live suggestion proposal: not withdrawn, not imported; and `conditions`."""
    return [Suggestion.source != DecisionSource.IMPORT, Suggestion.retracted.is_(False), *conditions]


def catch_up(session: Session, assignment: Assignment) -> int:
    """Give a reviewer (newly assigned, or assigned again) the standing proposals of the language
    made by others: amendments that are their item's standing decision, suggestions not
    withdrawn; imports excepted. Returns how many items were added or brought back."""
    wanted = proposed_by_others(session, assignment.language, assignment.user_id)
    templates = [proposed_template(session, assignment.language, r, t) for r, t in wanted]
    return len(place(session, assignment, templates))


def proposed_by_others(session: Session, language: str, user_id: int) -> list[tuple[str, str]]:
    """(relation, text) of each standing proposal of the language made by someone other than
    `user_id` (imports aside): amendments first, then suggestions, each in the order made, each
    text once: what `catch_up` gives a reviewer."""
    amended = session.execute(
        select(Decision.relation_id, Decision.correction)
        .where(*_amendments(Decision.language == language, Decision.user_id != user_id))
        .order_by(Decision.id)
    ).all()
    suggested = session.execute(
        select(Suggestion.relation_id, Suggestion.text)
        .where(*_suggestions(Suggestion.language == language, Suggestion.user_id != user_id))
        .order_by(Suggestion.id)
    ).all()
    wanted: dict[tuple[str, str], None] = {}
    for relation_id, text in [*amended, *suggested]:
        if text is not None:
            wanted[(relation_id, text)] = None
    return list(wanted)


def proposers(session: Session, language: str, relation_id: str, text: str) -> set[int]:
    """Who still proposes this text: the users with a live amendment or suggestion of it
    (imports aside)."""
    amended = select(Decision.user_id).where(
        *_amendments(Decision.language == language, Decision.relation_id == relation_id, Decision.correction == text)
    )
    suggested = select(Suggestion.user_id).where(
        *_suggestions(Suggestion.language == language, Suggestion.relation_id == relation_id, Suggestion.text == text)
    )
    return set(session.scalars(amended.union(suggested)))


def retire(session: Session, language: str, relation_id: str, text: str) -> int:
    """A proposal of this text stopped existing (withdrawn, edited away, undone, replaced): take
    its second-look items out of the queues now (`retired_at`) — each reviewer's unless someone
    else than that reviewer still proposes the same text. Only `extra` items in a queue, never
    one an import decided on (the import put it there). Returns how many items were retired."""
    template_id = session.scalar(
        select(Template.id).where(
            Template.language == language, Template.relation_id == relation_id, Template.text == text
        )
    )
    if template_id is None:
        return 0
    imported = exists().where(Decision.item_id == AssignmentItem.id, Decision.source == DecisionSource.IMPORT)
    items = session.execute(
        select(AssignmentItem, Assignment.user_id)
        .join(Assignment, Assignment.id == AssignmentItem.assignment_id)
        .where(AssignmentItem.template_id == template_id, AssignmentItem.extra, in_queue(), ~imported)
    ).all()
    if not items:
        return 0
    still = proposers(session, language, relation_id, text)
    now = utcnow()
    retired = [item for item, owner in items if not still - {owner}]
    for item in retired:
        item.retired_at = now
    session.flush()
    return len(retired)


@dataclass(frozen=True)
class Slot:
    """An item of a reviewer's queue as the ordering sees it: its position, its relation, and
    whether it is open (undecided)."""

    position: int
    relation: str
    open: bool


def insertion_point(queue: Sequence[Slot], relation: str) -> int | None:
    """The one ordering rule of second looks (issue 37 §2): the position a new item of `relation`
    takes in a queue (its items in position order, retired ones left out; the items at or after
    the point move down). A relation's items stay together:

    - the reviewer still has open items of `relation`: right after the last of them;
    - else right after the current relation's block — the current item (the first open one,
      where "Continue" resumes) and the open items of its relation that follow it without another
      relation's open item between — so that block is never split;
    - nothing open: None, at the end.

    The current item is never displaced: the point is always after it."""
    opened = [slot for slot in queue if slot.open]
    if not opened:
        return None
    same = [slot for slot in opened if slot.relation == relation]
    if same:
        return same[-1].position + 1
    block_end = opened[0]
    for slot in opened[1:]:
        if slot.relation != block_end.relation:
            break
        block_end = slot
    return block_end.position + 1


def _slots(session: Session, assignment_id: int) -> list[Slot]:
    """The assignment's queue (retired items left out) as `insertion_point` reads it."""
    rows = session.execute(
        select(AssignmentItem.position, AssignmentItem.relation_id, ~decided(AssignmentItem.id))
        .where(AssignmentItem.assignment_id == assignment_id, in_queue())
        .order_by(AssignmentItem.position)
    ).all()
    return [Slot(position, relation, bool(open_)) for position, relation, open_ in rows]


def _open_gap(session: Session, assignment_id: int, start: int, size: int, movers: Sequence[AssignmentItem]) -> None:
    """Make positions start … start+size-1 free: the items at or after `start` move down `size`
    places, and the `movers` (retired items coming back, wherever they were) leave theirs."""
    mine = AssignmentItem.assignment_id == assignment_id
    # (assignment, position) is unique and checked row by row: move the later items (and the
    # movers) through negative positions (none is ever negative) rather than one by one from the end
    moving = AssignmentItem.id.in_([item.id for item in movers])
    moved = update(AssignmentItem).execution_options(synchronize_session=False)
    session.execute(
        moved.where(mine, (AssignmentItem.position >= start) | moving).values(
            position=-AssignmentItem.position - 1 - size
        )
    )
    session.execute(
        moved.where(mine, AssignmentItem.position < 0, ~moving).values(position=-AssignmentItem.position - 1)
    )
    for obj in list(session.identity_map.values()):
        if isinstance(obj, AssignmentItem) and obj.assignment_id == assignment_id:
            session.expire(obj, ["position"])


def _put(session: Session, assignment: Assignment, block: Sequence[Template | AssignmentItem]) -> list[AssignmentItem]:
    """Put one relation's block (new templates, retired undecided items) where
    `insertion_point` says, in the given order; returns its items."""
    relation = block[0].relation_id
    start = insertion_point(_slots(session, assignment.id), relation)
    if start is None:
        last = session.scalar(
            select(func.max(AssignmentItem.position)).where(AssignmentItem.assignment_id == assignment.id)
        )
        start = 0 if last is None else last + 1
    else:
        movers = [entry for entry in block if isinstance(entry, AssignmentItem)]
        _open_gap(session, assignment.id, start, len(block), movers)
    added: list[AssignmentItem] = []
    for i, entry in enumerate(block):
        if isinstance(entry, AssignmentItem):
            entry.position, entry.retired_at = start + i, None
            added.append(entry)
        else:
            item = AssignmentItem(
                assignment_id=assignment.id,
                template_id=entry.id,
                relation_id=entry.relation_id,
                position=start + i,
                extra=True,
            )
            session.add(item)
            added.append(item)
    session.flush()
    return added


def place(session: Session, assignment: Assignment, templates: Sequence[Template]) -> list[AssignmentItem]:
    """Add the templates not yet in the assignment where `insertion_point` says — with their
    relation's open items, else after the current relation's block, at the end when nothing is
    left — in the given order, one relation's block at a time; the later items move down. A
    retired item of one of them comes back instead: to the same place when it was decided, else
    with the new ones. Returns the items added or brought back."""
    mine = AssignmentItem.assignment_id == assignment.id
    held = {
        item.template_id: item
        for item in session.scalars(
            select(AssignmentItem).where(mine, AssignmentItem.template_id.in_([t.id for t in templates]))
        )
    }
    back = [item for item in held.values() if item.retired_at is not None]
    decided_back = (
        set(
            session.scalars(
                select(AssignmentItem.id).where(AssignmentItem.id.in_([i.id for i in back]), decided(AssignmentItem.id))
            )
        )
        if back
        else set()
    )
    # the blocks to place, by relation, in the given order: a new template (no item yet) or a
    # retired, undecided item
    blocks: dict[str, list[Template | AssignmentItem]] = {}
    seen: set[int] = set()
    for template in templates:
        if template.id in seen:
            continue
        seen.add(template.id)
        item = held.get(template.id)
        if item is None:
            blocks.setdefault(template.relation_id, []).append(template)
        elif item.retired_at is not None and item.id not in decided_back:
            blocks.setdefault(template.relation_id, []).append(item)
    revived = [item for item in back if item.id in decided_back]
    for item in revived:  # decided before it was retired: back where it was, decision and all
        item.retired_at = None
    session.flush()
    added = [item for block in blocks.values() for item in _put(session, assignment, block)]
    return [*revived, *added]


def item_proposal(session: Session, template: Template, extra: bool, user_id: int) -> ProposalRef | None:
    """Whether an item of `user_id`'s queue showing `template` is a proposal waiting for their
    verdict, and which (`proposal_of`): only an item added to the sample (`extra`) can be one —
    the sampled ones cost no statement more. The review card's badge and the Find page's
    "proposals waiting for me" both read this."""
    return proposal_of(session, template, user_id) if extra else None


def proposal_of(session: Session, template: Template, user_id: int) -> ProposalRef | None:
    """Whether `template` is a standing proposal of another reviewer (not `user_id`, not an
    import): an amendment whose correction is its text (then also the text it amends), else a
    suggestion of its text; None when it is neither."""
    amended = session.execute(
        select(Template.text)
        .select_from(Decision)
        .join(Template, Template.id == Decision.template_id)
        .where(
            *_amendments(
                Decision.language == template.language,
                Decision.relation_id == template.relation_id,
                Decision.correction == template.text,
                Decision.user_id != user_id,
            )
        )
        .order_by(Decision.id)
        .limit(1)
    ).first()
    if amended is not None:
        return {"kind": DecisionKind.AMEND.value, "amends": amended[0], "diff": char_diff(amended[0], template.text)}
    suggested = session.scalar(
        select(Suggestion.id)
        .where(
            *_suggestions(
                Suggestion.language == template.language,
                Suggestion.relation_id == template.relation_id,
                Suggestion.text == template.text,
                Suggestion.user_id != user_id,
            )
        )
        .limit(1)
    )
    if suggested is not None:
        return {"kind": ImportKind.SUGGEST.value, "amends": None, "diff": []}
    return None

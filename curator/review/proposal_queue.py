"""Proposals in front of a second reviewer (issue 28 §1).

A reviewer's amendment (an `amend` decision's correction) or suggestion is a *proposal* until a
second person confirms it; one way is another reviewer of the language accepting the template
it proposes. So when a proposal is made (`service.decide`, `suggestions.suggest`, whatever path
called them: page, JSON API), every *other* reviewer with an active assignment in the language
gets that template as an item of their sample: the Template row with the proposed text (reused,
or made as a non-candidate with no systems and no votes) and an `extra` AssignmentItem.

Where it goes: right after the reviewer's first undecided item — where "Continue" resumes and
what the screen shows now — so the item after the current one is the proposal: they meet it
next, not after hundreds of templates at the end of their sample. The items after it move down
one place (positions stay unique per assignment). With nothing left undecided it goes at the end.

Idempotent: a template already in a sample is not added again (a resent decision or suggestion
adds nothing). Imports (`source="import"`) do not enqueue: the published sheets are confirmed by
import. A reviewer assigned to the language later gets the standing proposals too (`catch_up`,
called by `sampling.assign`). `proposal_of` tells the review screen whether an item is one, and
never who proposed it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from sqlalchemy import exists, func, select, update
from sqlalchemy.orm import Session, aliased

from curator.core.enums import DecisionKind, ImportKind
from curator.core.models import Assignment, AssignmentItem, Decision, Suggestion, Template

IMPORT = "import"


class ProposalRef(TypedDict):
    """What the review screen says of a proposed item: its kind ("amend" or "suggest") and, for
    an amendment, the text of the template it amends. Never the proposer."""

    kind: str
    amends: str | None


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
    how many items were added (0 for an import, or when everyone has it already)."""
    if source == IMPORT:
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


def catch_up(session: Session, assignment: Assignment) -> int:
    """Give a reviewer (newly assigned) the standing proposals of the language made by others:
    amendments that are their item's standing decision, suggestions not withdrawn; imports
    excepted. Returns how many items were added."""
    standing = aliased(Decision)
    amended = session.execute(
        select(Decision.relation_id, Decision.correction)
        .where(
            Decision.language == assignment.language,
            Decision.user_id != assignment.user_id,
            Decision.decision == DecisionKind.AMEND,
            Decision.correction.is_not(None),
            Decision.source != IMPORT,
            Decision.retracted.is_(False),
            ~exists().where(
                standing.item_id == Decision.item_id, standing.retracted.is_(False), standing.id > Decision.id
            ),
        )
        .order_by(Decision.id)
    ).all()
    suggested = session.execute(
        select(Suggestion.relation_id, Suggestion.text)
        .where(
            Suggestion.language == assignment.language,
            Suggestion.user_id != assignment.user_id,
            Suggestion.source != IMPORT,
            Suggestion.retracted.is_(False),
        )
        .order_by(Suggestion.id)
    ).all()
    wanted: dict[tuple[str, str], None] = {}
    for relation_id, text in [*amended, *suggested]:
        if text is not None:
            wanted[(relation_id, text)] = None
    templates = [proposed_template(session, assignment.language, r, t) for r, t in wanted]
    return len(place(session, assignment, templates))


def place(session: Session, assignment: Assignment, templates: Sequence[Template]) -> list[AssignmentItem]:
    """Add the templates not yet in the assignment right after its first undecided item (at the
    end when none is left), in the given order; the later items move down. Returns the new items."""
    have = set(
        session.scalars(
            select(AssignmentItem.template_id).where(
                AssignmentItem.assignment_id == assignment.id,
                AssignmentItem.template_id.in_([t.id for t in templates]),
            )
        )
    )
    new: list[Template] = []
    for template in templates:
        if template.id not in have:
            have.add(template.id)
            new.append(template)
    if not new:
        return []
    mine = AssignmentItem.assignment_id == assignment.id
    undecided = ~exists().where(Decision.item_id == AssignmentItem.id, Decision.retracted.is_(False))
    first_open = session.scalar(select(func.min(AssignmentItem.position)).where(mine, undecided))
    if first_open is None:
        last = session.scalar(select(func.max(AssignmentItem.position)).where(mine))
        start = 0 if last is None else last + 1
    else:
        start = first_open + 1
        k = len(new)
        # (assignment, position) is unique and checked row by row: move the later items through
        # negative positions (none is ever negative) rather than one by one from the end
        moved = update(AssignmentItem).execution_options(synchronize_session=False)
        session.execute(
            moved.where(mine, AssignmentItem.position >= start).values(position=-AssignmentItem.position - 1 - k)
        )
        session.execute(moved.where(mine, AssignmentItem.position < 0).values(position=-AssignmentItem.position - 1))
        for obj in list(session.identity_map.values()):
            if isinstance(obj, AssignmentItem) and obj.assignment_id == assignment.id:
                session.expire(obj, ["position"])
    items = [
        AssignmentItem(
            assignment_id=assignment.id,
            template_id=template.id,
            relation_id=template.relation_id,
            position=start + i,
            extra=True,
        )
        for i, template in enumerate(new)
    ]
    session.add_all(items)
    session.flush()
    return items


def proposal_of(session: Session, template: Template, user_id: int) -> ProposalRef | None:
    """Whether `template` is a standing proposal of another reviewer (not `user_id`, not an
    import): an amendment whose correction is its text (then also the text it amends), else a
    suggestion of its text; None when it is neither."""
    standing = aliased(Decision)
    amended = session.execute(
        select(Template.text)
        .select_from(Decision)
        .join(Template, Template.id == Decision.template_id)
        .where(
            Decision.language == template.language,
            Decision.relation_id == template.relation_id,
            Decision.correction == template.text,
            Decision.decision == DecisionKind.AMEND,
            Decision.user_id != user_id,
            Decision.source != IMPORT,
            Decision.retracted.is_(False),
            ~exists().where(
                standing.item_id == Decision.item_id, standing.retracted.is_(False), standing.id > Decision.id
            ),
        )
        .order_by(Decision.id)
        .limit(1)
    ).first()
    if amended is not None:
        return {"kind": DecisionKind.AMEND.value, "amends": amended[0]}
    suggested = session.scalar(
        select(Suggestion.id)
        .where(
            Suggestion.language == template.language,
            Suggestion.relation_id == template.relation_id,
            Suggestion.text == template.text,
            Suggestion.user_id != user_id,
            Suggestion.source != IMPORT,
            Suggestion.retracted.is_(False),
        )
        .limit(1)
    )
    if suggested is not None:
        return {"kind": ImportKind.SUGGEST.value, "amends": None}
    return None

"""What a reviewer said, in one rule: an item's *standing decision* is its latest decision not
undone (retracted). A later decision supersedes an earlier one; an undo retracts the latest, so
the one before it stands again; rows are never deleted.

An item is one template in one reviewer's sample (`(assignment, template)` and `(user, language)`
are unique, and only the sample's reviewer decides on it), so "per item" and "per reviewer and
template" are the same rule. Every reader takes it from here — the queue and progress, deciding,
undo and history, the statistics and the merge (through `stats.standing_decisions`), the second
looks' proposals — in the form it needs: a correlated subquery, a condition on a decision row, the
ids of a whole set, or the pick among rows already loaded.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import ColumnElement, Select, SQLColumnExpression, exists, func, select
from sqlalchemy.orm import aliased

from curator.core.models import Decision


def not_undone(decision: type[Decision] = Decision) -> ColumnElement[bool]:
    """The decision (the `Decision` entity or an alias of it) is not retracted by an undo."""
    return decision.retracted.is_(False)


def standing_id(item_id: SQLColumnExpression[int]) -> ColumnElement[int | None]:
    """The id of the standing decision of the item `item_id` names (a column of the enclosing
    statement, e.g. `AssignmentItem.id`), as a correlated scalar subquery; NULL when undecided."""
    d = aliased(Decision)
    return select(func.max(d.id)).where(d.item_id == item_id, not_undone(d)).correlate_except(d).scalar_subquery()


def is_standing(decision: type[Decision] = Decision) -> ColumnElement[bool]:
    """The decision row (the `Decision` entity or an alias) is its item's standing decision."""
    return decision.id == standing_id(decision.item_id)


def decided(item_id: SQLColumnExpression[int]) -> ColumnElement[bool]:
    """The item `item_id` names has a standing decision (correlated EXISTS)."""
    d = aliased(Decision)
    return exists().where(d.item_id == item_id, not_undone(d)).correlate_except(d)


def standing_decision_ids(*conditions: ColumnElement[bool]) -> Select[int]:
    """The ids of the standing decisions among the decisions meeting `conditions` (conditions on
    `Decision`), one per item: what every reviewer said, for a whole set at once."""
    return select(func.max(Decision.id)).where(not_undone(), *conditions).group_by(Decision.item_id)


def standing_among(decisions: Iterable[Decision]) -> Decision | None:
    """The standing decision among one item's decisions already loaded (any order), or None."""
    return max((d for d in decisions if not d.retracted), key=lambda d: d.id, default=None)


def standing_by_item(decisions: Iterable[Decision]) -> dict[int, int]:
    """{item id: its standing decision's id} among decisions already loaded (items with none left out)."""
    out: dict[int, int] = {}
    for d in decisions:
        if not d.retracted and d.id > out.get(d.item_id, 0):
            out[d.item_id] = d.id
    return out

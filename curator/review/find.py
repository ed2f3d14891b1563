"""Find items in one's own queue (issue 37 §5), as Weblate's and Pontoon's filters do: what is
still undecided, what one marked unsure, the proposals of other reviewers waiting for one's
verdict, one relation, one verdict, and a text search over the template, the English pattern it
translates and one's own correction and reason; and the same verdict filter and search over one's
own past decisions ("My decisions", `past_decisions`), as Weblate, Pontoon, Argilla and Label Studio let a
translator find their own work.

One reviewer, one language: only a language they are assigned to (`service.get_assignment`:
Forbidden otherwise) and only their own queue (retired second looks left out, as everywhere:
`progress.in_queue`). The text is compared folded (`core.folding.fold`: case, accents, Arabic
harakat and tatweel do not count), in Python, so SQLite and PostgreSQL answer alike.

`find_items` answers for the page (/review/<lang>/find) and the JSON API alike, and so does
`past_decisions` for /review/<lang>/history and its API; `matches` and `decision_matches` are the
rules for one row, pure functions of what the pages list, and `text_matches` the one text search
both read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import DecisionKind
from curator.core.errors import N_, InputError
from curator.core.folding import fold
from curator.core.models import Assignment, AssignmentItem, Decision, EnglishPattern, Template, User, first_english
from curator.core.paging import check_page, page_count, page_offset
from curator.review import service
from curator.review.progress import in_queue
from curator.review.proposal_queue import item_proposal
from curator.review.records import HistoryEntry
from curator.review.standing import standing_id

ALL, UNDECIDED, UNSURE, PROPOSALS = "all", "undecided", "unsure", "proposals"
SHOWS = (ALL, UNDECIDED, UNSURE, PROPOSALS)
# the verdict filter: what a decision says (accept, amend, reject, unsure); on the Find page an
# item's standing decision, or `undecided` for an item none stands on; in My decisions each
# decision listed (every row is one, so `undecided` has no meaning there)
VERDICTS = tuple(kind.value for kind in DecisionKind)
ITEM_VERDICTS = (*VERDICTS, UNDECIDED)
PER_PAGE = 25
MAX_TEXT = 200  # characters of a search


class FoundItem(TypedDict):
    id: int  # the item: /review/<lang>#item-<id> opens it on the review screen
    number: int  # its place in the queue, 1-based ("template 12 of 80" on the screen)
    relation: str
    template: str
    english: str | None  # the English pattern it translates (`core.models.first_english`)
    decision: str | None  # the standing decision, None while undecided
    correction: str | None  # the standing decision's correction (an amend's), else None
    reason: str | None  # the standing decision's reason (a reject's or an unsure's), else None
    proposal: bool  # another reviewer's amendment or suggestion put in front of you


class Found(TypedDict):
    items: list[FoundItem]  # this page's
    matched: int
    total: int  # items in the queue
    page: int
    pages: int
    per_page: int
    relations: list[str]  # the queue's relations, in queue order (the filter's choices)


class Past(TypedDict):
    decisions: list[HistoryEntry]  # the decisions the query asks for, newest first
    matched: int
    total: int  # the reviewer's decisions in the language, undone and replaced ones included


@dataclass(frozen=True)
class Query:
    show: str = ALL
    relation: str | None = None
    text: str = ""
    page: int = 1
    per_page: int = PER_PAGE
    verdict: str | None = None  # one of ITEM_VERDICTS, or None: any


@dataclass(frozen=True)
class PastQuery:
    verdict: str | None = None  # one of VERDICTS, or None: any
    text: str = ""


def check_text(text: str | None) -> str:
    """A search as typed, trimmed (empty: no search), or InputError when too long."""
    text = (text or "").strip()
    if len(text) > MAX_TEXT:
        raise InputError(N_("Search for at most %(count)s characters."), params={"count": MAX_TEXT})
    return text


def check_verdict(verdict: str | None, choices: tuple[str, ...]) -> str | None:
    """A verdict from a form or a URL (empty: any), one of `choices`, or InputError."""
    if not verdict:
        return None
    if verdict not in choices:
        raise InputError(N_("Verdict: one of %(choices)s."), params={"choices": ", ".join(choices)})
    return verdict


def check_query(
    show: str | None = None,
    relation: str | None = None,
    text: str | None = None,
    page: int = 1,
    per_page: int = PER_PAGE,
    verdict: str | None = None,
) -> Query:
    """A query from what a form or a URL sent (empty values: no filter), or InputError."""
    show = show or ALL
    if show not in SHOWS:
        raise InputError(N_("Show one of: %(choices)s."), params={"choices": ", ".join(SHOWS)})
    checked = check_text(text)
    kind = check_verdict(verdict, ITEM_VERDICTS)
    check_page(page, per_page)
    return Query(show=show, relation=relation or None, text=checked, page=page, per_page=per_page, verdict=kind)


def check_past_query(verdict: str | None = None, text: str | None = None) -> PastQuery:
    """My decisions' query from what a form or a URL sent (empty values: no filter), or InputError."""
    return PastQuery(verdict=check_verdict(verdict, VERDICTS), text=check_text(text))


def text_matches(text: str, searched: Iterable[str | None]) -> bool:
    """Whether the search `text` is in one of the `searched` texts (None: absent), both folded;
    an empty search matches everything."""
    if not text:
        return True
    needle = fold(text)
    return any(s is not None and needle in fold(s) for s in searched)


def _searched(item: FoundItem) -> tuple[str | None, ...]:
    """What the text search reads of an item: its template, its English pattern, and your
    correction and reason (the standing decision's)."""
    return item["template"], item["english"], item["correction"], item["reason"]


def matches(item: FoundItem, query: Query) -> bool:
    """Whether `item` is one `query` asks for: every filter given holds."""
    if query.show == UNDECIDED and item["decision"] is not None:
        return False
    if query.show == UNSURE and item["decision"] != DecisionKind.UNSURE:
        return False
    if query.show == PROPOSALS and not (item["proposal"] and item["decision"] is None):
        return False
    if query.verdict is not None and item["decision"] != (None if query.verdict == UNDECIDED else query.verdict):
        return False
    if query.relation is not None and item["relation"] != query.relation:
        return False
    return text_matches(query.text, _searched(item))


def decision_matches(entry: HistoryEntry, query: PastQuery) -> bool:
    """Whether one of My decisions is one `query` asks for: its own verdict, and the search in its
    template, its correction or its reason."""
    if query.verdict is not None and entry["decision"] != query.verdict:
        return False
    return text_matches(query.text, (entry["template"], entry["correction"], entry["reason"]))


def queue_items(session: Session, user: User, language: str) -> list[FoundItem]:
    """Every item of `user`'s queue in `language`, in order, as the search lists them (Forbidden
    for a language they are not assigned to)."""
    assignment = service.get_assignment(session, user, language)
    user_id = service.user_id_of(user)
    rows = session.execute(
        select(
            AssignmentItem.id,
            AssignmentItem.extra,
            Template,
            EnglishPattern.pattern,
            Decision.decision,
            Decision.correction,
            Decision.reason,
        )
        .join(Template, Template.id == AssignmentItem.template_id)
        .outerjoin(EnglishPattern, first_english(Template))
        .outerjoin(Decision, Decision.id == standing_id(AssignmentItem.id))
        .where(AssignmentItem.assignment_id == assignment.id, in_queue())
        .order_by(AssignmentItem.position)
    ).all()
    return [
        {
            "id": item_id,
            "number": number,
            "relation": template.relation_id,
            "template": template.text,
            "english": english,
            "decision": decision,
            "correction": correction,
            "reason": reason,
            # the review screen's badge reads the same rule (service.item_context)
            "proposal": item_proposal(session, template, extra, user_id) is not None,
        }
        for number, (item_id, extra, template, english, decision, correction, reason) in enumerate(rows, start=1)
    ]


def find_items(session: Session, user: User, language: str, query: Query) -> Found:
    """The items of `user`'s queue in `language` that `query` asks for, one page of them."""
    everything = queue_items(session, user, language)
    found = [item for item in everything if matches(item, query)]
    pages = page_count(len(found), query.per_page)
    start = page_offset(query.page, query.per_page)
    return {
        "items": found[start : start + query.per_page],
        "matched": len(found),
        "total": len(everything),
        "page": query.page,
        "pages": pages,
        "per_page": query.per_page,
        "relations": list(dict.fromkeys(item["relation"] for item in everything)),
    }


def past_decisions(session: Session, user: User, assignment: Assignment, query: PastQuery) -> Past:
    """`user`'s decisions in `assignment`'s language (`service.history`: newest first, undone and
    replaced ones included) that `query` asks for."""
    everything = service.history(session, user, assignment)
    found = [entry for entry in everything if decision_matches(entry, query)]
    return {"decisions": found, "matched": len(found), "total": len(everything)}

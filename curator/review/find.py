"""Find items in one's own queue (issue 37 §5), as Weblate's and Pontoon's filters do: what is
still undecided, what one marked unsure, the proposals of other reviewers waiting for one's
verdict, one relation, and a text search over the template and the English pattern it
translates.

One reviewer, one language: only a language they are assigned to (`service.get_assignment`:
Forbidden otherwise) and only their own queue (retired second looks left out, as everywhere:
`progress.in_queue`). The text is compared folded (`core.folding.fold`: case, accents, Arabic
harakat and tatweel do not count), in Python, so SQLite and PostgreSQL answer alike.

`find_items` answers for the page (/review/<lang>/find) and the JSON API alike; `matches` is the
rule for one item, a pure function of what the page lists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.enums import DecisionKind
from curator.core.errors import N_, InputError
from curator.core.folding import fold
from curator.core.models import AssignmentItem, Decision, EnglishPattern, Template, User, first_english
from curator.core.paging import check_page, page_count, page_offset
from curator.review.progress import in_queue
from curator.review.proposal_queue import item_proposal
from curator.review.service import get_assignment, user_id_of
from curator.review.standing import standing_id

ALL, UNDECIDED, UNSURE, PROPOSALS = "all", "undecided", "unsure", "proposals"
SHOWS = (ALL, UNDECIDED, UNSURE, PROPOSALS)
PER_PAGE = 25
MAX_TEXT = 200  # characters of a search


class FoundItem(TypedDict):
    id: int  # the item: /review/<lang>#item-<id> opens it on the review screen
    number: int  # its place in the queue, 1-based ("template 12 of 80" on the screen)
    relation: str
    template: str
    english: str | None  # the English pattern it translates (`core.models.first_english`)
    decision: str | None  # the standing decision, None while undecided
    proposal: bool  # another reviewer's amendment or suggestion put in front of you


class Found(TypedDict):
    items: list[FoundItem]  # this page's
    matched: int
    total: int  # items in the queue
    page: int
    pages: int
    per_page: int
    relations: list[str]  # the queue's relations, in queue order (the filter's choices)


@dataclass(frozen=True)
class Query:
    show: str = ALL
    relation: str | None = None
    text: str = ""
    page: int = 1
    per_page: int = PER_PAGE


def check_query(
    show: str | None = None,
    relation: str | None = None,
    text: str | None = None,
    page: int = 1,
    per_page: int = PER_PAGE,
) -> Query:
    """A query from what a form or a URL sent (empty values: no filter), or InputError."""
    show = show or ALL
    if show not in SHOWS:
        raise InputError(N_("Show one of: %(choices)s."), params={"choices": ", ".join(SHOWS)})
    text = (text or "").strip()
    if len(text) > MAX_TEXT:
        raise InputError(N_("Search for at most %(count)s characters."), params={"count": MAX_TEXT})
    check_page(page, per_page)
    return Query(show=show, relation=relation or None, text=text, page=page, per_page=per_page)


def matches(item: FoundItem, query: Query) -> bool:
    """Whether `item` is one `query` asks for: every filter given holds."""
    if query.show == UNDECIDED and item["decision"] is not None:
        return False
    if query.show == UNSURE and item["decision"] != DecisionKind.UNSURE:
        return False
    if query.show == PROPOSALS and not (item["proposal"] and item["decision"] is None):
        return False
    if query.relation is not None and item["relation"] != query.relation:
        return False
    if query.text:
        needle = fold(query.text)
        return needle in fold(item["template"]) or (item["english"] is not None and needle in fold(item["english"]))
    return True


def queue_items(session: Session, user: User, language: str) -> list[FoundItem]:
    """Every item of `user`'s queue in `language`, in order, as the search lists them (Forbidden
    for a language they are not assigned to)."""
    assignment = get_assignment(session, user, language)
    user_id = user_id_of(user)
    rows = session.execute(
        select(AssignmentItem.id, AssignmentItem.extra, Template, EnglishPattern.pattern, Decision.decision)
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
            # the review screen's badge reads the same rule (service.item_context)
            "proposal": item_proposal(session, template, extra, user_id) is not None,
        }
        for number, (item_id, extra, template, english, decision) in enumerate(rows, start=1)
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

"""What the review services hand the pages, the JSON API and the CLI: plain, JSON-ready records
(TypedDicts), kept apart from the services that build them (review.service)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from curator.review.proposal_queue import ProposalRef
from curator.review.threads import ThreadRecord


class DecisionRecord(TypedDict):
    id: int
    item_id: int
    decision: str
    correction: str | None
    reason: str | None  # a reject's or an unsure's reason, as the reviewer typed it (trimmed)
    seconds: float | None
    created_at: str  # ISO 8601, to the second
    retracted: bool
    source: str


class HistoryEntry(DecisionRecord):
    """One row of `history`."""

    template: str
    relation: str
    relation_title: str
    superseded: bool  # a later decision on the same item stands instead
    standing: bool
    retired: bool  # the item left the queue: a second look whose proposal was withdrawn (proposal_queue.retire)


class _TextPart(TypedDict):
    text: str


class TemplatePart(_TextPart, total=False):
    """A piece of a filled-in template: plain text, or a slot's value (`slot` "X" or "Y")."""

    slot: str


class _ExampleFields(TypedDict):
    subject: str
    object: str
    parts: list[TemplatePart]


class Example(_ExampleFields, total=False):
    """A tuple with the template filled in; an annotated template's examples carry the gender
    its forms were chosen for (`gender`: "MASC" or "FEM", review/annotations.py)."""

    gender: str


class SourceLine(TypedDict):
    """An MT line behind a template: the system, its raw output, the repairs made, the English."""

    system: str
    raw: str
    repairs: list[Any]  # Repair.to_dict()s, as stored (JSON)
    english: str | None


class _Signals(TypedDict):
    repaired: bool
    risk: float
    components: dict[str, float]
    similarity: float | None
    checks: Sequence[Mapping[str, object]]  # quality.checks.results


class Signals(_Signals, total=False):
    """The quality signals the review screen shows; the back-translation's only when measured."""

    back_translation: str | None
    english: str | None
    warn: bool
    system: str | None


class ItemRef(TypedDict):
    id: int
    position: int


class LanguageRef(TypedDict):
    code: str
    name: str
    dir: str


class RelationInfo(TypedDict):
    id: str
    lemma: str | None
    title: str
    english: list[str]


class TemplateInfo(TypedDict):
    id: int
    text: str
    votes: int
    systems: list[str]


class SuggestionRef(TypedDict):
    id: int
    text: str


class ItemComments(TypedDict):
    """The reviewer's threads on the item's template and on its relation (review.threads)."""

    item: list[ThreadRecord]
    relation: list[ThreadRecord]


class ItemContext(TypedDict):
    """Everything the review screen shows for one item (`item_context`)."""

    item: ItemRef
    language: LanguageRef
    relation: RelationInfo
    template: TemplateInfo
    signals: Signals
    sources: list[SourceLine]
    examples: list[Example]
    decision: DecisionRecord | None
    history: list[DecisionRecord]
    suggestions: list[SuggestionRef]
    comments: ItemComments
    proposal: ProposalRef | None  # another reviewer's amendment or suggestion, for a second look

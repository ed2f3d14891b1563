"""Bring legacy reviews (e.g. mParaRel's spreadsheets exported as JSONL) into the database.

One line per decision: {"reviewer", "language", "relation", "template", "decision",
"correction"}, and an optional "reason" with a reject or an unsure (kept on the decision, as
the review page's; review.service.check_reason); decision ∈ accept | amend | reject | unsure |
suggest ("unsure" is stored, counted apart and never merged). The template is matched after
the same cleaning as ingest. The whole file is one transaction.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core import languages
from curator.core.enums import DecisionSource, ImportKind, values
from curator.core.errors import CuratorError, InputError, NotFound
from curator.core.formats.jsonl import iter_jsonl, optional, read_bytes, require
from curator.core.models import Assignment, Template
from curator.ingest.clean import check
from curator.review.accounts import create_user, find_user
from curator.review.sampling import add_item, assign
from curator.review.service import check_reason, decide
from curator.review.suggestions import suggest

KINDS = values(ImportKind)


@dataclass
class ImportSummary:
    lines: int = 0
    stored: int = 0
    unchanged: int = 0
    users_created: int = 0
    kinds: Counter[str] = field(default_factory=Counter)


def import_reviews(session: Session, path: str | Path, fraction: float | None = None) -> ImportSummary:
    where = str(path)
    data = read_bytes(path)
    summary = ImportSummary()
    for number, obj in iter_jsonl(data, where):
        summary.lines += 1
        reviewer = require(obj, "reviewer", str, where, number)
        language = require(obj, "language", str, where, number)
        if not languages.CODE.fullmatch(language):
            raise InputError(f"{language!r} is not a language code", location=where, line=number, field="language")
        relation = require(obj, "relation", str, where, number)
        kind = require(obj, "decision", str, where, number)
        if kind not in KINDS:
            raise InputError(f"must be one of {', '.join(KINDS)}", location=where, line=number, field="decision")
        correction = optional(obj, "correction", str, where, number)
        reason = optional(obj, "reason", str, where, number)
        try:
            email = reviewer if "@" in reviewer else f"{_slug(reviewer)}@imported.invalid"
            user = find_user(session, email)
            if user is None:  # a legacy reviewer without an account: one that cannot sign in until invited
                user = create_user(session, email, None, "reviewer", name=reviewer)
                summary.users_created += 1
            assignment = assign(session, user, language, fraction)
            if kind == ImportKind.SUGGEST:
                check_reason(kind, reason)  # a suggestion is no reject: a reason with it is refused
                text = correction or obj.get("template")
                if not isinstance(text, str):
                    raise InputError("a suggestion needs its text in 'correction' (or 'template')")
                _, created = suggest(
                    session,
                    user,
                    _with_relation(session, assignment, language, relation),
                    relation,
                    text,
                    source=DecisionSource.IMPORT,
                )
            else:
                template = _find_template(session, language, relation, require(obj, "template", str, where, number))
                item = add_item(session, assignment, template)
                _, created = decide(
                    session, user, assignment, item, kind, correction, source=DecisionSource.IMPORT, reason=reason
                )
        except CuratorError as exc:
            field = exc.field if isinstance(exc, InputError) else None
            raise InputError(exc.message, location=where, line=number, field=field) from None
        summary.stored += created
        summary.unchanged += not created
        summary.kinds[kind] += 1
    if not summary.lines:
        raise InputError("empty file: no decisions", location=where)
    return summary


def _slug(name: str) -> str:
    return re.sub(r"[^\w.-]+", "-", name.strip().lower()).strip("-") or "reviewer"


def _with_relation(session: Session, assignment: Assignment, language: str, relation: str) -> Assignment:
    """Suggestions are per relation: make sure the relation is in the reviewer's sample."""
    template = session.scalar(
        select(Template)
        .where(Template.language == language, Template.relation_id == relation, Template.is_candidate)
        .order_by(Template.id)
        .limit(1)
    )
    if template is None:
        raise NotFound(f"no candidate templates for {language}/{relation}")
    add_item(session, assignment, template)
    return assignment


def _find_template(session: Session, language: str, relation: str, text: str) -> Template:
    outcome = check(text, language, keep_invisible=True)  # data: matched with its invisible characters
    cleaned = outcome.cleaned or text
    template = session.scalar(
        select(Template).where(
            Template.language == language, Template.relation_id == relation, Template.text == cleaned
        )
    )
    if template is None:
        raise NotFound(f"no template {cleaned!r} in {language}/{relation}")
    return template

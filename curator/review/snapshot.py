"""The stored state the rule for what ships reads (issue 36): one `rule.LanguageState` per
language, loaded in a handful of bulk queries — the parent version's lines, every standing
decision with its row's text, unretracted suggestions, the latest maintainer answer per text,
standing resolutions, active line drops, trusted reviewers and the language's merge policy.
`curator.review.rule.decide` turns it into outcomes; nothing here decides anything."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from curator.core.enums import VersionKind
from curator.core.errors import InputError
from curator.core.models import (
    Assignment,
    AssignmentItem,
    DatasetVersion,
    Decision,
    LineDrop,
    ProposalReview,
    Resolution,
    Suggestion,
    Template,
    User,
    VersionPattern,
)
from curator.review.policy import POLICIES, language_policies
from curator.review.rule import (
    Answer,
    DropState,
    LanguageState,
    ParentLine,
    RelationState,
    ResolutionState,
    SuggestionLine,
    Vote,
)
from curator.review.standing import standing_decision_ids

Q = TypeVar("Q", bound=Select[*tuple[Any, ...]])


def latest_candidates_id(session: Session) -> int | None:
    """The newest candidates version, the parent a build uses by default (None: no snapshot yet)."""
    return session.scalar(
        select(DatasetVersion.id)
        .where(DatasetVersion.kind == VersionKind.CANDIDATES)
        .order_by(DatasetVersion.id.desc())
        .limit(1)
    )


def load(
    session: Session,
    languages: Iterable[str] | None = None,
    parent_id: int | None = None,
    policy: str | None = None,
) -> dict[str, LanguageState]:
    """{language: its state}: every language with a parent line or anything people did (of
    `languages` when given). `parent_id`: the version whose lines are the parent (None: none);
    `policy`: one policy for every language (None: each language's stored policy)."""
    if policy is not None and policy not in POLICIES:
        raise InputError(f"unknown merge policy {policy!r} (choose from {', '.join(POLICIES)})")
    wanted = sorted(set(languages)) if languages is not None else None
    policies = language_policies(session)
    emails: dict[int, str] = dict(session.execute(select(User.id, User.email)).all())
    states: dict[str, LanguageState] = {}

    def relation(language: str, relation_id: str) -> RelationState:
        state = states.get(language)
        if state is None:
            state = states[language] = LanguageState(
                language=language, policy=policy or policies.get(language, POLICIES[0]), emails=emails
            )
        rel = state.relations.get(relation_id)
        if rel is None:
            rel = state.relations[relation_id] = RelationState(relation_id)
        return rel

    def only(query: Q, column: InstrumentedAttribute[str]) -> Q:
        return query if wanted is None else query.where(column.in_(wanted))

    if parent_id is not None:
        lines = only(
            select(
                VersionPattern.language,
                VersionPattern.relation_id,
                VersionPattern.pattern,
                VersionPattern.checked_by_human,
                VersionPattern.template_id,
            )
            .where(VersionPattern.version_id == parent_id)
            .order_by(VersionPattern.language, VersionPattern.relation_id, VersionPattern.position),
            VersionPattern.language,
        )
        for lang, rel_id, pattern, checked, template_id in session.execute(lines):
            rel = relation(lang, rel_id)
            rel.parent.append(ParentLine(pattern, checked, template_id))
            if template_id is not None:
                rel.rows.setdefault(pattern, template_id)
    decisions = only(
        select(
            Decision.language,
            Decision.relation_id,
            Decision.user_id,
            Decision.decision,
            Decision.correction,
            Decision.id,
            Decision.source,
            Template.text,
            Template.id,
            Template.is_candidate,
        )
        .join(Template, Template.id == Decision.template_id)
        .join(AssignmentItem, AssignmentItem.id == Decision.item_id)
        # a decision on a retired item (its proposal withdrawn, undone, edited away) reaches nothing
        .where(Decision.id.in_(standing_decision_ids()), AssignmentItem.retired_at.is_(None))
        .order_by(Decision.id),
        Decision.language,
    )
    for row in session.execute(decisions):
        lang, rel_id, user_id, kind, correction, decision_id, source, text, template_id, candidate = row
        rel = relation(lang, rel_id)
        rel.rows.setdefault(text, template_id)
        if candidate:
            rel.candidates.add(text)
        rel.decisions.setdefault(text, []).append(Vote(user_id, kind, correction, decision_id, source))
    suggestions = only(
        select(Suggestion).where(Suggestion.retracted.is_(False)).order_by(Suggestion.id), Suggestion.language
    )
    for s in session.scalars(suggestions):
        relation(s.language, s.relation_id).suggestions.append(SuggestionLine(s.user_id, s.text, s.source, s.id))
    for a in session.scalars(only(select(ProposalReview).order_by(ProposalReview.id), ProposalReview.language)):
        relation(a.language, a.relation_id).answers[a.text] = Answer(
            a.verdict, emails.get(a.user_id, "?"), a.created_at, a.reason, a.edited_to, a.edited_from
        )
    latest = select(func.max(Resolution.id)).group_by(Resolution.template_id)
    resolutions = only(
        select(Resolution, Template.text)
        .join(Template, Template.id == Resolution.template_id)
        .where(Resolution.id.in_(latest), Resolution.retracted.is_(False)),
        Resolution.language,
    )
    for r, text in session.execute(resolutions):
        rel = relation(r.language, r.relation_id)
        rel.rows.setdefault(text, r.template_id)
        rel.resolutions[text] = ResolutionState(
            r.id, text, r.verdict, r.correction, emails.get(r.user_id, "?"), r.created_at, r.reason
        )
    drops = only(select(LineDrop).where(LineDrop.restored_at.is_(None)).order_by(LineDrop.id), LineDrop.language)
    for d in session.scalars(drops):
        relation(d.language, d.relation_id).drops[d.pattern] = DropState(d.id, emails.get(d.user_id, "?"), d.reason)
    trusted: dict[str, set[int]] = {}
    for user_id, lang in session.execute(
        select(Assignment.user_id, Assignment.language).where(Assignment.trusted.is_(True))
    ):
        trusted.setdefault(lang, set()).add(user_id)
    for lang, state in states.items():
        state.trusted = frozenset(trusted.get(lang, ()))
    return states

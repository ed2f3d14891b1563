"""The stored state the rule for what ships reads (issue 36): one `rule.LanguageState` per
language, loaded in a handful of bulk queries — the parent version's lines, every standing
decision with its row's text, unretracted suggestions, the latest maintainer answer per text,
standing resolutions, active line drops, trusted reviewers and the language's merge policy.
`curator.review.rule.decide` turns it into outcomes; nothing here decides anything."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from sqlalchemy import Select, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from curator.core.enums import VersionKind
from curator.core.models import (
    Assignment,
    AssignmentItem,
    DatasetVersion,
    Decision,
    LineDrop,
    ProposalReview,
    Suggestion,
    Template,
    User,
    VersionPattern,
)
from curator.review.policy import DEFAULT, check_policy, language_policies
from curator.review.resolutions import resolution_record, standing_resolution_rows
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
    if policy is not None:
        check_policy(policy)
    loader = _Loader(session, languages, policy)
    if parent_id is not None:
        loader.parent_lines(parent_id)
    loader.decisions()
    loader.suggestions()
    loader.answers()
    loader.resolutions()
    loader.drops()
    loader.trust()
    return loader.states


class _Loader:
    """One bulk query per kind of stored row, each filling the languages' states."""

    def __init__(self, session: Session, languages: Iterable[str] | None, policy: str | None):
        self.session = session
        self.wanted = sorted(set(languages)) if languages is not None else None
        self.policy = policy
        self.policies = language_policies(session)
        self.emails: dict[int, str] = dict(session.execute(select(User.id, User.email)).all())
        self.states: dict[str, LanguageState] = {}

    def relation(self, language: str, relation_id: str) -> RelationState:
        state = self.states.get(language)
        if state is None:
            own = self.policy or self.policies.get(language, DEFAULT)
            state = self.states[language] = LanguageState(language=language, policy=own, emails=self.emails)
        rel = state.relations.get(relation_id)
        if rel is None:
            rel = state.relations[relation_id] = RelationState(relation_id)
        return rel

    def only(self, query: Q, column: InstrumentedAttribute[str]) -> Q:
        return query if self.wanted is None else query.where(column.in_(self.wanted))

    def parent_lines(self, parent_id: int) -> None:
        lines = self.only(
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
        for lang, rel_id, pattern, checked, template_id in self.session.execute(lines):
            rel = self.relation(lang, rel_id)
            rel.parent.append(ParentLine(pattern, checked, template_id))
            if template_id is not None:
                rel.rows.setdefault(pattern, template_id)

    def decisions(self) -> None:
        query = self.only(
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
                Decision.reason,
            )
            .join(Template, Template.id == Decision.template_id)
            .join(AssignmentItem, AssignmentItem.id == Decision.item_id)
            # a decision on a retired item (its proposal withdrawn, undone, edited away) reaches nothing
            .where(Decision.id.in_(standing_decision_ids()), AssignmentItem.retired_at.is_(None))
            .order_by(Decision.id),
            Decision.language,
        )
        for row in self.session.execute(query):
            lang, rel_id, user_id, kind, correction, decision_id, source, text, template_id, candidate, reason = row
            rel = self.relation(lang, rel_id)
            rel.rows.setdefault(text, template_id)
            if candidate:
                rel.candidates.add(text)
            rel.decisions.setdefault(text, []).append(Vote(user_id, kind, correction, decision_id, source, reason))

    def suggestions(self) -> None:
        query = select(Suggestion).where(Suggestion.retracted.is_(False)).order_by(Suggestion.id)
        for s in self.session.scalars(self.only(query, Suggestion.language)):
            self.relation(s.language, s.relation_id).suggestions.append(
                SuggestionLine(s.user_id, s.text, s.source, s.id)
            )

    def answers(self) -> None:
        query = self.only(select(ProposalReview).order_by(ProposalReview.id), ProposalReview.language)
        for a in self.session.scalars(query):  # the latest answer per text overwrites the earlier
            self.relation(a.language, a.relation_id).answers[a.text] = Answer(
                a.verdict, self.emails.get(a.user_id, "?"), a.created_at, a.reason, a.edited_to, a.edited_from
            )

    def resolutions(self) -> None:
        for r, email, text in standing_resolution_rows(self.session, self.wanted):
            rel = self.relation(r.language, r.relation_id)
            rel.rows.setdefault(text, r.template_id)
            record = resolution_record(r, email, text)
            rel.resolutions[text] = ResolutionState(
                r.id, text, r.verdict, r.correction, email, r.created_at, r.reason, record
            )

    def drops(self) -> None:
        query = select(LineDrop).where(LineDrop.restored_at.is_(None)).order_by(LineDrop.id)
        for d in self.session.scalars(self.only(query, LineDrop.language)):
            by = self.emails.get(d.user_id, "?")
            self.relation(d.language, d.relation_id).drops[d.pattern] = DropState(d.id, by, d.reason)

    def trust(self) -> None:
        trusted: dict[str, set[int]] = {}
        query = select(Assignment.user_id, Assignment.language).where(Assignment.trusted.is_(True))
        for user_id, lang in self.session.execute(query):
            trusted.setdefault(lang, set()).add(user_id)
        for lang, state in self.states.items():
            state.trusted = frozenset(trusted.get(lang, ()))

"""A small real world for the rule tests (issue 36): one language, one or two relations with a few
candidate templates snapshotted as `v0`, a maintainer and two or three reviewers, on a real SQLite
file, and every event a test applies done through the real services in a transaction of its own
(tests/review/test_rule_property.py, tests/review/test_rule_regressions.py).

Not a test module: pytest does not collect it.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Collection
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import select
from sqlalchemy import text as text_sql
from sqlalchemy.orm import Session

from curator.core.db import make_engine, make_session_factory
from curator.core.enums import VersionKind
from curator.core.models import (
    Assignment,
    AssignmentItem,
    DatasetVersion,
    Decision,
    LanguageCoverage,
    RelationCoverage,
    Template,
    User,
    VersionPattern,
)
from curator.ingest.store import ensure_languages, ensure_relations
from curator.release import line_drops, merge
from curator.release.versions import build_from_candidates
from curator.review import proposal_answers, proposals, resolutions, service, suggestions
from curator.review.accounts import create_user, find_user
from curator.review.sampling import assign

LANG = "es"
RELATIONS = ("P19", "P36")
BOSS = "boss@example.org"
REVIEWERS = ("r1@example.org", "r2@example.org", "r3@example.org")
REASON = "a reason"


class Item(NamedTuple):
    """One item of a reviewer's sample."""

    id: int
    relation: str
    text: str  # the template's
    retired: bool  # issue 36 §4: its proposal was withdrawn, undone or edited away
    extra: bool  # added to the sample (a proposal of another reviewer), not sampled


def text(word: str) -> str:
    """`dd` -> `[X] dd [Y]`: the tests' tiny alphabet (a cleaned template as stored)."""
    return f"[X] {word} [Y]"


def make_template(migrated: Path, path: Path) -> Path:
    """A copy of the migrated database with the language, both relations and the accounts, as
    one checkpointed file (copying the file copies the whole database)."""
    shutil.copyfile(migrated, path)
    engine = make_engine(f"sqlite:///{path}")
    try:
        with make_session_factory(engine).begin() as s:
            ensure_languages(s, [LANG])
            ensure_relations(s, RELATIONS)
            create_user(s, BOSS, None, "maintainer", "Boss")
            for i, email in enumerate(REVIEWERS, 1):
                create_user(s, email, None, "reviewer", f"R{i}")
    finally:
        engine.dispose()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path


def _snapshot_with_checked_lines(s: Session, checked: Collection[tuple[str, str]]) -> None:
    """`v0` as `build_from_candidates` makes it, but with the (relation, text) lines in `checked`
    marked checked by a human (a parent that marks lines checked: rows 4 and 10 of the rule)."""
    version = DatasetVersion(name="v0", kind=VersionKind.CANDIDATES, params={"coverage": {}, "languages": [LANG]})
    s.add(version)
    s.flush()
    templates = s.scalars(
        select(Template)
        .where(Template.language == LANG, Template.is_candidate)
        .order_by(Template.relation_id, Template.first_position, Template.text)
    ).all()
    positions: dict[str, int] = {}
    for t in templates:
        positions[t.relation_id] = positions.get(t.relation_id, -1) + 1
        s.add(
            VersionPattern(
                version_id=version.id, language=LANG, relation_id=t.relation_id, position=positions[t.relation_id],
                pattern=t.text, checked_by_human=(t.relation_id, t.text) in checked, template_id=t.id,
            )
        )  # fmt: skip
    s.flush()


class World:
    """The database of one history: candidates (relation -> texts, in parent order) snapshotted
    as `v0`, `reviewers` assigned to the whole sample (fraction 1)."""

    def __init__(
        self,
        template: Path,
        path: Path,
        candidates: dict[str, list[str]],
        reviewers: list[str],
        checked: Collection[tuple[str, str]] = (),  # (relation, text): lines the parent marks checked
    ):
        shutil.copyfile(template, path)
        self.path = path
        self.engine = make_engine(f"sqlite:///{path}")
        self.sessions = make_session_factory(self.engine)
        self.reviewers = list(reviewers)
        self.relations = sorted(candidates)
        self.builds = 0
        with self.sessions.begin() as s:
            s.add(
                LanguageCoverage(
                    language=LANG, usable_relations=len(candidates), relation_share=1.0, phrases=0, phrase_share=1.0,
                    included=True, params={},
                )
            )  # fmt: skip
            for relation, texts in candidates.items():
                s.add(
                    RelationCoverage(language=LANG, relation_id=relation, candidates=len(texts), tuples=0, usable=True)
                )
                for position, candidate in enumerate(texts):
                    s.add(
                        Template(
                            language=LANG, relation_id=relation, text=candidate, systems=["m"], votes=1,
                            first_position=position, is_candidate=True,
                        )
                    )  # fmt: skip
            s.flush()
            if checked:
                _snapshot_with_checked_lines(s, checked)
            else:
                build_from_candidates(s, "v0")
        with self.sessions.begin() as s:
            for email in self.reviewers:
                assign(s, self._user(s, email), LANG, fraction=1.0)

    def close(self) -> None:
        self.engine.dispose()
        self.path.unlink(missing_ok=True)
        for suffix in ("-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    @staticmethod
    def _user(s: Session, email: str) -> User:
        user = find_user(s, email)
        assert user is not None, email
        return user

    # ------------------------------------------------------------------ what is there
    WRITTEN = (
        "decisions", "suggestions", "proposal_reviews", "resolutions", "line_drops", "assignments",
        "assignment_items", "templates", "activity",
    )  # fmt: skip

    def fingerprint(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of the tables the events write, for "a refused event changed nothing"."""
        with self.engine.connect() as conn:
            return {
                name: sorted(map(tuple, conn.execute(text_sql(f'SELECT * FROM "{name}"'))), key=repr)
                for name in self.WRITTEN
            }

    def base_lines(self) -> dict[str, list[tuple[str, bool]]]:
        with self.sessions() as s:
            rows = s.execute(
                select(VersionPattern.relation_id, VersionPattern.pattern, VersionPattern.checked_by_human)
                .join(DatasetVersion, DatasetVersion.id == VersionPattern.version_id)
                .where(DatasetVersion.name == "v0", VersionPattern.language == LANG)
                .order_by(VersionPattern.relation_id, VersionPattern.position)
            ).all()
        out: dict[str, list[tuple[str, bool]]] = {}
        for relation, pattern, checked in rows:
            out.setdefault(relation, []).append((pattern, bool(checked)))
        return out

    def items(self, reviewer: str) -> list[Item]:
        """The reviewer's sample, in review order."""
        with self.sessions() as s:
            rows = s.execute(
                select(
                    AssignmentItem.id,
                    AssignmentItem.relation_id,
                    Template.text,
                    AssignmentItem.retired_at,
                    AssignmentItem.extra,
                )
                .join(Template, Template.id == AssignmentItem.template_id)
                .join(Assignment, Assignment.id == AssignmentItem.assignment_id)
                .join(User, User.id == Assignment.user_id)
                .where(User.email == reviewer, Assignment.language == LANG)
                .order_by(AssignmentItem.position)
            ).all()
        return [Item(i, r, t, retired is not None, bool(extra)) for i, r, t, retired, extra in rows]

    def retired(self) -> set[tuple[str, str, str]]:
        """(reviewer, relation, text) of every item retired from a queue: what the reference takes
        as given (which items retire is tests/review/test_queue_retire.py's)."""
        return {
            (reviewer, item.relation, item.text)
            for reviewer in self.reviewers
            for item in self.items(reviewer)
            if item.retired
        }

    def rows(self, relation: str) -> list[tuple[int, str]]:
        """(template id, text) of every template row of the relation."""
        with self.sessions() as s:
            return [
                (i, t)
                for i, t in s.execute(
                    select(Template.id, Template.text)
                    .where(Template.language == LANG, Template.relation_id == relation)
                    .order_by(Template.id)
                )
            ]

    def row_id(self, relation: str, row: str) -> int:
        found = [i for i, t in self.rows(relation) if t == row]
        assert found, f"no template row {row!r} in {relation}"
        return found[0]

    def item_of(self, reviewer: str, relation: str, row: str) -> int:
        found = [item.id for item in self.items(reviewer) if item.relation == relation and item.text == row]
        assert found, f"{reviewer} has no item {row!r} in {relation}"
        return found[0]

    # ------------------------------------------------------------------ events, each its own transaction
    def decide_item(self, reviewer: str, item_id: int, kind: str, correction: str | None = None) -> tuple[int, bool]:
        """(the decision's id, whether it was stored)."""
        with self.sessions.begin() as s:
            user = self._user(s, reviewer)
            assignment = service.get_assignment(s, user, LANG)
            item = service.get_item(s, assignment, item_id)
            row, created = service.decide(s, user, assignment, item, kind, correction)
            return row.id, created

    def decide(self, reviewer: str, relation: str, row: str, kind: str, correction: str | None = None) -> bool:
        return self.decide_item(reviewer, self.item_of(reviewer, relation, row), kind, correction)[1]

    def undo(self, reviewer: str) -> int | None:
        with self.sessions.begin() as s:
            user = self._user(s, reviewer)
            undone, _ = service.undo(s, user, service.get_assignment(s, user, LANG))
            return None if undone is None else undone.id

    def suggest(self, reviewer: str, relation: str, proposed: str) -> int:
        with self.sessions.begin() as s:
            user = self._user(s, reviewer)
            row, _ = suggestions.suggest(s, user, service.get_assignment(s, user, LANG), relation, proposed)
            return row.id

    def withdraw(self, reviewer: str, suggestion_id: int) -> None:
        with self.sessions.begin() as s:
            user = self._user(s, reviewer)
            suggestions.withdraw_suggestion(s, user, service.get_assignment(s, user, LANG), suggestion_id)

    def edit_suggestion(self, reviewer: str, suggestion_id: int, new: str) -> int:
        with self.sessions.begin() as s:
            user = self._user(s, reviewer)
            row, _ = suggestions.edit_suggestion(s, user, service.get_assignment(s, user, LANG), suggestion_id, new)
            return row.id

    def suggestion_id(self, reviewer: str, relation: str, proposed: str) -> int:
        """The reviewer's latest suggestion of that text (withdrawn or not)."""
        from curator.core.models import Suggestion

        with self.sessions() as s:
            found = s.scalar(
                select(Suggestion.id)
                .join(User, User.id == Suggestion.user_id)
                .where(User.email == reviewer, Suggestion.relation_id == relation, Suggestion.text == proposed)
                .order_by(Suggestion.id.desc())
                .limit(1)
            )
        assert found is not None
        return found

    def answer(self, relation: str, answered: str, verdict: str, edited_to: str | None = None) -> None:
        """A maintainer's answer on the Proposals page: confirm, drop, or (`edited_to`) edit."""
        with self.sessions.begin() as s:
            proposal_answers.review_proposal(
                s, self._user(s, BOSS), LANG, relation, answered, verdict, REASON, edited_to=edited_to
            )

    def resolve(self, relation: str, row: str, verdict: str, correction: str | None = None) -> int:
        template_id = self.row_id(relation, row)
        with self.sessions.begin() as s:
            return resolutions.resolve(s, self._user(s, BOSS), template_id, verdict, REASON, correction).id

    def retract(self, relation: str, row: str) -> None:
        template_id = self.row_id(relation, row)
        with self.sessions.begin() as s:
            resolutions.retract_resolution(s, self._user(s, BOSS), template_id)

    def drop_line(self, relation: str, pattern: str) -> None:
        with self.sessions.begin() as s:
            line_drops.drop_line(s, self._user(s, BOSS), LANG, relation, pattern, REASON)

    def restore_line(self, relation: str, pattern: str) -> None:
        with self.sessions.begin() as s:
            line_drops.restore_line(s, self._user(s, BOSS), LANG, relation, pattern)

    def trust(self, reviewer: str, trusted: bool = True) -> None:
        with self.sessions.begin() as s:
            proposal_answers.set_trusted(s, self._user(s, BOSS), reviewer, LANG, trusted)

    # ------------------------------------------------------------------ what the code says
    def plan(self, policy: str) -> list[Any]:
        with self.sessions() as s:
            base = s.scalar(select(DatasetVersion).where(DatasetVersion.name == "v0"))
            return merge.plan(s, base, policy=policy, languages=[LANG])

    def proposals(self, policy: str) -> list[Any]:
        with self.sessions() as s:
            return proposals.proposals(s, LANG, policy=policy)

    def build(self, policy: str) -> tuple[dict[str, list[tuple[str, bool]]], dict[str, Any]]:
        """A reviewed version built now under `policy`: (relation -> its lines (pattern,
        checked) in order, the version's params)."""
        self.builds += 1
        name = f"r{self.builds}-{policy}"
        with self.sessions.begin() as s:
            merge.build_from_review(s, name, policy=policy, parent="v0")
        with self.sessions() as s:
            version = s.scalar(select(DatasetVersion).where(DatasetVersion.name == name))
            assert version is not None
            rows = s.execute(
                select(VersionPattern.relation_id, VersionPattern.pattern, VersionPattern.checked_by_human)
                .where(VersionPattern.version_id == version.id, VersionPattern.language == LANG)
                .order_by(VersionPattern.relation_id, VersionPattern.position)
            ).all()
            params = dict(version.params)
        lines: dict[str, list[tuple[str, bool]]] = {}
        for relation, pattern, checked in rows:
            lines.setdefault(relation, []).append((pattern, bool(checked)))
        return lines, params

    def decision_ids(self, reviewer: str) -> list[int]:
        with self.sessions() as s:
            return list(
                s.scalars(
                    select(Decision.id)
                    .join(User, User.id == Decision.user_id)
                    .where(User.email == reviewer)
                    .order_by(Decision.id)
                )
            )

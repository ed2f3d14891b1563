"""What changed between two versions, per language and relation."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.models import VersionPattern
from curator.release.versions import Rules, get_version, version_rules


@dataclass
class RelationDiff:
    language: str
    relation: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    newly_checked: list[str] = field(default_factory=list)
    relation_added: bool = False
    relation_removed: bool = False

    def to_dict(self) -> dict[str, object]:
        return dict(
            language=self.language,
            relation=self.relation,
            added=self.added,
            removed=self.removed,
            newly_checked=self.newly_checked,
            relation_added=self.relation_added,
            relation_removed=self.relation_removed,
        )


def _patterns(session: Session, version_id: int) -> dict[tuple[str, str], dict[str, bool]]:
    out: dict[tuple[str, str], dict[str, bool]] = defaultdict(dict)
    for lang, rel, pattern, checked in session.execute(
        select(
            VersionPattern.language, VersionPattern.relation_id, VersionPattern.pattern, VersionPattern.checked_by_human
        )
        .where(VersionPattern.version_id == version_id)
        .order_by(VersionPattern.position)
    ):
        out[lang, rel][pattern] = checked
    return out


def diff_rules(session: Session, a: str, b: str) -> dict[str, Rules | None]:
    """The candidate rule profile of each side: a diff across profiles says so."""
    return {a: version_rules(get_version(session, a)), b: version_rules(get_version(session, b))}


def diff_versions(session: Session, a: str, b: str) -> list[RelationDiff]:
    old, new = _patterns(session, get_version(session, a).id), _patterns(session, get_version(session, b).id)
    out = []
    for key in sorted(set(old) | set(new)):
        before, after = old.get(key, {}), new.get(key, {})
        d = RelationDiff(
            *key,
            added=[p for p in after if p not in before],
            removed=[p for p in before if p not in after],
            newly_checked=[p for p, c in after.items() if c and p in before and not before[p]],
            relation_added=key not in old,
            relation_removed=key not in new,
        )
        if d.added or d.removed or d.newly_checked:
            out.append(d)
    return out

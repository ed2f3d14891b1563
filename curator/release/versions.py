"""Dataset versions: snapshot the candidates, or import an existing release.

A version is written once; nothing in it changes afterwards, and its tuples are shared
(by reference) with the ingest and other versions through content-addressed lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypedDict

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from curator.core import languages
from curator.core.enums import Activity, VersionKind
from curator.core.errors import Conflict, InputError, NotFound
from curator.core.formats.layout import refuse_duplicates
from curator.core.formats.release import (
    TUPLES,
    line_template,
    parse_patterns,
    read_manifest,
    release_files,
)
from curator.core.formats.release_tuples import ReleaseError
from curator.core.formats.sources import Source
from curator.core.models import (
    DatasetVersion,
    LanguageCoverage,
    RelationCoverage,
    Template,
    TupleList,
    User,
    VersionPattern,
    VersionTuples,
)
from curator.core.progress import progress_bar
from curator.core.text import InvisibleTally
from curator.ingest.store import bulk_insert, ensure_languages, ensure_relations
from curator.ingest.tuples import parse_tuples, store_tuple_list
from curator.review import activity


class Rules(TypedDict):
    """The candidate rules a version's templates were made with."""

    profile: str  # a rule profile (curator.ingest.profiles)
    keep_case: bool


class VersionListing(TypedDict):
    """One version as `list_versions` gives it (the web's and the CLI's list)."""

    name: str
    languages: int
    relations: int
    patterns: int
    tuple_lists: int
    kind: str
    parent: str | None
    created: str  # ISO time, to the second


@dataclass
class VersionSummary:
    name: str
    languages: int
    relations: int  # (language, relation) pairs with patterns
    patterns: int
    tuple_lists: int


def get_version(session: Session, name: str) -> DatasetVersion:
    version = session.scalar(select(DatasetVersion).where(DatasetVersion.name == name))
    if version is None:
        known = ", ".join(session.scalars(select(DatasetVersion.name).order_by(DatasetVersion.id))) or "none"
        raise NotFound(f"no dataset version named {name!r} (known: {known})")
    return version


# the one rule for a version's name, for the CLI and the web alike: it becomes a folder and a
# file name (the export, the zip) and a URL segment, so letters, digits, `.`, `_` and `-` only
VERSION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
# names Windows refuses for a file or folder, with or without an extension (CON, con.txt, LPT1.v2)
WINDOWS_RESERVED = re.compile(r"(CON|PRN|AUX|NUL|COM[1-9]|LPT[1-9])(\..*)?", re.IGNORECASE)
VERSION_NAME_RULE = (
    "1 to 64 characters: letters, digits, '.', '_' and '-', starting with a letter or a digit "
    "and not ending with '.' (no spaces or slashes, and not a name Windows reserves such as "
    "CON or LPT1)"
)


def check_version_name(name: object) -> str:
    """`name` if it is a valid version name, else an InputError that states the rule."""
    if (
        not isinstance(name, str)
        or not VERSION_NAME.fullmatch(name)
        or name.endswith(".")
        or WINDOWS_RESERVED.fullmatch(name)
    ):
        raise InputError(f"{name!r} is not a valid version name: {VERSION_NAME_RULE}")
    return name


def suggest_name(session: Session, prefix: str) -> str:
    """A free name `prefix-N` (N = 1, 2, …) for the next version, to prefill a form."""
    taken = set(session.scalars(select(DatasetVersion.name).where(DatasetVersion.name.like(f"{prefix}-%"))))
    n = 1
    while f"{prefix}-{n}" in taken:
        n += 1
    return f"{prefix}-{n}"


def new_version(session: Session, name: str, kind: str, **fields: Any) -> DatasetVersion:
    check_version_name(name)
    if session.scalar(select(DatasetVersion.id).where(DatasetVersion.name == name)) is not None:
        raise Conflict(f"a dataset version named {name!r} already exists; versions never change, pick a new name")
    version = DatasetVersion(name=name, kind=kind, **fields)
    session.add(version)
    session.flush()
    return version


def version_rules(version: DatasetVersion) -> Rules | None:
    """The candidate rule profile a version's templates were made with (a reviewed version
    inherits its parent's; an import takes what its manifest recorded); None when unknown."""
    current: DatasetVersion | None = version
    while current is not None:
        if (current.params or {}).get("rules"):  # an imported curator export that recorded them
            recorded: Rules = current.params["rules"]
            return recorded
        coverage = (current.params or {}).get("coverage")
        if coverage is not None:
            # versions built before profiles existed used today's default rules
            return Rules(profile=coverage.get("rules", "curator"), keep_case=bool(coverage.get("keep_case", False)))
        current = current.parent
    return None


def summarize(session: Session, version: DatasetVersion) -> VersionSummary:
    rows = session.execute(
        select(VersionPattern.language, VersionPattern.relation_id).where(VersionPattern.version_id == version.id)
    ).all()
    n_lists = len(session.scalars(select(VersionTuples.list_id).where(VersionTuples.version_id == version.id)).all())
    return VersionSummary(version.name, len({r[0] for r in rows}), len(set(rows)), len(rows), n_lists)


def build_from_candidates(
    session: Session, name: str, parent: str | None = None, actor: User | None = None
) -> VersionSummary:
    """Snapshot the candidates of every included language's usable relations (in the activity
    log as `actor`'s; None: the command line)."""
    coverage = session.scalars(select(LanguageCoverage)).all()
    if not coverage:
        raise Conflict("no candidates yet: run `curator candidates build` first")
    included = sorted(c.language for c in coverage if c.included)
    usable = {
        (r.language, r.relation_id) for r in session.scalars(select(RelationCoverage).where(RelationCoverage.usable))
    }
    version = new_version(
        session,
        name,
        VersionKind.CANDIDATES,
        parent_id=get_version(session, parent).id if parent else None,
        params={"coverage": coverage[0].params, "languages": included},
    )
    templates = session.scalars(
        select(Template)
        .where(Template.is_candidate, Template.language.in_(included))
        .order_by(Template.language, Template.relation_id, Template.first_position, Template.text)
    )
    rows = []
    position: dict[tuple[str, str], int] = {}
    for t in templates:
        key = (t.language, t.relation_id)
        if key not in usable:
            continue
        position[key] = position.get(key, -1) + 1
        rows.append(
            dict(
                version_id=version.id,
                language=t.language,
                relation_id=t.relation_id,
                position=position[key],
                pattern=t.text,
                checked_by_human=False,
                template_id=t.id,
            )
        )
    bulk_insert(session, VersionPattern.__table__, rows)
    lists = session.execute(select(TupleList.language, TupleList.relation_id, TupleList.id).where(TupleList.current))
    bulk_insert(
        session,
        VersionTuples.__table__,
        (
            dict(version_id=version.id, language=lang, relation_id=rel, list_id=list_id)
            for lang, rel, list_id in lists
            if (lang, rel) in position
        ),
    )
    summary = summarize(session, version)
    log_version(session, actor, Activity.SNAPSHOT, summary, parent=parent)
    return summary


def log_version(
    session: Session, actor: User | None, action: Activity, summary: VersionSummary, **details: Any
) -> None:
    """The activity entry of a version made (snapshot, build, import), with its counts."""
    activity.record(
        session,
        actor,
        action,
        summary.name,
        None,
        {**details, "languages": summary.languages, "patterns": summary.patterns},
    )


def import_release(
    session: Session,
    source: Source,
    name: str,
    progress: bool = False,
    tally: InvisibleTally | None = None,
    actor: User | None = None,
) -> VersionSummary:
    """Load a release in mParaRel layout (patterns/ and tuples/; an --hf export's hf/ is skipped)
    as a new version, read through the one release reader (`curator.core.formats.release`).

    Every character is kept as the files hold it, so exporting the version again gives the same
    patterns and tuples files byte for byte; invisible characters (core/text.py) are counted
    into `tally` per file (its path in the release) for the summary."""
    files = release_files(source)
    refuse_duplicates(
        source,
        [((f.kind, languages.canonical(f.language), f.relation), f.path) for f in files],
        "kind, language and relation",
    )
    rules = recorded_rules(source)
    version = new_version(
        session, name, VersionKind.IMPORT, source=source.location, params={"rules": rules} if rules else {}
    )
    ensure_languages(session, {languages.canonical(f.language) for f in files})
    ensure_relations(session, {f.relation for f in files})
    pattern_rows = []
    seen: set[str] = set()
    for file in progress_bar(files, "release", "file", progress):
        lang, rel = languages.canonical(file.language), file.relation
        where = source.describe(file.path)
        data = source.read(file.path)
        if file.kind == TUPLES:
            form, rows = parse_tuples(data, where, tally, file.path)
            list_id = store_tuple_list(session, lang, rel, form, rows, seen)
            session.add(VersionTuples(version_id=version.id, language=lang, relation_id=rel, list_id=list_id))
            continue
        patterns = parse_patterns(data, where, tally, file.path)
        if not patterns:
            raise ReleaseError("empty file: no patterns", location=where)
        for position, row in enumerate(patterns):
            pattern_rows.append(
                dict(
                    version_id=version.id,
                    language=lang,
                    relation_id=rel,
                    position=position,
                    pattern=line_template(row, lang, where),
                    checked_by_human=row.checked_by_human,
                    template_id=None,
                )
            )
    bulk_insert(session, VersionPattern.__table__, pattern_rows)
    session.flush()
    summary = summarize(session, version)
    log_version(session, actor, Activity.IMPORT, summary, what="release", source=source.location)
    return summary


def recorded_rules(source: Source) -> Rules | None:
    """The candidate rules a curator export wrote into its manifest.json (None without one:
    the published release has no manifest); a manifest that is not JSON is an error."""
    manifest = read_manifest(source)
    rules = manifest.get("rules") if manifest else None
    if isinstance(rules, dict) and isinstance(rules.get("profile"), str) and isinstance(rules.get("keep_case"), bool):
        return Rules(profile=rules["profile"], keep_case=rules["keep_case"])
    return None


def list_versions(session: Session) -> list[VersionListing]:
    out: list[VersionListing] = []
    for version in session.scalars(select(DatasetVersion).order_by(DatasetVersion.id)):
        summary = summarize(session, version)
        out.append(
            VersionListing(
                name=summary.name,
                languages=summary.languages,
                relations=summary.relations,
                patterns=summary.patterns,
                tuple_lists=summary.tuple_lists,
                kind=version.kind,
                parent=version.parent.name if version.parent else None,
                created=version.created_at.isoformat(timespec="seconds"),
            )
        )
    return out


def language_counts(session: Session, version: DatasetVersion) -> tuple[dict[str, int], dict[str, int]]:
    """(#patterns, #phrases) per language of a version, from the database."""
    per_relation = session.execute(
        select(VersionPattern.language, VersionPattern.relation_id, func.count())
        .where(VersionPattern.version_id == version.id)
        .group_by(VersionPattern.language, VersionPattern.relation_id)
    ).all()
    sizes = {
        (lang, rel): n
        for lang, rel, n in session.execute(
            select(VersionTuples.language, VersionTuples.relation_id, TupleList.rows)
            .join(TupleList, TupleList.id == VersionTuples.list_id)
            .where(VersionTuples.version_id == version.id)
        )
    }
    patterns: dict[str, int] = {}
    phrases: dict[str, int] = {}
    for lang, rel, n in per_relation:
        patterns[lang] = patterns.get(lang, 0) + n
        phrases[lang] = phrases.get(lang, 0) + n * sizes.get((lang, rel), 0)
    return patterns, phrases

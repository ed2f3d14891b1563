"""Write a version in the published mParaRel layout, deterministically and atomically.

Same database state, same bytes: rows are ordered, JSON is written the way the
published files are, and the manifest's timestamp is the version's own. Files go to
a temporary sibling folder that is renamed into place only when complete.
"""

from __future__ import annotations

import os
import re
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from itertools import groupby
from pathlib import Path
from typing import Any, BinaryIO, TypedDict

import jinja2
import yaml
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from curator.core import annotated, languages
from curator.core.enums import Activity
from curator.core.errors import Conflict, InputError
from curator.core.extras import require_extra
from curator.core.formats.atomic import atomic_directory
from curator.core.formats.release import HF, pattern_path
from curator.core.formats.release_writer import ReleaseWriter
from curator.core.models import (
    DatasetVersion,
    EntityClass,
    EntityGender,
    Tuple,
    User,
    VersionPattern,
    VersionTuples,
)
from curator.core.progress import progress_bar
from curator.ingest.profiles import PROFILES
from curator.release.public_names import public_names, public_params
from curator.release.stats import StatsSummary, dataset_stats
from curator.release.versions import Rules, check_version_name, get_version, version_rules
from curator.review import activity


class Counts(TypedDict):
    languages: int
    pattern_files: int
    tuple_files: int
    phrases: int


class Manifest(TypedDict):
    """manifest.json as `release export` writes it (a manifest read back is plain JSON)."""

    name: str
    parent: str | None
    kind: str
    created: str  # ISO time, to the second
    policy: str | None  # the merge policy of a reviewed version
    rules: Rules | None
    params: dict[str, Any]  # the version's other parameters
    review: dict[str, Any] | None  # the review summary of a reviewed version
    source: str | None
    counts: Counts
    statistics: StatsSummary
    files: dict[str, str]  # relative path -> sha256


def write_release(
    session: Session, version: DatasetVersion, writer: ReleaseWriter, progress: bool = False
) -> dict[str, str]:
    """The version's patterns and tuples files through `writer`; returns {relative path: sha256}.
    With an annotated template (`annotated.accepts`), also genders.tsv and instanceof.tsv: the
    stored gender and classes of the entities of those relations, so that a probe of the folder
    fills them as the version is filled here (`entity_files`). `progress`: bars on stderr."""
    patterns = session.scalars(
        select(VersionPattern)
        .where(VersionPattern.version_id == version.id)
        .order_by(VersionPattern.language, VersionPattern.relation_id, VersionPattern.position)
    )
    groups = groupby(patterns, key=lambda p: (p.language, p.relation_id))
    files = None  # the bar's total: one query, only for the bar
    if progress:
        pairs = select(VersionPattern.language, VersionPattern.relation_id).where(
            VersionPattern.version_id == version.id
        )
        files = session.scalar(select(func.count()).select_from(pairs.distinct().subquery()))
    agreeing: set[tuple[str, str]] = set()  # relations with an annotated template
    for (lang, rel), group in progress_bar(groups, "export patterns", "file", progress, total=files):
        rows = [(p.pattern, p.checked_by_human) for p in group]
        if any(annotated.accepts(text, lang) for text, _ in rows):
            agreeing.add((lang, rel))
        writer.write_patterns(lang, rel, rows)
    entities: set[str] = set()
    lists = session.execute(
        select(VersionTuples.language, VersionTuples.relation_id, VersionTuples.list_id)
        .where(VersionTuples.version_id == version.id)
        .order_by(VersionTuples.language, VersionTuples.relation_id)
    ).all()
    for lang, rel, list_id in progress_bar(lists, "export tuples", "file", progress):
        # the row's values in TUPLE_KEYS order, the line id falling back to the position
        found = (
            session.connection()
            .execute(
                select(
                    Tuple.sub_qid,
                    Tuple.obj_qid,
                    Tuple.obj_label,
                    Tuple.sub_label,
                    func.coalesce(Tuple.lineid, Tuple.position),
                )
                .where(Tuple.list_id == list_id, Tuple.from_english.is_(False))
                .order_by(Tuple.position)
            )
            .all()
        )
        if (lang, rel) in agreeing:
            entities.update(qid for s, o, *_ in found for qid in (s, o))
        writer.write_tuples(lang, rel, found)
    if agreeing:
        writer.write_entities(*entity_files(session, entities))
    return dict(writer.digests)


def entity_files(session: Session, ids: set[str]) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """The stored gender ({id: male|female|none}) and classes ({id: {class id: label}}) of `ids`."""
    wanted = sorted(ids)
    genders: dict[str, str] = {}
    classes: dict[str, dict[str, str]] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        genders.update(
            session.execute(select(EntityGender.qid, EntityGender.gender).where(EntityGender.qid.in_(chunk))).all()
        )
        rows = session.execute(
            select(EntityClass.qid, EntityClass.class_qid, EntityClass.label).where(EntityClass.qid.in_(chunk))
        )
        for qid, class_qid, label in rows:
            classes.setdefault(qid, {})[class_qid] = label
    return genders, classes


def manifest(
    version: DatasetVersion, digests: dict[str, str], stats: StatsSummary, names: Mapping[str, str] | None = None
) -> Manifest:
    """manifest.json of `version`; `names` (release/public_names.py: e-mail -> public name) names
    maintainers in resolutions and dropped lines even where an older version's params hold addresses."""
    params = public_params(dict(version.params or {}), names or {})
    review = params.pop("review", None)
    params.pop("rules", None)  # an import's recorded rules: written once, as "rules" below
    return Manifest(
        name=version.name,
        parent=version.parent.name if version.parent else None,
        kind=version.kind,
        created=version.created_at.isoformat(timespec="seconds"),
        policy=params.get("policy"),
        rules=version_rules(version),
        params=params,
        review=review,
        source=version.source,
        counts=Counts(
            languages=len(stats["languages"]),
            pattern_files=sum(p.startswith("patterns/") for p in digests),
            tuple_files=sum(p.startswith("tuples/") for p in digests),
            phrases=sum(stats["phrases_per_language"].values()),
        ),
        statistics=stats,
        files=dict(sorted(digests.items())),
    )


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def _cell(value: object) -> str:
    """A Markdown table cell: a `|` or a line break in the value cannot end the cell or the row."""
    return re.sub(r"\s*[\r\n]+\s*", " ", str(value)).replace("|", "\\|")


# The card's Markdown is written from templates shipped with the package (release/templates);
# autoescape is off (Markdown, not HTML): the values are made safe where they land instead —
# the YAML header by yaml.safe_dump, table cells by `cell`.
CARDS = jinja2.Environment(
    loader=jinja2.PackageLoader("curator.release", "templates"),
    autoescape=False,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
CARDS.filters.update(pct=_pct, cell=_cell, fmt=format)


def review_section(
    review: Mapping[str, Any] | None,
    policy: str | None,
    proposals: Mapping[str, int] | None = None,
    rule: int | None = None,
    policies: Mapping[str, str] | None = None,
) -> list[str]:
    """The "Human review" section's lines (a blank line first), or none without reviews;
    `proposals`: how the version's proposals were confirmed (merge.proposal_counts); `rule` and
    `policies`: the version of the rule for what ships and each language's policy (params)."""
    text = CARDS.get_template("review.md.j2").render(
        review=review, policy=policy, proposals=proposals, rule=rule, policies=policies
    )
    return text.splitlines()


def hf_front_matter() -> str:
    """The YAML header the Hugging Face hub reads: `datasets.load_dataset(path, "patterns")`."""
    configs = [{"config_name": kind, "data_files": f"{HF}/{kind}.parquet"} for kind in ("patterns", "tuples")]
    return yaml.safe_dump({"configs": configs}, sort_keys=False, allow_unicode=True, default_flow_style=False)


def dataset_card(info: Manifest, hf: bool = False) -> str:
    """README.md of an exported version, from release/templates/card.md.j2."""
    stats = info["statistics"]
    rules = info.get("rules")
    profile = PROFILES.get(rules["profile"]) if rules else None
    return CARDS.get_template("card.md.j2").render(
        front_matter=hf_front_matter() if hf else "",
        hf=HF if hf else "",
        name=info["name"],
        kind=info["kind"],
        created=info["created"],
        parent=info["parent"],
        rules=rules,
        profile_description=profile.description if profile else "unknown",
        stats=stats,
        phrases=[(code, languages.name(code), n) for code, n in sorted(stats["phrases_per_language"].items())],
        review=info.get("review"),
        policy=info.get("policy"),
        # issue 28 §2: maintainers' resolutions and dropped lines (release/templates/adjudication.md.j2)
        resolutions=(info.get("params") or {}).get("resolutions", []),
        line_drops=(info.get("params") or {}).get("line_drops", []),
        # the reviewers' reasons with their standing rejects and unsures (none before versions recorded them)
        reviewer_reasons=(info.get("params") or {}).get("reviewer_reasons", []),
        proposals=(info.get("params") or {}).get("proposals"),
        rule=(info.get("params") or {}).get("rule"),
        policies=(info.get("params") or {}).get("policies"),
    )


def export_version(
    session: Session,
    name: str,
    out: str | os.PathLike[str],
    force: bool = False,
    hf: bool = False,
    progress: bool = False,
    warn: Callable[[str], None] | None = None,
) -> Manifest:
    """Write version `name` to `out` atomically (`atomic_directory`: a failure leaves `out` absent
    or as it was; `force` replaces an existing `out`); returns the manifest. `progress`: bars on stderr.
    `warn`: told one line per pattern that two lines of a relation share (both are written: an
    annotated template whose plain form is a sibling's; mParaRel's code keys predictions by it)."""
    if hf:  # before anything is written
        require_extra("hf", "release export --hf (Parquet)")
    version = get_version(session, name)
    target = Path(out).resolve()
    if target.exists() and not force:
        raise Conflict(f"{target}: already exists (use --force to replace it)")
    with atomic_directory(target, replace=force) as staging:
        writer = ReleaseWriter(staging)
        digests = write_release(session, version, writer, progress)
        if not digests:
            raise Conflict(f"version {name!r} has no patterns or tuples to export")
        for language, relation, pattern in writer.shared:
            if warn is not None:
                warn(
                    f"warning: {pattern_path(language, relation)}: two lines share the pattern {pattern!r} (an annotated "
                    "template's plain form equals another template; mParaRel's code keys predictions by this text: "
                    "keep one of them, see `curator signals gender-pairs`)"
                )
        stats = dataset_stats(staging, invisible=False).to_dict()
        if hf:
            writer.write_hf()
        info = manifest(version, writer.digests, stats, public_names(session))
        writer.write_manifest(info)
        writer.write_card(dataset_card(info, hf))
    return info


def log_export(session: Session, actor: User | None, info: Manifest, details: dict[str, Any]) -> None:
    """The activity entry of an export (`release export`, the browser's download), written by the
    caller in a short unit of work of its own once the files exist: an export reads and may take
    seconds, and holding the one writer lock that long would stall every reviewer."""
    activity.record(session, actor, Activity.EXPORT, info["name"], None, {**details, "counts": dict(info["counts"])})


def zip_entries(root: Path, prefix: str) -> list[tuple[str, Path]]:
    """(name in the zip, file) of every file under `root`, sorted, each name under `prefix/`."""
    return [(f"{prefix}/{p.relative_to(root).as_posix()}", p) for p in sorted(root.rglob("*")) if p.is_file()]


def zip_stamp(version: DatasetVersion) -> tuple[int, int, int, int, int, int]:
    """The date every entry of the version's zip carries: its own creation time (the zip format starts in 1980)."""
    year, month, day, hour, minute, second = version.created_at.timetuple()[:6]
    return (max(year, 1980), month, day, hour, minute, second)


def zip_prefix(name: str) -> str:
    """The folder a version's files sit under in its zip: the name when it is a valid version name (always,
    for versions made by curator), else the name with anything outside letters, digits, `.`, `_`, `-` replaced."""
    try:
        return check_version_name(name)
    except InputError:
        cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", str(name)).strip("._-")[:64].rstrip(".")
    try:
        return check_version_name(cleaned)
    except InputError:  # empty, or a name Windows reserves
        return "release"


def export_zip(session: Session, name: str, out: BinaryIO, hf: bool = False) -> Manifest:
    """Version `name` as a zip written to `out` (a binary file): `export_version` into a temporary
    folder, then every file of it under `<name>/`, in the exact mParaRel layout of `release export`
    (patterns/<lang>/<REL>.jsonl, tuples/…, manifest.json, README.md). Entries are sorted and dated
    with the version's own timestamp, so the same version gives the same bytes. Returns the manifest."""
    version = get_version(session, name)
    prefix = zip_prefix(version.name)
    with tempfile.TemporaryDirectory(prefix="curator-export-") as tmp:
        folder = Path(tmp) / "release"  # a fixed name: the version's name never becomes a path here
        info = export_version(session, version.name, folder, hf=hf)
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for arcname, path in zip_entries(folder, prefix):
                entry = zipfile.ZipInfo(arcname, date_time=zip_stamp(version))
                entry.compress_type = zipfile.ZIP_DEFLATED
                entry.external_attr = 0o644 << 16
                archive.writestr(entry, path.read_bytes())
    return info

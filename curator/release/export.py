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
from itertools import groupby
from pathlib import Path
from typing import BinaryIO

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core import languages
from curator.core.errors import Conflict, InputError
from curator.core.extras import require
from curator.core.formats.atomic import atomic_directory
from curator.core.formats.release import HF, TUPLE_KEYS, ReleaseWriter
from curator.core.models import DatasetVersion, Tuple, VersionPattern, VersionTuples
from curator.ingest.profiles import PROFILES
from curator.release.stats import dataset_stats
from curator.release.versions import check_version_name, get_version, version_rules


def write_release(session: Session, version: DatasetVersion, writer: ReleaseWriter) -> dict[str, str]:
    """The version's patterns and tuples files through `writer`; returns {relative path: sha256}."""
    patterns = session.scalars(
        select(VersionPattern)
        .where(VersionPattern.version_id == version.id)
        .order_by(VersionPattern.language, VersionPattern.relation_id, VersionPattern.position)
    )
    for (lang, rel), group in groupby(patterns, key=lambda p: (p.language, p.relation_id)):
        writer.write_patterns(lang, rel, ((p.pattern, p.checked_by_human) for p in group))
    lists = session.execute(
        select(VersionTuples.language, VersionTuples.relation_id, VersionTuples.list_id)
        .where(VersionTuples.version_id == version.id)
        .order_by(VersionTuples.language, VersionTuples.relation_id)
    ).all()
    for lang, rel, list_id in lists:
        rows = session.execute(
            select(Tuple.sub_qid, Tuple.obj_qid, Tuple.obj_label, Tuple.sub_label, Tuple.lineid, Tuple.position)
            .where(Tuple.list_id == list_id, Tuple.from_english.is_(False))
            .order_by(Tuple.position)
        )
        writer.write_tuples(
            lang,
            rel,
            (
                dict(zip(TUPLE_KEYS, (s, o, ol, sl, position if lineid is None else lineid)))
                for s, o, ol, sl, lineid, position in rows
            ),
        )
    return dict(writer.digests)


def manifest(version: DatasetVersion, digests: dict[str, str], stats: dict) -> dict:
    params = dict(version.params or {})
    review = params.pop("review", None)
    params.pop("rules", None)  # an import's recorded rules: written once, as "rules" below
    return {
        "name": version.name,
        "parent": version.parent.name if version.parent else None,
        "kind": version.kind,
        "created": version.created_at.isoformat(timespec="seconds"),
        "policy": params.get("policy"),
        "rules": version_rules(version),
        "params": params,
        "review": review,
        "source": version.source,
        "counts": {
            "languages": len(stats["languages"]),
            "pattern_files": sum(p.startswith("patterns/") for p in digests),
            "tuple_files": sum(p.startswith("tuples/") for p in digests),
            "phrases": sum(stats["phrases_per_language"].values()),
        },
        "statistics": stats,
        "files": dict(sorted(digests.items())),
    }


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def review_section(review: dict | None, policy: str | None) -> list[str]:
    if not review or not review.get("languages"):
        return []
    lines = [
        "",
        "## Human review",
        "",
        f"Reviews applied with the `{policy}` merge policy. Across languages with reviews,"
        f" {_pct(review['rejected_share_mean'])} ± {_pct(review['rejected_share_sd'])} of the reviewed"
        f" templates were wrong (rejected) and {_pct(review['amended_share_mean'])} ±"
        f" {_pct(review['amended_share_sd'])} were amended.",
        "",
        "| language | reviewers | reviewed | accepted | amended | rejected | suggestions | median s | agreement | kappa |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in review["languages"]:
        kappa = "–" if r["kappa"] is None else f"{r['kappa']:.2f}"
        lines.append(
            f"| {r['language']} | {r['reviewers']} | {r['done']} | {_pct(r['accepted_share'])} |"
            f" {_pct(r['amended_share'])} | {_pct(r['rejected_share'])} | {r['suggestions']} |"
            f" {r['median_seconds'] if r['median_seconds'] is not None else '–'} |"
            f" {_pct(r['agreement'])} | {kappa} |"
        )
    return lines


def rules_section(rules: dict | None) -> list[str]:
    if rules is None:
        return [
            "",
            "## Candidate rules",
            "",
            "Imported release: the rules its candidates were made with are not known.",
        ]
    profile = PROFILES.get(rules["profile"])
    case = (
        "words keep their case (votes on a case-folded key, the most frequent cased form kept)"
        if rules["keep_case"]
        else "templates are lower-cased except the placeholders, as in mParaRel"
    )
    return [
        "",
        "## Candidate rules",
        "",
        f"Rule profile `{rules['profile']}`: {profile.description if profile else 'unknown'}; {case}.",
    ]


def dataset_card(info: dict, hf: bool = False) -> str:
    stats = info["statistics"]
    front = []
    if hf:  # the Hugging Face hub reads this header: `datasets.load_dataset(path, "patterns")`
        front = [
            "---",
            "configs:",
            "- config_name: patterns",
            f"  data_files: {HF}/patterns.parquet",
            "- config_name: tuples",
            f"  data_files: {HF}/tuples.parquet",
            "---",
            "",
        ]
    lines = front + [
        f"# mParaRel-style dataset — version {info['name']}",
        "",
        f"Built by curator ({info['kind']} version, created {info['created']}"
        + (f", parent version {info['parent']}" if info["parent"] else "")
        + ").",
        "",
        "## Layout",
        '- `patterns/<lang>/<REL>.jsonl`: one template per line, `{"pattern": ..., "checked-by-human": bool}`;'
        " `[X]` is the subject slot and `[Y]` the object slot.",
        '- `tuples/<lang>/<REL>.jsonl`: `{"sub_uri", "obj_uri", "obj_label", "sub_label", "lineid"}`'
        " with Wikidata ids and labels in that language.",
        "- `manifest.json`: version, parent, counts and the sha256 of every file.",
        *(
            [
                f"- `{HF}/patterns.parquet`, `{HF}/tuples.parquet`: the same data as two flat tables (columns"
                " `language`, `relation`, then the fields above; `checked-by-human` is `checked_by_human`), the"
                " `patterns` and `tuples` configs of the header; `.jsonl` files beside them hold the same rows."
            ]
            if hf
            else []
        ),
        "",
        "## Sources",
        "- English paraphrases: ParaRel (Elazar et al., 2021), MIT licence.",
        "- Templates: machine translations of ParaRel by several systems, kept when systems agree"
        " (mParaRel, Fierro & Søgaard, 2022), optionally reviewed by native speakers.",
        "- Subjects and objects: T-REx / Wikidata labels (CC0 / CC BY-SA as their sources state).",
        *rules_section(info.get("rules")),
        "",
        "## Statistics",
        f"- languages: {len(stats['languages'])}",
        f"- average relations per language: {stats['avg_relations']:.2f}",
        f"- average patterns per language: {stats['avg_total_patterns']:.2f}",
        f"- patterns per relation: min {stats['min_patterns_in_relation']}, max {stats['max_patterns_in_relation']},"
        f" average {stats['avg_patterns_in_relation']:.2f}",
        f"- average string distance between templates of a relation: {stats['avg_string_distance']:.2f}",
        "",
        "| language | name | phrases |",
        "| --- | --- | ---: |",
    ]
    lines += [f"| {lang} | {languages.name(lang)} | {n} |" for lang, n in sorted(stats["phrases_per_language"].items())]
    lines += review_section(info.get("review"), info.get("policy"))
    lines += [
        "",
        "## Licence",
        "",
        "ParaRel patterns: MIT. Machine translations: produced for mParaRel from ParaRel. Wikidata labels: CC0."
        " Reviewed templates: contributed by the volunteer reviewers under the dataset's licence.",
    ]
    return "\n".join(lines) + "\n"


def export_version(session: Session, name: str, out: str | os.PathLike, force: bool = False, hf: bool = False) -> dict:
    """Write version `name` to `out` atomically (`atomic_directory`: a failure leaves `out` absent
    or as it was; `force` replaces an existing `out`); returns the manifest."""
    if hf:  # before anything is written
        require("hf", "release export --hf (Parquet)")
    version = get_version(session, name)
    target = Path(out).resolve()
    if target.exists() and not force:
        raise Conflict(f"{target}: already exists (use --force to replace it)")
    with atomic_directory(target, replace=force) as staging:
        writer = ReleaseWriter(staging)
        digests = write_release(session, version, writer)
        if not digests:
            raise Conflict(f"version {name!r} has no patterns or tuples to export")
        stats = dataset_stats(staging, invisible=False).to_dict()
        if hf:
            writer.write_hf()
        info = manifest(version, writer.digests, stats)
        writer.write_manifest(info)
        writer.write_card(dataset_card(info, hf))
    return info


def zip_entries(root: Path, prefix: str) -> list[tuple[str, Path]]:
    """(name in the zip, file) of every file under `root`, sorted, each name under `prefix/`."""
    return [(f"{prefix}/{p.relative_to(root).as_posix()}", p) for p in sorted(root.rglob("*")) if p.is_file()]


def zip_stamp(version: DatasetVersion) -> tuple[int, int, int, int, int, int]:
    """The date every entry of the version's zip carries: its own creation time (the zip format starts in 1980)."""
    stamp = version.created_at.timetuple()[:6]
    return (max(stamp[0], 1980),) + tuple(stamp[1:])


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


def export_zip(session: Session, name: str, out: BinaryIO, hf: bool = False) -> dict:
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

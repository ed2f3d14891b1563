"""Write a version in the published mParaRel layout, deterministically and atomically.

Same database state, same bytes: rows are ordered, JSON is written the way the
published files are, and the manifest's timestamp is the version's own. Files go to
a temporary sibling folder that is renamed into place only when complete.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from itertools import groupby
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core import languages
from curator.core.errors import Conflict
from curator.ingest.profiles import PROFILES
from curator.core.models import DatasetVersion, Tuple, VersionPattern, VersionTuples
from curator.release.stats import dataset_stats
from curator.release.versions import get_version, version_rules

TUPLE_KEYS = ("sub_uri", "obj_uri", "obj_label", "sub_label", "lineid")


def _write_jsonl(path: Path, records: list[dict]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def write_release(session: Session, version: DatasetVersion, root: Path) -> dict[str, str]:
    """The release files under `root`; returns {relative path: sha256}."""
    digests: dict[str, str] = {}
    patterns = session.scalars(select(VersionPattern).where(VersionPattern.version_id == version.id)
                               .order_by(VersionPattern.language, VersionPattern.relation_id,
                                         VersionPattern.position))
    for (lang, rel), group in groupby(patterns, key=lambda p: (p.language, p.relation_id)):
        rel_path = f"patterns/{lang}/{rel}.jsonl"
        digests[rel_path] = _write_jsonl(root / rel_path, [{"pattern": p.pattern, "checked-by-human": p.checked_by_human}
                                                            for p in group])
    lists = session.execute(select(VersionTuples.language, VersionTuples.relation_id, VersionTuples.list_id)
                            .where(VersionTuples.version_id == version.id)
                            .order_by(VersionTuples.language, VersionTuples.relation_id)).all()
    for lang, rel, list_id in lists:
        rows = session.execute(select(Tuple.sub_qid, Tuple.obj_qid, Tuple.obj_label, Tuple.sub_label, Tuple.lineid,
                                      Tuple.position)
                               .where(Tuple.list_id == list_id, Tuple.from_english.is_(False))
                               .order_by(Tuple.position))
        rel_path = f"tuples/{lang}/{rel}.jsonl"
        digests[rel_path] = _write_jsonl(root / rel_path, [
            dict(zip(TUPLE_KEYS, (s, o, ol, sl, position if lineid is None else lineid)))
            for s, o, ol, sl, lineid, position in rows])
    return digests


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
    lines = ["", "## Human review", "",
             f"Reviews applied with the `{policy}` merge policy. Across languages with reviews,"
             f" {_pct(review['rejected_share_mean'])} ± {_pct(review['rejected_share_sd'])} of the reviewed"
             f" templates were wrong (rejected) and {_pct(review['amended_share_mean'])} ±"
             f" {_pct(review['amended_share_sd'])} were amended.", "",
             "| language | reviewers | reviewed | accepted | amended | rejected | suggestions | median s | agreement | kappa |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in review["languages"]:
        kappa = "–" if r["kappa"] is None else f"{r['kappa']:.2f}"
        lines.append(f"| {r['language']} | {r['reviewers']} | {r['done']} | {_pct(r['accepted_share'])} |"
                     f" {_pct(r['amended_share'])} | {_pct(r['rejected_share'])} | {r['suggestions']} |"
                     f" {r['median_seconds'] if r['median_seconds'] is not None else '–'} |"
                     f" {_pct(r['agreement'])} | {kappa} |")
    return lines


def rules_section(rules: dict | None) -> list[str]:
    if rules is None:
        return ["", "## Candidate rules", "", "Imported release: the rules its candidates were made with are not known."]
    profile = PROFILES.get(rules["profile"])
    case = ("words keep their case (votes on a case-folded key, the most frequent cased form kept)"
            if rules["keep_case"] else "templates are lower-cased except the placeholders, as in mParaRel")
    return ["", "## Candidate rules", "",
            f"Rule profile `{rules['profile']}`: {profile.description if profile else 'unknown'}; {case}."]


def dataset_card(info: dict, hf: bool = False) -> str:
    stats = info["statistics"]
    front = []
    if hf:  # the Hugging Face hub reads this header: `datasets.load_dataset(path, "patterns")`
        front = ["---", "configs:", "- config_name: patterns", "  data_files: hf/patterns.jsonl",
                 "- config_name: tuples", "  data_files: hf/tuples.jsonl", "---", ""]
    lines = front + [
        f"# mParaRel-style dataset — version {info['name']}",
        "",
        f"Built by curator ({info['kind']} version, created {info['created']}"
        + (f", parent version {info['parent']}" if info["parent"] else "") + ").",
        "",
        "## Layout",
        "- `patterns/<lang>/<REL>.jsonl`: one template per line, `{\"pattern\": ..., \"checked-by-human\": bool}`;"
        " `[X]` is the subject slot and `[Y]` the object slot.",
        "- `tuples/<lang>/<REL>.jsonl`: `{\"sub_uri\", \"obj_uri\", \"obj_label\", \"sub_label\", \"lineid\"}`"
        " with Wikidata ids and labels in that language.",
        "- `manifest.json`: version, parent, counts and the sha256 of every file.",
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
    lines += ["", "## Licence", "",
              "ParaRel patterns: MIT. Machine translations: produced for mParaRel from ParaRel. Wikidata labels: CC0."
              " Reviewed templates: contributed by the volunteer reviewers under the dataset's licence."]
    return "\n".join(lines) + "\n"


def write_hf(root: Path) -> dict[str, str]:
    """The same data as two flat JSONL files that `datasets.load_dataset("json", …)` reads."""
    out: dict[str, str] = {}
    for kind in ("patterns", "tuples"):
        records = []
        for path in sorted((root / kind).glob("*/*.jsonl")):
            lang, rel = path.parent.name, path.stem
            for line in path.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                if kind == "patterns":
                    row = {"pattern": row["pattern"], "checked_by_human": row["checked-by-human"]}
                records.append({"language": lang, "relation": rel, **row})
        out[f"hf/{kind}.jsonl"] = _write_jsonl(root / "hf" / f"{kind}.jsonl", records)
    return out


def export_version(session: Session, name: str, out: str | os.PathLike, force: bool = False, hf: bool = False) -> dict:
    """Write version `name` to `out` atomically; returns the manifest."""
    version = get_version(session, name)
    target = Path(out).resolve()
    if target.exists() and not force:
        raise Conflict(f"{target}: already exists (use --force to replace it)")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    os.chmod(staging, 0o755)
    try:
        digests = write_release(session, version, staging)
        if not digests:
            raise Conflict(f"version {name!r} has no patterns or tuples to export")
        stats = dataset_stats(staging).to_dict()
        if hf:
            digests.update(write_hf(staging))
        info = manifest(version, digests, stats)
        (staging / "manifest.json").write_text(json.dumps(info, indent=2, ensure_ascii=False, sort_keys=False) + "\n",
                                               encoding="utf-8")
        (staging / "README.md").write_text(dataset_card(info, hf), encoding="utf-8")
        if target.exists():
            old = target.with_name(f".{target.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(target, old)
            os.replace(staging, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return info

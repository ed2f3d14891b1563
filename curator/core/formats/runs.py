"""Read probe runs into one in-memory shape, whatever wrote them.

A run is a folder of `<lang>/<REL>.json` files. Ours (written by `curator probe`) pair each
JSON index with a `.npz` of rankings; the published mParaRel code writes one JSON per
relation mapping "subject-object" to `[[template, prediction, rank], ...]` with the gold
object's rank as a string ("0" = correct). Both load into `RelationPredictions`, so every
metric is computed by the same code whichever format the predictions came in.

Writing: `save_relation` (arrays, then index, each atomically) and `write_run_info`
(run.json) are the only writers; a writer holds `run_lock` (the file `.lock` in the run
folder, a `filelock` lock released by the system if the process dies) for as long as it
writes, so two `curator probe` processes never interleave their files in one folder.
Readers take no lock: every file is replaced whole, so they see old or new, never half.

The in-memory shape and its errors are in predictions.py (imported from here too); the
published format's reader in mpararel_predictions.py.

Nothing inside a run may be a symbolic link: a language folder, prediction file or run.json
that links elsewhere would make a reader (the CLI, the web app's probe pages) read a file
outside the run. `check_links` refuses a run holding any link (`relation_files`, the listing
every reader of predictions starts from, and the web app's `resolve_run` call it), and each
file is opened through `_open`, which refuses a link as the file (O_NOFOLLOW: no window
between the check and the open) or as its language folder. The run folder itself may be a
link on the command line (the path a user types is theirs); the web app only serves one that
resolves inside its runs folder (run_catalog.py).
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from curator.core.errors import Conflict
from curator.core.formats.atomic import atomic_directory, atomic_write
from curator.core.formats.mpararel_predictions import load_mpararel
from curator.core.formats.predictions import RankingMissing as RankingMissing
from curator.core.formats.predictions import RelationPredictions as RelationPredictions
from curator.core.formats.predictions import RunError as RunError

FORMAT = 1
RUN_INFO = "run.json"
LOCK_FILE = ".lock"


class RunInUse(Conflict):
    """Another process holds the run folder's lock (it is writing the run)."""


@contextmanager
def run_lock(run: str | Path, wait: float | None = 0) -> Iterator[Path]:
    """Hold the run folder's write lock (`<run>/.lock`, created with the folder if needed).

    `wait` is how many seconds to wait for another holder: 0 (the default) fails at once with
    RunInUse, None waits as long as it takes. The lock is an OS file lock (flock): it goes when
    the holder exits, even after a crash, so a left-over `.lock` file never blocks anyone."""
    from filelock import FileLock, Timeout

    run = Path(run)
    run.mkdir(parents=True, exist_ok=True)
    lock = FileLock(run / LOCK_FILE)
    try:
        lock.acquire(timeout=-1 if wait is None else wait)
    except Timeout:
        raise RunInUse(
            f"{run}: in use, another `curator probe` is writing this run folder (lock {run / LOCK_FILE});"
            " wait for it to finish or give another --out"
        ) from None
    try:
        yield run
    finally:
        lock.release()


LINK_REFUSED = "is a symbolic link; links inside a run are refused, so nothing outside the run is read"


def _link_error(path: Path) -> RunError:
    return RunError(f"{path}: {LINK_REFUSED}")


def check_links(run: str | Path) -> None:
    """Refuse a run holding a symbolic link anywhere inside it (files and folders, at any depth).
    `os.scandir` reports links without following them and without a stat per entry, so this
    costs one directory read per folder (a run has its own and one per language)."""
    folders = [Path(run)]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in sorted(entries, key=lambda e: e.name):
                    if entry.is_symlink():
                        raise _link_error(Path(entry.path))
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(Path(entry.path))
        except OSError as exc:
            raise RunError(f"{folder}: cannot be read ({exc.strerror or exc})") from None


def _open(path: Path, in_language_folder: bool = True) -> BinaryIO:
    """`path` opened for reading, refused (RunError) when it or, for a prediction file, its
    language folder is a symbolic link. The file is opened with O_NOFOLLOW where the system
    has it, so a link planted after a check is refused too."""
    if path.is_symlink() or (in_language_folder and path.parent.is_symlink()):
        raise _link_error(path if path.is_symlink() else path.parent)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        if path.is_symlink():  # ELOOP: it became a link after the check above
            raise _link_error(path) from None
        raise RunError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return os.fdopen(fd, "rb")


def _read_bytes(path: Path, in_language_folder: bool = True) -> bytes:
    """The whole file, through `_open` (links refused)."""
    with _open(path, in_language_folder) as fh:
        try:
            return fh.read()
        except OSError as exc:
            raise RunError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def is_run(path: str | Path) -> bool:
    """A run folder: run.json, or a language folder of predictions. A folder of runs (the
    `curator probe --model A --model B` layout, `<model>/run.json`) is not one."""
    path = Path(path)
    return path.is_dir() and ((path / RUN_INFO).exists() or any(p.name != RUN_INFO for p in path.glob("*/*.json")))


def _read_json(path: Path, in_language_folder: bool = True) -> Any:  # whatever JSON the file holds
    data = _read_bytes(path, in_language_folder)
    try:
        return json.loads(data.decode("utf-8"))
    except json.JSONDecodeError as exc:
        raise RunError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise RunError(f"{path}: cannot be read ({exc})") from None


def run_info(path: str | Path) -> dict[str, Any]:
    """run.json of one of our runs; a minimal stand-in for an imported or foreign one."""
    path = Path(path)
    info_file = path / RUN_INFO
    if info_file.exists() or info_file.is_symlink():
        info = _read_json(info_file, in_language_folder=False)
        if not isinstance(info, dict):
            raise RunError(f"{info_file}: expected a JSON object")
        return info
    return {"model": None, "release": None, "format": "mpararel"}


def write_run_info(run: str | Path, info: Mapping[str, Any]) -> None:
    """run.json, atomically."""
    atomic_write(Path(run) / RUN_INFO, json.dumps(info, indent=2, ensure_ascii=False).encode("utf-8"))


def read_stored(run: str | Path, language: str, relation: str) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
    """(index, arrays) of one relation as `save_relation` stored it, None when it is not (yet)
    complete; the probe runner resumes from this."""
    index_file = Path(run) / language / f"{relation}.json"
    arrays_file = index_file.with_suffix(".npz")
    if not (index_file.exists() and arrays_file.exists()):
        return None
    index = _read_json(index_file)
    if not isinstance(index, dict):
        raise RunError(f"{index_file}: expected a JSON object")
    with _open(arrays_file) as fh:  # a link is refused here, not reported as a damaged file
        try:
            with np.load(fh) as npz:
                return index, {k: npz[k] for k in npz.files}
        except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
            raise RunError(f"{arrays_file}: damaged ({exc})") from None


def _load_ours(index_file: Path, index: dict[str, Any], with_ranking: bool) -> RelationPredictions:
    arrays_file = index_file.with_suffix(".npz")
    if not arrays_file.exists():
        raise RunError(f"{arrays_file}: missing (its index {index_file.name} exists)")
    with _open(arrays_file) as fh:  # a link is refused here, not reported as a damaged file
        try:
            return _read_ours(index, arrays_file, fh, with_ranking)
        except (zipfile.BadZipFile, ValueError, KeyError, OSError, EOFError) as exc:
            raise RunError(f"{arrays_file}: does not match its index {index_file.name} or is damaged ({exc})") from None


def _read_ours(index: dict[str, Any], arrays_file: Path, fh: BinaryIO, with_ranking: bool) -> RelationPredictions:
    T, D = len(index["templates"]), len(index["subjects"])
    with np.load(fh) as npz:
        missing = {"predicted", "gold"} - set(npz.files)
        if missing:
            raise RunError(f"{arrays_file}: no column {sorted(missing)[0]!r}")
        predicted = npz["predicted"].reshape(T, D)
        gold = npz["gold"][:D] if T else np.zeros(D, dtype=np.int32)
        ranking = None
        if with_ranking and "ranking" in npz.files:
            columns = npz["ranking"]
            ranking = columns.reshape(T, D, columns.shape[1] if columns.ndim == 2 else 0)
        if ranking is not None and ranking.shape[2] == 0:
            ranking = None
        gold_rank = npz["gold_rank"].reshape(T, D) if "gold_rank" in npz.files else None
    return RelationPredictions(
        index["language"],
        index["relation"],
        index["templates"],
        [tuple(s) for s in index["subjects"]],
        index["objects"],
        [tuple(c) for c in index["candidates"]],
        predicted,
        gold_rank == 0 if gold_rank is not None else predicted == gold[None, :],
        gold.astype(np.int32),
        ranking,
        gold_rank,
    )


def load_relation(path: str | Path, with_ranking: bool = True) -> RelationPredictions:
    path = Path(path)
    raw = _read_bytes(path)
    try:
        data = json.loads(raw.decode("utf-8"))
    except json.JSONDecodeError as exc:
        raise RunError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except UnicodeDecodeError:
        raise RunError(f"{path}: not UTF-8 text") from None
    language, relation = path.parent.name, path.stem
    if isinstance(data, dict) and "templates" in data and "candidates" in data and "format" in data:
        for field in ("language", "relation", "subjects", "objects"):
            if field not in data:
                raise RunError(f"{path}: no field {field!r}")
        return _load_ours(path, data, with_ranking)
    return load_mpararel(path, data, language, relation)


def save_relation(run: str | Path, rel: RelationPredictions, index_extra: Mapping[str, object] | None = None) -> None:
    """Write in our format (arrays first, index last, each atomically), rankings only when known;
    `index_extra` adds fields to the index (the probe runner's input digest and options key)."""
    folder = Path(run) / rel.language
    folder.mkdir(parents=True, exist_ok=True)
    T, D = rel.shape
    gold_rank = rel.gold_rank if rel.gold_rank is not None else np.where(rel.correct, 0, -1)
    ranking = rel.ranking if rel.ranking is not None else np.zeros((T, D, 0), dtype=np.int32)
    buffer = io.BytesIO()
    np.savez_compressed(
        buffer,
        template=np.repeat(np.arange(T, dtype=np.int32), D),
        tuple=np.tile(np.arange(D, dtype=np.int32), T),
        predicted=rel.predicted.reshape(-1),
        gold=np.tile(rel.gold, T),
        gold_rank=gold_rank.reshape(-1).astype(np.int32),
        ranking=ranking.reshape(T * D, ranking.shape[2] if ranking.ndim == 3 else 0).astype(np.int32),
    )
    atomic_write(folder / f"{rel.relation}.npz", buffer.getvalue())
    index = {
        "format": FORMAT,
        "language": rel.language,
        "relation": rel.relation,
        "templates": rel.templates,
        "subjects": [list(s) for s in rel.subjects],
        "objects": rel.objects,
        "candidates": [list(c) for c in rel.candidates],
        **(index_extra or {}),
    }
    atomic_write(folder / f"{rel.relation}.json", json.dumps(index, ensure_ascii=False).encode("utf-8"))


def import_mpararel(src: str | Path, out: str | Path) -> int:
    """Convert a folder of mParaRel-format predictions (<lang>/<REL>.json) into a run; returns relations."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise RunError(f"{out}: exists and is not empty; give a new folder")
    with atomic_directory(out, replace=True) as work:  # replaces only the empty folder checked above
        count = 0
        for rel in iter_relations(src):
            save_relation(work, rel)
            count += 1
        write_run_info(
            work,
            {"format": "imported", "source": str(src), "source_format": "mpararel", "model": None, "release": None},
        )
    return count


def relation_files(
    run: str | Path, languages: list[str] | None = None, relations: list[str] | None = None
) -> list[tuple[str, str]]:
    """(language, relation) of every prediction file in a run folder, sorted; a run holding a
    symbolic link is refused before any name is listed (check_links)."""
    run = Path(run)
    if not run.is_dir():
        raise RunError(f"{run}: not a folder")
    check_links(run)
    found = [
        (lang_dir.name, stem)
        for lang_dir in sorted(p for p in run.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
        if not languages or lang_dir.name in languages
        for stem in sorted({p.stem for p in lang_dir.glob("*.json")} | {p.stem for p in lang_dir.glob("*.jsonl")})
        if not relations or stem in relations
    ]
    if not found:
        raise RunError(f"{run}: no predictions (<lang>/<REL>.json or .jsonl) for the languages/relations asked")
    return found


def relation_path(run: str | Path, language: str, relation: str) -> Path:
    """<lang>/<REL>.json, or the .jsonl name the published mParaRel code gives its prediction files."""
    path = Path(run) / language / f"{relation}.json"
    return path if path.exists() else path.with_suffix(".jsonl")


def iter_relations(
    run: str | Path, languages: list[str] | None = None, relations: list[str] | None = None, with_ranking: bool = False
) -> Iterator[RelationPredictions]:
    run = Path(run)
    for lang, rel in relation_files(run, languages, relations):
        yield load_relation(relation_path(run, lang, rel), with_ranking)

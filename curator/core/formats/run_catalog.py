"""The runs folder the web app serves: which sub-folders are runs, which is the latest, and a
cheap signature that changes whenever a run's files do (the key of every cache).

A run is opened by name only inside the runs folder (CURATOR_RUNS_DIR): the name must be a
plain folder name (no `..`, separator or leading dot), and the folder it resolves to — after
following symlinks — must still be inside the runs folder, so a link planted there cannot
serve files from elsewhere. `inside` is the one test; every lookup by name uses it. Inside a
run nothing may be a symbolic link (runs.check_links): a run holding one is not served (404),
is listed with the reason instead of its counts, and never counts as the latest run."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any, TypedDict

from curator.core.formats.runs import RUN_INFO, RunError, check_links, is_run, run_info

PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


def inside(root: str | Path, path: str | Path) -> bool:
    """Whether `path`, symlinks resolved, is `root` or below it."""
    try:
        return Path(path).resolve().is_relative_to(Path(root).resolve())
    except (OSError, RuntimeError):  # a symlink loop
        return False


def _without_links(path: Path) -> bool:
    try:
        check_links(path)
    except RunError:
        return False
    return True


def resolve_run(runs_dir: str | Path, name: str) -> Path | None:
    """The run folder called `name`, or None: only a plain sub-folder name is looked up, only
    when it resolves inside the runs folder (a symlink to elsewhere is not a run here), and
    only when nothing inside it is a symbolic link."""
    if not isinstance(name, str) or not PLAIN_NAME.fullmatch(name):
        return None
    path = Path(runs_dir) / name
    return path if inside(runs_dir, path) and is_run(path) and _without_links(path) else None


def _prediction_dirs(run: Path) -> list[Path]:
    return sorted(p for p in run.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def run_signature(run: str | Path) -> int:
    """Newest mtime (ns) of the run folder, its run.json and its language folders: saving any
    prediction file replaces it in its language folder, which changes that folder's mtime."""
    run = Path(run)
    paths = [run, run / "run.json", *_prediction_dirs(run)]
    return max(p.stat().st_mtime_ns for p in paths if p.exists())


def _iso(ns: int) -> str:
    return dt.datetime.fromtimestamp(ns / 1e9, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def created(run: Path) -> str:
    """When the run was (last) written: run.json's mtime, else the folder's (a linked run.json's
    time is another file's)."""
    info = run / RUN_INFO
    return _iso((info if info.exists() and not info.is_symlink() else run).stat().st_mtime_ns)


class RunRow(TypedDict):
    """One run as `list_runs` lists it (the web's run page)."""

    name: str
    model: str | None  # from run.json; None for an imported or foreign run
    release: str | None
    languages: int
    relations: int
    created: str  # ISO time (`created`)
    mtime: int  # ns, the sort key
    error: str | None  # why its run.json or files cannot be read


def list_runs(runs_dir: str | Path) -> list[RunRow]:
    """One row per run in the folder, newest first; an unreadable run.json is shown, not fatal."""
    root = Path(runs_dir)
    if not root.is_dir():
        return []
    rows: list[RunRow] = []
    for path in root.iterdir():
        info: dict[str, Any]
        error: str | None
        if not PLAIN_NAME.fullmatch(path.name) or not inside(root, path) or not is_run(path):
            continue
        try:
            check_links(path)  # a run holding a link is listed with the reason, its files unread
        except RunError as exc:
            info, error, languages = {}, str(exc), []
        else:
            try:
                info, error = run_info(path), None
            except RunError as exc:
                info, error = {}, str(exc)
            languages = [d.name for d in _prediction_dirs(path) if any(d.glob("*.json"))]
        relations = {f.stem for lang in languages for f in (path / lang).glob("*.json")}
        info_file = path / RUN_INFO
        stamp = info_file if info_file.exists() and not info_file.is_symlink() else path
        rows.append(
            RunRow(
                name=path.name,
                model=info.get("model"),
                release=info.get("release"),
                languages=len(languages),
                relations=len(relations),
                created=created(path),
                mtime=stamp.stat().st_mtime_ns,
                error=error,
            )
        )
    return sorted(rows, key=lambda r: (-r["mtime"], r["name"]))


def latest_run(runs_dir: str | Path) -> Path | None:
    """The run whose run.json was written last (folders without one, e.g. bare imports, never count),
    among the runs every reader accepts: one holding a symbolic link anywhere is passed over for
    the next newest, so the reviewers' hints and `curator signals disagreement` keep coming from
    a clean run."""
    root = Path(runs_dir)
    if not root.is_dir():
        return None
    found: list[tuple[int, str]] = []
    for path in root.iterdir():
        info = path / RUN_INFO
        if PLAIN_NAME.fullmatch(path.name) and inside(root, path) and info.is_file() and not info.is_symlink():
            found.append((info.stat().st_mtime_ns, path.name))
    for _, name in sorted(found, reverse=True):
        try:
            check_links(root / name)
        except RunError:
            continue
        return root / name
    return None

"""Writing files and folders so that a reader (or a crash) never sees half of one."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def atomic_write(path: Path, data: bytes) -> None:
    """Write to a hidden temporary sibling, flush it to disk and rename it over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with tmp.open("wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


STALE_AFTER = 6 * 3600  # seconds: a staging folder this old is stale even if its pid is alive (reused)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def clean_stale(target: Path) -> list[Path]:
    """Remove the hidden siblings a killed writer of `target` left behind; returns them.

    A staging folder is named `.<name>.<pid>.<random>.tmp` (older ones `.<name>.<random>.tmp`)
    and the folder set aside during a replace `.<…>.old`. One is stale when the process that
    made it is gone or it is older than STALE_AFTER (a pid can be reused, and a folder from
    another machine on a shared disk has a pid that means nothing here); a live writer's is
    left alone. A stale `.old` while `target` is absent is the previous folder, caught between
    the two renames: it is put back rather than deleted."""
    pattern = re.compile(rf"\.{re.escape(target.name)}\.(?:(\d+)\.)?[A-Za-z0-9_]+\.(tmp|old)")
    removed = []
    now = time.time()
    for path in sorted(p for p in target.parent.iterdir() if p.name.startswith(f".{target.name}.")):
        match = pattern.fullmatch(path.name)
        if not match or not path.is_dir() or path.is_symlink():
            continue
        pid = int(match.group(1)) if match.group(1) else None
        try:
            old = now - path.stat().st_mtime > STALE_AFTER
        except OSError:
            continue
        if not (old or (pid is not None and pid != os.getpid() and not _alive(pid))):
            continue
        if match.group(2) == "old" and not target.exists():
            os.replace(path, target)
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


@contextmanager
def atomic_directory(target: str | os.PathLike[str], replace: bool = False) -> Iterator[Path]:
    """Fill a folder so that `target` is either complete or as it was, never half written.

    Yields a hidden temporary sibling (`.<name>.<pid>.<random>.tmp`, same file system) to write into; when
    the block ends without an exception it is renamed to `target`, else it is removed and the
    exception goes on. An existing `target` is replaced only with `replace` (otherwise
    FileExistsError, checked before anything is written): it is first renamed aside to another
    hidden sibling, so a crash between the two renames leaves `target` absent, never mixed, and
    that sibling is removed once the new folder is in place. The folder gets mode 0755, as
    `mkdir` under the usual umask would give it (a temporary folder starts at 0700). What a
    killed writer left behind is cleaned first (`clean_stale`), so it does not stay for good."""
    target = Path(target).absolute()
    if target.parent.is_dir():
        clean_stale(target)
    if target.exists() and not replace:
        raise FileExistsError(f"{target}: already exists")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=target.parent))
    try:
        os.chmod(staging, 0o755)
        yield staging
        if target.exists():
            if not replace:
                raise FileExistsError(f"{target}: already exists")
            old = staging.with_name(staging.name[: -len(".tmp")] + ".old")  # as unique as the staging name
            os.replace(target, old)
            try:
                os.replace(staging, target)
            except BaseException:
                os.replace(old, target)  # put the previous folder back
                raise
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
            else:
                old.unlink(missing_ok=True)
        else:
            os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise

"""Writing files and folders so that a reader (or a crash) never sees half of one."""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


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


@contextmanager
def atomic_directory(target: str | os.PathLike, replace: bool = False) -> Iterator[Path]:
    """Fill a folder so that `target` is either complete or as it was, never half written.

    Yields a hidden temporary sibling (`.<name>.<random>`, same file system) to write into; when
    the block ends without an exception it is renamed to `target`, else it is removed and the
    exception goes on. An existing `target` is replaced only with `replace` (otherwise
    FileExistsError, checked before anything is written): it is first renamed aside to another
    hidden sibling, so a crash between the two renames leaves `target` absent, never mixed, and
    that sibling is removed once the new folder is in place. The folder gets mode 0755, as
    `mkdir` under the usual umask would give it (a temporary folder starts at 0700)."""
    target = Path(target).absolute()
    if target.exists() and not replace:
        raise FileExistsError(f"{target}: already exists")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
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

"""The session key kept in the instance folder when `CURATOR_SECRET_KEY` is not set.

Flask signs the session cookie and the CSRF token with the secret key, so a key made afresh at
each start signs every volunteer out when the server restarts. `curator serve` without the
variable therefore generates a key once, into `<instance>/secret_key` (`Settings.secret_key_file`,
mode 0600), and reads it on every later start. Two servers starting at once on one instance
folder end with the same key: the file is made under a lock (filelock), written aside and
renamed into place, so a reader sees no file or the whole key, never half of one.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from filelock import FileLock

from curator.core.errors import InputError

MIN_LENGTH = 32  # characters: what a key of 16 random bytes takes in hex (we write 64)


def kept_secret_key(path: Path) -> str:
    """The key in `path`, generated there first if there is none (an `InputError` naming the
    file when it cannot be read, is readable by others, or holds no key)."""
    key = _read(path)
    if key is not None:
        return key
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(path.with_name(f".{path.name}.lock")):
            key = _read(path)  # another process may have made it while this one waited
            if key is None:
                key = secrets.token_hex(32)
                _write_private(path, key + "\n")
    except OSError as exc:
        raise InputError(f"cannot write the secret key: {exc.strerror or exc}", location=str(path)) from None
    return key


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            mode = os.fstat(fh.fileno()).st_mode
            raw = fh.read(4096)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InputError(f"cannot read the secret key: {exc.strerror or exc}", location=str(path)) from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InputError(
            f"the secret key is open to other users (mode {stat.S_IMODE(mode):04o}): chmod 600 it, or set CURATOR_SECRET_KEY",
            location=str(path),
        )
    try:
        key = raw.decode("ascii").strip()
    except UnicodeDecodeError:
        key = ""
    if len(key) < MIN_LENGTH or any(ch.isspace() or not ch.isprintable() for ch in key):
        raise InputError(
            f"not a secret key (expected one line of at least {MIN_LENGTH} printable ASCII characters): "
            "delete the file to make a new one (everyone is signed out), or set CURATOR_SECRET_KEY",
            location=str(path),
        )
    return key


def _write_private(path: Path, text: str) -> None:
    """`text` into `path` with mode 0600 from the start: written to a hidden sibling, flushed
    to disk and renamed over `path`."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.unlink(missing_ok=True)  # a leftover of a process that died with this pid
        # O_EXCL | O_NOFOLLOW: a file or link planted under the temporary name is never written through
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)  # whatever the umask
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)

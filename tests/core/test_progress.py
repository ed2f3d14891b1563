"""Progress bars (core/progress.py): a long command draws a bar on stderr when stderr is a terminal,
and nothing when it is not, so piped and logged output stays what the command prints.

The commands run for real in a subprocess, once with stderr on a pseudo-terminal (`pty`) and
once on a pipe; their stdout must not depend on which."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from tests.conftest import ROOT, SEED


def curator(db: Path, *args: str | Path, tty: bool = False) -> tuple[str, str]:
    """(stdout, stderr) of `curator ARGS` on the SQLite database `db`; stderr on a terminal if `tty`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CURATOR_DATABASE_URL": f"sqlite:///{db}"}
    env.pop("TERM", None)
    command = [sys.executable, "-m", "curator", *map(str, args)]
    if not tty:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout, done.stderr
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 24 rows, 100 columns
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=follower, text=True) as process:
        os.close(follower)
        chunks = []
        while True:  # until the child has exited and closed the terminal: EOF, or EIO on Linux
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        stdout = process.stdout.read()
        assert process.wait(timeout=600) == 0, b"".join(chunks).decode()
    return stdout, b"".join(chunks).decode("utf-8", "replace")


def bar(desc: str) -> re.Pattern[str]:
    """tqdm's finished bar: `desc: 100%|██████████| 5/5 [00:00<00:00, 123.45file/s]`."""
    return re.compile(rf"{re.escape(desc)}: 100%\|[^|\n]*\| (\d+)/\1 \[")


def test_ingest_draws_a_bar_only_on_a_terminal(tmp_path):
    results = {}
    for tty in (False, True):
        db = tmp_path / f"{tty}.sqlite"
        curator(db, "init")
        results[tty] = curator(db, "ingest", "pararel", SEED / "pararel" / "patterns", tty=tty)
    (piped_out, piped_err), (tty_out, tty_err) = results[False], results[True]
    assert bar("ParaRel").search(tty_err), tty_err
    assert piped_err == ""
    assert tty_out == piped_out and "relations" in piped_out


@pytest.fixture
def version(tmp_path) -> Path:
    db = tmp_path / "db.sqlite"
    curator(db, "seed")
    curator(db, "candidates", "build")
    curator(db, "release", "build", "v0")
    return db


def test_release_export_draws_bars_only_on_a_terminal(version, tmp_path):
    piped_out, piped_err = curator(version, "release", "export", "v0", tmp_path / "piped")
    tty_out, tty_err = curator(version, "release", "export", "v0", tmp_path / "tty", tty=True)
    assert bar("export patterns").search(tty_err) and bar("export tuples").search(tty_err), tty_err
    assert piped_err == ""
    assert tty_out.replace("tty", "piped") == piped_out
    assert (tmp_path / "tty" / "README.md").read_bytes() == (tmp_path / "piped" / "README.md").read_bytes()

"""Without CURATOR_SECRET_KEY, `curator serve` keeps one key in the instance folder (made once,
mode 0600), so restarting the server signs nobody out; a key file it cannot use is one line."""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from curator.web.testing import ServeProcess
from tests.plugins.databases import PASSWORD
from tests.plugins.servers import csrf_from

GUARD = 120  # s; a guard against a hang, not a speed limit


def serve_process(sqlite_templates, tmp_path: Path) -> tuple[ServeProcess, Path]:
    """`curator serve` on a copy of the seeded review database, without CURATOR_SECRET_KEY, its
    instance folder in tmp_path."""
    db = tmp_path / "curator.sqlite"
    shutil.copyfile(sqlite_templates("review"), db)
    instance = tmp_path / "instance"
    proc = ServeProcess(
        f"sqlite:///{db}",
        "--workers",
        "2",
        "--threads",
        "2",
        env={"CURATOR_INSTANCE_PATH": str(instance)},
    )
    proc.env.pop("CURATOR_SECRET_KEY", None)
    return proc, instance / "secret_key"


def test_a_restart_keeps_everyone_signed_in(sqlite_templates, tmp_path):
    proc, key_file = serve_process(sqlite_templates, tmp_path)
    http = requests.Session()
    with proc:
        form = http.get(proc.url + "/login", timeout=GUARD)
        signed_in = http.post(
            proc.url + "/login",
            data={"email": "ana@example.org", "password": PASSWORD, "csrf_token": csrf_from(form.text)},
            allow_redirects=False,
            timeout=GUARD,
        )
        assert signed_in.status_code == 302, signed_in.text
        token = csrf_from(http.get(proc.url + "/", timeout=GUARD).text)  # the page's token, as review.js holds it
        assert http.get(proc.url + "/api/v1/me", timeout=GUARD).json()["email"] == "ana@example.org"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = key_file.read_text()
    with proc:  # the same command on the same port and database: a restart
        me = http.get(proc.url + "/api/v1/me", timeout=GUARD)
        assert me.status_code == 200 and me.json()["email"] == "ana@example.org", me.text
        # a request the page sends after the restart, with the token it got before, is accepted
        seen = http.post(
            proc.url + "/api/v1/languages/es/guidelines/seen", json={}, headers={"X-CSRFToken": token}, timeout=GUARD
        )
        assert seen.status_code == 200, seen.text
    assert key_file.read_text() == key  # read again, not made again


RACE = """
import sys
from pathlib import Path
from curator.core.secret_key import kept_secret_key
sys.stdin.readline()  # every process is started before any of them looks for the file
print(kept_secret_key(Path(sys.argv[1])))
"""


def test_processes_starting_at_once_end_with_one_key(tmp_path):
    path = tmp_path / "instance" / "secret_key"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RACE, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for _ in range(6)
    ]
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    keys = {p.communicate(timeout=GUARD)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert keys == {path.read_text().strip()} and len(keys.pop()) == 64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir() if not p.name.endswith(".lock")) == ["secret_key"]


@pytest.mark.parametrize(
    "content, mode, message",
    [
        ("short\n", 0o600, "not a secret key (expected one line of at least 32 printable ASCII characters)"),
        ("a" * 64 + "\n", 0o644, "the secret key is open to other users (mode 0644): chmod 600 it"),
        (None, 0o700, "cannot read the secret key: Is a directory"),  # unreadable, even for root
    ],
)
def test_a_key_file_it_cannot_use_is_one_line(sqlite_templates, tmp_path, content, mode, message):
    proc, key_file = serve_process(sqlite_templates, tmp_path)
    key_file.parent.mkdir()
    if content is None:
        key_file.mkdir()
    else:
        key_file.write_text(content)
    key_file.chmod(mode)
    out = subprocess.run(proc.command, env=proc.env, capture_output=True, text=True, timeout=GUARD)
    lines = (out.stdout + out.stderr).strip().splitlines()
    assert out.returncode == 1
    assert len(lines) == 1 and lines[0].startswith(f"Error: {key_file}: {message}"), lines
    if content is not None:
        assert key_file.read_text() == content  # left as it was

"""The wheel is the product: build it, install it in a fresh virtualenv outside the checkout,
and run the installed `curator` end to end (init, demo seed, serve, pages, static files and
the JSON API over real HTTP, a review decision). Anything the wheel forgot (templates, static
files, migrations, demo data, ingest/*.json) fails here, not on a user's machine.

The fresh venv gets the base wheel alone, its dependencies resolved by pip (the package
indexes and pip's cache; torch only ever as `torch==2.13.0`, the local CPU wheel, as bin/dev
installs it): none of PyTorch, transformers, sentence-transformers, pyarrow or psycopg is
there, and `curator probe` says which extra to install. Then `[probe]` is added to the same
venv and a tiny model is probed end to end (issue 26: install only what a role needs).
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "wheel-test-pw-7"

pytestmark = pytest.mark.packaging

# Only a guard against a hang, never a measure of speed: a server that has not answered in this
# time has failed anyway; on a busy machine it may take many times its usual time to start.
GUARD = 300

# Build from a copy: setuptools' in-tree build/ folder could carry stale files into the wheel,
# and the checkout stays untouched (no build/, no *.egg-info).
_NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    ".venv",
    "venv",
    "build",
    "dist",
    "instance",
    "__pycache__",
    "*.egg-info",
    ".pytest_cache",
    ".grimp_cache",
    ".import_linter_cache",
    "*.sqlite",
    "*.pyc",
    "node_modules",
)


def _run(args: list, env: dict, cwd: Path, timeout: int = 120) -> str:
    result = subprocess.run([str(a) for a in args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, (
        f"{' '.join(map(str, args))} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    )
    return result.stdout


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Not passed to the wheel's commands: they must run on the wheel alone, not on this checkout.
# PYTHONDONTWRITEBYTECODE: pip installs with --no-compile (faster), so the venv's first import
# of torch compiles it and keeps the bytecode for the commands after it.
_DROPPED = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONDONTWRITEBYTECODE")


def _clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED and not k.startswith("CURATOR_")}
    env.update(
        CURATOR_DATABASE_URL=f"sqlite:///{tmp_path / 'data' / 'curator.sqlite'}",
        CURATOR_INSTANCE_PATH=str(tmp_path / "instance"),
        CURATOR_SECRET_KEY="wheel-test-secret",
        PYTHONNOUSERSITE="1",
        MPLCONFIGDIR=str(tmp_path / "mpl"),
    )
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=_NOT_SOURCE)
    _run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", tmp / "dist", src],
        env=_clean_env(tmp),
        cwd=tmp,
        timeout=300,
    )
    wheels = list((tmp / "dist").glob("curator-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_holds_the_package_data(wheel):
    import zipfile

    names = set(zipfile.ZipFile(wheel).namelist())
    package = ROOT / "curator"
    # every non-Python file of the package (but caches and local instance folders) is in the wheel
    data = {
        p.relative_to(ROOT).as_posix()
        for p in package.rglob("*")
        if p.is_file()
        and p.suffix not in (".py", ".pyc")
        and "__pycache__" not in p.parts
        and "instance" not in p.relative_to(package).parts
        and p.suffix != ".sqlite"
    }
    assert data, "no package data found in the checkout"
    assert not data - names, f"missing from the wheel: {sorted(data - names)}"
    python = {p.relative_to(ROOT).as_posix() for p in package.rglob("*.py")}
    assert not python - names, f"modules missing from the wheel: {sorted(python - names)}"
    for needed in (
        "curator/web/static/curator.css",
        "curator/web/templates/login.html",
        "curator/core/migrations/env.py",
        "curator/core/migrations/script.py.mako",
        "curator/ingest/placeholders.json",
        "curator/demo/data/README.md",
        "curator/release/templates/card.md.j2",
    ):
        assert needed in names, needed
    assert any(n.startswith("curator/core/migrations/versions/") for n in names)
    assert any(n.startswith("curator/demo/data/tuples/") and n.endswith(".jsonl") for n in names)


class _Client:
    """urllib with a cookie jar: real HTTP against the served app."""

    def __init__(self, base: str):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def get(self, path: str, headers: dict | None = None):
        request = urllib.request.Request(self.base + path, headers=headers or {})
        with self.opener.open(request, timeout=GUARD) as response:
            return response.status, response.headers, response.read()

    def post_form(self, path: str, fields: dict):
        data = urllib.parse.urlencode(fields).encode()
        with self.opener.open(urllib.request.Request(self.base + path, data=data), timeout=GUARD) as response:
            return response.status, response.geturl(), response.read()

    def get_json(self, path: str, token: str | None = None):
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        status, response_headers, body = self.get(path, headers)
        assert response_headers.get_content_type() == "application/json", response_headers
        return status, json.loads(body)

    def post_json(self, path: str, payload: dict, token: str):
        headers = {"Accept": "application/json", "Content-Type": "application/json", "Authorization": f"Bearer {token}"}
        request = urllib.request.Request(self.base + path, data=json.dumps(payload).encode(), headers=headers)
        with self.opener.open(request, timeout=GUARD) as response:
            return response.status, json.loads(response.read())


def _wait_until_serving(client: _Client, server: subprocess.Popen, log: Path, seconds: float = GUARD) -> None:
    """Poll /healthz until it answers, or the server exits, or the guard passes."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"curator serve exited ({server.returncode}):\n{log.read_text()}")
        try:
            if client.get("/healthz")[0] == 200:
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.25)
    pytest.fail(f"curator serve did not answer within {seconds}s:\n{log.read_text()}")


# what the extras install (pyproject.toml [project.optional-dependencies]): none is in the base venv
EXTRA_MODULES = ("torch", "transformers", "tokenizers", "accelerate", "sentence_transformers", "pyarrow", "psycopg")
TORCH = os.environ.get("CURATOR_TORCH", "2.13.0")  # as bin/dev: pinned, so no multi-GB CUDA build is pulled


def _pip(venv: Path, *args: str | Path, env: dict, cwd: Path) -> str:
    """The dev venv's pip installing into `venv` (which has no pip of its own)."""
    return _run(
        [sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "--disable-pip-version-check", *args],
        env=env,
        cwd=cwd,
        timeout=900,
    )


class _Venv:
    def __init__(self, root: Path, env: dict, absent: dict[str, bool], probe_without_extra):
        self.root, self.env = root, env
        self.python, self.curator = root / "venv" / "bin" / "python", root / "venv" / "bin" / "curator"
        self.absent = absent  # module -> whether importing it failed right after the base install
        self.probe_without_extra = probe_without_extra  # `curator probe` in the base install


@pytest.fixture(scope="module")
def base_venv(wheel, tmp_path_factory) -> _Venv:
    """A fresh venv with the base wheel alone (dependencies resolved, no extra). What the base
    install lacks is recorded before any test adds an extra to it."""
    root = tmp_path_factory.mktemp("installed")
    env = _clean_env(root)
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], env=env, cwd=root)
    _pip(venv, "install", "--no-compile", wheel, env=env, cwd=root)
    python = venv / "bin" / "python"
    absent = {
        name: subprocess.run([python, "-c", f"import {name}"], env=env, cwd=root, capture_output=True).returncode != 0
        for name in EXTRA_MODULES
    }
    probe = subprocess.run(
        [venv / "bin" / "curator", "probe", root / "v0", "--model", "m", "--out", root / "run"],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return _Venv(root, env, absent, probe)


def test_base_wheel_installs_no_extra(base_venv):
    missing = [name for name, absent in base_venv.absent.items() if not absent]
    assert not missing, f"the base install imports {missing}: they belong to an extra"
    probe = base_venv.probe_without_extra
    assert probe.returncode == 2, (probe.returncode, probe.stdout, probe.stderr)
    assert probe.stderr.strip().splitlines() == [
        "Error: curator probe needs the 'probe' extra (no module torch): pip install 'curator[probe]'"
    ], probe.stderr


def test_installed_wheel_serves_the_app(base_venv, tmp_path):
    env = _clean_env(tmp_path)
    (tmp_path / "data").mkdir()
    python, curator, venv = base_venv.python, base_venv.curator, base_venv.python.parent.parent
    where = _run(
        [
            python,
            "-c",
            "import curator, curator.web, flask, sys; print(curator.__file__); "
            f"print(any(p.rstrip('/') == {str(ROOT)!r} for p in sys.path))",
        ],
        env=env,
        cwd=tmp_path,
    ).split()
    assert Path(where[0]).resolve().is_relative_to(venv.resolve()), f"curator imported from {where[0]}, not the wheel"
    assert where[1] == "False", f"the checkout {ROOT} is on the fresh venv's sys.path"
    assert curator.exists(), "the wheel installed no `curator` script"

    out = _run([curator, "init"], env=env, cwd=tmp_path)
    assert "at revision" in out, out
    out = _run([curator, "seed", "--demo-users", "--demo-password", PASSWORD], env=env, cwd=tmp_path)
    assert "demo seed loaded" in out and "es" in out, out
    token = _run([curator, "user", "token", "reviewer@demo.invalid"], env=env, cwd=tmp_path).strip()
    assert token and " " not in token, token

    port = _free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as log_file:
        server = subprocess.Popen(
            [str(curator), "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            cwd=tmp_path,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    try:
        client = _Client(f"http://127.0.0.1:{port}")
        _wait_until_serving(client, server, log)

        status, headers, body = client.get("/login")
        assert status == 200 and headers.get_content_type() == "text/html"
        page = body.decode()
        assert "csrf_token" in page and 'name="password"' in page
        status, headers, css = client.get("/static/curator.css")
        assert status == 200 and headers.get_content_type() == "text/css"
        assert css == (ROOT / "curator" / "web" / "static" / "curator.css").read_bytes()
        assert client.get("/static/review.js")[0] == 200

        # the JSON API with the token the installed CLI issued
        status, me = client.get_json("/api/v1/me", token=token)
        assert status == 200 and me["email"] == "reviewer@demo.invalid" and me["role"] == "reviewer"
        assert {lang["code"] for lang in me["languages"]} == {"es", "ar"}
        status, queue = client.get_json("/api/v1/languages/es/queue", token=token)
        assert status == 200 and queue["items"] and queue["next"] == queue["items"][0]["id"]
        # a review: the reviewer accepts the first item of the queue, and it is stored
        item = queue["next"]
        status, decided = client.post_json(
            f"/api/v1/languages/es/items/{item}/decision", {"decision": "accept", "seconds": 4}, token
        )
        assert status == 201 and decided["created"] and decided["decision"]["decision"] == "accept", decided
        assert decided["next"] != item and decided["progress"]["done"] == 1, decided
        # no token, no data
        with pytest.raises(urllib.error.HTTPError) as denied:
            client.get_json("/api/v1/me")
        assert denied.value.code == 401

        # the demo password works in the sign-in form (session cookie + CSRF)
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        status, landed, _ = client.post_form(
            "/login", {"csrf_token": csrf, "email": "reviewer@demo.invalid", "password": PASSWORD}
        )
        assert status == 200 and not landed.endswith("/login"), landed
        status, me = client.get_json("/api/v1/me")
        assert status == 200 and me["email"] == "reviewer@demo.invalid"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    # everything it wrote stayed in tmp_path
    assert (tmp_path / "data" / "curator.sqlite").exists()


def test_probe_extra_added_to_the_base_install_probes_a_tiny_model(wheel, base_venv, tmp_path):
    """`pip install 'curator[probe]'` on top of the base install (torch first, pinned, as
    bin/dev does) is enough to build a tiny model and probe it on an exported release."""
    venv, env = base_venv.python.parent.parent, _clean_env(tmp_path)
    env["HF_HUB_OFFLINE"] = "1"  # a model folder on disk: nothing to download
    (tmp_path / "data").mkdir()
    _pip(venv, "install", "--no-compile", f"torch=={TORCH}", env=env, cwd=tmp_path)
    _pip(venv, "install", "--no-compile", f"{wheel}[probe]", env=env, cwd=tmp_path)
    curator = base_venv.curator
    _run([curator, "seed"], env=env, cwd=tmp_path, timeout=300)
    _run([curator, "release", "build", "v0"], env=env, cwd=tmp_path)
    _run([curator, "release", "export", "v0", tmp_path / "v0"], env=env, cwd=tmp_path)
    out = _run(
        [curator, "models", "tiny", tmp_path / "bert", "--kind", "bert", "--corpus", tmp_path / "v0"],
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert "wrote a tiny bert model" in out, out
    out = _run(
        # one language and relation: the point is that the extra is enough, not the scores
        [curator, "probe", tmp_path / "v0", "--model", tmp_path / "bert", "--out", tmp_path / "run", "--device", "cpu"]
        + ["--languages", "es", "--relations", "P19"],
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert re.search(r"probed 1 relations .* [1-9]\d* queries scored on cpu", out), out
    out = _run([curator, "metrics", tmp_path / "run"], env=env, cwd=tmp_path)
    assert "es" in out, out

"""A command whose optional extra is not installed stops with one line naming the extra to
install and exit code 2, never an ImportError's traceback (curator/core/extras.py); a web page
that needs one answers 501 and says which.

The dev venv has every extra, so each command runs in a fresh interpreter in which the extra's
modules are absent: `sys.modules[name] = None` makes `import name` raise ModuleNotFoundError,
as it does where the package is not installed. tests/project/test_wheel.py checks the same with a real
base install (no torch in the venv at all)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from curator.core.errors import CuratorError
from curator.core.extras import MissingExtra, require_extra

ROOT = Path(__file__).resolve().parents[2]

PROBE = ("torch", "transformers", "tokenizers")

# the `curator` command with `blocked` modules absent
_CURATOR = """
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None
sys.argv = ["curator", *sys.argv[2:]]
from curator.cli import main
main()
"""


def _curator(blocked: tuple[str, ...], *args: str | Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", _CURATOR, ",".join(blocked), *map(str, args)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """This checkout first on sys.path; a database of the test's own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURATOR_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["CURATOR_DATABASE_URL"] = f"sqlite:///{tmp_path / 'curator.sqlite'}"
    env["CURATOR_INSTANCE_PATH"] = str(tmp_path / "instance")
    env["MPLCONFIGDIR"] = str(tmp_path / "mpl")
    return env


def _says_install(result: subprocess.CompletedProcess, extra: str) -> None:
    """Exit 2 and one line on stderr that names the extra and how to install it."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"needs the '{extra}' extra" in lines[0] and f"pip install 'curator[{extra}]'" in lines[0], lines[0]
    assert "Traceback" not in result.stdout + result.stderr


def test_probe_without_the_probe_extra(env, tmp_path):
    # checked first: before the release is read and before --decode's options load torch
    result = _curator(PROBE, "probe", tmp_path / "v0", "--model", "bert", "--out", tmp_path / "run", env=env)
    _says_install(result, "probe")
    assert "curator probe" in result.stderr
    result = _curator(
        ("torch",), "probe", tmp_path / "v0", "--model", "bert", "--out", tmp_path / "run", "--decode", "order", env=env
    )
    _says_install(result, "probe")
    assert not (tmp_path / "run").exists()


def test_tiny_model_without_the_probe_extra(env, tmp_path):
    (tmp_path / "corpus").mkdir()
    result = _curator(
        ("transformers",),
        "models",
        "tiny",
        tmp_path / "bert",
        "--kind",
        "bert",
        "--corpus",
        tmp_path / "corpus",
        env=env,
    )
    _says_install(result, "probe")
    assert "(no module transformers)" in result.stderr
    assert not (tmp_path / "bert").exists()


def test_similarity_without_the_signals_extra(env):
    result = _curator(
        ("sentence_transformers",), "signals", "similarity", "--languages", "es", "--system", "deepl", env=env
    )
    _says_install(result, "signals")


def test_hf_export_without_pyarrow(env, tmp_path):
    """The release is not written at all (not a folder without its Parquet files)."""
    assert _curator((), "seed", env=env).returncode == 0
    assert _curator((), "release", "build", "v0", env=env).returncode == 0
    result = _curator(("pyarrow",), "release", "export", "v0", tmp_path / "out", "--hf", env=env)
    _says_install(result, "hf")
    assert "--hf" in result.stderr
    assert not (tmp_path / "out").exists()
    # without --hf the same install exports
    assert _curator(("pyarrow",), "release", "export", "v0", tmp_path / "out", env=env).returncode == 0
    assert (tmp_path / "out" / "manifest.json").exists()


def test_local_translation_without_the_translate_extra(env, tmp_path):
    # checked before the database is read: an empty database is not what it complains about
    assert _curator((), "init", env=env).returncode == 0
    result = _curator(
        ("torch",), "translate", "--languages", "es", "--system", "local:some/model", "--out", tmp_path / "t", env=env
    )
    _says_install(result, "translate")
    assert not (tmp_path / "t").exists()


def test_postgresql_url_without_psycopg(env):
    # no server is needed: the driver is missing before any connection is tried
    url = "postgresql+psycopg://curator@127.0.0.1:9/curator"
    result = _curator(("psycopg",), "--database", url, "init", env=env)
    _says_install(result, "postgresql")
    env["CURATOR_DATABASE_URL"] = url
    _says_install(_curator(("psycopg",), "serve", env=env), "postgresql")


def test_a_module_that_is_there_but_broken_is_not_a_missing_extra(tmp_path, monkeypatch):
    """Only an absent module names the extra: a dependency missing inside an installed one
    (a broken install) keeps its own error, which says what is actually wrong."""
    with pytest.raises(MissingExtra) as missing:
        require_extra("hf", "a test", ("curator_test_absent_module",))
    assert missing.value.extra == "hf" and isinstance(missing.value, CuratorError)
    (tmp_path / "curator_test_broken_module.py").write_text("import curator_test_its_missing_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as broken:
        require_extra("hf", "a test", ("curator_test_broken_module",))
    assert broken.value.name == "curator_test_its_missing_dependency"


def test_a_page_that_needs_a_missing_extra_says_so(tmp_path):
    """The web maps MissingExtra to 501 with its message, on a page and under /api/ as JSON."""
    from curator.web import create_app

    app = create_app(
        {
            "DATABASE_URL": f"sqlite:///{tmp_path / 'web.sqlite'}",
            "SECRET_KEY": "test-secret",
            "RUNS_DIR": str(tmp_path / "runs"),
            "RATELIMIT_ENABLED": False,
        }
    )

    def needs_it():
        raise MissingExtra("this page", "probe", "torch")

    app.add_url_rule("/needs-probe", view_func=needs_it)
    app.add_url_rule("/api/v1/needs-probe", view_func=needs_it)
    client = app.test_client()
    page = client.get("/needs-probe")
    assert page.status_code == 501
    assert "this page needs the &#39;probe&#39; extra" in page.get_data(as_text=True)
    answer = client.get("/api/v1/needs-probe", headers={"Accept": "application/json"})
    assert answer.status_code == 501 and "pip install 'curator[probe]'" in answer.get_json()["error"]

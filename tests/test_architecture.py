"""The layering of the package, checked: import-linter's contracts ([tool.importlinter] in
pyproject.toml) and, at run time, that the layers below web import without Flask."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Everything below web and cli: core, the stage services, the demo seed loader.
BELOW_WEB = ["core", "ingest", "translate", "quality", "review", "release", "probe", "analysis", "demo"]


def _env() -> dict[str, str]:
    """This checkout first on sys.path (the venv's editable install may point elsewhere)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def test_import_contracts():
    # lint-imports of this venv: beside the interpreter (not resolved: a venv's python is a symlink)
    lint_imports = Path(sys.executable).parent / "lint-imports"
    assert lint_imports.exists(), f"{lint_imports} missing: install the test extra (pip install -e '.[test]')"
    result = subprocess.run(
        [str(lint_imports), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, f"import contracts broken (lint-imports):\n{report}"


def test_curator_root_imports_nothing():
    code = "import sys; import curator; extra = sorted(m for m in sys.modules if m.startswith('curator.')); assert not extra, extra"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


_NO_FLASK = """
import importlib, pkgutil, sys
import curator
assert curator.__file__.startswith({root!r}), curator.__file__
names = []
for package in {packages!r}:
    module = importlib.import_module("curator." + package)
    names.append(module.__name__)
    names += [info.name for info in pkgutil.walk_packages(module.__path__, module.__name__ + ".")]
for name in names:
    importlib.import_module(name)
flask = sorted(m for m in sys.modules if m.split(".")[0] in ("flask", "flask_login", "flask_wtf"))
assert not flask, "importing the layers below web imported " + ", ".join(flask)
assert not [m for m in sys.modules if m.startswith(("curator.web", "curator.cli"))]
print(len(names), "modules")
"""


def test_layers_below_web_import_without_flask():
    """Every module of core, the stages and demo (walked, so a Flask import hidden in a
    submodule counts), imported in a fresh interpreter, leaves Flask unimported."""
    code = _NO_FLASK.format(root=str(ROOT / "curator"), packages=BELOW_WEB)
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert int(result.stdout.split()[0]) > len(BELOW_WEB), result.stdout


# what the optional extras install (pyproject.toml; curator/core/extras.py)
EXTRA_PACKAGES = ("torch", "transformers", "tokenizers", "accelerate", "sentence_transformers", "pyarrow", "psycopg")

_NO_EXTRAS = """
import importlib, pkgutil, sys, tempfile
import curator
assert curator.__file__.startswith({root!r}), curator.__file__
# walk_packages imports a package to list its modules: curator.probe's own are not walked
base = ["curator.probe"]
for info in pkgutil.iter_modules(curator.__path__, "curator."):
    if info.ispkg and info.name != "curator.probe":
        module = importlib.import_module(info.name)
        base += [module.__name__, *(i.name for i in pkgutil.walk_packages(module.__path__, module.__name__ + "."))]
base = [n for n in base if not n.endswith("__main__") and ".migrations" not in n]
for name in base:
    importlib.import_module(name)
from curator.web import create_app
folder = tempfile.mkdtemp()
app = create_app({{"DATABASE_URL": "sqlite:///" + folder + "/c.sqlite", "SECRET_KEY": "x", "RUNS_DIR": folder}})
assert app.test_client().get("/login").status_code == 200
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {extras!r})
assert not loaded, "the base install's modules imported " + ", ".join(loaded)
print(len(base), "modules")
"""


def test_base_modules_import_no_extra():
    """Every module of the package but the probe stage's own (walked: the CLI with all its
    commands, the app factory and a page, the stages) imports none of the optional extras'
    packages: `pip install curator` without an extra runs them (issue 26). The probe stage's
    modules are what `curator probe` loads once the 'probe' extra is checked."""
    code = _NO_EXTRAS.format(root=str(ROOT / "curator"), extras=EXTRA_PACKAGES)
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert int(result.stdout.split()[0]) > 50, result.stdout

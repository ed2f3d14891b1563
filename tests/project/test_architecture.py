"""The layering of the package, checked: import-linter's contracts ([tool.importlinter] in
pyproject.toml) and, at run time, that the layers below web import without Flask."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Everything below web and cli: core, the stage services, the demo seed loader.
BELOW_WEB = ["core", "ingest", "translate", "quality", "review", "release", "probe", "analysis", "demo"]


def _env() -> dict[str, str]:
    """This checkout first on sys.path (the venv's editable install may point elsewhere)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports of this venv (beside the interpreter, not resolved: a venv's python is a
    symlink) over the checkout at `root`, with its pyproject's contracts."""
    lint_imports = Path(sys.executable).parent / "lint-imports"
    assert lint_imports.exists(), f"{lint_imports} missing: install the test extra (pip install -e '.[all,test]')"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run(
        [str(lint_imports), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_import_contracts():
    result = _lint_imports(ROOT)
    report = result.stdout + result.stderr
    assert result.returncode == 0, f"import contracts broken (lint-imports):\n{report}"


def _no_flask_contract() -> dict:
    import tomllib  # Python 3.11+, as in probe/plan.py

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    return next(contract for contract in contracts if contract["id"] == "stages-no-flask")


def _flask_packages() -> set[str]:
    """Every installed top-level package that is Flask or an extension of it: its import name
    starts with "flask", or its distribution requires Flask (curator itself aside)."""
    found = set()
    for name, distributions in importlib.metadata.packages_distributions().items():
        if name == "curator":
            continue
        if name.startswith("flask"):
            found.add(name)
            continue
        for distribution in distributions:
            requires = importlib.metadata.requires(distribution) or []
            if any(req.split(";")[0].strip().lower().startswith("flask") for req in requires):
                found.add(name)
    return found


def test_no_flask_contract_names_every_installed_flask_package():
    """A newly installed Flask extension is forbidden below web without anyone remembering it."""
    forbidden = set(_no_flask_contract()["forbidden_modules"])
    flask = _flask_packages()
    assert {"flask", "flask_login", "flask_wtf", "flask_babel", "flask_limiter"} <= flask, flask
    missing = sorted(flask - forbidden)
    assert not missing, f"add {missing} to the stages-no-flask contract's forbidden_modules in pyproject.toml"
    assert {"werkzeug", "granian", "click"} <= forbidden


def test_flask_extension_import_in_a_stage_service_breaks_the_contracts(tmp_path):
    """The contract bites: a copy of the package with `import flask_babel` planted in a stage
    service fails lint-imports (the three checks above passed on this before the list grew)."""
    shutil.copytree(ROOT / "curator", tmp_path / "curator", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    service = tmp_path / "curator" / "review" / "service.py"
    service.write_text(service.read_text(encoding="utf-8") + "\nimport flask_babel  # noqa\n", encoding="utf-8")
    result = _lint_imports(tmp_path)
    report = result.stdout + result.stderr
    assert result.returncode != 0, report
    assert "curator.review.service -> flask_babel" in report, report


def test_a_type_checking_import_cycle_breaks_the_contracts(tmp_path):
    """The acyclic contract counts imports under `if TYPE_CHECKING:` too (exclude_type_checking_imports
    = false): a copy of the package with pll.py naming MaskedScorer for its annotations again (the
    cycle pll <-> masked that base.PllScorer removed) fails lint-imports."""
    shutil.copytree(ROOT / "curator", tmp_path / "curator", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    pll = tmp_path / "curator" / "probe" / "scorers" / "pll.py"
    source = pll.read_text(encoding="utf-8")
    assert "\nif TYPE_CHECKING:\n" in source
    source = source.replace(
        "\nif TYPE_CHECKING:\n",
        "\nif TYPE_CHECKING:\n    from curator.probe.scorers.masked import MaskedScorer  # noqa\n",
        1,
    )
    pll.write_text(source, encoding="utf-8")
    result = _lint_imports(tmp_path)
    report = result.stdout + result.stderr
    assert result.returncode != 0, report
    assert "No import cycles between sibling packages or modules, at any depth BROKEN" in report, report
    assert "No cycles are allowed in curator.probe.scorers" in report and ".pll -> .masked" in report, report


# The contract's one exception (ignore_imports in pyproject.toml) lets accounts import werkzeug:
# import-linter ignores it whole, so this holds the exception to the one module it is for.
ACCOUNTS_WERKZEUG = {"werkzeug.security"}


def werkzeug_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) for every werkzeug module a source imports (`import werkzeug.x`,
    `from werkzeug.x import y`, `from werkzeug import x`: that last one is `werkzeug.x`)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.split(".")[0] == "werkzeug"]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "werkzeug":
                found += [(node.lineno, f"werkzeug.{alias.name}") for alias in node.names]
            elif node.module.startswith("werkzeug."):
                found.append((node.lineno, node.module))
    return found


def test_accounts_imports_only_werkzeug_security():
    source = (ROOT / "curator" / "review" / "accounts.py").read_text(encoding="utf-8")
    imported = werkzeug_imports(source)
    assert imported, "accounts no longer imports werkzeug: drop its ignore_imports exception in pyproject.toml"
    others = [(line, module) for line, module in imported if module not in ACCOUNTS_WERKZEUG]
    assert not others, f"curator/review/accounts.py imports werkzeug beyond werkzeug.security: {others}"


def test_the_werkzeug_scan_catches_a_planted_import():
    planted = """
from werkzeug.security import check_password_hash
import werkzeug.routing
from werkzeug import exceptions
import json, werkzeug
from .werkzeug import local
"""
    assert werkzeug_imports(planted) == [
        (2, "werkzeug.security"),
        (3, "werkzeug.routing"),
        (4, "werkzeug.exceptions"),
        (5, "werkzeug"),
    ]
    assert [module for _, module in werkzeug_imports(planted) if module not in ACCOUNTS_WERKZEUG] == [
        "werkzeug.routing",
        "werkzeug.exceptions",
        "werkzeug",
    ]


def test_curator_root_imports_nothing():
    code = "import sys; import curator; extra = sorted(m for m in sys.modules if m.startswith('curator.')); assert not extra, extra"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300
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
flask = sorted(m for m in sys.modules if m.split(".")[0] in {flask!r})
assert not flask, "importing the layers below web imported " + ", ".join(flask)
assert not [m for m in sys.modules if m.startswith(("curator.web", "curator.cli"))]
print(len(names), "modules")
"""


def test_layers_below_web_import_without_flask():
    """Every module of core, the stages and demo (walked, so a Flask import hidden in a
    submodule counts), imported in a fresh interpreter, leaves Flask unimported."""
    code = _NO_FLASK.format(root=str(ROOT / "curator"), packages=BELOW_WEB, flask=sorted(_flask_packages()))
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


_NO_MATPLOTLIB = """
import sys, tempfile
from curator.web import create_app
import curator.cli
folder = tempfile.mkdtemp()
app = create_app({"DATABASE_URL": "sqlite:///" + folder + "/c.sqlite", "SECRET_KEY": "x", "RUNS_DIR": folder})
assert app.test_client().get("/login").status_code == 200
assert "matplotlib" not in sys.modules, "matplotlib imported by the web app or the CLI"
"""


def test_the_server_and_the_cli_start_without_matplotlib():
    """matplotlib is imported when a chart is drawn (release/charts.py, analysis/charts.py), not
    by the app or the CLI: its import and teardown cost every server start and stop, and each
    server worker, a third of a second."""
    result = subprocess.run(
        [sys.executable, "-c", _NO_MATPLOTLIB], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr

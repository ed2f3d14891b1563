"""The shape of the code (issue 40 §2, review findings P2-4 and P2-5), checked on the source:

- no module imports, or reaches through a module for, a private name (`_name`) of another curator
  module — what is shared is public, in one place;
- no function in curator is over 80 lines (def to end), so each can be held in one's head.

Each check has a regression case on a small source string, so a check that could never fail
would fail here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "curator"
MAX_LINES = 80


def _modules() -> list[tuple[str, ast.Module]]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        name = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts)
        found.append((name.removesuffix(".__init__"), ast.parse(path.read_text(encoding="utf-8"))))
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(module: str, tree: ast.Module) -> list[str]:
    """`from curator.x import _y`, `import curator.x._y`, and `m._y` where `m` is a curator module
    imported into this one (`from curator.x import m` / `import curator.x as m`)."""
    aliases: dict[str, str] = {}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("curator"):
            for alias in node.names:
                if _private(alias.name) and node.module != module:
                    found.append(f"{module}: from {node.module} import {alias.name}")
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("curator"):
                    if any(_private(part) for part in alias.name.split(".")):
                        found.append(f"{module}: import {alias.name}")
                    if alias.asname:
                        aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and aliases[node.value.id] != module
        ):
            found.append(f"{module}: {node.value.id}._{node.attr.lstrip('_')} ({aliases[node.value.id]})")
    return found


def long_functions(module: str, tree: ast.Module) -> list[str]:
    return [
        f"{module}.{node.name} (line {node.lineno}): {node.end_lineno - node.lineno + 1} lines"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_LINES
    ]


def test_no_private_name_crosses_a_module():
    found = [use for module, tree in _modules() for use in private_uses(module, tree)]
    assert found == []


def test_no_function_is_over_80_lines():
    # the Alembic revisions are frozen history: a schema step is written once and never changed
    found = [f for module, tree in _modules() if ".migrations." not in module for f in long_functions(module, tree)]
    assert found == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from curator.cli.analysis import _nm\n", 1),
        ("from curator.review import service\nservice._decision_dict(1)\n", 1),
        ("import curator.review.service as s\ns._x\n", 1),
        ("from curator.review.service import decision_dict\n", 0),
        ("from curator.review import service\nservice.__name__\n", 0),
        ("class A:\n    def f(self):\n        return self._x\n", 0),
    ],
)
def test_private_uses_are_found(source, expected):
    assert len(private_uses("curator.other", ast.parse(source))) == expected


def test_long_functions_are_found():
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES - 1))
    assert long_functions("m", ast.parse(f"def ok():\n{body}")) == []
    assert len(long_functions("m", ast.parse(f"def long():\n{body}    return 1\n"))) == 1

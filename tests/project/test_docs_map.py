"""docs/architecture.md stays the map (issue 40 §1, review finding P2-1): every module of
curator/ is named there, and the packages with many modules — core, review, web — are a table
with one row per module (Module | Owns), not a paragraph no one can scan."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAP = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
TABLES = ("core", "review", "web")
LONGEST_PARAGRAPH = 2000  # characters: a bullet longer than this is a table waiting to happen


def modules() -> list[Path]:
    return sorted(
        p.relative_to(ROOT / "curator")
        for p in (ROOT / "curator").rglob("*.py")
        if p.name not in ("__init__.py", "__main__.py") and "versions" not in p.parts
    )


def table_rows(package: str) -> list[str]:
    """The first cell of each row of the `### package` table."""
    section = re.search(rf"^### {package}\n(.*?)(?=^#)", MAP, re.S | re.M)
    assert section, f"docs/architecture.md has no '### {package}' section"
    return re.findall(r"^\| `([^`]+)`", section.group(1), re.M)


def test_every_module_is_named_in_the_map():
    missing = [str(m) for m in modules() if not re.search(rf"\b{re.escape(m.stem)}\b", MAP)]
    assert missing == []


@pytest.mark.parametrize("package", TABLES)
def test_a_large_package_is_a_table_with_a_row_per_module(package):
    rows = table_rows(package)
    assert len(rows) == len(set(rows)), f"a module named twice in the {package} table"
    top = {m.parts[1] if len(m.parts) > 2 else m.name for m in modules() if m.parts[0] == package}
    shown = {row.rstrip("/") for row in rows}
    folders = {name for name in top if "." not in name}
    assert {name for name in top if name.endswith(".py")} - shown == set()
    assert folders - shown == set()


def test_no_layer_is_a_paragraph_over_2000_characters():
    layers = re.search(r"^## What each layer owns\n(.*?)(?=^## )", MAP, re.S | re.M)
    assert layers
    paragraphs = re.split(r"\n(?=- \*\*)|\n\n", layers.group(1))
    assert [p[:60] for p in paragraphs if len(p) > LONGEST_PARAGRAPH and not p.startswith("|")] == []


def test_the_command_reference_says_none_one_way():
    """docs/hooks/cli_reference.py: click's UNSET marker and Python's None both read "none"."""
    import importlib.util
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "docs" / "hooks" / "cli_reference.py")
    assert spec and spec.loader
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page = SimpleNamespace(file=SimpleNamespace(src_uri="reference/cli.md"))
    row = "<tr><td><code>--x</code></td><td>help: None of these</td><td>{}</td>\n</tr>"
    html = "".join(
        row.format(d) for d in ("None", "<code>None</code>", "<code>Sentinel.UNSET</code>", "<code>2</code>")
    )
    shown = hook.on_page_content(html, page)
    assert re.findall(r"<td>([^<]*|<code>[^<]*</code>)</td>\s*</tr>", shown) == [
        "none",
        "none",
        "none",
        "<code>2</code>",
    ]
    assert "help: None of these" in shown  # only the Default column


def test_report_usage_names_each_argument_once():
    from click.testing import CliRunner

    from curator.cli import main

    usage = CliRunner().invoke(main, ["report", "--help"]).output.splitlines()[0]
    assert usage.endswith("RUN... OUT") and "OUT OUT" not in usage

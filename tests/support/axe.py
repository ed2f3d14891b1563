"""axe-core in the browser tests: `assert_accessible(page, context)` runs axe on the page as it
is now and fails on violations of impact "serious" or "critical", naming each rule, the elements
and axe's help. axe-core comes from npm (`bash bin/dev test` installs it into .cache/npm;
CURATOR_AXE names another axe.min.js); without it the calling test skips and says why.

The app's CSP (default-src 'self') refuses injected scripts: the browser context must be made
with `bypass_csp=True`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AXE = Path(os.environ.get("CURATOR_AXE") or ROOT / ".cache" / "npm" / "node_modules" / "axe-core" / "axe.min.js")
FAILING = ("serious", "critical")

_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
    nodes: v.nodes.map(n => ({target: n.target.join(" "), summary: n.failureSummary || ""})),
  }));
}"""


def axe_path() -> Path:
    if not AXE.is_file():
        pytest.skip(
            f"axe-core not found at {AXE}: `bash bin/dev test` installs it when npm exists "
            "(npm install --no-save --prefix .cache/npm axe-core@4)"
        )
    return AXE


def violations(page) -> list[dict]:
    """Every axe violation on the page now (any impact)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(axe_path()))
    return page.evaluate(_RUN)


def describe(found: list[dict]) -> str:
    lines = []
    for v in found:
        lines.append(f"  [{v['impact']}] {v['id']}: {v['help']} ({v['helpUrl']})")
        lines += [
            f"      {n['target']}  — {n['summary'].splitlines()[-1].strip() if n['summary'] else ''}"
            for n in v["nodes"][:8]
        ]
        if len(v["nodes"]) > 8:
            lines.append(f"      … and {len(v['nodes']) - 8} more")
    return "\n".join(lines)


def assert_accessible(page, context: str = "") -> None:
    """Fails (AssertionError) on serious or critical violations; prints the rest as a note."""
    found = violations(page)
    bad = [v for v in found if v["impact"] in FAILING]
    minor = [v for v in found if v["impact"] not in FAILING]
    if minor:
        print(f"axe, minor ({context or page.url}):\n{describe(minor)}")
    assert not bad, f"axe: {len(bad)} serious/critical violation(s) on {context or page.url}:\n{describe(bad)}"

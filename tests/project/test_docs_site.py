"""The documentation site (mkdocs.yml, docs/) and the README, its front door (issue 40 §1).

The strict build is also one of the static checks (`bash bin/dev check`); here it is checked
that the build really is strict (an orphan page, a broken link or a broken anchor fails it),
that the generated reference holds every command of the click group, and that the README stays
a front door whose links land on pages of the site.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml

from curator.cli import main
from curator.core.settings import ENV

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of the project at `root` into `site` (not --quiet: it hides the
    warnings, and --strict then has none to count)."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def nav_pages(nav: object) -> list[str]:
    """Every page named in mkdocs.yml's nav, depth first."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for entry in nav for page in nav_pages(entry)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    return []


def config() -> dict[str, object]:
    """mkdocs.yml (plain YAML: no !!python tags, so safe_load reads it)."""
    loaded = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    result = build(ROOT, out)
    assert result.returncode == 0, result.stderr
    return out


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page():
    pages = nav_pages(config()["nav"])
    on_disk = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert sorted(set(pages)) == sorted(on_disk)
    assert len(pages) == len(set(pages)), "a page is in the nav twice"


def commands(group: click.Group, prefix: str = "curator") -> list[tuple[str, click.Command]]:
    """(`curator release export`, its command), … for the group and every command under it."""
    found: list[tuple[str, click.Command]] = [(prefix, group)]
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += commands(command, f"{prefix} {name}")
        else:
            found.append((f"{prefix} {name}", command))
    return found


def test_the_command_reference_holds_every_command_and_option(site: Path):
    html = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    # each command's section: from its heading to the next heading
    parts = re.split(r'<h[1-6] id="([^"]+)"', html)
    sections = dict(zip(parts[1::2], parts[2::2], strict=True))
    missing = []
    for path, command in commands(main):
        section = sections.get(path.replace(" ", "-"))
        if section is None:
            missing.append(path)
            continue
        flags = [flag for param in command.params if isinstance(param, click.Option) for flag in param.opts]
        missing += [f"{path} {flag}" for flag in flags if f"<code>{flag}" not in section]
    assert not missing, f"not in the command reference: {missing}"
    assert "Sentinel" not in html  # click's marker for "no default" (docs/hooks/cli_reference.py)
    assert len(sections) > 60  # every command has its heading


def test_the_generated_pages_are_built(site: Path):
    settings = (site / "reference" / "settings" / "index.html").read_text(encoding="utf-8")
    assert "<!-- settings-table -->" not in settings
    assert all(f"<code>{variable}</code>" in settings for variable in ENV.values())
    changelog = (site / "changelog" / "index.html").read_text(encoding="utf-8")
    first = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
    assert first in changelog and "Unreleased" in changelog


def test_the_strict_build_fails_on_an_orphan_page_a_broken_link_and_a_broken_anchor(tmp_path: Path):
    project = tmp_path / "project"
    shutil.copytree(ROOT / "docs", project / "docs", ignore=shutil.ignore_patterns("*.png", "__pycache__"))
    for name in ("mkdocs.yml", "CHANGELOG.md"):
        shutil.copy(ROOT / name, project / name)
    for png in (ROOT / "docs").rglob("*.png"):  # the pages' pictures, as empty files: only their names count
        (project / "docs" / png.relative_to(ROOT / "docs")).touch()
    (project / "docs" / "orphan.md").write_text("# Orphan\n\nNo nav entry.\n", encoding="utf-8")
    getting_started = project / "docs" / "getting-started.md"
    getting_started.write_text(
        getting_started.read_text(encoding="utf-8") + "\n[gone](gone.md) and [nowhere](index.md#no-such-heading)\n",
        encoding="utf-8",
    )
    result = build(project, tmp_path / "site")
    assert result.returncode != 0
    assert "orphan.md" in result.stderr and "not included in the" in result.stderr
    assert "gone.md" in result.stderr
    assert "#no-such-heading" in result.stderr


def test_the_readme_is_a_front_door():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    # the two commands, as bin/dev's usage names them (`.ci/run` runs the second)
    assert re.search(r"^bash bin/dev serve   # ", text, re.M)
    assert re.search(r"^bash bin/dev test    # .*what CI runs: \.ci/run", text, re.M)
    assert "bash bin/dev test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    tour = text.split("## A five-line tour", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    # one command per stage, in order; the setup lines between them (init, the candidates) are not stages
    stages = ("ingest", "review", "release", "probe", "report")
    said = [line.split("# ", 1)[1].split(":")[0] for line in tour if "# " in line]
    assert list(dict.fromkeys(s for s in said if s in stages)) == list(stages)
    commands = {line.split("# ", 1)[1].split(":")[0]: line.split()[1] for line in reversed(tour) if "# " in line}
    assert [commands[s] for s in stages] == ["ingest", "serve", "release", "probe", "report"]
    assert re.search(r"!\[[^\]]+\]\(docs/[^)]+\.png\)", text), "one picture"


def test_the_readmes_links_land_on_pages_of_the_site():
    text = README.read_text(encoding="utf-8")
    pages = set(nav_pages(config()["nav"]))
    targets = re.findall(r"\]\((?!https?:)([^)#]+)(?:#[^)]*)?\)", text)
    assert len(targets) >= 20
    for target in targets:
        assert (ROOT / target).is_file(), f"README links to {target}, which does not exist"
        if target.startswith("docs/") and target.endswith(".md"):
            assert target.removeprefix("docs/") in pages, f"README links to {target}, not in mkdocs.yml's nav"

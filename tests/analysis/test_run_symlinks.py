"""No reader of a probe run follows a symbolic link inside it: a language folder, prediction
file or run.json linked to a file elsewhere is refused in one line by the CLI (exit 1) and
answered 404 by the web app's probe pages, and the outside file is never read (its content,
here a JSON key, appears nowhere)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.analysis.test_report import TEMPLATES, make_run
from tests.plugins.servers import Browser

SECRET = "outside-secret-key"  # the one key of the outside JSON file: never echoed


def _outside(tmp_path: Path) -> Path:
    """A folder outside the runs folder holding a JSON object that any reader would echo."""
    folder = tmp_path / "elsewhere"
    (folder / "es").mkdir(parents=True, exist_ok=True)
    for path in (folder / "secret.json", folder / "es" / "P17.json"):
        path.write_text(json.dumps({SECRET: "a value"}), encoding="utf-8")
    return folder


def _link_language(run: Path, outside: Path) -> Path:
    shutil.rmtree(run / "es")
    (run / "es").symlink_to(outside / "es", target_is_directory=True)
    return run / "es"


def _link_prediction(run: Path, outside: Path) -> Path:
    (run / "es" / "P17.json").unlink()
    (run / "es" / "P17.npz").unlink()
    (run / "es" / "P17.json").symlink_to(outside / "secret.json")
    return run / "es" / "P17.json"


def _link_run_info(run: Path, outside: Path) -> Path:
    (run / "run.json").unlink()
    (run / "run.json").symlink_to(outside / "secret.json")
    return run / "run.json"


LINKS = {"language folder": _link_language, "prediction file": _link_prediction, "run.json": _link_run_info}


@pytest.fixture(params=sorted(LINKS))
def linked(request, tmp_path) -> tuple[Path, Path]:
    """(run, the link planted in it), the run in tmp_path/runs (the review app's runs folder)."""
    run = make_run(tmp_path / "runs" / "linked", TEMPLATES)
    return run, LINKS[request.param](run, _outside(tmp_path))


def _refused(result, link: Path) -> None:
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert lines == [
        f"Error: {link}: is a symbolic link; links inside a run are refused, so nothing outside the run is read"
    ], result.output
    assert SECRET not in result.output


def test_the_cli_refuses_a_run_holding_a_link(cli, linked, tmp_path):
    run, link = linked
    _refused(cli("metrics", run, ok=False), link)
    _refused(cli("metrics", run, "--json", ok=False), link)
    _refused(cli("report", run, tmp_path / "report", ok=False), link)
    _refused(cli("rankc", run, ok=False), link)
    assert not (tmp_path / "report" / "index.html").exists()


def test_the_probe_pages_do_not_serve_a_run_holding_a_link(review_app, linked, tmp_path):
    _run, link = linked
    make_run(tmp_path / "runs" / "plain", TEMPLATES)
    boss = Browser(review_app).login("boss@example.org")
    for path in (
        "/probe/runs/linked",
        "/probe/runs/linked/metrics.png",
        "/probe/runs/linked/rankc.png",
        "/probe/runs/linked?convention=mpararel",
        "/probe/compare?run=plain&run=linked",
    ):
        response = boss.get(path)
        assert response.status_code == 404, path
        assert SECRET not in response.get_data(as_text=True)
    assert boss.get("/probe/runs/plain").status_code == 200
    listing = boss.get("/probe/runs")
    page = listing.get_data(as_text=True)
    assert listing.status_code == 200 and SECRET not in page
    assert f"{link}: is a symbolic link" in page  # the row says why the run is not shown


def test_the_latest_run_and_the_probe_hint_skip_links(tmp_path):
    import os

    from curator.core.formats.run_catalog import latest_run, list_runs, resolve_run
    from curator.quality.probe_hint import probe_hint

    runs = tmp_path / "runs"
    mine = make_run(runs / "mine", TEMPLATES)
    linked = make_run(runs / "linked", TEMPLATES)
    _link_run_info(linked, _outside(tmp_path))
    os.utime(tmp_path / "elsewhere" / "secret.json")  # the link's target is the newest file of all
    assert latest_run(runs) == mine
    assert resolve_run(runs, "linked") is None and resolve_run(runs, "mine") == mine
    rows = {r["name"]: r for r in list_runs(runs)}
    assert rows["linked"]["error"].endswith(
        "is a symbolic link; links inside a run are refused, so nothing outside the run is read"
    )
    assert rows["linked"]["languages"] == 0 and rows["mine"]["languages"] == 3

    template = TEMPLATES["es"]["P17"][0]
    assert probe_hint(runs, "es", "P17", template) is not None
    # a newer run with a linked prediction file or language folder is passed over for the clean one
    for link in (_link_prediction, _link_language):
        newer = make_run(runs / f"newer-{link.__name__}", TEMPLATES)
        link(newer, _outside(tmp_path / link.__name__))
        os.utime(newer / "run.json", ns=(2**62, 2**62))
        assert latest_run(runs) == mine and resolve_run(runs, newer.name) is None
        assert probe_hint(runs, "es", "P17", template) is not None

    # a link planted in the latest run after it was chosen: the hint reads nothing through it
    _link_prediction(mine, tmp_path / "elsewhere")
    assert probe_hint(runs, "es", "P17", template) is None


def test_the_readers_refuse_each_link_on_their_own(tmp_path):
    """Each file reader refuses a link by itself (O_NOFOLLOW), not only after a scan of the run:
    a link planted after a run was checked is refused too."""
    from curator.core.formats.runs import RunError, load_relation, read_stored, run_info

    outside = _outside(tmp_path)
    run = make_run(tmp_path / "runs" / "r", TEMPLATES)
    _link_prediction(run, outside)
    with pytest.raises(RunError, match=r"P17\.json: is a symbolic link"):
        load_relation(run / "es" / "P17.json")
    (run / "es" / "P17.npz").symlink_to(run / "es" / "P36.npz")  # a link to a file inside the run: refused too
    with pytest.raises(RunError, match=r"P17\.json: is a symbolic link"):
        read_stored(run, "es", "P17")
    (run / "es" / "P17.json").unlink()
    shutil.copy(run / "es" / "P36.json", run / "es" / "P17.json")  # a real index, its arrays a link
    for read in (lambda: read_stored(run, "es", "P17"), lambda: load_relation(run / "es" / "P17.json")):
        with pytest.raises(RunError, match=r"^\S+/es/P17.npz: is a symbolic link"):  # said as such, not "damaged"
            read()
    shutil.rmtree(run / "ar")
    (run / "ar").symlink_to(run / "en", target_is_directory=True)
    with pytest.raises(RunError, match="r/ar: is a symbolic link"):  # the language folder is named
        load_relation(run / "ar" / "P36.json")
    _link_run_info(run, outside)
    with pytest.raises(RunError, match=r"run\.json: is a symbolic link"):
        run_info(run)


def test_a_run_folder_named_on_the_command_line_may_itself_be_a_link(cli, tmp_path):
    """What the user types is theirs to choose: only links inside the run are refused."""
    run = make_run(tmp_path / "runs" / "real", TEMPLATES)
    alias = tmp_path / "alias"
    alias.symlink_to(run, target_is_directory=True)
    assert json.loads(cli("metrics", alias, "--json").output) == json.loads(cli("metrics", run, "--json").output)

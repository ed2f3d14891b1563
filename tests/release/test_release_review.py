"""Reviews applied to a release on the demo seed: policies, dashboard, immutability, exports."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select, text

from curator.core.models import DatasetVersion, VersionPattern
from curator.core.models.release import ImmutableVersionError
from curator.review.policy import stays
from curator.review.stats import cohen_kappa
from tests.plugins.servers import Browser, csrf_from

pytestmark = pytest.mark.backends("sqlite", "postgresql")


def test_policies():
    assert stays(["accept", "reject"], "any") and not stays(["reject", "amend"], "any")
    assert not stays(["accept", "reject"], "majority") and stays(["accept", "accept", "reject"], "majority")
    assert stays(["accept", "accept"], "unanimous") and not stays(["accept", "amend"], "unanimous")


def test_cohen_kappa_matches_a_hand_computed_value():
    # 10 pairs: 6 agree (4 accept, 2 reject), 2 accept/reject, 2 reject/accept.
    # Each side: 6 accept, 4 reject, so chance agreement = (6·6 + 4·4) / 100 = 0.52.
    pairs = (
        [("accept", "accept")] * 4
        + [("reject", "reject")] * 2
        + [("accept", "reject")] * 2
        + [("reject", "accept")] * 2
    )
    assert cohen_kappa(pairs) == pytest.approx((0.6 - 0.52) / (1 - 0.52))  # = 1/6
    assert cohen_kappa([("accept", "accept")] * 3) is None  # chance agreement is total: undefined
    assert cohen_kappa([]) is None


@pytest.fixture
def reviewed(review_app, cli, tmp_path):
    """Ana and Bo review Spanish on the seed; a candidates version exists."""
    cli("release", "build", "v0")
    rows = [
        {
            "reviewer": "ana@example.org",
            "language": "es",
            "relation": "P19",
            "template": "[X] nació en [Y]",
            "decision": "accept",
        },
        {
            "reviewer": "bo@example.org",
            "language": "es",
            "relation": "P19",
            "template": "[X] nació en [Y]",
            "decision": "accept",
        },
        {
            "reviewer": "ana@example.org",
            "language": "es",
            "relation": "P36",
            "template": "la capital de [X] es [Y]",
            "decision": "reject",
        },
        {
            "reviewer": "bo@example.org",
            "language": "es",
            "relation": "P36",
            "template": "la capital de [X] es [Y]",
            "decision": "amend",
            "correction": "la capital de [X] es [Y] hoy",
        },
    ]
    path = tmp_path / "decisions.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    cli("review", "import", path)
    return review_app


def test_review_stats_and_dashboard(reviewed, cli):
    out = cli("review", "stats").output
    assert "es" in out and "wrong:" in out
    summary = json.loads(cli("review", "stats", "--json").output)
    es = next(r for r in summary["languages"] if r["language"] == "es")
    assert (es["accepted"], es["amended"], es["rejected"], es["pairs_compared"]) == (2, 1, 1, 2)
    assert es["agreement"] == 0.5
    csv_text = cli("review", "stats", "--csv").output
    boss = Browser(reviewed).login("boss@example.org")
    assert boss.get("/admin/dashboard.csv").get_data(as_text=True) == csv_text
    page = boss.get("/admin/").get_data(as_text=True)
    assert "Review dashboard" in page and "v0" in page and "Spanish" in page
    svg = boss.get("/admin/versions/v0/chart.svg")
    assert svg.mimetype == "image/svg+xml" and b"<svg" in svg.data
    ana = Browser(reviewed).login("ana@example.org")
    for path in (
        "/admin/",
        "/admin/dashboard.csv",
        "/admin/versions/v0/chart.svg",
        "/admin/release/preview",
        "/admin/diff?a=v0&b=v0",
    ):
        assert ana.get(path).status_code == 403
    assert ana.client.post("/admin/release/build", data={"csrf_token": ana.token, "name": "x"}).status_code == 403


def test_preview_and_build_from_the_dashboard(reviewed, sessions):
    boss = Browser(reviewed).login("boss@example.org")
    page = boss.get("/admin/release/preview?policy=any").get_data(as_text=True)
    assert "la capital de [X] es [Y] hoy" in page and "(amended)" in page
    r = boss.client.post(
        "/admin/release/build",
        data={"csrf_token": csrf_from(page), "name": "v1", "policy": "any", "parent": "v0", "confirm": "1"},
    )
    assert r.status_code == 302 and "/admin/diff?a=v0&b=v1" in r.headers["Location"]
    diff = boss.get(r.headers["Location"]).get_data(as_text=True)
    assert "la capital de [X] es [Y] hoy" in diff and "now checked by a human" in diff
    again = boss.client.post(
        "/admin/release/build",
        data={"csrf_token": csrf_from(page), "name": "v1", "policy": "any", "parent": "v0", "confirm": "1"},
    )
    assert again.status_code == 409  # the form again, with the reason and the name kept
    assert "already exists" in again.get_data(as_text=True) and 'value="v1"' in again.get_data(as_text=True)
    with sessions() as s:
        v1 = s.scalar(select(DatasetVersion).where(DatasetVersion.name == "v1"))
        assert v1.parent.name == "v0" and v1.kind == "review" and v1.params["policy"] == "any"
    no_csrf = boss.client.post("/admin/release/build", data={"name": "v2"})
    assert no_csrf.status_code == 400


def test_released_versions_never_change(reviewed, cli, sessions, engine):
    cli("release", "build", "v1", "--from-review")
    with sessions() as s:
        pattern = s.scalars(select(VersionPattern)).first()
        pattern.pattern = "[X] cambiado [Y]"
        with pytest.raises(ImmutableVersionError):
            s.commit()
        s.rollback()
        version = s.scalar(select(DatasetVersion).where(DatasetVersion.name == "v1"))
        s.delete(version)
        with pytest.raises(ImmutableVersionError):
            s.flush()
    for sql in (
        "UPDATE version_patterns SET pattern = 'x'",
        "DELETE FROM version_patterns",
        "DELETE FROM dataset_versions",
        "UPDATE version_tuples SET list_id = list_id",
        "UPDATE tuples SET obj_label = 'x'",
    ):
        with engine.connect() as conn, pytest.raises(Exception, match="immutable"):
            conn.execute(text(sql))
    result = cli("release", "build", "v1", "--from-review", ok=False)
    assert "already exists" in result.output


def test_reviewed_export_card_stats_and_hf(reviewed, cli, tmp_path):
    cli("release", "build", "v1", "--from-review", "--policy", "unanimous")
    out = tmp_path / "v1"
    cli("release", "export", "v1", out, "--hf")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["policy"] == "unanimous" and manifest["parent"] == "v0"
    assert {"hf/patterns.jsonl", "hf/tuples.jsonl"} <= set(manifest["files"])
    card = (out / "README.md").read_text()
    assert card.startswith("---\nconfigs:") and "## Human review" in card and "`unanimous`" in card
    hf = [json.loads(line) for line in (out / "hf" / "patterns.jsonl").read_text().splitlines()]
    assert sum(1 for p in (out / "patterns").glob("*/*.jsonl") for _ in p.read_text().splitlines()) == len(hf)
    assert set(hf[0]) == {"language", "relation", "pattern", "checked_by_human"}  # no annotated template
    assert any(r["pattern"] == "la capital de [X] es [Y] hoy" and r["checked_by_human"] for r in hf)
    stats = cli("stats", out, "--plot", tmp_path / "chart.png").output
    assert "Human review" in stats and "| es | 2 |" in stats
    assert (tmp_path / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert cli("stats", out, "--plot", tmp_path / "chart.gif", ok=False).exit_code == 1
    # same state, same bytes (the chart included)
    cli("release", "export", "v1", tmp_path / "again", "--hf")
    from tests.support.files import tree_bytes

    assert tree_bytes(out) == tree_bytes(tmp_path / "again")
    cli("stats", out, "--plot", tmp_path / "chart2.png")
    assert (tmp_path / "chart2.png").read_bytes() == (tmp_path / "chart.png").read_bytes()


def test_preview_without_a_candidate_version_offers_the_snapshot_an_unknown_one_is_404(review_app):
    """Before any snapshot there is nothing to apply reviews to: the page says so and offers the
    snapshot (the same service as `curator release build`); an unknown version or diff is a 404."""
    boss = Browser(review_app).login("boss@example.org")
    missing = boss.get("/admin/release/preview?policy=any")
    text = missing.get_data(as_text=True)
    assert missing.status_code == 200 and "No candidates snapshot yet" in text and "Snapshot the candidates" in text
    unknown = boss.get("/admin/release/preview?policy=any&parent=nope")
    assert unknown.status_code == 404 and "no dataset version named" in unknown.get_data(as_text=True)
    assert boss.get("/admin/diff?a=nope&b=other").status_code == 404

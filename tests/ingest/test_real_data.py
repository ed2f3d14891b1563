"""Stage 1 on the full real data in ../shared/data (ParaRel, five MT systems, ~1.1M tuples).

One module-scoped database is built through the CLI (about two minutes); the tests then
compare it with hand-checked cases and with an independent in-memory re-computation of
mParaRel's procedure (votes ≥ 2 with Bing counted twice, coverage ≥ 60% / 20%).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

import pytest
from sqlalchemy import select

from curator.core.db import make_engine, make_session_factory
from curator.core.languages import canonical
from curator.core.models import LanguageCoverage, RelationCoverage, Template, TranslationLine
from curator.ingest.clean import check
from curator.ingest.profiles import case_key
from tests.plugins.cli import Cli
from tests.plugins.real_data import need_shared
from tests.support.files import tree_bytes

pytestmark = pytest.mark.slow  # the whole real mParaRel ingested, built and exported (minutes)


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    data = need_shared()
    root = tmp_path_factory.mktemp("real")
    cli = Cli(f"sqlite:///{root / 'real.sqlite'}")
    cli("init")
    cli("ingest", "pararel", data / "pararel" / "patterns")
    cli("ingest", "translations", data / "mpararel" / "translations")
    cli("ingest", "tuples", data / "mpararel" / "tuples")
    summary = json.loads(cli("candidates", "build", "--json").output)
    cli("release", "build", "candidates")
    cli("release", "export", "candidates", root / "release")
    engine = make_engine(cli.url)
    yield dict(
        cli=cli, data=data, root=root, summary=summary, sessions=make_session_factory(engine), release=root / "release"
    )
    engine.dispose()


def _template(s, lang, rel, text) -> Template:
    return s.scalar(
        select(Template).where(Template.language == lang, Template.relation_id == rel, Template.text == text)
    )


def test_spanish_born_in_voters(real):
    with real["sessions"]() as s:
        born = _template(s, "es", "P19", "[X] nació en [Y]")
        assert born.systems == [
            "pararel_bing",
            "pararel_google",
            "pararel_m2m100_big",
            "pararel_mbart50_en2m",
            "pararel_opus_mt",
        ]
        assert born.votes == 6 and born.is_candidate
        origin = _template(s, "es", "P19", "[X] es originario de [Y]")
        assert origin.systems == ["pararel_bing", "pararel_m2m100_big"] and origin.votes == 3
        lone = _template(s, "es", "P19", "[X] era originaria de [Y]")
        assert lone.systems == ["pararel_opus_mt"] and lone.votes == 1 and not lone.is_candidate
    patterns = (real["release"] / "patterns" / "es" / "P19.jsonl").read_text().splitlines()
    texts = [json.loads(line)["pattern"] for line in patterns]
    assert "[X] nació en [Y]" in texts and "[X] era originaria de [Y]" not in texts


def test_greek_line_repaired_from_chi(real):
    with real["sessions"]() as s:
        line = s.scalar(
            select(TranslationLine).where(
                TranslationLine.system == "pararel_bing",
                TranslationLine.language == "el",
                TranslationLine.relation_id == "P101",
                TranslationLine.line_no == 2,
            )
        )
        assert line.raw == "[Y] είναι η εξειδίκευση [\u03a7]."
        assert line.repairs == [{"from": "[\u03a7]", "to": "[X]", "rule": "lookalike"}]
        assert line.cleaned == "[Y] είναι η εξειδίκευση [X]"
        template = _template(s, "el", "P101", line.cleaned)
        assert template.is_candidate and template.repaired and "pararel_bing" in template.systems


def test_bengali_transliterated_placeholders(real):
    with real["sessions"]() as s:
        line = s.scalar(
            select(TranslationLine).where(
                TranslationLine.system == "pararel_bing",
                TranslationLine.language == "bn",
                TranslationLine.relation_id == "P19",
                TranslationLine.line_no == 1,
            )
        )
        assert line.raw == "[এক্স] মূলত [ওয়াই] থেকে।"
        assert [r["rule"] for r in line.repairs] == ["transliteration", "transliteration"]
        assert line.cleaned == "[X] মূলত [Y] থেকে।"
        template = _template(s, "bn", "P19", line.cleaned)
        assert template.systems == ["pararel_bing", "pararel_google"] and template.votes == 3


def test_nothing_imported_is_lost(real):
    data = real["data"] / "mpararel" / "translations"
    expected = sum(1 for f in data.rglob("*.jsonl") for line in f.open(encoding="utf-8") if line.strip())
    with real["sessions"]() as s:
        rows = s.execute(select(TranslationLine.valid, TranslationLine.reason)).all()
    assert len(rows) == expected
    assert all(valid == (reason is None) for valid, reason in rows)
    assert sum(not valid for valid, _ in rows) > 10_000  # lost placeholders are kept, with a reason


def _independent_release(data: Path) -> dict[str, dict[str, set[str]]]:
    """mParaRel's procedure recomputed in memory from the raw files."""
    english = {
        f.stem: sum(1 for line in f.open() if line.strip()) for f in (data / "pararel" / "patterns").glob("*.jsonl")
    }
    tuples = {
        (canonical(f.parent.name), f.stem): sum(1 for line in f.open(encoding="utf-8") if line.strip())
        for f in (data / "mpararel" / "tuples").glob("*/*.jsonl")
    }
    voters: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for f in (data / "mpararel" / "translations").glob("*/*/*.jsonl"):
        system, lang, rel = f.parent.parent.name, canonical(f.parent.name), f.stem
        for line in f.open(encoding="utf-8"):
            outcome = check(json.loads(line)["pattern"], lang)
            if outcome.valid:
                voters[lang, rel, outcome.cleaned].add(system)
    candidates: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for (lang, rel, text), systems in voters.items():
        if len(systems) + ("pararel_bing" in systems) >= 2:
            candidates[lang][rel].add(text)
    en_phrases = sum(n * tuples.get(("en", rel), 0) for rel, n in english.items())
    release = {}
    for lang, rels in candidates.items():
        usable = {
            rel: texts
            for rel, texts in rels.items()
            if rel in english and len(texts) >= 2 and tuples.get((lang, rel), 0) > 0
        }
        phrases = sum(len(texts) * tuples[lang, rel] for rel, texts in usable.items())
        if len(usable) / len(english) >= 0.6 and phrases / en_phrases >= 0.2:
            release[lang] = usable
    return release


def test_release_equals_independent_recomputation(real):
    expected = _independent_release(real["data"])
    got: dict[str, dict[str, set[str]]] = defaultdict(dict)
    for f in (real["release"] / "patterns").glob("*/*.jsonl"):
        got[f.parent.name][f.stem] = {json.loads(line)["pattern"] for line in f.open(encoding="utf-8")}
    assert sorted(got) == sorted(expected)
    assert 40 <= len(got) <= 55  # mParaRel kept 46 languages
    for lang in expected:
        assert got[lang] == expected[lang], lang
    tuple_files = {
        p.relative_to(real["release"] / "tuples").as_posix() for p in (real["release"] / "tuples").glob("*/*.jsonl")
    }
    assert tuple_files == {f"{lang}/{rel}.jsonl" for lang in expected for rel in expected[lang]}


def test_coverage_summary_and_aliases(real):
    rows = {r["language"]: r for r in real["summary"]["languages"]}
    assert "zh-hans" in rows and "zh" not in rows  # SPEC §1 language code mapping
    assert rows["en"]["included"] and rows["es"]["included"]
    assert not rows["yo"]["included"]
    with real["sessions"]() as s:
        es = s.get(LanguageCoverage, "es")
        assert math.isclose(es.relation_share, es.usable_relations / 39)


def test_tuples_exported_byte_for_byte(real):
    """The published tuple files come back out unchanged, zh aliases included."""
    exported = sorted((real["release"] / "tuples").glob("*/*.jsonl"))
    assert len(exported) > 1500
    for ours in exported:
        theirs = real["data"] / "mpararel" / "tuples" / ours.parent.name / ours.name
        assert ours.read_bytes() == theirs.read_bytes(), ours


def test_export_twice_is_byte_identical(real):
    again = real["root"] / "again"
    real["cli"]("release", "export", "candidates", again)
    assert tree_bytes(again) == tree_bytes(real["release"])


# ---------------------------------------------------------------- reviews applied to the real candidates
def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_reviewed_release_end_to_end(real):
    cli, release = real["cli"], real["release"]
    for email in ("ana@example.org", "bo@example.org"):
        cli("user", "create", email, "--password", "a-long-password", "--language", "es")
    candidates = {p.stem: _lines(p) for p in (release / "patterns" / "es").glob("*.jsonl")}
    p19 = [row["pattern"] for row in candidates["P19"]]
    t1, t2, t3 = "[X] nació en [Y]", "[X] es originario de [Y]", p19[-1]
    assert {t1, t2} <= set(p19) and t3 not in (t1, t2)
    smallest = min((rel for rel in candidates if rel != "P19"), key=lambda rel: (len(candidates[rel]), rel))
    doomed = [row["pattern"] for row in candidates[smallest]][:-1]  # all but one: the relation falls below 2
    accepted_rel = sorted(rel for rel in candidates if rel not in ("P19", smallest))[0]
    accepted = candidates[accepted_rel][0]["pattern"]

    def row(reviewer, rel, template, decision, correction=None):
        return {
            "reviewer": reviewer,
            "language": "es",
            "relation": rel,
            "template": template,
            "decision": decision,
            **({"correction": correction} if correction else {}),
        }

    decisions = [
        row("ana@example.org", "P19", t1, "accept"),
        row("bo@example.org", "P19", t1, "reject"),  # a conflict: policy "any" keeps it
        row("ana@example.org", "P19", t2, "amend", "[X] es oriundo de [Y]"),
        row("bo@example.org", "P19", t3, "reject"),
        {
            "reviewer": "bo@example.org",
            "language": "es",
            "relation": "P19",
            "decision": "suggest",
            "correction": "[X] vino al mundo en [Y]",
        },
        row("ana@example.org", accepted_rel, accepted, "accept"),
    ]
    decisions += [row("bo@example.org", smallest, t, "reject") for t in doomed]
    path = real["root"] / "legacy.jsonl"
    path.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in decisions) + "\n", encoding="utf-8")
    assert f"{len(decisions)} stored" in cli("review", "import", path).output

    preview = json.loads(cli("release", "preview", "--language", "es", "--json").output)
    assert {f"{r['language']}/{r['relation']}" for r in preview["relations"] if r["dropped"]} == {f"es/{smallest}"}
    cli("release", "build", "reviewed", "--from-review", "--policy", "any")
    cli("release", "export", "reviewed", real["root"] / "reviewed")
    out = real["root"] / "reviewed"

    # P19, line by line: kept in order (t1 now human-checked), then the correction, then the suggestion
    expected = [{"pattern": p, "checked-by-human": p == t1} for p in p19 if p not in (t2, t3)]
    expected += [
        {"pattern": "[X] es oriundo de [Y]", "checked-by-human": True},
        {"pattern": "[X] vino al mundo en [Y]", "checked-by-human": True},
    ]
    assert _lines(out / "patterns" / "es" / "P19.jsonl") == expected
    assert _lines(out / "patterns" / "es" / f"{accepted_rel}.jsonl") == [
        {"pattern": r["pattern"], "checked-by-human": r["pattern"] == accepted} for r in candidates[accepted_rel]
    ]
    # the relation left with one template is dropped, tuples included
    assert not (out / "patterns" / "es" / f"{smallest}.jsonl").exists()
    assert not (out / "tuples" / "es" / f"{smallest}.jsonl").exists()
    # every other relation and language is unchanged, unchecked
    for p in (release / "patterns").glob("*/*.jsonl"):
        if p.parent.name == "es" and p.stem in ("P19", smallest, accepted_rel):
            continue
        assert (out / "patterns" / p.parent.name / p.name).read_bytes() == p.read_bytes()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["parent"] == "candidates" and manifest["policy"] == "any" and manifest["kind"] == "review"
    es = next(r for r in manifest["review"]["languages"] if r["language"] == "es")
    assert (es["reviewers"], es["accepted"], es["amended"], es["rejected"], es["suggestions"]) == (
        2,
        2,
        1,
        2 + len(doomed),
        1,
    )
    assert es["pairs_compared"] == 1 and es["agreement"] == 0.0
    assert "## Human review" in (out / "README.md").read_text()

    # the diff between the unreviewed and the reviewed version is exactly the decisions
    diff_json = json.loads(cli("release", "diff", "candidates", "reviewed", "--json").output)
    # the reviewed version inherits its parent's candidate rules
    assert diff_json["rules"] == {
        "candidates": {"profile": "curator", "keep_case": False},
        "reviewed": {"profile": "curator", "keep_case": False},
    }
    diff = {(d["language"], d["relation"]): d for d in diff_json["changes"]}
    assert set(diff) == {("es", "P19"), ("es", smallest), ("es", accepted_rel)}
    assert diff["es", "P19"]["removed"] == [t for t in p19 if t in (t2, t3)]
    assert diff["es", "P19"]["added"] == ["[X] es oriundo de [Y]", "[X] vino al mundo en [Y]"]
    assert diff["es", "P19"]["newly_checked"] == [t1]
    assert diff["es", smallest]["relation_removed"] and set(diff["es", smallest]["removed"]) == {
        r["pattern"] for r in candidates[smallest]
    }
    assert diff["es", accepted_rel]["newly_checked"] == [accepted]

    # majority: the conflict (1 of 2) no longer keeps t1
    cli("release", "build", "reviewed-majority", "--from-review", "--policy", "majority", "--parent", "candidates")
    majority = json.loads(cli("release", "diff", "reviewed", "reviewed-majority", "--json").output)["changes"]
    assert majority == [
        {
            "language": "es",
            "relation": "P19",
            "added": [],
            "removed": [t1],
            "newly_checked": [],
            "relation_added": False,
            "relation_removed": False,
        }
    ]


def test_full_stats_with_chart(real):
    out = real["cli"]("stats", real["release"], "--plot", real["root"] / "languages.svg").output
    assert "avg string distance" in out
    svg = (real["root"] / "languages.svg").read_text()
    assert svg.startswith("<?xml") and "#phrases" in svg


# ---------------------------------------------------------------- rule profiles (SPEC §2)
# Published mParaRel pattern sets of languages nobody reviewed (coastalcph/mpararel,
# data/mpararel_reviewed/patterns/<lang>/<REL>.jsonl), checked by hand line by line. Each
# published set also holds its relation's mLAMA template where that differs from every MT
# template; the raw MT data cannot contain it, so it is listed apart and left out of the
# expected set.
PUBLISHED = {
    ("az", "P1376"): {  # Latin; mLAMA: "[X] [Y] nin paytaxtıdır"
        "[X] [ [Y]-nin paytaxtıdır",
        "[X] — [Y]-nin mərkəzi şəhəridir",
        "[X], [Y]-nin paytaxtı",
        "[X], paytaxt şəhəri [Y]",
        "[X], yəni [Y]-nin mərkəzi şəhəridir",
        "[X], yəni [Y]-nin paytaxtıdır",
        "[Y], hansı ki, paytaxt şəhəri [X]",
        "[Y], paytaxtı [X] olan",
        "[Y]-nin kapitalı [X]dir",
        "[Y]-nin mərkəzi şəhəri [X]dir",
        "[Y]-nin paytaxt şəhəri [X]dir",
        "[Y]-nin paytaxt şəhəri, [X]",
        "[Y]-nin paytaxtı [X]dir",
        "[Y]-nin paytaxtı, [X]",
    },
    ("ar", "P101"): {  # Arabic; mLAMA: "[X] يعمل في مجال [Y]"
        "[X] متخصص في [Y]",
        "[Y] هو تخصص [X]",
        "[Y] هو مجال نشاط [X]",
        "[Y] هي خبرة [X]",
        "خبرة [X] هي [Y]",
        "مجال عمل [X] هو [Y]",
        "مجال نشاط [X] هو [Y]",
    },
    ("ru", "P127"): {  # Cyrillic; the mLAMA template is among the MT ones
        "[X] владелец [Y]",
        "[X] принадлежит [Y]",
        "[Y] владеет [X]",
        "[Y] принадлежащий [X]",
    },
    ("bn", "P101"): {  # Bengali, transliterated placeholders fixed; mLAMA: "[X] [Y] এর ক্ষেত্রে কাজ করে।"
        "[X] [Y] এলাকায় কাজ করে।",
        "[X] [Y] ক্ষেত্রে কাজ করে।",
        "[X] [Y] বিশেষজ্ঞ।",
        "[X] এর কাজের ক্ষেত্র [Y]।",
        "[X] এর কাজের ডোমেইন [Y]।",
        "[X] এর ক্রিয়াকলাপের ডোমেইন [Y]।",
        "[X] এর দক্ষতা [Y]।",
        "[Y] [X] এর ক্রিয়াকলাপের ডোমেইন।",
        "[Y] [X] এর দক্ষতা।",
        "[Y] [X] এর বিশেষত্ব।",
    },
    ("hy", "P106"): {  # Armenian, [Յ] fixed; mLAMA: "[X] մասնագիտությամբ [Y] է"
        "[X] աշխատում է որպես [Y]",
        "[X], ով աշխատում է որպես [Y]",
        "[X], ով աշխատում է որպես [Y]։",
        "[X]-ը [Y] է ըստ մասնագիտության",
        "[X]-ը [Y] է մարզմամբ",
        "[X]-ը [Y] է՝ մարզվելով",
        "[X]-ի զբաղմունքն է[Y]",
        "[X]-ի մասնագիտությունը a [Y] է",
        "[X]-ի մասնագիտությունը մի [Y] է",
        "մասնագիտությունը [X] է [Y]",
    },
    ("ko", "P101"): {  # Hangul, 【】 fixed (after the bare-letter step); mLAMA: "[X]는 [Y] 분야에서 작동합니다"
        "[X]는 [Y]의 분야에서 작동합니다",
        "[X]는 [Y]의 영역에서 작동합니다",
        "[X]의 작업 영역은 [Y]입니다",
        "[X]의 작업의 영역은 [Y]입니다",
        "[X]의 전문 지식은 [Y]입니다",
        "[X]의 전문성은 [Y]입니다",
        "[X]의 활동 영역은 [Y]입니다",
        "[X]의 활동의 영역은 [Y]입니다",
        "[Y]는 [ [X]의 전문화입니다",
        "[Y]는 [X]의 전문 지식입니다",
        "[Y]는 [X]의 전문성입니다",
        "[Y]는 [X]의 활동의 영역입니다",
    },
    ("ko", "P276"): {"[ [X] ]는 [ [Y] ]에 위치 하 고 있습니다", "[ [X] ]는 [ [Y] ]에 있습니다", "[X]는 [Y]에 있습니다"},
}
# The mLAMA template of each hand-checked relation (the published set minus the MT ones), as
# mLAMA's templates.jsonl writes it (LAMA style, " ." at the end); None: equal to an MT template.
MLAMA = {
    ("az", "P1376"): "[X] [Y] nin paytaxtıdır .",
    ("ar", "P101"): "[X] يعمل في مجال [Y] .",
    ("ru", "P127"): None,
    ("bn", "P101"): "[X] [Y] এর ক্ষেত্রে কাজ করে। .",
    ("hy", "P106"): "[X] մասնագիտությամբ [Y] է .",
    ("ko", "P101"): "[X]는 [Y] 분야에서 작동합니다 .",
    ("ko", "P276"): None,
    ("ar", "P108"): "[X] يعمل مع [Y] .",
    ("et", "P361"): "[X] on osa [Y] -st .",
    ("hu", "P361"): "[X] az [Y] része .",
    ("ja", "P276"): "[X]は[Y]にあります .",
    ("tr", "P361"): "[X], [Y] 'nin bir parçasıdır .",
}
# with their MT candidates, the five relations below complete the published sets
PUBLISHED_WITH_MLAMA = {
    **{k: v | ({MLAMA[k].removesuffix(" .")} if MLAMA[k] else set()) for k, v in PUBLISHED.items()},
    ("ar", "P108"): {"[X] يعمل ل [Y]", "[X] يعمل مع [Y]"},
    ("et", "P361"): {"[X] on osa [Y] -st", "[X] on osa [Y]"},
    ("hu", "P361"): {"[X] része [Y]", "[X] az [Y] része"},
    ("ja", "P276"): {"[X]は[Y]にあります", "[X] は [Y] にあります"},
    ("tr", "P361"): {"[X], [Y] 'nin bir parçasıdır", "[X] [Y]'nin bir parçasıdır"},
}
# Published relations with one MT template plus the mLAMA one: with the mLAMA template out
# of reach they have one candidate, so they are not usable (hand-checked against the release).
MLAMA_MADE_USABLE = {("ar", "P108"), ("et", "P361"), ("hu", "P361"), ("ja", "P276"), ("tr", "P361")}
# The 46 languages of the published release; it also met the thresholds for Hindi, which the
# authors left out by hand after review (REMOVE_LANGUAGES in their reviewed-release script).
PUBLISHED_LANGUAGES = {
    "af",
    "ar",
    "az",
    "bg",
    "bn",
    "ca",
    "cs",
    "cy",
    "da",
    "de",
    "el",
    "en",
    "es",
    "et",
    "fa",
    "fi",
    "fr",
    "ga",
    "gl",
    "he",
    "hr",
    "hu",
    "hy",
    "id",
    "is",
    "it",
    "ja",
    "ko",
    "lt",
    "lv",
    "ms",
    "nl",
    "pl",
    "pt",
    "ro",
    "ru",
    "sk",
    "sl",
    "sq",
    "sv",
    "th",
    "tr",
    "uk",
    "vi",
    "zh-hans",
    "zh-hant",
}


@pytest.fixture(scope="module")
def profiles(real):
    """A copy of the real database, built with --rules mpararel, then curator --keep-case."""
    import sqlite3

    root = real["root"]
    url = f"sqlite:///{root / 'profiles.sqlite'}"
    with (
        sqlite3.connect(real["cli"].url.removeprefix("sqlite:///")) as src,
        sqlite3.connect(url.removeprefix("sqlite:///")) as dst,
    ):
        src.backup(dst)
    cli = Cli(url)
    summary = json.loads(cli("candidates", "build", "--rules", "mpararel", "--json").output)
    engine = make_engine(url)
    with make_session_factory(engine)() as s:
        single = {
            (c.language, c.relation_id): c.candidates
            for c in s.scalars(select(RelationCoverage))
            if (c.language, c.relation_id) in MLAMA_MADE_USABLE
        }
    engine.dispose()
    cli("release", "build", "published-rules")
    cli("release", "export", "published-rules", root / "published-rules")
    mlama = root / "mlama"
    for (lang, rel), template in MLAMA.items():
        if template is not None:
            (mlama / lang).mkdir(parents=True, exist_ok=True)
            with (mlama / lang / "templates.jsonl").open("a", encoding="utf-8") as f:
                f.write(json.dumps({"relation": rel, "template": template, "label": "x"}, ensure_ascii=False) + "\n")
                f.write(json.dumps({"relation": "date_of_birth", "template": "[X] ([Y]–)"}) + "\n")  # Google-RE
    assert "10 lines of other relations skipped" in cli("ingest", "mlama", mlama).output
    cli("candidates", "build", "--rules", "mpararel")
    cli("release", "build", "published-rules-mlama")
    cli("release", "export", "published-rules-mlama", root / "published-rules-mlama")
    cased = json.loads(cli("candidates", "build", "--keep-case", "--json").output)
    cli("release", "build", "cased")
    cli("release", "export", "cased", root / "cased")
    return dict(
        cli=cli,
        url=url,
        mpararel=summary,
        cased=cased,
        single=single,
        with_mlama=root / "published-rules-mlama",
        release=root / "published-rules",
        cased_release=root / "cased",
    )


def _patterns(release: Path, lang: str, rel: str) -> list[str]:
    path = release / "patterns" / lang / f"{rel}.jsonl"
    return [json.loads(line)["pattern"] for line in path.open(encoding="utf-8")] if path.exists() else []


@pytest.mark.parametrize("lang, rel", sorted(PUBLISHED))
def test_mpararel_rules_give_the_published_sets(profiles, real, lang, rel):
    got = _patterns(profiles["release"], lang, rel)
    assert len(got) == len(set(got)) and set(got) == PUBLISHED[lang, rel]


@pytest.mark.parametrize("lang, rel", sorted(PUBLISHED_WITH_MLAMA))
def test_with_mlama_imported_the_published_sets_are_complete(profiles, lang, rel):
    got = _patterns(profiles["with_mlama"], lang, rel)
    assert len(got) == len(set(got)) and set(got) == PUBLISHED_WITH_MLAMA[lang, rel]


def test_only_the_mpararel_profile_uses_mlama(profiles):
    engine = make_engine(profiles["url"])  # last built with --rules curator --keep-case
    with make_session_factory(engine)() as s:
        from_mlama = [t for t in s.scalars(select(Template)) if "mLAMA" in t.systems]
    engine.dispose()
    assert from_mlama == []
    manifest = json.loads((profiles["with_mlama"] / "manifest.json").read_text())
    assert manifest["rules"] == {"profile": "mpararel", "keep_case": False}


def test_relations_only_mlama_made_usable_are_the_known_five(profiles):
    assert profiles["single"] == dict.fromkeys(MLAMA_MADE_USABLE, 1)
    assert not any(
        (profiles["release"] / "patterns" / lang / f"{rel}.jsonl").exists() for lang, rel in MLAMA_MADE_USABLE
    )


def test_improved_rules_differ_where_they_should(profiles, real):
    curator_ar = set(_patterns(real["release"], "ar", "P101"))
    # Bing wrote the Arabic algebra letter ص for [Y]: curator repairs it, the published rules drop the line
    assert "[X] مجال العمل هو [Y]" in curator_ar
    assert "[X] مجال العمل هو [Y]" not in _patterns(profiles["release"], "ar", "P101")
    curator_az = set(_patterns(real["release"], "az", "P1376"))
    assert "[X] [Y]-nin paytaxtıdır" in curator_az and "[X] [ [Y]-nin paytaxtıdır" not in curator_az
    curator_ko = set(_patterns(real["release"], "ko", "P101"))
    assert "[Y]는 [X]의 전문화입니다" in curator_ko and "[Y]는 [ [X]의 전문화입니다" not in curator_ko


def test_mpararel_rules_select_the_published_languages(profiles):
    summary = profiles["mpararel"]
    included = {row["language"] for row in summary["languages"] if row["included"]}
    assert included == PUBLISHED_LANGUAGES | {"hi"}
    # ParaRel's P1001 has one English pattern: the published pipeline leaves it out (38 relations)
    assert summary["english_relations"] == 38 and summary["params"]["rules"] == "mpararel"
    assert not (profiles["release"] / "patterns" / "de" / "P1001.jsonl").exists()
    # English is every cleaned ParaRel pattern of those relations, not a vote
    assert len(_patterns(profiles["release"], "en", "P19")) == sum(
        1 for _ in (need_shared() / "pararel" / "patterns" / "P19.jsonl").open()
    )


def test_rules_travel_with_the_version(profiles):
    manifest = json.loads((profiles["release"] / "manifest.json").read_text())
    assert manifest["rules"] == {"profile": "mpararel", "keep_case": False}
    card = (profiles["release"] / "README.md").read_text()
    assert "Rule profile `mpararel`" in card and "lower-cased" in card
    assert json.loads((profiles["cased_release"] / "manifest.json").read_text())["rules"] == {
        "profile": "curator",
        "keep_case": True,
    }
    diff = json.loads(profiles["cli"]("release", "diff", "published-rules", "cased", "--json").output)
    assert diff["rules"] == {
        "published-rules": {"profile": "mpararel", "keep_case": False},
        "cased": {"profile": "curator", "keep_case": True},
    }
    assert (
        "candidate rules: published-rules mpararel, cased curator (case kept)"
        in profiles["cli"]("release", "diff", "published-rules", "cased").output
    )


def test_keep_case_on_real_german(profiles, real):
    lower = _patterns(real["release"], "de", "P19")
    cased = _patterns(profiles["cased_release"], "de", "P19")
    # same votes on the folded key, so the same candidates, only their case differs
    assert sorted(case_key(t) for t in cased) == sorted(lower)
    assert any(t != case_key(t) for t in cased)
    assert "[X] ist eine [Y]-geborene Person" in cased and "[X] ist eine [Y]-geborene person" in lower


def test_compare_rules_counts_and_explains(real):
    out = json.loads(
        real["cli"](
            "candidates", "compare-rules", "--language", "ar", "--language", "az", "--examples", "500", "--json"
        ).output
    )
    rows = {r["language"]: r for r in out["languages"]}
    ar, az = rows["ar"], rows["az"]
    assert ar["added"] > 50 and ar["dropped"] == 0  # the ص lines come back
    arabic = {e["template"]: e for e in ar["examples"]["added"]}
    assert arabic["[X] مجال العمل هو [Y]"]["detail"] == "invalid under mpararel: missing [Y]"
    assert arabic["[X] مجال العمل هو [Y]"]["raw"] == "[X] مجال العمل هو [ص]."
    dropped = {e["template"]: e for e in az["examples"]["dropped"]}
    assert dropped["[X] [ [Y]-nin paytaxtıdır"]["detail"] == "curator makes it '[X] [Y]-nin paytaxtıdır'"
    merged = {e["template"]: e for e in az["examples"]["merged"]}
    assert merged["[X] [Y]-nin bir hissəsidir"]["detail"].startswith("mpararel has 2")
    assert az["merged"] == len(az["examples"]["merged"]) >= 1
    assert ar["out_of_scope"] == 1  # P1001, counted apart: not a difference of the rules
    text = real["cli"]("candidates", "compare-rules", "--language", "ar").output
    assert text.splitlines()[0].split() == [
        "lang",
        "mpararel",
        "curator",
        "added",
        "dropped",
        "merged",
        "apart",
        "relations",
        "included",
    ]
    # case alone is no difference: German compares the same with its capitals kept
    cased = json.loads(real["cli"]("candidates", "compare-rules", "--language", "de", "--keep-case", "--json").output)
    plain = json.loads(real["cli"]("candidates", "compare-rules", "--language", "de", "--json").output)
    assert cased["languages"][0]["added"] == plain["languages"][0]["added"]
    assert cased["languages"][0]["dropped"] == plain["languages"][0]["dropped"] == 0

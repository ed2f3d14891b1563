"""`curator translate`: placeholder protection on every script of the real data, the local backend
on a tiny random Marian model, and the command end to end (files, resume, failures, ingest, candidates)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from curator.ingest.clean import check
from curator.translate import TranslationError, get_translator, translate_templates, translate_templates_detailed
from curator.translate.backends.base import Translator
from curator.translate.codes import NLLB, NOT_IN_NLLB, marian_target_tokens
from curator.translate.protect import BracketScheme, TagScheme
from curator.translate.templates import translate_by_segments
from tests.conftest import SEED
from tests.plugins.real_data import SHARED_DATA
from tests.translate.test_backends_http import FakeApi, serve

BING = SHARED_DATA / "mpararel" / "translations" / "pararel_bing"


# ================================================================ placeholder protection on the real data
def mangle_tags(text: str) -> str:
    """Tag case and spacing, reordered attributes, full-width angle brackets, bidi marks, entities."""
    text = text.replace(
        '<span class="notranslate" translate="no">', '\u200f＜SPAN translate = "no" class="notranslate"＞'
    )
    text = text.replace("</span>", "< / span >\u200f").replace("<x>", "< X >").replace("</x>", "</X >")
    return text.replace("'", "&#39;").replace('"', "&quot;")


def mangle_brackets(text: str) -> str:
    """Bracket spellings that MT systems produce for the bare [X]/[Y] tokens."""
    return text.replace("[X]", "\u200f［ Ｘ ］\u200f").replace("[Y]", "[ y ]")


def bing_templates() -> dict[str, list[str]]:
    if not BING.is_dir():
        pytest.skip(f"real data not found at {BING} (../shared beside the checkout)")
    out = {}
    for folder in sorted(p for p in BING.iterdir() if p.is_dir()):
        valid = []
        for path in sorted(folder.glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                outcome = check(json.loads(line)["pattern"], folder.name)
                if outcome.valid:
                    valid.append(outcome.cleaned)
        out[folder.name] = valid
    return out


@pytest.mark.parametrize(
    "scheme", [TagScheme(), TagScheme(tag="x", attrs=""), BracketScheme()], ids=["html-span", "deepl-x", "brackets"]
)
def test_protection_round_trips_every_script_of_the_real_data(scheme):
    templates = bing_templates()
    assert len(templates) >= 60
    mangle = mangle_brackets if isinstance(scheme, BracketScheme) else mangle_tags
    checked = 0
    for language, items in templates.items():
        assert items, f"{language}: no valid templates"
        for template in items:
            protected = scheme.protect(template)
            if scheme.markup:
                assert "[X]" not in protected and "[Y]" not in protected
            assert scheme.restore(protected, language) == template, (language, template)
            assert scheme.restore(mangle(protected), language) == template, (language, template, mangle(protected))
            checked += 1
    assert checked > 15_000


def test_restore_refuses_a_lost_or_doubled_slot():
    tags = TagScheme()
    protected = tags.protect("[X] was born in [Y].")
    assert tags.restore(protected.replace(tags.protect("[Y]"), "")) is None
    assert tags.restore(protected + tags.protect("[X]")) is None
    # an element whose content was lost is the slot the other one is not
    assert tags.restore(protected.replace(">Y<", "><")) == "[X] was born in [Y]."
    assert BracketScheme().restore("[X] nació en", "es") is None
    assert BracketScheme().restore("[X] nació en [Y] y [y]", "es") is None
    bengali = "[এক্স] জন্মগ্রহণ করেন [ওয়াই]"  # transliterated slots, as in the real data
    assert BracketScheme().restore(bengali, "bn") == "[X] জন্মগ্রহণ করেন [Y]"


# ================================================================ segment fallback and language codes
class Scripted(Translator):
    """Uppercases; returns `broken` outputs for protected templates to force the fallback."""

    name = "scripted"

    def __init__(self, broken: bool):
        self.broken, self.calls = broken, []

    def _translate_batch(self, texts, source, target, markup):
        self.calls.append(list(texts))
        if self.broken and any("[X]" in t for t in texts):
            return ["lost the slots" for _ in texts]
        return [("[X] [X] " if "born" in t else "") + t.upper() for t in texts]


def test_the_runner_draws_a_bar_per_language_only_when_asked(tmp_path, capsys):
    from curator.translate.runner import EnglishRow, translate_to_files

    english = {rel: [EnglishRow("[X] was born in [Y].", None, None, None)] for rel in ("P19", "P20", "P27")}
    translate_to_files(Scripted(broken=False), english, ["es", "de"], tmp_path / "quiet")
    assert capsys.readouterr().err == ""
    summary = translate_to_files(Scripted(broken=False), english, ["es", "de"], tmp_path / "bar", progress=True)
    err = capsys.readouterr().err
    assert summary.written == 6
    assert re.search(r"translate es: 100%\|[^|]*\| 3/3 ", err) and re.search(r"translate de: 100%\|[^|]*\| 3/3 ", err)


def test_fallback_joins_segments_in_source_order_and_keeps_one_of_each_slot():
    translator = Scripted(broken=True)
    templates = ["[X] was born in [Y].", "[Y], the birthplace of [X]", "born: [X] in [Y]"]
    results = translate_templates_detailed(translator, templates, "en", "de")
    assert [r.text for r in results] == ["[X] WAS BORN IN [Y].", "[Y], THE BIRTHPLACE OF [X]", "BORN: [X] IN [Y]"]
    assert all(r.fallback and r.raw == "lost the slots" for r in results)
    # distinct segments are translated once, in one call, with the stray slot tokens the system made dropped
    assert len(translator.calls) == 2
    assert sorted(translator.calls[1]) == [", the birthplace of", "born:", "in", "was born in"]
    assert translate_by_segments(Scripted(broken=False), ["[X] was born in [Y]"], "en", "ja") == ["[X]WAS BORN IN[Y]"]


def test_templates_without_both_slots_are_refused():
    with pytest.raises(ValueError, match=r"template 1 \('\[X\] alone'\) must contain \[X\] and \[Y\] exactly once"):
        translate_templates(Scripted(broken=False), ["[X] in [Y]", "[X] alone"], "en", "de")


def test_every_language_of_the_data_has_an_nllb_code_or_is_known_missing():
    if not (SHARED_DATA / "mpararel").is_dir():
        pytest.skip(f"real data not found at {SHARED_DATA}")
    from curator.core import languages

    codes = {
        languages.canonical(p.name)
        for root in ("translations", "tuples")
        for p in (SHARED_DATA / "mpararel" / root).glob("*/" if root == "tuples" else "*/*")
        if p.is_dir()
    }
    assert len(codes) > 70
    assert sorted(c for c in codes if c not in NLLB and c not in NOT_IN_NLLB) == []
    assert all(re.fullmatch(r"[a-z]{3}_[A-Z][a-z]{3}", v) for v in NLLB.values())
    assert marian_target_tokens("zh")[:3] == [">>zh-hans<<", ">>zh<<", ">>cmn_Hans<<"]
    assert ">>spa<<" in marian_target_tokens("es")


# ================================================================ local backend on tiny random models
@pytest.fixture(scope="module")
def tiny_marian(tmp_path_factory) -> Path:
    pytest.importorskip("torch")
    from curator.probe.tiny import build_tiny

    return build_tiny(tmp_path_factory.mktemp("models") / "marian", "marian", SEED)


def test_tiny_marian_loads_offline_with_the_auto_classes(tiny_marian):
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    model = AutoModelForSeq2SeqLM.from_pretrained(tiny_marian)
    tokenizer = AutoTokenizer.from_pretrained(tiny_marian)
    assert type(model).__name__ == "MarianMTModel" and model.config.d_model == 64
    assert tokenizer("[X] was born in [Y].")["input_ids"][-1] == tokenizer.eos_token_id


def test_local_backend_returns_templates_with_both_slots(tiny_marian):
    translator = get_translator(f"local:{tiny_marian}", device="cpu", batch_size=2, rate=5, retries=1)
    assert translator.name == "local-marian"
    templates = [
        json.loads(line)["pattern"]
        for line in (SEED / "pararel" / "patterns" / "P19.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    results = translate_templates_detailed(translator, templates, "en", "is")
    assert len(results) == len(templates)
    for result in results:
        assert isinstance(result.text, str)
        assert result.text.count("[X]") == 1 and result.text.count("[Y]") == 1
    # a random model does not copy the slots: these came by segments
    assert any(r.fallback for r in results)
    assert translate_templates(translator, templates[:1], "en", "is") == [results[0].text]


def test_local_model_names(tiny_marian, tmp_path):
    from curator.translate.backends import local_system_name

    assert local_system_name("Helsinki-NLP/opus-mt-en-{tgt}") == "local-opus-mt-en"
    assert local_system_name("facebook/nllb-200-distilled-600M") == "local-nllb-200-distilled-600m"
    missing = get_translator(f"local:{tmp_path}/opus-mt-en-{{tgt}}")
    assert missing.name == "local-opus-mt-en"
    with pytest.raises(TranslationError, match=r"local-opus-mt-en: no model folder at .*/opus-mt-en-is$"):
        missing.prepare("en", "is")


def test_nllb_style_model_gets_its_language_codes(tiny_marian, tmp_path):
    """A tiny M2M100 with NLLB language tokens: source code on the tokenizer, target as forced first token."""
    import torch
    from transformers import AutoTokenizer, M2M100Config, M2M100ForConditionalGeneration

    tokenizer = AutoTokenizer.from_pretrained(tiny_marian)
    tokenizer.add_special_tokens({"additional_special_tokens": ["eng_Latn", "isl_Latn", "spa_Latn"]})
    torch.manual_seed(0)
    n = len(tokenizer)
    model = M2M100ForConditionalGeneration(
        M2M100Config(
            vocab_size=n,
            d_model=32,
            encoder_layers=1,
            decoder_layers=1,
            encoder_attention_heads=2,
            decoder_attention_heads=2,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            max_position_embeddings=64,
            pad_token_id=tokenizer.pad_token_id,
            eos_token_id=tokenizer.eos_token_id,
            decoder_start_token_id=tokenizer.eos_token_id,
        )
    )
    path = tmp_path / "nllb-tiny"
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)

    translator = get_translator(f"local:{path}", device="cpu", num_beams=1)
    translator.prepare("en", "is")
    loaded = translator._loaded
    assert loaded.family == "nllb"
    assert translator._codes(loaded, "en", "is") == ("eng_Latn", tokenizer.convert_tokens_to_ids("isl_Latn"), "")
    out = translate_templates(translator, ["[X] was born in [Y]."], "en", "is")
    assert out[0].count("[X]") == 1 and out[0].count("[Y]") == 1
    with pytest.raises(
        TranslationError,
        match=r"no language code for 'br' \(looked for 'br'\) "
        r"\(NLLB-200 does not cover it\)",
    ):
        translator.prepare("en", "br")
    with pytest.raises(TranslationError, match=r"no language code for 'fi' \(looked for 'fin_Latn'\)"):
        translator.prepare("en", "fi")


def test_cuda_asked_without_cuda_is_a_clear_error(tiny_marian):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(TranslationError, match="--device cuda asked for, but no CUDA device is available"):
        get_translator(f"local:{tiny_marian}", device="cuda").prepare("en", "is")


# ================================================================ the command end to end
@pytest.fixture
def translate(db_url):
    """Runs `curator --database URL translate …`."""
    from curator.cli import main

    runner = CliRunner()

    def run(*args: str, code: int = 0):
        result = runner.invoke(main, ["--database", db_url, "translate", *map(str, args)], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result

    return run


@pytest.fixture
def icelandic(cli, tmp_path):
    """The seeded database plus tuples for a new language, `is` (the seed's English facts)."""
    cli("seed")
    shutil.copytree(SEED / "tuples" / "en", tmp_path / "tuples" / "is")
    cli("ingest", "tuples", tmp_path / "tuples")
    return tmp_path


def english_counts() -> dict[str, int]:
    return {
        p.stem: len(p.read_text(encoding="utf-8").splitlines()) for p in (SEED / "pararel" / "patterns").glob("*.jsonl")
    }


def test_translate_writes_ingests_and_feeds_candidates(cli, translate, icelandic, tiny_marian, sessions):
    from sqlalchemy import func, select

    from curator.core.models import TranslationLine, TranslationSystem

    out = icelandic / "out"
    result = translate(
        "--languages", "is", "--system", f"local:{tiny_marian}", "--out", out, "--device", "cpu", "--batch-size", "4"
    )
    assert "system local-marian" in result.output
    assert "files: 5 written, 0 already complete, 0 failed" in result.output
    assert "next: `curator candidates build`" in result.output
    counts = english_counts()
    for rel, n in counts.items():
        english = [
            json.loads(line)
            for line in (SEED / "pararel" / "patterns" / f"{rel}.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        lines = [
            json.loads(line)
            for line in (out / "local-marian" / "is" / f"{rel}.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        assert len(lines) == n
        assert [{k: v for k, v in line.items() if k != "pattern"} for line in lines] == [
            {k: e[k] for k in ("lemma", "extended_lemma", "tense")} for e in english
        ]
        assert all(line["pattern"].count("[X]") == 1 and line["pattern"].count("[Y]") == 1 for line in lines)
    assert not list(out.rglob("*.tmp"))
    with sessions() as s:
        stored = s.scalar(
            select(func.count())
            .select_from(TranslationLine)
            .where(TranslationLine.system == "local-marian", TranslationLine.language == "is")
        )
        trusted = set(s.scalars(select(TranslationSystem.name).where(TranslationSystem.trusted)))
        assert (
            s.scalar(
                select(func.count()).where(
                    TranslationLine.english_pattern_id.is_(None), TranslationLine.system == "local-marian"
                )
            )
            == 0
        )
    assert stored == sum(counts.values())
    assert trusted == {"pararel_bing"}  # translating does not change which system is trusted

    summary = json.loads(cli("candidates", "build", "--min-votes", "1", "--min-templates", "1", "--json").output)
    row = next(r for r in summary["languages"] if r["language"] == "is")
    assert row["candidates"] > 0 and row["usable_relations"] == 5 and row["included"]

    # ... a review queue for a reviewer of the new language, and an exportable release
    from curator.review.accounts import create_user
    from curator.review.progress import queue
    from curator.review.sampling import assign

    with sessions.begin() as s:
        items = queue(s, assign(s, create_user(s, "siggi@example.org", "pw-long-enough", "reviewer"), "is"))
        assert items and all(i.relation in counts for i in items)
    cli("release", "build", "v-is")
    cli("release", "export", "v-is", icelandic / "release")
    exported = sorted((icelandic / "release" / "patterns" / "is").glob("*.jsonl"))
    assert [p.stem for p in exported] == sorted(counts)
    for path in exported:
        for line in path.read_text(encoding="utf-8").splitlines():
            pattern = json.loads(line)["pattern"]
            assert pattern.count("[X]") == 1 and pattern.count("[Y]") == 1
    assert "is" in json.loads(cli("stats", icelandic / "release", "--json").output)["languages"]

    # a second run finds every file complete and rewrites nothing
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*.jsonl")}
    again = translate("--languages", "is", "--system", f"local:{tiny_marian}", "--out", out, "--device", "cpu")
    assert "files: 0 written, 5 already complete, 0 failed" in again.output
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*.jsonl")} == before


def test_a_failing_relation_is_reported_and_the_others_land(translate, icelandic, sessions, monkeypatch):
    from sqlalchemy import select

    from curator.core.models import TranslationLine

    api = FakeApi(fail_when="capital")  # P36 is "the capital of"
    server, url = serve("libretranslate", api)
    monkeypatch.setenv("CURATOR_LIBRETRANSLATE_URL", url)
    monkeypatch.delenv("CURATOR_LIBRETRANSLATE_KEY", raising=False)
    out = icelandic / "out"
    try:
        result = translate("--languages", "is", "--system", "libretranslate", "--out", out, "--retries", "0", code=1)
        assert "files: 4 written, 0 already complete, 1 failed" in result.output
        table = result.output[result.output.index("1 relation(s) failed") :].splitlines()
        assert re.match(r"\s+language\s+relation\s+error", table[1])
        assert re.match(
            r"\s+is\s+P36\s+libretranslate: HTTP 400 from http://127\.0\.0\.1:\d+/translate: "
            r".*text too long",
            table[2],
        )
        assert not (out / "libretranslate" / "is" / "P36.jsonl").exists()
        with sessions() as s:
            landed = set(
                s.scalars(select(TranslationLine.relation_id).where(TranslationLine.system == "libretranslate"))
            )
        assert landed == {"P19", "P37", "P103", "P30"}

        api.fail_when = None  # the service recovers: the re-run does only what is missing
        retry = translate("--languages", "is", "--system", "libretranslate", "--out", out)
        assert "files: 1 written, 4 already complete, 0 failed" in retry.output
        with sessions() as s:
            rows = s.scalars(
                select(TranslationLine).where(
                    TranslationLine.system == "libretranslate", TranslationLine.relation_id == "P36"
                )
            ).all()
        english = [
            json.loads(line)["pattern"]
            for line in (SEED / "pararel" / "patterns" / "P36.jsonl").read_text(encoding="utf-8").splitlines()
        ]
        # the fake upper-cases outside the protected slots: the slots came back through the markup
        assert [r.raw for r in sorted(rows, key=lambda r: r.line_no)] == [e.upper() for e in english]
        assert all(r.valid and not r.repairs for r in rows)
    finally:
        server.shutdown()
        server.server_close()


def test_command_errors_are_one_clear_line(translate, cli, tmp_path, monkeypatch):
    cli("seed")
    monkeypatch.delenv("CURATOR_DEEPL_KEY", raising=False)
    result = translate("--languages", "is", "--system", "deepl", "--out", tmp_path / "o", code=1)
    assert "Error: deepl: no API key: set CURATOR_DEEPL_KEY" in result.output
    result = translate(
        "--languages",
        "is",
        "--system",
        "local:/nowhere/model",
        "--out",
        tmp_path / "o",
        "--relations",
        "P19,P999",
        code=1,
    )
    assert "Error: translate: no English patterns for relation(s) P999" in result.output
    result = translate(
        "--languages",
        "is,br",
        "--system",
        "local:/nowhere/model",
        "--out",
        tmp_path / "o",
        "--relations",
        "P19",
        code=1,
    )
    assert re.search(r"is\s+\*\s+local-model: no model folder at /nowhere/model", result.output)
    assert re.search(r"br\s+\*\s+local-model: no model folder", result.output)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "output, english, language, want",
    [
        ("[X]nació en [Y].", "[X] was born in [Y].", "es", "[X] nació en [Y]."),  # a space the API glued away
        ("[Y]-ban született [X].", "[X] was born in [Y] today", "hu", "[Y]-ban született [X]."),  # a hyphenated suffix
        ("[X]'in babası [Y].", "The father of [X] is [Y].", "tr", "[X]'in babası [Y]."),  # an apostrophe suffix
        ("[X]の父は[Y]です。", "The father of [X] is [Y].", "ja", "[X]の父は[Y]です。"),  # no spaces in Japanese
    ],
)
def test_respace_puts_back_glued_spaces_but_keeps_affixes(output, english, language, want):
    from curator.translate.templates import respace

    assert respace(output, english, language) == want


def test_a_translated_file_counts_as_complete_by_the_readers_line_rules(tmp_path):
    """`translate` skips a complete file; it counts lines as `ingest translations` reads them
    (core/formats/jsonl): a lone "\\r" ends no line there, so such a file is one (bad) record,
    not complete, and is translated again; a raw U+2028 inside a pattern is text."""
    from curator.core.formats.jsonl import dumps, iter_jsonl
    from curator.translate.runner import is_complete

    rows = [{"pattern": "[X] nació en\u2028[Y]", "lemma": None}, {"pattern": "[X] vive en [Y]", "lemma": None}]
    path = tmp_path / "P19.jsonl"
    path.write_bytes(dumps(rows, ascii=False))
    assert "\u2028" in path.read_text(encoding="utf-8")
    assert is_complete(path, 2) and [obj for _, obj in iter_jsonl(path.read_bytes(), str(path))] == rows
    path.write_bytes(b"\r".join(json.dumps(row).encode() for row in rows) + b"\n")
    assert not is_complete(path, 2)

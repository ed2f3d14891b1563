"""`curator models tiny`: reproducible builds, tokenizers laid out like the real families'."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from curator.probe.tiny import build_tiny
from tests.conftest import ROOT, SEED
from tests.support.files import tree_bytes

KINDS = ("bert", "xlm-roberta", "t5", "gpt2", "marian")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny-here")
    return {kind: build_tiny(root / kind, kind, SEED, seed=3) for kind in KINDS}


def test_same_corpus_and_seed_give_byte_identical_files(built, tmp_path):
    """The second build runs `curator models tiny` in another process with another string-hash
    seed, so neither Python's set/dict order of strings nor the Rust trainers' random hash maps
    can hide behind one process's luck."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=str(int(os.environ.get("PYTHONHASHSEED", "0")) + 1))
    script = (
        "import sys; from curator.cli import main\n"
        "for kind in sys.argv[3:]:\n"
        "    main(['models', 'tiny', f'{sys.argv[1]}/{kind}', '--kind', kind, '--corpus', sys.argv[2],"
        " '--seed', '3'], standalone_mode=False)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "out"), str(SEED), *KINDS],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for kind in KINDS:
        here, there = tree_bytes(built[kind]), tree_bytes(tmp_path / "out" / kind)
        assert sorted(here) == sorted(there)
        assert {"tokenizer.json", "tokenizer_config.json", "config.json", "model.safetensors"} <= set(here)
        different = [name for name in here if here[name] != there[name]]
        assert not different, f"{kind}: {different} differ between two builds"


def test_another_seed_gives_other_weights(built, tmp_path):
    other = build_tiny(tmp_path / "bert", "bert", SEED, seed=4)
    assert (other / "model.safetensors").read_bytes() != (built["bert"] / "model.safetensors").read_bytes()


def tokens(path, text: str) -> list[str]:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    return tok.convert_ids_to_tokens(tok(text)["input_ids"])


def test_bert_wordpiece_cased_with_cls_sep(built):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(built["bert"])
    assert tokens(built["bert"], "Albert Einstein nació en [MASK] [MASK].") == [
        "[CLS]",
        "Albert",
        "Einstein",
        "nació",
        "en",
        "[MASK]",
        "[MASK]",
        ".",
        "[SEP]",
    ]
    assert (tok.cls_token, tok.sep_token, tok.mask_token, tok.pad_token) == ("[CLS]", "[SEP]", "[MASK]", "[PAD]")
    assert tok.tokenize("Albert") != tok.tokenize("albert")  # cased, like bert-base-multilingual-cased
    assert any(t.startswith("##") for t in tok.get_vocab())


def test_xlm_roberta_sentencepiece_and_mask_that_swallows_the_space(built):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(built["xlm-roberta"])
    assert tokens(built["xlm-roberta"], "Albert Einstein nació en <mask> <mask>.") == [
        "<s>",
        "▁Albert",
        "▁Einstein",
        "▁nació",
        "▁en",
        "<mask>",
        "<mask>",
        "▁.",
        "</s>",
    ]
    # the pieces encoded apart would leave the "▁" the mask swallows in running text
    assert tok.tokenize("nació en ")[-1] == "▁"
    assert tok.added_tokens_decoder[tok.mask_token_id].lstrip
    assert [tok.convert_tokens_to_ids(t) for t in ("<s>", "<pad>", "</s>", "<unk>")] == [0, 1, 2, 3]
    assert tok.mask_token_id == len(tok) - 1
    assert tok.tokenize("Ulm")[0].startswith("▁")


def test_t5_sentinels_and_eos(built):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(built["t5"])
    assert tokens(built["t5"], "Albert Einstein  nació en <extra_id_0>.") == [
        "▁Albert",
        "▁Einstein",
        "▁nació",
        "▁en",
        "<extra_id_0>",
        "▁.",
        "</s>",
    ]  # no BOS, runs of spaces collapse
    assert tok.bos_token is None and tok.eos_token == "</s>" and tok.pad_token_id == 0
    assert tok.convert_tokens_to_ids("<extra_id_0>") == len(tok) - 1
    assert tok.convert_tokens_to_ids("<extra_id_99>") == len(tok) - 100


def test_gpt2_byte_level_without_bos_or_pad(built):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(built["gpt2"])
    assert tok.bos_token == tok.eos_token == tok.unk_token == "<|endoftext|>" and tok.pad_token is None
    pieces = tokens(built["gpt2"], "Albert Einstein nació en Ulm")
    assert "<|endoftext|>" not in pieces and pieces[0][0] != "Ġ"  # nothing added, no prefix space
    assert all(p.startswith("Ġ") for p in tok.tokenize(" Ulm")[:1])


def test_empty_corpus_is_one_line_error(cli, tmp_path):
    (tmp_path / "empty").mkdir()
    result = cli("models", "tiny", tmp_path / "m", "--kind", "t5", "--corpus", tmp_path / "empty", ok=False)
    assert result.exit_code == 1 and "no .jsonl text" in result.output and "Traceback" not in result.output


SLOT = {"bert": "[MASK] [MASK]", "xlm-roberta": "<mask> <mask>", "t5": "<extra_id_0>", "gpt2": "Ulm"}


def sample_queries(slot: str) -> list[str]:
    """Templates of the seed filled with its tuples, the object replaced by `slot`, plus the
    shapes where tokenizers part ways: a run of spaces, a leading space, a no-break space,
    the slot glued to a particle or an apostrophe, final punctuation after the slot."""
    from curator.probe.tiny import corpus_lines

    lines = [line for line in corpus_lines(SEED, limit=400) if " " in line][:150]
    out = [line.rsplit(" ", 1)[0] + " " + slot + end for line, end in zip(lines, [".", "", " ?"] * 50)]
    return out + [
        f"Victor Hugo  nació en {slot}",
        f" Victor Hugo nació en {slot}.",
        f"Victor\u00a0Hugo {slot}.",
        f"서울에서 태어난 {slot}는",
        f"l'{slot}",
        f"Albert Einstein nació en {slot}!",
    ]


def test_bert_family_class_stays_cased(built, tmp_path):
    """BertTokenizer (what AutoTokenizer gives for bert-base-multilingual-cased) reads
    do_lower_case from tokenizer_config.json; without it stored the tiny BERT came out
    lowercased ("al", "##bert"): the same ids as the generic load, through the scorer too."""
    from transformers import BertTokenizer

    from curator.probe.scorers import load_scorer
    from tests.probe.real_data import family_copy

    texts = sample_queries(SLOT["bert"])
    family = BertTokenizer.from_pretrained(built["bert"])
    assert family.tokenize("Albert Málaga") == ["Albert", "Málaga"]
    expected = family(texts)["input_ids"]
    assert load_scorer(str(built["bert"]), device="cpu").tokenize(texts) == expected
    scorer = load_scorer(str(family_copy(built["bert"], tmp_path / "family", "BertTokenizer")), device="cpu")
    assert type(scorer.tok).__name__ == "BertTokenizer" and scorer.tokenize(texts) == expected


def test_xlm_roberta_queries_tokenize_as_either_layout_would(built, tmp_path):
    """The tiny XLM-R keeps the published tokenizer.json layout (a bare Metaspace): what
    transformers 4's XLMRobertaTokenizerFast loads as written. transformers 5's
    XLMRobertaTokenizer, which AutoTokenizer gives for a real checkpoint, rebuilds it as
    WhitespaceSplit + Metaspace (a run of spaces makes no "▁" piece). Under each layout the
    scorer's whole-query ids are that layout's ids for the full text (scores: test_probe_scorers)."""
    from tokenizers import Tokenizer
    from transformers import XLMRobertaTokenizer

    from curator.probe.scorers import load_scorer
    from tests.probe.real_data import family_copy

    texts = sample_queries(SLOT["xlm-roberta"])
    as_written = [e.ids for e in Tokenizer.from_file(str(built["xlm-roberta"] / "tokenizer.json")).encode_batch(texts)]
    rebuilt = XLMRobertaTokenizer.from_pretrained(built["xlm-roberta"])(texts)["input_ids"]
    assert as_written != rebuilt  # the two layouts really differ on these queries
    assert load_scorer(str(built["xlm-roberta"]), device="cpu").tokenize(texts) == as_written
    family = load_scorer(
        str(family_copy(built["xlm-roberta"], tmp_path / "family", "XLMRobertaTokenizer")), device="cpu"
    )
    assert type(family.tok).__name__ == "XLMRobertaTokenizer"
    assert "WhitespaceSplit" in str(family.tok.backend_tokenizer.pre_tokenizer)
    assert family.tokenize(texts) == rebuilt


@pytest.mark.parametrize("kind", ["bert", "xlm-roberta", "t5", "gpt2"])
def test_fast_backend_shortcut_gives_the_wrappers_ids(built, kind):
    """The scorers tokenize through `backend_tokenizer.encode_batch` when that is the same as
    calling the tokenizer: special tokens included, on every sample query."""
    from curator.probe.scorers import load_scorer

    scorer = load_scorer(str(built[kind]), device="cpu")
    texts = sample_queries(SLOT[kind])
    assert scorer.shortcut
    shortcut = scorer.tokenize(texts)
    assert shortcut == scorer.tok(texts, add_special_tokens=True)["input_ids"]
    if kind in ("bert", "xlm-roberta"):  # [CLS] … [SEP], <s> … </s>
        assert all(row[0] == scorer.tok.cls_token_id and row[-1] == scorer.tok.sep_token_id for row in shortcut)
    if kind == "t5":
        assert all(row[-1] == scorer.tok.eos_token_id for row in shortcut)


@pytest.mark.parametrize("method", ["__call__", "_encode_plus"])
def test_tokenizer_subclass_with_its_own_encoding_is_not_shortcut(built, method):
    """A tokenizer class that overrides the way to the backend (CodeLlama's _encode_plus,
    CPM's and mLUKE's __call__) must be called, not bypassed: here one that uppercases."""
    from transformers import PreTrainedTokenizerFast

    from curator.probe.scorers import Options, load_scorer
    from curator.probe.scorers.masked import MaskedScorer

    def shout(self, text=None, *args, **kwargs):
        text = [t.upper() for t in text] if isinstance(text, list) else text.upper()
        return getattr(PreTrainedTokenizerFast, method)(self, text, *args, **kwargs)

    Shouting = type("Shouting", (PreTrainedTokenizerFast,), {method: shout})
    scorer = load_scorer(str(built["bert"]), device="cpu")
    texts = sample_queries(SLOT["bert"])
    plain = scorer.tokenize(texts)
    scorer = MaskedScorer(scorer.model, Shouting.from_pretrained(built["bert"]), scorer.device, Options())
    assert not scorer.shortcut
    shouted = scorer.tokenize(texts)
    assert shouted == scorer.tok(texts, add_special_tokens=True)["input_ids"] and shouted != plain

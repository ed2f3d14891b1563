"""Tiny random-weight models with real tokenizers trained on our data.

Model hubs are out of reach here, so demos, tests and benchmarks build their own models:
same classes and code paths as the real ones, a few hundred kilobytes of weights.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.core import extras
from curator.core.enums import ModelKind, values
from curator.core.errors import InputError
from curator.core.formats.jsonl import read_jsonl, require
from curator.core.formats.release import Release

if TYPE_CHECKING:
    from tokenizers import AddedToken, Tokenizer
    from tokenizers.normalizers import Normalizer
    from tokenizers.pre_tokenizers import PreTokenizer
    from transformers import PreTrainedModel

KINDS = values(ModelKind)
SENTINELS = [f"<extra_id_{i}>" for i in range(100)]  # as many as T5 has


def corpus_lines(src: str | Path, limit: int = 200_000, seed: int = 0) -> Iterator[str]:
    """Sentences from a folder of .jsonl files: templates filled with real tuples, and labels.
    Files in sorted order and a seeded sample: the same folder and seed give the same lines.

    A release folder (`patterns/` at its root) is read through the one release reader: each
    template filled with up to 5 sampled tuples of its relation, then the tuple labels; its
    `hf/` tables are not read (they repeat the same rows). Any other folder (the demo seed) is
    read file by file with the one JSONL reader: a file under a `patterns` folder is filled
    with the tuples of the matching file under `tuples` when there is one, every other row
    gives its "pattern", "sub_label" and "obj_label" strings."""
    root = Path(src)
    rng = random.Random(seed)
    if Release.is_release(root):
        yield from _release_lines(Release(root), rng, limit)
        return
    count = 0
    for path in sorted(root.rglob("*.jsonl")):
        rows = list(read_jsonl(path))
        if "patterns" in path.parts:
            tuples_path = Path(*["tuples" if p == "patterns" else p for p in path.parts])
            tuples = (
                [
                    {key: require(obj, key, str, str(tuples_path), number) for key in ("sub_label", "obj_label")}
                    for number, obj in read_jsonl(tuples_path)
                ]
                if tuples_path.exists()
                else []
            )
            for number, row in rows:
                for line in _filled(require(row, "pattern", str, str(path), number), tuples, rng):
                    yield line
                    count += 1
        else:
            for _, row in rows:
                for key in ("pattern", "sub_label", "obj_label"):
                    if isinstance(row.get(key), str):
                        yield row[key]
                        count += 1
        if count >= limit:
            return


def _filled(pattern: str, tuples: Sequence[Mapping[str, Any]], rng: random.Random) -> Iterator[str]:
    for t in rng.sample(tuples, min(5, len(tuples))) or [{"sub_label": "X", "obj_label": "Y"}]:
        yield pattern.replace("[X]", t["sub_label"]).replace("[Y]", t["obj_label"])


def _release_lines(release: Release, rng: random.Random, limit: int) -> Iterator[str]:
    count = 0
    for file in release.pattern_files():
        tuples = release.tuples(file.language, file.relation) or []
        for row in release.patterns(file.language, file.relation):
            for line in _filled(row.pattern, tuples, rng):
                yield line
                count += 1
        if count >= limit:
            return
    for file in release.tuple_files():
        for t in release.tuples(file.language, file.relation) or []:  # (a tuple file: never None)
            yield t["sub_label"]
            yield t["obj_label"]
            count += 2
        if count >= limit:
            return


def _added(content: str, lstrip: bool = False, normalized: bool = False) -> AddedToken:
    from tokenizers import AddedToken

    return AddedToken(content, lstrip=lstrip, rstrip=False, single_word=False, normalized=normalized, special=True)


def train_tokenizer(
    kind: str, lines: list[str], vocab_size: int
) -> tuple[Tokenizer, dict[str, str | AddedToken | list[str]]]:
    """(tokenizers.Tokenizer, special tokens for transformers) laid out like the real family's
    published tokenizer.json: same model type, pre-tokenizer, special tokens and their flags,
    post-processor. The vocabulary is learnt by tinytok (deterministic), not by the Rust trainers."""
    if kind == "bert":
        return _wordpiece(lines, vocab_size)
    if kind == "gpt2":
        return _byte_level_bpe(lines, vocab_size)
    return _unigram(kind, lines, vocab_size)


def _wordpiece(lines: list[str], vocab_size: int) -> tuple[Tokenizer, dict[str, str | AddedToken | list[str]]]:
    """bert-base-multilingual-cased: WordPiece, cased, [CLS] … [SEP]."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    from curator.probe.tinytok import learn_bpe, merged_tokens, word_counts

    normalizer: Normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=False
    )
    pre: PreTokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    alphabet, merges, _ = learn_bpe(word_counts(lines, normalizer, pre), vocab_size - len(specials), "##")
    vocab = list(dict.fromkeys(specials + alphabet + merged_tokens(merges, "##")))
    tok = Tokenizer(
        models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]", max_input_chars_per_word=100)
    )
    tok.normalizer, tok.pre_tokenizer, tok.decoder = normalizer, pre, decoders.WordPiece()
    tok.add_special_tokens([_added(t) for t in specials])
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS]:0 $A:0 [SEP]:0",
        pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    return tok, dict(pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")


def _byte_level_bpe(lines: list[str], vocab_size: int) -> tuple[Tokenizer, dict[str, str | AddedToken | list[str]]]:
    """gpt2: byte-level BPE, no prefix space, no BOS added, no pad token."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

    from curator.probe.tinytok import learn_bpe, merged_tokens, word_counts

    pre = pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True)
    end = "<|endoftext|>"
    alphabet, merges, _ = learn_bpe(word_counts(lines, None, pre), vocab_size - 1)
    vocab = list(
        dict.fromkeys(sorted(set(alphabet) | set(pre_tokenizers.ByteLevel.alphabet())) + merged_tokens(merges) + [end])
    )
    tok = Tokenizer(models.BPE({t: i for i, t in enumerate(vocab)}, merges))
    tok.pre_tokenizer, tok.decoder = pre, decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    tok.add_special_tokens([_added(end, normalized=True)])
    return tok, dict(bos_token=end, eos_token=end, unk_token=end)


def _unigram(kind: str, lines: list[str], vocab_size: int) -> tuple[Tokenizer, dict[str, str | AddedToken | list[str]]]:
    """SentencePiece unigram for xlm-roberta, t5 and marian (`kind`), each in its family's layout."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    from curator.probe.tinytok import learn_bpe, unigram_pieces, word_counts

    # SentencePiece unigram for xlm-roberta, t5 and marian; NFKC stands in for spm's precompiled map
    normalizer = normalizers.NFKC()
    metaspace = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    # t5's tokenizer.json splits on whitespace first (runs of spaces make no "▁" pieces); xlm-r's does not
    pre = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), metaspace]) if kind == "t5" else metaspace
    if kind == "marian":  # OPUS-MT's layout: </s> is id 0, every text ends with it, <pad> starts decoding
        head, tail, unk = ["</s>", "<unk>", "<pad>"], [], "<unk>"
    elif kind == "xlm-roberta":  # fairseq's order, <mask> last
        head, tail, unk = ["<s>", "<pad>", "</s>", "<unk>"], ["<mask>"], "<unk>"
    else:  # t5: <extra_id_0> is the last id
        head, tail, unk = ["<pad>", "</s>", "<unk>"], SENTINELS[::-1], "<unk>"
    alphabet, merges, final = learn_bpe(word_counts(lines, normalizer, pre), vocab_size - len(head) - len(tail))
    pieces = [(t, 0.0) for t in head] + unigram_pieces(alphabet, merges, final) + [(t, 0.0) for t in tail]
    tok = Tokenizer(models.Unigram(pieces, unk_id=head.index(unk), byte_fallback=False))
    tok.normalizer, tok.pre_tokenizer = normalizer, pre
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always", split=True)
    # XLM-R's <mask> swallows the space before it: "in <mask>" is ["▁in", "<mask>"], no stray "▁"
    tok.add_special_tokens([_added(t, lstrip=t == "<mask>") for t in head + tail])
    eos = tok.token_to_id("</s>")
    if kind == "xlm-roberta":
        bos = tok.token_to_id("<s>")
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", bos), ("</s>", eos)]
        )
        return tok, dict(
            bos_token="<s>",
            eos_token="</s>",
            cls_token="<s>",
            sep_token="</s>",
            pad_token="<pad>",
            unk_token="<unk>",
            mask_token=_added("<mask>", lstrip=True),
        )
    if kind == "marian":
        tok.post_processor = processors.TemplateProcessing(
            single="$A </s>", pair="$A $B </s>", special_tokens=[("</s>", eos)]
        )
        return tok, dict(eos_token="</s>", unk_token="<unk>", pad_token="<pad>")
    tok.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", eos)]
    )
    return tok, dict(eos_token="</s>", pad_token="<pad>", unk_token="<unk>", additional_special_tokens=SENTINELS)


def _tiny_model(kind: str, tok: Tokenizer, hidden: int, layers: int, heads: int) -> PreTrainedModel:
    """A random-weight model of `kind` sized for the tokenizer `tok` (the caller seeds torch)."""
    from transformers import (
        BertConfig,
        BertForMaskedLM,
        GPT2Config,
        GPT2LMHeadModel,
        XLMRobertaConfig,
        XLMRobertaForMaskedLM,
    )

    if kind in ("t5", "marian"):
        return _tiny_seq2seq(kind, tok, hidden, layers, heads)
    n = tok.get_vocab_size()
    model: PreTrainedModel
    if kind == "bert":
        model = BertForMaskedLM(
            BertConfig(
                hidden_size=hidden,
                num_hidden_layers=layers,
                num_attention_heads=heads,
                intermediate_size=2 * hidden,
                max_position_embeddings=128,
                pad_token_id=tok.token_to_id("[PAD]"),
                vocab_size=n,
            )
        )
    elif kind == "xlm-roberta":
        model = XLMRobertaForMaskedLM(
            XLMRobertaConfig(
                hidden_size=hidden,
                num_hidden_layers=layers,
                num_attention_heads=heads,
                intermediate_size=2 * hidden,
                max_position_embeddings=130,
                pad_token_id=tok.token_to_id("<pad>"),
                bos_token_id=tok.token_to_id("<s>"),
                eos_token_id=tok.token_to_id("</s>"),
                vocab_size=n,
            )
        )
    else:
        eos = tok.token_to_id("<|endoftext|>")
        model = GPT2LMHeadModel(
            GPT2Config(
                n_embd=hidden,
                n_layer=layers,
                n_head=heads,
                n_positions=128,
                bos_token_id=eos,
                eos_token_id=eos,
                vocab_size=n,
            )
        )
    return model


def _tiny_seq2seq(kind: str, tok: Tokenizer, hidden: int, layers: int, heads: int) -> PreTrainedModel:
    """A random-weight encoder-decoder (t5 or marian) sized for the tokenizer `tok`."""
    from transformers import MarianConfig, MarianMTModel, T5Config, T5ForConditionalGeneration

    n = tok.get_vocab_size()
    model: PreTrainedModel
    if kind == "t5":
        model = T5ForConditionalGeneration(
            T5Config(  # type: ignore[call-arg]  # decoder_start_token_id: accepted (kwargs), not in its typed signature
                d_model=hidden,
                d_kv=hidden // heads,
                d_ff=2 * hidden,
                num_layers=layers,
                num_heads=heads,
                pad_token_id=tok.token_to_id("<pad>"),
                eos_token_id=tok.token_to_id("</s>"),
                decoder_start_token_id=tok.token_to_id("<pad>"),
                vocab_size=n,
            )
        )
    else:
        pad, eos = tok.token_to_id("<pad>"), tok.token_to_id("</s>")
        assert pad is not None  # a special token of the tokenizer trained above
        model = MarianMTModel(
            MarianConfig(
                d_model=hidden,
                encoder_layers=layers,
                decoder_layers=layers,
                encoder_attention_heads=heads,
                decoder_attention_heads=heads,
                encoder_ffn_dim=2 * hidden,
                decoder_ffn_dim=2 * hidden,
                max_position_embeddings=128,
                decoder_vocab_size=n,
                pad_token_id=pad,
                eos_token_id=eos,
                forced_eos_token_id=eos,
                decoder_start_token_id=pad,
                vocab_size=n,
            )
        )
    return model


def build_tiny(
    out: str | Path,
    kind: str,
    corpus: str | Path,
    vocab_size: int = 2000,
    hidden: int = 64,
    layers: int = 2,
    heads: int = 2,
    seed: int = 0,
) -> Path:
    """Write a tokenizer and a random-weight model of `kind` to `out` (save_pretrained layout).

    Reproducible: the same corpus and seed give byte-identical files (tests/probe/test_tiny.py)."""
    extras.require_extra("probe", "curator models tiny")
    import torch
    from transformers import PreTrainedTokenizerFast

    if kind not in KINDS:
        raise InputError(f"kind must be one of {', '.join(KINDS)}")
    lines = list(corpus_lines(corpus, seed=seed))
    if not lines:
        raise InputError("no .jsonl text found to train a tokenizer on", location=str(corpus))
    tok, specials = train_tokenizer(kind, lines, vocab_size)
    # the generic class keeps tokenizer.json as written; a family class would rebuild it its own way.
    # BertTokenizer.from_pretrained reads do_lower_case from tokenizer_config.json and lowercases
    # unless told otherwise: stored, as bert-base-multilingual-cased stores it
    extra = dict(do_lower_case=False) if kind == "bert" else {}
    tokenizer = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]  # its __init__ is unannotated in transformers
        tokenizer_object=tok, model_max_length=128, **specials, **extra
    )
    torch.manual_seed(seed)
    model = _tiny_model(kind, tok, hidden, layers, heads)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.eval()  # type: ignore[no-untyped-call]  # unannotated in transformers
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out

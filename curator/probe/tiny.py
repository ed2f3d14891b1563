"""Tiny random-weight models with real tokenizers trained on our data.

Model hubs are out of reach here, so demos, tests and benchmarks build their own models:
same classes and code paths as the real ones, a few hundred kilobytes of weights.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Iterable, Iterator

KINDS = ("bert", "xlm-roberta", "t5", "gpt2", "marian")
SENTINELS = [f"<extra_id_{i}>" for i in range(4)]


def corpus_lines(src: str | Path, limit: int = 200_000) -> Iterator[str]:
    """Sentences from a release-layout folder: templates filled with real tuples, and labels."""
    root = Path(src)
    rng = random.Random(0)
    count = 0
    for path in sorted(root.rglob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if "patterns" in path.parts:
            tuples_path = Path(*["tuples" if p == "patterns" else p for p in path.parts])
            tuples = ([json.loads(line) for line in tuples_path.read_text(encoding="utf-8").splitlines() if line]
                      if tuples_path.exists() else [])
            for row in rows:
                for t in rng.sample(tuples, min(5, len(tuples))) or [{"sub_label": "X", "obj_label": "Y"}]:
                    yield row["pattern"].replace("[X]", t["sub_label"]).replace("[Y]", t["obj_label"])
                    count += 1
        else:
            for row in rows:
                for key in ("pattern", "sub_label", "obj_label"):
                    if isinstance(row.get(key), str):
                        yield row[key]
                        count += 1
        if count >= limit:
            return


def train_tokenizer(kind: str, lines: Iterable[str], vocab_size: int):
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

    if kind == "bert":
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=False)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        tok.train_from_iterator(lines, trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials))
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
                                                           special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
        return tok, dict(pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]",
                         mask_token="[MASK]")
    if kind == "gpt2":
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        tok.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>"],
                                                           initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
        return tok, dict(bos_token="<|endoftext|>", eos_token="<|endoftext|>", unk_token="<|endoftext|>",
                         pad_token="<|endoftext|>")
    # sentencepiece-style unigram for xlm-roberta, t5 and marian
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    if kind == "marian":
        # OPUS-MT's layout: </s> is id 0, every text ends with it, <pad> starts decoding.
        # A fast tokenizer, because MarianTokenizer needs sentencepiece model files.
        specials = ["</s>", "<unk>", "<pad>"]
        tok.train_from_iterator(lines, trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=specials,
                                                               unk_token="<unk>"))
        tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A $B </s>",
                                                           special_tokens=[("</s>", tok.token_to_id("</s>"))])
        return tok, dict(eos_token="</s>", unk_token="<unk>", pad_token="<pad>")
    if kind == "xlm-roberta":
        specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
        tok.train_from_iterator(lines, trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=specials,
                                                               unk_token="<unk>"))
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
            special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
        return tok, dict(bos_token="<s>", eos_token="</s>", cls_token="<s>", sep_token="</s>", pad_token="<pad>",
                         unk_token="<unk>", mask_token="<mask>")
    specials = ["<pad>", "</s>", "<unk>"] + SENTINELS
    tok.train_from_iterator(lines, trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=specials,
                                                           unk_token="<unk>"))
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                       special_tokens=[("</s>", tok.token_to_id("</s>"))])
    return tok, dict(eos_token="</s>", pad_token="<pad>", unk_token="<unk>", additional_special_tokens=SENTINELS)


def build_tiny(out: str | Path, kind: str, corpus: str | Path, vocab_size: int = 2000, hidden: int = 64,
               layers: int = 2, heads: int = 2, seed: int = 0) -> Path:
    """Write a tokenizer and a random-weight model of `kind` to `out` (save_pretrained layout)."""
    import torch
    from transformers import (BertConfig, BertForMaskedLM, GPT2Config, GPT2LMHeadModel, MarianConfig, MarianMTModel,
                              PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration, XLMRobertaConfig,
                              XLMRobertaForMaskedLM)

    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}")
    lines = list(corpus_lines(corpus))
    if not lines:
        raise ValueError(f"{corpus}: no .jsonl text found to train a tokenizer on")
    tok, specials = train_tokenizer(kind, lines, vocab_size)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, **specials)
    torch.manual_seed(seed)
    n = tok.get_vocab_size()
    common = dict(vocab_size=n)
    if kind == "bert":
        model = BertForMaskedLM(BertConfig(hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                                           intermediate_size=2 * hidden, max_position_embeddings=128,
                                           pad_token_id=tok.token_to_id("[PAD]"), **common))
    elif kind == "xlm-roberta":
        model = XLMRobertaForMaskedLM(XLMRobertaConfig(
            hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads, intermediate_size=2 * hidden,
            max_position_embeddings=130, pad_token_id=tok.token_to_id("<pad>"), bos_token_id=tok.token_to_id("<s>"),
            eos_token_id=tok.token_to_id("</s>"), **common))
    elif kind == "t5":
        model = T5ForConditionalGeneration(T5Config(
            d_model=hidden, d_kv=hidden // heads, d_ff=2 * hidden, num_layers=layers, num_heads=heads,
            pad_token_id=tok.token_to_id("<pad>"), eos_token_id=tok.token_to_id("</s>"),
            decoder_start_token_id=tok.token_to_id("<pad>"), **common))
    elif kind == "marian":
        pad, eos = tok.token_to_id("<pad>"), tok.token_to_id("</s>")
        model = MarianMTModel(MarianConfig(
            d_model=hidden, encoder_layers=layers, decoder_layers=layers, encoder_attention_heads=heads,
            decoder_attention_heads=heads, encoder_ffn_dim=2 * hidden, decoder_ffn_dim=2 * hidden,
            max_position_embeddings=128, decoder_vocab_size=n, pad_token_id=pad, eos_token_id=eos,
            forced_eos_token_id=eos, decoder_start_token_id=pad, **common))
    else:
        eos = tok.token_to_id("<|endoftext|>")
        model = GPT2LMHeadModel(GPT2Config(n_embd=hidden, n_layer=layers, n_head=heads, n_positions=128,
                                           bos_token_id=eos, eos_token_id=eos, **common))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.eval()
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out

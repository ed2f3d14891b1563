"""Probe throughput per model kind: our scorers vs the compute floor (and the published loop).

One run on real data (templates from ../shared/data's Bing translations, tuples and the full
candidate set of each relation) with random-weight models shaped like the real families and real
tokenizers trained on the data (the vocabulary is the real family's size; the tokenizer uses
its first ids). A phrase is one template filled with one tuple, scored against all candidates.
Per model it prints:
  ours    curator's scorer, log-prob (the whole vocabulary's normaliser) and mean-logit
  floor   phrases/s if the only cost were the matrix products the kind cannot avoid
          (curator/probe/scorers/flops.py, formulas in docs/probe.md) at the GEMM rate this
          run measures on the same device and dtype
  pll     (masked models) --score-mode pll on the first --pll-subjects subjects of each relation
          (one pass per token of every filled sentence, ~L × C per phrase): its phrases/s, its own
          floor, and its cost against log-prob's (floors and measured time per phrase); and
          the within-word-l2r variant (--pll-variant), whose passes, hence floor, are the same
  decode  (masked models) X-FACTR decoding without candidates, M = 5: independent, and
          confidence-based initial prediction and refinement; its floor is the matrix
          products of the passes the algorithm ran (MaskedDecoder.floor_flops)
  loop    (masked models) a faithful reimplementation of the published mParaRel loop: one
          forward pass per (query, mask count) with the head on every position, then a Python
          loop over candidates and tokens with one .item() each; timed on a sample of queries
and the RSS (and on CUDA the peak GPU memory) after every relation, to show memory stays flat.

Usage: python benchmarks/probe.py [--models bert,xlmr,t5,gpt2] [--language es] [--relations P19,P36|all]
       python benchmarks/probe.py --device cuda --models mbert,xlmr-large,gpt2-1b --relations all
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# E402 below: imported once the checkout is on sys.path, so the script runs without installing curator
from curator.ingest.clean import check  # noqa: E402
from curator.probe.data import RelationData, build  # noqa: E402
from curator.probe.scorers import SCORERS, Options, pick_device, pick_dtype  # noqa: E402
from curator.probe.tiny import build_tiny  # noqa: E402


@dataclass
class Shape:
    family: str  # the tiny tokenizer family (curator models tiny --kind)
    layers: int
    hidden: int
    vocab: int
    ff: int = 0  # 0: 4 × hidden
    subjects: int = 0  # subjects per relation by default (0: all); decoding kinds score C× more per phrase


SHAPES = {  # small ones for CPU runs; the real families' shapes for a GPU
    "bert": Shape("bert", 4, 256, 120_000),
    "xlmr": Shape("xlm-roberta", 4, 256, 250_002),
    "t5": Shape("t5", 4, 256, 32_128, subjects=30),
    "gpt2": Shape("gpt2", 4, 256, 50_257, subjects=30),
    "mbert": Shape("bert", 12, 768, 119_547),
    "xlmr-base": Shape("xlm-roberta", 12, 768, 250_002),
    "xlmr-large": Shape("xlm-roberta", 24, 1024, 250_002),
    "mt5-base": Shape("t5", 12, 768, 250_112, ff=2048, subjects=100),
    "gpt2-base": Shape("gpt2", 12, 768, 50_257, subjects=100),
    "gpt2-1b": Shape("gpt2", 18, 2048, 50_257, subjects=100),  # ≈ 1.0 B parameters
}


def real_relations(data: Path, language: str, relations: list[str], subjects: int) -> list[RelationData]:
    out = []
    for rel in relations:
        raw = data / "mpararel" / "translations" / "pararel_bing" / language / f"{rel}.jsonl"
        templates = sorted(
            {
                c.cleaned
                for c in (
                    check(json.loads(line)["pattern"], language)
                    for line in raw.read_text(encoding="utf-8").splitlines()
                )
                if c.valid
            }
        )
        tuples = [
            json.loads(line)
            for line in (data / "mpararel" / "tuples" / language / f"{rel}.jsonl")
            .read_text(encoding="utf-8")
            .splitlines()
        ]
        d = build(language, rel, templates, tuples)
        if subjects:  # the full candidate set stays: it is what every phrase is scored against
            d.subjects, d.objects = d.subjects[:subjects], d.objects[:subjects]
        if d.subjects and d.templates:
            out.append(d)
    return out


def all_relations(data: Path, language: str) -> list[str]:
    folder = data / "mpararel" / "translations" / "pararel_bing" / language
    tuples = data / "mpararel" / "tuples" / language
    return sorted(p.stem for p in folder.glob("*.jsonl") if (tuples / p.name).exists())


def make_scorer(name: str, corpus: Path, work: Path, device: str, dtype: str, batch_tokens: int):
    """A random-weight model of the named shape with a real tokenizer, built in memory on the device."""
    from transformers import (
        AutoConfig,
        AutoModelForCausalLM,
        AutoModelForMaskedLM,
        AutoModelForSeq2SeqLM,
        AutoTokenizer,
    )

    s = SHAPES[name]
    path = build_tiny(work / s.family, s.family, corpus, vocab_size=8000)
    cfg = AutoConfig.from_pretrained(path)
    heads, ff = max(1, s.hidden // 64), s.ff or 4 * s.hidden
    if s.family in ("bert", "xlm-roberta"):
        cfg.update(
            dict(
                num_hidden_layers=s.layers,
                hidden_size=s.hidden,
                num_attention_heads=heads,
                intermediate_size=ff,
                vocab_size=s.vocab,
            )
        )
        auto = AutoModelForMaskedLM
    elif s.family == "t5":
        cfg.update(
            dict(
                num_layers=s.layers,
                num_decoder_layers=s.layers,
                d_model=s.hidden,
                num_heads=heads,
                d_kv=64,
                d_ff=ff,
                vocab_size=s.vocab,
            )
        )
        if s.ff:  # mT5: gated-GELU feed-forward, untied head
            cfg.update(
                dict(
                    feed_forward_proj="gated-gelu",
                    dense_act_fn="gelu_new",
                    is_gated_act=True,
                    tie_word_embeddings=False,
                )
            )
        auto = AutoModelForSeq2SeqLM
    else:
        cfg.update(dict(n_layer=s.layers, n_embd=s.hidden, n_head=heads, n_inner=ff, vocab_size=s.vocab))
        auto = AutoModelForCausalLM
    dev = pick_device(device)
    torch_dtype = pick_dtype(dtype, dev)
    torch.manual_seed(0)
    with torch.device(dev):
        model = auto.from_config(cfg, dtype=torch_dtype)
    model.eval()
    kind = "masked" if auto is AutoModelForMaskedLM else "seq2seq" if auto is AutoModelForSeq2SeqLM else "causal"
    return SCORERS[kind](model, AutoTokenizer.from_pretrained(path), dev, Options(batch_tokens=batch_tokens))


def gemm_rate(device: torch.device, dtype: torch.dtype, size: int = 2048, repeat: int = 5) -> float:
    if device.type == "cuda":
        size, repeat = 8192, 20
    a = torch.randn(size, size, device=device, dtype=dtype)
    b = torch.randn(size, size, device=device, dtype=dtype)
    a @ b
    sync(device)
    start = time.perf_counter()
    for _ in range(repeat):
        a @ b
    sync(device)
    return 2 * size**3 * repeat / (time.perf_counter() - start)


@torch.inference_mode()
def published_loop(scorer, data: RelationData, sample: int) -> tuple[int, float]:
    """mParaRel's scoring: the masks written into the text, the whole query tokenized, full
    logits per (query, n), then per candidate, per token, .item()."""
    model, tok = scorer.model, scorer.tok
    cands = [tok.convert_tokens_to_ids(tok.tokenize(label)) for _, label in data.candidates]
    lengths = sorted({len(c) for c in cands if c})
    queries = scorer.queries(data)[:sample]
    start = time.perf_counter()
    for before, after in queries:
        _best, best_score = None, float("-inf")  # the argmax, as mParaRel computes it
        for n in lengths:
            encoded = tok([before + " ".join([tok.mask_token] * n) + after], return_tensors="pt").to(scorer.device)
            logits = model(**encoded).logits[0]
            at_masks = logits[encoded["input_ids"][0] == tok.mask_token_id]
            for c, cand in enumerate(cands):
                if len(cand) != n:
                    continue
                score = sum(at_masks[i, t].item() for i, t in enumerate(cand)) / n
                if score > best_score:
                    _best, best_score = c, score
    return len(queries), time.perf_counter() - start


def bench(name: str, opts, data: Path, work: Path) -> list[tuple]:
    scorer = make_scorer(
        name, data / "mpararel" / "tuples" / opts.language, work, opts.device, opts.dtype, opts.batch_tokens
    )
    shape = SHAPES[name]
    subjects = opts.subjects if opts.subjects is not None else shape.subjects
    relations = real_relations(data, opts.language, opts.relation_list, subjects)
    phrases = sum(len(d.templates) * len(d.subjects) for d in relations)
    dtype = next(scorer.model.parameters()).dtype
    params = sum(p.numel() for p in scorer.model.parameters())
    rate = gemm_rate(scorer.device, dtype)
    warm = RelationData(
        relations[0].language,
        relations[0].relation,
        relations[0].templates[:2],
        relations[0].subjects[:4],
        relations[0].objects[:4],
        relations[0].candidates,
    )
    scorer.score_relation(warm)
    print(
        f"\n== {name}: {scorer.kind}, {shape.layers} layers, hidden {shape.hidden}, vocab {shape.vocab:,}, "
        f"{params / 1e6:,.0f} M parameters; {scorer.device} {dtype}; {torch.get_num_threads()} threads"
    )
    print(
        f"data: {opts.language}, {len(relations)} relations, {phrases:,} phrases"
        f"{f' (first {subjects} subjects per relation)' if subjects else ''}, "
        f"{sum(len(d.candidates) for d in relations):,} candidates in all; GEMM rate {rate / 1e12:,.2f} TFLOP/s"
    )
    timings, memory = {}, []
    for mode in ("log-prob", "mean-logit"):
        scorer.options.score_mode = mode
        if scorer.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats()
        sync(scorer.device)
        start = time.perf_counter()
        for d in relations:
            scorer.score_relation(d)
            if mode == "log-prob":
                memory.append(memory_mb(scorer.device))
        sync(scorer.device)
        timings[mode] = time.perf_counter() - start
    scorer.options.score_mode = "log-prob"
    flops = sum(scorer.floor_flops(d) for d in relations)
    print("memory after each relation (MB): " + ", ".join(memory))
    print(
        f"achieved (log-prob): {flops / timings['log-prob'] / 1e12:,.3f} TFLOP/s of the floor's products; "
        f"{timings['log-prob']:,.1f} s for the {len(relations)} relations"
    )
    floor = phrases / (flops / rate)
    rows = [
        (name, "ours, log-prob", phrases / timings["log-prob"], floor),
        (name, "ours, mean-logit", phrases / timings["mean-logit"], floor),
    ]
    if scorer.kind == "masked" and opts.loop_sample:
        looped, seconds = 0, 0.0
        for d in relations:
            n, s = published_loop(scorer, d, max(1, opts.loop_sample // len(relations)))
            looped, seconds = looped + n, seconds + s
        rows.append((name, "published loop, mean-logit", looped / seconds, floor))
    rows.append((name, "compute floor (log-prob)", floor, floor))
    if scorer.kind == "masked" and opts.pll_subjects:
        rows += bench_pll(name, scorer, relations, opts.pll_subjects, rate, phrases / timings["log-prob"], floor)
    if scorer.kind == "masked" and opts.decode_subjects:
        rows += decode_rows(name, scorer, relations, opts.decode_subjects, rate)
    if opts.languages_total:
        full = timings["log-prob"] * (
            1
            if not subjects
            else sum(
                len(d.templates) * len(d.subjects) for d in real_relations(data, opts.language, opts.relation_list, 0)
            )
            / phrases
        )
        print(
            f"projected for {opts.languages_total} languages of this size (log-prob): "
            f"{full * opts.languages_total / 60:,.1f} min"
        )
    del scorer
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return rows


def bench_pll(
    name: str,
    scorer,
    relations: list[RelationData],
    subjects: int,
    rate: float,
    log_prob_rate: float,
    log_prob_floor: float,
) -> list[tuple]:
    """--score-mode pll on a sample of subjects (it costs ~L × C passes per phrase): phrases/s, its
    floor, and how many times log-prob's floor and measured time per phrase it costs; then the
    within-word-l2r variant on the same sample, against the same floor (the same passes)."""
    sample = [
        RelationData(d.language, d.relation, d.templates, d.subjects[:subjects], d.objects[:subjects], d.candidates)
        for d in relations
    ]
    phrases = sum(len(d.templates) * len(d.subjects) for d in sample)
    scorer.options.score_mode = "pll"
    try:
        pll_flops = sum(scorer.floor_flops(d) for d in sample)
        scorer.score_relation(
            RelationData(
                sample[0].language,
                sample[0].relation,
                sample[0].templates[:1],
                sample[0].subjects[:1],
                sample[0].objects[:1],
                sample[0].candidates[:8],
            )
        )
        timed = {}
        for variant in ("original", "within-word-l2r"):
            scorer.options.pll_variant = variant
            sync(scorer.device)
            start = time.perf_counter()
            for d in sample:
                scorer.score_relation(d)
            sync(scorer.device)
            timed[variant] = time.perf_counter() - start
    finally:
        scorer.options.score_mode, scorer.options.pll_variant = "log-prob", "original"
    seconds = timed["original"]
    floor, value = phrases / (pll_flops / rate), phrases / seconds
    print(
        f"pll: {phrases:,} phrases (first {subjects} subjects per relation) in {seconds:,.1f} s; "
        f"floor {log_prob_floor / floor:,.0f}× the log-prob floor per phrase, measured "
        f"{log_prob_rate / value:,.0f}× log-prob's time per phrase"
    )
    print(
        f"pll within-word-l2r: {timed['within-word-l2r']:,.1f} s ({timed['within-word-l2r'] / seconds:.2f}× original's)"
    )
    return [
        (name, "ours, pll", value, floor),
        (name, "ours, pll within-word-l2r", phrases / timed["within-word-l2r"], floor),
        (name, "compute floor (pll)", floor, floor),
    ]


DECODERS = {
    "decode, independent": dict(init="independent", refine="none"),  # X-FACTR, M = 5
    "decode, confidence": dict(init="confidence", refine="confidence"),
}


def decode_rows(name: str, scorer, relations: list[RelationData], subjects: int, rate: float) -> list[tuple]:
    """X-FACTR decoding without candidates (curator/probe/decoding.py) on the first `subjects`
    subjects of each relation: phrases/s against the floor of the passes each algorithm ran."""
    from curator.probe.decoding import DecodeOptions, MaskedDecoder

    cut = [
        RelationData(d.language, d.relation, d.templates, d.subjects[:subjects], d.objects[:subjects])
        for d in relations
    ]
    phrases = sum(len(d.templates) * len(d.subjects) for d in cut)
    out = []
    for what, kw in DECODERS.items():
        decoder = MaskedDecoder(scorer, DecodeOptions(max_masks=5, **kw))
        decoder.decode_relation(
            RelationData(
                cut[0].language, cut[0].relation, cut[0].templates[:1], cut[0].subjects[:2], cut[0].objects[:2]
            )
        )  # warm-up
        seconds = flops = rows = 0.0
        for d in cut:
            sync(scorer.device)
            start = time.perf_counter()
            decoded = decoder.decode_relation(d)
            sync(scorer.device)
            seconds += time.perf_counter() - start
            flops += decoder.floor_flops(d)
            rows += decoded.passes
        print(f"{what}: {phrases:,} phrases, {rows / phrases:,.1f} pass rows per phrase, {seconds:,.1f} s")
        out.append((name, what, phrases / seconds, phrases / (flops / rate)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--models", default="bert,xlmr,t5,gpt2", help=f"comma-separated: {', '.join(SHAPES)}")
    parser.add_argument("--language", default="es")
    parser.add_argument("--relations", default="P19,P36,P37,P103,P30", help="comma-separated, or 'all'")
    parser.add_argument(
        "--subjects",
        type=int,
        default=None,
        help="subjects per relation (default: all for masked models, a sample for the others)",
    )
    parser.add_argument("--languages-total", type=int, default=46, help="for the projected time of a full release")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--batch-tokens", type=int, default=16384)
    parser.add_argument(
        "--pll-subjects",
        type=int,
        default=1,
        help="subjects per relation timed for --score-mode pll on masked models (0: skip)",
    )
    parser.add_argument(
        "--decode-subjects",
        type=int,
        default=10,
        help="subjects per relation for the X-FACTR decoding rows of masked models (0: skip)",
    )
    parser.add_argument("--loop-sample", type=int, default=20, help="queries timed for the published loop (0: skip)")
    opts = parser.parse_args()
    data = Path(opts.data)
    opts.relation_list = all_relations(data, opts.language) if opts.relations == "all" else opts.relations.split(",")
    work = Path(tempfile.mkdtemp(prefix="curator-probe-bench-"))
    rows = []
    for name in opts.models.split(","):
        rows += bench(name, opts, data, work)
    print(f"\n{'model':<11} {'scorer':<28} {'phrases/s':>10} {'x floor':>8} {'x loop':>8}")
    loops = {m: v for m, what, v, _ in rows if what.startswith("published")}
    for model, what, value, floor in rows:
        loop = f"{value / loops[model]:>7.1f}x" if model in loops else f"{'':>8}"
        shown = f"{value:>10,.1f}" if value >= 10 else f"{value:>10.3f}"  # pll: well under 1 phrase/s on CPU
        print(f"{model:<11} {what:<28} {shown} {floor / value:>7.2f}x {loop}")


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def memory_mb(device: torch.device) -> str:
    rss = float("nan")
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
    if device.type == "cuda":
        return f"{rss:,.0f} RSS / {torch.cuda.max_memory_allocated() / 2**20:,.0f} GPU peak"
    return f"{rss:,.0f}"


if __name__ == "__main__":
    main()

"""Probe throughput: our masked-LM scorer vs the published per-candidate loop vs the compute floor.

One run on real data (patterns from ../shared/data's Bing translations, tuples and the full
candidate set of each relation) with a random-weight BERT whose vocabulary is mBERT-sized
(120k). Prints phrases/s (a phrase = one template filled with one tuple, scored against all
candidates) for:
  ours   curator's MaskedScorer (one pass per mask count, head at masks only, tensor gathers)
  loop   a faithful reimplementation of the published mParaRel loop: one forward pass per
         (query, mask count) with the head on every position, then a Python loop over
         candidates and their tokens with one .item() each (mean of logits); measured on a
         sample of queries
  ours is timed in both score modes: log-prob needs the whole vocabulary's normaliser (the
  floor's work); mean-logit needs only the candidates' own logits, so it skips most of the head
  floor  phrases/s if the only cost were the model's matrix products at the GEMM rate this
         run measures on the same device
Usage: python benchmarks/probe.py [--language es] [--relations P19,P36] [--layers 12 --hidden 768]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from curator.ingest.clean import check  # noqa: E402
from curator.probe.data import build  # noqa: E402
from curator.probe.scorers import Options, load_scorer  # noqa: E402
from curator.probe.tiny import build_tiny  # noqa: E402


def real_relations(data: Path, language: str, relations: list[str]):
    for rel in relations:
        raw = data / "mpararel" / "translations" / "pararel_bing" / language / f"{rel}.jsonl"
        templates = sorted({c.cleaned for c in (check(json.loads(line)["pattern"], language)
                                                 for line in raw.read_text(encoding="utf-8").splitlines()) if c.valid})
        tuples = [json.loads(line) for line in
                  (data / "mpararel" / "tuples" / language / f"{rel}.jsonl").read_text(encoding="utf-8").splitlines()]
        yield build(language, rel, templates, tuples)


def gemm_rate(device: torch.device, dtype: torch.dtype, size: int = 2048, repeat: int = 5) -> float:
    a = torch.randn(size, size, device=device, dtype=dtype)
    b = torch.randn(size, size, device=device, dtype=dtype)
    a @ b
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeat):
        a @ b
    if device.type == "cuda":
        torch.cuda.synchronize()
    return 2 * size ** 3 * repeat / (time.perf_counter() - start)


def floor_flops(scorer, data) -> float:
    """Matrix-product FLOPs our scorer cannot avoid for one relation."""
    cfg = scorer.model.config
    H, layers, V, ff = cfg.hidden_size, cfg.num_hidden_layers, cfg.vocab_size, cfg.intermediate_size
    lengths = {len(ids) for ids in scorer.encode([label for _, label in data.candidates]) if ids}
    queries = scorer.queries(data)
    total = 0.0
    for n in lengths:
        for row in scorer.tokenize([before + scorer.mask_slot(n) + after for before, after in queries]):
            L = len(row)
            per_layer = 2 * L * (4 * H * H + 2 * H * ff) + 4 * L * L * H  # projections, FFN, attention scores
            total += layers * per_layer + 2 * n * (H * H + H * V)  # head transform + decoder at the masks
    return total


@torch.inference_mode()
def published_loop(scorer, data, sample: int) -> tuple[int, float]:
    """mParaRel's scoring: the masks written into the text, the whole query tokenized, full
    logits per (query, n), then per candidate, per token, .item()."""
    model, tok = scorer.model, scorer.tok
    cands = [tok.convert_tokens_to_ids(tok.tokenize(label)) for _, label in data.candidates]
    lengths = sorted({len(c) for c in cands if c})
    queries = scorer.queries(data)[:sample]
    start = time.perf_counter()
    for before, after in queries:
        best, best_score = None, float("-inf")
        for n in lengths:
            encoded = tok([before + " ".join([tok.mask_token] * n) + after], return_tensors="pt").to(scorer.device)
            logits = model(**encoded).logits[0]
            at_masks = logits[encoded["input_ids"][0] == tok.mask_token_id]
            for c, cand in enumerate(cands):
                if len(cand) != n:
                    continue
                score = sum(at_masks[i, t].item() for i, t in enumerate(cand)) / n
                if score > best_score:
                    best, best_score = c, score
    return len(queries), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--language", default="es")
    parser.add_argument("--relations", default="P19,P36,P37,P103,P30", help="comma-separated, or 'all'")
    parser.add_argument("--languages-total", type=int, default=46, help="for the projected time of a full release")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--vocab", type=int, default=120_000)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--loop-sample", type=int, default=20, help="queries timed for the published loop")
    opts = parser.parse_args()
    data = Path(opts.data)
    work = Path(tempfile.mkdtemp(prefix="curator-probe-bench-"))
    tiny = build_tiny(work / "model", "bert", data / "mpararel" / "tuples" / opts.language, vocab_size=8000,
                      hidden=opts.hidden, layers=opts.layers, heads=max(1, opts.hidden // 64))
    from transformers import BertConfig, BertForMaskedLM

    cfg = BertConfig.from_pretrained(tiny)
    cfg.vocab_size = opts.vocab  # mBERT-sized head; the tokenizer uses the first ids only
    cfg.intermediate_size = 4 * opts.hidden  # BERT's proportions (mBERT: 768 -> 3072)
    BertForMaskedLM(cfg).save_pretrained(tiny)
    scorer = load_scorer(str(tiny), opts.device, opts.dtype, Options(batch_tokens=16384))
    if opts.relations == "all":
        folder = data / "mpararel" / "translations" / "pararel_bing" / opts.language
        tuples = data / "mpararel" / "tuples" / opts.language
        opts.relations = ",".join(sorted(p.stem for p in folder.glob("*.jsonl") if (tuples / p.name).exists()))
    relations = list(real_relations(data, opts.language, opts.relations.split(",")))
    phrases = sum(len(d.templates) * len(d.subjects) for d in relations)
    candidates = sum(len(d.candidates) for d in relations)
    dtype = next(scorer.model.parameters()).dtype
    rate = gemm_rate(scorer.device, dtype)
    scorer.score_relation(relations[0])  # warm-up
    timings, rss = {}, []
    for mode in ("log-prob", "mean-logit"):
        scorer.options.score_mode = mode
        sync(scorer.device)
        start = time.perf_counter()
        for d in relations:
            scorer.score_relation(d)
            rss.append(rss_mb())
        sync(scorer.device)
        timings[mode] = time.perf_counter() - start
    flops = sum(floor_flops(scorer, d) for d in relations)
    looped, loop_seconds = 0, 0.0
    for d in relations:
        n, s = published_loop(scorer, d, max(1, opts.loop_sample // len(relations)))
        looped, loop_seconds = looped + n, loop_seconds + s
    loop_rate, floor_rate = looped / loop_seconds, phrases / (flops / rate)
    print(f"model: BERT, {opts.layers} layers, hidden {opts.hidden}, vocab {opts.vocab:,}; device {scorer.device},"
          f" {dtype}; {torch.get_num_threads()} threads")
    print(f"data: {opts.language} {opts.relations}: {phrases:,} phrases, {candidates:,} candidates in all")
    print(f"GEMM rate measured: {rate / 1e9:,.1f} GFLOP/s; achieved by ours (log-prob): "
          f"{flops / timings['log-prob'] / 1e9:,.1f} GFLOP/s")
    print(f"RSS after each relation (MB): {', '.join(f'{r:,.0f}' for r in rss)}")
    print(f"{'scorer':<34} {'phrases/s':>10} {'floor/x':>8} {'x/loop':>8}")
    rows = [("ours, log-prob (full vocabulary)", phrases / timings["log-prob"]),
            ("ours, mean-logit", phrases / timings["mean-logit"]),
            ("published loop, mean-logit", loop_rate), ("compute floor", floor_rate)]
    for name, value in rows:
        print(f"{name:<34} {value:>10,.1f} {floor_rate / value:>7.2f}x {value / loop_rate:>7.1f}x")
    if scorer.device.type == "cuda":
        print(f"achieved {flops / timings['log-prob'] / 1e12:,.1f} TFLOP/s")
    hours = timings["log-prob"] * opts.languages_total / 3600
    print(f"projected for {opts.languages_total} languages of this size (log-prob): {hours:,.2f} h")


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


if __name__ == "__main__":
    main()

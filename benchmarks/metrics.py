"""Metrics, RankC and comparison speed on full-language runs with the real data's shapes.

For each language asked, every relation gets its real templates (Bing translations that pass
SPEC §2 checks), its real tuples and candidate set (all objects of the relation there) from
../shared/data; the rankings are synthetic (a random permutation per (template, tuple), the
gold object moved to the top with probability 0.3). The run is written in curator's own
format, then timed as a user would run it: loading the files included.

Usage: python benchmarks/metrics.py [--languages es,de,fr,ru,ar] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# E402 below: imported once the checkout is on sys.path, so the script runs without installing curator
from curator.analysis.compare import compare_runs  # noqa: E402
from curator.analysis.metrics import run_metrics  # noqa: E402
from curator.analysis.rankc import run_rankc  # noqa: E402
from curator.core.formats.runs import RelationPredictions, iter_relations, save_relation  # noqa: E402
from curator.ingest.clean import check  # noqa: E402
from curator.probe.data import build  # noqa: E402


def real_shapes(data: Path, language: str):
    bing = data / "mpararel" / "translations" / "pararel_bing" / language
    for path in sorted(bing.glob("*.jsonl")):
        tuples_file = data / "mpararel" / "tuples" / language / path.name
        if not tuples_file.exists():
            continue
        templates = sorted(
            {
                c.cleaned
                for c in (
                    check(json.loads(line)["pattern"], language)
                    for line in path.read_text(encoding="utf-8").splitlines()
                )
                if c.valid
            }
        )
        tuples = [json.loads(line) for line in tuples_file.read_text(encoding="utf-8").splitlines() if line]
        rel = build(language, path.stem, templates, tuples)
        if len(rel.templates) >= 2 and rel.subjects:
            yield rel


def synthetic_run(data: Path, languages: list[str], out: Path, rng: np.random.Generator, skill: float = 0.3):
    phrases = 0
    for lang in languages:
        for rel in real_shapes(data, lang):
            T, D, N = len(rel.templates), len(rel.subjects), len(rel.candidates)
            gold = np.array(rel.gold, dtype=np.int32)
            ranking = np.argsort(rng.random((T, D, N), dtype=np.float32), axis=2).astype(np.int32)
            hit = rng.random((T, D)) < skill
            # move the gold object to the front where the model "knows" it
            t_idx, d_idx = np.nonzero(hit)
            rows = ranking[t_idx, d_idx]
            gold_pos = np.argmax(rows == gold[d_idx][:, None], axis=1)
            for i, p in enumerate(gold_pos):
                rows[i, 1 : p + 1] = rows[i, :p].copy()
                rows[i, 0] = gold[d_idx[i]]
            ranking[t_idx, d_idx] = rows
            predicted = ranking[:, :, 0]
            save_relation(
                out,
                RelationPredictions(
                    lang,
                    rel.relation,
                    rel.templates,
                    rel.subjects,
                    rel.objects,
                    rel.candidates,
                    predicted,
                    predicted == gold[None, :],
                    gold,
                    ranking,
                ),
            )
            phrases += T * D
    return phrases


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--languages", default="es,de,fr,ru,ar")
    parser.add_argument("--bootstrap", type=int, default=1000)
    opts = parser.parse_args()
    data, languages = Path(opts.data), opts.languages.split(",")
    work = Path(tempfile.mkdtemp(prefix="curator-metrics-bench-"))
    rng = np.random.default_rng(0)
    phrases, seconds = timed(lambda: synthetic_run(data, languages, work / "a", rng))
    synthetic_run(data, languages, work / "b", np.random.default_rng(1), skill=0.35)
    print(
        f"synthetic runs: {len(languages)} languages, {phrases:,} phrases in all "
        f"(written in {seconds:.1f} s), in {work}"
    )
    rows = []
    for lang in languages:
        files = sum(1 for _ in (work / "a" / lang).glob("*.json"))
        n = sum(r.shape[0] * r.shape[1] for r in iter_relations(work / "a", [lang]))
        _, s = timed(lambda lang=lang: run_metrics(iter_relations(work / "a", [lang])))
        rows.append((f"metrics, {lang} ({files} relations, {n:,} phrases)", s))
    _, s = timed(lambda: run_metrics(iter_relations(work / "a")))
    rows.append((f"metrics, all {len(languages)} languages", s))
    _, two = timed(lambda: run_rankc(work / "a", languages[:2]))
    rows.append((f"rankc + coverlap, {'-'.join(languages[:2])} (1 pair)", two))
    result, s = timed(lambda: run_rankc(work / "a"))
    L, pairs = len(languages), len(languages) * (len(languages) - 1) // 2
    rows.append((f"rankc + coverlap, {L} languages, {pairs} pairs ({int(result.queries[0, 1]):,} facts per pair)", s))
    # time(L) ≈ per_language·L + per_pair·pairs: loading and consensus grow with L, comparisons with L²
    per_pair = (s - two * L / 2) / (pairs - L / 2) if pairs > L / 2 else 0.0
    per_language = (two - per_pair) / 2
    _, s = timed(lambda: compare_runs(work / "a", work / "b", replicates=opts.bootstrap))
    rows.append((f"compare, {opts.bootstrap} bootstrap replicates, {len(languages)} languages", s))
    width = max(len(r[0]) for r in rows)
    print(f"{'step':<{width}}  {'seconds':>8}")
    for name, s in rows:
        print(f"{name:<{width}}  {s:>8.2f}")
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
    print(
        f"rankc: {per_language:.2f} s per language + {per_pair:.3f} s per pair -> 46 languages (1,035 pairs) "
        f"≈ {(per_language * 46 + per_pair * 1035) / 60:.1f} min"
    )


if __name__ == "__main__":
    main()

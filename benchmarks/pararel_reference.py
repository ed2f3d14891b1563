"""`--convention pararel` against ParaRel's own, unmodified code, on random relations.

Imports yanaiela/pararel's `pararel/consistency/encode_consistency_probe.py` from a checkout
given with --pararel (nothing of it is copied here; its `wandb` import gets a stand-in that
keeps `run.summary` in a dict), feeds it random English relations — patterns with "a [Y]" /
"an [Y]", objects with vowel and consonant initials, repeated subject labels — as its
`results_dict` and complete pattern graph, and compares its `lama_acc`, `lama_group_acc`,
`consistency`, `successful_patterns`, `successful_subjects`, `knowledgable_consistency` and
`unknowledgable_consistency` with curator's metrics of the same predictions. Cases where its
code divides by zero (a kept pattern with no kept partner, no agreeing pair at all) are counted
and skipped. Needs networkx, scipy, torch and transformers (its module imports them).

Usage: python benchmarks/pararel_reference.py --pararel PATH/TO/yanaiela+pararel [--cases 3000]
"""

from __future__ import annotations

import argparse
import importlib.machinery
import random
import sys
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from curator.analysis.metrics import DEFAULT_NM_RELATIONS, run_metrics  # noqa: E402
from curator.core.formats.predictions import RelationPredictions  # noqa: E402

PATTERNS = [
    "[X] was born in [Y].",
    "[X] is a [Y]-born writer.",
    "[X] is an [Y]-born writer.",
    "[X] plays a [Y] .",
    "[X] is an [Y] by profession.",
    "A [Y] is what [X] plays.",
    "[Y] is where [X] was born.",
    "[X] comes from [Y].",
]
OBJECTS = ["Italy", "France", "actor", "Oslo", "hour", "Umbria", "Yemen", "university", "England", "piano"]
KEYS = {
    "consistency": "consistency",
    "accuracy": "lama_acc",
    "consistency_accuracy": "lama_group_acc",
    "succ_patt": "successful_patterns",
    "succ_objs": "successful_subjects",
    "know_const": "knowledgable_consistency",
    "unk_const": "unknowledgable_consistency",
}


def random_case(rng: random.Random) -> tuple[list[str], list[str], list[tuple[str, str]], list[list[str]]]:
    patterns = rng.sample(PATTERNS, rng.randint(2, 5))
    objects = rng.sample(OBJECTS, rng.randint(2, 5))
    n = rng.randint(1, 8)
    rows = [(rng.choice(["Ana", "Ben", "Cy", "Dee", "Eve"]), rng.choice(objects)) for _ in range(n)]
    return patterns, objects, rows, [[rng.choice(objects) for _ in range(n)] for _ in patterns]


def theirs(ecp, graph_types, summary: dict, patterns, objects, rows, preds) -> dict | None:
    import networkx as nx  # type: ignore[import-untyped]

    graph = nx.DiGraph()
    nodes = [graph_types.PatternNode(p, "", "", "", "") for p in patterns]
    for a in nodes:
        for b in nodes:
            if a is not b:
                graph.add_edge(a, b, edge_type=graph_types.EdgeType(False, False, False))
    data = [{"sub_label": s, "obj_label": o} for s, o in rows]
    results = {
        p: {"data": data, "predictions": [[{"token_str": x, "score": 1.0}] for x in preds[i]]}
        for i, p in enumerate(patterns)
    }
    summary.clear()
    try:
        summary["lama_acc"] = ecp.evaluate_lama(patterns[0], results)
        summary["lama_group_acc"] = ecp.group_score_lama_eval(results)
        ecp.analyze_results(ecp.parse_lm_results(results, objects), graph)
    except ZeroDivisionError:
        return None
    return dict(summary)


def ours(patterns, objects, rows, preds, relation: str = "P19", nm_relations=()) -> dict:
    """curator's metrics of the case. ParaRel's code has no N-M split (it reports all seven for
    every relation; the split is its paper's): equality holds with no N-M relation, what
    `curator metrics --nm-relations ''` computes."""
    index = {o: i for i, o in enumerate(objects)}
    gold = np.array([index[o] for _, o in rows], dtype=np.int32)
    predicted = np.array([[index[x] for x in p] for p in preds], dtype=np.int32)
    rel = RelationPredictions(
        "en",
        relation,
        patterns,
        [(f"Q{r}", s) for r, (s, _) in enumerate(rows)],
        [f"O{g}" for g in gold],
        [(f"O{i}", o) for i, o in enumerate(objects)],
        predicted,
        predicted == gold[None, :],
        gold,
    )
    return run_metrics([rel], list(nm_relations))[1]["en"][relation]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pararel", required=True, help="a checkout of yanaiela/pararel")
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=39)
    opts = parser.parse_args()
    stand_in = types.ModuleType("wandb")
    stand_in.__spec__ = importlib.machinery.ModuleSpec("wandb", None)  # transformers looks it up
    summary: dict = {}  # what its code writes to wandb.run.summary
    stand_in.run = types.SimpleNamespace(summary=summary)  # type: ignore[attr-defined]
    stand_in.init = lambda **_: None  # type: ignore[attr-defined]
    sys.modules["wandb"] = stand_in
    sys.path.insert(0, str(Path(opts.pararel).resolve()))
    from pararel.consistency import encode_consistency_probe as ecp  # type: ignore[import-not-found]
    from pararel.patterns import graph_types  # type: ignore[import-not-found]

    rng = random.Random(opts.seed)
    equal = crashed = nm_only = 0
    differ: dict[str, int] = {}
    for _ in range(opts.cases):
        case = random_case(rng)
        want = theirs(ecp, graph_types, summary, *case)
        if want is None:
            crashed += 1
            continue
        got = ours(*case)
        bad = [name for name, key in KEYS.items() if got[name] != want[key]]
        for name in bad:
            differ[name] = differ.get(name, 0) + 1
        equal += not bad
        # the same case as an N-M relation of the default list: determinism only, none of the seven
        split = ours(*case, relation="P106", nm_relations=DEFAULT_NM_RELATIONS)
        nm_only += all(np.isnan(split[name]) for name in KEYS)
    print()
    print(f"{equal} of {opts.cases - crashed} cases equal on all 7 metrics; differing per metric: {differ or 'none'}")
    print("  (with no N-M relation, as `curator metrics --nm-relations ''` computes: ParaRel's code has no N-M split)")
    print(
        f"as an N-M relation of the default list (P106): {nm_only} of {opts.cases - crashed} cases give determinism "
        "only, none of the 7 (the split of ParaRel's paper, not of its code)"
    )
    print(f"{crashed} cases skipped: ParaRel's code divides by zero on them")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()

"""Speed of the one rule for what ships (`curator.review.rule.decide`, issue 36) on languages of
mParaRel's shape and larger.

A language is synthetic but shaped like the published release and a busy review: R relations of
L parent lines each, N reviewers who each decide half of every relation's lines (accept 70%,
amend 15%, reject 10%, unsure 5%), one suggestion per reviewer and relation, and a
maintainer's answer, resolution and line drop every tenth relation. The floor is one pass that
reads every input once (the votes counted per text): `decide` is the merge's whole decision,
so its ratio to that floor is what the rule costs over merely reading the state.

Usage: python benchmarks/release_rule.py [--relations 38,380] [--lines 12] [--reviewers 3,10] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# E402 below: imported once the checkout is on sys.path, so the script runs without installing curator
from curator.core.enums import Policy  # noqa: E402
from curator.review.rule import (  # noqa: E402
    Answer,
    DropState,
    LanguageState,
    ParentLine,
    RelationState,
    ResolutionState,
    SuggestionLine,
    Vote,
    decide,
)


def language(relations: int, lines: int, reviewers: int, seed: int = 0) -> LanguageState:
    rng = random.Random(seed)
    state = LanguageState("xx", Policy.ANY, frozenset({1}), {u: f"r{u}@example.org" for u in range(reviewers)})
    at = datetime(2026, 1, 1)
    did = 0
    for r in range(relations):
        rel = RelationState(f"P{r}")
        texts = [f"[X] t{r}-{i} [Y]" for i in range(lines)]
        rel.parent = [ParentLine(t, False, i) for i, t in enumerate(texts)]
        for u in range(reviewers):
            for t in rng.sample(texts, lines // 2):
                did += 1
                kind = rng.choices(["accept", "amend", "reject", "unsure"], [70, 15, 10, 5])[0]
                fix = f"[X] fix{rng.randrange(3)}-{r} [Y]" if kind == "amend" else None
                rel.decisions.setdefault(t, []).append(Vote(u, kind, fix, did, "web"))
            rel.suggestions.append(SuggestionLine(u, f"[X] s{u % 2}-{r} [Y]", "web", did))
        if r % 10 == 0:
            rel.answers[f"[X] s0-{r} [Y]"] = Answer("confirm", "boss", at + timedelta(seconds=r), "")
            rel.resolutions[texts[0]] = ResolutionState(r, texts[0], "reject", None, "boss", at, "r")
            rel.drops[texts[1]] = DropState(r, "boss", "r")
        state.relations[rel.relation] = rel
    return state


def floor(state: LanguageState) -> int:
    """One pass over every input: votes counted per text."""
    n = 0
    for rel in state.relations.values():
        seen: dict[str, int] = {}
        for line in rel.parent:
            seen[line.pattern] = seen.get(line.pattern, 0)
        for text, votes in rel.decisions.items():
            seen[text] = seen.get(text, 0) + len(votes)
        for s in rel.suggestions:
            seen[s.text] = seen.get(s.text, 0) + 1
        n += len(seen) + len(rel.answers) + len(rel.resolutions) + len(rel.drops)
    return n


def best(fn, state: LanguageState, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(state)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--relations", default="38,380")
    ap.add_argument("--lines", type=int, default=12)
    ap.add_argument("--reviewers", default="3,10")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"{'relations':>9} {'reviewers':>9} {'texts':>7} {'votes':>7} {'decide ms':>10} {'floor ms':>9} {'ratio':>6}")
    for relations in (int(x) for x in args.relations.split(",")):
        for reviewers in (int(x) for x in args.reviewers.split(",")):
            state = language(relations, args.lines, reviewers)
            texts = sum(len(r.decided) for r in decide(state))
            votes = sum(len(v) for rel in state.relations.values() for v in rel.decisions.values())
            t_rule, t_floor = best(decide, state, args.repeat), best(floor, state, args.repeat)
            print(
                f"{relations:>9} {reviewers:>9} {texts:>7} {votes:>7} {1000 * t_rule:>10.1f} {1000 * t_floor:>9.2f}"
                f" {t_rule / t_floor:>6.1f}"
            )


if __name__ == "__main__":
    main()

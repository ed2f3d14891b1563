"""The glossary at scale (issue 38 §2): 20,000 generated terms in a fresh SQLite database.

Prints three tables, each measured in this run:

| table        | what it shows                                                                      |
|--------------|------------------------------------------------------------------------------------|
| item look-up | per-item time of the review screen's glossary call: the old full scan (every term  |
|              | of the language read and `find` run on each, written here as the peer) against    |
|              | `review.glossary.matches` (the lead-word index); both answers must be equal        |
| page         | the maintainers' page's data: every term read and filtered in Python (old) against |
|              | `review.glossary.listing` (one page, filtered and counted in SQL)                  |
| import       | `curator glossary import` of a generated CSV of --mb MB: peak Python memory        |
|              | (tracemalloc) and its ratio to the file's size                                     |

Target: an item look-up under 50 ms at 20,000 terms. Exits 1 when the index misses it or an
answer differs from the full scan's.

Usage: python benchmarks/glossary_scale.py [--terms 20000] [--items 200] [--scan-items 20] [--mb 30]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from sqlalchemy import insert, select

from curator.core.db import make_engine, make_session_factory, unit_of_work
from curator.core.folding import fold
from curator.core.migrate import upgrade
from curator.core.models import GlossaryTerm, Language
from curator.core.models.base import utcnow
from curator.review import glossary, glossary_csv

SYLLABLES = ["ka", "lo", "mi", "ner", "pa", "ro", "sa", "ti", "ul", "ve", "zo", "dri", "sho", "qua", "bel"]


def vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def generate_terms(rng: random.Random, words: list[str], count: int) -> list[tuple[str, str, str]]:
    seen: set[str] = set()
    out = []
    while len(out) < count:
        term = " ".join(rng.choice(words) for _ in range(rng.choice((1, 1, 2, 2, 3))))
        if fold(term) in seen:
            continue
        seen.add(fold(term))
        translation = " ".join(w[::-1] for w in term.split())
        out.append(
            (term.capitalize() if rng.random() < 0.2 else term, translation, "a note" if rng.random() < 0.3 else "")
        )
    return out


def old_matches(session, language: str, english: str, template: str) -> list[dict]:
    """The look-up before issue 38: every term of the language, `find` on each (the peer)."""
    return glossary.matched(glossary.terms(session, language), english, template)


def old_page(session, language: str, q: str) -> list[dict]:
    """The page's data before issue 38: every term read, filtered in Python."""
    rows = glossary.terms(session, language)
    if q:
        needle = fold(q)
        rows = [r for r in rows if any(needle in fold(v) for v in (r.term, r.translation, r.note))]
    return [glossary.record(r) for r in rows]


def timed(call, *args) -> tuple[float, object]:
    start = time.perf_counter()
    result = call(*args)
    return (time.perf_counter() - start) * 1000, result


def summary(ms: list[float]) -> str:
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"{statistics.median(ms):9.2f} {p95:9.2f} {ms[-1]:9.2f}"


def lookups(sessions, terms, words, rng: random.Random, items: int, scan_items: int) -> bool:
    patterns = []
    for _ in range(items):
        chosen = [rng.choice(words) for _ in range(rng.randint(4, 9))]
        if rng.random() < 0.7:  # most patterns hold a term or two
            chosen.insert(rng.randrange(len(chosen)), rng.choice(terms)[0])
        english = "[X] " + " ".join(chosen) + " [Y]"
        template = "[X] " + " ".join(w[::-1] for w in " ".join(chosen).split()) + " [Y]"
        patterns.append((english, template))
    old_ms, new_ms, same, hits = [], [], True, 0
    with sessions() as session:
        glossary.matches(session, "es", *patterns[0])  # warm both paths (connection, caches)
        old_matches(session, "es", *patterns[0])
        for n, (english, template) in enumerate(patterns):
            ms, new = timed(glossary.matches, session, "es", english, template)
            new_ms.append(ms)
            hits += len(new)  # type: ignore[arg-type]
            if n < scan_items:
                ms, old = timed(old_matches, session, "es", english, template)
                old_ms.append(ms)
                same = same and old == new
    print(f"\nitem look-up, {len(terms):,} terms ({hits} matches over {items} items)")
    print(f"{'':28} {'median ms':>9} {'p95 ms':>9} {'max ms':>9}")
    print(f"{'full scan (old), ' + str(len(old_ms)) + ' items':28} {summary(old_ms)}")
    print(f"{'lead-word index, ' + str(len(new_ms)) + ' items':28} {summary(new_ms)}")
    ratio = statistics.median(old_ms) / statistics.median(new_ms)
    print(f"median ratio old/index: {ratio:,.0f}×; answers equal: {same}")
    return same and sorted(new_ms)[int(len(new_ms) * 0.95)] < 50


def page(sessions, total: int) -> None:
    print(f"\nglossary page data, {total:,} terms")
    print(f"{'':32} {'old ms':>9} {'paged ms':>9} {'old rows':>9} {'page rows':>9}")
    with sessions() as session:
        for label, q in (("no search", ""), ("search 'ka'", "ka"), ("search 'zzz' (none)", "zzz")):
            old_ms, old = timed(old_page, session, "es", q)
            new_ms, new = timed(glossary.listing, session, "es", q)
            print(f"{label:32} {old_ms:9.1f} {new_ms:9.1f} {len(old):9,} {len(new['terms']):9,}")  # type: ignore[arg-type,index]


def write_csv(path: Path, rng: random.Random, words: list[str], megabytes: float) -> int:
    target, rows = int(megabytes * 1_000_000), 0
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write("language,term,translation,note\n")
        while out.tell() < target:
            term = f"{rng.choice(words)} {rng.choice(words)} {rows}"
            note = " ".join(rng.choice(words) for _ in range(60))[:480]
            out.write(f'es,{term},"{term[::-1]}, {rng.choice(words)}","{note}"\n')
            rows += 1
    return rows


def import_memory(sessions, root: Path, rng: random.Random, words: list[str], megabytes: float) -> None:
    path = root / "big.csv"
    rows = write_csv(path, rng, words, megabytes)
    size = path.stat().st_size
    tracemalloc.start()
    start = time.perf_counter()
    with unit_of_work(sessions) as session:
        added, _ = glossary_csv.import_csv(session, path)
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"\nimport of a generated CSV ({rows:,} lines; tracemalloc on, so slower than without)")
    print(f"{'file MB':>9} {'peak MB':>9} {'peak/file':>9} {'added':>9} {'seconds':>9}")
    print(f"{size / 1e6:9.1f} {peak / 1e6:9.1f} {peak / size:9.2f} {added:9,} {seconds:9.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--terms", type=int, default=20_000)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--scan-items", type=int, default=20, help="items the (slow) full scan answers too")
    parser.add_argument("--mb", type=float, default=30.0, help="size of the generated CSV to import")
    args = parser.parse_args()
    rng = random.Random(38)
    words = vocabulary(rng, 6_000)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        engine = make_engine(f"sqlite:///{root / 'glossary.sqlite'}")
        upgrade(engine)
        sessions = make_session_factory(engine)
        terms = generate_terms(rng, words, args.terms)
        with unit_of_work(sessions) as session:
            session.add(Language(code="es", name="Spanish"))
            session.flush()
            rows = [
                {
                    "language": "es",
                    "term": t,
                    "translation": tr,
                    "note": n,
                    "updated_at": utcnow(),
                    **glossary.keys(t, tr, n),
                }
                for t, tr, n in terms
            ]
            session.execute(insert(GlossaryTerm), rows)
        with sessions() as session:
            assert session.scalar(select(GlossaryTerm.id).limit(1)) is not None
        ok = lookups(sessions, terms, words, rng, args.items, args.scan_items)
        page(sessions, len(terms))
        with unit_of_work(sessions) as session:  # the import measured into an empty glossary
            session.query(GlossaryTerm).delete()
        import_memory(sessions, root, rng, words, args.mb)
        engine.dispose()
    if not ok:
        print("FAILED: the index's p95 is 50 ms or more, or an answer differs from the full scan's")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

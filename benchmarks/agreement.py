"""How often agreement changes what a model is asked (issue 39 §2), on the real data.

X-FACTR's native-speaker prompts (`xfactr/TREx_prompts.csv`) taken as annotated templates, filled
with every tuple of mParaRel (`mpararel/tuples/<lang>/<REL>.jsonl`) whose relation has one, each
subject and object given its gender by the one rule of the probe (`core.agreement.guess` over
X-FACTR's gender and instance-of files, read by `curator ingest`'s readers). Per language:

| column     | what it counts                                                                       |
|------------|--------------------------------------------------------------------------------------|
| prompts    | X-FACTR's prompts of the language: fillable here / of which annotated / refused      |
| relations  | annotated, fillable prompts whose relation has mParaRel tuples in the language       |
| queries    | filled queries of those prompts (one per tuple)                                      |
| changed    | queries whose text differs from the prompt at its first forms (`annotated.plain`,    |
|            | what a template without agreement would read): the share that agreement changes     |
| of all     | the same queries over every fillable prompt's queries of the language                |
| refused …  | prompts refused here (case, article, preposition tokens) that hold alternatives:    |
|            | their alternatives alone filled, to measure what agreement would change there too    |

With --nominative, `[X.Nom]`/`[Y.Nom]` (the citation form, which is what a label is) are read as
`[X]`/`[Y]` first — what a reviewer amends such a prompt to; Russian and Greek prompts carry them
on nearly every relation. With --tiny OUT, also the pipeline end to end on a tiny model: a release
folder of 40 real tuples each of fr P19 (X-FACTR's prompt, its [PREPLOC;Y] written out), es P463
and he P19 (X-FACTR's prompts), `curator ingest genders` and `instanceof`, `curator queries` and
`curator probe` with a tiny BERT, in a fresh SQLite database.

Usage: python benchmarks/agreement.py [--data ../shared/data] [--languages fr,es,ru,he,el,mr]
       [--nominative] [--tiny OUT]
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

from curator.core import annotated
from curator.core.agreement import guess, query_agreement
from curator.core.formats.release_writer import pattern_line
from curator.ingest.genders import read_classes, read_genders

NOMINATIVE = re.compile(r"\[([XY])\.(?:Nom|NOM)\]")
ALTERNATIVE = re.compile(r"\[[^\[\]|]*;[XY]-(?:Gender|Number)=[^\[\]]*\]")


def load_prompts(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def tuples_of(root: Path, language: str, relation: str) -> list[dict]:
    path = root / "mpararel" / "tuples" / language / f"{relation}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def language_row(root: Path, prompts, language: str, genders, classes, nominative: bool) -> dict:
    counts: Counter[str] = Counter()
    for row in prompts:
        template = row[language]
        if nominative:
            template = NOMINATIVE.sub(r"[\1]", template)
        tuples = tuples_of(root, language, row["pid"])
        try:
            annotated.check(template, language)
        except annotated.AnnotationError:
            counts["refused"] += 1
            # the prompt cannot be filled here; its gender/number alternatives alone still can
            alternatives = " ".join(ALTERNATIVE.findall(template))
            if alternatives:
                counts["alt_relations"] += bool(tuples)
                count_changes(counts, "alt_", alternatives, language, tuples, genders, classes)
            continue
        counts["fillable"] += 1
        counts["all"] += len(tuples)
        if annotated.is_annotated(template):
            counts["annotated"] += 1
            counts["relations"] += bool(tuples)
            count_changes(counts, "", template, language, tuples, genders, classes)
    return dict(counts)


def count_changes(counts: Counter[str], prefix: str, template: str, language: str, tuples, genders, classes) -> None:
    """Queries of `template` and those whose filled text differs from its first forms."""
    first = annotated.plain(template, language)
    for t in tuples:
        sub = guess(genders.get(t["sub_uri"]), classes.get(t["sub_uri"], ()), t["sub_label"], language)
        obj = guess(genders.get(t["obj_uri"]), classes.get(t["obj_uri"], ()), t["obj_label"], language)
        counts[prefix + "queries"] += 1
        counts[prefix + "changed"] += annotated.realise(template, query_agreement(sub, obj), language) != first


def share(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    –"


def print_table(rows: dict[str, dict]) -> None:
    print(
        "| language | prompts fillable/annotated/refused | relations | queries | changed | share | of all "
        "| refused prompts' alternatives: relations | queries | changed | share |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for language, c in rows.items():
        print(
            f"| {language} | {c.get('fillable', 0)}/{c.get('annotated', 0)}/{c.get('refused', 0)} "
            f"| {c.get('relations', 0)} | {c.get('queries', 0):,} | {c.get('changed', 0):,} "
            f"| {share(c.get('changed', 0), c.get('queries', 0))} | {share(c.get('changed', 0), c.get('all', 0))} "
            f"| {c.get('alt_relations', 0)} | {c.get('alt_queries', 0):,} | {c.get('alt_changed', 0):,} "
            f"| {share(c.get('alt_changed', 0), c.get('alt_queries', 0))} |"
        )


def tiny_run(root: Path, out: Path) -> None:
    """The pipeline end to end in a fresh database: release folder, genders, queries, probe."""
    from curator.cli import main

    prompts = {row["pid"]: row for row in load_prompts(root / "xfactr" / "TREx_prompts.csv")}
    # X-FACTR's French P19 with its [PREPLOC;Y] written out as a reviewer would ("à": cities)
    amended = {("fr", "P19"): "[X] est [né;X-Gender=MASC|née;X-Gender=FEM] à [Y] ."}
    release = out / "release"
    for language, relation in (("fr", "P19"), ("es", "P463"), ("he", "P19")):
        pattern = amended.get((language, relation), prompts[relation][language])
        rows = tuples_of(root, language, relation)[:40]
        for kind, lines in (
            # the release layout: the plain form under `pattern`, the annotated one under `annotated`
            ("patterns", [pattern_line(pattern, True, language)]),
            ("tuples", rows),
        ):
            path = release / kind / language / f"{relation}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), encoding="utf-8")
    database = ["--database", f"sqlite:///{out / 'curator.sqlite'}"]

    def run(*args: str) -> None:
        started = time.perf_counter()
        print(f"$ curator {' '.join(args)}")
        main([*database, *args], standalone_mode=False)
        print(f"  ({time.perf_counter() - started:.1f} s)")

    run("init")
    xfactr = root / "xfactr"
    run("ingest", "genders", str(xfactr / "TREx_gender.txt"), str(xfactr / "mTREx_gender.txt"))
    run("ingest", "instanceof", str(xfactr / "TREx_instanceof.txt"))
    run("queries", str(release), "--limit", "8")
    run("models", "tiny", str(out / "bert"), "--kind", "bert", "--corpus", str(release))
    run("probe", str(release), "--model", str(out / "bert"), "--out", str(out / "run"), "--device", "cpu")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--languages", default="fr,es,ru,he,el,mr")
    parser.add_argument("--nominative", action="store_true", help="read [X.Nom]/[Y.Nom] as [X]/[Y]")
    parser.add_argument("--tiny", type=Path, default=None, help="also run the pipeline end to end in OUT")
    args = parser.parse_args()
    xfactr = args.data / "xfactr"
    started = time.perf_counter()
    genders = read_genders([xfactr / "TREx_gender.txt", xfactr / "mTREx_gender.txt"])
    classes = {qid: list(found.values()) for qid, found in read_classes([xfactr / "TREx_instanceof.txt"]).items()}
    prompts = load_prompts(xfactr / "TREx_prompts.csv")
    rows = {
        language: language_row(args.data, prompts, language, genders, classes, args.nominative)
        for language in args.languages.split(",")
    }
    print_table(rows)
    print(f"\n{len(genders):,} genders, {len(classes):,} entities' classes; {time.perf_counter() - started:.1f} s")
    if args.tiny is not None:
        args.tiny.mkdir(parents=True, exist_ok=True)
        tiny_run(args.data, args.tiny)
    return 0


if __name__ == "__main__":
    sys.exit(main())

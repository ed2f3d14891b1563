"""X-FACTR's accuracies of a decoded run (`curator probe --decode …`): overall, on single-token
and multi-token objects apart, and with an oracle number of masks (X-FACTR §5, figure 4).

A prediction is correct when its string names the gold object (`core/aliases.py`: its normal
form is one of the gold object's names), as `probe/decoded.py` decided when it stored the run.
An object is single-token when the model's tokenizer makes one token of its label (the count
stored per tuple); the oracle prediction is the one decoded with exactly that many masks — no
prediction, so wrong, when the object has more tokens than the run's M. Shares are over
(template, tuple) pairs, pooled over the language's relations as X-FACTR reports them; the
consistency metrics of SPEC §6 on the decoded strings come from `curator metrics` as for any run.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

from curator.core.aliases import normal
from curator.core.formats.runs import RunError, read_stored, relation_files

QUERIES = 5  # decoded queries a report shows per relation (`curator report --queries`; the web pages link to every one)
# and at most this many in all, the first relations' (a run of 46 languages × 40 relations would
# otherwise make a page of tens of MB); the rest show their count and where to see them
QUERY_ROWS = 200

COLUMNS = ("accuracy", "single", "multi", "oracle")
LABELS = {
    "accuracy": "Accuracy",
    "single": "Single-token objects",
    "multi": "Multi-token objects",
    "oracle": "Oracle number of masks",
}


def relation_counts(index: Mapping[str, Any]) -> dict[str, tuple[int, int]] | None:  # index: a stored relation's JSON
    """{column: (correct, total)} of one stored relation; None when it was not decoded."""
    decoded = index.get("decoded")
    if not decoded:
        return None
    n, objects = len(index["subjects"]), index["objects"]
    strings, best, gold_tokens, names = decoded["strings"], decoded["best"], decoded["gold_tokens"], decoded["names"]
    out = {c: [0, 0] for c in COLUMNS}
    for q, row in enumerate(strings):
        d = q % n
        gold = set(names.get(objects[d], []))
        right = normal(row[best[q]]) in gold
        m = gold_tokens[d]
        oracle = 1 <= m <= len(row) and normal(row[m - 1]) in gold
        split = "single" if m == 1 else "multi" if m > 1 else None  # a label of no tokens is neither
        for column, hit in (("accuracy", right), (split, right), ("oracle", oracle)):
            if column is None:
                continue
            out[column][0] += int(hit)
            out[column][1] += 1
    return {c: (a, b) for c, (a, b) in out.items()}


class Accuracy(TypedDict):
    """One column of one language: the share correct (None when nothing was asked) and its counts."""

    value: float | None
    correct: int
    total: int


def decoding_accuracy(
    run: str | Path, languages: list[str] | None = None, relations: list[str] | None = None
) -> dict[str, dict[str, Accuracy]]:
    """{language: {column: {"value": share or None, "correct": k, "total": n}}}."""
    totals: dict[str, dict[str, list[int]]] = {}
    for language, relation in relation_files(run, languages, relations):
        stored = read_stored(run, language, relation)
        counts = relation_counts(stored[0]) if stored is not None else None
        if counts is None:
            continue
        into = totals.setdefault(language, {c: [0, 0] for c in COLUMNS})
        for column, (k, n) in counts.items():
            into[column][0] += k
            into[column][1] += n
    return {
        lang: {c: Accuracy(value=(k / n) if n else None, correct=k, total=n) for c, (k, n) in cols.items()}
        for lang, cols in sorted(totals.items())
    }


class Mask(TypedDict):
    """What one query wrote into m masks: the word pieces (None when the run did not store them),
    their joined string and v(m)."""

    m: int
    pieces: list[str] | None
    string: str
    confidence: float


class Query(TypedDict):
    """One decoded (template, tuple): every m's prediction, the chosen m and whether it is right."""

    template: str
    subject: str
    object: str
    masks: list[Mask]
    chosen: int
    correct: bool


class RelationQueries(TypedDict):
    """Some queries of one relation (template-major), out of its `total`."""

    language: str
    relation: str
    total: int
    pieces_stored: bool
    queries: list[Query]


def relation_queries(index: Mapping[str, Any], limit: int | None = None, offset: int = 0) -> RelationQueries | None:
    """`limit` queries (all with None) of one stored relation from the `offset`-th; None when it was not
    decoded. Runs stored before the word pieces were kept read with `pieces` None: the strings
    are shown alone and nothing is decoded again."""
    decoded = index.get("decoded")
    if not decoded:
        return None
    subjects, objects, templates = index["subjects"], index["objects"], index["templates"]
    n = len(subjects)
    label = {c[0]: c[1] for c in index["candidates"]}
    strings, confidence, best, names = decoded["strings"], decoded["confidence"], decoded["best"], decoded["names"]
    pieces = decoded.get("pieces")
    rows = len(templates) * n
    sizes = {"strings": len(strings), "confidence": len(confidence), "best": len(best)}
    if pieces is not None:
        sizes["pieces"] = len(pieces)
    widths = {len(row) for row in strings} | {len(row) for row in confidence} | {len(r) for r in pieces or []}
    if any(size != rows for size in sizes.values()) or len(widths) > 1:
        found = ", ".join(f"{size} {name}" for name, size in sizes.items())
        raise RunError(
            f"{index.get('language')} {index.get('relation')}: the decoded index does not fit its "
            f"{rows} queries ({found}; masks per query {sorted(widths)}): decode the relation again"
        )
    queries: list[Query] = []
    for q, row in enumerate(strings[offset : len(strings) if limit is None else offset + limit], offset):
        t, d = divmod(q, n)
        queries.append(
            {
                "template": templates[t],
                "subject": subjects[d][1],
                "object": label.get(objects[d], objects[d]),
                "masks": [
                    {
                        "m": m + 1,
                        "pieces": list(pieces[q][m]) if pieces is not None else None,
                        "string": text,
                        "confidence": float(confidence[q][m]),
                    }
                    for m, text in enumerate(row)
                ],
                "chosen": int(best[q]) + 1,
                "correct": normal(row[best[q]]) in set(names.get(objects[d], [])),
            }
        )
    return {
        "language": index["language"],
        "relation": index["relation"],
        "total": len(strings),
        "pieces_stored": pieces is not None,
        "queries": queries,
    }


def decoded_queries(
    run: str | Path, languages: list[str] | None = None, relations: list[str] | None = None, limit: int | None = None
) -> list[RelationQueries]:
    """Per decoded relation of the run (language, then relation order), its first `limit`
    queries (all with None): the template, subject and gold object, for every m the word
    pieces, the string and v(m), and the chosen m."""
    out = []
    for language, relation in relation_files(run, languages, relations):
        stored = read_stored(run, language, relation)
        found = relation_queries(stored[0], limit) if stored is not None else None
        if found is not None:
            out.append(found)
    return out

"""A relation decoded without candidates (X-FACTR), stored so every metric reads it like a ranking run.

`curator probe --decode …` predicts a string per (template, tuple): the best over m = 1..M
masks (`decoding.py`). The metrics of SPEC §6 compare predictions for equality and count the
correct ones, so the string is mapped to an id before it is stored:

  - a string that names (`core/aliases.py`) an entity of the relation's candidate set is that
    entity — the gold object when it names the gold object (X-FACTR: correct when it matches
    the object or one of its aliases), else the first such entity in id order;
  - any other string is its own prediction, identified by its normal form and stored as an
    extra candidate `("text:<normal form>", <the string as decoded first>)`;
  - a string with nothing left in normal form (only punctuation or spaces: ",", "▁") is no
    answer: a candidate `("none:<row>", string)` of its own, so two of them never agree.

So "Roma", "roma" and "Rome" (an alias) are one prediction for consistency, and two different
strings that name no entity are two. The relation is saved with `save_relation` (no rankings:
RankC does not apply), and its index keeps what X-FACTR's evaluation needs beyond the best
prediction (`analysis/decoding.py`): every m's string and confidence, the best m, the gold
object's token count (the oracle m) and the gold objects' names in normal form — and, so that a
reader sees what the model wrote and not only the joined string, every m's token ids (`tokens`)
and word pieces (`pieces`, `tokenizer.convert_ids_to_tokens`: "▁Par", "##is"). Relations stored
before the pieces were kept have neither: readers show their strings alone, and only a resumed
`curator probe` decodes them again (`PIECES`).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from curator.core.aliases import Aliases, matcher, normal
from curator.core.formats.runs import RelationPredictions, read_stored, save_relation
from curator.probe.data import RelationData
from curator.probe.summary import RelationResult

if TYPE_CHECKING:
    from curator.probe.decoding import MaskedDecoder

TEXT = "text:"
NONE = "none:"  # + the query's row: a string with no letters or digits names nothing, not even itself
PIECES = "pieces"  # the field of `decoded` a current relation has: stored without it, a resumed run decodes again


def decoding_key(model: str, decoder: MaskedDecoder) -> str:
    """What the stored result depends on besides the data: resumed runs re-decode when it changes."""
    settings = [
        model,
        "decode",
        asdict(decoder.options),
        decoder.scorer.options.final_punct,
        str(next(decoder.scorer.model.parameters()).dtype),
    ]
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]


def to_predictions(
    data: RelationData, strings: list[str], aliases: Aliases
) -> tuple[list[tuple[str, str]], np.ndarray, np.ndarray]:
    """(candidates with the extra strings appended, predicted index per query, correct per query)."""
    n = len(data.subjects)
    candidates = list(data.candidates)
    index = {entity: i for i, (entity, _) in enumerate(candidates)}
    names = matcher(aliases, data.language, sorted(index))
    predicted = np.zeros(len(strings), dtype=np.int32)
    correct = np.zeros(len(strings), dtype=bool)
    for q, text in enumerate(strings):
        form, gold = normal(text), data.objects[q % n] if n else None
        named = names.get(form, []) if form else []
        entity = gold if gold in named else (named[0] if named else None)
        if not form:  # nothing but punctuation or spaces: no answer, which agrees with nothing
            predicted[q] = len(candidates)
            candidates.append((f"{NONE}{q}", text))
        elif entity is None:
            key = TEXT + form
            if key not in index:
                index[key] = len(candidates)
                candidates.append((key, text))
            predicted[q] = index[key]
        else:
            predicted[q] = index[entity]
            correct[q] = entity == gold
    return candidates, predicted, correct


def decode_relation(
    decoder: MaskedDecoder, data: RelationData, out: Path, model: str, aliases: Aliases
) -> RelationResult | None:
    """Decode one relation into the run folder (None when the stored result is current)."""
    # every candidate's names decide what a string is stored as, not only the gold objects'
    all_names = {c: sorted(aliases.of(data.language, c)) for c, _ in data.candidates}
    gold_names = {o: all_names[o] for o in sorted(set(data.objects))}
    key = decoding_key(model, decoder)
    digest = hashlib.sha256((data.digest() + key + json.dumps(all_names, ensure_ascii=False)).encode()).hexdigest()
    previous = read_stored(out, data.language, data.relation)
    if previous is not None and previous[0].get("digest") == digest and PIECES in previous[0].get("decoded", {}):
        return None
    start = time.perf_counter()
    decoded = decoder.decode_relation(data)
    T, n = len(data.templates), len(data.subjects)
    best = [decoded.strings[q][int(decoded.best[q])] for q in range(T * n)]
    candidates, predicted, correct = to_predictions(data, best, aliases)
    label = dict(data.candidates)
    gold_tokens = [len(ids) for ids in decoder.scorer.encode([label[o] for o in data.objects])]
    to_pieces = decoder.scorer.tok.convert_ids_to_tokens
    pieces = [[list(to_pieces(ids)) for ids in per_q] for per_q in decoded.tokens]
    save_relation(
        out,
        RelationPredictions(
            data.language,
            data.relation,
            data.templates,
            data.subjects,
            data.objects,
            candidates,
            predicted.reshape(T, n),
            correct.reshape(T, n),
            np.array(data.gold, dtype=np.int32),
        ),
        index_extra={
            "digest": digest,
            "options_key": key,
            "decoded": {
                "strings": decoded.strings,
                "tokens": [[[int(i) for i in ids] for ids in per_q] for per_q in decoded.tokens],
                PIECES: pieces,
                "confidence": [[round(float(v), 6) for v in row] for row in np.asarray(decoded.confidence)],
                "best": [int(b) for b in decoded.best],
                "gold_tokens": gold_tokens,
                "names": gold_names,
            },
        },
    )
    return RelationResult(
        data.language,
        data.relation,
        T * n,
        len(data.candidates),
        T * n,
        round(time.perf_counter() - start, 3),
        round(float(correct.mean()) if len(correct) else 0.0, 4),
    )

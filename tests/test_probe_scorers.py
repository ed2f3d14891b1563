"""Every candidate score of the batched scorers equals a brute-force reference: one separate
forward pass per candidate, in float64 (SPEC §5), on tiny real models of each kind."""
from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from curator.probe.data import build  # noqa: E402
from curator.probe.scorers.base import Options, load_scorer  # noqa: E402
from curator.probe.tiny import build_tiny  # noqa: E402

from .conftest import SEED  # noqa: E402

TEMPLATES = ["[X] nació en [Y]", "la ciudad natal de [X] es [Y] hoy", "[Y] vio nacer a [X]"]
TUPLES = [dict(sub_uri="Q535", sub_label="Victor Hugo", obj_uri="Q37776", obj_label="Besanzón"),
          dict(sub_uri="Q937", sub_label="Albert Einstein", obj_uri="Q3012", obj_label="Ulm"),
          dict(sub_uri="Q254", sub_label="Wolfgang Amadeus Mozart", obj_uri="Q34713", obj_label="Salzburgo"),
          dict(sub_uri="Q5593", sub_label="Pablo Picasso", obj_uri="Q8851", obj_label="Málaga")]


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny")
    return {kind: build_tiny(root / kind, kind, SEED) for kind in ("bert", "xlm-roberta", "t5", "gpt2")}


def reference(scorer, data, kind: str, mode: str) -> np.ndarray:
    model = copy.deepcopy(scorer.model).double()
    queries = scorer.queries(data)
    out = np.empty((len(queries), len(data.candidates)))
    labels = [label for _, label in data.candidates]
    for q, (before, after) in enumerate(queries):
        b, a = scorer.encode([before])[0], scorer.encode([after])[0]
        for c, label in enumerate(labels):
            with torch.no_grad():
                if kind in ("bert", "xlm-roberta"):
                    cand = scorer.encode([label])[0]
                    ids = scorer.head_ids + b + [scorer.tok.mask_token_id] * len(cand) + a + scorer.tail_ids
                    logits = model(input_ids=torch.tensor([ids])).logits[0]
                    start = len(scorer.head_ids) + len(b)
                    rows = logits[start:start + len(cand)]
                    targets = cand
                elif kind == "t5":
                    cand = scorer.encode([label])[0]
                    ids = scorer.head_ids + b + [scorer.sentinel] + a + scorer.tail_ids
                    dec = [scorer.start, scorer.sentinel] + cand[:-1]
                    logits = model(input_ids=torch.tensor([ids]), decoder_input_ids=torch.tensor([dec])).logits[0]
                    rows, targets = logits[1:], cand
                else:
                    spaced = before != before.rstrip() or not before
                    bb = scorer.encode([before.rstrip()])[0]
                    cand = scorer.encode([(" " if spaced and bb else "") + label])[0]
                    ids = scorer.bos + bb + cand + a
                    logits = model(input_ids=torch.tensor([ids])).logits[0]
                    rows, targets = logits[:-1], ids[1:]
                if mode == "log-prob":
                    rows = rows.log_softmax(-1)
                out[q, c] = rows[torch.arange(len(targets)), torch.tensor(targets)].mean().item()
    return out


@pytest.mark.parametrize("kind", ["bert", "xlm-roberta", "t5", "gpt2"])
@pytest.mark.parametrize("mode", ["log-prob", "mean-logit"])
def test_scores_equal_brute_force_reference(tiny_models, kind, mode):
    data = build("es", "P19", TEMPLATES, TUPLES)
    # a small token budget forces several batches and candidate chunks
    scorer = load_scorer(str(tiny_models[kind]), device="cpu", dtype="float32",
                         options=Options(score_mode=mode, batch_tokens=48))
    assert scorer.kind == {"bert": "masked", "xlm-roberta": "masked", "t5": "seq2seq", "gpt2": "causal"}[kind]
    fast = scorer.score_relation(data)
    slow = reference(scorer, data, kind, mode)
    assert fast.shape == (len(TEMPLATES) * len(TUPLES), len(data.candidates))
    np.testing.assert_allclose(fast, slow, atol=1e-5, rtol=0)


@pytest.mark.parametrize("kind", ["bert", "xlm-roberta"])
def test_masked_head_paths_agree_with_reference(tiny_models, kind):
    """Split head over many vocabulary tiles, and the whole-head fallback, give the same scores."""
    data = build("es", "P19", TEMPLATES, TUPLES)
    scorer = load_scorer(str(tiny_models[kind]), device="cpu", dtype="float32", options=Options(batch_tokens=64))
    assert scorer.split is not None
    slow = reference(scorer, data, kind, "log-prob")
    scorer.tile_bytes = 4 * 16 * 37  # a few dozen vocabulary ids per tile, a ragged last tile
    np.testing.assert_allclose(scorer.score_relation(data), slow, atol=1e-5, rtol=0)
    scorer.split = None
    np.testing.assert_allclose(scorer.score_relation(data), slow, atol=1e-5, rtol=0)


def test_mean_logit_differs_from_log_prob(tiny_models):
    data = build("es", "P19", TEMPLATES, TUPLES)
    a = load_scorer(str(tiny_models["bert"]), device="cpu", options=Options(score_mode="log-prob")).score_relation(data)
    b = load_scorer(str(tiny_models["bert"]), device="cpu", options=Options(score_mode="mean-logit")).score_relation(data)
    assert not np.allclose(a, b)


def test_unknown_model_and_missing_head(tiny_models, tmp_path):
    from curator.probe.scorers import ProbeError

    with pytest.raises(ProbeError, match="cannot load model"):
        load_scorer(str(tmp_path / "nowhere"), device="cpu")
    with pytest.raises(ProbeError, match="no seq2seq language-model head|sentinel"):
        load_scorer(str(tiny_models["gpt2"]), device="cpu", kind="seq2seq")

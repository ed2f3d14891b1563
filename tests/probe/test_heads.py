"""The masked scorers' ways through the LM head (scorers/masked.py, pll.py, decoding_passes.py):

- a head that is neither `cls` nor `lm_head` (DistilBERT's vocab_projector, XLM's pred_layer,
  ELECTRA's generator_lm_head) runs with the output projection bypassed, so only the scored
  positions are projected: the same scores as the model's own logits, in every mode;
- the full-logits fallbacks hold at most LOGITS_CAP logits at once (never [rows·P, V] for a batch);
- rows an output matrix has past len(tokenizer) (padded to a multiple of 8 or 64) are never
  predicted by decoding, as special tokens are not.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

# E402 below: imported after importorskip, so the file is skipped (not an error) without torch or transformers
from curator.probe.data import build  # noqa: E402
from curator.probe.decoding import DecodeOptions, MaskedDecoder  # noqa: E402
from curator.probe.scorers import Options, head, load_scorer  # noqa: E402
from curator.probe.tiny import build_tiny  # noqa: E402
from tests.conftest import SEED  # noqa: E402

TEMPLATES = ["[X] nació en [Y]", "la ciudad natal de [X] es [Y] hoy"]
TUPLES = [
    dict(sub_uri="Q535", sub_label="Victor Hugo", obj_uri="Q37776", obj_label="Besanzón"),
    dict(sub_uri="Q937", sub_label="Albert Einstein", obj_uri="Q3012", obj_label="Ulm"),
    dict(sub_uri="Q5593", sub_label="Pablo Picasso", obj_uri="Q8851", obj_label="Málaga"),
]
DECODE = DecodeOptions(init="confidence", refine="confidence", max_masks=2, beam=2)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A tiny BERT, a DistilBERT on its tokenizer, and the BERT with its output matrix padded
    past the tokenizer by 11 rows whose bias makes them the most likely tokens everywhere."""
    from transformers import AutoTokenizer, BertForMaskedLM, DistilBertConfig, DistilBertForMaskedLM

    root = tmp_path_factory.mktemp("heads")
    bert = build_tiny(root / "bert", "bert", SEED)
    tok = AutoTokenizer.from_pretrained(bert)

    distil = root / "distilbert"
    shutil.copytree(bert, distil)
    torch.manual_seed(0)
    config = DistilBertConfig(vocab_size=len(tok), dim=64, n_layers=2, n_heads=2, hidden_dim=128, pad_token_id=0)
    model = DistilBertForMaskedLM(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2:
                p.normal_(0, 0.1)  # contexts matter, so the paths' predictions differ where they could
    model.save_pretrained(distil)

    padded = root / "padded"
    shutil.copytree(bert, padded)
    model = BertForMaskedLM.from_pretrained(bert)
    model.resize_token_embeddings(len(tok) + 11)
    with torch.no_grad():
        model.cls.predictions.decoder.bias[len(tok) :] = 50.0
    model.save_pretrained(padded)
    return {"bert": bert, "distilbert": distil, "padded": padded, "tokens": len(tok)}


def data(templates: int = 2, tuples: int = 2):
    return build("es", "P19", TEMPLATES[:templates], TUPLES[:tuples])


def run_all(scorer):
    """Log-prob ranking, pll (one query: a pass per token of each candidate's sentence) and
    decoding (tokens, v(m)) of the same relation with one scorer."""
    scorer.options.score_mode = "log-prob"
    ranked = scorer.score_relation(data())
    scorer.options.score_mode = "pll"
    pll = scorer.score_relation(data(1, 1))
    scorer.options.score_mode = "log-prob"
    decoded = MaskedDecoder(scorer, DECODE).decode_relation(data())
    return ranked, pll, decoded


def assert_same(a, b):
    np.testing.assert_allclose(a[0], b[0], atol=1e-5)  # ranking scores are stored in float32
    np.testing.assert_allclose(a[1], b[1], atol=1e-8)
    assert a[2].tokens == b[2].tokens
    np.testing.assert_allclose(a[2].confidence, b[2].confidence, atol=1e-6)


def test_a_head_without_cls_or_lm_head_is_bypassed(models):
    """DistilBERT: the projection is taken out of the model, and every mode gives the model's own
    logits' scores (the whole-model fallback, which holds [rows, width, V] logits)."""
    scorer = load_scorer(str(models["distilbert"]), "cpu", "float64", Options(batch_tokens=64))
    assert scorer.bypass is not None and isinstance(scorer.split[0], torch.nn.Identity)
    bypassed = run_all(scorer)
    scorer.head = scorer.split = scorer.bypass = None
    assert_same(bypassed, run_all(scorer))


def test_full_logit_fallbacks_stay_under_the_cap(models, monkeypatch):
    """With a head that does not split (and with none at all), no call in any mode holds more
    logits than LOGITS_CAP, lowered here to 2 positions' worth for the head (it runs on a few
    rows at a time) and to 20 for the model's own logits (a batch of rows; one query is ~12
    tokens); the scores stay the same."""
    scorer = load_scorer(str(models["bert"]), "cpu", "float64", Options(batch_tokens=256))
    expected = run_all(scorer)
    vocab = scorer.model.get_output_embeddings().weight.shape[0]
    seen: dict[str, int] = {}

    def record(_module, _inputs, output):
        logits = output if isinstance(output, torch.Tensor) else output.logits
        mode = "decode" if scorer.options.score_mode == "log-prob" and ranked_done else scorer.options.score_mode
        seen[mode] = max(seen.get(mode, 0), logits.numel())

    for cap, module, drop in ((2 * vocab, scorer.head, "split"), (20 * vocab, scorer.model, "head")):
        monkeypatch.setattr(head, "LOGITS_CAP", cap, raising=False)
        setattr(scorer, drop, None)  # split: the head's full logits; head: the model's own at every position
        seen.clear()
        ranked_done = False
        hook = module.register_forward_hook(record)
        scorer.options.score_mode = "log-prob"
        ranked = scorer.score_relation(data())
        ranked_done = True
        scorer.options.score_mode = "pll"
        pll = scorer.score_relation(data(1, 1))
        scorer.options.score_mode = "log-prob"
        decoded = MaskedDecoder(scorer, DECODE).decode_relation(data())
        hook.remove()
        assert_same(expected, (ranked, pll, decoded))
        assert set(seen) == {"log-prob", "pll", "decode"} and max(seen.values()) <= cap, (drop, seen, cap)


def test_rows_past_the_tokenizer_are_never_predicted(models):
    """The padded rows have the highest logits everywhere, yet every decoded token is a real,
    non-special token; they still count in the normaliser (the model's softmax)."""
    scorer = load_scorer(str(models["padded"]), "cpu", "float32", Options(batch_tokens=256))
    assert scorer.model.get_output_embeddings().weight.shape[0] == models["tokens"] + 11
    decoded = MaskedDecoder(scorer, DECODE).decode_relation(data())
    special = set(scorer.tok.all_special_ids)
    picked = {t for per_q in decoded.tokens for ids in per_q for t in ids}
    assert picked and max(picked) < models["tokens"] and not picked & special
    # each c is the real token's probability under the whole softmax, padded rows included: tiny
    assert (decoded.confidence < -40).all()

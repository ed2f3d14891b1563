"""Every candidate score of the batched scorers equals a brute-force reference: one separate
forward pass per candidate, in float64 (SPEC §5), on tiny real models of each kind.

The reference is independent of the scorers: it loads the model and tokenizer afresh, writes
the masks, the sentinel or the candidate into the template's text and tokenizes that text
whole, as the model family sees running text. A scorer that glued separately encoded pieces
together (a stray "▁" before XLM-R's masks, "▁." after a T5 sentinel, byte-level BPE merges cut
at the slot's edges) disagrees with it."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

# E402 below: imported after importorskip, so the file is skipped (not an error) without torch or transformers
from curator.probe.data import build  # noqa: E402
from curator.probe.scorers import Options, load_scorer  # noqa: E402
from curator.probe.tiny import build_tiny  # noqa: E402
from tests.conftest import SEED  # noqa: E402
from tests.probe import real_data as probe_real  # noqa: E402

# the last two end in sentence-final punctuation, which --final-punct leaves as it is
TEMPLATES = [
    "[X] nació en [Y]",
    "la ciudad natal de [X] es [Y] hoy",
    "[Y] vio nacer a [X]",
    "¿[X] nació en [Y]?",
    "[X] [Y]-তে জন্মগ্রহণ করেন।",
]
SENTENCE_END = set(".!?。։۔।!?")  # the documented rule, written out here apart from the scorers' regex
TUPLES = [
    dict(sub_uri="Q535", sub_label="Victor Hugo", obj_uri="Q37776", obj_label="Besanzón"),
    dict(sub_uri="Q937", sub_label="Albert Einstein", obj_uri="Q3012", obj_label="Ulm"),
    dict(sub_uri="Q254", sub_label="Wolfgang Amadeus Mozart", obj_uri="Q34713", obj_label="Salzburgo"),
    dict(sub_uri="Q5593", sub_label="Pablo Picasso", obj_uri="Q8851", obj_label="Málaga"),
]
# xlm-roberta-family: the same model loaded through transformers 5's XLMRobertaTokenizer,
# which rebuilds the tokenizer.json layout (WhitespaceSplit + Metaspace) as for a real checkpoint
KINDS = ["bert", "xlm-roberta", "xlm-roberta-family", "t5", "t5-first", "gpt2"]
SCORER_KIND = {
    "bert": "masked",
    "xlm-roberta": "masked",
    "xlm-roberta-family": "masked",
    "t5": "seq2seq",
    "t5-first": "seq2seq",
    "gpt2": "causal",
}


def first_scheme_copy(path, out):
    """The same T5 with its Metaspace prepending "▁" to the first piece of a text only (what
    transformers builds for T5 with legacy=False): after the sentinel, "." stays ".", while
    encoded on its own it would become "▁."."""
    shutil.copytree(path, out)
    spec = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
    for pre in spec["pre_tokenizer"]["pretokenizers"]:
        if pre["type"] == "Metaspace":
            pre["prepend_scheme"] = "first"
    spec["decoder"]["prepend_scheme"] = "first"
    (out / "tokenizer.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    return out


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny")
    models = {kind: build_tiny(root / kind, kind, SEED) for kind in ("bert", "xlm-roberta", "t5", "gpt2")}
    models["t5-first"] = first_scheme_copy(models["t5"], root / "t5-first")
    models["xlm-roberta-family"] = probe_real.family_copy(
        models["xlm-roberta"], root / "xlm-roberta-family", "XLMRobertaTokenizer"
    )
    return models


def fill(template: str, subject: str, slot: str, final_punct: bool) -> str:
    """The template filled; with final_punct a "." ends it unless the template (subject filled
    in, before the slot is) already ends in sentence-final punctuation (docs/probe.md)."""
    with_subject = template.replace("[X]", subject)
    text = with_subject.replace("[Y]", slot)
    if final_punct and with_subject.rstrip()[-1:] not in SENTENCE_END:
        text = text.rstrip() + "."
    return text


def reference(path, data, kind: str, mode: str, final_punct: bool = False, bos: bool = True) -> np.ndarray:
    """[queries, candidates] scores, one float64 forward pass per (template, subject, candidate);
    bos=False: a decoder-only sentence without BOS in front (its first token is not scored)."""
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoModelForSeq2SeqLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    auto = {"masked": AutoModelForMaskedLM, "seq2seq": AutoModelForSeq2SeqLM, "causal": AutoModelForCausalLM}[
        SCORER_KIND[kind]
    ]
    model = auto.from_pretrained(path, dtype=torch.float64).eval()
    labels = [label for _, label in data.candidates]
    rows = [(t, subject) for t in data.templates for _, subject in data.subjects]
    out = np.empty((len(rows), len(labels)))
    for q, (template, subject) in enumerate(rows):
        for c, label in enumerate(labels):
            cand = tok(label, add_special_tokens=False)["input_ids"]
            with torch.no_grad():
                if SCORER_KIND[kind] == "masked":
                    ids = tok(fill(template, subject, " ".join([tok.mask_token] * len(cand)), final_punct))["input_ids"]
                    at = [i for i, t in enumerate(ids) if t == tok.mask_token_id]
                    assert len(at) == len(cand)
                    logits = model(input_ids=torch.tensor([ids])).logits[0, at]
                    targets = cand
                elif SCORER_KIND[kind] == "seq2seq":
                    ids = tok(fill(template, subject, "<extra_id_0>", final_punct))["input_ids"]
                    sentinel = tok.convert_tokens_to_ids("<extra_id_0>")
                    assert ids.count(sentinel) == 1
                    decoder = [model.config.decoder_start_token_id, sentinel] + cand[:-1]
                    logits = model(input_ids=torch.tensor([ids]), decoder_input_ids=torch.tensor([decoder])).logits[
                        0, 1:
                    ]
                    targets = cand
                else:
                    ids = tok(fill(template, subject, label, final_punct))["input_ids"]
                    if bos and tok.bos_token_id is not None and ids[0] != tok.bos_token_id:
                        ids = [tok.bos_token_id] + ids  # GPT-2 adds none; its <|endoftext|> starts a text
                    logits = model(input_ids=torch.tensor([ids])).logits[0, :-1]
                    targets = ids[1:]
            if mode == "log-prob":
                logits = logits.log_softmax(-1)
            out[q, c] = logits[torch.arange(len(targets)), torch.tensor(targets)].mean().item()
    return out


def check_against_reference(path, data, kind, mode, final_punct=False, batch_tokens=48):
    # a small token budget forces several batches and candidate chunks
    scorer = load_scorer(
        str(path),
        device="cpu",
        dtype="float32",
        options=Options(score_mode=mode, batch_tokens=batch_tokens, final_punct=final_punct),
    )
    assert scorer.kind == SCORER_KIND[kind]
    fast = scorer.score_relation(data)
    slow = reference(path, data, kind, mode, final_punct)
    assert fast.shape == (len(data.templates) * len(data.subjects), len(data.candidates))
    np.testing.assert_allclose(fast, slow, atol=1e-5, rtol=0)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("mode", ["log-prob", "mean-logit"])
def test_scores_equal_brute_force_reference(tiny_models, kind, mode):
    data = build("es", "P19", TEMPLATES, TUPLES)
    check_against_reference(tiny_models[kind], data, kind, mode, final_punct=mode == "mean-logit")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("language", probe_real.LANGUAGES)
def test_scores_equal_reference_on_real_data(tmp_path_factory, kind, language):
    """Real templates and tuples in three scripts, with tokenizers trained on them; the
    candidates are the objects of the first tuples (each needs its own reference passes)."""
    path = probe_real.model(tmp_path_factory, {"t5-first": "t5", "xlm-roberta-family": "xlm-roberta"}.get(kind, kind))
    if kind == "t5-first":
        out = tmp_path_factory.getbasetemp() / "real-t5-first"
        path = out if out.exists() else first_scheme_copy(path, out)
    if kind == "xlm-roberta-family":
        out = tmp_path_factory.getbasetemp() / "real-xlm-roberta-family"
        path = out if out.exists() else probe_real.family_copy(path, out, "XLMRobertaTokenizer")
    data = probe_real.need_shared()
    # P103 in Korean glues the slot to particles ("[Y]는", "[Y]입니다"); with these tuples
    # the byte-level BPE merges across the slot's edge in a dozen sentences
    rows = build(
        language,
        "P103",
        probe_real.templates(data, language, "P103")[:3],
        probe_real.tuples(data, language, "P103")[:6],
    )
    check_against_reference(path, rows, kind, "log-prob", final_punct=language == "ru")


@pytest.mark.parametrize("kind", ["bert", "xlm-roberta"])
def test_masked_head_paths_agree_with_reference(tiny_models, kind):
    """Split head over many vocabulary tiles, and the whole-head fallback, give the same scores."""
    data = build("es", "P19", TEMPLATES, TUPLES)
    scorer = load_scorer(str(tiny_models[kind]), device="cpu", dtype="float32", options=Options(batch_tokens=64))
    assert scorer.split is not None
    slow = reference(tiny_models[kind], data, kind, "log-prob")
    scorer.tile_bytes = 4 * 16 * 37  # a few dozen vocabulary ids per tile, a ragged last tile
    np.testing.assert_allclose(scorer.score_relation(data), slow, atol=1e-5, rtol=0)
    scorer.split = None
    np.testing.assert_allclose(scorer.score_relation(data), slow, atol=1e-5, rtol=0)


# decoder-only batching: [Y] first, in the middle (glued to "s", which the byte-level BPE merges
# with several candidates' last letters) and last; subjects of different lengths, so the queries
# of one relation have many shared-prefix lengths
CAUSAL_TEMPLATES = ["[Y] es donde nació [X]", "[X] vive en [Y]s hoy", "[X] nació en [Y]", "En [Y]"]
CAUSAL_SUBJECTS = [
    "Ana",
    "Victor Hugo",
    "Wolfgang Amadeus Mozart",
    "Pablo Picasso",
    "Jo",
    "Albert Einstein",
    "Li",
    "Marie Curie",
]
MIXED_OBJECTS = ["Ulm", "Besanzón", "Salzburgo", "Málaga", "Nueva York", "Nueva", "San Diego", "Santiago"]
# every candidate starts with the same tokens (the shared prefix reaches into them) and one is a
# prefix of the others (each sentence keeps a token of its own)
SHARED_START_OBJECTS = ["Nueva York", "Nueva Delhi", "Nueva"]


def causal_data(objects):
    tuples = [
        dict(sub_uri=f"Q{i}", sub_label=CAUSAL_SUBJECTS[i], obj_uri=f"Q{100 + i}", obj_label=label)
        for i, label in enumerate(objects)
    ]
    return build("es", "P19", CAUSAL_TEMPLATES, tuples)


@pytest.mark.parametrize("objects", [MIXED_OBJECTS, SHARED_START_OBJECTS], ids=["mixed", "shared-start"])
@pytest.mark.parametrize("mode", ["log-prob", "mean-logit"])
def test_gpt2_batching_across_queries_equals_reference(tiny_models, objects, mode):
    """Tiny and large budgets (one row per pass vs whole relations per pass) give the reference."""
    data = causal_data(objects)
    path = tiny_models["gpt2"]
    slow = reference(path, data, "gpt2", mode)
    for budget in (4, 16, 4096):
        scorer = load_scorer(
            str(path), device="cpu", dtype="float32", options=Options(score_mode=mode, batch_tokens=budget)
        )
        assert scorer.head is not None  # the bypassed head is the path under test
        np.testing.assert_allclose(scorer.score_relation(data), slow, atol=1e-5, rtol=0)
    split = list(
        scorer.split(
            data, scorer.queries(data), [label for _, label in data.candidates], range(len(scorer.queries(data)))
        )
    )
    assert len({len(prefix) for _, prefix, _ in split}) >= 4  # the batches really mix prefix lengths


@pytest.mark.parametrize("mode", ["log-prob", "mean-logit"])
def test_gpt2_full_logits_fallback_and_no_bos(tiny_models, mode):
    """The fallback for heads that fail verification, and a model without BOS (an empty shared
    prefix where [Y] comes first: rows run from scratch, the first token unscored)."""
    data = causal_data(MIXED_OBJECTS)
    path = tiny_models["gpt2"]
    scorer = load_scorer(str(path), device="cpu", dtype="float32", options=Options(score_mode=mode, batch_tokens=16))
    scorer.head = None
    np.testing.assert_allclose(scorer.score_relation(data), reference(path, data, "gpt2", mode), atol=1e-5, rtol=0)
    scorer = load_scorer(str(path), device="cpu", dtype="float32", options=Options(score_mode=mode, batch_tokens=16))
    scorer.bos = None
    np.testing.assert_allclose(
        scorer.score_relation(data), reference(path, data, "gpt2", mode, bos=False), atol=1e-5, rtol=0
    )


def test_gpt2_out_of_memory_halves_the_runtime_budget_only(tiny_models):
    """An OOM in the middle of a relation: the relation is scored again at half the budget, and
    the recorded option (what run.json stores and a resumed run reuses) is unchanged."""
    data = causal_data(MIXED_OBJECTS)
    scorer = load_scorer(str(tiny_models["gpt2"]), device="cpu", dtype="float32", options=Options(batch_tokens=256))
    expected = scorer.score_relation(data)
    run, calls = scorer._run, []

    def fails_once(*args):
        calls.append(1)
        if len(calls) == 2:
            raise torch.OutOfMemoryError("simulated")
        return run(*args)

    scorer._run = fails_once
    got = scorer.score_relation(data)
    assert len(calls) > 2 and scorer.budget == 128 and scorer.options.batch_tokens == 256
    np.testing.assert_allclose(got, expected, atol=1e-5, rtol=0)


def test_mean_logit_differs_from_log_prob(tiny_models):
    data = build("es", "P19", TEMPLATES, TUPLES)
    a = load_scorer(str(tiny_models["bert"]), device="cpu", options=Options(score_mode="log-prob")).score_relation(data)
    b = load_scorer(str(tiny_models["bert"]), device="cpu", options=Options(score_mode="mean-logit")).score_relation(
        data
    )
    assert not np.allclose(a, b)


def test_unknown_model_and_missing_head(tiny_models, tmp_path):
    from curator.probe.scorers import ProbeError

    with pytest.raises(ProbeError, match="cannot load model"):
        load_scorer(str(tmp_path / "nowhere"), device="cpu")
    with pytest.raises(ProbeError, match=r"no seq2seq language-model head|sentinel"):
        load_scorer(str(tiny_models["gpt2"]), device="cpu", kind="seq2seq")


def test_subject_holding_the_mask_token_is_a_clear_error(tiny_models):
    from curator.probe.scorers import ProbeError

    data = build(
        "es", "P19", ["[X] nació en [Y]"], [dict(sub_uri="Q1", sub_label="[MASK] Smith", obj_uri="Q2", obj_label="Ulm")]
    )
    with pytest.raises(ProbeError, match=r"'\[MASK\] Smith nació en \[MASK\]' has 2 slot tokens"):
        load_scorer(str(tiny_models["bert"]), device="cpu").score_relation(data)


# subjects from one to many words (queries of very different lengths) and objects of one to four
# tokens with the tiny T5 tokenizer ("▁Victor", "▁Hugo"): every batching path of the seq2seq scorer
VARIED_SUBJECTS = [
    "Ulm",
    "Victor Hugo",
    "Wolfgang Amadeus Mozart",
    "Pablo Picasso de Málaga y Roma",
    "Albert",
    "Besanzón Salzburgo Ulm Roma París Málaga Victor Hugo",
    "Mozart de Salzburgo",
    "Einstein",
    "la ciudad de Roma",
    "Hugo",
]
VARIED_OBJECTS = [
    "Ulm",
    "Roma",
    "Victor Hugo",
    "Roma Ulm",
    "Wolfgang Amadeus Mozart",
    "Ulm Roma Málaga París",
    "Salzburgo",
    "Málaga Ulm Roma",
    "París Roma Ulm Salzburgo",
]


def varied_relation():
    tuples = [
        dict(
            sub_uri=f"Q{i}",
            sub_label=s,
            obj_uri=f"Q{100 + i % len(VARIED_OBJECTS)}",
            obj_label=VARIED_OBJECTS[i % len(VARIED_OBJECTS)],
        )
        for i, s in enumerate(VARIED_SUBJECTS)
    ]
    return build("es", "P19", TEMPLATES, tuples)


@pytest.mark.parametrize("mode", ["log-prob", "mean-logit"])
def test_t5_batching_across_queries(tiny_models, mode):
    """Many queries of different lengths and candidates of 1 to 4 tokens: a budget of 16
    tokens (one decoder row per pass) and one of 4096 (the whole relation at once) agree, both
    with the brute-force reference, and so does the full-logits fallback."""
    data = varied_relation()
    path = tiny_models["t5"]
    small = load_scorer(str(path), device="cpu", dtype="float32", options=Options(score_mode=mode, batch_tokens=16))
    assert {len(ids) for ids in small.encode([label for _, label in data.candidates])} == {1, 2, 3, 4}
    assert small.split
    big = load_scorer(str(path), device="cpu", dtype="float32", options=Options(score_mode=mode, batch_tokens=4096))
    a, b = small.score_relation(data), big.score_relation(data)
    np.testing.assert_allclose(a, b, atol=1e-5, rtol=0)
    np.testing.assert_allclose(b, reference(path, data, "t5", mode), atol=1e-5, rtol=0)
    big.split = False  # a head that fails the load-time check: full logits at the scored positions
    np.testing.assert_allclose(big.score_relation(data), b, atol=1e-5, rtol=0)


@pytest.fixture(scope="session")
def mt5_style(tiny_models, tmp_path_factory):
    """The tiny T5 made mT5-like: gated-GELU feed-forward, an untied output head and so no
    d_model^-0.5 scaling of the decoder output, random weights saved beside the same tokenizer."""
    from transformers import T5Config, T5ForConditionalGeneration

    path = tiny_models["t5"]
    out = tmp_path_factory.mktemp("mt5-style")
    for f in path.iterdir():
        if f.is_file() and f.name not in ("config.json", "model.safetensors"):
            shutil.copy(f, out / f.name)
    fields = T5Config.from_pretrained(path).to_dict()
    for derived in ("is_gated_act", "dense_act_fn", "scale_decoder_outputs"):
        fields.pop(derived, None)
    fields.update(feed_forward_proj="gated-gelu", tie_word_embeddings=False)
    torch.manual_seed(1)
    model = T5ForConditionalGeneration(T5Config(**fields))
    model.lm_head.weight = torch.nn.Parameter(torch.randn_like(model.lm_head.weight) * 2 * model.config.d_model**-0.5)
    model.save_pretrained(out)
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    config["tie_word_embeddings"] = False  # as real mT5 configs say
    (out / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return out


@pytest.mark.parametrize("mode", ["log-prob", "mean-logit"])
def test_untied_mt5_style_head_equals_reference(mt5_style, mode):
    scorer = load_scorer(str(mt5_style), device="cpu", dtype="float32", options=Options(score_mode=mode))
    model = scorer.model
    assert model.config.is_gated_act and not model.config.scale_decoder_outputs
    assert model.lm_head.weight.data_ptr() != model.shared.weight.data_ptr() and scorer.split
    data = varied_relation()
    data.templates = data.templates[:2]
    slow = reference(mt5_style, data, "t5", mode)
    np.testing.assert_allclose(scorer.score_relation(data), slow, atol=1e-5, rtol=0)
    scorer.budget = 16
    np.testing.assert_allclose(scorer.score_relation(data), slow, atol=1e-5, rtol=0)

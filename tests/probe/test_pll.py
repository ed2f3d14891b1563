"""`--score-mode pll`: every score equals a brute-force pseudo-log-likelihood (Salazar et al.
2020) to 1e-5, on tiny BERT (WordPiece) and XLM-R (SentencePiece) models.

The reference shares nothing with the scorer: it loads the model afresh in float64, writes the
candidate into the template's text, tokenizes the sentence whole and, for every token the
tokenizer did not add around the text, runs one forward pass with that token masked and adds
its log-softmax. The scorer batches the masked variants of many sentences into shared passes."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

# E402 below: imported after importorskip, so the file is skipped (not an error) without torch or transformers
from curator.probe.data import RelationData, build, from_directory  # noqa: E402
from curator.probe.scorers import Options, ProbeError, flops, load_scorer  # noqa: E402
from curator.probe.tiny import build_tiny  # noqa: E402
from tests.conftest import SEED  # noqa: E402

# the last two end in sentence-final punctuation, which --final-punct leaves as it is
TEMPLATES = [
    "[X] nació en [Y]",
    "la ciudad natal de [X] es [Y] hoy",
    "[Y] vio nacer a [X]",
    "¿[X] nació en [Y]?",
    "[X] [Y]-তে জন্মগ্রহণ করেন।",
]
SENTENCE_END = set(".!?。։۔।!?")
TUPLES = [
    dict(sub_uri="Q535", sub_label="Victor Hugo", obj_uri="Q37776", obj_label="Besanzón"),
    dict(sub_uri="Q937", sub_label="Albert Einstein", obj_uri="Q3012", obj_label="Ulm"),
    dict(sub_uri="Q254", sub_label="Wolfgang Amadeus Mozart", obj_uri="Q34713", obj_label="Salzburgo"),
    dict(sub_uri="Q5593", sub_label="Pablo Picasso", obj_uri="Q8851", obj_label="Málaga"),
]
MASKED = ["bert", "xlm-roberta"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny-pll")
    return {kind: build_tiny(root / kind, kind, SEED) for kind in (*MASKED, "t5", "gpt2")}


def sentence(template: str, subject: str, label: str, final_punct: bool) -> str:
    with_subject = template.replace("[X]", subject)
    text = with_subject.replace("[Y]", label)
    if final_punct and with_subject.rstrip()[-1:] not in SENTENCE_END:
        text = text.rstrip() + "."
    return text


def reference(path, data, final_punct: bool = False) -> np.ndarray:
    """[queries, candidates]: Σ over the sentence's own tokens of log P(token | it masked), float64,
    one forward pass per (template, subject, candidate, token)."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForMaskedLM.from_pretrained(path, dtype=torch.float64).eval()
    out = np.empty((len(data.templates) * len(data.subjects), len(data.candidates)))
    q = 0
    for template in data.templates:
        for _, subject in data.subjects:
            for c, (_, label) in enumerate(data.candidates):
                encoded = tok(sentence(template, subject, label, final_punct), return_special_tokens_mask=True)
                ids, total = encoded["input_ids"], 0.0
                for i, special in enumerate(encoded["special_tokens_mask"]):
                    if special:
                        continue
                    masked = list(ids)
                    masked[i] = tok.mask_token_id
                    with torch.no_grad():
                        logits = model(input_ids=torch.tensor([masked])).logits[0, i]
                    total += logits.log_softmax(-1)[ids[i]].item()
                out[q, c] = total
            q += 1
    return out


_cache: dict = {}


def cached_reference(path, data, final_punct=False):
    key = (str(path), data.digest(), final_punct)
    if key not in _cache:
        _cache[key] = reference(path, data, final_punct)
    return _cache[key]


def pll_scorer(path, batch_tokens: int, final_punct: bool = False):
    return load_scorer(
        str(path),
        device="cpu",
        dtype="float32",
        options=Options(score_mode="pll", batch_tokens=batch_tokens, final_punct=final_punct),
    )


@pytest.mark.parametrize("kind", MASKED)
@pytest.mark.parametrize("final_punct", [False, True], ids=["plain", "final-punct"])
def test_pll_equals_brute_force_reference(tiny, kind, final_punct):
    """A budget of 64 tokens (a few variants of one sentence per pass: many passes, sentences
    cut across passes) and one of 16384 (the whole relation in a few passes) give the reference."""
    data = build("es", "P19", TEMPLATES, TUPLES)
    slow = cached_reference(tiny[kind], data, final_punct)
    for budget in (64, 16384):
        scorer = pll_scorer(tiny[kind], budget, final_punct)
        assert scorer.kind == "masked" and scorer.split is not None
        got = scorer.score_relation(data)
        assert got.shape == (len(TEMPLATES) * len(TUPLES), len(data.candidates))
        np.testing.assert_allclose(got, slow, atol=1e-5, rtol=0)


@pytest.mark.parametrize("kind", MASKED)
def test_pll_head_fallbacks_and_tiles(tiny, kind):
    """Tiny vocabulary tiles, a head that cannot be split (full logits at the masked positions)
    and no separable head at all (the whole model's logits) give the same scores."""
    data = build("es", "P19", TEMPLATES, TUPLES)
    slow = cached_reference(tiny[kind], data)
    scorer = pll_scorer(tiny[kind], 256)
    scorer.tile_bytes = 4 * 16 * 37  # a few dozen vocabulary ids per tile, a ragged last tile
    np.testing.assert_allclose(scorer.score_relation(data), slow, atol=1e-5, rtol=0)
    scorer.split = None
    np.testing.assert_allclose(scorer.score_relation(data), slow, atol=1e-5, rtol=0)
    scorer.head = None
    np.testing.assert_allclose(scorer.score_relation(data), slow, atol=1e-5, rtol=0)


def test_pll_is_a_sum_and_differs_from_log_prob(tiny):
    """A sum of log-probabilities (every score negative), not the log-prob mode's scores."""
    data = build("es", "P19", TEMPLATES, TUPLES)
    pll = pll_scorer(tiny["bert"], 4096).score_relation(data)
    log_prob = load_scorer(str(tiny["bert"]), device="cpu", dtype="float32").score_relation(data)
    assert (pll < 0).all() and not np.allclose(pll, log_prob)


@pytest.mark.parametrize("kind", MASKED)
def test_pll_floor_counts_one_pass_per_scored_token(tiny, kind):
    from transformers import AutoTokenizer

    data = build("es", "P19", TEMPLATES[:2], TUPLES)
    scorer = pll_scorer(tiny[kind], 4096)
    tok = AutoTokenizer.from_pretrained(tiny[kind])
    s = flops.shape(scorer.model.config)
    expected = 0.0
    for template in data.templates:
        for _, subject in data.subjects:
            for _, label in data.candidates:
                encoded = tok(sentence(template, subject, label, False), return_special_tokens_mask=True)
                length, k = len(encoded["input_ids"]), len(encoded["input_ids"]) - sum(encoded["special_tokens_mask"])
                expected += k * (
                    s["layers"] * flops.layer(s, length, length) + 2 * s["hidden"] ** 2 + 2 * s["hidden"] * s["vocab"]
                )
    assert scorer.floor_flops(data) == pytest.approx(expected, rel=1e-12)


def test_pll_input_errors_are_one_line(tiny):
    scorer = pll_scorer(tiny["bert"], 4096)
    data = build(
        "es", "P19", ["[X] nació en [Y]"], [dict(sub_uri="Q1", sub_label="[MASK] Smith", obj_uri="Q2", obj_label="Ulm")]
    )
    with pytest.raises(ProbeError, match="contains the mask token"):
        scorer.score_relation(data)
    scorer.max_positions = 5
    with pytest.raises(ProbeError, match=r"Q535 'Victor Hugo' and candidate .* more than this model's 5 positions"):
        scorer.score_relation(build("es", "P19", TEMPLATES[:1], TUPLES))


@pytest.mark.parametrize("kind", ["t5", "gpt2"])
def test_pll_needs_a_masked_lm(tiny, kind):
    with pytest.raises(ProbeError, match=r"^pll scores sentences with a masked LM; ") as caught:
        pll_scorer(tiny[kind], 4096)
    assert "\n" not in str(caught.value)


def test_cli_pll_run_ranks_by_the_reference(cli, release, bert, tmp_path):
    out = tmp_path / "run"
    cli(
        "probe",
        release,
        "--model",
        bert,
        "--out",
        out,
        "--languages",
        "es",
        "--relations",
        "P19",
        "--device",
        "cpu",
        "--score-mode",
        "pll",
    )
    run = json.loads((out / "run.json").read_text())
    assert run["options"]["score_mode"] == "pll"
    data = next(from_directory(release, ["es"], ["P19"]))
    index = json.loads((out / "es" / "P19.json").read_text())
    assert [tuple(c) for c in index["candidates"]] == data.candidates
    slow = reference(bert, data)
    ranking = np.load(out / "es" / "P19.npz")["ranking"].reshape(len(slow), -1)
    np.testing.assert_array_equal(ranking, np.argsort(-slow, axis=1, kind="stable"))


def test_cli_pll_on_a_decoder_only_model_is_one_line(cli, release, tmp_path):
    gpt2 = tmp_path / "gpt2"
    cli("models", "tiny", gpt2, "--kind", "gpt2", "--corpus", release)
    result = cli(
        "probe",
        release,
        "--model",
        gpt2,
        "--out",
        tmp_path / "run",
        "--languages",
        "es",
        "--relations",
        "P19",
        "--device",
        "cpu",
        "--score-mode",
        "pll",
        ok=False,
    )
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(lines) == 1 and "pll scores sentences with a masked LM" in lines[0], result.output
    assert not (tmp_path / "run" / "es").exists()


def test_pll_chunks_of_queries_oom_retry_and_an_empty_label(tiny, monkeypatch):
    """Queries tokenized in chunks of a few sentences (offsets of later chunks), an out-of-memory
    error part way through a relation (the retry starts from zero, nothing is added twice), and a
    candidate whose label tokenizes to nothing (no candidate: -inf, as in log-prob mode)."""
    from curator.probe.scorers import pll

    data = build("es", "P19", TEMPLATES, TUPLES)
    slow = cached_reference(tiny["bert"], data)
    monkeypatch.setattr(pll, "CHUNK_SENTENCES", 7)
    scorer = pll_scorer(tiny["bert"], 256)
    np.testing.assert_allclose(scorer.score_relation(data), slow, atol=1e-5, rtol=0)

    real, calls = pll._variants, []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 5:
            raise torch.OutOfMemoryError("simulated")
        return real(*args, **kwargs)

    monkeypatch.setattr(pll, "_variants", flaky)
    np.testing.assert_allclose(scorer.score_relation(data), slow, atol=1e-5, rtol=0)
    assert len(calls) > 5 and scorer.budget == 128

    monkeypatch.setattr(pll, "_variants", real)
    with_empty = build(
        "es", "P19", TEMPLATES, TUPLES + [dict(sub_uri="Q1", sub_label="Nadie", obj_uri="Q0", obj_label="\u200b")]
    )
    got = pll_scorer(tiny["bert"], 4096).score_relation(with_empty)
    empty = [c for c, (_, label) in enumerate(with_empty.candidates) if label == "\u200b"]
    assert empty and np.isneginf(got[:, empty]).all() and np.isfinite(np.delete(got, empty, axis=1)).all()


# ---------------------------------------------------------------- --pll-variant within-word-l2r
L2R = "within-word-l2r"
# candidates of one word each, of 1, 2, 3 and 4 pieces with both tiny tokenizers (asserted below);
# "nacer" is a word of 3 pieces in the template, "Victor" and "Hugo" are one piece each: the
# first template with "Atenas" is the one sentence whose every word is one piece
PIECES = {"Atenas": 1, "Turín": 2, "Pekín": 3, "Pekino": 4}
WORDS = RelationData(
    "es",
    "P19",
    ["[X] nació en [Y]", "[Y] vio nacer a [X]"],
    [("Q535", "Victor Hugo")],
    ["Q1"],
    [(f"Q{i}", label) for i, label in enumerate(PIECES, start=1)],
)


@pytest.fixture(scope="module")
def sharp(tiny, tmp_path_factory):
    """The tiny masked models with their matrices redrawn at std 0.1 (seeded), so that what is
    masked around a token changes its probability by far more than float32's rounding."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    root = tmp_path_factory.mktemp("sharp-pll")
    out = {}
    for kind in MASKED:
        model = AutoModelForMaskedLM.from_pretrained(tiny[kind])
        generator = torch.Generator().manual_seed(0)
        with torch.no_grad():
            for weight in model.parameters():
                if weight.dim() >= 2:
                    weight.copy_(torch.randn(weight.shape, generator=generator) * 0.1)
        model.save_pretrained(root / kind)
        AutoTokenizer.from_pretrained(tiny[kind]).save_pretrained(root / kind)
        out[kind] = root / kind
    return out


def reference_terms(path, text: str, variant: str) -> list[tuple[int, int, float]]:
    """(word, its piece count, log P) per scored token of `text`, float64, one forward pass per
    token: masked is the token itself and, for within-word-l2r, every later token of its word
    (the tokenizer's word ids); the tokens the tokenizer adds around the text are not scored."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    if (str(path), "model") not in _cache:
        _cache[str(path), "model"] = (
            AutoTokenizer.from_pretrained(path),
            AutoModelForMaskedLM.from_pretrained(path, dtype=torch.float64).eval(),
        )
    tok, model = _cache[str(path), "model"]
    encoded = tok(text, return_special_tokens_mask=True)
    ids, words = encoded["input_ids"], encoded.word_ids()
    terms = []
    for i, special in enumerate(encoded["special_tokens_mask"]):
        if special:
            continue
        masked = list(ids)
        for j in range(len(ids)):
            if j == i or (variant == L2R and j > i and words[j] == words[i]):
                masked[j] = tok.mask_token_id
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([masked])).logits[0, i]
        terms.append((words[i], words.count(words[i]), logits.log_softmax(-1)[ids[i]].item()))
    return terms


@pytest.mark.parametrize("kind", MASKED)
def test_pll_within_word_l2r_equals_a_one_pass_per_token_reference(sharp, kind):
    """Words of 1-4 pieces (WordPiece and SentencePiece): both variants equal their float64
    reference, batched across passes (64 tokens) or not; they differ on every sentence with a
    multi-piece word and agree on the one whose words are all one piece; in the reference, the
    variants' terms differ exactly on the pieces that have a later piece of their word."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(sharp[kind])
    assert {label: len(tok(label, add_special_tokens=False)["input_ids"]) for label in PIECES} == PIECES
    data = WORDS
    texts = [
        sentence(t, s, label, False) for t in data.templates for _, s in data.subjects for _, label in data.candidates
    ]
    terms = {v: [reference_terms(sharp[kind], text, v) for text in texts] for v in ("original", L2R)}
    counts = {n for sentence_terms in terms[L2R] for _, n, _ in sentence_terms}
    assert {1, 2, 3, 4} <= counts
    for original, l2r in zip(terms["original"], terms[L2R]):
        for position, ((word, n, a), (_, _, b)) in enumerate(zip(original, l2r)):
            later_piece = any(w == word for w, _, _ in original[position + 1 :])
            assert (abs(a - b) > 1e-3) if later_piece else (a == b), (kind, word, n, a, b)
    got = {}
    for variant in ("original", L2R):
        expected = np.array([sum(t for _, _, t in s) for s in terms[variant]]).reshape(-1, len(PIECES))
        for budget in (64, 16384):
            scorer = load_scorer(
                str(sharp[kind]),
                device="cpu",
                dtype="float32",
                options=Options(score_mode="pll", batch_tokens=budget, pll_variant=variant),
            )
            got[variant] = scorer.score_relation(data)
            np.testing.assert_allclose(got[variant], expected, atol=1e-4, rtol=0)
    one_piece = [all(n == 1 for _, n, _ in s) for s in terms[L2R]]
    assert one_piece == [True] + [False] * (len(texts) - 1)  # "Victor Hugo nació en Atenas"
    difference = np.abs(got[L2R] - got["original"]).ravel()
    assert (difference[one_piece] == 0).all() and (difference[~np.array(one_piece)] > 1e-3).all()
    assert scorer.floor_flops(data) == pll_scorer(sharp[kind], 4096).floor_flops(data)  # the same passes


def test_pll_within_word_l2r_without_the_fast_shortcut_chunked_and_after_an_oom(sharp, monkeypatch):
    """Word ids through the tokenizer's own call (what a class without the backend shortcut
    gets) equal the backend's; sentences tokenized in chunks of a few and an out-of-memory error
    part way through give the same within-word-l2r scores (the retry adds nothing twice)."""
    from curator.probe.scorers import pll

    options = Options(score_mode="pll", batch_tokens=256, pll_variant=L2R)
    scorer = load_scorer(str(sharp["bert"]), device="cpu", dtype="float32", options=options)
    expected = scorer.score_relation(WORDS)
    texts = ["Victor Hugo nació en Pekino", "Pekín vio nacer a Victor Hugo"]
    fast = scorer.tokenize_words(texts)
    scorer.shortcut = False
    assert scorer.tokenize_words(texts) == fast and any(w is None for w in fast[1][0])
    monkeypatch.setattr(pll, "CHUNK_SENTENCES", 3)
    real, calls = pll._variants, []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise torch.OutOfMemoryError("simulated")
        return real(*args, **kwargs)

    monkeypatch.setattr(pll, "_variants", flaky)
    np.testing.assert_allclose(scorer.score_relation(WORDS), expected, atol=1e-6, rtol=0)
    assert len(calls) > 3 and scorer.budget == 128


def test_pll_within_word_l2r_needs_word_ids(tiny, tmp_path):
    """A Python (slow) tokenizer gives no word ids: within-word-l2r stops with one line when the
    scorer is made, before anything is scored; the original variant still runs with it."""
    from transformers import AutoTokenizer
    from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy

    fast = AutoTokenizer.from_pretrained(tiny["bert"])
    vocab = fast.get_vocab()
    (tmp_path / "vocab.txt").write_text("\n".join(sorted(vocab, key=vocab.get)) + "\n", encoding="utf-8")
    slow = BertTokenizerLegacy(str(tmp_path / "vocab.txt"), do_lower_case=False)
    assert not slow.is_fast
    scorer = pll_scorer(tiny["bert"], 4096)
    with pytest.raises(ProbeError, match=r"^pll variant within-word-l2r needs the tokenizer's word ids") as caught:
        type(scorer)(scorer.model, slow, scorer.device, Options(score_mode="pll", pll_variant=L2R))
    assert "\n" not in str(caught.value)
    data = build("es", "P19", TEMPLATES[:1], TUPLES[:2])
    with_slow = type(scorer)(scorer.model, slow, scorer.device, Options(score_mode="pll"))
    np.testing.assert_allclose(with_slow.score_relation(data), scorer.score_relation(data), atol=1e-5, rtol=0)
    with pytest.raises(ProbeError, match=r"^pll variant must be one of original, within-word-l2r$"):
        type(scorer)(scorer.model, fast, scorer.device, Options(score_mode="pll", pll_variant="word"))


def test_cli_pll_variant_is_recorded_and_rescores_on_resume(cli, release, bert, tmp_path):
    """--pll-variant reaches the scorer (run.json records its options); resuming the run with the
    other variant re-scores the relation: the variant is part of the runner's options key."""
    out = tmp_path / "run"
    common = ("probe", release, "--model", bert, "--out", out, "--languages", "es", "--relations", "P19")
    common += ("--device", "cpu", "--score-mode", "pll")
    assert "probed 1 relations (0 already done)" in cli(*common, "--pll-variant", L2R).output
    assert json.loads((out / "run.json").read_text())["options"]["pll_variant"] == L2R
    assert "probed 1 relations (0 already done)" in cli(*common).output
    assert json.loads((out / "run.json").read_text())["options"]["pll_variant"] == "original"


def test_pll_variant_errors_are_one_line(cli, release, bert, tmp_path):
    from curator.core.errors import InputError
    from curator.probe.plan import load_plan

    for extra in (("--pll-variant", L2R), ("--pll-variant", "original", "--score-mode", "log-prob")):
        result = cli("probe", release, "--model", bert, "--out", tmp_path / "run", *extra, ok=False)
        assert result.exit_code == 1 and "Traceback" not in result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert lines == ["Error: --pll-variant only applies with --score-mode pll"], result.output
    assert not (tmp_path / "run").exists()
    plan = tmp_path / "plan.toml"
    plan.write_text(f'models = ["{bert}"]\nreleases = ["{release}"]\n[options]\npll_variant = "{L2R}"\n')
    with pytest.raises(InputError, match=r"pll_variant only applies with score_mode = \"pll\"") as caught:
        load_plan(plan)
    assert "options.pll_variant" in str(caught.value) and "\n" not in str(caught.value)
    plan.write_text(
        f'models = ["{bert}"]\nreleases = ["{release}"]\n[options]\nscore_mode = "pll"\npll_variant = "word"\n'
    )
    with pytest.raises(InputError, match="expected one of original, within-word-l2r"):
        load_plan(plan)
    plan.write_text(
        f'models = ["{bert}"]\nreleases = ["{release}"]\n[options]\nscore_mode = "pll"\npll_variant = "{L2R}"\n'
    )
    assert load_plan(plan).options["pll_variant"] == L2R

"""X-FACTR decoding (curator/probe/decoding.py) equals a slow reference written apart from it.

The reference loads the model afresh in float64, writes the masks and every predicted token
into the template's text position by position as plain Python lists, tokenizes the text whole
once per mask count and runs one forward pass per step, per query, per beam item (and per
position recomputed), with the algorithms of X-FACTR's Appendix C written as plain loops."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

# E402 below: imported after importorskip, so the file is skipped (not an error) without torch or transformers
from curator.probe.data import build  # noqa: E402
from curator.probe.decode_options import BEAM_STYLES  # noqa: E402
from curator.probe.decoding import INITS, REFINES, DecodeOptions, MaskedDecoder  # noqa: E402
from curator.probe.scorers import Options, ProbeError, load_scorer  # noqa: E402
from tests.probe import real_data as probe_real  # noqa: E402

SENTENCE_END = set(".!?。։۔।!?")
M = 3  # masks up to 3 keeps the reference quick; every algorithm still meets m = 1, 2, 3


def sharpened(path, out, std=0.1, seed=1):
    """The tiny model with its matrices drawn again with a wider spread (std 0.1 instead of
    0.02): the default random model predicts nearly the same tokens whatever the context, so
    order, confidence, refinement and beams would all agree; these weights make the context
    count, and every algorithm take its own path somewhere in the relation."""
    import shutil

    from transformers import AutoModelForMaskedLM

    shutil.copytree(path, out)
    model = AutoModelForMaskedLM.from_pretrained(out)
    torch.manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2:
                p.normal_(0, std)
    model.save_pretrained(out)
    return out


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """Tiny bert and xlm-roberta with tokenizers trained on the real release; Spanish P19."""
    data = probe_real.need_shared()
    rel = build("es", "P19", probe_real.templates(data, "es", "P19")[:3], probe_real.tuples(data, "es", "P19")[:4])
    models = {
        kind: sharpened(probe_real.model(tmp_path_factory, kind), tmp_path_factory.mktemp("sharp") / kind)
        for kind in ("bert", "xlm-roberta")
    }
    return models, rel


def smaller(data, templates=2, tuples=3):
    return build(
        data.language,
        data.relation,
        data.templates[:templates],
        [
            dict(sub_uri=s, sub_label=label, obj_uri=o, obj_label=o)
            for (s, label), o in list(zip(data.subjects, data.objects))[:tuples]
        ],
    )


# ---- the reference ---------------------------------------------------------------------


@dataclass
class Item:
    tokens: list  # per mask: token id or None
    logc: list  # per mask: log c or None

    def state(self):
        return tuple(self.tokens)


class Reference:
    def __init__(self, path):
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        self.tok = AutoTokenizer.from_pretrained(path)
        self.model = AutoModelForMaskedLM.from_pretrained(path, dtype=torch.float64).eval()
        self.special = set(self.tok.all_special_ids)
        self.memo: dict = {}  # sentence ids -> log-softmax at its masks (a pure function: many options share them)

    def text(self, template, subject, m, final_punct):
        with_subject = template.replace("[X]", subject)
        text = with_subject.replace("[Y]", " ".join([self.tok.mask_token] * m))
        if final_punct and with_subject.rstrip()[-1:] not in SENTENCE_END:
            text = text.rstrip() + "."
        return text

    def log_probs(self, ids, at, item, masked):
        """Log-softmax at mask `masked` of the sentence: the item's tokens written over the masks,
        except position `masked` (and unfilled ones), which stay masks."""
        ids = list(ids)
        for j, t in enumerate(item.tokens):
            if t is not None and j != masked:
                ids[at[j]] = t
        key = (tuple(ids), at[masked])
        if key not in self.memo:
            with torch.no_grad():
                logits = self.model(input_ids=torch.tensor([ids])).logits[0, at[masked]]
            self.memo[key] = logits.log_softmax(-1)
        return self.memo[key]

    def top(self, log_probs, k):
        """The k best non-special tokens, best first: [(token, log p)]."""
        out = []
        for t in torch.argsort(log_probs, descending=True, stable=True).tolist():
            if t not in self.special:
                out.append((t, log_probs[t].item()))
                if len(out) == k:
                    return out
        return out

    def decode(self, data, o: DecodeOptions, final_punct=False):
        T = o.iterations if o.iterations is not None else 2 * o.max_masks
        results = []
        for template in data.templates:
            for _, subject in data.subjects:
                per_m = []
                for m in range(1, o.max_masks + 1):
                    ids = self.tok(self.text(template, subject, m, final_punct))["input_ids"]
                    at = [i for i, t in enumerate(ids) if t == self.tok.mask_token_id]
                    assert len(at) == m
                    per_m.append(self.one(ids, at, m, o, T))
                results.append(per_m)
        return results

    def score(self, item, o):
        """What a beam ranks by: Σ log c over the filled masks; ÷ their number with length_norm in
        the joint style (X-FACTR's code ranks by the plain sum)."""
        c = [x for x in item.logc if x is not None]
        return sum(c) / len(c) if o.length_norm and c and o.beam_style == "joint" else sum(c)

    def select(self, pool, o, ids, at):
        """The new beam from a pool of successors (in pool order). Joint: the best score per state
        (the earlier on ties), the top B, then recompute. Published (X-FACTR's code): the first
        of each state, recompute every one of them, then the top B (ties: pool order)."""
        if o.beam_style == "published":
            first = {}
            for item in pool:
                first.setdefault(item.state(), item)
            kept = list(first.values())
            if o.recompute:
                for item in kept:
                    self.recompute(item, ids, at)
            ranked = sorted(enumerate(kept), key=lambda v: (-self.score(v[1], o), v[0]))
            return [item for _, item in ranked[: o.beam]]
        best = {}
        for index, item in enumerate(pool):
            s = self.score(item, o)
            if item.state() not in best or s > best[item.state()][0]:
                best[item.state()] = (s, index, item)
        ranked = sorted(best.values(), key=lambda v: (-v[0], v[1]))
        S = [item for _, _, item in ranked[: o.beam]]
        if o.recompute:
            for item in S:
                self.recompute(item, ids, at)
        return S

    def recompute(self, item, ids, at):
        """Every filled position's c = p(its token | the sentence with it masked)."""
        for j, t in enumerate(item.tokens):
            if t is not None:
                item.logc[j] = self.log_probs(ids, at, item, j)[t].item()

    # the independent reference's whole decoding for one m (init, beam, refinement) in one place,
    # to be read against the paper's description in one go; a test oracle, not production code
    def one(self, ids, at, m, o, T):  # noqa: C901
        B = o.beam

        def successor(item, j, t, p):
            new = Item(list(item.tokens), list(item.logc))
            if new.tokens[j] != t or o.rescore_unchanged:  # X-FACTR: c changes only with the token
                new.logc[j] = p
            new.tokens[j] = t
            return new

        S = [Item([None] * m, [None] * m)]
        if o.init == "independent":
            tops = [self.top(self.log_probs(ids, at, S[0], j), B) for j in range(m)]  # nothing filled: one sentence
            if o.beam_style == "published":  # item b: the b-th best token at every mask
                combos = [tuple(tops[j][b] for j in range(m)) for b in range(B)]
            else:  # the top-B joint assignments
                combos = sorted(itertools.product(*tops), key=lambda c: -sum(x[1] for x in c))[:B]
            S = self.select([Item([t for t, _ in c], [p for _, p in c]) for c in combos], o, ids, at)
            done = 1
        else:
            for _ in range(m):
                pool = []
                for item in S:
                    unfilled = [j for j in range(m) if item.tokens[j] is None]
                    if o.init == "order":
                        j = unfilled[0]
                        cands = [(j, t, p) for t, p in self.top(self.log_probs(ids, at, item, j), B)]
                    else:
                        cands = []
                        for j in unfilled:
                            cands += [(j, t, p) for t, p in self.top(self.log_probs(ids, at, item, j), B)]
                        cands = sorted(cands, key=lambda c: -c[2])[:B]
                    pool += [successor(item, j, t, p) for j, t, p in cands]
                S = self.select(pool, o, ids, at)
            done = m
        unchanged, modified, step, offset = 0, False, 0, 0
        while o.refine != "none" and done < T:  # m = 1 too: the decoder skips it, the result must agree
            pool, passed_first = [], False
            for item in S:
                if o.refine == "confidence":
                    j = min(range(m), key=lambda k: (item.logc[k], k))
                elif o.beam_style == "published":  # X-FACTR's code: one counter, advanced per beam item
                    j, offset = offset % m, offset + 1
                    passed_first = passed_first or j == 0
                else:
                    j = step % m
                pool += [successor(item, j, t, p) for t, p in self.top(self.log_probs(ids, at, item, j), B)]
            new_S = self.select(pool, o, ids, at)
            if o.beam_style == "published":  # X-FACTR's code: the same states in the same order
                same = [i.state() for i in new_S] == [i.state() for i in S]
            else:
                same = {i.state() for i in new_S} == {i.state() for i in S}
            S, done, step = new_S, done + 1, step + 1
            if o.refine == "confidence":
                if same:
                    break
            elif o.beam_style == "published":  # a flag cleared at the first mask, set by a change
                modified = (modified and not passed_first) or not same
                if (offset - 1) % m == m - 1 and not modified:
                    break
            else:
                unchanged = unchanged + 1 if same else 0
                if unchanged == m:
                    break
        top = max(S, key=lambda i: self.score(i, o))  # the first of equals
        v = sum(top.logc) / (m if o.length_norm else 1)
        return top.tokens, v


_references: dict = {}
_scorers: dict = {}


def reference_for(path):
    if path not in _references:
        _references[path] = Reference(path)
    return _references[path]


def scorer_for(path, budget=48, final_punct=False):
    key = (path, budget, final_punct)
    if key not in _scorers:
        _scorers[key] = load_scorer(str(path), "cpu", "float64", Options(batch_tokens=budget, final_punct=final_punct))
    return _scorers[key]


def compare(path, data, o: DecodeOptions, budget=48, final_punct=False):
    got = MaskedDecoder(scorer_for(path, budget, final_punct), o).decode_relation(data)
    ref = reference_for(path)
    want = ref.decode(data, o, final_punct)
    Q = len(data.templates) * len(data.subjects)
    assert len(got.tokens) == Q and got.confidence.shape == (Q, o.max_masks) and got.best.shape == (Q,)
    for q in range(Q):
        for m in range(o.max_masks):
            tokens, v = want[q][m]
            assert got.tokens[q][m] == tokens, (o, q, m + 1)
            assert got.strings[q][m] == ref.tok.decode(tokens, skip_special_tokens=True).strip()
            assert abs(float(got.confidence[q, m]) - v) < 1e-5, (o, q, m + 1, got.confidence[q, m], v)
        values = [want[q][m][1] for m in range(o.max_masks)]
        assert got.best[q] == int(np.argmax(values)), (o, q)
    assert got.passes > 0
    return got


def every_combination():
    """Every init × refine, B = 1 and 3, with and without recompute, both rules for an unchanged
    re-prediction and both beam styles — less the combinations that cannot differ from one kept:
    the beam style only matters with B > 1, the rule for an unchanged re-prediction only with
    refinement and without recompute (which re-scores every position anyway). Length
    normalisation alternates with B and recompute, so every init × refine meets it on and off
    (it divides v(m), and the beam's scores of states with as many positions filled). 72 in all."""
    for init, refine, beam, recompute, rescore, style in itertools.product(
        INITS, REFINES, (1, 3), (False, True), (False, True), BEAM_STYLES
    ):
        if (style == "published" and beam == 1) or (rescore and (refine == "none" or recompute)):
            continue
        yield DecodeOptions(
            init=init,
            refine=refine,
            max_masks=M,
            beam=beam,
            length_norm=(beam == 3) != recompute,
            recompute=recompute,
            rescore_unchanged=rescore,
            beam_style=style,
        )


@pytest.mark.parametrize("kind", ["bert", "xlm-roberta"])
def test_every_combination_equals_reference(real, kind):
    """All 72 combinations on 6 queries (a large budget: small ones are checked below). The
    queries hold cases where X-FACTR's rule for an unchanged re-prediction and curator's former
    one decode different tokens and v(m) (and, with XLM-R, choose a different m), and where the
    published and the joint beams do: else the comparisons would not tell the rules apart."""
    models, data = real
    got = {o: compare(models[kind], smaller(data), o, budget=4096) for o in every_combination()}

    def differ(pairs):
        return {
            "tokens": any(got[a].tokens != got[b].tokens for a, b in pairs),
            "v": any((np.abs(got[a].confidence - got[b].confidence) > 1e-6).any() for a, b in pairs),
            "m": any((got[a].best != got[b].best).any() for a, b in pairs),
        }

    keep = [
        (o, replace(o, rescore_unchanged=True))
        for o in got
        if o.refine != "none" and not o.rescore_unchanged and not o.recompute
    ]
    published = [(o, replace(o, beam_style="joint")) for o in got if o.beam > 1 and o.beam_style == "published"]
    for pairs in (keep, published):
        found = differ(pairs)
        assert found["tokens"] and found["v"] and (found["m"] or kind == "bert"), found


def test_greedy_equals_reference_on_the_whole_relation(real):
    models, data = real
    for init, refine in itertools.product(INITS, REFINES):
        compare(models["bert"], data, DecodeOptions(init=init, refine=refine, max_masks=M))


@pytest.mark.parametrize("init,refine", [("independent", "order"), ("confidence", "confidence")])
def test_recompute_equals_reference(real, init, refine):
    models, data = real
    compare(
        models["bert"],
        smaller(data),
        DecodeOptions(init=init, refine=refine, max_masks=M, recompute=True, iterations=5),
        final_punct=True,
    )


def test_algorithms_differ_where_they_should(real):
    """On this relation, a random tiny model gives a query where order- and confidence-based
    decoding write different strings, one where refinement changes a token, and one where a
    beam of 3 finds a higher v(m) than greedy decoding."""
    models, data = real
    scorer = load_scorer(str(models["bert"]), "cpu", "float64", Options(batch_tokens=256))

    def run(**kw):
        return MaskedDecoder(scorer, DecodeOptions(max_masks=M, **kw)).decode_relation(data)

    order, conf = run(init="order"), run(init="confidence")
    assert any(a != b for qa, qb in zip(order.strings, conf.strings) for a, b in zip(qa, qb))
    plain, refined = run(init="independent"), run(init="independent", refine="confidence")
    assert any(a != b for qa, qb in zip(plain.tokens, refined.tokens) for a, b in zip(qa, qb))
    greedy, beam = run(init="confidence", refine="confidence"), run(init="confidence", refine="confidence", beam=3)
    assert (beam.confidence > greedy.confidence + 1e-6).any()
    # greedy decoding reduces to its definitions however it is batched
    small = MaskedDecoder(
        load_scorer(str(models["bert"]), "cpu", "float64", Options(batch_tokens=16)),
        DecodeOptions(max_masks=M, init="confidence", refine="confidence"),
    ).decode_relation(data)
    assert small.tokens == greedy.tokens
    np.testing.assert_allclose(small.confidence, greedy.confidence, atol=1e-6)


def test_one_mask_is_not_refined(real):
    """With m = 1 refinement would re-mask the only mask, i.e. run the initial all-mask sentence
    again: it is skipped (one pass per query), and the result is that of no refinement."""
    models, data = real
    scorer = scorer_for(models["bert"], 4096)
    plain = MaskedDecoder(scorer, DecodeOptions(max_masks=1, beam=2)).decode_relation(data)
    assert plain.passes == len(data.templates) * len(data.subjects)
    for refine in ("order", "confidence"):
        for rescore in (False, True):
            o = DecodeOptions(max_masks=1, beam=2, refine=refine, rescore_unchanged=rescore)
            refined = MaskedDecoder(scorer, o).decode_relation(data)
            assert refined.passes == plain.passes and refined.tokens == plain.tokens
            np.testing.assert_array_equal(refined.confidence, plain.confidence)


def test_head_paths_and_floor(real):
    """Tiny vocabulary tiles and the whole-head fallback give the same decoding; the floor
    counts the passes run."""
    models, data = real
    o = DecodeOptions(init="confidence", refine="order", max_masks=M, beam=2, recompute=True)
    scorer = load_scorer(str(models["xlm-roberta"]), "cpu", "float64", Options(batch_tokens=64))
    decoder = MaskedDecoder(scorer, o)
    with pytest.raises(ProbeError, match="decode_relation"):
        decoder.floor_flops(data)
    base = decoder.decode_relation(data)
    floor = decoder.floor_flops(data)
    assert floor > 0 and base.passes >= len(data.templates) * len(data.subjects) * sum(range(1, M + 1))
    tiny_tiles = MaskedDecoder(scorer, o)
    tiny_tiles.tile_bytes = 8 * 16 * 37  # a few dozen vocabulary ids per tile, a ragged last tile
    tiled = tiny_tiles.decode_relation(data)
    scorer.split = None
    whole = MaskedDecoder(scorer, o).decode_relation(data)
    for other in (tiled, whole):
        assert other.tokens == base.tokens and other.strings == base.strings
        np.testing.assert_allclose(other.confidence, base.confidence, atol=1e-8)


@pytest.mark.parametrize(
    "bad,match",
    [
        (dict(beam=0), "beam"),
        (dict(max_masks=0), "max masks"),
        (dict(init="left"), "init"),
        (dict(refine="greedy"), "refinement"),
        (dict(iterations=0), "iterations"),
        (dict(beam=2.5), "beam"),
        (dict(beam_style="widest"), "beam style must be one of joint, published"),
        (dict(rescore_unchanged=1), "rescore unchanged must be true or false"),
    ],
)
def test_bad_options(real, bad, match):
    with pytest.raises(ProbeError, match=match):
        DecodeOptions(**bad).validate()
    models, _ = real
    scorer = load_scorer(str(models["bert"]), "cpu", "float32", Options())
    with pytest.raises(ProbeError, match=match):
        MaskedDecoder(scorer, DecodeOptions(**bad))


def test_exact_ties_go_to_the_lower_id_for_every_beam(real, tmp_path):
    """A token made an exact twin of the model's favourite (same output embedding and bias): greedy
    and every beam size pick the lower id, as the reference does. (In different vocabulary tiles
    the twins' logits come from differently blocked products and may differ in the last bit:
    then that bit decides.)"""
    import shutil
    from collections import Counter

    from transformers import AutoModelForMaskedLM

    models, data = real
    base = MaskedDecoder(
        load_scorer(str(models["bert"]), "cpu", "float64", Options()), DecodeOptions(max_masks=1)
    ).decode_relation(data)
    favourite = Counter(t for per_q in base.tokens for ids in per_q for t in ids).most_common(1)[0][0]
    twin_path = tmp_path / "twin"
    shutil.copytree(models["bert"], twin_path)
    model = AutoModelForMaskedLM.from_pretrained(twin_path)
    head = model.get_output_embeddings()
    twin = head.weight.shape[0] - 10 if favourite < head.weight.shape[0] - 10 else 5
    with torch.no_grad():
        head.weight[twin] = head.weight[favourite]
        head.bias[twin] = head.bias[favourite]
    model.save_pretrained(twin_path)
    for beam in (1, 2, 3):
        options = DecodeOptions(init="independent", max_masks=1, beam=beam)
        got = MaskedDecoder(load_scorer(str(twin_path), "cpu", "float64", Options()), options).decode_relation(data)
        picked = {got.tokens[q][0][0] for q in range(len(got.tokens))}
        assert min(favourite, twin) in picked and max(favourite, twin) not in picked, beam

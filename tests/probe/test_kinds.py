"""Which scorer kind a model gets: transformers' own masked-, seq2seq- and causal-LM mappings
decide (`detect_kind`), `--kind` overrides, anything else is one line. And a scorer kind is
added in one step: a module in probe/scorers/ with a `@register`ed Scorer subclass."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from transformers import CONFIG_MAPPING, XLMConfig
from transformers.models.auto import modeling_auto

from curator.probe.scorers import SCORERS, ProbeError, detect_kind

ROOT = Path(__file__).resolve().parents[2]
MAPPINGS = {
    "masked": modeling_auto.MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    "seq2seq": modeling_auto.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES,
    "causal": modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
}


def expected(kinds: set[str], encoder_decoder: bool) -> str:
    """The documented rule, written out apart from the code: among the kinds whose mapping holds
    the class (or model_type), seq2seq for an encoder-decoder config, else masked, else the one."""
    if encoder_decoder and "seq2seq" in kinds:
        return "seq2seq"
    if "masked" in kinds:
        return "masked"
    if "causal" in kinds:
        return "causal"
    return kinds.pop()


def config_of(model_type: str, architectures: list[str] | None):
    """The family's real default config; where its defaults do not validate (a few newer ones),
    what detect_kind reads of one: model_type, architectures and is_encoder_decoder."""
    try:
        config = CONFIG_MAPPING[model_type]()
    except Exception:
        is_encoder_decoder = bool(getattr(CONFIG_MAPPING[model_type], "is_encoder_decoder", False))
        return SimpleNamespace(
            model_type=model_type, architectures=architectures, is_encoder_decoder=is_encoder_decoder
        )
    config.architectures = architectures
    return config


FAMILIES = sorted({(kind, model_type) for kind, mapping in MAPPINGS.items() for model_type in mapping})


@pytest.mark.parametrize("kind, model_type", FAMILIES, ids=[f"{k}-{t}" for k, t in FAMILIES])
def test_every_family_of_transformers_lm_mappings_gets_its_kind(kind, model_type):
    class_name = MAPPINGS[kind][model_type]
    config = config_of(model_type, [class_name])
    holders = {k for k, mapping in MAPPINGS.items() if class_name in mapping.values()}
    encoder_decoder = bool(getattr(config, "is_encoder_decoder", False))
    assert detect_kind(config) == expected(holders, encoder_decoder)
    if holders == {kind}:  # the class is this mapping's alone: its kind, whatever else the family has
        assert detect_kind(config) == kind
    # the config alone (no architectures, as in a bare config.json): the model_type decides
    bare = config_of(model_type, None)
    holders = {k for k, mapping in MAPPINGS.items() if model_type in mapping}
    assert detect_kind(bare) == expected(holders, encoder_decoder)


def test_a_tiny_real_xlm_config_is_masked(tmp_path):
    """XLMWithLMHeadModel (an X-FACTR model) is in the masked and the causal mapping alike; it is
    a masked LM. The old name-matching called it causal ("LMHead" without "Masked")."""
    XLMConfig(vocab_size=50, emb_dim=16, n_layers=1, n_heads=2, architectures=["XLMWithLMHeadModel"]).save_pretrained(
        tmp_path
    )
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(tmp_path)
    assert config.model_type == "xlm" and config.architectures == ["XLMWithLMHeadModel"]
    assert detect_kind(config) == "masked"


def test_known_kinds_of_the_common_models():
    assert detect_kind(config_of("bert", ["BertForMaskedLM"])) == "masked"
    assert detect_kind(config_of("bert", ["BertLMHeadModel"])) == "causal"
    assert detect_kind(config_of("t5", ["T5ForConditionalGeneration"])) == "seq2seq"
    assert detect_kind(config_of("bart", ["BartForConditionalGeneration"])) == "seq2seq"
    assert detect_kind(config_of("gpt2", ["GPT2LMHeadModel"])) == "causal"
    assert detect_kind(config_of("xlm-roberta", None)) == "masked"


def test_a_model_of_no_lm_mapping_is_one_line_naming_kind():
    config = config_of("vit", ["ViTForImageClassification"])
    with pytest.raises(ProbeError) as caught:
        detect_kind(config, "'some/vit'")
    message = str(caught.value)
    assert "\n" not in message and "'some/vit'" in message and "'vit'" in message
    assert message.endswith("give --kind masked|seq2seq|causal")


def test_kind_overrides_detection_and_a_bad_kind_is_one_line(cli, release, bert, tmp_path):
    run = ["probe", release, "--model", bert, "--languages", "es", "--relations", "P19", "--device", "cpu"]
    # a BERT folder asked to load as an encoder-decoder: the override is what is loaded
    result = cli(*run, "--out", tmp_path / "a", "--kind", "seq2seq", ok=False)
    assert result.exit_code == 1 and "has no seq2seq language-model head" in result.output, result.output
    result = cli(*run, "--out", tmp_path / "b", "--kind", "bogus", ok=False)
    assert result.exit_code == 1 and "--kind must be one of masked, seq2seq, causal, not 'bogus'" in result.output
    assert len(result.output.strip().splitlines()) == 1
    result = cli(*run, "--out", tmp_path / "c", "--kind", "masked")
    assert "probed 1 relations" in result.output


_NEW_KIND = '''
"""A scorer kind for the test: token-classification models, scored as masked ones."""

from curator.probe.scorers.registry import register
from curator.probe.scorers.masked import MaskedScorer


@register(
    "tagger",
    auto_class="AutoModelForTokenClassification",
    mapping="MODEL_FOR_TOKEN_CLASSIFICATION_MAPPING_NAMES",
    described="a token-classification",
    precedence=3,
)
class TaggerScorer(MaskedScorer):
    pass
'''

_CHECK = """
import curator
from transformers import BertConfig
from curator.probe.scorers import SCORERS, detect_kind, kinds_in_order
assert curator.__file__.startswith({root!r}), curator.__file__
assert SCORERS["tagger"].auto_class == "AutoModelForTokenClassification"
print(detect_kind(BertConfig(architectures=["BertForTokenClassification"])), kinds_in_order())
"""


def test_a_scorer_kind_is_added_by_one_module(tmp_path):
    """Following docs/architecture.md ("a scorer"): one new module in probe/scorers/, no other
    file touched, and the kind is registered, detected and offered (in a copy of the package)."""
    shutil.copytree(ROOT / "curator", tmp_path / "curator", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "curator" / "probe" / "scorers" / "tagger.py").write_text(textwrap.dedent(_NEW_KIND), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    code = _CHECK.format(root=str(tmp_path / "curator"))
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[0] == "tagger", result.stdout
    assert "['masked', 'seq2seq', 'causal', 'tagger']" in result.stdout
    assert set(SCORERS) == {"masked", "seq2seq", "causal"}  # this process's package is untouched

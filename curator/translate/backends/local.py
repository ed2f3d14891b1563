"""Local seq2seq models with transformers: Marian/OPUS-MT, M2M100, mBART-50, NLLB.

The family is recognised from the tokenizer's vocabulary (its language tokens) and the
config, and each gets its language codes the way it needs: M2M100 and NLLB a source
language on the tokenizer and the target as the forced first token, mBART-50 the same
with `es_XX`-style codes, multi-target OPUS-MT a `>>spa<<` prefix, one-pair Marian
models nothing (put `{tgt}` in the name to load one model per target language).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from curator.translate.backends.base import Translator
from curator.translate.codes import M2M100, MBART50, NLLB, NOT_IN_NLLB, code_for, marian_target_tokens
from curator.translate.errors import TranslationError
from curator.translate.protect import BracketScheme

if TYPE_CHECKING:  # heavy imports, loaded only with a model
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

FAMILIES = ("nllb", "m2m100", "mbart50", "marian", "plain")


def local_system_name(spec: str) -> str:
    """A system name for a local model: `local-` + its folder or repository name, `{tgt}`/`{src}` left out."""
    tail = spec.rstrip("/").replace("\\", "/").split("/")[-1]
    tail = re.sub(r"[-_.]*\{(?:src|tgt)\}", "", tail)
    slug = re.sub(r"[^a-z0-9]+", "-", tail.lower()).strip("-")
    return f"local-{slug or 'model'}"


@dataclass
class _Loaded:
    path: str
    model: PreTrainedModel
    tokenizer: PreTrainedTokenizerBase
    family: str
    target_tokens: frozenset[str]  # `>>xx<<` tokens of multi-target Marian models


class LocalTranslator(Translator):
    """A Hugging Face seq2seq model by hub name or local path, batched, on the GPU when there is one."""

    scheme = BracketScheme()

    def __init__(
        self,
        spec: str,
        device: str = "auto",
        batch_size: int | None = None,
        num_beams: int = 4,
        max_new_tokens: int | None = None,
        dtype: str = "auto",
        name: str | None = None,
    ):
        self.spec = spec
        self.name = name or local_system_name(spec)
        self.device_name, self.dtype_name = device, dtype
        self.num_beams, self.max_new_tokens = num_beams, max_new_tokens
        self.max_items = batch_size or 16
        self.max_chars = 10**9
        self._loaded: _Loaded | None = None
        self._device: torch.device | None = None

    # ------------------------------------------------------------ loading
    def path_for(self, source: str, target: str) -> str:
        """The model for one pair: `{src}`/`{tgt}` become the base codes OPUS-MT names use (`zh-hans` → `zh`)."""
        path = self.spec.replace("{src}", source.split("-")[0]).replace("{tgt}", target.split("-")[0])
        return str(Path(path).expanduser()) if path.startswith("~") else path

    @property
    def device(self) -> torch.device:
        if self._device is None:
            import torch

            if self.device_name == "auto":
                self._device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            elif self.device_name == "cuda" and not torch.cuda.is_available():
                raise TranslationError(self.name, "--device cuda asked for, but no CUDA device is available")
            else:
                self._device = torch.device(self.device_name)
        return self._device

    def _load(self, source: str, target: str) -> _Loaded:
        path = self.path_for(source, target)
        if self._loaded is not None and self._loaded.path == path:
            return self._loaded
        import torch
        from transformers import AutoConfig, AutoModelForSeq2SeqLM, AutoTokenizer

        self._loaded = None  # free the previous pair's model before loading the next
        if path.startswith(("/", "./", "../")) and not Path(path).is_dir():
            raise TranslationError(self.name, f"no model folder at {path}")
        try:
            config = AutoConfig.from_pretrained(path)
            tokenizer = AutoTokenizer.from_pretrained(path)
            if not getattr(config, "is_encoder_decoder", False):
                raise TranslationError(
                    self.name, f"{path} is not a sequence-to-sequence model (model type {config.model_type})"
                )
            dtype = (
                torch.bfloat16
                if self.dtype_name == "auto" and self.device.type == "cuda" and torch.cuda.is_bf16_supported()
                else torch.float32
            )
            if self.dtype_name not in ("auto", "float32"):
                dtype = getattr(torch, self.dtype_name)
            model = AutoModelForSeq2SeqLM.from_pretrained(path, dtype=dtype).to(self.device).eval()
        except (OSError, ValueError, ImportError) as exc:  # ImportError: e.g. sentencepiece for MarianTokenizer
            raise TranslationError(self.name, f"cannot load the model {path}: {exc}") from None
        vocab = tokenizer.get_vocab()
        family = detect_family(config.model_type, type(tokenizer).__name__, vocab)
        targets = (
            frozenset(t for t in vocab if t.startswith(">>") and t.endswith("<<"))
            if family == "marian"
            else frozenset()
        )
        self._loaded = _Loaded(path, model, tokenizer, family, targets)
        return self._loaded

    def prepare(self, source: str, target: str) -> None:
        loaded = self._load(source, target)
        self._codes(loaded, source, target)

    # ------------------------------------------------------------ language codes
    def _codes(self, loaded: _Loaded, source: str, target: str) -> tuple[str | None, int | None, str]:
        """(source code for the tokenizer, forced first token id, text prefix) for this pair."""
        tok, family = loaded.tokenizer, loaded.family
        if family in ("nllb", "m2m100", "mbart50"):
            table = {"nllb": NLLB, "m2m100": M2M100, "mbart50": MBART50}[family]
            src, tgt = code_for(table, source), code_for(table, target)
            ids = [_language_token_id(tok, family, code) for code in (src, tgt)]
            for code, lang, token_id in zip((src, tgt), (source, target), ids):
                if token_id is None:
                    hint = " (NLLB-200 does not cover it)" if family == "nllb" and lang in NOT_IN_NLLB else ""
                    raise TranslationError(
                        self.name, f"{loaded.path} has no language code for {lang!r} (looked for {code!r}){hint}"
                    )
            return src, ids[1], ""
        if loaded.target_tokens:
            for token in marian_target_tokens(target):
                if token in loaded.target_tokens:
                    return None, None, token + " "
            raise TranslationError(
                self.name,
                f"{loaded.path} is a multi-target model without a target token for"
                f" {target!r} (tried {', '.join(marian_target_tokens(target))})",
            )
        return None, None, ""

    # ------------------------------------------------------------ translation
    def _translate_batch(self, texts: list[str], source: str, target: str, markup: bool) -> list[str]:
        import torch

        loaded = self._load(source, target)
        src_code, forced_bos, prefix = self._codes(loaded, source, target)
        tok, model = loaded.tokenizer, loaded.model
        if src_code is not None:
            tok.src_lang = src_code
        try:
            encoded = tok(
                [prefix + t for t in texts], return_tensors="pt", padding=True, truncation=True, max_length=256
            ).to(self.device)
            longest = int(encoded["input_ids"].shape[1])
            limit = self.max_new_tokens or 2 * longest + 16
            max_positions = getattr(model.config, "max_position_embeddings", None)
            if max_positions:
                limit = min(limit, max_positions - 2)
            generate_options = dict(max_new_tokens=limit, num_beams=self.num_beams)
            if forced_bos is not None:
                generate_options["forced_bos_token_id"] = forced_bos
            with torch.inference_mode():
                # the Auto seq2seq classes mix GenerationMixin into PreTrainedModel, which alone
                # has no `generate` (mypy sees torch.nn.Module.__getattr__'s Tensor)
                output = model.generate(**encoded, **generate_options)  # type: ignore[operator]
        except torch.OutOfMemoryError:
            if len(texts) == 1:
                raise TranslationError(self.name, "out of memory on a single text; use --device cpu") from None
            torch.cuda.empty_cache()
            half = len(texts) // 2
            self.max_items = max(1, half)
            return self._translate_batch(texts[:half], source, target, markup) + self._translate_batch(
                texts[half:], source, target, markup
            )
        except RuntimeError as exc:
            raise TranslationError(self.name, f"generation failed with {loaded.path}: {exc}") from None
        return [t.strip() for t in tok.batch_decode(output, skip_special_tokens=True)]


def detect_family(model_type: str, tokenizer_class: str, vocab: dict[str, int]) -> str:
    """Which language-code convention a model follows: from its language tokens first, then its type."""
    if "eng_Latn" in vocab or "Nllb" in tokenizer_class:
        return "nllb"
    if "__en__" in vocab or "M2M100" in tokenizer_class:
        return "m2m100"
    if "en_XX" in vocab or "MBart" in tokenizer_class:
        return "mbart50"
    if model_type == "marian":
        return "marian"
    return "plain"


def _language_token_id(tok: PreTrainedTokenizerBase, family: str, code: str) -> int | None:
    """The vocabulary id of a language's token, or None when the model does not know the language."""
    if family == "m2m100" and hasattr(tok, "get_lang_id"):
        try:
            lang_id: int = tok.get_lang_id(code)
            return lang_id
        except KeyError:
            return None
    token = f"__{code}__" if family == "m2m100" else code
    token_id = tok.convert_tokens_to_ids(token)  # one token in, one id (or None) out
    return token_id if isinstance(token_id, int) and token_id != tok.unk_token_id else None

"""What every scorer shares: loading a model of any kind, query text, batching, OOM retry."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np
import torch

from curator.core.enums import PllVariant, ScoreMode, values
from curator.core.errors import InputError
from curator.probe.data import RelationData

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

T = TypeVar("T")

# (the head's transform, its output projection): a masked LM's head taken apart (masked.py)
SplitHead = tuple[Callable[[torch.Tensor], torch.Tensor], torch.nn.Linear]

SCORE_MODES = values(ScoreMode)
PLL_VARIANTS = values(PllVariant)
PUNCT_END = re.compile(r"[.!?。։۔।!?]$")


class ProbeError(InputError):
    """A model or input the probe cannot use, said plainly."""


@dataclass
class Options:
    score_mode: str = "log-prob"  # mean-logit reproduces the published mParaRel code; pll: masked LMs only
    batch_tokens: int = 8192  # tokens per forward pass, before the automatic OOM back-off
    final_punct: bool = False
    pll_variant: str = "original"  # --score-mode pll: original (Salazar) or within-word-l2r (Kauf & Ivanova)


def split_template(template: str, subject: str, final_punct: bool) -> tuple[str, str]:
    """(text before [Y], text after [Y]) with the subject filled in."""
    if template.count("[Y]") != 1:
        raise ProbeError(f"template {template!r} must contain [Y] exactly once")
    before, after = template.split("[Y]")
    before, after = before.replace("[X]", subject), after.replace("[X]", subject)
    if final_punct and not PUNCT_END.search((before + "[Y]" + after).rstrip()):
        after = after.rstrip() + "."
    return before, after


class Scorer:
    # set by @register (docs/architecture.md, "where to add a scorer")
    kind = ""
    auto_class = ""  # the transformers Auto class that loads a model of this kind
    mapping = ""  # transformers' modeling_auto mapping (model_type -> class) of the families it scores
    described = ""  # "a masked": how messages name a model of this kind
    precedence = 0  # lower wins when a config's class or model_type is in several kinds' mappings
    encoder_decoder = False  # preferred over precedence for a config with is_encoder_decoder
    pll = False  # scores by pseudo-log-likelihood (--score-mode pll) too
    compiled = False  # whether load_scorer compiled the model's layers (run.json records it)

    def __init__(
        self, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, device: torch.device, options: Options
    ) -> None:
        if options.score_mode not in SCORE_MODES:
            raise ProbeError(f"score mode must be one of {', '.join(SCORE_MODES)}")
        if options.score_mode == ScoreMode.PLL and not self.pll:
            raise ProbeError(
                f"pll scores sentences with a masked LM; this is {self.described} "
                "model: use --score-mode log-prob or mean-logit"
            )
        if options.pll_variant not in PLL_VARIANTS:
            raise ProbeError(f"pll variant must be one of {', '.join(PLL_VARIANTS)}")
        if (
            options.score_mode == ScoreMode.PLL
            and options.pll_variant == PllVariant.WITHIN_WORD_L2R
            and not getattr(tokenizer, "is_fast", False)
        ):
            raise ProbeError(
                f"pll variant within-word-l2r needs the tokenizer's word ids, which {type(tokenizer).__name__} "
                "(a Python tokenizer, not a fast one) does not give: use --pll-variant original"
            )
        self.model, self.tok, self.device, self.options = model, tokenizer, device, options
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self.max_positions = position_limit(model)
        self.shortcut = fast_shortcut_ok(tokenizer)
        # the token budget in force: halved after an out-of-memory error for the rest of this
        # process, while options.batch_tokens (what run.json records and a resumed run reuses) stays
        self.budget = options.batch_tokens

    def encode(self, texts: list[str]) -> list[list[int]]:
        """Token ids without special tokens: how candidates are tokenized on their own. For
        SentencePiece (Metaspace) and WordPiece tokenizers that is the word as it appears after
        a space in running text ("▁Paris", "Paris"), as the published code and the fill-mask
        pipeline tokenize their candidates."""
        if not texts:
            return []
        ids: list[list[int]] = self.tok(texts, add_special_tokens=False)["input_ids"]
        return ids

    def tokenize(self, texts: list[str]) -> list[list[int]]:
        """Whole queries, special tokens included, exactly as the model family sees text.

        Never glue separately encoded pieces together: a SentencePiece tokenizer turns the
        space before a slot into a stray "▁" token, XLM-R's <mask> swallows that space only
        inside a whole text, and a byte-level BPE merges across the slot's edges."""
        if not texts:
            return []
        backend = self._backend()
        if backend is not None:
            # the same ids as the wrapper's, without its per-text Python work (half the time)
            return [e.ids for e in backend.encode_batch(texts, add_special_tokens=True)]
        ids: list[list[int]] = self.tok(texts, add_special_tokens=True)["input_ids"]
        return ids

    def tokenize_words(self, texts: list[str]) -> tuple[list[list[int]], list[list[int | None]]]:
        """(ids, word ids) of whole queries as `tokenize` gives them: the word of each token as a
        fast tokenizer numbers them (None for the special tokens it adds); pll's within-word-l2r."""
        if not texts:
            return [], []
        backend = self._backend()
        if backend is not None:
            encodings = backend.encode_batch(texts, add_special_tokens=True)
            return [e.ids for e in encodings], [e.word_ids for e in encodings]
        encoded = self.tok(texts, add_special_tokens=True)
        try:
            return encoded["input_ids"], [encoded.word_ids(i) for i in range(len(texts))]
        except ValueError as exc:  # a Python (slow) tokenizer: __init__ refuses it first
            raise ProbeError(f"the tokenizer gives no word ids: {str(exc).splitlines()[0]}") from None

    def _backend(self) -> Any:
        """The fast tokenizer's backend where encoding through it gives exactly the wrapper's ids."""
        backend = getattr(self.tok, "backend_tokenizer", None)
        if (
            self.shortcut
            and backend is not None  # (always, where shortcut is)
            and backend.padding is None
            and backend.truncation is None
            and backend.encode_special_tokens == bool(getattr(self.tok, "split_special_tokens", False))
        ):
            return backend
        return None

    def check_fits(
        self, data: RelationData, lengths: list[int], queries: list[int] | None = None, candidate: str | None = None
    ) -> None:
        """Stop with one line if a tokenized query is longer than the model's position table.

        Past it a learnt position embedding is indexed out of range: an IndexError on CPU, a
        device-side assert on CUDA that leaves the process unusable. Stopping (rather than
        skipping the tuple) keeps every stored result a full template × tuple grid, so the
        metrics never see a silently smaller relation; the message names the row to fix."""
        if self.max_positions is None:
            return
        n = len(data.subjects)
        for i, length in enumerate(lengths):
            if length > self.max_positions:
                q = queries[i] if queries is not None else i
                uri, label = data.subjects[q % n]
                shown = label if len(label) <= 60 else label[:57] + "…"
                what = f" and candidate {candidate!r}" if candidate is not None else ""
                raise ProbeError(
                    f"{data.language} {data.relation}: template {data.templates[q // n]!r} with subject "
                    f"{uri} {shown!r}{what} is {length} tokens, more than this model's "
                    f"{self.max_positions} positions"
                )

    def slot_positions(self, texts: list[str], rows: list[list[int]], token_id: int, count: int) -> list[list[int]]:
        """Where `token_id` sits in each row; it must occur exactly `count` times."""
        out = [[i for i, t in enumerate(row) if t == token_id] for row in rows]
        for text, found in zip(texts, out):
            if len(found) != count:
                raise ProbeError(
                    f"query {text!r} has {len(found)} slot tokens after tokenizing, expected {count}"
                    " (does a subject contain the mask or sentinel token?)"
                )
        return out

    def score_relation(self, data: RelationData) -> np.ndarray:
        """Scores [templates × tuples, candidates], row q = template q // n_tuples, tuple q % n_tuples."""
        raise NotImplementedError

    def floor_flops(self, data: RelationData) -> float:
        """Matrix-product FLOPs this kind cannot avoid for one relation (scorers/flops.py)."""
        raise NotImplementedError

    def queries(self, data: RelationData) -> list[tuple[str, str]]:
        """(text before [Y], text after [Y]) per row: template-major, subject filled in, an annotated
        template's forms agreeing with the row's subject and object (`RelationData.filled`)."""
        return [split_template(t, label, self.options.final_punct) for t, label in data.filled()]

    def pad(self, rows: list[list[int]], value: int) -> tuple[torch.Tensor, torch.Tensor]:
        """(ids, attention mask), right-padded; filled in numpy (a tensor per row costs more)."""
        width = max(len(r) for r in rows)
        ids = np.full((len(rows), width), value, dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = r
            mask[i, : len(r)] = 1
        return self.to_device(ids), self.to_device(mask)

    def to_device(self, array: np.ndarray) -> torch.Tensor:
        """A host array on the scorer's device; to a GPU from pinned memory without waiting for
        the copy (the next kernel on the stream orders after it: no host sync in a batch loop)."""
        tensor = torch.from_numpy(array)
        if self.device.type != "cuda":
            return tensor
        return tensor.pin_memory().to(self.device, non_blocking=True)

    def batches(self, lengths: list[int], cost: Callable[[int, int], int]) -> list[list[int]]:
        """Indices grouped by similar length (sorted), each batch within the token budget."""
        order = sorted(range(len(lengths)), key=lambda i: lengths[i])
        out: list[list[int]] = []
        current: list[int] = []
        longest = 0
        for i in order:
            longest_next = max(longest, lengths[i])
            if current and cost(len(current) + 1, longest_next) > self.budget:
                out.append(current)
                current, longest_next = [], lengths[i]
            current.append(i)
            longest = longest_next
        if current:
            out.append(current)
        return out

    def with_oom_retry(self, fn: Callable[[], T]) -> T:
        """Run, halving the batch budget after an out-of-memory error (down to one row)."""
        while True:
            try:
                return fn()
            except torch.OutOfMemoryError as err:
                if self.budget <= 64:
                    raise ProbeError(
                        "out of memory even with the smallest batches; use a smaller model or the CPU"
                    ) from err
                self.budget //= 2
                if self.device.type == "cuda":
                    torch.cuda.empty_cache()

    def reduce(self, picked: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        """Mean over real (unpadded) positions of log-probs or logits, in float32."""
        picked = picked.float() * valid
        return picked.sum(-1) / valid.sum(-1).clamp(min=1)


# the methods `tok(texts)` goes through; a subclass that overrides one (CodeLlama's infilling,
# CPM's jieba pre-segmentation, mLUKE's entity spans) changes the ids, so it gets no shortcut
TOKENIZE_PATH = ("__call__", "_call_one", "encode_plus", "batch_encode_plus", "_encode_plus", "_batch_encode_plus")


class PllScorer(Protocol):
    """What pseudo-log-likelihood scoring (pll.py) reads of its scorer: a Scorer's tokenizing,
    batching and padding, and a masked LM's head (masked.py's MaskedScorer has them all). A
    Protocol here keeps pll.py from importing masked.py, which calls it: the import graph stays
    acyclic, type-checking imports included."""

    model: PreTrainedModel
    tok: PreTrainedTokenizerBase
    device: torch.device
    options: Options
    pad_id: int
    max_positions: int | None
    budget: int
    head: torch.nn.Module | None
    split: SplitHead | None
    vocab: int
    tile_bytes: int

    def queries(self, data: RelationData) -> list[tuple[str, str]]: ...
    def encode(self, texts: list[str]) -> list[list[int]]: ...
    def tokenize(self, texts: list[str]) -> list[list[int]]: ...
    def tokenize_words(self, texts: list[str]) -> tuple[list[list[int]], list[list[int | None]]]: ...
    def check_fits(
        self, data: RelationData, lengths: list[int], queries: list[int] | None = None, candidate: str | None = None
    ) -> None: ...
    def pad(self, rows: list[list[int]], value: int) -> tuple[torch.Tensor, torch.Tensor]: ...
    def to_device(self, array: np.ndarray) -> torch.Tensor: ...
    def batches(self, lengths: list[int], cost: Callable[[int, int], int]) -> list[list[int]]: ...
    def hidden_states(self, ids: torch.Tensor, attn: torch.Tensor | None) -> torch.Tensor: ...


def fast_shortcut_ok(tokenizer: PreTrainedTokenizerBase) -> bool:
    """Whether `backend_tokenizer.encode_batch` gives exactly what `tokenizer(texts)` gives: a
    plain fast tokenizer whose class keeps the base class's methods on the way to the backend."""
    try:
        from transformers import PreTrainedTokenizerFast
    except ImportError:
        return False
    if not isinstance(tokenizer, PreTrainedTokenizerFast) or getattr(tokenizer, "backend_tokenizer", None) is None:
        return False
    cls = type(tokenizer)
    return all(getattr(cls, name, None) is getattr(PreTrainedTokenizerFast, name, None) for name in TOKENIZE_PATH)


# RoBERTa-style embeddings number positions from pad_token_id + 1 (fairseq's scheme)
PADDING_OFFSET_TYPES = (
    "roberta",
    "xlm-roberta",
    "xlm-roberta-xl",
    "camembert",
    "roberta-prelayernorm",
    "xmod",
    "data2vec-text",
    "longformer",
    "ibert",
    "luke",
    "mluke",
    "mpnet",
    "esm",
)


def position_limit(model: PreTrainedModel) -> int | None:
    """Most tokens one row may hold, or None where positions are relative (T5, mT5: no table).

    The config's `max_position_embeddings` (GPT-2: `n_positions`), less the padding offset of
    RoBERTa-style embeddings, whose position ids start at pad_token_id + 1: XLM-R base's 514
    entries hold 512 tokens. The offset is read from the position table's padding_idx where
    the model has one, else from the model type."""
    config = model.config
    limit = next(
        (
            v
            for v in (getattr(config, n, None) for n in ("max_position_embeddings", "n_positions", "n_ctx"))
            if isinstance(v, int) and v > 0
        ),
        None,
    )
    if limit is None:
        return None
    embeddings = getattr(getattr(model, "base_model", model), "embeddings", None)
    padding_idx = getattr(getattr(embeddings, "position_embeddings", None), "padding_idx", None)
    if padding_idx is None and config.model_type in PADDING_OFFSET_TYPES:
        padding_idx = config.pad_token_id if config.pad_token_id is not None else 1
    return limit - (padding_idx + 1) if padding_idx is not None else limit


def pick_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ProbeError("--device cuda asked for, but no CUDA device is available")
    return torch.device(name)


def pick_dtype(name: str, device: torch.device) -> torch.dtype:
    if name == "auto":
        return torch.bfloat16 if device.type == "cuda" and torch.cuda.is_bf16_supported() else torch.float32
    return {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16, "float16": torch.float16}[
        name
    ]

"""The interface every MT backend implements, and the batching they share."""

from __future__ import annotations

from collections.abc import Iterator

from curator.translate.errors import TranslationError
from curator.translate.protect import BracketScheme, Scheme


class Translator:
    """Plain text in, plain text out, batched within the system's limits.

    Subclasses implement `_translate_batch`; `markup` says whether the texts carry the
    scheme's HTML/XML markup (the API's tag-handling mode) or are plain text.
    """

    name: str = "translator"
    scheme: Scheme = BracketScheme()
    max_items: int = 32  # texts per request or forward pass
    max_chars: int = 10_000  # characters per request

    def translate(self, texts: list[str], source: str, target: str) -> list[str]:
        """Translate plain texts; blank texts come back as they are without a request."""
        return self._run(texts, source, target, markup=False)

    def translate_markup(self, texts: list[str], source: str, target: str) -> list[str]:
        """Translate texts carrying this backend's protection markup, keeping the markup."""
        return self._run(texts, source, target, markup=self.scheme.markup)

    def prepare(self, source: str, target: str) -> None:
        """Check (and load what is needed for) one language pair before any text; raises TranslationError."""

    def _translate_batch(self, texts: list[str], source: str, target: str, markup: bool) -> list[str]:
        raise NotImplementedError

    def _run(self, texts: list[str], source: str, target: str, markup: bool) -> list[str]:
        out = list(texts)
        todo = [i for i, t in enumerate(texts) if t.strip()]
        for chunk in batches([texts[i] for i in todo], self.max_items, self.max_chars):
            idx = [todo[j] for j in chunk]
            result = self._translate_batch([texts[i] for i in idx], source, target, markup)
            if len(result) != len(idx):
                raise TranslationError(self.name, f"sent {len(idx)} texts, got {len(result)} translations back")
            for i, text in zip(idx, result):
                out[i] = text
        return out


def batches(texts: list[str], max_items: int, max_chars: int) -> Iterator[list[int]]:
    """Consecutive index groups of at most `max_items` texts and `max_chars` characters (a longer text alone)."""
    current: list[int] = []
    size = 0
    for i, text in enumerate(texts):
        if current and (len(current) >= max_items or size + len(text) > max_chars):
            yield current
            current, size = [], 0
        current.append(i)
        size += len(text)
    if current:
        yield current

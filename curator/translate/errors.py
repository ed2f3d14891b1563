"""One error type for translation failures, always naming the system and what went wrong."""

from __future__ import annotations

from curator.core.errors import CuratorError


class TranslationError(CuratorError):
    """A translation system failed for good (after retries), or cannot be used as configured."""

    def __init__(self, system: str, message: str):
        super().__init__(f"{system}: {message}")
        self.system, self.message = system, message

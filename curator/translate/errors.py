"""One error type for translation failures, always naming the system and what went wrong."""
from __future__ import annotations


class TranslationError(Exception):
    """A translation system failed for good (after retries), or cannot be used as configured."""

    def __init__(self, system: str, message: str):
        self.system, self.message = system, message
        super().__init__(f"{system}: {message}")

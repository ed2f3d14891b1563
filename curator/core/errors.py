"""One error type for bad input, always naming where the problem is."""
from __future__ import annotations


class IngestError(Exception):
    """Bad input. The message names the file, line (1-based) and field when known."""

    def __init__(self, location: str, message: str, line: int | None = None, field: str | None = None):
        self.location, self.line, self.field, self.message = location, line, field, message
        where = location + (f", line {line}" if line is not None else "")
        what = f"field '{field}': " if field else ""
        super().__init__(f"{where}: {what}{message}")

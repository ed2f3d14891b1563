"""CSV cells a spreadsheet will not run (issue 38 §2; OWASP "CSV injection"): a cell that starts
with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to Excel, LibreOffice and Google
Sheets. Every CSV the tool writes for a person to open (`curator glossary export`, the
dashboard's statistics) passes each text cell through `inert`, and every CSV it reads back
(`curator glossary import`) passes each cell through `revive`, so that what was exported comes
back unchanged.

The rule, one pair for every writer and reader:
- `inert(text)` puts a single quote before a text that starts with a formula character, or with
  single quotes followed by one (`'=x` must not come back as `=x`);
- `revive(cell)` takes exactly one leading quote off a cell that starts with one or more quotes
  followed by a formula character, and leaves every other cell as it is.
So `revive(inert(s)) == s` for every string, and no cell `inert` makes starts with a formula
character. A number written as a number (the dashboard's counts and kappas) is not a text cell
and is left alone.

`Writer` is the CSV writer every export uses: each text cell through `inert`, one row a line
("\n"), and a row with a carriage return in a cell written fully quoted (Python's csv quotes a
lone CR only when the line ends in one: unquoted it would split the row when read back).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import IO

FORMULA_START = frozenset("=+-@\t\r")
QUOTE = "'"


def _quoted_formula(text: str) -> bool:
    """Whether `text` is zero or more quotes followed by a formula character."""
    return text.lstrip(QUOTE)[:1] in FORMULA_START


def inert(text: str) -> str:
    """The cell to write for `text`: quoted when a spreadsheet would take it for a formula."""
    return QUOTE + text if _quoted_formula(text) else text


def revive(cell: str) -> str:
    """The text a cell written by `inert` stands for (any other cell unchanged)."""
    return cell[1:] if cell.startswith(QUOTE) and _quoted_formula(cell) else cell


class Writer:
    """csv.writer for a file a person opens in a spreadsheet: text cells inert (see the module)."""

    def __init__(self, stream: IO[str]):
        self._plain = csv.writer(stream, lineterminator="\n")
        self._quoted = csv.writer(stream, lineterminator="\n", quoting=csv.QUOTE_ALL)

    def writerow(self, row: Iterable[object]) -> None:
        cells = [inert(c) if isinstance(c, str) else c for c in row]
        lone_cr = any(isinstance(c, str) and "\r" in c for c in cells)
        (self._quoted if lone_cr else self._plain).writerow(cells)

    def writerows(self, rows: Iterable[Iterable[object]]) -> None:
        for row in rows:
            self.writerow(row)

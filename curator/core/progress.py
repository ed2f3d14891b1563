"""Progress bars for the long commands (ingest, translate, signals, probe, release import/export).

One look everywhere: tqdm on stderr, so stdout keeps only the results and can be piped. A
bar is drawn only when a person is watching: the stages take `progress: bool`, the CLI passes
`watching()` (stderr is a terminal), and the web, tests and pipes get no bar, so their output
stays exactly what the command prints. Messages printed while a bar is open go through `write`
(tqdm's own), which keeps them above the bar instead of tearing it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, TypeVar

from tqdm import tqdm

T = TypeVar("T")


def watching() -> bool:
    """Whether a person is watching: stderr, where the bars go, is a terminal."""
    return sys.stderr.isatty()


def progress_bar(iterable: Iterable[T], desc: str, unit: str, show: bool, total: int | None = None) -> Any:
    """`iterable` wrapped in a bar named `desc` counting `unit`s (a plain pass-through when not `show`);
    the bar's `set_postfix` adds live figures."""
    return tqdm(iterable, desc=desc, unit=unit, total=total, file=sys.stderr, disable=not show, dynamic_ncols=True)


def write(message: str) -> None:
    """One line on stderr that keeps clear of an open bar."""
    tqdm.write(message, file=sys.stderr)

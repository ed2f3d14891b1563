"""The optional extras of the package (pyproject.toml), and the one error a missing one raises.

`pip install curator` is the review server and the CLI's ingest, review, release, metrics and
reports; PyTorch, transformers, sentence-transformers, pyarrow and psycopg come with an extra
(`curator[probe]`, `[signals]`, `[translate]`, `[hf]`, `[postgresql]`; `[all]`: every one). Code
that needs one imports it inside the function that uses it, after `require_extra(...)`: a base install
then imports none of them, and a command whose extra is missing stops with one line naming the
extra to install (the CLI exits 2, the web answers 501), never an ImportError's traceback.
"""

from __future__ import annotations

import importlib

from curator.core.errors import CuratorError

# extra -> the top-level modules of it that curator imports (checked in this order)
EXTRAS: dict[str, tuple[str, ...]] = {
    "probe": ("torch", "transformers", "tokenizers"),
    "signals": ("sentence_transformers",),
    "translate": ("torch", "transformers", "tokenizers"),
    "postgresql": ("psycopg",),
    "hf": ("pyarrow",),
}


class MissingExtra(CuratorError):
    """Something needs an optional extra that is not installed: `what` (`curator probe`, a
    PostgreSQL database, …) needs `extra`, whose module `module` is absent."""

    def __init__(self, what: str, extra: str, module: str):
        self.what, self.extra, self.module = what, extra, module
        super().__init__(f"{what} needs the '{extra}' extra (no module {module}): pip install 'curator[{extra}]'")


def require_extra(extra: str, what: str, modules: tuple[str, ...] | None = None) -> None:
    """Import the modules of `extra` (or just `modules` of it), or raise `MissingExtra`.

    Only an absent module counts as missing: a module that is there but fails to import (a
    broken install, a missing dependency of its own) raises its own error, which names it."""
    for module in EXTRAS[extra] if modules is None else modules:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is None or module.split(".")[0] != exc.name.split(".")[0]:
                raise
            raise MissingExtra(what, extra, module) from None

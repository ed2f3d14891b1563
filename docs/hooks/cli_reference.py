"""The command reference (docs/reference/cli.md, written by mkdocs-click): an option without a
default shows "none", as `curator … --help` does, instead of click's internal marker for "no
value given" (`Sentinel.UNSET`, click >= 8.2, which mkdocs-click prints as it finds it)."""

from __future__ import annotations

from typing import Any

UNSET = "<code>Sentinel.UNSET</code>"


def on_page_content(html: str, page: Any, **_: Any) -> str:
    """mkdocs hook: on the command reference, "none" for every option without a default."""
    if page.file.src_uri != "reference/cli.md":
        return html
    return html.replace(UNSET, "none")

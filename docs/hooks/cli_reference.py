"""The command reference (docs/reference/cli.md, written by mkdocs-click): an option without a
default shows "none", as `curator … --help` does, instead of click's internal marker for "no
value given" (`Sentinel.UNSET`, click >= 8.2, which mkdocs-click prints as it finds it) and
instead of Python's `None` (an option whose default is None), so one word says "no default"."""

from __future__ import annotations

import re
from typing import Any

UNSET = "<code>Sentinel.UNSET</code>"
# the Default column is each row's last cell: `default=None` printed as Python spells it
NONE_DEFAULT = re.compile(r"<td>(?:<code>)?None(?:</code>)?</td>(\s*</tr>)")


def on_page_content(html: str, page: Any, **_: Any) -> str:
    """mkdocs hook: on the command reference, "none" for every option without a default."""
    if page.file.src_uri != "reference/cli.md":
        return html
    return NONE_DEFAULT.sub(r"<td>none</td>\1", html.replace(UNSET, "none"))

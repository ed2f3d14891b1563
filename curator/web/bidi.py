"""Bidirectional text on a page: `{{ text|bdi(code) }}` isolates a template or a person's text
placed inside a message, a list or a table in a `<bdi>` with the direction of its own language.

Without it an Arabic correction inside an English sentence is laid out with the sentence's
direction ("[X]" drawn on the left, so an Arabic reader reads it backwards) and a Latin
template inside an Arabic sentence loses its brackets to the sentence's direction. `code`
names the text's language (its `lang` and direction, `core.languages.direction`); without one
(a comment, a reviewer's name) the browser takes the direction from the text's first strong
character (`dir="auto"`). The surrounding message keeps the page's direction. review.js does
the same for the text it inserts (`isolate`).
"""

from __future__ import annotations

from flask import Flask
from markupsafe import Markup

from curator.core import languages
from curator.web.marks import mark_invisible

ISOLATE = Markup('<bdi lang="{code}" dir="{dir}">{text}</bdi>')
ISOLATE_AUTO = Markup('<bdi dir="auto">{text}</bdi>')
ISOLATE_DIR = Markup('<bdi dir="{dir}">{text}</bdi>')


def isolate(text: object, code: str | None = None, dir: str | None = None) -> Markup:
    """`text` escaped (invisible characters marked, as `|invisible`) inside a `<bdi>` with the
    direction of language `code`; `dir` alone ("ltr") for text of no language (a path, a version
    name); `dir="auto"` without either."""
    inner = mark_invisible(text)
    if dir in ("ltr", "rtl") and not code:
        return ISOLATE_DIR.format(dir=dir, text=inner)
    if not code:
        return ISOLATE_AUTO.format(text=inner)
    return ISOLATE.format(code=code, dir=languages.direction(code), text=inner)


def init_bidi(app: Flask) -> None:
    app.add_template_filter(isolate, "bdi")

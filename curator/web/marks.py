"""Invisible characters made visible on a page: `{{ text|invisible }}` in a template, the same
rule in review.js (which builds the review screen from the API with textContent).

Dataset text keeps its invisible characters (core/text.py: U+200E LEFT-TO-RIGHT MARK in
published labels, U+200B ZERO WIDTH SPACE in published templates, bidi embeddings in MT
output), so a reviewer must see them to amend them away: each one is replaced on screen by a
small marker such as ⟨LRM⟩ whose title and accessible name say which character it is
("Invisible character: U+200E LEFT-TO-RIGHT MARK"). The replacement also stops a bidi
override from reordering what is shown. Everything else is escaped as usual: the result is
Markup built from escaped text and a fixed span.
"""

from __future__ import annotations

from flask import Flask
from flask_babel import gettext as _
from markupsafe import Markup, escape

from curator.core.text import SHORT_NAMES, describe_char, parts

MARKER = Markup('<span class="invisible-char" role="img" aria-label="{label}" title="{label}">⟨{short}⟩</span>')


def mark_invisible(text: object) -> Markup:
    """`text` escaped, each invisible character shown as a marker naming it."""
    if text is None:
        return Markup("")
    out = []
    for chunk, short in parts(str(text)):
        if short is None:
            out.append(escape(chunk))
        else:
            label = _("Invisible character: %(character)s", character=describe_char(chunk))
            out.append(MARKER.format(label=label, short=short))
    return Markup("").join(out)


def invisible_names() -> dict[str, list[str]]:
    """{character: [short name, 'U+200E LEFT-TO-RIGHT MARK']} for review.js: the usual ones by
    name; the script marks any other invisible character by its code point."""
    return {ch: [short, describe_char(ch)] for ch, short in SHORT_NAMES.items()}


def init_marks(app: Flask) -> None:
    app.add_template_filter(mark_invisible, "invisible")
    app.add_template_global(invisible_names)

"""A second look's character diff on a page (issue 37 §2): `{{ old|diff(new, code) }}` renders
`review.text_diff.char_diff` as one `<bdi>` with the direction of the template's language —
equal text as is, deleted text in `<del>`, inserted text in `<ins>` — each change opened by a
visually hidden, translated "deleted:" or "inserted:" for screen readers (the marks alone say
nothing to them). Every segment escaped with its invisible characters marked (`|invisible`).
The label isolates itself (`dir="auto"`), so it never sets the diff's direction.
review/item.js renders the same segments on the review screen's proposal card (`renderDiff`)."""

from __future__ import annotations

from flask import Flask
from flask_babel import gettext as _
from markupsafe import Markup

from curator.core import languages
from curator.review.text_diff import DELETE, INSERT, char_diff
from curator.web.marks import mark_invisible

BLOCK = Markup('<bdi class="diff" lang="{code}" dir="{dir}">{inner}</bdi>')
CHANGE = Markup('<{tag}><span class="visually-hidden" dir="auto">{label} </span>{text}</{tag}>')


def render_diff(old: object, new: object, code: str) -> Markup:
    """`old` → `new`, a template of language `code`, marked up as a diff."""
    labels = {DELETE: ("del", _("deleted:")), INSERT: ("ins", _("inserted:"))}
    parts = []
    for segment in char_diff(str(old), str(new)):
        text = mark_invisible(segment["text"])
        if segment["op"] in labels:
            tag, label = labels[segment["op"]]
            parts.append(CHANGE.format(tag=Markup(tag), label=label, text=text))
        else:
            parts.append(text)
    return BLOCK.format(code=code, dir=languages.direction(code), inner=Markup("").join(parts))


def init_diffs(app: Flask) -> None:
    app.add_template_filter(render_diff, "diff")

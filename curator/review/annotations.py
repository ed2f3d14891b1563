"""Annotated templates on the review screen (issue 39 §2): what a reviewer is shown of a template
holding X-FACTR's gender/number alternatives (`curator.core.annotated`).

- `gendered_examples`: the template realised once for a man and once for a woman — the forms the
  probe would fill in — for the examples panel (`service.examples_of`) and the live check.
- `syntax_help`: the parser's paragraph on the syntax it supports, for the live check.

Until entity genders are stored, the examples pick no subject by its gender: the first example
tuple is filled in with the masculine forms and labelled "a man", the second with the feminine
forms and labelled "a woman" (the page says which forms each shows).
"""

from __future__ import annotations

from curator.core import annotated

GENDERS = ("MASC", "FEM")  # the examples panel's two subjects: a man, a woman


def gendered_examples(text: str, language: str) -> list[tuple[str, str]]:
    """(gender, the template realised for a subject of that gender) for a man and
    a woman (the subject's gender; the object's forms at their first), [X]/[Y] kept; [] for a template without annotations or one the parser refuses."""
    if not annotated.is_annotated(text):
        return []
    try:
        return [(gender, annotated.realise(text, annotated.Agreement(x_gender=gender), language)) for gender in GENDERS]
    except annotated.AnnotationError:
        return []


def syntax_help(text: str, language: str) -> str | None:
    """The parser's paragraph on the supported syntax when `text` holds an annotation (or a stray
    bracket), else None: the live check shows it under the field."""
    return annotated.supported_syntax_help(language) if annotated.is_annotated(text) else None

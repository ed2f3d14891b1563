"""Annotated templates on the review screen (issue 39 §2): what a reviewer is shown of a template
holding X-FACTR's gender/number alternatives (`curator.core.annotated`).

- `gendered_examples`: the examples panel of an annotated template (`service.examples_of`): one
  subject that is a man and one that is a woman, each filled in with the forms that agree — the
  forms the probe fills in, from the one rule of an entity's gender (`core.agreement`: the stored
  Wikidata gender, else X-FACTR's per-language fallbacks). The first SCAN tuples of the relation are
  looked at; when none of them is known to be a man (or a woman) — no genders ingested yet, in a
  language without ending rules — that example is left out: a man's name is never shown with the
  feminine forms (`curator ingest genders` fills the panel).
- `realised_forms`: the template realised for a man and for a woman, [X]/[Y] kept (the live check).
- `syntax_help`: the parser's paragraph on the syntax it supports, for the live check.
"""

from __future__ import annotations

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from curator.core import annotated
from curator.core.agreement import entity_guesses, query_agreement
from curator.core.models import Template, Tuple, TupleList

GENDERS = ("MASC", "FEM")  # the examples panel's two subjects: a man, a woman
SCAN = 200  # tuples looked at for a man and a woman


def realised_forms(text: str, language: str) -> list[tuple[str, str]]:
    """(gender, the template realised for a subject of that gender — the object's forms at their
    first) for a man and a woman, [X]/[Y] kept; [] for a template without annotations or one the
    parser refuses."""
    if not annotated.is_annotated(text):
        return []
    try:
        return [(gender, annotated.realise(text, annotated.Agreement(x_gender=gender), language)) for gender in GENDERS]
    except annotated.AnnotationError:
        return []


def example_rows(template: Template) -> Select[str, str, str, str]:
    """(subject label, object label, subject id, object id) of the template's relation and language,
    translated tuples (not English fallbacks) in their order: every example panel's rows."""
    return (
        select(Tuple.sub_label, Tuple.obj_label, Tuple.sub_qid, Tuple.obj_qid)
        .join(TupleList, TupleList.id == Tuple.list_id)
        .where(
            TupleList.language == template.language,
            TupleList.relation_id == template.relation_id,
            TupleList.current,
            Tuple.from_english.is_(False),
        )
        .order_by(Tuple.position)
    )


def gendered_examples(session: Session, template: Template) -> list[tuple[str, str, str, str]]:
    """(gender, subject label, object label, the template realised for them) for a man and a woman
    among the relation's first SCAN tuples (module docstring); [] for a template the parser refuses."""
    try:
        annotated.check(template.text, template.language)
    except annotated.AnnotationError:
        return []
    rows = session.execute(example_rows(template).limit(SCAN)).all()
    subjects = {s_qid: s for s, _, s_qid, _ in rows}
    objects = {o_qid: o for _, o, _, o_qid in rows}
    guesses = entity_guesses(session, {**objects, **subjects}, template.language)
    out: list[tuple[str, str, str, str]] = []
    used: set[int] = set()
    for gender in GENDERS:
        index = next((i for i, r in enumerate(rows) if guesses[r.sub_qid][0] == gender and i not in used), None)
        if index is None:  # nobody known to be of that gender: no example rather than a wrong one
            continue
        row = rows[index]
        agreement = query_agreement(guesses[row.sub_qid], guesses[row.obj_qid])
        used.add(index)
        out.append(
            (gender, row.sub_label, row.obj_label, annotated.realise(template.text, agreement, template.language))
        )
    return out


def syntax_help(text: str, language: str) -> list[tuple[str, dict[str, str]]] | None:
    """The parser's sentences on the supported syntax, as catalogue messages (msgid, params) for the
    web layer to say in the reviewer's language, when `text` holds an annotation (or a stray
    bracket); else None: the live check shows them under the field."""
    return annotated.syntax_help(language) if annotated.is_annotated(text) else None

"""A template a reviewer types (an amendment, a suggestion): cleaned as the candidates are, or
refused with a message in the reviewer's language (catalogue messages, `N_`).

The candidates' case rule decides how it is stored (`keeps_case`), so an amendment sits beside
the candidates it corrects in the same form.

A reviewer may write an annotated template (X-FACTR's gender/number alternatives,
`curator.core.annotated`): a supported annotation is kept whole, an unsupported or malformed one
is refused with the parser's one-line message inside a translated sentence.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from curator.core.errors import N_, InputError
from curator.core.text import describe_char, first_control
from curator.ingest.candidates import current_params
from curator.ingest.clean import annotation_problem, check
from curator.ingest.profiles import check_keep_case


def keeps_case(session: Session) -> bool:
    """Whether the current candidates keep the case of words (curator profile, --keep-case).

    The published rule lower-cases every template; amendments and suggestions are stored
    the same way as the candidates they sit beside, so German nouns keep their capitals
    only when the candidates do.
    """
    params = current_params(session)
    return bool(params and params.keep_case)


def validate_template(text: str, language: str, keep_case: bool = False) -> str:
    """The cleaned template as it will be stored, or an InputError saying what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise InputError(N_("Write a template first."), params={})
    if len(text) > 500:
        raise InputError(N_("That template is too long (%(limit)s characters at most)."), params={"limit": 500})
    control = first_control(text)  # before cleaning, which would fold a tab into a space
    if control is not None:
        raise InputError(
            N_(
                "Not saved: the template contains an invisible character (%(character)s). "
                "Type it without invisible characters."
            ),
            params={"character": describe_char(control)},
        )
    outcome = (
        check_keep_case(text, language, annotations=True) if keep_case else check(text, language, annotations=True)
    )
    if outcome.annotation_error:  # the parser's own catalogue message inside ours
        problem = annotation_problem(outcome.repaired, language)
        raise InputError(
            N_("Not saved: this annotation cannot be filled here: %(reason)s"),
            params={"reason": problem if problem is not None else outcome.reason or ""},
        )
    if not outcome.valid:
        raise _invalid_template(outcome.reason or "")
    assert outcome.cleaned is not None  # a valid outcome always has its cleaned text
    return outcome.cleaned


class SameAsTemplate(InputError):
    """An amendment that cleans to the template it amends: nothing to change (accept it instead)."""

    code = "same"


def same_as_template(cleaned: str | None, template_text: str) -> bool:
    """Whether a cleaned line is the template itself (equal after cleaning, as a final period or
    a space dropped by `ingest.clean` makes it): the one rule the decision, the live check and
    the machine-translation panel read."""
    return cleaned == template_text


def validate_correction(text: str, language: str, keep_case: bool, template_text: str) -> str:
    """An amendment of `template_text`: `validate_template`'s cleaned form, or `SameAsTemplate`
    when it cleans to the template itself."""
    cleaned = validate_template(text, language, keep_case)
    if same_as_template(cleaned, template_text):
        raise SameAsTemplate(N_("The correction is the same as the template: accept it instead."), params={})
    return cleaned


def _invalid_template(reason: str) -> InputError:
    """The reason a cleaned template is unusable (ingest.clean), as a message for the reviewer."""
    import re

    repeated = re.fullmatch(r"(\[[XY]\]) appears (\d+) times", reason)
    if reason == "missing [X]":
        return InputError(
            N_("Not saved: it needs the subject slot [X]. A template has exactly one [X], one [Y] and some words."),
            params={},
        )
    if reason == "missing [Y]":
        return InputError(
            N_("Not saved: it needs the object slot [Y]. A template has exactly one [X], one [Y] and some words."),
            params={},
        )
    if repeated:
        return InputError(
            N_("Not saved: %(slot)s appears %(count)s times. A template has exactly one [X], one [Y] and some words."),
            params={"slot": repeated.group(1), "count": int(repeated.group(2))},
        )
    if reason == "no text besides the placeholders":
        return InputError(
            N_(
                "Not saved: there are no words besides [X] and [Y]. "
                "A template has exactly one [X], one [Y] and some words."
            ),
            params={},
        )
    return InputError(
        N_("Not saved: %(reason)s. A template has exactly one [X], one [Y] and some words."), params={"reason": reason}
    )

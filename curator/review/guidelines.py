"""Review guidelines: what a reviewer is asked to judge, shown before the first item of an
assignment and behind the help key at any time.

The default text below follows mParaRel's instructions to its reviewers (Fierro and Søgaard,
2022). A maintainer can replace it per language (a `Guideline` row; an empty text goes back
to the default). The text is plain: blank lines separate paragraphs and lines starting with
"- " are bullet points (`blocks`); the pages render it escaped, never as HTML.

The default is translated per interface language: `guidelines_translated/<lang>.txt` (package
data, a whole document so a translator sees it in one piece), English when a language has
none. The web layer says which interface language it wants; a maintainer's text is shown as
written, whatever the interface language.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib.resources import files
from typing import Literal, TypedDict

from sqlalchemy.orm import Session

from curator.core import languages
from curator.core.enums import Activity
from curator.core.errors import InputError, NotFound
from curator.core.models import Assignment, Guideline, Language, User
from curator.core.models.base import utcnow
from curator.core.text import control_reason
from curator.review import activity

MAX_LENGTH = 20000


class Block(TypedDict):
    """A paragraph ("p") or a bullet list ("ul") of the guidelines, its lines plain text."""

    kind: Literal["p", "ul"]
    lines: list[str]


DEFAULT_GUIDELINES = """\
You are checking machine translations of English sentence templates. Each template states a \
relation between a subject [X] and an object [Y], for example "[X] was born in [Y]" for the \
relation "place of birth". Language models are later tested with these templates, so each one \
must say exactly what the English says, in natural language.

Accept a template when:
- it expresses the same relation between [X] and [Y] as the English templates (the first one \
is shown under the relation's title, all of them under Details), and
- it is fluent and grammatical once [X] and [Y] are filled in (look at the real examples).

Things that do not matter:
- Capital letters. Templates are stored in lower case, as in mParaRel; "[X] nació en [Y]" and \
"[X] Nació en [Y]" are the same template.
- Punctuation at the end: a missing or extra final full stop is fine.
- A different wording, word order or tense, as long as the meaning is the same.

Articles, gender and number:
- Words that agree with [X] or [Y] (articles, gender or number endings, such as "originario" \
or "originaria") cannot fit every subject. Accept the template when it is correct for a \
typical subject of the relation (look at the examples).
- Amend it when the agreement makes it wrong for the typical subject, or when an article or \
preposition is wrong or missing: press Amend, correct the text and keep [X] and [Y].

Reject a template when:
- its meaning differs from the English (another relation, a narrower or wider meaning, a \
negation, an added claim);
- the roles of [X] and [Y] are swapped (for "[X] was born in [Y]": "[Y] was born in [X]");
- it is not a sentence of your language, or it cannot be repaired with a small correction.

Choose Unsure when you cannot tell, for example when you do not know the word or the \
relation is ambiguous. Unsure decisions are counted apart and never decide whether a template \
stays; another reviewer's decision does. A comment on the template or on the relation tells \
the maintainers why.

What the details mean:
- "votes": how many machine translation systems (or English source templates) produced this \
same template. More votes usually means a safer translation, but check it anyway.
- System names such as "m2m100_big", "mbart50_en2m" or "google" are the machine translation \
systems that produced the template.
- "Placeholder repaired: [y] → [Y]": the translation system damaged a slot and it was \
restored automatically. Check that [X] and [Y] sit in the right places.
- "Back-translated" and "probe run": automatic signals that the meaning may have drifted. \
They are hints, not verdicts.

If you have a better paraphrase for the relation than any you see, add it as a suggestion. \
You can change any decision later: go back to the template, or use Undo.
"""


# how the default guidelines' bullet about capital letters begins, per interface language: it is
# left out for a data language whose script has no letter case (core.languages.has_case)
CASE_BULLET = {"en": "- Capital letters.", "es": "- Las mayúsculas.", "ar": "- الأحرف الكبيرة."}


@lru_cache(maxsize=16)
def default_guidelines(interface: str = "en", cased: bool = True) -> str:
    """The default guidelines in an interface language (`guidelines_translated/<code>.txt`),
    else in English; without the bullet about capital letters when not `cased`."""
    path = files("curator.review") / "guidelines_translated" / f"{interface}.txt"
    if interface != "en" and interface.isidentifier() and path.is_file():
        text = path.read_text(encoding="utf-8")
    else:
        text, interface = DEFAULT_GUIDELINES, "en"
    if not cased and interface in CASE_BULLET:  # the bullet and its wrapped lines, up to the next bullet or blank
        text = re.sub(rf"^{re.escape(CASE_BULLET[interface])}.*\n(?:(?!- )[^\n]*\S[^\n]*\n)*", "", text, flags=re.M)
    return text


def get_guidelines(session: Session, language: str, interface: str = "en") -> str:
    """The language's guidelines: its maintainers' text, or the default in the interface language
    (for a script without letter case, without the bullet about capitals)."""
    row = session.get(Guideline, languages.check_code(language))
    if row is not None and row.text.strip():
        return row.text
    return default_guidelines(interface, languages.has_case(language))


def is_custom(session: Session, language: str) -> bool:
    return session.get(Guideline, languages.check_code(language)) is not None


def set_guidelines(session: Session, language: str, text: str | None, user: User | None) -> str:
    """Store a language's guidelines; None or blank text goes back to the default. Returns
    the text now in force. A change is in the activity log (`user` None: the command line)."""
    languages.check_code(language)
    if session.get(Language, language) is None:
        raise NotFound(f"no language {language!r}")
    row = session.get(Guideline, language)
    if text is not None and not isinstance(text, str):  # before .strip(): a number is bad input, not a 500
        raise InputError("the guidelines must be text")
    if text is None or not text.strip():
        if row is not None:
            session.delete(row)
            session.flush()
            activity.record(session, user, Activity.GUIDELINES, "default guidelines", language, {"change": "reset"})
        return DEFAULT_GUIDELINES
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip() + "\n"
    if len(text) > MAX_LENGTH:
        raise InputError(f"The guidelines are too long ({MAX_LENGTH} characters at most).")
    control = control_reason(text.replace("\n", ""))  # line breaks (CR made LF above) and nothing else
    if control:
        raise InputError(f"Not saved: the text {control}.")
    if row is not None and row.text == text:
        return text  # saved unchanged: nothing to log
    change = "edit" if row is not None else "customise"
    if row is None:
        row = Guideline(language=language, text=text)
        session.add(row)
    row.text, row.updated_by, row.updated_at = text, user.id if user is not None else None, utcnow()
    session.flush()
    activity.record(
        session, user, Activity.GUIDELINES, "guidelines", language, {"change": change, "characters": len(text)}
    )
    return text


def mark_seen(session: Session, assignment: Assignment) -> None:
    """The reviewer has read the guidelines for this assignment (the first item comes next)."""
    if assignment.guidelines_seen_at is None:
        assignment.guidelines_seen_at = utcnow()
        session.flush()


def blocks(text: str) -> list[Block]:
    """Plain text as paragraphs and bullet lists: [{"kind": "p"|"ul", "lines": [...]}].
    Blank lines (spaces only count as blank) separate blocks; a line starting with "- " or "* "
    is a bullet, and a plain line right after a bullet continues that bullet (a wrapped bullet)."""
    out: list[Block] = []
    for chunk in re.split(r"\n[ \t\f\v]*\n", text.replace("\r\n", "\n").replace("\r", "\n")):
        lines = [line.strip() for line in chunk.split("\n") if line.strip()]
        current: Block | None = None
        for line in lines:
            bullet = line[:2] in ("- ", "* ")
            if bullet:
                if current is None or current["kind"] != "ul":
                    current = {"kind": "ul", "lines": []}
                    out.append(current)
                current["lines"].append(line[2:].strip())
            elif current is not None:  # a paragraph's next line, or a wrapped bullet
                current["lines"][-1] += " " + line
            else:
                current = {"kind": "p", "lines": [line]}
                out.append(current)
    return out

"""Templates that differ only in gendered forms (issue 39 §2): two templates of a relation where
one says "[X] est né à [Y]" and the other "[X] est née à [Y]" are each wrong for part of the
subjects; merged into one annotated template (`[X] est [né;X-Gender=MASC|née;X-Gender=FEM] à
[Y]`), the probe fills each query with the form that agrees.

**The rule** (`gender_pair`). Two different cleaned templates A and B of one language differ only
in gendered forms when, split on white space, they have the same number of words and every
position where they differ holds a *gender pair* of the language, in either order:
- a pair of its word list (`WORDS`: il/elle, el/la, он/она …), or
- a masculine and a feminine form that share a stem of at least two characters and end in one of
  the language's masculine/feminine endings (`ENDINGS`: French ""/"e" as né/née, "eux"/"euse",
  "if"/"ive"; Spanish "o"/"a"; Russian past tense ""/"а", "ся"/"ась" …),
and they differ somewhere. Nothing else may differ: "[X] est né à [Y]" / "[X] était née à [Y]"
(tense as well) is not such a pair. Two annotated templates are not compared by words. Languages
without a list are never flagged (a missing language is a gap in the lists, said in
docs/quality.md, not a guess).

**An annotated template and its plain sibling** (`annotated_twin`): an annotated template (one the
parser accepts) whose plain form — or the form it takes for a man or a woman — is another
template of the relation is flagged with it, and the suggestion is to keep the annotated one: the
sibling says the same for part of the subjects, and an export would write two lines with the same
`pattern` (mParaRel's code keys predictions by that text; `release export` warns).

**The suggestion** (`merged`): A with every differing word written as X-FACTR's alternative for
the subject, masculine first: `[né;X-Gender=MASC|née;X-Gender=FEM]`; a reviewer checks that the
word agrees with the subject ([X]) and not the object, and edits it into `Y-Gender` otherwise.

Computed by `curator signals gender-pairs` and stored on each flagged template's `TemplateSignal`
(`gender_twin`: the other template, `gender_merged`: the suggestion); the check `gender-pair`
(quality/checks) shows it on the review screen.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from curator.core import annotated
from curator.core.models import Template, TemplateSignal

# (masculine, feminine) words per language (lower case, as templates are cleaned)
WORDS: dict[str, tuple[tuple[str, str], ...]] = {
    "fr": (("il", "elle"), ("le", "la"), ("un", "une"), ("ce", "cette"), ("son", "sa")),
    "es": (("el", "la"), ("un", "una"), ("este", "esta")),
    "pt": (("o", "a"), ("um", "uma"), ("do", "da"), ("no", "na"), ("ao", "à"), ("ele", "ela")),
    "it": (("il", "la"), ("lo", "la"), ("un", "una"), ("del", "della"), ("nel", "nella"), ("al", "alla")),
    "ca": (("el", "la"), ("un", "una")),
    "ru": (("он", "она"), ("его", "её"), ("его", "ее")),
    "uk": (("він", "вона"), ("його", "її")),
    "he": (("הוא", "היא"),),
    "ar": (("هو", "هي"),),
    "de": (("der", "die"), ("ein", "eine"), ("er", "sie")),
    "el": (("ο", "η"), ("ένας", "μία"), ("ένας", "μια")),
}
# (masculine, feminine) endings per language: a word stem + m against the same stem + f
ENDINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "fr": (
        ("", "e"),
        ("eux", "euse"),
        ("eur", "euse"),
        ("eur", "rice"),
        ("if", "ive"),
        ("en", "enne"),
        ("on", "onne"),
        ("el", "elle"),
        ("er", "ère"),
        ("et", "ète"),
    ),
    "es": (("o", "a"), ("", "a"), ("e", "a")),
    "pt": (("o", "a"), ("", "a"), ("ão", "ã"), ("ão", "ona")),
    "it": (("o", "a"), ("e", "a"), ("ore", "rice")),
    "ca": (("", "a"), ("t", "da"), ("o", "a")),
    "ro": (("", "ă"), ("", "a"), ("ul", "a")),
    "ru": (("", "а"), ("ся", "ась"), ("ый", "ая"), ("ий", "ая"), ("ой", "ая"), ("ен", "на"), ("н", "на")),
    "uk": (("", "ла"), ("в", "ла"), ("вся", "лася"), ("ий", "а"), ("ний", "на")),
    "be": (("", "а"), ("ў", "ла")),
    "bg": (("", "а"), ("ен", "на")),
    "sr": (("", "а"), ("о", "ла")),
    "hr": (("", "a"), ("o", "la")),
    "pl": (("ł", "ła"), ("ony", "ona"), ("y", "a"), ("i", "a")),
    "cs": (("", "a"), ("ý", "á"), ("l", "la")),
    "sk": (("", "a"), ("ý", "á"), ("l", "la")),
    "he": (("", "ה"), ("", "ת"), ("י", "ית")),
    "ar": (("", "ة"), ("", "ت")),
    "de": (("", "in"),),
    "el": (("ος", "η"), ("ος", "α"), ("ής", "ής"), ("ης", "ισσα")),
    "lt": (("as", "ė"), ("is", "ė"), ("ęs", "usi")),
    "lv": (("s", "a"), ("is", "e")),
}
MIN_STEM = 2


def _base(language: str) -> str:
    return language.split("-")[0].lower()


def gendered(a: str, b: str, language: str) -> str | None:
    """Which of two different words is masculine, "a" or "b", when they are a gender pair of the
    language (module docstring); None when they are not."""
    lang = _base(language)
    for masc, fem in WORDS.get(lang, ()):
        if (a, b) == (masc, fem):
            return "a"
        if (a, b) == (fem, masc):
            return "b"
    for masc, fem in ENDINGS.get(lang, ()):
        if masc == fem:
            continue
        for m_word, f_word, which in ((a, b, "a"), (b, a, "b")):
            if m_word.endswith(masc) and f_word.endswith(fem):
                stem = m_word[: len(m_word) - len(masc)]
                if len(stem) >= MIN_STEM and f_word == stem + fem:
                    return which
    return None


def gender_pair(a: str, b: str, language: str) -> list[tuple[int, str, str]] | None:
    """The positions where two templates differ, each as (word index, masculine, feminine), when
    they differ only in gendered forms (module docstring); None when they do not."""
    if a == b or annotated.is_annotated(a) or annotated.is_annotated(b):
        return None
    words_a, words_b = a.split(), b.split()
    if len(words_a) != len(words_b):
        return None
    out: list[tuple[int, str, str]] = []
    for index, (x, y) in enumerate(zip(words_a, words_b, strict=True)):
        if x == y:
            continue
        which = gendered(x, y, language)
        if which is None:
            return None
        out.append((index, x, y) if which == "a" else (index, y, x))
    return out or None


def annotated_twin(a: str, b: str, language: str) -> str | None:
    """The annotated one of two templates when one is an annotated template the parser accepts and
    the other is its plain form or its form for a man or a woman (as subject or object); None
    otherwise — the suggestion is to keep the annotated template."""
    for kept, other in ((a, b), (b, a)):
        if annotated.accepts(kept, language) and not annotated.is_annotated(other):
            genders = (None, "MASC", "FEM")
            forms = {
                annotated.realise(kept, annotated.Agreement(x_gender=x, y_gender=y), language)
                for x in genders
                for y in genders
            }
            return kept if other in forms else None
    return None


def merged(a: str, language: str, pairs: list[tuple[int, str, str]]) -> str:
    """`a` with each differing word as an alternative for the subject, masculine first."""
    words = a.split()
    for index, masc, fem in pairs:
        words[index] = f"[{masc};X-Gender=MASC|{fem};X-Gender=FEM]"
    return " ".join(words)


@dataclass(frozen=True)
class Twin:
    template_id: int
    other: str  # the other template's text
    suggestion: str  # the two merged into one annotated template


def find_twins(language: str, templates: Iterable[tuple[int, str, str]]) -> tuple[dict[int, Twin], int]:
    """({template id: its twin}, the number of pairs) among (id, relation, text) of one language:
    each template of a flagged pair, with the first twin found (by id) when it has several."""
    by_relation: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for template_id, relation, text in templates:
        by_relation[relation].append((template_id, text))
    out: dict[int, Twin] = {}
    count = 0
    for rows in by_relation.values():
        rows.sort()
        for i, (id_a, a) in enumerate(rows):
            for id_b, b in rows[i + 1 :]:
                pairs = gender_pair(a, b, language)
                keep = annotated_twin(a, b, language) if pairs is None else None
                if pairs is None and keep is None:
                    continue
                suggestion = keep or merged(a, language, pairs or [])
                count += 1
                out.setdefault(id_a, Twin(id_a, b, suggestion))
                out.setdefault(id_b, Twin(id_b, a, suggestion))
    return out, count


@dataclass
class TwinSummary:
    language: str
    templates: int  # candidate templates compared
    flagged: int  # templates with a twin
    pairs: int  # pairs of them


def compute_gender_pairs(session: Session, languages: list[str]) -> list[TwinSummary]:
    """Flag the candidate templates of each language that differ only in gendered forms from another
    candidate of their relation; stores (or clears) `gender_twin` and `gender_merged` on their
    `TemplateSignal` rows."""
    out = []
    for lang in languages:
        rows = session.execute(
            select(Template.id, Template.relation_id, Template.text).where(
                Template.language == lang, Template.is_candidate
            )
        ).all()
        twins, pairs = find_twins(lang, [(r.id, r.relation_id, r.text) for r in rows])
        ids = [r.id for r in rows]
        for start in range(0, len(ids), 500):
            session.execute(
                update(TemplateSignal)
                .where(TemplateSignal.template_id.in_(ids[start : start + 500]))
                .values(gender_twin=None, gender_merged=None)
            )
        existing = set(
            session.scalars(select(TemplateSignal.template_id).where(TemplateSignal.template_id.in_(list(twins))))
        )
        for twin in twins.values():
            if twin.template_id in existing:
                session.execute(
                    update(TemplateSignal)
                    .where(TemplateSignal.template_id == twin.template_id)
                    .values(gender_twin=twin.other, gender_merged=twin.suggestion)
                )
            else:
                session.add(
                    TemplateSignal(template_id=twin.template_id, gender_twin=twin.other, gender_merged=twin.suggestion)
                )
        out.append(TwinSummary(lang, len(rows), len(twins), pairs))
    session.flush()
    return out

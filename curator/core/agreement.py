"""An entity's grammatical gender and number in a language: what annotated templates agree with.

`guess(stored, classes, label, language)` is the one rule every reader uses — through
`entity_guesses` (many entities in a few queries: the probe's fill, `curator queries`, the review
screen's examples) or `entity_agreement` (one entity): the entity's stored Wikidata
gender (`curator ingest genders`: male → MASC, female → FEM), and for an entity stored as
`none` or not stored at all, X-FACTR's per-language fallbacks (jzbjyb/X-FACTR,
scripts/prompt.py, `get_ender_number` of each language), re-stated here:

- **es** — the label's first word: ending -o masculine; -a, -ción, -sión, -dad, -tad, -umbre
  feminine; else masculine. Then its classes: human → MASC; state/country → FEM; musical group →
  MASC plural; record label, football club → FEM.
- **fr** — the first word's ending (the rules of frenchtogether.com that X-FACTR lists, longest
  ending first; default masculine). Then: business, enterprise, sports team, automobile
  manufacturer, football club → FEM; human, language → MASC.
- **ru** — the label's last letter: -а/-я feminine, -о/-е/-ё neuter, else masculine (X-FACTR's
  set holds a Latin "a" where the Cyrillic "а" is meant, so there "Москва" fell to masculine;
  here both count). A neuter human → MASC.
- **el** — the first word: -η/-ή/-α feminine; -ος/-ης/-ής/-ας/-άς/-ός/-ήλ masculine; else
  neuter. A neuter entity by its classes: state/country → FEM unless the label ends in ν/ο/ό;
  city → FEM unless it ends in ι/ο; business, enterprise, island, record label, sports team,
  automobile manufacturer, football club → FEM; human, musical group (plural) → MASC; language →
  NEUT plural. A label ending -ες is feminine plural.
- **he**, **mr** — no ending rule; a neuter human → MASC.
- every other language — the stored gender only.

A class rule matches a word in the entity's class labels as X-FACTR matches its text ("state"
matches "sovereign state" and "state of the United States"). What is still unknown is `None`
(the template's first form); `NEUT` picks a neuter form where the template has one, else the
first too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core.annotated import Agreement

STORED = {"male": "MASC", "female": "FEM"}  # "none": not a person, or no gender on Wikidata

# (gender, number) of an entity: what the rules give; None = unknown
Guess = tuple[str | None, str | None]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# French endings by length: X-FACTR's lists (after frenchtogether.com's rules), feminine then masculine
_FR_FEM = {
    6: _words("ouille"),
    5: _words("aisse ousse aille eille ouche anche"),
    4: _words(
        "asse esse isse ance anse ence once enne onne aine eine erne ande ende onde arde orde euse "
        "ouse aise oise ache iche ehce oche uche iere eure atte otte oute orte ante ente inte onte "
        "alle elle ille olle appe ampe ombe igue"
    ),
    3: _words("aie oue eue ace ece ice une ine ade ase ese ise yse ose use ave eve ive ete ête"),
    2: _words("te ée ie ue"),
}
_FR_MASC = {
    4: _words("aume isme ours euil ueil"),
    3: _words(
        "and ant ent int ond ont eau aud aut ais ait out oux age ege ème ome est eul all air erf ert "
        "arc ars art our ord ors ort oir eur ail eil ing"
    ),
}


def _first_word(label: str) -> str:
    words = label.strip().split(" ")
    return words[0] if words else ""


def _es_ending(label: str) -> str | None:
    word = _first_word(label)
    if word.endswith(("a", "ción", "sión", "dad", "tad", "umbre")):
        return "FEM"
    return "MASC" if word else None


def _fr_ending(label: str) -> str | None:
    word = _first_word(label)
    if not word:
        return None
    for size in (6, 5, 4, 3, 2):  # X-FACTR's order: at each length the feminine list, then the masculine
        if word[-size:] in _FR_FEM.get(size, ()):
            return "FEM"
        if word[-size:] in _FR_MASC.get(size, ()):
            return "MASC"
    return "MASC"


def _ru_ending(label: str) -> str | None:
    word = label.strip()
    if not word:
        return None
    if word[-1] in "aаяАЯ":
        return "FEM"
    return "NEUT" if word[-1] in "оеёОЕЁ" else "MASC"


def _el_ending(label: str) -> str | None:
    word = _first_word(label)
    if not word:
        return None
    if word[-1] in "ηήα":
        return "FEM"
    return "MASC" if word[-2:] in {"ος", "ης", "ής", "ας", "άς", "ός", "ήλ"} else "NEUT"


ENDINGS: dict[str, Callable[[str], str | None]] = {
    "es": _es_ending,
    "fr": _fr_ending,
    "ru": _ru_ending,
    "el": _el_ending,
}

# Per language, (class word, gender, number) in X-FACTR's order: the first whose word is in the
# entity's class labels applies; a None keeps what the entity had.
_CLASSES: dict[str, list[tuple[str, str | None, str | None]]] = {
    "es": [
        ("state", "FEM", None),
        ("country", "FEM", None),
        ("musical group", "MASC", "PL"),
        ("record label", "FEM", None),
        ("football club", "FEM", None),
    ],
    "fr": [
        ("state", None, None),
        ("country", None, None),
        ("business", "FEM", None),
        ("enterprise", "FEM", None),
        ("city", None, None),
        ("human", "MASC", None),
        ("island", None, None),
        ("musical group", None, None),
        ("record label", None, None),
        ("language", "MASC", None),
        ("sports team", "FEM", None),
        ("automobile manufacturer", "FEM", None),
        ("football club", "FEM", None),
    ],
    "el": [
        ("state", "FEM", None),
        ("country", "FEM", None),
        ("business", "FEM", None),
        ("enterprise", "FEM", None),
        ("city", "FEM", None),
        ("human", "MASC", None),
        ("island", "FEM", None),
        ("literary work", "NEUT", None),
        ("musical group", "MASC", "PL"),
        ("record label", "FEM", None),
        ("language", "NEUT", "PL"),
        ("sports team", "FEM", None),
        ("automobile manufacturer", "FEM", None),
        ("football club", "FEM", None),
    ],
    "ru": [("human", "MASC", None)],
    "he": [("human", "MASC", None)],
    "mr": [("state", None, None), ("country", None, None), ("human", "MASC", None)],
}
# languages whose class rules apply only while the entity is still neuter (es and fr apply them
# to every entity without a stored gender, whatever its ending said)
_ONLY_NEUTER = {"el", "ru", "he", "mr"}
# Greek: a state/country or city whose label ends so keeps its (neuter) gender
_EL_KEEPS = {"state": "νοό", "country": "νοό", "city": "ιο"}


def _by_class(language: str, classes: str, label: str, guess: Guess) -> Guess:
    gender, number = guess
    if language in _ONLY_NEUTER and gender not in (None, "NEUT"):
        return guess
    if language == "es" and "human" in classes:  # X-FACTR's Spanish: its own `if`, before the chain
        gender = "MASC"
    for word, to_gender, to_number in _CLASSES.get(language, ()):
        if word in classes:
            if language == "el" and label.strip()[-1:] in _EL_KEEPS.get(word, ""):
                return gender, number
            return (to_gender or gender), (to_number or number)
    return gender, number


def guess(stored: str | None, classes: Iterable[str], label: str, language: str) -> Guess:
    """(gender, number) of an entity from its stored gender (male/female/none or None), its
    class labels and its label in `language`: the rules of this module's docstring, pure."""
    base = language.split("-")[0].split("_")[0].lower()
    number = None
    if base == "el" and label.strip().endswith(("ες", "ές")):
        return "FEM", "PL"
    if stored in STORED:
        return STORED[stored], number
    ending = ENDINGS.get(base)
    gender = ending(label) if ending is not None else ("NEUT" if stored == "none" else None)
    if gender is None and stored == "none":
        gender = "NEUT"
    # one label a line: a class word never matches across two labels ("musical" + "group")
    gender, number = _by_class(base, "\n".join(classes), label, (gender, number))
    return gender, number


def _stored(session: Session, ids: Iterable[str]) -> tuple[dict[str, str], dict[str, list[str]]]:
    from curator.core.models import EntityClass, EntityGender

    wanted = sorted(set(ids))
    genders: dict[str, str] = {}
    classes: dict[str, list[str]] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        genders.update(
            session.execute(select(EntityGender.qid, EntityGender.gender).where(EntityGender.qid.in_(chunk))).all()
        )
        rows = session.execute(
            select(EntityClass.qid, EntityClass.label)
            .where(EntityClass.qid.in_(chunk))
            .order_by(EntityClass.qid, EntityClass.class_qid)
        ).all()
        for qid, class_label in rows:
            classes.setdefault(qid, []).append(class_label)
    return genders, classes


# what is stored of entities: ({id: male|female|none}, {id: [class label, …] by class id})
Stored = tuple[Mapping[str, str], Mapping[str, list[str]]]


def entity_guesses(
    session: Session | None, entities: Mapping[str, str], language: str, stored: Stored | None = None
) -> dict[str, Guess]:
    """(gender, number) of many entities ({id: label in `language`}) in a few queries; `stored`:
    the genders and classes read from a release folder's genders.tsv and instanceof.tsv instead
    of the database; without either (a folder without them probed with no database), from the
    label rules alone."""
    if stored is not None:
        genders, classes = stored
    else:
        genders, classes = _stored(session, entities) if session is not None else ({}, {})
    return {qid: guess(genders.get(qid), classes.get(qid, ()), label, language) for qid, label in entities.items()}


def entity_agreement(session: Session, entity_id: str, label: str, language: str) -> Agreement:
    """The entity's gender and number as the subject (`x_…`) and as the object (`y_…`) of a query."""
    gender, number = entity_guesses(session, {entity_id: label}, language)[entity_id]
    return Agreement(x_gender=gender, x_number=number, y_gender=gender, y_number=number)


def query_agreement(subject: Guess, obj: Guess) -> Agreement:
    """The Agreement of one query: its subject's (gender, number) as X, its object's as Y."""
    return Agreement(x_gender=subject[0], x_number=subject[1], y_gender=obj[0], y_number=obj[1])

"""Annotated templates: X-FACTR's gender/number alternatives and agreeing articles (paper §3.3).

A template may hold, besides the `[X]` and `[Y]` placeholders, tokens that choose a form by what
the subject (`X`) or the object (`Y`) is:

- **alternatives** `[né;X-Gender=MASC|née;X-Gender=FEM]`: forms separated by `|`, each
  `form;ENTITY-FEATURE=VALUE` with ENTITY `X` or `Y`, FEATURE `Gender` (MASC, FEM, NEUT) or
  `Number` (SG, PL). One token speaks of one entity; a value appears at most once in it; gender
  and number may be mixed (X-FACTR's Spanish `[representado;X-Gender=MASC|representada;
  X-Gender=FEM|representados;X-Number=PL]`).
- **articles** `[ART;X-Gender]` (indefinite) and `[DEF;X]` (definite): the article agreeing with
  the entity's gender, from a per-language table (`ARTICLES`; Spanish un/una, el/la as X-FACTR's
  `PromptES` writes them). A language without a table is refused.

Which form is chosen (`realise`): an entity's known number picks the alternative naming it;
otherwise its known gender picks the alternative naming that; otherwise — unknown gender or
number, or no alternative for it — the token's **first** form, X-FACTR's fallback (its prompts
put the masculine first). X-FACTR picks by position (options[0] masculine, [1] feminine, [2]
neuter); here by the label each form carries, which is the same on its prompts and stays right
when a reviewer writes the forms in another order.

A token naming `Gender` must give both a MASC and a FEM form (`[né;X-Gender=MASC|née;X-Gender=FEM]`,
with NEUT or Number forms beside them if wanted): with only one of them an entity of the other
gender would get a form that does not agree (`[ist;X-Gender=MASC|est;X-Number=PL]` would give a
woman "ist"). None of X-FACTR's prompts has such a token.

A template is checked whole: exactly one `[X]` and one `[Y]` (X-FACTR's Malagasy P31 "[Y] dia [Y] ."
has no subject and is refused), and no line break or other control character inside a token.

Refused, never filled wrongly (`check` raises `AnnotationError`): case inflection of an entity
(`[X.Nom]`, `[Y.Ess]`, `[Y.IN+ESS]`: X-FACTR used the unimorph_inflect model), articles and
prepositions chosen from language resources this project has not got (`[DEF;X]` outside the
table's languages, `[PREPLOC;Y]`, `[PREPDEF-à;X]`, `[ARTDEF;Y]`), and any malformed token.

Pure functions over strings: no database, no I/O. `plain` is the form a template takes where
only `[X]`/`[Y]` may appear (mParaRel's `pattern` field): every token at its first form.
`accepts` is THE rule of what counts as annotated where a template is read as data (a release
line, a version, the probe's fill, the export): a text the parser accepts; anything else — an
MT line with a stray bracket such as "[X] fan x] is [Y]." kept as published — is plain text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from curator.core.errors import N_, InputError

ENTITIES = ("X", "Y")
GENDERS = ("MASC", "FEM", "NEUT")
NUMBERS = ("SG", "PL")
VALUES = {"Gender": GENDERS, "Number": NUMBERS}

# The articles agreeing with an entity's gender, per language and article kind: the first entry
# is the fallback for an unknown (or neuter) gender, as in X-FACTR's PromptES (`else: art = 'un'`
# — its DEF fallback is also 'un', which reads as a slip; here a definite article stays definite).
ARTICLES: dict[str, dict[str, dict[str, str]]] = {
    "es": {
        "ART": {"MASC": "un", "FEM": "una"},
        "DEF": {"MASC": "el", "FEM": "la"},
    },
}

_TOKEN = re.compile(r"\[([^\[\]]*)\]")
_ALTERNATIVE = re.compile(
    r"^(?P<form>[^;=|\x00-\x1f\x7f]+);(?P<entity>[A-Z])-(?P<feature>[A-Za-z]+)=(?P<value>[A-Za-z]+)\Z"
)
_ARTICLE = re.compile(r"^(?P<kind>ART|DEF);(?P<entity>[XY])(?:-Gender)?\Z")
_CASE = re.compile(r"^[XY]\.\S+\Z")
_RESOURCE = re.compile(r"^[A-Z][A-Za-z.\-à]*;[XY](?:[.\-]\S*)?\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class AnnotationError(InputError):
    """A malformed or unsupported annotation; `str(e)` is one line naming the token. A catalogue
    message (`msgid`, `params`): the web layer says it in the reviewer's language. An InputError,
    so a ValueError too."""

    def __init__(self, message: str, **params: str) -> None:
        # without params the message is taken as it is (a caller's own line may hold a "%")
        if not params:
            super().__init__(_one_line(message))
            return
        super().__init__(message, params={k: _one_line(v) for k, v in params.items()})


def _one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")


@dataclass(frozen=True)
class Agreement:
    """What a query's entities are, for choosing forms; None = unknown (the first form)."""

    x_gender: str | None = None  # "MASC" | "FEM" | "NEUT"
    x_number: str | None = None  # "SG" | "PL"
    y_gender: str | None = None
    y_number: str | None = None

    def value(self, entity: str, feature: str) -> str | None:
        """The entity's value of a feature: `value("X", "Gender")` is `x_gender`."""
        if entity == "X":
            return self.x_gender if feature == "Gender" else self.x_number
        return self.y_gender if feature == "Gender" else self.y_number


@dataclass(frozen=True)
class Alternative:
    form: str
    entity: str  # "X" | "Y"
    feature: str  # "Gender" | "Number"
    value: str

    @property
    def label(self) -> str:
        return f"{self.entity}-{self.feature}={self.value}"


@dataclass(frozen=True)
class Article:
    kind: str  # "ART" (indefinite) | "DEF" (definite)
    entity: str


Part = str | Article | tuple[Alternative, ...]


def _base(language: str) -> str:
    return re.split(r"[-_]", language.strip(), maxsplit=1)[0].lower()


def _language_of_articles(token: str, kind: str, language: str) -> dict[str, str]:
    table = ARTICLES.get(_base(language), {}).get(kind)
    if table is None:
        raise AnnotationError(
            N_(
                "%(token)s: needs language resources not available here: no %(kind)s article table for "
                "%(language)s (articles agreeing with an entity exist for: %(have)s)"
            ),
            token=token,
            kind=kind,
            language=repr(language),
            have=", ".join(sorted(ARTICLES)),
        )
    return table


def _alternative(token: str, piece: str) -> Alternative:
    match = _ALTERNATIVE.match(piece)
    if match is None:
        raise AnnotationError(
            N_(
                "%(token)s: %(piece)s is not 'form;X-Gender=VALUE' "
                "(a form, ';', X or Y, '-Gender' or '-Number', '=', a value)"
            ),
            token=token,
            piece=repr(piece),
        )
    entity, feature, value = match["entity"], match["feature"], match["value"]
    if entity not in ENTITIES:
        raise AnnotationError(N_("%(token)s: %(entity)s is not an entity (X or Y)"), token=token, entity=repr(entity))
    if feature not in VALUES:
        raise AnnotationError(
            N_("%(token)s: %(feature)s is not a feature (Gender or Number)"), token=token, feature=repr(feature)
        )
    if value not in VALUES[feature]:
        raise AnnotationError(
            N_("%(token)s: %(value)s is not a %(feature)s (%(values)s)"),
            token=token,
            value=repr(value),
            feature=feature,
            values=", ".join(VALUES[feature]),
        )
    return Alternative(match["form"].strip(), entity, feature, value)


def _alternatives(token: str, body: str) -> tuple[Alternative, ...]:
    pieces = [piece.strip() for piece in body.split("|")]
    if len(pieces) < 2:
        raise AnnotationError(N_("%(token)s: alternatives need at least two forms separated by '|'"), token=token)
    found = [_alternative(token, piece) for piece in pieces]
    if len({a.entity for a in found}) > 1:
        raise AnnotationError(N_("%(token)s: one token chooses by one entity, X or Y, not both"), token=token)
    labels = [a.label for a in found]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise AnnotationError(N_("%(token)s: %(label)s is given twice"), token=token, label=repeated[0])
    genders = {a.value for a in found if a.feature == "Gender"}
    if genders and not {"MASC", "FEM"} <= genders:
        raise AnnotationError(
            N_(
                "%(token)s: a token that chooses by gender gives both a MASC and a FEM form "
                "(an entity of the other gender would get a form that does not agree)"
            ),
            token=token,
        )
    return tuple(found)


def _part(token: str, body: str, language: str) -> Part:
    """One bracketed token parsed, or AnnotationError saying why it cannot be filled."""
    if body in ENTITIES:
        return token
    if _CONTROL.search(body):
        raise AnnotationError(N_("%(token)s: a line break or other control character inside a token"), token=token)
    if "|" in body or "=" in body:
        return _alternatives(token, body)
    article = _ARTICLE.match(body)
    if article is not None:
        _language_of_articles(token, article["kind"], language)
        return Article(article["kind"], article["entity"])
    if _CASE.match(body):
        raise AnnotationError(
            N_(
                "%(token)s: inflecting an entity for case needs an inflection model (X-FACTR used "
                "unimorph_inflect), not available here; write the entity as [X] or [Y]"
            ),
            token=token,
        )
    if _RESOURCE.match(body):
        raise AnnotationError(
            N_(
                "%(token)s: choosing this article or preposition from the entity needs language resources "
                "not available here for %(language)s; write the words out, with gender alternatives where "
                "they agree"
            ),
            token=token,
            language=repr(language),
        )
    raise AnnotationError(
        N_(
            "%(token)s: not an annotation this project can fill (supported: [X], [Y], "
            "[form;X-Gender=MASC|form;X-Gender=FEM], [ART;X-Gender])"
        ),
        token=token,
    )


@lru_cache(maxsize=4096)
def _parts(template: str, language: str) -> tuple[Part, ...]:
    """The template parsed (cached: the probe realises each template once per query)."""
    parts: list[Part] = []
    position = 0
    for match in _TOKEN.finditer(template):
        parts.extend(_text(template[position : match.start()], template, position))
        parts.append(_part(match[0], match[1], language))
        position = match.end()
    parts.extend(_text(template[position:], template, position))
    for slot in ENTITIES:
        count = parts.count(f"[{slot}]")
        if count != 1:
            raise AnnotationError(
                N_("%(slot)s: a template holds it exactly once; this one holds it %(count)s times"),
                slot=f"[{slot}]",
                count=str(count),
            )
    return tuple(parts)


def _text(text: str, template: str, offset: int) -> list[Part]:
    for index, char in enumerate(text):
        if char in "[]":
            where = offset + index
            around = template[max(0, where - 10) : where + 10]
            raise AnnotationError(
                N_("unbalanced %(char)s at character %(position)s (…%(around)s…)"),
                char=repr(char),
                position=str(where + 1),
                around=around,
            )
    return [text] if text else []


def is_annotated(template: str) -> bool:
    """Whether the template holds any bracket but those of [X] and [Y]."""
    rest = template.replace("[X]", "").replace("[Y]", "")
    return "[" in rest or "]" in rest


def check(template: str, language: str) -> None:
    """Raise AnnotationError for a malformed or unsupported annotation of `language`, or a
    template without exactly one [X] and one [Y]."""
    _parts(template, language)


def accepts(template: str, language: str) -> bool:
    """Whether `template` is an annotated template the parser accepts: THE rule of what is
    annotated where a template is read as data — a release line, a version, the probe's fill,
    `curator queries`, the export. Anything else is plain text, filled as it is: a stray bracket
    left by machine translation ("[X] fan x] is [Y].") is no annotation."""
    if not is_annotated(template):
        return False
    try:
        _parts(template, language)
    except AnnotationError:
        return False
    return True


def _choose(alternatives: tuple[Alternative, ...], agreement: Agreement) -> str:
    entity = alternatives[0].entity
    for feature in ("Number", "Gender"):
        known = agreement.value(entity, feature)
        for alternative in alternatives:
            if alternative.feature == feature and alternative.value == known:
                return alternative.form
    return alternatives[0].form


def _article(article: Article, agreement: Agreement, language: str) -> str:
    table = _language_of_articles(f"[{article.kind};{article.entity}]", article.kind, language)
    gender = agreement.value(article.entity, "Gender")
    return table.get(gender or "", next(iter(table.values())))


def realise(template: str, agreement: Agreement, language: str) -> str:
    """The template with every annotation resolved for `agreement`; [X] and [Y] kept."""
    out: list[str] = []
    for part in _parts(template, language):
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, Article):
            out.append(_article(part, agreement, language))
        elif isinstance(part, tuple):
            out.append(_choose(part, agreement))
    return "".join(out)


def plain(template: str, language: str) -> str:
    """The template with only [X]/[Y] left: every annotation at its first form."""
    return realise(template, Agreement(), language)


HELP_SYNTAX = N_(
    "Besides [X] and [Y], a template may hold forms that agree with the subject or the object: "
    "[né;X-Gender=MASC|née;X-Gender=FEM] writes 'né' for a man and 'née' for a woman. Each form is "
    "followed by ';' and X-Gender or Y-Gender (=MASC, FEM or NEUT) or X-Number or Y-Number (=SG or PL); "
    "forms are separated by '|'. An entity of unknown gender gets the first form, so put the most "
    "common one first."
)
HELP_ARTICLES = N_(
    "Articles agreeing with an entity: [ART;X-Gender] gives %(indefinite)s, [DEF;X] gives %(definite)s "
    "(the same with Y)."
)
HELP_NO_ARTICLES = N_("There is no article table for this language: write articles out as alternatives.")
HELP_REFUSED = N_(
    "Case forms such as [X.Nom] and chosen prepositions such as [PREPLOC;Y] need tools this project "
    "has not got and are refused."
)


def syntax_help(language: str) -> list[tuple[str, dict[str, str]]]:
    """What a template of `language` may hold, for the live check: catalogue messages, (msgid,
    params) per sentence, for the web layer to say in the reviewer's language
    (`gettext(msgid, **params)`, joined by spaces)."""
    table = ARTICLES.get(_base(language), {})
    if "ART" in table and "DEF" in table:
        articles = (
            HELP_ARTICLES,
            {"indefinite": "/".join(table["ART"].values()), "definite": "/".join(table["DEF"].values())},
        )
    else:
        articles = (HELP_NO_ARTICLES, {})
    return [(HELP_SYNTAX, {}), articles, (HELP_REFUSED, {})]

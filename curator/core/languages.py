"""Language codes: the aliases SPEC §1 fixes, and display names and script direction."""

from __future__ import annotations

import re

from curator.core.errors import InputError

ALIASES = {"zh": "zh-hans", "zh-classical": "zh-hant"}
RTL = frozenset({"ar", "arz", "azb", "ckb", "dv", "fa", "he", "ps", "pnb", "sd", "ug", "ur", "yi"})
# languages whose script has no letter case (Arabic and Hebrew scripts, the Brahmic scripts, Thai,
# Chinese, Japanese, Korean, Ge'ez, Georgian as written today): no capital-letter hint or guideline
# for them. Latin, Cyrillic, Greek and Armenian have case; a language not listed is taken to have it.
CASELESS = RTL | frozenset(
    {
        "am", "as", "bn", "bo", "bpy", "dz", "gu", "hi", "ja", "ka", "km", "kn", "ko", "lo", "mai",
        "ml", "mr", "my", "ne", "new", "or", "pa", "sa", "si", "ta", "te", "th", "ti", "zh", "zh-hans",
        "zh-hant", "zh-yue", "yue", "wuu",
    }
)  # fmt: skip

NAMES = dict(
    af="Afrikaans",
    an="Aragonese",
    ar="Arabic",
    ast="Asturian",
    az="Azerbaijani",
    azb="South Azerbaijani",
    ba="Bashkir",
    bar="Bavarian",
    be="Belarusian",
    bg="Bulgarian",
    bn="Bengali",
    bpy="Bishnupriya",
    br="Breton",
    bs="Bosnian",
    ca="Catalan",
    ce="Chechen",
    ceb="Cebuano",
    cs="Czech",
    cv="Chuvash",
    cy="Welsh",
    da="Danish",
    de="German",
    el="Greek",
    en="English",
    es="Spanish",
    et="Estonian",
    eu="Basque",
    fa="Persian",
    fi="Finnish",
    fr="French",
    fy="Western Frisian",
    ga="Irish",
    gl="Galician",
    gu="Gujarati",
    he="Hebrew",
    hi="Hindi",
    hr="Croatian",
    ht="Haitian Creole",
    hu="Hungarian",
    hy="Armenian",
    id="Indonesian",
    io="Ido",
    is_="Icelandic",
    it="Italian",
    ja="Japanese",
    jv="Javanese",
    ka="Georgian",
    kk="Kazakh",
    kn="Kannada",
    ko="Korean",
    ky="Kyrgyz",
    la="Latin",
    lb="Luxembourgish",
    lmo="Lombard",
    lt="Lithuanian",
    lv="Latvian",
    mg="Malagasy",
    min="Minangkabau",
    mk="Macedonian",
    ml="Malayalam",
    mn="Mongolian",
    mr="Marathi",
    ms="Malay",
    my="Burmese",
    nds="Low German",
    ne="Nepali",
    new="Newari",
    nl="Dutch",
    nn="Norwegian Nynorsk",
    no="Norwegian",
    oc="Occitan",
    pa="Punjabi",
    pl="Polish",
    pms="Piedmontese",
    pnb="Western Punjabi",
    pt="Portuguese",
    ro="Romanian",
    ru="Russian",
    scn="Sicilian",
    sco="Scots",
    sh="Serbo-Croatian",
    sk="Slovak",
    sl="Slovenian",
    sq="Albanian",
    sr="Serbian",
    su="Sundanese",
    sv="Swedish",
    sw="Swahili",
    ta="Tamil",
    te="Telugu",
    tg="Tajik",
    th="Thai",
    tl="Tagalog",
    tr="Turkish",
    tt="Tatar",
    uk="Ukrainian",
    ur="Urdu",
    uz="Uzbek",
    vi="Vietnamese",
    vo="Volapük",
    war="Waray",
    yo="Yoruba",
    **{"zh-hans": "Chinese (Simplified)", "zh-hant": "Chinese (Traditional)"},
)
NAMES["is"] = NAMES.pop("is_")


def canonical(code: str) -> str:
    return ALIASES.get(code, code)


def name(code: str) -> str:
    return NAMES.get(code, code)


def has_case(code: str) -> bool:
    """Whether the language's script has capital and small letters (Latin, Cyrillic, Greek,
    Armenian…): the review screen's hints about capitals are only for these."""
    return code not in CASELESS and code.split("-")[0] not in CASELESS


def direction(code: str) -> str:
    return "rtl" if code.split("-")[0] in RTL else "ltr"


# A language code as the data uses them: ISO 639 `es`, `ast`, optionally with lower-case
# subtags (`zh-hans`, `zh-hant`, and the Wikipedia code `zh-classical` that the MT folders
# use). Every code in the real data and the published mParaRel matches; nothing that could
# be a path (`..`, `/`, `\`), a space or an upper-case variant of a stored code does.
CODE = re.compile(r"[a-z]{2,3}(-[a-z0-9]{2,12}){0,2}")


def check_code(code: object, where: str | None = None) -> str:
    """`code` when it is a well-formed language code, else an InputError naming `where` (a file,
    an option, a URL). Every entry point calls this before a code reaches a path or a query:
    folder names at import, CLI options, the review services."""
    if isinstance(code, str) and CODE.fullmatch(code):
        return code
    message = (
        f"{code!r} is not a language code (expected lower-case ISO 639 like 'es' or 'ast', "
        "optionally with subtags like 'zh-hans')"
    )
    raise InputError(message, location=where) if where else InputError(message)

"""Language codes: the aliases SPEC §1 fixes, and display names and script direction."""
from __future__ import annotations

ALIASES = {"zh": "zh-hans", "zh-classical": "zh-hant"}
RTL = frozenset({"ar", "arz", "azb", "ckb", "dv", "fa", "he", "ps", "pnb", "sd", "ug", "ur", "yi"})

NAMES = dict(
    af="Afrikaans", an="Aragonese", ar="Arabic", ast="Asturian", az="Azerbaijani",
    azb="South Azerbaijani", ba="Bashkir", bar="Bavarian", be="Belarusian", bg="Bulgarian",
    bn="Bengali", bpy="Bishnupriya", br="Breton", bs="Bosnian", ca="Catalan", ce="Chechen",
    ceb="Cebuano", cs="Czech", cv="Chuvash", cy="Welsh", da="Danish", de="German", el="Greek",
    en="English", es="Spanish", et="Estonian", eu="Basque", fa="Persian", fi="Finnish",
    fr="French", fy="Western Frisian", ga="Irish", gl="Galician", gu="Gujarati", he="Hebrew",
    hi="Hindi", hr="Croatian", ht="Haitian Creole", hu="Hungarian", hy="Armenian",
    id="Indonesian", io="Ido", is_="Icelandic", it="Italian", ja="Japanese", jv="Javanese",
    ka="Georgian", kk="Kazakh", kn="Kannada", ko="Korean", ky="Kyrgyz", la="Latin",
    lb="Luxembourgish", lmo="Lombard", lt="Lithuanian", lv="Latvian", mg="Malagasy",
    min="Minangkabau", mk="Macedonian", ml="Malayalam", mn="Mongolian", mr="Marathi",
    ms="Malay", my="Burmese", nds="Low German", ne="Nepali", new="Newari", nl="Dutch",
    nn="Norwegian Nynorsk", no="Norwegian", oc="Occitan", pa="Punjabi", pl="Polish",
    pms="Piedmontese", pnb="Western Punjabi", pt="Portuguese", ro="Romanian", ru="Russian",
    scn="Sicilian", sco="Scots", sh="Serbo-Croatian", sk="Slovak", sl="Slovenian",
    sq="Albanian", sr="Serbian", su="Sundanese", sv="Swedish", sw="Swahili", ta="Tamil",
    te="Telugu", tg="Tajik", th="Thai", tl="Tagalog", tr="Turkish", tt="Tatar",
    uk="Ukrainian", ur="Urdu", uz="Uzbek", vi="Vietnamese", vo="Volapük", war="Waray",
    yo="Yoruba", **{"zh-hans": "Chinese (Simplified)", "zh-hant": "Chinese (Traditional)"},
)
NAMES["is"] = NAMES.pop("is_")


def canonical(code: str) -> str:
    return ALIASES.get(code, code)


def name(code: str) -> str:
    return NAMES.get(code, code)


def direction(code: str) -> str:
    return "rtl" if code.split("-")[0] in RTL else "ltr"

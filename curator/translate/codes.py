"""Language codes: curator's (ISO 639-1 and mParaRel's, `zh-hans`/`zh-hant`) to each system's.

A code a table does not list is passed through unchanged, so a system's own code can
always be given directly (`--languages nob_Latn` for NLLB, say).
"""

from __future__ import annotations

from curator.core import languages

MICROSOFT = {
    "zh-hans": "zh-Hans",
    "zh-hant": "zh-Hant",
    "no": "nb",
    "sr": "sr-Cyrl",
    "mn": "mn-Cyrl",
    "tl": "fil",
    "sh": "sr-Latn",
}
GOOGLE = {"zh-hans": "zh-CN", "zh-hant": "zh-TW"}
DEEPL_TARGET = {"zh-hans": "ZH-HANS", "zh-hant": "ZH-HANT", "pt": "PT-BR", "en": "EN-US", "no": "NB"}
LIBRETRANSLATE = {"zh-hans": "zh-Hans", "zh-hant": "zh-Hant", "no": "nb"}
M2M100 = {"zh-hans": "zh", "zh-hant": "zh"}

# FLORES-200 codes (NLLB) for every language in the mParaRel data that NLLB covers.
NLLB = {
    "af": "afr_Latn",
    "ar": "arb_Arab",
    "ast": "ast_Latn",
    "az": "azj_Latn",
    "azb": "azb_Arab",
    "ba": "bak_Cyrl",
    "be": "bel_Cyrl",
    "bg": "bul_Cyrl",
    "bn": "ben_Beng",
    "bs": "bos_Latn",
    "ca": "cat_Latn",
    "ceb": "ceb_Latn",
    "cs": "ces_Latn",
    "cy": "cym_Latn",
    "da": "dan_Latn",
    "de": "deu_Latn",
    "el": "ell_Grek",
    "en": "eng_Latn",
    "es": "spa_Latn",
    "et": "est_Latn",
    "eu": "eus_Latn",
    "fa": "pes_Arab",
    "fi": "fin_Latn",
    "fr": "fra_Latn",
    "ga": "gle_Latn",
    "gl": "glg_Latn",
    "gu": "guj_Gujr",
    "he": "heb_Hebr",
    "hi": "hin_Deva",
    "hr": "hrv_Latn",
    "ht": "hat_Latn",
    "hu": "hun_Latn",
    "hy": "hye_Armn",
    "id": "ind_Latn",
    "is": "isl_Latn",
    "it": "ita_Latn",
    "ja": "jpn_Jpan",
    "jv": "jav_Latn",
    "ka": "kat_Geor",
    "kk": "kaz_Cyrl",
    "kn": "kan_Knda",
    "ko": "kor_Hang",
    "ky": "kir_Cyrl",
    "lb": "ltz_Latn",
    "lmo": "lmo_Latn",
    "lt": "lit_Latn",
    "lv": "lvs_Latn",
    "mg": "plt_Latn",
    "min": "min_Latn",
    "mk": "mkd_Cyrl",
    "ml": "mal_Mlym",
    "mn": "khk_Cyrl",
    "mr": "mar_Deva",
    "ms": "zsm_Latn",
    "my": "mya_Mymr",
    "ne": "npi_Deva",
    "nl": "nld_Latn",
    "nn": "nno_Latn",
    "no": "nob_Latn",
    "oc": "oci_Latn",
    "pa": "pan_Guru",
    "pl": "pol_Latn",
    "pt": "por_Latn",
    "ro": "ron_Latn",
    "ru": "rus_Cyrl",
    "scn": "scn_Latn",
    "sk": "slk_Latn",
    "sl": "slv_Latn",
    "sq": "als_Latn",
    "sr": "srp_Cyrl",
    "su": "sun_Latn",
    "sv": "swe_Latn",
    "sw": "swh_Latn",
    "ta": "tam_Taml",
    "te": "tel_Telu",
    "tg": "tgk_Cyrl",
    "th": "tha_Thai",
    "tl": "tgl_Latn",
    "tr": "tur_Latn",
    "tt": "tat_Cyrl",
    "uk": "ukr_Cyrl",
    "ur": "urd_Arab",
    "uz": "uzn_Latn",
    "vi": "vie_Latn",
    "war": "war_Latn",
    "yo": "yor_Latn",
    "zh-hans": "zho_Hans",
    "zh-hant": "zho_Hant",
}
# mParaRel languages NLLB-200 does not cover (checked by the tests against the data folders)
NOT_IN_NLLB = frozenset(
    {"an", "bar", "bpy", "br", "ce", "cv", "fy", "io", "la", "nds", "new", "pms", "pnb", "sco", "sh", "vo"}
)

MBART50 = {
    "ar": "ar_AR",
    "cs": "cs_CZ",
    "de": "de_DE",
    "en": "en_XX",
    "es": "es_XX",
    "et": "et_EE",
    "fi": "fi_FI",
    "fr": "fr_XX",
    "gu": "gu_IN",
    "hi": "hi_IN",
    "it": "it_IT",
    "ja": "ja_XX",
    "kk": "kk_KZ",
    "ko": "ko_KR",
    "lt": "lt_LT",
    "lv": "lv_LV",
    "my": "my_MM",
    "ne": "ne_NP",
    "nl": "nl_XX",
    "ro": "ro_RO",
    "ru": "ru_RU",
    "si": "si_LK",
    "tr": "tr_TR",
    "vi": "vi_VN",
    "zh-hans": "zh_CN",
    "zh-hant": "zh_CN",
    "af": "af_ZA",
    "az": "az_AZ",
    "bn": "bn_IN",
    "fa": "fa_IR",
    "he": "he_IL",
    "hr": "hr_HR",
    "id": "id_ID",
    "ka": "ka_GE",
    "km": "km_KH",
    "mk": "mk_MK",
    "ml": "ml_IN",
    "mn": "mn_MN",
    "mr": "mr_IN",
    "pl": "pl_PL",
    "ps": "ps_AF",
    "pt": "pt_XX",
    "sv": "sv_SE",
    "sw": "sw_KE",
    "ta": "ta_IN",
    "te": "te_IN",
    "th": "th_TH",
    "tl": "tl_XX",
    "uk": "uk_UA",
    "ur": "ur_PK",
    "xh": "xh_ZA",
    "gl": "gl_ES",
    "sl": "sl_SI",
}


def code_for(table: dict[str, str], language: str) -> str:
    """The system's code for a curator language code (aliases such as `zh` resolved first)."""
    canonical = languages.canonical(language)
    return table.get(canonical, canonical)


def marian_target_tokens(language: str) -> list[str]:
    """Spellings of the `>>xx<<` target token that multi-target OPUS-MT models may use, best first."""
    canonical = languages.canonical(language)
    flores = NLLB.get(canonical, "")
    iso3, _, script = flores.partition("_")
    names = [canonical, canonical.split("-")[0], iso3, flores]
    if iso3 == "zho":
        names[2:2] = [f"cmn_{script}", "cmn", "zho"]
    return [f">>{n}<<" for n in dict.fromkeys(names) if n]

"""LibreTranslate: POST /translate with a list of texts, format=html for protected slots; the key is optional."""

from __future__ import annotations

from curator.translate.backends.http import HttpTranslator
from curator.translate.codes import LIBRETRANSLATE, code_for
from curator.translate.protect import TagScheme


class LibreTranslateTranslator(HttpTranslator):
    name = "libretranslate"
    env = "LIBRETRANSLATE"
    default_url = "https://libretranslate.com"
    key_required = False  # self-hosted servers usually run without keys
    scheme = TagScheme()
    max_items = 25
    max_chars = 5_000  # servers set their own --char-limit; stay well below common settings
    PATH = "/translate"

    def _translate_batch(self, texts: list[str], source: str, target: str, markup: bool) -> list[str]:
        body = {
            "q": texts,
            "source": code_for(LIBRETRANSLATE, source),
            "target": code_for(LIBRETRANSLATE, target),
            "format": "html" if markup else "text",
        }
        if self.key:
            body["api_key"] = self.key
        answer = self.post(self.PATH, body)
        translated = answer.get("translatedText") if isinstance(answer, dict) else None
        if isinstance(translated, str) and len(texts) == 1:
            translated = [translated]  # servers without batch support answer one string
        if not isinstance(translated, list) or not all(isinstance(t, str) for t in translated):
            raise self.shape_error(self.PATH, answer)
        return translated

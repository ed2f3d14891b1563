"""Google Cloud Translation v2 (Basic): POST /language/translate/v2, format=html for protected slots."""

from __future__ import annotations

from curator.translate.backends.http import HttpTranslator
from curator.translate.codes import GOOGLE, code_for
from curator.translate.protect import TagScheme


class GoogleTranslator(HttpTranslator):
    name = "google"
    env = "GOOGLE"
    default_url = "https://translation.googleapis.com"
    scheme = TagScheme()  # translate="no" / class="notranslate" are honoured with format=html
    max_items = 128  # text segments per request
    max_chars = 30_000
    PATH = "/language/translate/v2"

    def _translate_batch(self, texts: list[str], source: str, target: str, markup: bool) -> list[str]:
        body = {
            "q": texts,
            "source": code_for(GOOGLE, source),
            "target": code_for(GOOGLE, target),
            "format": "html" if markup else "text",
        }
        answer = self.post(self.PATH, body, params={"key": self.key or ""})
        try:
            return [item["translatedText"] for item in answer["data"]["translations"]]
        except (KeyError, TypeError):
            raise self.shape_error(self.PATH, answer) from None

"""DeepL API v2: POST /v2/translate, XML tag handling with the slot element in `ignore_tags`."""

from __future__ import annotations

from curator.translate.backends.http import HttpTranslator
from curator.translate.codes import DEEPL_TARGET, code_for
from curator.translate.protect import TagScheme


class DeepLTranslator(HttpTranslator):
    name = "deepl"
    env = "DEEPL"
    scheme = TagScheme(tag="x", attrs="")
    max_items = 50  # texts per request
    max_chars = 100_000  # the request body may not exceed 128 KiB
    PATH = "/v2/translate"

    def base_url(self) -> str:
        # keys of the free plan end in ":fx" and work only on the free endpoint
        return "https://api-free.deepl.com" if (self.key or "").endswith(":fx") else "https://api.deepl.com"

    def _translate_batch(self, texts: list[str], source: str, target: str, markup: bool) -> list[str]:
        body = {
            "text": texts,
            "source_lang": code_for({}, source).split("-")[0].upper(),
            "target_lang": code_for(DEEPL_TARGET, target).upper(),
        }
        if markup:
            body.update(tag_handling="xml", ignore_tags=[self.scheme.tag])
        answer = self.post(self.PATH, body, headers={"Authorization": f"DeepL-Auth-Key {self.key}"})
        try:
            return [item["text"] for item in answer["translations"]]
        except (KeyError, TypeError):
            raise self.shape_error(self.PATH, answer) from None

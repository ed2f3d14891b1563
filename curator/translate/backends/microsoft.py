"""Microsoft Translator (Azure AI Translator) v3: POST /translate, HTML mode for protected slots."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from curator.translate.backends.http import HttpTranslator
from curator.translate.codes import MICROSOFT, code_for
from curator.translate.protect import TagScheme

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from curator.translate.backends.http import HttpOptions


class MicrosoftTranslator(HttpTranslator):
    name = "microsoft"
    env = "MICROSOFT"
    default_url = "https://api.cognitive.microsofttranslator.com"
    scheme = TagScheme()  # class="notranslate" is honoured with textType=html
    max_items = 1000  # array elements per request
    max_chars = 10_000  # characters per request (the documented limit is 10,000 to 50,000 by tier)
    PATH = "/translate"

    def __init__(self, region: str | None = None, **options: Unpack[HttpOptions]) -> None:
        super().__init__(**options)
        self.region = region or self.settings.env("MICROSOFT_REGION")

    def _translate_batch(self, texts: list[str], source: str, target: str, markup: bool) -> list[str]:
        headers = {"Ocp-Apim-Subscription-Key": self.key or "", "X-ClientTraceId": str(uuid.uuid4())}
        if self.region:
            headers["Ocp-Apim-Subscription-Region"] = self.region
        params = {
            "api-version": "3.0",
            "from": code_for(MICROSOFT, source),
            "to": code_for(MICROSOFT, target),
            "textType": "html" if markup else "plain",
        }
        answer = self.post(self.PATH, [{"Text": t} for t in texts], headers=headers, params=params)
        try:
            return [item["translations"][0]["text"] for item in answer]
        except (KeyError, IndexError, TypeError):
            raise self.shape_error(self.PATH, answer) from None

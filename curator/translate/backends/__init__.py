"""Translation backends by name: `microsoft`, `google`, `deepl`, `libretranslate`, `local:<model>`."""

from __future__ import annotations

from typing import Any

from curator.core.extras import require_extra
from curator.translate.backends.base import Translator
from curator.translate.backends.deepl import DeepLTranslator
from curator.translate.backends.google import GoogleTranslator
from curator.translate.backends.http import HttpTranslator
from curator.translate.backends.libretranslate import LibreTranslateTranslator
from curator.translate.backends.local import LocalTranslator, local_system_name
from curator.translate.backends.microsoft import MicrosoftTranslator
from curator.translate.errors import TranslationError

HTTP_BACKENDS: dict[str, type[HttpTranslator]] = {
    "microsoft": MicrosoftTranslator,
    "google": GoogleTranslator,
    "deepl": DeepLTranslator,
    "libretranslate": LibreTranslateTranslator,
}
HTTP_ONLY = {"key", "url", "rate", "retries", "timeout", "backoff", "session", "region"}
LOCAL_ONLY = {"device", "num_beams", "max_new_tokens", "dtype"}
SYSTEMS = (*HTTP_BACKENDS, "local:<model>")


def get_translator(system: str, **options: Any) -> Translator:
    """The backend for `system`. Options meant for the other kind of backend (an HTTP rate for
    a local model, a device for an API) are ignored, so one set of CLI options fits all;
    None means the backend's default. `name` overrides the stored system name."""
    options = {k: v for k, v in options.items() if v is not None}
    settings = options.pop("settings", None)  # keys and URLs of the HTTP APIs (default: the environment)
    if system.startswith("local:"):
        spec = system[len("local:") :].strip()
        if not spec:
            raise TranslationError(system, "give a model after 'local:', e.g. local:Helsinki-NLP/opus-mt-en-{tgt}")
        require_extra("translate", f"the local translation model {system}")
        return LocalTranslator(spec, **{k: v for k, v in options.items() if k not in HTTP_ONLY})
    cls = HTTP_BACKENDS.get(system)
    if cls is None:
        raise TranslationError(system, f"unknown translation system; choose one of {', '.join(SYSTEMS)}")
    name = options.pop("name", None)
    translator = cls(settings=settings, **{k: v for k, v in options.items() if k not in LOCAL_ONLY})
    if name:
        translator.name = name
    return translator


__all__ = [
    "DeepLTranslator",
    "GoogleTranslator",
    "HttpTranslator",
    "LibreTranslateTranslator",
    "LocalTranslator",
    "MicrosoftTranslator",
    "Translator",
    "get_translator",
    "local_system_name",
]

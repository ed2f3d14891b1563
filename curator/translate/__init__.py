"""Machine translation of the English ParaRel patterns into new languages (`curator translate`).

Backends share one interface (`Translator`); templates go through placeholder
protection with a segment-by-segment fallback (`translate_templates`); the runner writes
the MT-output layout and the ordinary ingest takes it from there.
"""

from curator.translate.backends import Translator, get_translator
from curator.translate.errors import TranslationError
from curator.translate.templates import TemplateTranslation, translate_templates, translate_templates_detailed

__all__ = [
    "TemplateTranslation",
    "TranslationError",
    "Translator",
    "get_translator",
    "translate_templates",
    "translate_templates_detailed",
]

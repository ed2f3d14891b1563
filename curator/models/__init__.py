"""Typed SQLAlchemy 2.0 models, one module per stage; import them all from here."""
from .base import Base
from .core import EnglishPattern, Language, Relation, SourceFile, TranslationSystem
from .ingest import LanguageCoverage, MlamaTemplate, RelationCoverage, Template, TranslationLine
from .quality import TemplateSignal
from .release import DatasetVersion, VersionPattern, VersionTuples
from .review import Assignment, AssignmentItem, Decision, Invite, Suggestion, User
from .tuples import Entity, EntityLabel, Tuple, TupleList

__all__ = [
    "Assignment", "AssignmentItem", "Decision", "Invite", "Suggestion", "User",
    "Base", "DatasetVersion", "EnglishPattern", "Entity", "EntityLabel", "Language",
    "LanguageCoverage", "MlamaTemplate", "Relation", "RelationCoverage", "SourceFile", "Template",
    "TemplateSignal", "TranslationLine", "TranslationSystem", "Tuple", "TupleList", "VersionPattern",
    "VersionTuples",
]

"""Typed SQLAlchemy 2.0 models, one module per stage; import them all from here."""

from curator.core.models.agreement import EntityClass, EntityGender
from curator.core.models.base import Base
from curator.core.models.core import (
    EnglishPattern,
    Language,
    ProjectSetting,
    Relation,
    SourceFile,
    TranslationSystem,
)
from curator.core.models.glossary import GlossaryTerm
from curator.core.models.ingest import (
    LanguageCoverage,
    MlamaTemplate,
    RelationCoverage,
    Template,
    TranslationLine,
    XfactrTemplate,
    first_english,
)
from curator.core.models.oversight import (
    ActivityEntry,
    LineDrop,
    PasswordReset,
    ProposalReview,
    ResetRequest,
    Resolution,
)
from curator.core.models.quality import TemplateSignal
from curator.core.models.release import DatasetVersion, VersionPattern, VersionTuples
from curator.core.models.review import (
    Assignment,
    AssignmentItem,
    Comment,
    ContextLanguage,
    Decision,
    Guideline,
    Invite,
    LoginSession,
    Mention,
    Suggestion,
    User,
)
from curator.core.models.tuples import Entity, EntityLabel, Tuple, TupleList

__all__ = [
    "ActivityEntry",
    "Assignment",
    "AssignmentItem",
    "Base",
    "Comment",
    "ContextLanguage",
    "DatasetVersion",
    "Decision",
    "EnglishPattern",
    "Entity",
    "EntityClass",
    "EntityGender",
    "EntityLabel",
    "GlossaryTerm",
    "Guideline",
    "Invite",
    "Language",
    "LanguageCoverage",
    "LineDrop",
    "LoginSession",
    "Mention",
    "MlamaTemplate",
    "PasswordReset",
    "ProjectSetting",
    "ProposalReview",
    "Relation",
    "RelationCoverage",
    "ResetRequest",
    "Resolution",
    "SourceFile",
    "Suggestion",
    "Template",
    "TemplateSignal",
    "TranslationLine",
    "TranslationSystem",
    "Tuple",
    "TupleList",
    "User",
    "VersionPattern",
    "VersionTuples",
    "XfactrTemplate",
    "first_english",
]

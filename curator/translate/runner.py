"""Translate the English ParaRel patterns into files of the MT-output layout, then ingest them.

Files are `<out>/<system>/<lang>/<REL>.jsonl`, one line per English pattern in ParaRel
order, exactly what `curator ingest translations` reads. Each is written to a temporary
name and renamed, so a file that exists is complete; a re-run skips complete files and a
failed relation is recorded and left for the next run while the others go on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from curator.core import languages as language_codes
from curator.core.errors import Conflict, NotFound
from curator.core.formats.atomic import atomic_write
from curator.core.formats.jsonl import count_records, dumps
from curator.core.models import EnglishPattern, TupleList
from curator.core.progress import progress_bar
from curator.ingest.placeholders import repair
from curator.translate.backends.base import Translator
from curator.translate.errors import TranslationError
from curator.translate.templates import translate_templates_detailed

SOURCE_LANGUAGE = "en"


@dataclass(frozen=True)
class EnglishRow:
    pattern: str
    lemma: str | None
    extended_lemma: str | None
    tense: str | None


@dataclass(frozen=True)
class Failure:
    language: str
    relation: str  # "*" when the whole language failed before any relation
    error: str


@dataclass
class RunSummary:
    system: str
    out: Path
    written: int = 0
    skipped: int = 0
    lines: int = 0
    fallbacks: int = 0
    failures: list[Failure] = field(default_factory=list)

    @property
    def failed(self) -> int:
        return len(self.failures)


def load_english(session: Session, relations: Iterable[str] | None = None) -> dict[str, list[EnglishRow]]:
    """English patterns per relation in ParaRel order; unknown relation ids are an error naming them."""
    english: dict[str, list[EnglishRow]] = {}
    for p in session.scalars(select(EnglishPattern).order_by(EnglishPattern.relation_id, EnglishPattern.position)):
        # ParaRel spells its slots right, but a pattern that needed a repair at ingest is sent repaired
        text = repair(p.pattern, SOURCE_LANGUAGE)[0]
        english.setdefault(p.relation_id, []).append(EnglishRow(text, p.lemma, p.extended_lemma, p.tense))
    if not english:
        raise Conflict("translate: no English ParaRel patterns in the database: run `curator ingest pararel`")
    if relations:
        wanted = list(dict.fromkeys(relations))
        unknown = [r for r in wanted if r not in english]
        if unknown:
            raise NotFound(f"translate: no English patterns for relation(s) {', '.join(unknown)}")
        english = {r: english[r] for r in wanted}
    return english


def output_path(out: Path, system: str, language: str, relation: str) -> Path:
    return out / system / language / f"{relation}.jsonl"


def is_complete(path: Path, expected: int) -> bool:
    """A file counts as done when it has one non-blank line per English pattern, by the line
    rules `curator ingest translations` reads it with (core/formats/jsonl)."""
    if not path.is_file():
        return False
    return count_records(path.read_bytes()) == expected


def translate_to_files(
    translator: Translator,
    english: dict[str, list[EnglishRow]],
    targets: Iterable[str],
    out: str | Path,
    echo: Callable[[str], None] = lambda _: None,
    progress: bool = False,
) -> RunSummary:
    """Translate every relation into every target language; failures are collected, not raised.
    `progress`: a bar per language on stderr (core/progress.py)."""
    out = Path(out)
    summary = RunSummary(translator.name, out)
    for raw in targets:
        language = language_codes.canonical(raw)
        todo = [
            rel
            for rel, rows in english.items()
            if not is_complete(output_path(out, translator.name, language, rel), len(rows))
        ]
        summary.skipped += len(english) - len(todo)
        if not todo:
            echo(f"{language}: all {len(english)} relations already translated")
            continue
        try:
            translator.prepare(SOURCE_LANGUAGE, language)
        except TranslationError as exc:
            summary.failures.append(Failure(language, "*", str(exc)))
            echo(f"{language}: failed: {exc}")
            continue
        for rel in progress_bar(todo, f"translate {language}", "relation", progress):
            rows = english[rel]
            try:
                results = translate_templates_detailed(translator, [r.pattern for r in rows], SOURCE_LANGUAGE, language)
                records = [
                    {"pattern": t.text, "lemma": r.lemma, "extended_lemma": r.extended_lemma, "tense": r.tense}
                    for r, t in zip(rows, results)
                ]
                atomic_write(output_path(out, translator.name, language, rel), dumps(records, ascii=False))
            except (TranslationError, OSError) as exc:
                summary.failures.append(Failure(language, rel, str(exc)))
                echo(f"{language}/{rel}: failed: {exc}")
                continue
            fallbacks = sum(t.fallback for t in results)
            summary.written += 1
            summary.lines += len(records)
            summary.fallbacks += fallbacks
            echo(f"{language}/{rel}: {len(records)} templates" + (f" ({fallbacks} by segments)" if fallbacks else ""))
    return summary


def languages_without_tuples(session: Session, codes: Iterable[str]) -> list[str]:
    """The languages among `codes` that have no tuples yet (they cannot become candidates' languages)."""
    have = set(session.scalars(select(TupleList.language).where(TupleList.current)))
    return [c for c in dict.fromkeys(language_codes.canonical(c) for c in codes) if c not in have]


def failure_table(failures: list[Failure]) -> list[str]:
    """The failures as an aligned text table: language, relation, error."""
    rows = [("language", "relation", "error")] + [(f.language, f.relation, " ".join(f.error.split())) for f in failures]
    width_lang = max(len(r[0]) for r in rows)
    width_rel = max(len(r[1]) for r in rows)
    return [f"{a:<{width_lang}}  {b:<{width_rel}}  {c}" for a, b, c in rows]

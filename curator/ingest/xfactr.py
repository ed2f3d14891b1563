"""Import X-FACTR's native-speaker prompts (`TREx_prompts.csv`) as candidate templates.

The file (X-FACTR, Jiang et al. 2020, `data/TREx_prompts.csv`) has one row per relation and one
column per language: `pid,relation,en,zh,fr,…`, each cell a prompt that may hold X-FACTR's
annotations (`[né;X-Gender=MASC|née;X-Gender=FEM]`, `[ART;X-Gender]`, `[X.Nom]`, `[PREPLOC;Y]` …).
Each cell is repaired, cleaned and checked as a typed template is (`clean.check` with
`annotations=True`; published data, so invisible characters are kept): a supported annotation is
kept whole, and the prompt is stored (`XfactrTemplate`) as a candidate of its own source,
"X-FACTR", which the curator rule profile adds to the voted candidates (`candidates.tally`).

A prompt the parser refuses (case inflection, prepositions chosen from language resources, a
malformed token) is never stored and never filled wrongly: it is counted and listed per language
with the parser's message, in the summary and in the import's `SourceFile` details; so is a prompt
that is not a valid template (no [Y], no words). Relations ParaRel has not got are skipped and
counted. The same file imported again changes nothing (its sha256 is recorded); a changed file
replaces every stored X-FACTR prompt. Errors name the file, the line and the field (column).
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from curator.core import annotated, languages
from curator.core.errors import Conflict, InputError
from curator.core.formats.layout import RELATION_ID
from curator.core.models import Relation, XfactrTemplate
from curator.core.text import unstorable_reason
from curator.ingest.candidates import XFACTR_SOURCE
from curator.ingest.clean import check
from curator.ingest.store import SourceRecord, ensure_languages, known_sources, record_sources, sha256

KIND = "xfactr"  # SourceFile.kind of the import
SOURCE = XFACTR_SOURCE  # the candidates' source name, beside the MT systems (Template.systems)
ID_COLUMN, NAME_COLUMN = "pid", "relation"


@dataclass(frozen=True)
class Refused:
    """A prompt not stored: its relation, the prompt as the file holds it, and why."""

    relation: str
    prompt: str
    reason: str


@dataclass
class XfactrSummary:
    stored: dict[str, int] = field(default_factory=dict)  # language -> prompts stored
    annotated: dict[str, int] = field(default_factory=dict)  # language -> stored prompts with annotations
    unsupported: dict[str, list[Refused]] = field(default_factory=dict)  # annotations refused by the parser
    invalid: dict[str, list[Refused]] = field(default_factory=dict)  # not a template ([X]/[Y], words)
    skipped_relations: list[str] = field(default_factory=list)  # rows of relations ParaRel has not got
    empty: int = 0  # cells without a prompt
    unchanged: bool = False  # the same file was imported before: nothing written

    @property
    def templates(self) -> int:
        return sum(self.stored.values())


def _header(rows: list[list[str]], where: str) -> dict[int, str]:
    """{column index: canonical language code} of the header's language columns."""
    if not rows:
        raise InputError("empty file: expected a header `pid,relation,<lang>,…`", location=where, line=1)
    header = [cell.strip() for cell in rows[0]]
    if header[:1] != [ID_COLUMN]:
        raise InputError(
            f"the first column must be {ID_COLUMN!r}", location=where, line=1, field=header[0] if header else None
        )
    columns: dict[int, str] = {}
    for index, name in enumerate(header[1:], start=1):
        if index == 1 and name == NAME_COLUMN:
            continue
        try:
            code = languages.canonical(languages.check_code(name))
        except InputError as exc:
            raise InputError(exc.message, location=where, line=1, field=name or f"column {index + 1}") from None
        if code in columns.values():
            raise InputError(f"language {code!r} has two columns", location=where, line=1, field=name)
        columns[index] = code
    if not columns:
        raise InputError("no language columns after `pid` and `relation`", location=where, line=1)
    return columns


def _read(data: bytes, where: str) -> list[tuple[int, list[str]]]:
    """(line number, cells) of every record; a multi-line cell counts from the record's first line."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start + 1})", location=where) from None
    reader = csv.reader(io.StringIO(text, newline=""))
    records: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for row in reader:
            records.append((start, row))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(f"not CSV: {exc}", location=where, line=reader.line_num) from None
    return records


def read_prompts(data: bytes, where: str, summary: XfactrSummary) -> dict[tuple[str, str], tuple[str, str]]:
    """{(language, relation): (cleaned template, raw prompt)} of the prompts that can be stored;
    refused ones, skipped relations and empty cells go into `summary`. Relations are not checked
    against the database here (`ingest_xfactr` does)."""
    records = _read(data, where)
    columns = _header([row for _, row in records[:1]], where)
    width = len(records[0][1])
    prompts: dict[tuple[str, str], tuple[str, str]] = {}
    seen: dict[str, int] = {}
    for line, row in records[1:]:
        if not any(cell.strip() for cell in row):
            continue  # a blank line
        if len(row) != width:
            raise InputError(f"{len(row)} fields, the header has {width}", location=where, line=line)
        relation = row[0].strip()
        if not RELATION_ID.match(relation):
            raise InputError(f"{relation!r} is not a relation id like P19", location=where, line=line, field=ID_COLUMN)
        if relation in seen:
            raise InputError(
                f"relation {relation} appears again (first on line {seen[relation]})", location=where, line=line
            )
        seen[relation] = line
        for index, lang in columns.items():
            prompt = row[index]
            unstorable = unstorable_reason(prompt)
            if unstorable:
                raise InputError(unstorable, location=where, line=line, field=records[0][1][index])
            _one(summary, prompts, lang, relation, prompt)
    return prompts


def _one(
    summary: XfactrSummary, prompts: dict[tuple[str, str], tuple[str, str]], lang: str, relation: str, prompt: str
) -> None:
    """One cell: stored in `prompts`, or counted (empty) or listed (refused) in `summary`."""
    if not prompt.strip():
        summary.empty += 1
        return
    outcome = check(prompt, lang, keep_invisible=True, annotations=True)
    if outcome.annotation_error:
        summary.unsupported.setdefault(lang, []).append(Refused(relation, prompt, outcome.reason or ""))
    elif outcome.cleaned is None:
        summary.invalid.setdefault(lang, []).append(Refused(relation, prompt, outcome.reason or ""))
    else:
        prompts[lang, relation] = (outcome.cleaned, prompt)


def ingest_xfactr(session: Session, path: str | Path) -> XfactrSummary:
    """Store X-FACTR's prompts of `path` (TREx_prompts.csv) as candidates of the source X-FACTR."""
    relations = set(session.scalars(select(Relation.id)))
    if not relations:
        raise Conflict("no ParaRel relations yet: run `curator ingest pararel` first")
    where = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), location=where) from None
    digest = sha256(data)
    summary = XfactrSummary()
    prompts = read_prompts(data, where, summary)
    skipped = sorted({rel for _, rel in prompts if rel not in relations})
    summary.skipped_relations = skipped
    kept = {key: value for key, value in prompts.items() if key[1] in relations}
    for (lang, _), (template, _) in sorted(kept.items()):
        summary.stored[lang] = summary.stored.get(lang, 0) + 1
        if annotated.is_annotated(template):
            summary.annotated[lang] = summary.annotated.get(lang, 0) + 1
    if known_sources(session, KIND).get("TREx_prompts") == digest:
        summary.unchanged = True
        return summary
    ensure_languages(session, {lang for lang, _ in kept})
    session.execute(delete(XfactrTemplate))
    session.add_all(
        XfactrTemplate(language=lang, relation_id=rel, template=template, raw=raw)
        for (lang, rel), (template, raw) in sorted(kept.items())
    )
    record = SourceRecord(key="TREx_prompts", location=where, sha256=digest, rows=len(kept))
    record["details"] = {
        "unsupported": _listing(summary.unsupported),
        "invalid": _listing(summary.invalid),
        "skipped_relations": skipped,
    }
    record_sources(session, KIND, [record])
    session.flush()
    return summary


def _listing(refused: dict[str, list[Refused]]) -> dict[str, list[dict[str, str]]]:
    grouped: dict[str, list[dict[str, str]]] = defaultdict(list)
    for lang in sorted(refused):
        grouped[lang] = [{"relation": r.relation, "prompt": r.prompt, "reason": r.reason} for r in refused[lang]]
    return dict(grouped)

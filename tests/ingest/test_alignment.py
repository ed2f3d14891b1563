"""Which English ParaRel pattern each translated line renders (curator.ingest.translations.align).

A file with as many lines as the English one is aligned line by line. A file that lost or
gained lines falls back to matching (lemma, extended_lemma, tense) as an ordered subsequence;
a line whose metadata matches no English pattern still to come is kept, unattached.
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import select

from curator.core.models import EnglishPattern, Template, TranslationLine
from tests.conftest import SEED

META = ("lemma", "extended_lemma", "tense")


def english(relation: str) -> list[dict]:
    path = SEED / "pararel" / "patterns" / f"{relation}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write(root: Path, relation: str, lines: list[tuple[str, dict]]) -> None:
    """A translation file: each line is (its text, the English line whose metadata it carries)."""
    path = root / "sys" / "es" / f"{relation}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "".join(
            json.dumps({"pattern": text, **{k: meta[k] for k in META}}, ensure_ascii=False) + "\n"
            for text, meta in lines
        ),
        encoding="utf-8",
    )


def attached(sessions, relation: str) -> list[tuple[str, str | None]]:
    """(translated line, the English pattern it was attached to) in file order."""
    with sessions() as s:
        return [
            tuple(row)
            for row in s.execute(
                select(TranslationLine.raw, EnglishPattern.pattern)
                .outerjoin(EnglishPattern, EnglishPattern.id == TranslationLine.english_pattern_id)
                .where(
                    TranslationLine.system == "sys",
                    TranslationLine.language == "es",
                    TranslationLine.relation_id == relation,
                )
                .order_by(TranslationLine.line_no)
            )
        ]


def test_translated_lines_are_attached_to_the_english_pattern_they_render(cli, sessions, tmp_path):
    cli("init")
    cli("ingest", "pararel", SEED / "pararel" / "patterns")
    p19, p36, p37, p30, p103 = (english(r) for r in ("P19", "P36", "P37", "P30", "P103"))
    # P19 lost its 2nd line ("is originally from", present); the 3rd differs from it only by tense
    write(
        tmp_path,
        "P19",
        [
            ("[X] nació en [Y].", p19[0]),
            ("[X] era originario de [Y].", p19[2]),
            ("[X] es nativo de [Y].", p19[3]),
            ("[X] procede de [Y].", p19[4]),
        ],
    )
    # P36 lost its 1st line, whose metadata three later lines share
    write(
        tmp_path,
        "P36",
        [
            ("La ciudad capital de [X] es [Y].", p36[1]),
            ("[Y] es la capital de [X].", p36[2]),
            ("La capital de [X] es [Y].", p36[3]),
            ("[Y], la capital de [X].", p36[4]),
        ],
    )
    # P37 gained a line with metadata no English pattern has
    stray = {"lemma": "speak", "extended_lemma": "speak-in", "tense": "present"}
    write(
        tmp_path,
        "P37",
        [
            ("El idioma oficial de [X] es [Y].", p37[0]),
            ("En [X] se habla [Y].", stray),
            ("[Y] es el idioma oficial de [X].", p37[1]),
            ("En [X], [Y] es el idioma oficial.", p37[2]),
            ("La ley de [X] declara [Y] idioma oficial.", p37[3]),
        ],
    )
    # P30 repeats its 1st line: the repeat matches nothing after the first, the rest still align
    write(
        tmp_path,
        "P30",
        [
            ("[X] está en [Y].", p30[0]),
            ("[X] se encuentra en [Y].", p30[0]),
            ("[X] está en el continente [Y].", p30[1]),
            ("[X] pertenece al continente [Y].", p30[2]),
            ("[X] es parte del continente [Y].", p30[3]),
        ],
    )
    # P103 has every line, two of them swapped: same count, so line by line whatever the metadata says
    write(
        tmp_path,
        "P103",
        [
            ("La lengua materna de [X] es [Y].", p103[1]),
            ("La lengua nativa de [X] es [Y].", p103[0]),
            ("[Y] es la lengua nativa de [X].", p103[2]),
            ("[Y] es la lengua materna de [X].", p103[3]),
        ],
    )
    cli("ingest", "translations", tmp_path)

    en = {rel: [e["pattern"] for e in english(rel)] for rel in ("P19", "P36", "P37", "P30", "P103")}
    assert attached(sessions, "P19") == [
        ("[X] nació en [Y].", en["P19"][0]),
        ("[X] era originario de [Y].", en["P19"][2]),
        ("[X] es nativo de [Y].", en["P19"][3]),
        ("[X] procede de [Y].", en["P19"][4]),
    ]
    assert attached(sessions, "P36") == [
        ("La ciudad capital de [X] es [Y].", en["P36"][1]),
        ("[Y] es la capital de [X].", en["P36"][2]),
        ("La capital de [X] es [Y].", en["P36"][3]),
        ("[Y], la capital de [X].", en["P36"][4]),
    ]
    assert attached(sessions, "P37") == [
        ("El idioma oficial de [X] es [Y].", en["P37"][0]),
        ("En [X] se habla [Y].", None),
        ("[Y] es el idioma oficial de [X].", en["P37"][1]),
        ("En [X], [Y] es el idioma oficial.", en["P37"][2]),
        ("La ley de [X] declara [Y] idioma oficial.", en["P37"][3]),
    ]
    assert attached(sessions, "P30") == [
        ("[X] está en [Y].", en["P30"][0]),
        ("[X] se encuentra en [Y].", None),
        ("[X] está en el continente [Y].", en["P30"][1]),
        ("[X] pertenece al continente [Y].", en["P30"][2]),
        ("[X] es parte del continente [Y].", en["P30"][3]),
    ]
    assert attached(sessions, "P103") == [
        ("La lengua materna de [X] es [Y].", en["P103"][0]),
        ("La lengua nativa de [X] es [Y].", en["P103"][1]),
        ("[Y] es la lengua nativa de [X].", en["P103"][2]),
        ("[Y] es la lengua materna de [X].", en["P103"][3]),
    ]

    # the alignment, not the line number, places a template: the 2nd line of P19 renders English line 3
    cli("ingest", "tuples", SEED / "tuples")
    cli("candidates", "build", "--min-votes", "1", "--min-templates", "1")
    with sessions() as s:
        positions = dict(
            s.execute(
                select(Template.text, Template.first_position).where(
                    Template.language == "es", Template.relation_id == "P19"
                )
            ).all()
        )
    assert positions == {
        "[X] nació en [Y]": 0,
        "[X] era originario de [Y]": 2,
        "[X] es nativo de [Y]": 3,
        "[X] procede de [Y]": 4,
    }

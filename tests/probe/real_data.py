"""Real mParaRel data in three scripts, and tiny models whose tokenizers were trained on it,
shared by the probe tests (built once per test session)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.plugins.real_data import need_shared

# Latin, Cyrillic, Hangul: Korean glues particles to the slot ("[Y]에서"), which is where
# tokenizing the pieces of a query apart goes wrong for byte-level BPE
LANGUAGES = ("es", "ru", "ko")
RELATIONS = ("P19", "P103", "P36")
_built: dict[str, Path] = {}


def templates(data: Path, language: str, relation: str) -> list[str]:
    """Google's machine translations of the ParaRel templates, cleaned like `curator ingest`."""
    from curator.ingest.clean import check

    path = data / "mpararel" / "translations" / "pararel_google" / language / f"{relation}.jsonl"
    raw = [json.loads(line)["pattern"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return list(dict.fromkeys(c.cleaned for c in (check(p, language) for p in raw) if c.valid))


def tuples(data: Path, language: str, relation: str) -> list[dict]:
    path = data / "mpararel" / "tuples" / language / f"{relation}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def release(tmp_path_factory) -> Path:
    """A release-layout folder (patterns/, tuples/) of LANGUAGES × RELATIONS from ../shared."""
    if "release" not in _built:
        data = need_shared()
        root = tmp_path_factory.mktemp("real-release")
        for lang in LANGUAGES:
            for rel in RELATIONS:
                for part, rows in (
                    ("patterns", [{"pattern": t} for t in templates(data, lang, rel)]),
                    ("tuples", tuples(data, lang, rel)),
                ):
                    path = root / part / lang / f"{rel}.jsonl"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        _built["release"] = root
    return _built["release"]


def model(tmp_path_factory, kind: str) -> Path:
    """A tiny model of `kind` with its tokenizer trained on the real release above."""
    from curator.probe.tiny import build_tiny

    if kind not in _built:
        corpus = release(tmp_path_factory)
        _built[kind] = build_tiny(tmp_path_factory.mktemp(f"real-{kind}"), kind, corpus, vocab_size=3000)
    return _built[kind]


def family_copy(path: Path, out: Path, tokenizer_class: str) -> Path:
    """The same tiny model with tokenizer_config.json naming the family's class, so that
    AutoTokenizer loads it the way it loads a real checkpoint: transformers 5's family classes
    rebuild the pipeline their own way (XLMRobertaTokenizer: WhitespaceSplit, then Metaspace,
    no normalizer) instead of taking tokenizer.json as written."""
    import shutil

    shutil.copytree(path, out)
    config = json.loads((out / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["tokenizer_class"] = tokenizer_class
    (out / "tokenizer_config.json").write_text(json.dumps(config, ensure_ascii=False), encoding="utf-8")
    return out

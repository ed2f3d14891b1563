"""Many models, one command: run folder names (slugs) and plan files; `probe/jobs.py` runs the
jobs they make, one model after another.

`curator probe SRC --model A --model B --out DIR` writes one run per model, in
`DIR/<slug(A)>/` and `DIR/<slug(B)>/` (with one model, `DIR` itself is the run, as always).
`curator probe --plan plan.toml` reads models, releases, an output folder and the probe
options from a TOML file and writes one run per model × release, in
`<out>/<slug(release)>/<slug(model)>/`.

**Slugs.** `slug(name)` is the name's last two path components (split at `/` or `\\`, `.` and
`..` left out) joined by `--`, every run of characters other than ASCII letters, digits, `.`,
`_` and `-` replaced by `_`, leading `.`, `_` and `-` removed, at most 100 characters:
`xlm-roberta-base` → `xlm-roberta-base`, `google/mt5-base` → `google--mt5-base`,
`/models/xlmr/checkpoint-500` → `xlmr--checkpoint-500`, `out/v1` → `out--v1`. It depends only
on the text given, never on the disk, so the same command finds the same folders again and
resumes. Two names with one slug (or one name given twice) are an error that names both.

Models are loaded and run one at a time, model-major (a plan's model is loaded once for all
its releases), and each is freed (`del`, `gc.collect()`, `torch.cuda.empty_cache()` on CUDA)
before the next one loads. Every run resumes as a single run does: relations already done
are skipped by the runner's digest. torch is imported only when a model is loaded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from curator.core.enums import Attention, PllVariant, ScoreMode, values
from curator.core.errors import InputError
from curator.core.languages import check_code

if TYPE_CHECKING:
    pass

DEVICES = ("auto", "cpu", "cuda")
DTYPES = ("auto", "float32", "bfloat16", "float16")
SLUG_PARTS = 2
SLUG_LENGTH = 100
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")

# the [options] of a plan: the `curator probe` options of the same names, with their defaults
DEFAULTS: dict[str, Any] = {
    "device": "auto",
    "dtype": "auto",
    "batch_tokens": 8192,
    "final_punct": False,
    "score_mode": "log-prob",
    "pll_variant": "original",  # with score_mode "pll" only
    "keep_repeated_subjects": False,
    "languages": None,
    "relations": None,
    "attention": "auto",
    "compile": False,
    "kind": None,  # the scorer kind (masked, seq2seq, causal): None detects it from each model's config
    "decoding": None,
    "aliases": None,
}
TOP_KEYS = ("models", "releases", "out", "options")


def slug(name: str) -> str:
    """The folder name of a model or a release (module docstring): stable, filesystem safe, and a
    plain run name for the web app (a letter or digit first)."""
    parts = [p for p in re.split(r"[/\\]+", name.strip()) if p not in ("", ".", "..")]
    text = _UNSAFE.sub("_", "--".join(parts[-SLUG_PARTS:])).lstrip("._-")[:SLUG_LENGTH]
    return text or "unnamed"


def slugs(names: Iterable[str], what: str, where: str, field_name: str | None = None) -> dict[str, str]:
    """{name: slug}; an InputError naming both when two names (or one name twice) share a slug."""
    seen: dict[str, str] = {}
    out: dict[str, str] = {}
    for name in names:
        s = slug(name)
        if s in seen:
            other = seen[s]
            why = (
                f"{what} {name!r} is given twice"
                if other == name
                else f"{what}s {other!r} and {name!r} would both be written to the folder {s!r}"
            )
            raise InputError(why + "; give each a different name", location=where, field=field_name)
        seen[s] = name
        out[name] = s
    return out


@dataclass(frozen=True)
class Job:
    """One run: `model` (hub name or path, what is loaded and recorded) on `release` (a release
    folder or a version name) into the run folder `out`."""

    model: str
    release: str
    out: Path


@dataclass
class Plan:
    path: Path
    models: list[str]  # as loaded: a path beside the plan when one is there, else the text (a hub name)
    releases: list[str]  # a folder beside the plan when one is there, else the text (a version name)
    out: Path
    options: dict[str, Any] = field(default_factory=lambda: dict(DEFAULTS))
    model_slugs: list[str] = field(default_factory=list)
    release_slugs: list[str] = field(default_factory=list)

    def jobs(self) -> list[Job]:
        """Model-major: every release of a model before the next model, so each loads once."""
        return [
            Job(model, release, self.out / rs / ms)
            for model, ms in zip(self.models, self.model_slugs)
            for release, rs in zip(self.releases, self.release_slugs)
        ]


def model_jobs(src: str, models: list[str], out: str | Path) -> list[Job]:
    """`curator probe SRC --model … --out OUT`: one model writes OUT itself; several write
    OUT/<slug>/, and OUT must then not be a run folder itself."""
    from curator.core.formats.runs import is_run  # numpy: kept out of the CLI's start-up

    out = Path(out)
    if len(models) == 1:
        return [Job(models[0], src, out)]
    named = slugs(models, "model", "--model")
    if is_run(out):
        raise InputError("is the run folder of one model; give several models a folder of their own", location=str(out))
    return [Job(model, src, out / named[model]) for model in models]


# ---------------------------------------------------------------- plan files
def _strings(path: Path, key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError("expected a non-empty list of non-empty strings", location=str(path), field=key)
    return [v.strip() for v in value]


def _beside(base: Path, text: str, want_dir: bool) -> str:
    """A relative path is read from the plan's folder when it names something there; anything
    else (a hub name, a version name) is kept as written."""
    p = Path(text)
    if p.is_absolute():
        return text
    there = base / p
    return str(there) if (there.is_dir() if want_dir else there.exists()) else text


def _code_list(path: Path, key: str, value: Any, languages: bool) -> list[str] | None:
    if isinstance(value, str):
        value = [v for v in re.split(r"[,\s]+", value) if v]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError("expected a list of strings (or one comma-separated string)", location=str(path), field=key)
    if languages:
        for code in value:
            try:
                check_code(code)
            except InputError as exc:
                raise InputError(exc.message, location=str(path), field=key) from None
    return list(dict.fromkeys(value)) or None


def _option(path: Path, key: str, value: Any) -> Any:
    """One [options] value checked (and made a path or a list where the key takes one)."""
    where = f"options.{key}"
    choices = {
        "device": DEVICES,
        "dtype": DTYPES,
        "score_mode": values(ScoreMode),
        "attention": values(Attention),
        "pll_variant": values(PllVariant),
    }
    if key not in DEFAULTS:
        raise InputError(f"unknown option (known: {', '.join(DEFAULTS)})", location=str(path), field=where)
    if key in choices:
        if value not in choices[key]:
            raise InputError(
                f"expected one of {', '.join(choices[key])}, not {value!r}", location=str(path), field=where
            )
    elif key == "batch_tokens":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"expected a positive integer, not {value!r}", location=str(path), field=where)
    elif key in ("final_punct", "keep_repeated_subjects", "compile"):
        if not isinstance(value, bool):
            raise InputError(f"expected true or false, not {value!r}", location=str(path), field=where)
    elif key == "decoding":  # [options.decoding]: init, refine, max_masks, beam, length_norm, ...
        return _decoding(path, where, value)
    elif key in ("kind", "aliases"):
        return _named(path, key, value)
    else:
        return _code_list(path, where, value, key == "languages")
    return value


def _named(path: Path, key: str, value: Any) -> str:
    """`kind` (a scorer kind) or `aliases` (a file beside the plan): a non-empty string."""
    if not isinstance(value, str) or not value.strip():
        wanted = "a scorer kind (masked, seq2seq or causal)" if key == "kind" else "the path of an aliases file"
        raise InputError(f"expected {wanted}", location=str(path), field=f"options.{key}")
    return value if key == "kind" else _beside(path.parent, value, want_dir=False)


def _options(path: Path, table: Any) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise InputError("expected a table ([options])", location=str(path), field="options")
    options = dict(DEFAULTS)
    for key, value in table.items():
        options[key] = _option(path, key, value)
    if options["decoding"] is None and options["aliases"] is not None:
        raise InputError(
            "aliases only apply to decoding ([options.decoding])", location=str(path), field="options.aliases"
        )
    if "pll_variant" in table and options["score_mode"] != "pll":
        raise InputError(
            'pll_variant only applies with score_mode = "pll"', location=str(path), field="options.pll_variant"
        )
    if options["decoding"] is not None and "score_mode" in table:
        raise InputError(
            "score_mode ranks candidates, decoding predicts without them: give one of the two",
            location=str(path),
            field="options.score_mode",
        )
    return options


def _decoding(path: Path, where: str, table: Any) -> dict[str, Any]:
    """The decoding settings of a plan, checked as `curator probe --decode …` checks them."""
    from dataclasses import asdict, fields

    from curator.probe.decoding import DecodeOptions

    if not isinstance(table, dict):
        raise InputError("expected a table ([options.decoding])", location=str(path), field=where)
    known = [f.name for f in fields(DecodeOptions)]
    for key in table:
        if key not in known:
            raise InputError(
                f"unknown decoding setting (known: {', '.join(known)})", location=str(path), field=f"{where}.{key}"
            )
    for key, value in table.items():  # each setting alone first, so the error names its key
        try:
            DecodeOptions(**{key: value}).validate()
        except InputError as exc:
            raise InputError(exc.message, location=str(path), field=f"{where}.{key}") from None
    return asdict(DecodeOptions(**table))


def load_plan(path: str | Path) -> Plan:
    """The plan in a TOML file; an InputError naming the file and the key for anything wrong.

    ```toml
    models = ["bert-base-multilingual-cased", "xlm-roberta-base"]
    releases = ["out/v1", "v1-reviewed"]   # release folders or version names, as SRC
    out = "runs"                           # default "runs"; relative paths are read from the plan's folder
    [options]                              # as the options of `curator probe`, all optional
    device = "cuda"
    languages = ["es", "ar"]
    ```
    """
    import tomllib  # Python >= 3.11 (requires-python)

    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no such plan file", location=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot be read ({exc})", location=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", location=str(path)) from None
    for key in data:
        if key not in TOP_KEYS:
            raise InputError(f"unknown key (known: {', '.join(TOP_KEYS)})", location=str(path), field=key)
    for key in ("models", "releases"):
        if key not in data:
            raise InputError("missing: a plan names its models and its releases", location=str(path), field=key)
    base = path.parent
    models = _strings(path, "models", data["models"])
    releases = _strings(path, "releases", data["releases"])
    model_slugs = slugs(models, "model", str(path), "models")
    release_slugs = slugs(releases, "release", str(path), "releases")
    out = data.get("out", "runs")
    if not isinstance(out, str) or not out.strip():
        raise InputError("expected a folder name", location=str(path), field="out")
    return Plan(
        path,
        [_beside(base, m, want_dir=False) for m in models],
        [_beside(base, r, want_dir=True) for r in releases],
        base / out.strip(),
        _options(path, data.get("options", {})),
        [model_slugs[m] for m in models],
        [release_slugs[r] for r in releases],
    )

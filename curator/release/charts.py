"""Per-language bar charts of #phrases and #patterns, like figure 1 of the mParaRel paper.

matplotlib is imported when a chart is drawn, not with the module: the web app imports this for
its dashboard, and matplotlib's import (and its teardown at exit) cost every server start, worker
and stop a third of a second. Figures use the object API, not pyplot, whose global figure state
is not thread-safe (the web app draws in request threads).
"""

from __future__ import annotations

import io
from pathlib import Path

FORMATS = ("png", "svg")


def language_bars(patterns: dict[str, int], phrases: dict[str, int], fmt: str = "svg") -> bytes:
    """Two stacked bar charts, languages sorted by #phrases, as PNG or SVG bytes."""
    if fmt not in FORMATS:
        raise ValueError(f"chart format must be one of {', '.join(FORMATS)}")
    import matplotlib
    from matplotlib.figure import Figure

    languages = sorted(patterns, key=lambda code: (-phrases.get(code, 0), code))
    width = max(6.0, 0.22 * len(languages) + 1.5)
    matplotlib.rcParams["svg.hashsalt"] = "curator"  # same data, same SVG (the same value every time)
    fig = Figure(figsize=(width, 5.5), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True)
    x = range(len(languages))
    top.bar(x, [phrases.get(code, 0) for code in languages], color="#1f6feb")
    top.set_ylabel("#phrases")
    top.ticklabel_format(axis="y", style="sci", scilimits=(0, 3))
    bottom.bar(x, [patterns[code] for code in languages], color="#d4a72c")
    bottom.set_ylabel("#patterns")
    bottom.set_xticks(list(x), languages, rotation=90, fontsize=8)
    for ax in (top, bottom):
        ax.spines[["top", "right"]].set_visible(False)
        ax.margins(x=0.01)
    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    fig.savefig(buffer, format=fmt, metadata=metadata, dpi=110)
    return buffer.getvalue()


def write_chart(path: str | Path, patterns: dict[str, int], phrases: dict[str, int]) -> Path:
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    path.write_bytes(language_bars(patterns, phrases, fmt))
    return path

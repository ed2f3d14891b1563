"""Charts of a probe report: the main metrics per language (figure 2 of the mParaRel paper)
and the RankC heatmap between languages.

Figures are built with matplotlib's object API, not pyplot: the web app draws them in
request threads, and pyplot's global figure state is not thread-safe. matplotlib is imported
when a chart is drawn: the web app imports this module, and matplotlib's import (and teardown at
exit) cost every server start and stop a third of a second.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from curator.analysis.metrics import LABELS, MAIN

COLORS = {"consistency": "#1f6feb", "accuracy": "#d4a72c", "consistency_accuracy": "#1a7f37"}
ANNOTATE_MAX = 20  # languages up to which the heatmap prints its values


if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, metadata={"Software": None})  # same data, same bytes
    return buffer.getvalue()


def _value(x: float | None) -> float:
    return float("nan") if x is None else float(x)


def metric_bars(languages: Sequence[str], values: Mapping[str, Mapping[str, float | None]]) -> bytes:
    """Grouped bars of consistency, accuracy and consistency-accuracy per language, in the
    order given (the report passes them by consistency, descending, as the paper does)."""
    n = len(languages)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(max(6.0, 0.42 * n + 1.6), 3.8), layout="constrained")
    ax = fig.add_subplot()
    width = 0.8 / len(MAIN)
    for k, metric in enumerate(MAIN):
        xs = [i + (k - (len(MAIN) - 1) / 2) * width for i in range(n)]
        ax.bar(
            xs,
            [100 * _value(values[lang].get(metric)) for lang in languages],
            width,
            label=LABELS[metric],
            color=COLORS[metric],
        )
    ax.set_xticks(range(n), languages, rotation=90 if n > 12 else 0, fontsize=8 if n > 12 else 10)
    ax.set_ylim(0, 100)
    ax.set_ylabel("% (macro average over relations)")
    ax.set_xlim(-0.6, n - 0.4)
    ax.grid(axis="y", color="#e1e4e8", linewidth=0.8)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    fig.legend(loc="outside upper center", ncols=len(MAIN), frameon=False, fontsize=9)
    return _png(fig)


def rankc_heatmap(
    languages: Sequence[str], matrix: Sequence[Sequence[float | None]], accuracy: Mapping[str, float]
) -> bytes:
    """RankC between every pair of languages on a fixed 0–1 scale (comparable across runs);
    row labels carry each language's consensus accuracy, cells their value when few enough."""
    n = len(languages)
    data = [[_value(x) for x in row] for row in matrix]
    side = max(4.5, (0.5 if n <= ANNOTATE_MAX else 0.3) * n + 2.5)  # inches; cells need room only for values
    import matplotlib
    from matplotlib.figure import Figure

    fig = Figure(figsize=(side + 1.2, side), layout="constrained")
    ax = fig.add_subplot()
    cmap = matplotlib.colormaps["Blues"].with_extremes(bad="#eaeef2")
    image = ax.imshow(data, cmap=cmap, vmin=0.0, vmax=1.0)
    small = n > 12
    ax.set_xticks(range(n), languages, rotation=90, fontsize=8 if small else 10)
    rows = [f"{lang}  acc {100 * accuracy[lang]:.0f}%" if lang in accuracy else lang for lang in languages]
    ax.set_yticks(range(n), rows, fontsize=8 if small else 10)
    ax.tick_params(top=True, labeltop=True, bottom=False, labelbottom=False)
    if n <= ANNOTATE_MAX:
        size = 9 if n <= 8 else 7
        for i in range(n):
            for j in range(n):
                x = data[i][j]
                text = "–" if math.isnan(x) else f"{x:.2f}"
                ax.text(
                    j,
                    i,
                    text,
                    ha="center",
                    va="center",
                    fontsize=size,
                    color="white" if not math.isnan(x) and x > 0.6 else "#1d1d1f",
                )
    fig.colorbar(image, ax=ax, shrink=0.8, label="RankC")
    return _png(fig)

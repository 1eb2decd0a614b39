"""The course's own figures: the PU-index built point by point, and the two tests' power."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike

from pudd_core.plots._style import OKABE_ITO, WINDOW_COLOURS, new_figure

if TYPE_CHECKING:
    from pudd_core.views.course import PowerComparison

__all__ = ["power_figure", "pu_dots_figure"]


def pu_dots_figure(u: ArrayLike, correct: ArrayLike, *, shown: int, highlight: int | None = None,
                   bins: int = 10, title: str | None = None) -> go.Figure:
    """The first ``shown`` PU-index values as a histogram of stacked dots, one per prediction.

    Each prediction is a dot in its bin of width 1 / ``bins``, stacked in arrival order
    (correct filled, misclassified crossed); the newest dot, and ``highlight`` once shown, is
    ringed. The x axis is fixed to [0, 1] and the y axis to the full height, so adding a
    prediction adds one dot and moves nothing else.

    Examples
    --------
    >>> fig = pu_dots_figure([0.05, 0.08, 0.7], [True, True, False], shown=3)
    >>> [t.name for t in fig.data], list(fig.data[0].y), list(fig.data[1].y)
    (['correct', 'misclassified', 'newest'], [1, 2], [1])
    """
    vals = np.asarray(u, dtype=np.float64)
    ok = np.asarray(correct, dtype=bool)
    which = np.minimum((vals * bins).astype(np.int64), bins - 1)
    height = np.zeros(bins, dtype=np.int64)
    level = np.zeros(vals.size, dtype=np.int64)
    for i, b in enumerate(which.tolist()):
        height[b] += 1
        level[i] = height[b]
    x = (which + 0.5) / bins
    fig = new_figure(title=title, x_title="PU-index u = 1 − p(true class)",
                     y_title="Predictions in the bin", height=360)
    first = slice(0, shown)
    for name, mask, symbol, colour in (("correct", ok, "circle", WINDOW_COLOURS[0]),
                                       ("misclassified", ~ok, "x", WINDOW_COLOURS[1])):
        keep = mask[first]
        fig.add_trace(go.Scatter(
            x=x[first][keep].tolist(), y=level[first][keep].tolist(), mode="markers", name=name,
            marker={"symbol": symbol, "size": 14, "color": colour},
            customdata=(np.flatnonzero(keep) + 1).tolist(),
            hovertemplate="prediction %{customdata}<extra></extra>"))
    ringed = sorted({shown - 1, *([highlight] if highlight is not None and highlight < shown
                                   else [])} - {-1})
    fig.add_trace(go.Scatter(
        x=x[ringed].tolist(), y=level[ringed].tolist(), mode="markers", name="newest",
        showlegend=False,
        marker={"symbol": "circle-open", "size": 24, "color": OKABE_ITO["black"],
                "line": {"width": 2}}, hoverinfo="skip"))
    fig.add_vline(x=0.5, line={"color": OKABE_ITO["black"], "dash": "dash", "width": 1})
    fig.update_xaxes(range=[0, 1], dtick=1 / bins)
    fig.update_yaxes(range=[0, max(int(height.max()), 1) + 1], dtick=1)
    return fig


def power_figure(comparison: PowerComparison, *, title: str | None = None) -> go.Figure:
    """The two tests' power on a pure error-rate change, as two labelled bars.

    Examples
    --------
    >>> from pudd_core.views.course import power_comparison
    >>> fig = power_figure(power_comparison(1000, 0.1, 0.13, k=5))
    >>> list(fig.data[0].y)
    ['2 × 2 error-rate test (1 dof)', 'PUDD 2 × (K + 1), K = 5 (5 dof)']
    """
    c = comparison
    names = ["2 × 2 error-rate test (1 dof)", f"PUDD 2 × (K + 1), K = {c.k} ({c.k} dof)"]
    power = [c.power_2x2, c.power_pu]
    fig = new_figure(title=title, x_title=f"Power at α = {c.alpha:g} (chance to alarm)",
                     y_title="", height=220)
    fig.add_trace(go.Bar(x=power, y=names, orientation="h", showlegend=False,
                         marker={"color": [OKABE_ITO["vermillion"], OKABE_ITO["blue"]]},
                         text=[f"{p:.1%}" for p in power], textposition="outside",
                         cliponaxis=False))
    fig.update_xaxes(range=[0, 1.15], tickformat=".0%")
    fig.update_yaxes(autorange="reversed", automargin=True)
    return fig

"""The paper's illustrations: Theorem 1 and 2 verdicts and histograms, Fig. 1, p-value curves.

Used by the Theorem 2 and Fig. 1 pages.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from pudd_core.plots._style import (
    OKABE_ITO,
    THRESHOLD_STYLE,
    WINDOW_COLOURS,
    add_threshold,
    apply_layout,
    detector_colour,
    legend_below,
    log10_p,
    new_figure,
    p_text,
    threshold_proxy,
)

if TYPE_CHECKING:
    from pudd_core.views.illustration import Fig1Data

__all__ = [
    "fig1_scatter_figure",
    "pvalue_curve_figure",
    "theorem1_histogram_figure",
    "verdict_figure",
]


def verdict_figure(
    names: Sequence[str], p_values: Sequence[float], *, alpha: float, title: str | None = None
) -> go.Figure:
    """Evidence against "no change" of each test: bars of −log10 p against −log10 alpha.

    A NaN p-value is a test that did not run: no bar, and the label says so (a rule that
    decides without a test is no evidence, however strong its verdict).

    Examples
    --------
    >>> fig = verdict_figure(["PUDD", "Error-rate test"], [1e-12, 1.0], alpha=1e-5)
    >>> list(fig.data[0].y), list(fig.data[0].text)
    (['PUDD', 'Error-rate test'], ['p = 1.0e-12: drift', 'p = 1: no drift'])
    >>> list(verdict_figure(["PUDD"], [float("nan")], alpha=1e-5).data[0].text)
    ['no test ran']
    """
    p = np.asarray(p_values, dtype=np.float64)
    strength = np.nan_to_num(-log10_p(p), nan=0.0) + 0.0  # + 0.0 turns -0.0 into 0.0
    drift = p < alpha
    text = ["no test ran" if np.isnan(v) else f"{p_text(v)}: {'drift' if d else 'no drift'}"
            for v, d in zip(p.tolist(), drift.tolist(), strict=True)]
    fig = new_figure(title=title,
                     x_title="−log₁₀ p-value (longer bar = stronger evidence of change)",
                     y_title="", height=120 + 60 * len(names))
    fig.add_trace(go.Bar(
        x=strength, y=list(names), orientation="h", name="−log10 p",
        marker={"color": [detector_colour(n, i) for i, n in enumerate(names)],
                "pattern": {"shape": ["" if d else "x" for d in drift.tolist()]}},
        text=text, textposition="outside", cliponaxis=False, showlegend=False,
    ))
    fig.add_trace(threshold_proxy(alpha))
    fig.add_vline(x=-math.log10(alpha), line=dict(THRESHOLD_STYLE))
    fig.update_yaxes(autorange="reversed", showgrid=False, automargin=True)
    # room on the right for the labels of the longest bar
    top = max(float(np.nanmax(strength, initial=0.0)), -math.log10(alpha))
    fig.update_xaxes(range=[0, 1.4 * top + 0.5])
    fig.update_layout(margin={"l": 20})
    return fig


def theorem1_histogram_figure(
    edges: Sequence[float],
    hist1: Sequence[int],
    hist2: Sequence[int],
    *,
    names: tuple[str, str] = ("Window 1", "Window 2"),
    title: str | None = None,
) -> go.Figure:
    """Theorem 1's histograms as proportions: the correct bin, then the error bins.

    Two panels with their own scales: the correct bin B₀ (usually most of the window) on the
    left, the error bins B₁…Bₘ by PU-index on the right; one bar trace per window and panel.

    Examples
    --------
    >>> fig = theorem1_histogram_figure([0.5, 0.75, 1.0], [6, 3, 1], [12, 6, 2])
    >>> list(fig.data[1].x), list(fig.data[1].y) == list(fig.data[3].y)
    (['[0.50, 0.75)', '[0.75, 1.00]'], True)
    """
    e = list(edges)
    labels = [f"[{a:.2f}, {b:.2f}{']' if j == len(e) - 2 else ')'}"
              for j, (a, b) in enumerate(zip(e[:-1], e[1:], strict=True))]
    fig = make_subplots(rows=1, cols=2, column_widths=[0.22, 0.78], horizontal_spacing=0.1,
                        subplot_titles=("B₀: correct", "B₁…Bₘ: misclassified, by PU-index"))
    apply_layout(fig, title=title, height=440)
    legend_below(fig)
    for name, colour, h in zip(names, WINDOW_COLOURS, (hist1, hist2), strict=True):
        counts = np.asarray(h, dtype=np.float64)
        share = np.round(100.0 * counts / counts.sum(), 6)
        label = f"{name} (n = {int(counts.sum())})"
        for col, x, y, n in ((1, ["correct"], share[:1], counts[:1]),
                             (2, labels, share[1:], counts[1:])):
            fig.add_trace(go.Bar(
                x=x, y=y, name=label, legendgroup=name, showlegend=col == 1,
                marker={"color": colour}, customdata=n.astype(np.int64),
                hovertemplate="%{x}: %{y:.2f}% (%{customdata} instances)<extra></extra>",
            ), row=1, col=col)
    fig.update_layout(barmode="group")
    fig.update_yaxes(title_text="Share of window (%)", row=1, col=1)
    fig.update_xaxes(title_text="PU-index range of the error bin", row=1, col=2)
    return fig


def pvalue_curve_figure(
    x: Sequence[float],
    series: Mapping[str, Sequence[float]],
    *,
    alpha: float,
    x_title: str = "Test-set size n (points per set)",
    title: str | None = None,
) -> go.Figure:
    """log10 p of one or more tests against a growing quantity, with the threshold.

    Examples
    --------
    >>> fig = pvalue_curve_figure([1000, 2000], {"PUDD": [0.9, 0.01]}, alpha=0.05)
    >>> [t.name for t in fig.data], fig.layout.yaxis.title.text
    (['PUDD', 'threshold α = 5e-02'], 'log₁₀ p-value')
    """
    fig = new_figure(title=title, x_title=x_title, y_title="log₁₀ p-value", height=400)
    for i, (name, p) in enumerate(series.items()):
        fig.add_trace(go.Scatter(x=list(x), y=log10_p(p), mode="lines+markers", name=name,
                                 line={"color": detector_colour(name, i)}, marker={"size": 8}))
    add_threshold(fig, alpha)
    return fig


def fig1_scatter_figure(data: Fig1Data, *, title: str | None = None) -> go.Figure:
    """Fig. 1's two test sets with GNB's decision boundary and both concept lines.

    One panel per test set: points by true class, misclassified ones crossed, GNB's
    p(y = 1) = 0.5 boundary (a line, which every plotly.js bundle draws), the lines
    x0 + x1 = 9 (old) and 8.2 (new), and the band between them where the label flipped.

    Examples
    --------
    >>> from pudd_core.views.illustration import fig1_data
    >>> fig = fig1_scatter_figure(fig1_data(grid_size=11))
    >>> sorted({t.name for t in fig.data})[:3], len(fig.data)
    (['GNB boundary p(y=1) = 0.5', 'label flipped: 8.2 < x0 + x1 ≤ 9', 'misclassified'], 14)
    """
    old, new = data.thresholds
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
                        # two lines each: one line overlaps its neighbour's below ~1100 px
                        subplot_titles=(f"Test set 1: old concept<br>y = [x0 + x1 > {old:g}]",
                                        f"Test set 2: new concept<br>y = [x0 + x1 > {new:g}]"))
    apply_layout(fig, title=title, height=560)
    legend_below(fig)
    band_x = [0.0, new, old, 0.0] if old <= 10 else [0.0, new, 10.0, 0.0]
    for col, (x, y, ok) in enumerate(((data.x1, data.y1, data.correct1),
                                      (data.x2, data.y2, data.correct2)), start=1):
        first = col == 1
        fig.add_trace(go.Scatter(
            x=band_x, y=[new, 0.0, 0.0, old], fill="toself", mode="none",
            fillcolor="rgba(240, 228, 66, 0.35)", legendgroup="band",
            name=f"label flipped: {new:g} < x0 + x1 ≤ {old:g}", showlegend=first,
            hoverinfo="skip"), row=1, col=col)
        for cls, colour in ((0, OKABE_ITO["sky_blue"]), (1, OKABE_ITO["orange"])):
            pts = x[y == cls]
            fig.add_trace(go.Scatter(
                x=pts[:, 0], y=pts[:, 1], mode="markers", name=f"true class y = {cls}",
                legendgroup=f"class{cls}", showlegend=first,
                marker={"color": colour, "size": 5, "opacity": 0.7}), row=1, col=col)
        bad = x[~ok]
        fig.add_trace(go.Scatter(
            x=bad[:, 0], y=bad[:, 1], mode="markers", name="misclassified",
            legendgroup="bad", showlegend=first,
            marker={"symbol": "x-thin-open", "size": 9, "color": OKABE_ITO["black"],
                    "line": {"width": 2}}), row=1, col=col)
        fig.add_trace(go.Scatter(
            x=data.boundary[:, 0], y=data.boundary[:, 1], mode="lines",
            name="GNB boundary p(y=1) = 0.5", line={"color": OKABE_ITO["green"], "width": 3},
            showlegend=first, legendgroup="gnb", hoverinfo="skip"), row=1, col=col)
        for thr, dash, label in ((old, "solid", "old"), (new, "dash", "new")):
            fig.add_trace(go.Scatter(
                x=[max(0.0, thr - 10.0), min(10.0, thr)], y=[min(10.0, thr), max(0.0, thr - 10.0)],
                mode="lines", name=f"{label} concept x0 + x1 = {thr:g}", legendgroup=label,
                showlegend=first, line={"color": OKABE_ITO["purple"], "dash": dash, "width": 2}),
                row=1, col=col)
    fig.update_xaxes(title_text="Feature x0 (SEA, range 0–10)", range=[0, 10])
    fig.update_yaxes(title_text="Feature x1 (SEA, range 0–10)", range=[0, 10], row=1, col=1)
    return fig

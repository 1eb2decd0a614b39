"""Plotly figure builders for PUDD Lab: data in, ``go.Figure`` out, one look everywhere.

The template, the colour-blind-safe Okabe-Ito palette and the styles of true drifts, alarms,
thresholds and bucket edges are defined once here; every builder uses them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray
from plotly.subplots import make_subplots

if TYPE_CHECKING:
    import pandas as pd

    from pudd_core.illustration import Fig1Data

__all__ = [
    "ALARM_STYLE",
    "BUCKET_EDGE_STYLE",
    "DETECTOR_COLOURS",
    "OKABE_ITO",
    "PALETTE",
    "TEMPLATE",
    "THRESHOLD_STYLE",
    "TRUE_DRIFT_STYLE",
    "WINDOW_COLOURS",
    "contingency_table_frame",
    "cut_pvalue_figure",
    "detector_colour",
    "error_trace_figure",
    "fig1_scatter_figure",
    "p_text",
    "pu_histogram_figure",
    "pvalue_curve_figure",
    "theorem1_histogram_figure",
    "verdict_figure",
]

#: Okabe & Ito (2008), "Color Universal Design": distinguishable under common colour-blindness.
OKABE_ITO: Mapping[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
}
PALETTE: tuple[str, ...] = tuple(
    OKABE_ITO[c]
    for c in ("blue", "vermillion", "green", "orange", "sky_blue", "purple", "yellow", "black")
)
#: Reference (old) window / test set 1, then recent (new) window / test set 2.
WINDOW_COLOURS: tuple[str, str] = (OKABE_ITO["blue"], OKABE_ITO["vermillion"])
#: One colour per detector, so PUDD looks the same on every page.
DETECTOR_COLOURS: Mapping[str, str] = {
    "PUDD": OKABE_ITO["blue"],
    "DDM": OKABE_ITO["orange"],
    "Error-rate test": OKABE_ITO["vermillion"],
    "EDDM": OKABE_ITO["green"],
    "ADWIN": OKABE_ITO["sky_blue"],
    "KSWIN": OKABE_ITO["purple"],
}
#: A true drift is a grey band one chunk wide, so an alarm line on the same chunk stays visible.
TRUE_DRIFT_STYLE: Mapping[str, Any] = {"fillcolor": "rgba(0, 0, 0, 0.14)", "line": {"width": 0}}
ALARM_STYLE: Mapping[str, Any] = {"dash": "dot", "width": 2.0}  # colour: the detector's
THRESHOLD_STYLE: Mapping[str, Any] = {"color": OKABE_ITO["purple"], "dash": "dashdot", "width": 2.0}
BUCKET_EDGE_STYLE: Mapping[str, Any] = {"color": OKABE_ITO["green"], "dash": "dot", "width": 1.5}
P_FLOOR = 1e-300  # p-values below this (or exactly 0) are drawn at the floor

TEMPLATE = go.layout.Template(
    layout=go.Layout(
        colorway=list(PALETTE),
        font={"family": "Source Sans Pro, Arial, sans-serif", "size": 14, "color": "#262730"},
        paper_bgcolor="white",
        plot_bgcolor="white",
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0},
        hovermode="closest",
        xaxis={"showgrid": True, "gridcolor": "#E5E5E5", "zeroline": False, "linecolor": "#999",
               "showline": True, "ticks": "outside"},
        yaxis={"showgrid": True, "gridcolor": "#E5E5E5", "zeroline": False, "linecolor": "#999",
               "showline": True, "ticks": "outside"},
    )
)


def _figure(*, title: str | None, x_title: str, y_title: str, height: int = 420) -> go.Figure:
    fig = go.Figure()
    _layout(fig, title=title, height=height)
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=y_title)
    return fig


def _layout(fig: go.Figure, *, title: str | None, height: int) -> None:
    fig.update_layout(
        template=TEMPLATE,
        height=height,
        title={"text": title or "", "x": 0, "xanchor": "left", "y": 0.98, "yanchor": "top"},
        margin={"t": 90 if title else 60},
        legend={"y": 1.0 if title else 1.02},
    )


def _legend_below(fig: go.Figure) -> None:
    """Legend under the x-axis titles, for subplots whose titles take the top."""
    fig.update_layout(legend={"y": -0.22, "yanchor": "top"}, margin={"b": 120})


def _legend_proxy(name: str, line: Mapping[str, Any]) -> go.Scatter:
    """An empty line trace that puts a shape style (drift, alarm, edge) in the legend."""
    return go.Scatter(x=[None], y=[None], mode="lines", line=dict(line), name=name,
                      hoverinfo="skip")


def _log10_p(p_values: ArrayLike) -> NDArray[np.float64]:
    p = np.asarray(p_values, dtype=np.float64)
    return np.where(np.isnan(p), np.nan, np.log10(np.clip(p, P_FLOOR, 1.0)))


def _vline(fig: go.Figure, x: float, line: Mapping[str, Any], *, layer: str = "below") -> None:
    """A full-height vertical line (across every subplot row)."""
    fig.add_shape(type="line", x0=x, x1=x, xref="x", y0=0, y1=1, yref="paper",
                  line=dict(line), layer=layer)


def _drift_band(fig: go.Figure, chunk: float) -> None:
    """A true drift: the first chunk of the new concept, shaded over every subplot row."""
    fig.add_shape(type="rect", x0=chunk - 0.5, x1=chunk + 0.5, xref="x", y0=0, y1=1,
                  yref="paper", layer="below", **TRUE_DRIFT_STYLE)


def _threshold(fig: go.Figure, alpha: float, **where: Any) -> None:
    fig.add_hline(y=math.log10(alpha), line=dict(THRESHOLD_STYLE), **where)


def p_text(p: float) -> str:
    """A p-value for labels: 3 significant digits, scientific below 0.01, floored.

    Examples
    --------
    >>> p_text(1.0), p_text(0.9519), p_text(3.2e-8), p_text(0.0)
    ('p = 1', 'p = 0.952', 'p = 3.2e-08', 'p < 1e-300')
    """
    if not p >= P_FLOOR:
        return "p < 1e-300" if p == p else "p = n/a"
    return f"p = {p:.3g}" if p >= 0.01 else f"p = {p:.1e}"


def detector_colour(name: str, index: int = 0) -> str:
    """The colour of detector ``name`` (a palette colour by position for unknown names).

    Examples
    --------
    >>> detector_colour("PUDD"), detector_colour("HDDM-A", 2)
    ('#0072B2', '#009E73')
    """
    return DETECTOR_COLOURS.get(name, PALETTE[index % len(PALETTE)])


def error_trace_figure(
    chunk_index: ArrayLike,
    error_rate: ArrayLike,
    *,
    true_drifts: Sequence[int] = (),
    alarms: Mapping[str, Sequence[int]] | None = None,
    p_values: ArrayLike | None = None,
    alpha: float | None = None,
    title: str | None = None,
) -> go.Figure:
    """Per-chunk error rate with true drifts and each detector's alarms as vertical lines.

    With ``p_values`` a second row shows log10 p of the detector per chunk, with the
    threshold ``alpha``. Each alarm is one vertical line (and a marker on the error trace).

    Examples
    --------
    >>> fig = error_trace_figure([1, 2, 3, 4], [0.1, 0.1, 0.3, 0.2], true_drifts=[3],
    ...                          alarms={"PUDD": [3]}, p_values=[1, 0.5, 1e-6, 0.2], alpha=1e-3)
    >>> [t.name for t in fig.data]
    ['Error rate', 'True drift', 'PUDD alarm', 'PUDD log10 p', 'threshold α = 1e-03']
    >>> len(fig.layout.shapes)  # drift, alarm, threshold
    3
    """
    x = np.asarray(chunk_index, dtype=np.int64)
    err = 100.0 * np.asarray(error_rate, dtype=np.float64)
    if p_values is not None:
        fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.06,
                            row_heights=[0.55, 0.45])
        _layout(fig, title=title, height=560)
    else:
        fig = _figure(title=title, x_title="Chunk index", y_title="Error rate (%)")
    row = {"row": 1, "col": 1} if p_values is not None else {}
    fig.add_trace(go.Scatter(x=x, y=err, mode="lines+markers", name="Error rate",
                             line={"color": OKABE_ITO["black"], "width": 1.5},
                             marker={"size": 5}), **row)
    if len(true_drifts):
        for d in true_drifts:
            _drift_band(fig, d)
        fig.add_trace(go.Scatter(
            x=[None], y=[None], mode="markers", name="True drift", hoverinfo="skip",
            marker={"symbol": "square", "size": 14, "color": TRUE_DRIFT_STYLE["fillcolor"]},
        ), **row)
    by_chunk = dict(zip(x.tolist(), err.tolist(), strict=True))
    for i, (name, where) in enumerate((alarms or {}).items()):
        colour = detector_colour(name, i)
        for a in where:
            _vline(fig, a, {**ALARM_STYLE, "color": colour})
        fig.add_trace(go.Scatter(
            x=list(where), y=[by_chunk.get(int(a)) for a in where], mode="markers",
            name=f"{name} alarm", marker={"symbol": "triangle-down", "size": 12, "color": colour},
        ), **row)
    if p_values is not None:
        fig.add_trace(go.Scatter(x=x, y=_log10_p(p_values), mode="lines+markers",
                                 name="PUDD log10 p", line={"color": detector_colour("PUDD")},
                                 connectgaps=False), row=2, col=1)
        if alpha is not None:
            _threshold(fig, alpha, row=2, col=1)
            fig.add_trace(_legend_proxy(f"threshold α = {alpha:.0e}", THRESHOLD_STYLE),
                          row=2, col=1)
        fig.update_yaxes(title_text="Error rate (%)", row=1, col=1)
        fig.update_yaxes(title_text="log₁₀ p-value", row=2, col=1)
        fig.update_xaxes(title_text="Chunk index", row=2, col=1)
    return fig


def pu_histogram_figure(
    u_ref: ArrayLike,
    correct_ref: ArrayLike,
    u_new: ArrayLike,
    correct_new: ArrayLike,
    *,
    edges: ArrayLike = (),
    names: tuple[str, str] = ("Window 1", "Window 2"),
    bins: int = 50,
    title: str | None = None,
) -> go.Figure:
    """Overlaid PU-index histograms of two windows, correct and misclassified apart.

    Bars are the share of each window (%) so windows of different sizes compare;
    misclassified predictions are hatched. ``edges`` (PUDD's bucket edges) are dotted lines.

    Examples
    --------
    >>> fig = pu_histogram_figure([0.05, 0.7], [True, False], [0.15, 0.85], [True, False],
    ...                           edges=[0.1])
    >>> [t.name for t in fig.data]
    ['Window 1: correct', 'Window 1: misclassified', 'Window 2: correct',
     'Window 2: misclassified', 'PUDD bucket edges']
    >>> fig.layout.xaxis.title.text
    'PU-index u = 1 − p(true class)'
    """
    fig = _figure(title=title, x_title="PU-index u = 1 − p(true class)",
                  y_title="Share of window (%)")
    grid = np.linspace(0.0, 1.0, bins + 1)
    centres = (grid[:-1] + grid[1:]) / 2.0
    for name, colour, u, ok in ((names[0], WINDOW_COLOURS[0], u_ref, correct_ref),
                                (names[1], WINDOW_COLOURS[1], u_new, correct_new)):
        vals = np.asarray(u, dtype=np.float64)
        mask = np.asarray(ok, dtype=bool)
        total = max(vals.size, 1)
        for label, part, pattern in (("correct", vals[mask], ""),
                                     ("misclassified", vals[~mask], "/")):
            counts, _ = np.histogram(part, bins=grid)
            fig.add_trace(go.Bar(
                x=centres, y=100.0 * counts / total, width=1.0 / bins, name=f"{name}: {label}",
                marker={"color": colour, "pattern": {"shape": pattern}},
                opacity=0.55, hovertemplate="u ≈ %{x:.3f}: %{y:.1f}%<extra></extra>",
            ))
    edge_values = np.asarray(edges, dtype=np.float64).ravel().tolist()
    for e in edge_values:
        _vline(fig, e, BUCKET_EDGE_STYLE, layer="above")
    if edge_values:
        fig.add_trace(_legend_proxy("PUDD bucket edges", BUCKET_EDGE_STYLE))
    fig.update_layout(barmode="overlay", bargap=0)
    fig.update_xaxes(range=[0, 1])
    return fig


def cut_pvalue_figure(
    cuts: Sequence[int], p_values: Sequence[float], *, alpha: float, title: str | None = None
) -> go.Figure:
    """log10 p of every tested cut point (recent-window length in chunks), with ``alpha``.

    Examples
    --------
    >>> fig = cut_pvalue_figure([1, 2, 4], [0.3, 1e-4, 0.02], alpha=1e-3)
    >>> [t.name for t in fig.data], fig.layout.xaxis.title.text
    (['log10 p per cut', 'threshold α = 1e-03'], 'Cut point: recent window length (chunks)')
    """
    fig = _figure(title=title, x_title="Cut point: recent window length (chunks)",
                  y_title="log₁₀ p-value", height=360)
    fig.add_trace(go.Scatter(x=list(cuts), y=_log10_p(p_values), mode="lines+markers",
                             name="log10 p per cut", line={"color": detector_colour("PUDD")},
                             marker={"size": 9}))
    _threshold(fig, alpha)
    fig.add_trace(_legend_proxy(f"threshold α = {alpha:.0e}", THRESHOLD_STYLE))
    fig.update_xaxes(type="log", dtick=math.log10(2), tickformat="d")
    return fig


def contingency_table_frame(
    table: ArrayLike,
    expected: ArrayLike,
    *,
    column_labels: Sequence[str] | None = None,
    row_labels: tuple[str, str] = ("Window 1 (reference)", "Window 2 (recent)"),
) -> pd.DataFrame:
    """PUDD's 2 x (K + 1) table with its expected counts, one row each, for ``st.dataframe``.

    Examples
    --------
    >>> contingency_table_frame([[10, 20, 5], [20, 10, 5]], [[15, 15, 5], [15, 15, 5]])
                                   bucket 1  bucket 2  misclassified
    Window 1 (reference) observed      10.0      20.0            5.0
    Window 1 (reference) expected      15.0      15.0            5.0
    Window 2 (recent) observed         20.0      10.0            5.0
    Window 2 (recent) expected         15.0      15.0            5.0
    """
    import pandas as pd

    obs = np.asarray(table, dtype=np.float64)
    exp = np.asarray(expected, dtype=np.float64)
    if obs.shape != exp.shape or obs.ndim != 2 or obs.shape[0] != 2:
        raise ValueError(f"table and expected must both be 2 x (K+1), got {obs.shape}, {exp.shape}")
    k = obs.shape[1] - 1
    cols = list(column_labels) if column_labels is not None else [
        *(f"bucket {j + 1}" for j in range(k)), "misclassified"]
    if len(cols) != obs.shape[1]:
        raise ValueError(f"column_labels needs {obs.shape[1]} labels, got {len(cols)}")
    rows = {}
    for i, name in enumerate(row_labels):
        rows[f"{name} observed"] = obs[i]
        rows[f"{name} expected"] = np.round(exp[i], 1)
    return pd.DataFrame.from_dict(rows, orient="index", columns=cols)


def verdict_figure(
    names: Sequence[str], p_values: Sequence[float], *, alpha: float, title: str | None = None
) -> go.Figure:
    """Evidence against "no change" of each test: bars of −log10 p against −log10 alpha.

    Examples
    --------
    >>> fig = verdict_figure(["PUDD", "Error-rate test"], [1e-12, 1.0], alpha=1e-5)
    >>> list(fig.data[0].y), list(fig.data[0].text)
    (['PUDD', 'Error-rate test'], ['p = 1.0e-12: drift', 'p = 1: no drift'])
    """
    p = np.asarray(p_values, dtype=np.float64)
    strength = -_log10_p(p) + 0.0  # + 0.0 turns -0.0 into 0.0
    drift = p < alpha
    text = [f"{p_text(v)}: {'drift' if d else 'no drift'}"
            for v, d in zip(p.tolist(), drift.tolist(), strict=True)]
    fig = _figure(title=title, x_title="−log₁₀ p-value (longer bar = stronger evidence of change)",
                  y_title="", height=120 + 60 * len(names))
    fig.add_trace(go.Bar(
        x=strength, y=list(names), orientation="h", name="−log10 p",
        marker={"color": [detector_colour(n, i) for i, n in enumerate(names)],
                "pattern": {"shape": ["" if d else "x" for d in drift.tolist()]}},
        text=text, textposition="outside", cliponaxis=False, showlegend=False,
    ))
    fig.add_trace(_legend_proxy(f"threshold α = {alpha:.0e}", THRESHOLD_STYLE))
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
    _layout(fig, title=title, height=440)
    _legend_below(fig)
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
    fig = _figure(title=title, x_title=x_title, y_title="log₁₀ p-value", height=400)
    for i, (name, p) in enumerate(series.items()):
        fig.add_trace(go.Scatter(x=list(x), y=_log10_p(p), mode="lines+markers", name=name,
                                 line={"color": detector_colour(name, i)}, marker={"size": 8}))
    _threshold(fig, alpha)
    fig.add_trace(_legend_proxy(f"threshold α = {alpha:.0e}", THRESHOLD_STYLE))
    return fig


def fig1_scatter_figure(data: Fig1Data, *, title: str | None = None) -> go.Figure:
    """Fig. 1's two test sets with GNB's decision boundary and both concept lines.

    One panel per test set: points by true class, misclassified ones crossed, GNB's
    p(y = 1) = 0.5 contour, the lines x0 + x1 = 9 (old) and 8.2 (new), and the band between
    them where the label flipped.

    Examples
    --------
    >>> from pudd_core.illustration import fig1_data
    >>> fig = fig1_scatter_figure(fig1_data(grid_size=11))
    >>> sorted({t.name for t in fig.data})[:3], len(fig.data)
    (['GNB boundary p(y=1) = 0.5', 'label flipped: 8.2 < x0 + x1 ≤ 9', 'misclassified'], 14)
    """
    old, new = data.thresholds
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=(f"Test set 1: old concept, y = [x0 + x1 > {old:g}]",
                                        f"Test set 2: new concept, y = [x0 + x1 > {new:g}]"))
    _layout(fig, title=title, height=560)
    _legend_below(fig)
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
        fig.add_trace(go.Contour(
            x=data.grid_x0, y=data.grid_x1, z=data.grid_proba, name="GNB boundary p(y=1) = 0.5",
            contours={"start": 0.5, "end": 0.5, "size": 1.0, "coloring": "lines"},
            colorscale=[[0.0, OKABE_ITO["green"]], [1.0, OKABE_ITO["green"]]],
            line={"width": 3}, showscale=False, showlegend=first, legendgroup="gnb",
            hoverinfo="skip"), row=1, col=col)
        for thr, dash, label in ((old, "solid", "old"), (new, "dash", "new")):
            fig.add_trace(go.Scatter(
                x=[max(0.0, thr - 10.0), min(10.0, thr)], y=[min(10.0, thr), max(0.0, thr - 10.0)],
                mode="lines", name=f"{label} concept x0 + x1 = {thr:g}", legendgroup=label,
                showlegend=first, line={"color": OKABE_ITO["purple"], "dash": dash, "width": 2}),
                row=1, col=col)
    fig.update_xaxes(title_text="Feature x0 (SEA, range 0–10)", range=[0, 10])
    fig.update_yaxes(title_text="Feature x1 (SEA, range 0–10)", range=[0, 10], row=1, col=1)
    return fig

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
    from pudd_core.runner import WindowRecord

__all__ = [
    "ALARM_STYLE",
    "BUCKET_EDGE_STYLE",
    "DETECTOR_COLOURS",
    "NEGATIVE_COLOUR",
    "OKABE_ITO",
    "PALETTE",
    "POSITIVE_COLOUR",
    "TEMPLATE",
    "THRESHOLD_STYLE",
    "TRUE_DRIFT_STYLE",
    "WINDOW_COLOURS",
    "bonferroni_figure",
    "contingency_table_frame",
    "cut_pvalue_figure",
    "cut_scan_figure",
    "detector_colour",
    "detector_error_figure",
    "error_trace_figure",
    "false_alarm_figure",
    "fig1_scatter_figure",
    "interest_timeline_figure",
    "min_pvalue_figure",
    "p_text",
    "pu_histogram_figure",
    "pvalue_curve_figure",
    "reproduction_figure",
    "reproduction_frame",
    "run_summary_frame",
    "runs_figure",
    "sample_grid_figure",
    "theorem1_histogram_figure",
    "threshold_sweep_figure",
    "threshold_sweep_frame",
    "transition_matrix_figure",
    "verdict_figure",
    "window_histogram_figure",
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


# --- Stream explorer -----------------------------------------------------------------------------
# These builders run on every step of the explorer's player, so each makes its figure in one
# go (traces, shapes and layout validated once): incremental ``add_shape``/``update_layout``
# calls re-validate what is already there and cost 5-10 times more.

# the other baselines' colours, clear of the named ones (any detector may be beside any other)
_MORE_COLOURS = {"HDDM-A": OKABE_ITO["vermillion"], "HDDM-W": OKABE_ITO["black"],
                 "PH": OKABE_ITO["yellow"]}
_AXIS = {"showline": True, "linecolor": "#999", "gridcolor": "#E5E5E5"}


def _colour(name: str, index: int) -> str:
    return _MORE_COLOURS.get(name) or detector_colour(name, index)


def _one_go(traces: Sequence[Any], *, title: str | None, height: int,
            **layout: Any) -> go.Figure:
    """A figure in one construction: the theme, a left-aligned title and ``layout``."""
    base: dict[str, Any] = {
        "template": TEMPLATE, "height": height,
        "title": {"text": title or "", "x": 0, "xanchor": "left", "y": 0.98, "yanchor": "top"},
        "margin": {"l": 60, "r": 20, "t": 90 if title else 60, "b": 50},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0 if title else 1.02,
                   "xanchor": "left", "x": 0},
    }
    for key, value in layout.items():
        base[key] = {**base[key], **value} if isinstance(base.get(key), dict) else value
    return go.Figure(data=list(traces), layout=base)


def _vline_shape(x: float, line: Mapping[str, Any], layer: str = "below") -> dict[str, Any]:
    return {"type": "line", "x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "paper",
            "line": dict(line), "layer": layer}


def _band_shape(chunk: float) -> dict[str, Any]:
    return {"type": "rect", "x0": chunk - 0.5, "x1": chunk + 0.5, "xref": "x", "y0": 0, "y1": 1,
            "yref": "paper", "layer": "below", **TRUE_DRIFT_STYLE}


def _hline_shape(alpha: float) -> dict[str, Any]:
    y = math.log10(alpha)
    return {"type": "line", "x0": 0, "x1": 1, "xref": "x domain", "y0": y, "y1": y, "yref": "y",
            "line": dict(THRESHOLD_STYLE)}


def _threshold_proxy(alpha: float) -> go.Scatter:
    return _legend_proxy(f"threshold α = {alpha:.0e}", THRESHOLD_STYLE)


def _clipped_log10_p(
    p_values: ArrayLike, floor: float | None
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """log10 p drawn no lower than ``floor`` (the hover keeps the true p), and which were cut."""
    y = _log10_p(p_values)
    if floor is None:
        return y, np.zeros(y.shape, dtype=bool)
    low = np.nan_to_num(y, nan=0.0) < floor
    return np.where(low, floor, y), low


def _p_scatter(x: Sequence[int], p_values: Sequence[float], *, name: str, floor: float | None,
               size: int) -> go.Scatter:
    y, low = _clipped_log10_p(p_values, floor)
    return go.Scatter(
        x=list(x), y=y, mode="lines+markers", name=name, line={"color": detector_colour("PUDD")},
        marker={"size": size, "symbol": ["triangle-down" if c else "circle" for c in low]},
        text=[p_text(p) for p in p_values], hovertemplate="%{x}: %{text}<extra></extra>",
    )


def _p_axis(floor: float | None) -> dict[str, Any]:
    return {**_AXIS, "title": {"text": "log₁₀ p-value"},
            **({"range": [floor - 0.5, 0.5]} if floor is not None else {})}


def detector_error_figure(
    chunk_index: Sequence[int],
    error_rate: Mapping[str, Sequence[float]],
    *,
    alarms: Mapping[str, Sequence[int]],
    true_drifts: Sequence[int] = (),
    x_range: tuple[float, float] | None = None,
    y_max: float | None = None,
    title: str | None = None,
) -> go.Figure:
    """Each detector's model's error rate per chunk, and a lane of alarms per detector.

    Every detector adapts its own model, so each has its own error curve (the first, PUDD,
    drawn thickest and on top); its alarms are triangles in its lane under the curves and,
    for the first detector, dotted lines. ``x_range`` and ``y_max`` fix the axes while the
    data grow.

    Examples
    --------
    >>> fig = detector_error_figure([1, 2, 3], {"PUDD": [0.1, 0.3, 0.1], "DDM": [0.1, 0.3, 0.2]},
    ...                             alarms={"PUDD": [2], "DDM": []}, true_drifts=[2])
    >>> [t.name for t in fig.data]
    ['DDM error rate', 'PUDD error rate', 'True drift', 'PUDD alarm', 'DDM alarm']
    >>> fig.layout.yaxis2.categoryarray, len(fig.layout.shapes)  # lanes; drift band, alarm line
    (('DDM', 'PUDD'), 2)
    """
    names = list(error_rate)
    x = list(chunk_index)
    traces: list[Any] = []
    for i, name in reversed(list(enumerate(names))):  # the first drawn last, on top
        err = 100.0 * np.asarray(error_rate[name], dtype=np.float64)
        traces.append(go.Scatter(
            x=x, y=err, mode="lines+markers", name=f"{name} error rate", legendrank=i,
            line={"color": _colour(name, i), "width": 2.5 if i == 0 else 1.5},
            marker={"size": 4 if i == 0 else 3},
            customdata=100.0 - err,
            hovertemplate=f"{name}, chunk %{{x}}: error %{{y:.1f}}% "
                          "(accuracy %{customdata:.1f}%)<extra></extra>",
        ))
    shapes = [_band_shape(d) for d in true_drifts]
    if len(true_drifts):
        traces.append(go.Scatter(
            x=[None], y=[None], mode="markers", name="True drift", hoverinfo="skip",
            marker={"symbol": "square", "size": 14, "color": TRUE_DRIFT_STYLE["fillcolor"]},
        ))
    for i, name in enumerate(names):
        where = list(alarms.get(name, ()))
        colour = _colour(name, i)
        if i == 0:
            shapes += [_vline_shape(a, {**ALARM_STYLE, "color": colour}) for a in where]
        traces.append(go.Scatter(
            x=where, y=[name] * len(where), yaxis="y2", mode="markers", name=f"{name} alarm",
            marker={"symbol": "triangle-down", "size": 11, "color": colour},
            hovertemplate=f"{name} alarm at chunk %{{x}}<extra></extra>", showlegend=False,
        ))
    return _one_go(
        traces, title=title, height=470, shapes=shapes,
        xaxis={**_AXIS, "anchor": "y2", "title": {"text": "Chunk index"},
               **({"range": list(x_range)} if x_range is not None else {})},
        yaxis={**_AXIS, "domain": [0.3, 1.0], "title": {"text": "Error rate (%)"},
               **({"range": [0.0, 100.0 * y_max * 1.05]} if y_max is not None else {})},
        yaxis2={"domain": [0.0, 0.2], "type": "category", "categoryorder": "array",
                "categoryarray": names[::-1], "range": [-0.6, len(names) - 0.4],
                "showgrid": False, "showline": True, "linecolor": "#999"},
    )


def min_pvalue_figure(
    chunk_index: Sequence[int],
    p_values: Sequence[float],
    *,
    alpha: float,
    alarms: Sequence[int] = (),
    true_drifts: Sequence[int] = (),
    x_range: tuple[float, float] | None = None,
    floor: float | None = None,
    title: str | None = None,
) -> go.Figure:
    """PUDD's smallest p-value over its cut points, per chunk, with the threshold and alarms.

    p-values below ``10**floor`` sit on the floor as downward triangles (the hover gives p),
    so one huge drift does not squash the threshold's neighbourhood.

    Examples
    --------
    >>> fig = min_pvalue_figure([1, 2, 3], [1.0, 1e-40, 0.2], alpha=1e-3, alarms=[2], floor=-12)
    >>> [t.name for t in fig.data], fig.data[0].y.tolist(), fig.data[0].marker.symbol[1]
    (['PUDD min p', 'threshold α = 1e-03'], [0.0, -12.0, -0.69897...], 'triangle-down')
    """
    alarm_line = {**ALARM_STYLE, "color": detector_colour("PUDD")}
    shapes = [*(_band_shape(d) for d in true_drifts),
              *(_vline_shape(a, alarm_line) for a in alarms), _hline_shape(alpha)]
    return _one_go(
        [_p_scatter(chunk_index, p_values, name="PUDD min p", floor=floor, size=6),
         _threshold_proxy(alpha)],
        title=title, height=330, shapes=shapes,
        xaxis={**_AXIS, "title": {"text": "Chunk index"},
               **({"range": list(x_range)} if x_range is not None else {})},
        yaxis=_p_axis(floor),
    )


def cut_scan_figure(
    cuts: Sequence[int],
    p_values: Sequence[float],
    *,
    alpha: float,
    max_cut: int | None = None,
    floor: float | None = None,
    title: str | None = None,
) -> go.Figure:
    """log10 p of every cut point of one chunk's scan, fixed axes, the winner ringed.

    Examples
    --------
    >>> fig = cut_scan_figure([1, 2, 4], [0.3, 1e-4, 0.02], alpha=1e-3, max_cut=16)
    >>> [t.name for t in fig.data], fig.data[2].x
    (['log10 p per cut', 'threshold α = 1e-03', 'smallest p'], (2,))
    >>> cut_scan_figure([], [], alpha=1e-3).layout.annotations[0].text
    'no test at this chunk'
    """
    traces: list[Any] = [_p_scatter(cuts, p_values, name="log10 p per cut", floor=floor, size=9),
                         _threshold_proxy(alpha)]
    notes: list[dict[str, Any]] = []
    if len(cuts):
        best = int(np.argmin(np.asarray(p_values, dtype=np.float64)))
        y, _ = _clipped_log10_p([p_values[best]], floor)
        traces.append(go.Scatter(
            x=[cuts[best]], y=y, mode="markers", name="smallest p", hoverinfo="skip",
            showlegend=False, marker={"size": 18, "symbol": "circle-open",
                                      "color": OKABE_ITO["black"], "line": {"width": 2}},
        ))
    else:
        notes.append({"text": "no test at this chunk", "x": 0.5, "y": 0.5, "xref": "paper",
                      "yref": "paper", "showarrow": False, "font": {"size": 16, "color": "#777"}})
    top = max(max_cut or 1, max(cuts, default=1), 2)
    return _one_go(
        traces, title=title, height=330, shapes=[_hline_shape(alpha)], annotations=notes,
        xaxis={**_AXIS, "title": {"text": "Cut point: recent window length (chunks)"},
               "type": "log", "dtick": math.log10(2), "tickformat": "d",
               "range": [math.log10(0.75), math.log10(top * 1.35)]},
        yaxis=_p_axis(floor),
    )


def window_histogram_figure(record: WindowRecord, *, title: str | None = None) -> go.Figure:
    """The winning cut's two windows: PU histograms with PUDD's buckets, and the tested table.

    Left, the 40-bin PU-index histograms of the reference and recent windows as shares of
    each window (misclassified hatched) with the bucket edges fitted on the reference's
    correct predictions; right, the 2 x (K + 1) columns the chi-square test compares: each
    bucket of correct predictions (by centre, ascending) and the single misclassified column.

    Examples
    --------
    >>> from pudd_core.runner import WindowRecord
    >>> rec = WindowRecord((8, 2, 0, 0), (0, 0, 1, 1), (5, 3, 0, 0), (0, 0, 1, 3), (0.3,),
    ...                    (0.1, 0.4), ((6, 4, 2), (4, 4, 4)), ((5.0, 4.0, 3.0), (5.0, 4.0, 3.0)))
    >>> fig = window_histogram_figure(rec)
    >>> [t.name for t in fig.data][:5]
    ['Reference: correct', 'Reference: misclassified', 'Recent: correct', 'Recent: misclassified',
     'PUDD bucket edges']
    >>> list(fig.data[5].x), fig.data[5].y.round(1).tolist()
    (['0.10', '0.40', 'miscl.'], [50.0, 33.3, 16.7])
    """
    n_bins = len(record.ref_correct)
    grid = np.linspace(0.0, 1.0, n_bins + 1)
    centres = (grid[:-1] + grid[1:]) / 2.0
    names = ("Reference", "Recent")
    traces: list[Any] = []
    for name, colour, ok, bad in ((names[0], WINDOW_COLOURS[0], record.ref_correct,
                                   record.ref_wrong),
                                  (names[1], WINDOW_COLOURS[1], record.new_correct,
                                   record.new_wrong)):
        total = max(sum(ok) + sum(bad), 1)
        for label, counts, pattern in (("correct", ok, ""), ("misclassified", bad, "/")):
            traces.append(go.Bar(
                x=centres, y=100.0 * np.asarray(counts, dtype=np.float64) / total,
                width=1.0 / n_bins, name=f"{name}: {label}", legendgroup=name,
                marker={"color": colour, "pattern": {"shape": pattern}}, opacity=0.55,
                hovertemplate=f"{name}, u ≈ %{{x:.3f}}: %{{y:.1f}}%<extra></extra>",
            ))
    shapes = [{**_vline_shape(e, BUCKET_EDGE_STYLE, "above"), "yref": "y domain"}
              for e in record.bucket_edges]
    if record.bucket_edges:
        traces.append(_legend_proxy("PUDD bucket edges", BUCKET_EDGE_STYLE))
    order = [*np.argsort(record.bucket_centres).tolist(), len(record.bucket_centres)]
    labels = [*(f"{c:.2f}" for c in sorted(record.bucket_centres)), "miscl."]
    for name, colour, row in zip(names, WINDOW_COLOURS, record.table, strict=True):
        tested = np.asarray(row, dtype=np.float64)[order]
        traces.append(go.Bar(
            x=labels, y=100.0 * tested / max(tested.sum(), 1.0), name=f"{name}: tested",
            xaxis="x2", yaxis="y2", marker={"color": colour}, offsetgroup=name,
            legendgroup=name, showlegend=False, customdata=tested.astype(np.int64),
            hovertemplate=f"{name}, %{{x}}: %{{y:.1f}}% (%{{customdata}})<extra></extra>",
        ))
    return _one_go(
        traces, title=title, height=430, shapes=shapes, barmode="overlay", bargap=0,
        margin={"t": 110 if title else 80},
        xaxis={**_AXIS, "domain": [0.0, 0.62], "range": [0.0, 1.0],
               "title": {"text": "PU-index u = 1 − p(true class)"}},
        yaxis={**_AXIS, "title": {"text": "Share of window (%)"}},
        xaxis2={**_AXIS, "domain": [0.72, 1.0], "anchor": "y2", "type": "category",
                "title": {"text": "Tested: bucket centres u, errors"}},
        yaxis2={**_AXIS, "anchor": "x2", "rangemode": "tozero"},
    )


# --- CIFAR-10-CD, Threshold lab, Reproduction ----------------------------------------------------
POSITIVE_COLOUR = OKABE_ITO["orange"]  # an interest class (label 1) of CIFAR-10-CD
NEGATIVE_COLOUR = "#E8E8E8"


def transition_matrix_figure(
    matrix: ArrayLike, class_names: Sequence[str], *, title: str | None = None
) -> go.Figure:
    """CIFAR-10-CD's Markov matrix *M* as a heatmap, coloured on a log scale.

    Row *i* is where an interest in class *i* moves for the next chunk. The diagonal (stay,
    about 0.96) dwarfs the rest (about 0.004), so colours follow log10 P; the diagonal cells
    print P, every cell gives it on hover.

    Examples
    --------
    >>> fig = transition_matrix_figure([[0.9, 0.1], [0.2, 0.8]], ["cat", "dog"])
    >>> fig.data[0].type, fig.data[0].customdata.tolist(), [list(r) for r in fig.data[0].text]
    ('heatmap', [[0.9, 0.1], [0.2, 0.8]], [['0.90', ''], ['', '0.80']])
    >>> fig.layout.xaxis.title.text, fig.layout.yaxis.title.text
    ('To class (next chunk)', 'From class (this chunk)')
    """
    p = np.asarray(matrix, dtype=np.float64)
    names = list(class_names)
    fig = _figure(title=title, x_title="To class (next chunk)",
                  y_title="From class (this chunk)", height=480)
    text = [[f"{v:.2f}" if i == j else "" for j, v in enumerate(row)]
            for i, row in enumerate(p.tolist())]
    fig.add_trace(go.Heatmap(
        z=np.log10(np.clip(p, 1e-12, 1.0)), x=names, y=names, customdata=p,
        text=text, texttemplate="%{text}",
        textfont={"size": 11}, zmin=-3.0, zmax=0.0, name="P(move)",
        colorscale=[[0.0, "#FFFFFF"], [0.5, OKABE_ITO["sky_blue"]], [1.0, OKABE_ITO["blue"]]],
        colorbar={"title": {"text": "P"}, "tickvals": [-3, -2, -1, 0],
                  "ticktext": ["0.001", "0.01", "0.1", "1"]},
        hovertemplate="from %{y} to %{x}: P = %{customdata:.4f}<extra></extra>",
    ))
    fig.update_xaxes(showgrid=False, tickangle=-35, automargin=True)
    fig.update_yaxes(showgrid=False, autorange="reversed", automargin=True)
    return fig


def interest_timeline_figure(
    positive: ArrayLike,
    class_names: Sequence[str],
    *,
    drift_chunks: Sequence[int] = (),
    title: str | None = None,
) -> go.Figure:
    """Which classes are positive (interests, label 1) in each chunk; interest changes shaded.

    ``positive`` is a ``(n_classes, n_chunks)`` boolean mask. A true drift (a chunk whose
    positive set differs from the previous one's) is a grey band over its column.

    Examples
    --------
    >>> fig = interest_timeline_figure([[1, 1, 0], [0, 1, 1]], ["cat", "dog"], drift_chunks=[1, 2])
    >>> [t.name for t in fig.data]
    ['Interests', 'Positive class (label 1)', 'Negative class (label 0)',
     'True drift (interests change)']
    >>> fig.data[0].z.tolist(), [s.x0 for s in fig.layout.shapes]
    ([[1, 1, 0], [0, 1, 1]], [0.5, 1.5])
    """
    mask = np.asarray(positive).astype(np.int64)
    names = list(class_names)
    n = mask.shape[1]
    fig = _figure(title=title, x_title="Chunk index (500 images each)", y_title="CIFAR-10 class",
                  height=380)
    status = np.where(mask == 1, "positive", "negative")
    fig.add_trace(go.Heatmap(
        z=mask, x=list(range(n)), y=names, zmin=0, zmax=1, showscale=False, xgap=1, ygap=1,
        colorscale=[[0.0, NEGATIVE_COLOUR], [0.5, NEGATIVE_COLOUR], [0.5, POSITIVE_COLOUR],
                    [1.0, POSITIVE_COLOUR]],
        customdata=status, name="Interests",
        hovertemplate="chunk %{x}, %{y}: %{customdata}<extra></extra>",
    ))
    for name, colour in (("Positive class (label 1)", POSITIVE_COLOUR),
                         ("Negative class (label 0)", NEGATIVE_COLOUR)):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name,
                                 marker={"symbol": "square", "size": 14, "color": colour},
                                 hoverinfo="skip"))
    shapes = [{**_band_shape(d), "layer": "above", "yref": "paper"} for d in drift_chunks]
    if len(drift_chunks):
        fig.add_trace(go.Scatter(
            x=[None], y=[None], mode="markers", name="True drift (interests change)",
            hoverinfo="skip",
            marker={"symbol": "square", "size": 14, "color": TRUE_DRIFT_STYLE["fillcolor"]}))
    fig.update_layout(shapes=shapes)
    fig.update_xaxes(showgrid=False, range=[-0.5, n - 0.5])
    fig.update_yaxes(showgrid=False, autorange="reversed", type="category", automargin=True)
    return fig


def _png_data_uri(image: NDArray[np.uint8]) -> str:
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def sample_grid_figure(
    images: ArrayLike,
    classes: ArrayLike,
    labels: ArrayLike,
    class_names: Sequence[str],
    *,
    scale: int = 2,
    title: str | None = None,
) -> go.Figure:
    """Thumbnails of one chunk, one row per class, framed by their label.

    ``images`` are uint8 ``(m, H, W, 3)`` grouped by class; positives (label 1) get an
    orange frame, negatives a grey one. The mosaic is one PNG, enlarged ``scale`` times
    without smoothing.

    Examples
    --------
    >>> imgs = np.zeros((4, 8, 8, 3), dtype=np.uint8)
    >>> fig = sample_grid_figure(imgs, [0, 0, 1, 1], [1, 1, 0, 0], ["cat", "dog"])
    >>> fig.data[0].type, list(fig.layout.yaxis.ticktext)
    ('image', ['cat · label 1', 'dog · label 0'])
    >>> [t.name for t in fig.data[1:]]
    ['Positive: label 1', 'Negative: label 0']
    """
    ims = np.asarray(images, dtype=np.uint8)
    cls = np.asarray(classes, dtype=np.int64)
    lab = np.asarray(labels, dtype=np.int64)
    rows = [c for c in range(len(class_names)) if (cls == c).any()]
    per_row = max(int((cls == c).sum()) for c in rows) if rows else 0
    h, w = (ims.shape[1], ims.shape[2]) if ims.size else (32, 32)
    pad, frame = 3, 3
    th, tw = h + 2 * frame + pad, w + 2 * frame + pad
    mosaic = np.full((max(len(rows), 1) * th, max(per_row, 1) * tw, 3), 255, dtype=np.uint8)
    frame_rgb = {1: np.array([0xE6, 0x9F, 0x00], dtype=np.uint8),
                 0: np.array([0xBB, 0xBB, 0xBB], dtype=np.uint8)}
    for r, c in enumerate(rows):
        for k, i in enumerate(np.flatnonzero(cls == c)):
            y0, x0 = r * th, k * tw
            mosaic[y0:y0 + h + 2 * frame, x0:x0 + w + 2 * frame] = frame_rgb[int(lab[i] == 1)]
            mosaic[y0 + frame:y0 + frame + h, x0 + frame:x0 + frame + w] = ims[i]
    big = mosaic.repeat(scale, axis=0).repeat(scale, axis=1)
    fig = go.Figure(go.Image(source=_png_data_uri(big), hoverinfo="skip"))
    _layout(fig, title=title, height=min(120 + big.shape[0], 900))
    ticks = [scale * (r * th + frame + h / 2) for r in range(len(rows))]
    label_of = {int(c): int(lab[cls == c][0]) for c in rows}
    fig.update_yaxes(tickvals=ticks, showgrid=False, showline=False, ticks="",
                     ticktext=[f"{class_names[c]} · label {label_of[c]}" for c in rows])
    fig.update_xaxes(visible=False)
    for name, colour in (("Positive: label 1", POSITIVE_COLOUR),
                         ("Negative: label 0", "#BBBBBB")):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name,
                                 hoverinfo="skip",
                                 marker={"symbol": "square-open", "size": 14, "color": colour,
                                         "line": {"width": 3}}))
    fig.update_layout(margin={"l": 150})
    return fig


def run_summary_frame(results: Mapping[str, Any]) -> pd.DataFrame:
    """One row per detector's run: accuracy, alarms and how they matched the true drifts.

    ``results`` maps a display name to a :class:`~pudd_core.runner.RunResult`.

    Examples
    --------
    >>> from pudd_core.runner import RunConfig, run_experiment
    >>> res = run_experiment(RunConfig("sea0", "gnb", n_chunks=25, seed=0))
    >>> run_summary_frame({"PUDD-3": res}).iloc[0].to_dict()
    {'detector': 'PUDD-3', 'accuracy (%)': 95.46..., 'alarms': 1, 'drifts detected': '1 of 2',
     'missed drifts': 1, 'false alarms': 0, 'mean delay (chunks)': 0.0, 'run time (s)': ...}
    """
    import pandas as pd

    rows = []
    for name, res in results.items():
        d = res.detection
        n_drifts = len(res.drift_chunks or ())
        rows.append({
            "detector": name, "accuracy (%)": 100.0 * res.accuracy, "alarms": res.n_alarms,
            "drifts detected": f"{n_drifts - d.missed} of {n_drifts}" if d else "n/a",
            "missed drifts": d.missed if d else None,
            "false alarms": d.false_alarms if d else None,
            "mean delay (chunks)": d.mean_delay if d else float("nan"),
            "run time (s)": round(res.elapsed_s, 1),
        })
    return pd.DataFrame(rows)


def runs_figure(
    results: Mapping[str, Any], *, true_drifts: Sequence[int] = (), title: str | None = None
) -> go.Figure:
    """:func:`detector_error_figure` of finished runs on one stream, by display name.

    ``results`` maps a name to a :class:`~pudd_core.runner.RunResult`; the runs share their
    chunks (same stream, same length). The first run is drawn thickest, with alarm lines.

    Examples
    --------
    >>> from pudd_core.runner import RunConfig, run_experiment
    >>> runs = {n: run_experiment(RunConfig("sea0", "gnb", d, n_chunks=25))
    ...         for n, d in (("PUDD-3", "pudd"), ("DDM", "ddm"))}
    >>> fig = runs_figure(runs, true_drifts=[10, 20])
    >>> sorted(t.name for t in fig.data)
    ['DDM alarm', 'DDM error rate', 'PUDD-3 alarm', 'PUDD-3 error rate', 'True drift']
    >>> alarm = next(t for t in fig.data if t.name == "PUDD-3 alarm")
    >>> list(alarm.x) == list(runs["PUDD-3"].alarms)
    True
    """
    first = next(iter(results.values()))
    chunks = [c.chunk_index for c in first.chunks]
    fig = detector_error_figure(
        chunks,
        {name: [c.error_rate for c in res.chunks] for name, res in results.items()},
        alarms={name: list(res.alarms) for name, res in results.items()},
        true_drifts=true_drifts, title=title,
    )
    # whole chunks only: no 1.5 between chunk 1 and 2 on a short run
    fig.update_xaxes(tick0=0, dtick=max(1, math.ceil(len(chunks) / 10)))
    return fig


def threshold_sweep_frame(results: Sequence[Any]) -> pd.DataFrame:
    """Finished PUDD runs at several α as :func:`~pudd_core.sweep.threshold_sweep`'s rows.

    One row per :class:`~pudd_core.runner.RunResult`: ``exponent`` (x of α = 10⁻ˣ),
    ``alpha``, ``seed``, ``accuracy``, ``n_alarms``, ``mean_delay``, ``missed`` and
    ``false_alarms`` (NaN without ground truth), so runs cached one by one make a sweep.

    Examples
    --------
    >>> from pudd_core.runner import RunConfig, run_experiment
    >>> runs = [run_experiment(RunConfig("sea0", "gnb", alpha=a, n_chunks=25)) for a in (0.1, 1e-5)]
    >>> threshold_sweep_frame(runs)[["exponent", "n_alarms", "missed"]].values.tolist()
    [[1, 1, 1], [5, 1, 1]]
    """
    import pandas as pd

    rows = []
    for res in results:
        d = res.detection
        rows.append({
            "exponent": round(-math.log10(res.config.alpha)), "alpha": res.config.alpha,
            "seed": res.config.seed, "accuracy": res.accuracy, "n_alarms": res.n_alarms,
            "mean_delay": d.mean_delay if d else float("nan"),
            "missed": d.missed if d else float("nan"),
            "false_alarms": d.false_alarms if d else float("nan"),
        })
    columns = ["exponent", "alpha", "seed", "accuracy", "n_alarms", "mean_delay", "missed",
               "false_alarms"]
    return pd.DataFrame(rows, columns=columns)


def _two_line_legend(fig: go.Figure) -> None:
    """Room between the title and the plot for a legend that wraps to two lines."""
    fig.update_layout(margin={"t": 130}, height=fig.layout.height + 40)


def _alpha_axis(fig: go.Figure, exponents: Sequence[int], **where: Any) -> None:
    """A log α axis, 10⁻¹ on the left as on the app's threshold sliders."""
    xs = sorted(set(int(x) for x in exponents))
    fig.update_xaxes(type="log", autorange="reversed", tickvals=[10.0 ** -x for x in xs],
                     ticktext=[f"1e-{x}" for x in xs], **where)


def threshold_sweep_figure(
    sweep: pd.DataFrame, *, n_drifts: int | None = None, title: str | None = None
) -> go.Figure:
    """PUDD's accuracy, alarms, detection delay and missed drifts against α = 10⁻ˣ.

    ``sweep`` is :func:`~pudd_core.sweep.threshold_sweep`'s frame; with several seeds each
    point is the mean, with ±1 standard deviation as error bars. ``n_drifts`` (the stream's
    true drifts) is a dotted line on the alarm panel.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"exponent": [1, 1, 5, 5], "alpha": [0.1, 0.1, 1e-5, 1e-5],
    ...                    "seed": [0, 1, 0, 1], "accuracy": [0.9, 0.8, 0.9, 0.9],
    ...                    "n_alarms": [4, 6, 1, 1], "mean_delay": [0.5, 1.5, 1.0, 2.0],
    ...                    "missed": [0, 0, 1, 1], "false_alarms": [2, 4, 0, 0]})
    >>> fig = threshold_sweep_figure(df, n_drifts=2)
    >>> [t.name for t in fig.data]
    ['Accuracy', 'Alarms', 'False alarms', 'Mean detection delay', 'Missed drifts',
     'True drifts']
    >>> list(fig.data[0].y), list(fig.data[1].y), list(fig.data[1].error_y.array)
    ([85.0, 90.0], [5.0, 1.0], [1.0, 0.0])
    """
    df = sweep.copy()
    df["accuracy"] = 100.0 * df["accuracy"]
    cols = ["accuracy", "n_alarms", "false_alarms", "mean_delay", "missed"]
    df[cols] = df[cols].astype(np.float64)
    mean = df.groupby("exponent")[cols].mean()
    std = df.groupby("exponent")[cols].std(ddof=0).fillna(0.0)
    several = int(df.groupby("exponent").size().max()) > 1
    alpha = [10.0 ** -int(x) for x in mean.index]
    fig = make_subplots(rows=2, cols=2, shared_xaxes=True, vertical_spacing=0.14,
                        horizontal_spacing=0.1,
                        subplot_titles=("Accuracy (%)", "Alarms per run",
                                        "Mean detection delay (chunks)", "Missed drifts per run"))
    _layout(fig, title=title, height=620)
    _legend_below(fig)
    panels = (("accuracy", "Accuracy", 1, 1, OKABE_ITO["black"], "solid"),
              ("n_alarms", "Alarms", 1, 2, detector_colour("PUDD"), "solid"),
              ("false_alarms", "False alarms", 1, 2, OKABE_ITO["vermillion"], "dash"),
              ("mean_delay", "Mean detection delay", 2, 1, OKABE_ITO["green"], "solid"),
              ("missed", "Missed drifts", 2, 2, OKABE_ITO["orange"], "solid"))
    for col, name, r, c, colour, dash in panels:
        fig.add_trace(go.Scatter(
            x=alpha, y=mean[col].round(6).tolist(), mode="lines+markers", name=name,
            line={"color": colour, "dash": dash}, marker={"size": 8},
            error_y={"type": "data", "array": std[col].round(6).tolist(), "visible": several},
            hovertemplate=f"α = %{{x:.0e}}: {name.lower()} %{{y:.3g}}<extra></extra>",
        ), row=r, col=c)
    if n_drifts is not None:
        fig.add_trace(go.Scatter(
            x=[alpha[0], alpha[-1]], y=[n_drifts, n_drifts], mode="lines", name="True drifts",
            line={"color": "#777777", "dash": "dot", "width": 2}, hoverinfo="skip"),
            row=1, col=2)
    _alpha_axis(fig, list(mean.index))
    fig.update_xaxes(title_text="Threshold α (log scale)", row=2)
    fig.update_yaxes(rangemode="tozero", row=1, col=2)
    fig.update_yaxes(rangemode="tozero", row=2)
    return fig


def false_alarm_figure(rates: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Empirical false-alarm rates on a stream without drift against the nominal α.

    ``rates`` is :meth:`~pudd_core.sweep.FalseAlarmStudy.rates`: the share of single
    cut-point tests with p < α (the paper's per-test guarantee: about α), the share of chunks
    whose smallest p is below α (an alarm), and the Bonferroni bound α × mean cut points on
    the latter. A rate of 0 sits at half the resolution (1 / tests) as an open marker.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"exponent": [1, 2], "alpha": [0.1, 0.01], "per_test": [0.12, 0.0],
    ...                   "per_chunk": [0.3, 0.04], "bonferroni": [0.4, 0.04],
    ...                   "n_tests": 100, "n_chunks": 25})
    >>> fig = false_alarm_figure(r)
    >>> [t.name for t in fig.data]
    ['Nominal α (per-test guarantee)', 'Per test: p < α', 'Per chunk: min p < α (an alarm)',
     'Bonferroni bound: α × cut points']
    >>> list(fig.data[1].y), fig.data[1].marker.symbol
    ([0.12, 0.005], ('circle', 'circle-open'))
    """
    alpha = rates["alpha"].astype(np.float64).tolist()
    n_tests = int(rates["n_tests"].max()) if len(rates) else 0
    n_chunks = int(rates["n_chunks"].max()) if len(rates) else 0
    fig = _figure(title=title, x_title="Nominal threshold α (log scale)",
                  y_title="False-alarm rate (log scale)", height=440)
    fig.add_trace(go.Scatter(x=alpha, y=alpha, mode="lines", name="Nominal α (per-test guarantee)",
                             line=dict(THRESHOLD_STYLE), hoverinfo="skip"))
    for col, name, colour, n in (("per_test", "Per test: p < α", detector_colour("PUDD"), n_tests),
                                 ("per_chunk", "Per chunk: min p < α (an alarm)",
                                  OKABE_ITO["vermillion"], n_chunks)):
        rate = rates[col].astype(np.float64).to_numpy()
        floor = 0.5 / max(n, 1)
        zero = rate <= 0
        fig.add_trace(go.Scatter(
            x=alpha, y=np.where(zero, floor, rate).round(9).tolist(), mode="lines+markers",
            name=name, line={"color": colour},
            marker={"size": 9, "symbol": ["circle-open" if z else "circle" for z in zero]},
            customdata=[f"0 of {n}" if z else f"{v:.3g}" for z, v in zip(zero, rate, strict=True)],
            hovertemplate="α = %{x:.0e}: %{customdata}<extra></extra>",
        ))
    fig.add_trace(go.Scatter(
        x=alpha, y=rates["bonferroni"].astype(np.float64).tolist(), mode="lines",
        name="Bonferroni bound: α × cut points", line={"color": "#777777", "dash": "dot"},
        hovertemplate="α = %{x:.0e}: bound %{y:.3g}<extra></extra>"))
    _alpha_axis(fig, rates["exponent"].tolist())
    fig.update_yaxes(type="log", exponentformat="power")
    _two_line_legend(fig)
    return fig


def bonferroni_figure(chunk_p: pd.DataFrame, *, alpha: float,
                      title: str | None = None) -> go.Figure:
    """The smallest p over the cut points of each chunk, against α and α / (cut points).

    ``chunk_p`` is :attr:`~pudd_core.sweep.FalseAlarmStudy.chunk_p` (a stream without drift,
    so every point below α is a false alarm). PUDD alarms when min p < α, uncorrected; a
    Bonferroni correction over the *m* cut points of a chunk would need min p < α / m.

    Examples
    --------
    >>> import pandas as pd
    >>> cp = pd.DataFrame({"chunk": [2, 3, 4], "min_p": [0.5, 1e-4, 0.02], "n_cuts": [1, 2, 2]})
    >>> fig = bonferroni_figure(cp, alpha=1e-3)
    >>> [t.name for t in fig.data]
    ['min p over cut points', 'false alarm: min p < α', 'threshold α = 1e-03',
     'Bonferroni: α / cut points']
    >>> list(fig.data[1].x), fig.data[3].y.round(2).tolist()
    ([3], [-3.0, -3.3, -3.3])
    """
    x = chunk_p["chunk"].astype(np.int64).tolist()
    p = chunk_p["min_p"].astype(np.float64).to_numpy()
    m = chunk_p["n_cuts"].astype(np.float64).to_numpy()
    low = p < alpha
    fig = _figure(title=title, x_title="Chunk index (stream without drift)",
                  y_title="log₁₀ min p over cut points", height=400)
    fig.add_trace(go.Scatter(
        x=x, y=_log10_p(p), mode="markers", name="min p over cut points",
        marker={"color": detector_colour("PUDD"), "size": 7},
        customdata=np.stack([m, p], axis=-1) if len(p) else None,
        hovertemplate="chunk %{x}: min p = %{customdata[1]:.2e} over "
                      "%{customdata[0]} cut points<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=[v for v, b in zip(x, low, strict=True) if b], y=_log10_p(p[low]), mode="markers",
        name="false alarm: min p < α", hoverinfo="skip",
        marker={"color": OKABE_ITO["vermillion"], "size": 11, "symbol": "x"}))
    _threshold(fig, alpha)
    fig.add_trace(_legend_proxy(f"threshold α = {alpha:.0e}", THRESHOLD_STYLE))
    # each chunk's own corrected threshold: a short dash per chunk (m varies with the cuts run)
    fig.add_trace(go.Scatter(
        x=x, y=np.log10(alpha / np.maximum(m, 1.0)), mode="markers",
        name="Bonferroni: α / cut points",
        marker={"symbol": "line-ew-open", "size": 9, "color": OKABE_ITO["green"],
                "line": {"width": 2, "color": OKABE_ITO["green"]}},
        hovertemplate="chunk %{x}: α / m = 10^%{y:.2f}<extra></extra>"))
    _two_line_legend(fig)
    return fig


def reproduction_frame(cells: pd.DataFrame, *, tolerance: float = 1.5) -> pd.DataFrame:
    """A reproduction report's cells for ``st.dataframe``: paper's names, ours beside theirs.

    ``cells`` is :attr:`~pudd_core.reproduce.ReproductionReport.cells`. ``within`` is empty
    where a cell was not run or the paper gives no number.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"detector": ["pudd-3", "ddm"], "dataset": "powersupply",
    ...                       "regime": "incremental", "paper": [71.59, 69.63],
    ...                       "ours": [71.59, float("nan")], "difference": [0.0, float("nan")],
    ...                       "std": [0.0, float("nan")], "n_seeds": [10, 0], "n_errors": 0})
    >>> reproduction_frame(cells)[["detector", "dataset", "regime", "ours (%)", "within ±1.5"]]
      detector dataset regime  ours (%) within ±1.5
    0   PUDD-3      ps     -I     71.59        True
    1      DDM      ps     -I       NaN        None
    """
    import pandas as pd

    from pudd_core.paper import DISPLAY_NAMES

    ours = cells["ours"].astype(np.float64)
    diff = cells["difference"].astype(np.float64)
    within = [None if math.isnan(d) else bool(abs(d) <= tolerance + 1e-9) for d in diff]
    return pd.DataFrame({
        "detector": [DISPLAY_NAMES.get(d, d) for d in cells["detector"]],
        "dataset": [DISPLAY_NAMES.get(d, d) for d in cells["dataset"]],
        "regime": [DISPLAY_NAMES.get(r, r) for r in cells["regime"]],
        "paper (%)": cells["paper"].astype(np.float64).round(2),
        "ours (%)": ours.round(2),
        "ours − paper": diff.round(2),
        "std over seeds": cells["std"].astype(np.float64).round(2),
        "seeds": cells["n_seeds"].astype(int),
        f"within ±{tolerance:g}": pd.Series(within, dtype=object),
    })


def reproduction_figure(cells: pd.DataFrame, *, tolerance: float = 1.5,
                        title: str | None = None) -> go.Figure:
    """Our accuracy against the paper's, one point per cell, with the ±``tolerance`` band.

    PUDD-1/3/5 in PUDD's colour, the baselines in grey; circles for -I, diamonds for -O.
    Cells without our number or without the paper's are left out.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"detector": ["pudd-3", "ddm", "ddm"], "dataset": "sea0",
    ...                       "regime": ["incremental", "incremental", "train-once"],
    ...                       "paper": [94.81, 93.97, 93.48], "ours": [94.67, 94.41, None],
    ...                       "difference": [-0.14, 0.44, None]})
    >>> fig = reproduction_figure(cells)
    >>> [t.name for t in fig.data]
    ['±1.5 points', 'ours = paper', 'PUDD-1/3/5', 'Baselines']
    >>> list(fig.data[2].x), list(fig.data[3].y)
    ([94.81], [94.41])
    """
    from pudd_core.paper import DISPLAY_NAMES

    done = cells[cells["ours"].notna() & cells["paper"].notna()]
    values = np.concatenate([done["paper"].to_numpy(np.float64), done["ours"].to_numpy(np.float64)])
    lo = float(np.floor(values.min() - 2)) if values.size else 40.0
    hi = float(np.ceil(values.max() + 2)) if values.size else 100.0
    fig = _figure(title=title, x_title="Paper's accuracy (%)",
                  y_title="Our accuracy (%), mean over seeds", height=520)
    fig.add_trace(go.Scatter(
        x=[lo, hi, hi, lo], y=[lo + tolerance, hi + tolerance, hi - tolerance, lo - tolerance],
        fill="toself", mode="none", fillcolor="rgba(0, 158, 115, 0.15)",
        name=f"±{tolerance:g} points", hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="ours = paper",
                             line={"color": "#777777", "width": 1}, hoverinfo="skip"))
    is_pudd = done["detector"].str.startswith("pudd")
    for name, part, colour in (("PUDD-1/3/5", done[is_pudd], detector_colour("PUDD")),
                               ("Baselines", done[~is_pudd], "#888888")):
        text = [f"{DISPLAY_NAMES.get(d, d)}, {DISPLAY_NAMES.get(s, s)} "
                f"{DISPLAY_NAMES.get(r, r)}: ours {o:.2f} vs paper {p:.2f} ({o - p:+.2f})"
                for d, s, r, o, p in zip(part["detector"], part["dataset"], part["regime"],
                                         part["ours"], part["paper"], strict=True)]
        fig.add_trace(go.Scatter(
            x=part["paper"].astype(np.float64).tolist(),
            y=part["ours"].astype(np.float64).tolist(), mode="markers", name=name, text=text,
            marker={"color": colour, "size": 9, "line": {"width": 1, "color": "white"},
                    "symbol": ["circle" if r == "incremental" else "diamond"
                               for r in part["regime"]]},
            hovertemplate="%{text}<extra></extra>"))
    fig.update_xaxes(range=[lo, hi])
    fig.update_xaxes(constrain="domain")  # a square plot area, not a wider range
    fig.update_yaxes(range=[lo, hi], scaleanchor="x", scaleratio=1, constrain="domain")
    return fig

"""One PUDD test: the cut-point scan, the two windows' PU histograms and the tested table.

Used by Theorem 2, Fig. 1 and the Stream explorer's player.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

from pudd_core.plots._style import (
    BUCKET_EDGE_STYLE,
    HATCH_COLOUR,
    OKABE_ITO,
    WINDOW_COLOURS,
    add_threshold,
    clipped_log10_p,
    detector_colour,
    legend_proxy,
    log10_p,
    new_figure,
    one_go,
    p_axis,
    p_scatter,
    smallest_p_index,
    threshold_proxy,
    threshold_shape,
    vline_shape,
)

if TYPE_CHECKING:
    import pandas as pd

    from pudd_core.experiments.runner import WindowRecord

__all__ = [
    "bucket_columns",
    "contingency_table_frame",
    "cut_pvalue_figure",
    "cut_scan_figure",
    "pu_histogram_figure",
    "window_histogram_figure",
]

_PU_TITLE = "PU-index u = 1 − p(true class)"
_CUT_TITLE = "Cut point: recent window length (chunks)"
_CUT_AXIS: dict[str, Any] = {"title": {"text": _CUT_TITLE}, "type": "log", "dtick": math.log10(2),
                             "tickformat": "d"}  # a tick per power of 2: the default cut points


def _bins(n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``n`` equal PU-index bins on [0, 1]: their edges and centres."""
    grid = np.linspace(0.0, 1.0, n + 1)
    return grid, (grid[:-1] + grid[1:]) / 2.0


def _share_bars(centres: NDArray[np.float64], name: str, colour: str,
                counts: tuple[ArrayLike, ArrayLike], *, total: int, hovertemplate: str,
                **extra: Any) -> list[go.Bar]:
    """A window's correct and (hatched) misclassified PU counts as shares of the window (%)."""
    return [go.Bar(x=centres, y=100.0 * np.asarray(c, dtype=np.float64) / total,
                   width=1.0 / len(centres), name=f"{name}: {label}",
                   # the hatch drawn dark on the bar's own colour: plotly's default fill
                   # paints the stripes' gaps white (white notches); no outline either
                   marker={"color": colour, "line": {"width": 0},
                           "pattern": {"shape": pattern, "fillmode": "replace",
                                       "bgcolor": colour, "fgcolor": HATCH_COLOUR}},
                   opacity=0.55,
                   hovertemplate=hovertemplate, **extra)
            for label, c, pattern in zip(("correct", "misclassified"), counts, ("", "/"),
                                         strict=True)]


def _edges_proxy() -> go.Scatter:
    """The legend entry of PUDD's bucket edges (dotted vertical lines)."""
    return legend_proxy("PUDD bucket edges", BUCKET_EDGE_STYLE)


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
    zoom_errors: bool = False,
) -> go.Figure:
    """Overlaid PU-index histograms of two windows, correct and misclassified apart.

    Bars are the share of each window (%) so windows of different sizes compare;
    misclassified predictions are hatched. ``edges`` (PUDD's bucket edges) are dotted lines.
    ``zoom_errors`` shows u ≥ 0.5 only, with the y axis fitted to the misclassified bars
    (a few percent of a window, invisible beside the correct ones).

    Examples
    --------
    >>> fig = pu_histogram_figure([0.05, 0.7], [True, False], [0.15, 0.85], [True, False],
    ...                           edges=[0.1])
    >>> [t.name for t in fig.data]
    ['Window 1: correct', 'Window 1: misclassified', 'Window 2: correct',
     'Window 2: misclassified', 'PUDD bucket edges']
    >>> fig.layout.xaxis.title.text
    'PU-index u = 1 − p(true class)'
    >>> zoom = pu_histogram_figure([0.05, 0.7], [True, False], [0.15, 0.85], [True, False],
    ...                            zoom_errors=True)
    >>> zoom.layout.xaxis.range, zoom.layout.yaxis.range
    ((0.5, 1), (0, 57.49...))
    """
    fig = new_figure(title=title, x_title=_PU_TITLE, y_title="Share of window (%)")
    grid, centres = _bins(bins)
    for name, colour, u, ok in ((names[0], WINDOW_COLOURS[0], u_ref, correct_ref),
                                (names[1], WINDOW_COLOURS[1], u_new, correct_new)):
        vals = np.asarray(u, dtype=np.float64)
        mask = np.asarray(ok, dtype=bool)
        counts = (np.histogram(vals[mask], bins=grid)[0], np.histogram(vals[~mask], bins=grid)[0])
        fig.add_traces(_share_bars(centres, name, colour, counts, total=max(vals.size, 1),
                                   hovertemplate="u ≈ %{x:.3f}: %{y:.1f}%<extra></extra>"))
    edge_values = np.asarray(edges, dtype=np.float64).ravel().tolist()
    for e in edge_values:
        fig.add_shape(vline_shape(e, BUCKET_EDGE_STYLE, layer="above"))
    if edge_values:
        fig.add_trace(_edges_proxy())
    fig.update_layout(barmode="overlay", bargap=0)
    fig.update_xaxes(range=[0, 1])
    if zoom_errors:
        wrong = [t for t in fig.data if str(t.name).endswith("misclassified")]
        top = max((float(np.max(t.y, initial=0.0)) for t in wrong), default=0.0)
        fig.update_xaxes(range=[0.5, 1])
        fig.update_yaxes(range=[0, max(top * 1.15, 0.1)])
    return fig


def bucket_columns(record: WindowRecord) -> tuple[list[int], list[str]]:
    """The tested table's columns by ascending bucket centre, then errors, and their labels.

    The EK ablation's table has no misclassified column.

    Examples
    --------
    >>> from pudd_core.experiments.runner import WindowRecord
    >>> rec = WindowRecord((), (), (), (), (0.3,), (0.4, 0.1), ((1, 2, 3), (4, 5, 6)),
    ...                    ((1.0, 2.0, 3.0), (4.0, 5.0, 6.0)))
    >>> bucket_columns(rec)
    ([1, 0, 2], ['0.10', '0.40', 'miscl.'])
    """
    k = len(record.bucket_centres)
    errors = len(record.table[0]) > k if record.table else True
    order = [*np.argsort(record.bucket_centres).tolist(), *([k] if errors else [])]
    labels = [*(f"{c:.2f}" for c in sorted(record.bucket_centres)), *(["miscl."] if errors else [])]
    return order, labels


def window_histogram_figure(record: WindowRecord, *, title: str | None = None) -> go.Figure:
    """The winning cut's two windows: PU histograms with PUDD's buckets, and the tested table.

    Left, the 40-bin PU-index histograms of the reference and recent windows as shares of
    each window (misclassified hatched) with the bucket edges fitted on the reference's
    correct predictions; right, the 2 x (K + 1) columns the chi-square test compares: each
    bucket of correct predictions (by centre, ascending) and the single misclassified column.

    Examples
    --------
    >>> from pudd_core.experiments.runner import WindowRecord
    >>> rec = WindowRecord((8, 2, 0, 0), (0, 0, 1, 1), (5, 3, 0, 0), (0, 0, 1, 3), (0.3,),
    ...                    (0.1, 0.4), ((6, 4, 2), (4, 4, 4)), ((5.0, 4.0, 3.0), (5.0, 4.0, 3.0)))
    >>> fig = window_histogram_figure(rec)
    >>> [t.name for t in fig.data][:5]
    ['Reference: correct', 'Reference: misclassified', 'Recent: correct', 'Recent: misclassified',
     'PUDD bucket edges']
    >>> list(fig.data[5].x), fig.data[5].y.round(1).tolist()
    (['0.10', '0.40', 'miscl.'], [50.0, 33.3, 16.7])
    """
    _, centres = _bins(len(record.ref_correct))
    names = ("Reference", "Recent")
    traces: list[Any] = []
    for name, colour, ok, bad in ((names[0], WINDOW_COLOURS[0], record.ref_correct,
                                   record.ref_wrong),
                                  (names[1], WINDOW_COLOURS[1], record.new_correct,
                                   record.new_wrong)):
        traces += _share_bars(
            centres, name, colour, (ok, bad), total=max(sum(ok) + sum(bad), 1), legendgroup=name,
            hovertemplate=f"{name}, u ≈ %{{x:.3f}}: %{{y:.1f}}%<extra></extra>")
    shapes = [{**vline_shape(e, BUCKET_EDGE_STYLE, "above"), "yref": "y domain"}
              for e in record.bucket_edges]
    if record.bucket_edges:
        traces.append(_edges_proxy())
    order, labels = bucket_columns(record)
    for name, colour, row in zip(names, WINDOW_COLOURS, record.table, strict=True):
        tested = np.asarray(row, dtype=np.float64)[order]
        traces.append(go.Bar(
            x=labels, y=100.0 * tested / max(tested.sum(), 1.0), name=f"{name}: tested",
            xaxis="x2", yaxis="y2", marker={"color": colour}, offsetgroup=name,
            legendgroup=name, showlegend=False, customdata=tested.astype(np.int64),
            hovertemplate=f"{name}, %{{x}}: %{{y:.1f}}% (%{{customdata}})<extra></extra>",
        ))
    return one_go(
        traces, title=title, height=430, shapes=shapes, barmode="overlay", bargap=0,
        margin={"t": 110 if title else 80},
        xaxis={"domain": [0.0, 0.62], "range": [0.0, 1.0], "title": {"text": _PU_TITLE}},
        yaxis={"title": {"text": "Share of window (%)"}},
        # automargin: the rotated centres of a narrow panel (1024 px) would overlap the title
        xaxis2={"domain": [0.72, 1.0], "anchor": "y2", "type": "category", "automargin": True,
                "tickfont": {"size": 11}, "title": {"text": "Tested columns", "standoff": 6}},
        yaxis2={"anchor": "x2", "rangemode": "tozero",
                "title": {"text": "Share tested (%)", "standoff": 4}},
    )


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
    fig = new_figure(title=title, x_title=_CUT_TITLE, y_title="log₁₀ p-value", height=360)
    fig.add_trace(go.Scatter(x=list(cuts), y=log10_p(p_values), mode="lines+markers",
                             name="log10 p per cut", line={"color": detector_colour("PUDD")},
                             marker={"size": 9}))
    add_threshold(fig, alpha)
    fig.update_xaxes(_CUT_AXIS)
    return fig


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
    traces: list[Any] = [p_scatter(cuts, p_values, name="log10 p per cut", floor=floor, size=9),
                         threshold_proxy(alpha)]
    notes: list[dict[str, Any]] = []
    best = smallest_p_index(p_values)
    if best is not None:
        y, _ = clipped_log10_p([p_values[best]], floor)
        traces.append(go.Scatter(
            x=[cuts[best]], y=y, mode="markers", name="smallest p", hoverinfo="skip",
            showlegend=False, marker={"size": 18, "symbol": "circle-open",
                                      "color": OKABE_ITO["black"], "line": {"width": 2}},
        ))
    else:
        notes.append({"text": "no test at this chunk", "x": 0.5, "y": 0.5, "xref": "paper",
                      "yref": "paper", "showarrow": False, "font": {"size": 16, "color": "#777"}})
    top = max(max_cut or 1, max(cuts, default=1), 2)
    return one_go(
        traces, title=title, height=330, shapes=[threshold_shape(alpha)], annotations=notes,
        xaxis={**_CUT_AXIS, "range": [math.log10(0.75), math.log10(top * 1.35)]},
        yaxis=p_axis(floor),
    )


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

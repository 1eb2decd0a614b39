"""A stream chunk by chunk: error rates, true drifts, alarms and PUDD's smallest p-values.

Used by Home's live run, the Stream explorer's player and the runs of the CIFAR-10-CD page.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike
from plotly.subplots import make_subplots

from pudd_core.plots._style import (
    OKABE_ITO,
    add_threshold,
    alarm_shape,
    apply_layout,
    clipped_log10_p,
    detector_colour,
    drift_band_shape,
    drift_legend,
    log10_p,
    new_figure,
    one_go,
    p_axis,
    p_scatter,
    threshold_proxy,
    threshold_shape,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "SETTING_COLOURS",
    "band_traces",
    "detector_error_figure",
    "error_trace_figure",
    "min_pvalue_figure",
    "run_summary_frame",
    "runs_figure",
    "settings_pvalue_figure",
]


def _chunk_axis(x_range: tuple[float, float] | None) -> dict[str, Any]:
    """The chunk axis of the explorer's figures, fixed to ``x_range`` while the data grow."""
    return {"title": {"text": "Chunk index"},
            **({"range": list(x_range)} if x_range is not None else {})}


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
        apply_layout(fig, title=title, height=560)
    else:
        fig = new_figure(title=title, x_title="Chunk index", y_title="Error rate (%)")
    row = {"row": 1, "col": 1} if p_values is not None else {}
    fig.add_trace(go.Scatter(x=x, y=err, mode="lines+markers", name="Error rate",
                             line={"color": OKABE_ITO["black"], "width": 1.5},
                             marker={"size": 5}), **row)
    if len(true_drifts):
        for d in true_drifts:
            fig.add_shape(drift_band_shape(d))
        fig.add_trace(drift_legend(), **row)
    by_chunk = dict(zip(x.tolist(), err.tolist(), strict=True))
    for i, (name, where) in enumerate((alarms or {}).items()):
        colour = detector_colour(name, i)
        for a in where:
            fig.add_shape(alarm_shape(a, colour))
        fig.add_trace(go.Scatter(
            x=list(where), y=[by_chunk.get(int(a)) for a in where], mode="markers",
            name=f"{name} alarm", marker={"symbol": "triangle-down", "size": 12, "color": colour},
        ), **row)
    if p_values is not None:
        fig.add_trace(go.Scatter(x=x, y=log10_p(p_values), mode="lines+markers",
                                 name="PUDD log10 p", line={"color": detector_colour("PUDD")},
                                 connectgaps=False), row=2, col=1)
        if alpha is not None:
            add_threshold(fig, alpha, row=2, col=1)
        fig.update_yaxes(title_text="Error rate (%)", row=1, col=1)
        fig.update_yaxes(title_text="log₁₀ p-value", row=2, col=1)
        fig.update_xaxes(title_text="Chunk index", row=2, col=1)
    return fig


#: A lane's label is cut to this many characters (the legend and the hover keep the full name):
#: a long name (MCD-DD's explanation) took half of the plot's width at 1024 px.
LANE_LABEL_WIDTH = 20
#: About how many "k/n" labels fit side by side in an alarm lane of a 1024-px page's chart.
_LABELS_PER_LANE = 18


def lane_label(name: str, width: int = LANE_LABEL_WIDTH) -> str:
    """``name`` cut to ``width`` characters with an ellipsis, for an alarm lane's tick.

    Examples
    --------
    >>> lane_label("PUDD-5 (all cuts)"), lane_label("MCD-DD (label-free, on the features)")
    ('PUDD-5 (all cuts)', 'MCD-DD (label-free,…')
    """
    return name if len(name) <= width else name[:width - 1].rstrip() + "…"


def _spaced_labels(where: Sequence[int], labels: Sequence[str], span: float) -> list[str]:
    """``labels`` with those too close to the previous one shown blank (their hover keeps it).

    A label is shown when its chunk is at least ``span / 18`` chunks (and 2) after the last
    label shown, so the "k/n" counts of alarms at neighbouring chunks do not overlap.

    Examples
    --------
    >>> _spaced_labels([1, 2, 3, 9], ["1/3", "2/3", "3/3", "1/3"], span=20)
    ['1/3', '', '3/3', '1/3']
    """
    gap = max(2.0, span / _LABELS_PER_LANE)
    shown: list[str] = []
    last: float | None = None
    for at, label in zip(where, labels, strict=True):
        if last is None or at - last >= gap:
            shown.append(label)
            last = at
        else:
            shown.append("")
    return shown


#: One colour per PUDD setting of the Stream explorer, the same in every chart: PUDD's blue, then
#: colours no registered detector has (Paul Tol's rose and green, a brown), so a setting never
#: shares its colour with a baseline beside it (vermillion was HDDM-A's, green EDDM's).
SETTING_COLOURS: tuple[str, ...] = (OKABE_ITO["blue"], "#CC6677", "#117733", "#8C510A")


def _rgba(colour: str, alpha: float) -> str:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"


def band_traces(name: str, x: Sequence[int], low: ArrayLike, high: ArrayLike, *, colour: str,
                yaxis: str = "y", hover: str = "") -> list[go.Scatter]:
    """A shaded band from ``low`` to ``high`` (two traces: ``<name> low``, ``<name> high``).

    Examples
    --------
    >>> lo, hi = band_traces("A band", [1, 2], [0, 1], [2, 3], colour="#0072B2")
    >>> lo.name, hi.name, hi.fill, hi.fillcolor
    ('A band low', 'A band high', 'tonexty', 'rgba(0, 114, 178, 0.18)')
    """
    common = {"x": list(x), "mode": "lines", "line": {"width": 0, "color": colour},
              "showlegend": False, "yaxis": yaxis, "hoverinfo": "skip"}
    return [go.Scatter(y=np.asarray(low, dtype=np.float64), name=f"{name} low", **common),
            go.Scatter(y=np.asarray(high, dtype=np.float64), name=f"{name} high",
                       fill="tonexty", fillcolor=_rgba(colour, 0.18), **common)]


def detector_error_figure(
    chunk_index: Sequence[int],
    error_rate: Mapping[str, Sequence[float]],
    *,
    alarms: Mapping[str, Sequence[int]],
    true_drifts: Sequence[int] = (),
    x_range: tuple[float, float] | None = None,
    y_max: float | None = None,
    title: str | None = None,
    colours: Mapping[str, str] | None = None,
    bands: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
    alarm_counts: Mapping[str, Sequence[int]] | None = None,
    n_seeds: int = 1,
    lead: int = 1,
) -> go.Figure:
    """Each detector's model's error rate per chunk, and a lane of alarms per detector.

    Every detector adapts its own model, so each has its own error curve (the first ``lead``,
    PUDD's settings, drawn thick and on top; the others dashed when there are several
    settings); its alarms are triangles in its lane under the curves and, for the first
    detector, dotted lines. ``x_range`` and ``y_max`` fix the axes while the data grow.

    Over several seeds, ``error_rate`` holds the means, ``bands`` each detector's
    (min, max) and ``alarm_counts`` how many of the ``n_seeds`` seeds alarmed at each chunk
    of ``alarms`` (a bigger triangle for more seeds, the count beside it).

    Examples
    --------
    >>> fig = detector_error_figure([1, 2, 3], {"PUDD": [0.1, 0.3, 0.1], "DDM": [0.1, 0.3, 0.2]},
    ...                             alarms={"PUDD": [2], "DDM": []}, true_drifts=[2])
    >>> [t.name for t in fig.data]
    ['DDM error rate', 'PUDD error rate', 'True drift', 'PUDD alarm', 'DDM alarm']
    >>> fig.layout.yaxis2.categoryarray, len(fig.layout.shapes)  # lanes; drift band, alarm line
    (('DDM', 'PUDD'), 2)
    >>> fig = detector_error_figure([1, 2], {"A": [0.2, 0.3]}, alarms={"A": [2]},
    ...                             bands={"A": ([0.1, 0.2], [0.3, 0.4])},
    ...                             alarm_counts={"A": [3]}, n_seeds=4)
    >>> [t.name for t in fig.data], fig.data[1].y.tolist(), fig.data[3].text
    (['A band low', 'A band high', 'A error rate', 'A alarm'], [30.0, 40.0], ('3/4',))
    """
    names = list(error_rate)
    x = list(chunk_index)
    span = (x_range[1] - x_range[0]) if x_range is not None else (max(x) - min(x) if x else 0)
    colour_of = {n: (colours or {}).get(n) or detector_colour(n, i) for i, n in enumerate(names)}
    several = lead > 1
    traces: list[Any] = []
    for i, name in reversed(list(enumerate(names))):  # the first drawn last, on top
        err = 100.0 * np.asarray(error_rate[name], dtype=np.float64)
        if bands and name in bands:
            low, high = bands[name]
            traces += band_traces(f"{name} band", x, 100.0 * np.asarray(low, dtype=np.float64),
                                  100.0 * np.asarray(high, dtype=np.float64),
                                  colour=colour_of[name])
        mean = "mean " if bands else ""
        traces.append(go.Scatter(
            x=x, y=err, mode="lines+markers", name=f"{name} error rate", legendrank=i,
            line={"color": colour_of[name], "width": 2.5 if i < lead else 1.5,
                  **({"dash": "dash"} if several and i >= lead else {})},
            marker={"size": 4 if i < lead else 3},
            customdata=100.0 - err,
            hovertemplate=f"{name}, chunk %{{x}}: {mean}error %{{y:.1f}}% "
                          f"({mean}accuracy %{{customdata:.1f}}%)<extra></extra>",
        ))
    shapes = [drift_band_shape(d) for d in true_drifts]
    if len(true_drifts):
        traces.append(drift_legend())
    for i, name in enumerate(names):
        where = list(alarms.get(name, ()))
        colour = colour_of[name]
        if i == 0 and lead == 1:
            shapes += [alarm_shape(a, colour) for a in where]
        symbol = "triangle-down" if i < lead or not several else "triangle-down-open"
        marker: dict[str, Any] = {"symbol": symbol, "size": 11, "color": colour}
        extra: dict[str, Any] = {}
        if alarm_counts is not None and name in alarm_counts:
            counts = list(alarm_counts[name])
            marker["size"] = [7 + 8 * c / max(n_seeds, 1) for c in counts]
            labels = [f"{c}/{n_seeds}" for c in counts]
            extra = {"mode": "markers+text", "text": _spaced_labels(where, labels, span),
                     "customdata": labels,
                     "textposition": "middle right", "textfont": {"size": 10, "color": colour},
                     "hovertemplate": f"{name}: %{{customdata}} seeds alarm at chunk "
                                      "%{x}<extra></extra>"}
        traces.append(go.Scatter(
            x=where, y=[name] * len(where), yaxis="y2", name=f"{name} alarm",
            **({"mode": "markers",
                "hovertemplate": f"{name} alarm at chunk %{{x}}<extra></extra>"} | extra),
            marker=marker, showlegend=False,
        ))
    # a lane of 22 px per detector under 300 px of curves, so every lane keeps its label
    lanes = 22 * max(len(names), 2)
    plot = 300 + lanes + 50
    height = plot + 170 if title else plot + 140
    return one_go(
        traces, title=title, height=height, shapes=shapes,
        xaxis={**_chunk_axis(x_range), "anchor": "y2"},
        yaxis={"domain": [(lanes + 50) / plot, 1.0],
               "title": {"text": "Mean error rate (%)" if bands else "Error rate (%)"},
               **({"range": [0.0, 100.0 * y_max * 1.05]} if y_max is not None else {})},
        yaxis2={"domain": [0.0, lanes / plot], "type": "category", "categoryorder": "array",
                "categoryarray": names[::-1], "range": [-0.6, len(names) - 0.4],
                "showgrid": False, "automargin": True, "tickmode": "array",
                "tickvals": names[::-1], "ticktext": [lane_label(n) for n in names[::-1]],
                "title": {"text": "Alarms"}},
    )


def settings_pvalue_figure(
    chunk_index: Sequence[int],
    p_values: Mapping[str, Sequence[float]],
    *,
    alphas: Mapping[str, float],
    colours: Mapping[str, str],
    true_drifts: Sequence[int] = (),
    x_range: tuple[float, float] | None = None,
    floor: float | None = None,
    bands: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
    title: str | None = None,
) -> go.Figure:
    """Each PUDD setting's smallest p per chunk, in its colour, with its own threshold.

    ``p_values`` maps a setting to its p per chunk (over several seeds: the geometric mean,
    with ``bands`` the (min, max) p); p-values below ``10**floor`` sit on the floor as
    downward triangles. Each distinct threshold is a dash-dot line in its setting's colour.

    Examples
    --------
    >>> fig = settings_pvalue_figure([1, 2], {"PUDD-3": [1.0, 1e-40], "PUDD-5": [1.0, 1e-40]},
    ...                              alphas={"PUDD-3": 1e-3, "PUDD-5": 1e-5},
    ...                              colours={"PUDD-3": "#0072B2", "PUDD-5": "#D55E00"},
    ...                              floor=-12)
    >>> [t.name for t in fig.data]
    ['PUDD-3 min p', 'PUDD-5 min p', 'threshold α = 1e-03', 'threshold α = 1e-05']
    >>> [s.line.color for s in fig.layout.shapes], fig.data[1].y.tolist()
    (['#0072B2', '#D55E00'], [0.0, -12.0])
    """
    traces: list[Any] = []
    for name, values in p_values.items():
        if bands and name in bands:
            low, high = (clipped_log10_p(v, floor)[0] for v in bands[name])
            traces += band_traces(f"{name} p band", chunk_index, low, high,
                                  colour=colours[name])
        trace = p_scatter(chunk_index, values, name=f"{name} min p", floor=floor, size=6)
        trace.line.color = colours[name]
        traces.append(trace)
    shapes = [drift_band_shape(d) for d in true_drifts]
    seen: dict[float, str] = {}
    for name, alpha in alphas.items():
        seen.setdefault(alpha, colours[name])
    for alpha, colour in seen.items():
        shape = threshold_shape(alpha)
        shape["line"] = {**shape["line"], "color": colour}
        shapes.append(shape)
        proxy = threshold_proxy(alpha)
        proxy.line.color = colour
        traces.append(proxy)
    # the legend at the bottom of the figure, under the x-axis title (a line and a threshold
    # per setting would cover the curves); one row per entry in a half-width column
    rows = len(p_values) + len(seen)
    return one_go(traces, title=title, height=300 + 21 * rows, shapes=shapes,
                  xaxis=_chunk_axis(x_range), yaxis=p_axis(floor),
                  legend={"orientation": "h", "x": 0.0, "y": 0.0, "yref": "container",
                          "yanchor": "bottom"},
                  margin={"b": 75 + 21 * rows})


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
    colour = detector_colour("PUDD")
    shapes = [*(drift_band_shape(d) for d in true_drifts),
              *(alarm_shape(a, colour) for a in alarms), threshold_shape(alpha)]
    return one_go(
        [p_scatter(chunk_index, p_values, name="PUDD min p", floor=floor, size=6),
         threshold_proxy(alpha)],
        title=title, height=330, shapes=shapes,
        xaxis=_chunk_axis(x_range),
        yaxis=p_axis(floor),
    )


def runs_figure(
    results: Mapping[str, Any], *, true_drifts: Sequence[int] = (), title: str | None = None
) -> go.Figure:
    """:func:`detector_error_figure` of finished runs on one stream, by display name.

    ``results`` maps a name to a :class:`~pudd_core.experiments.runner.RunResult`; the runs
    share their chunks (same stream, same length). The first run is drawn thickest, with alarm
    lines.

    Examples
    --------
    >>> from pudd_core.experiments.runner import RunConfig, run_experiment
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


def run_summary_frame(results: Mapping[str, Any]) -> pd.DataFrame:
    """One row per detector's run: accuracy, alarms and how they matched the true drifts.

    ``results`` maps a display name to a :class:`~pudd_core.experiments.runner.RunResult`.

    Examples
    --------
    >>> from pudd_core.experiments.runner import RunConfig, run_experiment
    >>> res = run_experiment(RunConfig("sea0", "gnb", n_chunks=25, seed=0))
    >>> run_summary_frame({"PUDD-3": res}).iloc[0].to_dict()
    {'detector': 'PUDD-3', 'accuracy (%)': 95.46..., 'alarms': 1, 'drifts detected': '1 of 2',
     'missed drifts': 1, 'false alarms': 0, 'mean delay (chunks)': 0.0, 'run time (s)': ...}
    """
    import pandas as pd

    from pudd_core.experiments.runner import runs_frame

    runs = runs_frame(results.values())
    n_drifts = [len(res.drift_chunks or ()) for res in results.values()]
    return pd.DataFrame({
        "detector": list(results),
        "accuracy (%)": 100.0 * runs["accuracy"],
        "alarms": runs["n_alarms"],
        "drifts detected": [f"{n - m:.0f} of {n}" if res.detection else "n/a"
                            for n, m, res in zip(n_drifts, runs["missed"], results.values(),
                                                 strict=True)],
        "missed drifts": runs["missed"],
        "false alarms": runs["false_alarms"],
        "mean delay (chunks)": runs["mean_delay"],
        "run time (s)": runs["elapsed_s"].round(1),
    })

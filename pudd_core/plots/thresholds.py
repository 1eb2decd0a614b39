"""Threshold studies: a sweep of α, false alarms without drift, and the Bonferroni view.

Used by the Threshold lab; the data come from :mod:`pudd_core.experiments.sweep` or cached runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from pudd_core.plots._style import (
    OKABE_ITO,
    REFERENCE_GREY,
    THRESHOLD_STYLE,
    add_threshold,
    apply_layout,
    detector_colour,
    legend_below,
    log10_p,
    new_figure,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "bonferroni_figure",
    "false_alarm_figure",
    "threshold_sweep_figure",
    "threshold_sweep_frame",
]


def _two_line_legend(fig: go.Figure) -> None:
    """Room between the title and the plot for a legend that wraps to two lines."""
    fig.update_layout(margin={"t": fig.layout.margin.t + 40}, height=fig.layout.height + 40)


def _alpha_axis(fig: go.Figure, exponents: Sequence[int], **where: Any) -> None:
    """A log α axis, 10⁻¹ on the left as on the app's threshold sliders."""
    xs = sorted(set(int(x) for x in exponents))
    fig.update_xaxes(type="log", autorange="reversed", tickvals=[10.0 ** -x for x in xs],
                     ticktext=[f"1e-{x}" for x in xs], **where)


def threshold_sweep_frame(results: Sequence[Any]) -> pd.DataFrame:
    """Finished PUDD runs at several α as the rows of ``experiments.sweep.threshold_sweep``.

    One row per :class:`~pudd_core.experiments.runner.RunResult`: ``exponent`` (x of α = 10⁻ˣ),
    ``alpha``, ``seed``, ``accuracy``, ``n_alarms``, ``mean_delay``, ``missed`` and
    ``false_alarms`` (NaN without ground truth), so runs cached one by one make a sweep.

    Examples
    --------
    >>> from pudd_core.experiments.runner import RunConfig, run_experiment
    >>> runs = [run_experiment(RunConfig("sea0", "gnb", alpha=a, n_chunks=25)) for a in (0.1, 1e-5)]
    >>> threshold_sweep_frame(runs)[["exponent", "n_alarms", "missed"]].values.tolist()
    [[1, 1, 1], [5, 1, 1]]
    """
    from pudd_core.experiments.runner import runs_frame
    from pudd_core.experiments.sweep import SWEEP_COLUMNS

    frame = runs_frame(results)[list(SWEEP_COLUMNS[1:])]
    frame.insert(0, "exponent", [round(-math.log10(a)) for a in frame["alpha"]])
    return frame


def threshold_sweep_figure(
    sweep: pd.DataFrame, *, n_drifts: int | None = None, title: str | None = None
) -> go.Figure:
    """PUDD's accuracy, alarms, detection delay and missed drifts against α = 10⁻ˣ.

    ``sweep`` is :func:`~pudd_core.experiments.sweep.threshold_sweep`'s frame; with several
    seeds each point is the mean, with ±1 standard deviation as error bars. ``n_drifts``
    (the stream's true drifts) is a dotted line on the alarm panel.

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
    apply_layout(fig, title=title, height=620)
    legend_below(fig)
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
            line={"color": REFERENCE_GREY, "dash": "dot", "width": 2}, hoverinfo="skip"),
            row=1, col=2)
    _alpha_axis(fig, list(mean.index))
    fig.update_xaxes(title_text="Threshold α (log scale)", row=2)
    fig.update_yaxes(rangemode="tozero", row=1, col=2)
    fig.update_yaxes(rangemode="tozero", row=2)
    return fig


def false_alarm_figure(rates: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Empirical false-alarm rates on a stream without drift against the nominal α.

    ``rates`` is :meth:`~pudd_core.experiments.sweep.FalseAlarmStudy.rates`: the share of single
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
    fig = new_figure(title=title, x_title="Nominal threshold α (log scale)",
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
        name="Bonferroni bound: α × cut points", line={"color": REFERENCE_GREY, "dash": "dot"},
        hovertemplate="α = %{x:.0e}: bound %{y:.3g}<extra></extra>"))
    _alpha_axis(fig, rates["exponent"].tolist())
    fig.update_yaxes(type="log", exponentformat="power")
    _two_line_legend(fig)
    return fig


def bonferroni_figure(chunk_p: pd.DataFrame, *, alpha: float,
                      title: str | None = None) -> go.Figure:
    """The smallest p over the cut points of each chunk, against α and α / (cut points).

    ``chunk_p`` is :attr:`~pudd_core.experiments.sweep.FalseAlarmStudy.chunk_p` (a stream without
    drift, so every point below α is a false alarm). PUDD alarms when min p < α, uncorrected; a
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
    fig = new_figure(title=title, x_title="Chunk index (stream without drift)",
                     y_title="log₁₀ min p over cut points", height=400)
    fig.add_trace(go.Scatter(
        x=x, y=log10_p(p), mode="markers", name="min p over cut points",
        marker={"color": detector_colour("PUDD"), "size": 7},
        customdata=np.stack([m, p], axis=-1) if len(p) else None,
        hovertemplate="chunk %{x}: min p = %{customdata[1]:.2e} over "
                      "%{customdata[0]} cut points<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=[v for v, b in zip(x, low, strict=True) if b], y=log10_p(p[low]), mode="markers",
        name="false alarm: min p < α", hoverinfo="skip",
        marker={"color": OKABE_ITO["vermillion"], "size": 11, "symbol": "x"}))
    add_threshold(fig, alpha)
    # each chunk's own corrected threshold: a short dash per chunk (m varies with the cuts run)
    fig.add_trace(go.Scatter(
        x=x, y=np.log10(alpha / np.maximum(m, 1.0)), mode="markers",
        name="Bonferroni: α / cut points",
        marker={"symbol": "line-ew-open", "size": 9, "color": OKABE_ITO["green"],
                "line": {"width": 2, "color": OKABE_ITO["green"]}},
        hovertemplate="chunk %{x}: α / m = 10^%{y:.2f}<extra></extra>"))
    _two_line_legend(fig)
    return fig

"""Detection delays as distributions, the early-detection trade-off, and alarm timelines."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from pudd_core.plots._style import PALETTE, detector_colour, new_figure

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["alarm_timeline_figure", "delay_ecdf_figure", "near_spread_figure",
           "trade_off_figure"]


def _colour(row: str, index: int) -> str:
    from pudd_core.paper import DISPLAY_NAMES

    family = "PUDD" if row.startswith("pudd") else DISPLAY_NAMES.get(row.split("@")[0], row)
    return detector_colour(family, index)


#: PUDD-1/3/5 share PUDD's colour: told apart by the line's dash.
_DASH = {"pudd-1": "dot", "pudd-5": "dash"}


def _legend_below(fig: go.Figure) -> None:
    """A horizontal legend under the x-axis title, clear of it."""
    fig.update_layout(legend={"orientation": "h", "y": -0.4, "yanchor": "top", "x": 0},
                      margin={"b": 40})


def _label(row: str) -> str:
    from pudd_core.paper import DISPLAY_NAMES

    return row.upper() if row.startswith("pudd") else DISPLAY_NAMES.get(row, row)


def delay_ecdf_figure(delays: pd.DataFrame, *, title: str | None = None,
                      max_delay: int = 9) -> go.Figure:
    """Per row, the share of all drifts detected within d chunks, d = 0..``max_delay``.

    ``delays``: ``row`` and ``delay`` (chunks; NaN: missed), one row per drift and run. A
    curve that stays below 1 at the right end is the share missed.

    Examples
    --------
    >>> import pandas as pd
    >>> d = pd.DataFrame({"row": ["pudd-3"] * 4, "delay": [0, 0, 2, float("nan")]})
    >>> fig = delay_ecdf_figure(d, max_delay=3)
    >>> fig.data[0].name, list(fig.data[0].y)
    ('PUDD-3', [0.5, 0.5, 0.75, 0.75])
    """
    fig = new_figure(title=title, x_title="delay d (chunks)",
                     y_title="drifts detected within d", height=520)
    steps = np.arange(max_delay + 1)
    for i, (row, group) in enumerate(delays.groupby("row", sort=False)):
        found = group["delay"].to_numpy(dtype=float)
        share = [float(np.mean(found <= s)) for s in steps]  # NaN compares False: a miss
        fig.add_trace(go.Scatter(
            x=steps.tolist(), y=share, mode="lines+markers", line_shape="hv", name=_label(row),
            line={"color": _colour(row, i), "dash": _DASH.get(row, "solid")},
            hovertemplate=f"{_label(row)}: %{{y:.0%}} within %{{x}} chunks<extra></extra>"))
    fig.update_yaxes(range=[0, 1.02], tickformat=".0%")
    _legend_below(fig)
    return fig


def trade_off_figure(curve: pd.DataFrame, *, title: str | None = None,
                     points: pd.DataFrame | None = None) -> go.Figure:
    """Early detections against false alarms per run, one line per detector over its threshold.

    ``curve``: ``detector``, ``row``, ``value`` (the threshold), ``early``, ``drifts``,
    ``false_alarms`` and ``default`` (the tables' threshold, drawn larger), as
    :func:`pudd_core.reproduction.delays.trade_off` gives with ``default`` added. ``points``
    (``detector``, ``early``, ``drifts``, ``false_alarms``): one run per detector at its
    tables' threshold, drawn as open diamonds (a comparison's own adapting runs).

    Examples
    --------
    >>> import pandas as pd
    >>> c = pd.DataFrame({"detector": "pudd", "row": ["pudd-1", "pudd-3"], "value": [0.1, 1e-3],
    ...                   "early": [8, 6], "drifts": 10, "false_alarms": [3.0, 0.5],
    ...                   "default": [False, True]})
    >>> fig = trade_off_figure(c)
    >>> fig.data[0].name, list(fig.data[0].x), list(fig.data[0].y)
    ('PUDD', [0.5, 3.0], [0.6, 0.8])
    >>> p = pd.DataFrame({"detector": ["pudd-3"], "early": [5], "drifts": [10],
    ...                   "false_alarms": [1.0]})
    >>> trade_off_figure(c, points=p).data[-1].y
    (0.5,)
    """
    from pudd_core.paper import DISPLAY_NAMES

    fig = new_figure(title=title, x_title="false alarms per run",
                     y_title="drifts detected early (≤ 2)", height=560)
    for i, (det, group) in enumerate(curve.groupby("detector", sort=False)):
        group = group.sort_values("false_alarms")
        name = "PUDD" if det == "pudd" else DISPLAY_NAMES.get(det, det)
        share = (group["early"] / group["drifts"]).round(4)
        fig.add_trace(go.Scatter(
            x=group["false_alarms"].round(3).tolist(), y=share.tolist(), name=name,
            mode="lines+markers", line={"color": _colour(det, i)},
            marker={"size": [13 if d else 7 for d in group["default"]]},
            text=[_label(r) for r in group["row"]],
            hovertemplate="%{text}: %{y:.0%} early, %{x:.2f} false alarms per run"
                          "<extra></extra>"))
    if points is not None and len(points):
        fig.add_trace(go.Scatter(
            x=points["false_alarms"].round(3).tolist(),
            y=(points["early"] / points["drifts"]).round(4).tolist(), mode="markers",
            name="the tables' adapting runs", text=[_label(d) for d in points["detector"]],
            marker={"symbol": "diamond-open", "size": 11, "color": "#222"},
            hovertemplate="%{text} (adapting runs): %{y:.0%} early, %{x:.2f} false alarms "
                          "per run<extra></extra>"))
    fig.update_yaxes(range=[0, 1.02], tickformat=".0%")
    _legend_below(fig)
    return fig


def alarm_timeline_figure(runs: pd.DataFrame, events: pd.DataFrame, dataset: str, *,
                          title: str | None = None) -> go.Figure:
    """Each detector's alarm chunks on one real stream, with its known events as lines.

    ``runs``: ``dataset``, ``detector``, ``alarms`` (JSON text or a list); ``events``:
    ``dataset``, ``chunk``, ``first``, ``last`` and ``events`` (empty where none).

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"dataset": "elec2", "detector": ["pudd-3", "adwin"],
    ...                      "alarms": ["[3, 7]", "[1]"]})
    >>> ev = pd.DataFrame({"dataset": "elec2", "chunk": [3], "first": ["a"], "last": ["b"],
    ...                    "events": ["x"]})
    >>> fig = alarm_timeline_figure(runs, ev, "elec2")
    >>> [(t.name, list(t.x)) for t in fig.data], len(fig.layout.shapes)
    ([('PUDD-3', [3, 7]), ('ADWIN', [1])], 1)
    """
    part = runs[runs["dataset"] == dataset]
    ev = events[events["dataset"] == dataset].set_index("chunk")
    fig = new_figure(title=title, x_title="chunk", y_title="", height=120 + 28 * len(part))
    for i, run in enumerate(part.to_dict("records")):
        alarms = run["alarms"]
        alarms = json.loads(alarms) if isinstance(alarms, str) else list(alarms)
        when = [f"{ev.loc[a, 'first']} to {ev.loc[a, 'last']}" if a in ev.index else ""
                for a in alarms]
        fig.add_trace(go.Scatter(
            x=alarms, y=[_label(run["detector"])] * len(alarms), mode="markers",
            name=_label(run["detector"]), marker={"color": _colour(run["detector"], i),
                                                  "size": 9, "symbol": "line-ns-open"},
            text=when, hovertemplate="%{y}: alarm at chunk %{x} (%{text})<extra></extra>",
            showlegend=False))
    for chunk, row in ev[ev["events"].fillna("") != ""].iterrows():
        fig.add_vline(x=chunk, line={"color": "#888", "dash": "dot"},
                      annotation_text=str(row["events"]).split(" (")[0][:28],
                      annotation_textangle=-90, annotation_font_size=10)
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_layout(margin={"l": 90})
    return fig


def near_spread_figure(summary: pd.DataFrame, dataset: str, *,
                       title: str | None = None) -> go.Figure:
    """Per detector and classifier: the share of a run's alarms near an event, one dot a seed.

    ``summary``: :func:`pudd_core.reproduction.timelines.timeline_summary`'s rows (``dataset``,
    ``classifier``, ``seed``, ``detector``, ``alarms``, ``near``, ``chance_share``). One box
    per classifier (runs without alarms left out: they have no share); the dashed line is the
    share random alarms would give.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"dataset": "elec2", "classifier": ["gnb", "gnb", "vfdt"],
    ...                   "seed": [0, 1, 0], "detector": "pudd-3", "alarms": [4, 2, 0],
    ...                   "near": [1, 2, 0], "chance_share": 0.25})
    >>> fig = near_spread_figure(s, "elec2")
    >>> [(t.name, list(t.y)) for t in fig.data], fig.layout.shapes[0].y0
    ([('GNB', [0.25, 1.0])], 0.25)
    """
    from pudd_core.paper import DISPLAY_NAMES

    part = summary[(summary["dataset"] == dataset) & (summary["alarms"] > 0)]
    fig = new_figure(title=title, x_title="", y_title="share of the alarms near an event",
                     height=460)
    for i, (classifier, group) in enumerate(part.groupby("classifier", sort=False)):
        name = DISPLAY_NAMES.get(classifier, classifier)
        fig.add_trace(go.Box(
            x=[_label(d) for d in group["detector"]],
            y=(group["near"] / group["alarms"]).round(4).tolist(), name=name,
            boxpoints="all", jitter=0.4, pointpos=0, marker={"size": 5},
            line={"color": PALETTE[i % len(PALETTE)]},
            text=[f"seed {s}: {int(n)} of {int(a)}" for s, n, a in
                  zip(group["seed"], group["near"], group["alarms"], strict=True)],
            hovertemplate=f"{name}, %{{x}}, %{{text}} near<extra></extra>"))
    if len(part):
        fig.add_hline(y=float(part["chance_share"].iloc[0]), line={"color": "#888",
                                                                   "dash": "dash"},
                      annotation_text="by chance", annotation_position="top left")
    fig.update_layout(boxmode="group")
    fig.update_yaxes(range=[-0.02, 1.02], tickformat=".0%")
    _legend_below(fig)
    return fig

"""The one look of every PUDD Lab figure, and the helpers the builders share.

The template, the colour-blind-safe Okabe-Ito palette and the styles of true drifts, alarms,
thresholds and bucket edges are defined once here; every builder in ``pudd_core.plots`` uses them.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

from pudd_core.chi2 import p_text as p_text  # re-exported: the figures' labels

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
#: Colours of the tests that are not detectors of the registry (the teaching pages').
_TEST_COLOURS: Mapping[str, str] = {"Error-rate test": "vermillion"}


class _DetectorColours(Mapping[str, str]):
    """Display name -> colour: each detector's colour in the registry, as the registry is now.

    The registry (``pudd_core.experiments.detectors``) names a colour of :data:`OKABE_ITO`
    or a CSS colour; it is read at each use, so ``import pudd_core.plots`` does not load it.
    """

    def _colours(self) -> dict[str, str]:
        from pudd_core.experiments.detectors import detector_colours

        named = {**detector_colours(), **_TEST_COLOURS}
        return {name: OKABE_ITO.get(colour, colour) for name, colour in named.items()}

    def __getitem__(self, name: str) -> str:
        return self._colours()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._colours())

    def __len__(self) -> int:
        return len(self._colours())

    def __repr__(self) -> str:
        return repr(self._colours())


#: One colour per detector, so PUDD looks the same on every page: display name -> colour.
DETECTOR_COLOURS: Mapping[str, str] = _DetectorColours()
POSITIVE_COLOUR = OKABE_ITO["orange"]  # an interest class (label 1) of CIFAR-10-CD
NEGATIVE_COLOUR = "#E8E8E8"
HATCH_COLOUR = "#333333"  # the stripes of hatched (misclassified) bars, on the bar's colour
REFERENCE_GREY = "#777777"  # reference lines: true drift count, bounds, "ours = paper"

#: A true drift is a grey band one chunk wide, so an alarm line on the same chunk stays visible.
TRUE_DRIFT_STYLE: Mapping[str, Any] = {"fillcolor": "rgba(0, 0, 0, 0.14)", "line": {"width": 0}}
ALARM_STYLE: Mapping[str, Any] = {"dash": "dot", "width": 2.0}  # colour: the detector's
THRESHOLD_STYLE: Mapping[str, Any] = {"color": OKABE_ITO["purple"], "dash": "dashdot", "width": 2.0}
BUCKET_EDGE_STYLE: Mapping[str, Any] = {"color": OKABE_ITO["green"], "dash": "dot", "width": 1.5}
P_FLOOR = 1e-300  # p-values below this (or exactly 0) are drawn at the floor

_AXIS: Mapping[str, Any] = {"showgrid": True, "gridcolor": "#E5E5E5", "zeroline": False,
                            "linecolor": "#999", "showline": True, "ticks": "outside"}
# the template's xaxis and yaxis style every x and y axis, subplots' too: builders set none
TEMPLATE = go.layout.Template(
    layout=go.Layout(
        colorway=list(PALETTE),
        font={"family": "Source Sans Pro, Arial, sans-serif", "size": 14, "color": "#262730"},
        paper_bgcolor="white",
        plot_bgcolor="white",
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "left", "x": 0},
        hovermode="closest",
        xaxis=dict(_AXIS),
        yaxis=dict(_AXIS),
    )
)


def detector_colour(name: str, index: int = 0) -> str:
    """The colour of detector ``name`` (a palette colour by position for unknown names).

    Examples
    --------
    >>> detector_colour("PUDD"), detector_colour("HDDM-A"), detector_colour("Mine", 2)
    ('#0072B2', '#D55E00', '#009E73')
    """
    return DETECTOR_COLOURS.get(name, PALETTE[index % len(PALETTE)])


# --- layout --------------------------------------------------------------------------------------
#: A title longer than this many characters is wrapped onto lines of at most this many: plotly
#: never wraps a title, and at 1024 px beside the sidebar a chart is about 520 px wide, room for
#: about 55 characters of its 17 px title (a line cut at the chart's edge was the defect).
TITLE_WIDTH = 52
_TITLE_LINE_PX = 26  # each extra line of the title gets this much more top margin


def wrap_title(title: str | None, width: int = TITLE_WIDTH) -> list[str]:
    """The lines of ``title``, wrapped at spaces to at most ``width`` characters.

    A title that already holds markup (``<br>``, ``<sup>``) is its author's layout, kept.

    Examples
    --------
    >>> wrap_title("pretrained-cnn on CIFAR-10-CD: error rate per chunk and alarms")
    ['pretrained-cnn on CIFAR-10-CD: error rate per chunk', 'and alarms']
    >>> wrap_title("Short"), wrap_title(None), wrap_title("a<br>b")
    (['Short'], [], ['a<br>b'])
    """
    if not title:
        return []
    if "<" in title:
        return [title]
    return textwrap.wrap(title, width=width, break_long_words=False, break_on_hyphens=False)


def title_text(title: str | None) -> str:
    """``title`` as plotly shows it: its :func:`wrap_title` lines joined by ``<br>``."""
    return "<br>".join(wrap_title(title))


def title_room(title: str | None) -> int:
    """The extra top margin (px) a wrapped ``title`` needs beyond one line."""
    return _TITLE_LINE_PX * max(len(wrap_title(title)) - 1, 0)


def base_layout(title: str | None, height: int) -> dict[str, Any]:
    """The template, a left-aligned title (wrapped, :func:`wrap_title`), room for the legend.

    A title of several lines makes the figure taller by the room its extra lines take.
    """
    extra = title_room(title)
    return {
        "template": TEMPLATE, "height": height + extra,
        # plotly lifts a title of several lines by about half a line per extra line, cutting
        # its first line at the top edge: the padding moves it back down
        "title": {"text": title_text(title), "x": 0, "xanchor": "left",
                  "y": 0.98, "yanchor": "top", "pad": {"t": extra // 2}},
        "margin": {"t": (90 if title else 60) + extra},
        "legend": {"y": 1.0 if title else 1.02},
    }


def apply_layout(fig: go.Figure, *, title: str | None, height: int) -> None:
    """Give ``fig`` (built trace by trace, e.g. with subplots) the common layout."""
    fig.update_layout(**base_layout(title, height))


def new_figure(*, title: str | None, x_title: str, y_title: str, height: int = 420) -> go.Figure:
    """An empty single-plot figure with the common layout and axis titles."""
    fig = go.Figure()
    apply_layout(fig, title=title, height=height)
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=y_title)
    return fig


def one_go(traces: Sequence[Any], *, title: str | None, height: int, **layout: Any) -> go.Figure:
    """A figure in one construction: the common layout updated by ``layout``.

    The Stream explorer redraws on every step: one construction validates traces, shapes and
    layout once, where incremental ``add_shape``/``update_layout`` calls cost 5-10 times more.
    """
    base = base_layout(title, height)
    extra = title_room(title)
    for key, value in layout.items():
        if key == "margin" and "t" in value:  # the builder's own top margin, plus the title's
            value = {**value, "t": value["t"] + extra}
        base[key] = {**base[key], **value} if isinstance(base.get(key), dict) else value
    return go.Figure(data=list(traces), layout=base)


def legend_below(fig: go.Figure) -> None:
    """Legend under the x-axis titles, for subplots whose titles take the top."""
    fig.update_layout(legend={"y": -0.22, "yanchor": "top"}, margin={"b": 120})


# --- legend entries ------------------------------------------------------------------------------
def legend_proxy(name: str, line: Mapping[str, Any]) -> go.Scatter:
    """An empty line trace that puts a shape style (drift, alarm, edge) in the legend."""
    return go.Scatter(x=[None], y=[None], mode="lines", line=dict(line), name=name,
                      hoverinfo="skip")


def threshold_proxy(alpha: float) -> go.Scatter:
    """The threshold's legend entry, ``threshold α = 1e-03``."""
    return legend_proxy(f"threshold α = {alpha:.0e}", THRESHOLD_STYLE)


def square_legend(name: str, colour: str, *, symbol: str = "square",
                  line_width: float | None = None) -> go.Scatter:
    """An empty marker trace that puts a colour (band, heatmap cell, frame) in the legend."""
    marker = {"symbol": symbol, "size": 14, "color": colour,
              **({"line": {"width": line_width}} if line_width is not None else {})}
    return go.Scatter(x=[None], y=[None], mode="markers", name=name, hoverinfo="skip",
                      marker=marker)


def drift_legend(name: str = "True drift") -> go.Scatter:
    """The true-drift band's legend entry: a grey square."""
    return square_legend(name, TRUE_DRIFT_STYLE["fillcolor"])


# --- shapes: drifts, alarms, thresholds, edges ---------------------------------------------------
def vline_shape(x: float, line: Mapping[str, Any], layer: str = "below") -> dict[str, Any]:
    """A full-height vertical line (across every subplot row)."""
    return {"type": "line", "x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "paper",
            "line": dict(line), "layer": layer}


def alarm_shape(x: float, colour: str) -> dict[str, Any]:
    """A detector's alarm: a dotted full-height line in the detector's colour (named "alarm")."""
    return {**vline_shape(x, {**ALARM_STYLE, "color": colour}), "name": "alarm"}


def drift_band_shape(chunk: float) -> dict[str, Any]:
    """A true drift: the first chunk of the new concept, shaded over every subplot row."""
    return {"type": "rect", "x0": chunk - 0.5, "x1": chunk + 0.5, "xref": "x", "y0": 0, "y1": 1,
            "yref": "paper", "layer": "below", **TRUE_DRIFT_STYLE}


def threshold_shape(alpha: float) -> dict[str, Any]:
    """The threshold as a horizontal line at log10 ``alpha`` across the plot."""
    y = math.log10(alpha)
    return {"type": "line", "x0": 0, "x1": 1, "xref": "x domain", "y0": y, "y1": y, "yref": "y",
            "line": dict(THRESHOLD_STYLE)}


def add_threshold(fig: go.Figure, alpha: float, **where: Any) -> None:
    """The threshold line and its legend entry, in subplot ``where`` (``row=, col=``) if given."""
    fig.add_shape(threshold_shape(alpha), **where)
    fig.add_trace(threshold_proxy(alpha), **where)


# --- p-values ------------------------------------------------------------------------------------
def log10_p(p_values: ArrayLike) -> NDArray[np.float64]:
    """log10 p, with p = 0 drawn at ``P_FLOOR`` and NaN (no test) kept as a gap."""
    p = np.asarray(p_values, dtype=np.float64)
    return np.where(np.isnan(p), np.nan, np.log10(np.clip(p, P_FLOOR, 1.0)))


def smallest_p_index(p_values: ArrayLike) -> int | None:
    """Index of the smallest p (the first on ties); None when no cut was tested (all NaN).

    Examples
    --------
    >>> smallest_p_index([0.3, float("nan"), 0.01]), smallest_p_index([float("nan")])
    (2, None)
    """
    ps = np.asarray(p_values, dtype=np.float64)
    if ps.size == 0 or np.isnan(ps).all():
        return None
    return int(np.nanargmin(ps))


def clipped_log10_p(
    p_values: ArrayLike, floor: float | None
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """log10 p drawn no lower than ``floor`` (the hover keeps the true p), and which were cut."""
    y = log10_p(p_values)
    if floor is None:
        return y, np.zeros(y.shape, dtype=bool)
    low = np.nan_to_num(y, nan=0.0) < floor
    return np.where(low, floor, y), low


def p_scatter(x: Sequence[int], p_values: Sequence[float], *, name: str, floor: float | None,
              size: int) -> go.Scatter:
    """PUDD's log10 p as a line; values cut at ``floor`` are downward triangles."""
    y, low = clipped_log10_p(p_values, floor)
    return go.Scatter(
        x=list(x), y=y, mode="lines+markers", name=name, line={"color": detector_colour("PUDD")},
        marker={"size": size, "symbol": ["triangle-down" if c else "circle" for c in low]},
        text=[p_text(p) for p in p_values], hovertemplate="%{x}: %{text}<extra></extra>",
    )


def p_axis(floor: float | None) -> dict[str, Any]:
    """A log10 p axis, down to just under ``floor`` when given."""
    return {"title": {"text": "log₁₀ p-value"},
            **({"range": [floor - 0.5, 0.5]} if floor is not None else {})}

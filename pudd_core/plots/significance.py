"""Critical-difference diagrams (Demšar 2006): average ranks on an axis, bars over ties.

The axis carries the average rank of each method (1 = best, on the left); each method hangs
from its rank to its label; a thick bar joins methods whose average ranks differ by less than
the Nemenyi critical difference, drawn as a scale bar above the axis. The caption names the
test, the blocks and alpha.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping

import plotly.graph_objects as go

from pudd_core.plots._style import REFERENCE_GREY, apply_layout, detector_colour, title_room
from pudd_core.reproduction.significance import FriedmanResult

__all__ = ["cd_diagram_figure", "method_label"]

_ROW = 0.55  # vertical step between two labels


def method_label(name: str) -> str:
    """The paper's name of a method: ``"pudd-3"`` -> ``"PUDD-3"``, ``"ek-5"`` -> ``"EK-5"``.

    Examples
    --------
    >>> method_label("pudd-3"), method_label("adlter"), method_label("ek-5")
    ('PUDD-3', 'ADLTER', 'EK-5')
    """
    from pudd_core.paper import DISPLAY_NAMES

    return DISPLAY_NAMES.get(name) or name.upper()


def cd_diagram_figure(result: FriedmanResult, *, title: str | None = None,
                      labels: Mapping[str, str] | None = None, height: int | None = None,
                      width_px: int = 380) -> go.Figure:
    """The critical-difference diagram of ``result``.

    Parameters
    ----------
    result
        :func:`~pudd_core.reproduction.significance.friedman_nemenyi`'s result.
    title
        Figure title (the caption under the plot says which test, blocks and alpha).
    labels
        Method -> display name (default: :func:`method_label`).
    height
        Figure height in pixels (default: from the number of methods and bars).
    width_px
        The width the figure is laid out for (the labels need room beside the axis; 380
        fits half of a wide Streamlit page); the caption is wrapped to it.

    Examples
    --------
    >>> from pudd_core.reproduction.significance import friedman_nemenyi
    >>> from pudd_core.paper import paper_table
    >>> t = paper_table(2).pivot(index="dataset", columns="detector", values="accuracy")
    >>> fig = cd_diagram_figure(friedman_nemenyi(t, blocks="8 datasets"))
    >>> [a.text for a in fig.layout.annotations][1:4]
    ['PUDD-3', 'PUDD-5', 'PUDD-1']
    >>> [t.name for t in fig.data if t.name.startswith("not significantly")]
    ['not significantly different: PUDD-3, PUDD-5, PUDD-1, ADLTER, MCD-DD, NS',
     'not significantly different: ADLTER, MCD-DD, NS, AMF, IWE']
    """
    names = list(result.ranks.index)
    ranks = [float(r) for r in result.ranks]
    k = len(names)
    name_of = {m: (labels or {}).get(m) or method_label(m) for m in names}
    groups = result.groups() if result.significant else [tuple(names)]
    lo, hi = 1.0, float(max(k, 2))
    n_left = math.ceil(k / 2)
    bar_top = -0.25
    bar_step = 0.22
    first_label = bar_top - bar_step * len(groups) - 0.2
    bottom = first_label - _ROW * (max(n_left, k - n_left) - 1) - 0.4
    fig = go.Figure()
    # the axis and its ticks, drawn as data: plotly's own axis cannot hang labels
    fig.add_trace(go.Scatter(x=[lo, hi], y=[0, 0], mode="lines", showlegend=False,
                             line={"color": "#262730", "width": 1.5}, hoverinfo="skip",
                             name="axis"))
    ticks = [float(t) for t in range(1, int(hi) + 1)]
    fig.add_trace(go.Scatter(
        x=[v for t in ticks for v in (t, t, None)], y=[v for _ in ticks for v in (0, 0.12, None)],
        mode="lines", line={"color": "#262730", "width": 1}, showlegend=False,
        hoverinfo="skip", name="ticks"))
    fig.add_trace(go.Scatter(x=ticks, y=[0.3] * len(ticks), mode="text",
                             text=[f"{t:g}" for t in ticks], showlegend=False,
                             hoverinfo="skip", name="tick labels"))
    cd = result.critical_difference
    wrap = max(40, int(width_px / 6.2))
    fig.add_trace(go.Scatter(
        x=[lo, lo + cd], y=[0.75, 0.75], mode="lines+markers", name=f"CD = {cd:.3f}",
        line={"color": REFERENCE_GREY, "width": 2}, marker={"symbol": "line-ns-open", "size": 10},
        showlegend=False, hovertemplate=f"Nemenyi CD = {cd:.3f}<extra></extra>"))
    annotations = [{"x": lo + cd / 2, "y": 0.95, "text": f"CD = {cd:.2f}", "showarrow": False,
                    "font": {"size": 13, "color": REFERENCE_GREY}, "yanchor": "bottom"}]
    left_edge, right_edge = lo - 0.6, hi + 0.6
    for i, (m, r) in enumerate(zip(names, ranks, strict=True)):
        left = i < n_left
        row = i if left else k - 1 - i
        y = first_label - _ROW * row
        edge = left_edge if left else right_edge
        colour = detector_colour("PUDD") if m.startswith("pudd") else "#444444"
        fig.add_trace(go.Scatter(
            x=[r, r, edge], y=[0, y, y], mode="lines", line={"color": colour, "width": 1.2},
            name=name_of[m], showlegend=False,
            hovertemplate=f"{name_of[m]}: average rank {r:.3f}<extra></extra>"))
        annotations.append({
            "x": edge, "y": y, "text": name_of[m], "showarrow": False,
            "xanchor": "right" if left else "left", "font": {"color": colour, "size": 13}})
    for j, group in enumerate(groups):
        xs = [float(result.ranks[m]) for m in group]
        y = bar_top - bar_step * j
        fig.add_trace(go.Scatter(
            x=[min(xs) - 0.05, max(xs) + 0.05], y=[y, y], mode="lines",
            line={"color": "#262730", "width": 5},
            name="not significantly different: " + ", ".join(name_of[m] for m in group),
            showlegend=False, hovertemplate="%{fullData.name}<extra></extra>"))
    caption = result.caption() + " Average ranks: " + ", ".join(
        f"{name_of[m]} {r:.2f}" for m, r in zip(names, ranks, strict=True)) + "."
    if not result.significant:
        caption += " The Friedman test does not reject: no pair is told apart (one bar)."
    annotations.append({
        "x": 0, "y": 0, "xref": "paper", "yref": "paper", "xanchor": "left", "yanchor": "top",
        "yshift": -8, "showarrow": False, "align": "left", "font": {"size": 12},
        "text": "<br>".join(textwrap.wrap(caption, wrap))})
    n_lines = len(textwrap.wrap(caption, wrap))
    apply_layout(fig, title=title, height=height or int(150 + 62 * (0.9 - bottom) + 18 * n_lines))
    # room for the labels beside the axis, in rank units, for a plot ``width_px`` wide
    label_px = 7.5 * max(len(v) for v in name_of.values()) + 16
    label_room = 0.6 + label_px * (hi - lo) / max(width_px - 2 * label_px, 100)
    fig.update_layout(annotations=annotations,
                      margin={"l": 20, "r": 20, "b": 30 + 18 * n_lines,
                              "t": 70 + title_room(title) if title else 10})
    fig.update_xaxes(visible=False, range=[lo - label_room, hi + label_room])
    fig.update_yaxes(visible=False, range=[bottom, 1.25])
    return fig

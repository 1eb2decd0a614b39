"""Fig. 5: mean accuracy of PUDD-x beside EK-x, per classifier and training regime."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from pudd_core.plots._style import OKABE_ITO, new_figure

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ek_ablation_figure"]

_COLOURS = {"pudd-1": "#9ecae1", "pudd-3": "#4292c6", "pudd-5": OKABE_ITO["blue"],
            "ek-1": "#fdd0a2", "ek-3": "#fd8d3c", "ek-5": OKABE_ITO["vermillion"]}


def ek_ablation_figure(cells: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Grouped bars: for each classifier and regime, the mean over datasets of each row.

    ``cells``: the EK ablation's cells (``classifier, detector, dataset, regime, ours``), as
    ``pudd_core.reproduction.ablation.ek_ablation_cells`` writes them. A group's mean is over
    the datasets every row of the group has, so the bars compare like with like. The
    reference rows (no detector; the oracle) are drawn as horizontal marks over the same
    datasets where they ran on all of them (the oracle needs known drifts), never as bars.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = pd.DataFrame({"classifier": "gnb", "regime": "incremental",
    ...     "detector": ["pudd-3", "ek-3", "pudd-3", "ek-3"], "dataset": ["a", "a", "b", "b"],
    ...     "ours": [90.0, 80.0, 70.0, 60.0]})
    >>> fig = ek_ablation_figure(cells)
    >>> [(t.name, list(t.x), list(t.y)) for t in fig.data]
    [('PUDD-3', ['GNB -I'], [80.0]), ('EK-3', ['GNB -I'], [70.0])]
    >>> refs = pd.concat([cells, cells.iloc[[0, 2]].assign(detector="none", ours=[40.0, 50.0])])
    >>> fig = ek_ablation_figure(refs)  # the no-detector mark at 45, far below the bars
    >>> fig.data[-1].y, fig.layout.yaxis.range
    ((45.0,), (40.0, 82.0))
    """
    from pudd_core.paper import DISPLAY_NAMES, REFERENCES

    df = cells.dropna(subset=["ours"])
    wide = df.pivot_table(index=["classifier", "regime", "dataset"], columns="detector",
                          values="ours")
    refs = wide[[r for r in REFERENCES if r in wide.columns]]
    wide = wide.drop(columns=refs.columns).dropna()
    means = wide.groupby(level=["classifier", "regime"], sort=False).mean()
    counts = wide.groupby(level=["classifier", "regime"], sort=False).size()
    groups = [f"{DISPLAY_NAMES.get(c, c)} {DISPLAY_NAMES.get(r, r)}" for c, r in means.index]
    fig = new_figure(title=title, x_title="classifier and training regime",
                     y_title="mean accuracy over datasets (%)", height=420)
    for det in (d for d in _COLOURS if d in means.columns):
        fig.add_trace(go.Bar(
            x=groups, y=means[det].round(2).tolist(), name=det.upper(),
            marker_color=_COLOURS[det], customdata=counts.tolist(),
            hovertemplate=f"{det.upper()}, %{{x}}: %{{y:.2f}}% over %{{customdata}} "
                          "datasets<extra></extra>"))
    drawn = [means.to_numpy().ravel()]
    for ref in refs.columns:  # a reference over the very datasets of the bars, or not at all
        same = refs[ref].reindex(wide.index)
        shown = same.groupby(level=["classifier", "regime"], sort=False).agg(
            lambda v: v.mean() if v.notna().all() else float("nan")).reindex(means.index)
        if shown.notna().any():
            drawn.append(shown.dropna().to_numpy())
            fig.add_trace(go.Scatter(
                x=groups, y=shown.round(2).tolist(), mode="markers",
                name=f"{DISPLAY_NAMES[ref]}, not ranked",
                marker={"symbol": "line-ew-open", "size": 44, "color": "#222222" if ref ==
                        "none" else "#999999", "line": {"width": 3}},
                hovertemplate=f"{DISPLAY_NAMES[ref]}, %{{x}}: %{{y:.2f}}% over the same "
                              "datasets<extra></extra>"))
    if len(means):  # every bar and every reference mark on the axis
        values = np.concatenate(drawn)
        fig.update_yaxes(range=[max(0.0, float(values.min()) - 5),
                                min(100.0, float(values.max()) + 2)])
    fig.update_layout(barmode="group")
    return fig

"""The paper's accuracy tables reproduced: our cells beside theirs, as a table and a scatter."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from pudd_core.plots._style import REFERENCE_GREY, detector_colour, new_figure

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "reproduction_figure",
    "reproduction_frame",
]


def reproduction_frame(cells: pd.DataFrame, *, tolerance: float = 1.5,
                       not_comparable: Mapping[str, str] | None = None) -> pd.DataFrame:
    """A reproduction report's cells for ``st.dataframe``: paper's names, ours beside theirs.

    ``cells`` is :attr:`~pudd_core.reproduction.ReproductionReport.cells`.
    ``within`` is empty where a cell was not run or the paper gives no number.
    ``not_comparable`` (dataset -> why) adds a ``comparable`` column: "no: why" on those
    datasets' rows, "yes" elsewhere. Cells with alarm counts add them: the mean alarms, the
    drifts detected of those there, the false alarms and the mean delay.

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
    >>> reproduction_frame(cells, not_comparable={"powersupply": "why"})["comparable"].tolist()
    ['no: why', 'no: why']
    """
    import pandas as pd

    from pudd_core.paper import DISPLAY_NAMES

    ours = cells["ours"].astype(np.float64)
    diff = cells["difference"].astype(np.float64)
    within = [None if math.isnan(d) else bool(abs(d) <= tolerance + 1e-9) for d in diff]
    frame = pd.DataFrame({
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
    if "alarms" in cells:  # alarm counts: means over seeds (NaN: a learner, or not counted)
        frame["alarms"] = cells["alarms"].astype(np.float64).round(1)
        frame["drifts detected"] = [
            "" if math.isnan(d) else f"{d:.1f} of {n:g}" for d, n in zip(
                cells["detected"].astype(np.float64), cells["drifts"].astype(np.float64),
                strict=True)]
        frame["false alarms"] = cells["false_alarms"].astype(np.float64).round(1)
        frame["delay (chunks)"] = cells["delay"].astype(np.float64).round(2)
    if not_comparable is not None:
        frame["comparable"] = [f"no: {not_comparable[d]}" if d in not_comparable else "yes"
                               for d in cells["dataset"]]
    return frame


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
    fig = new_figure(title=title, x_title="Paper's accuracy (%)",
                     y_title="Our accuracy (%), mean over seeds", height=520)
    fig.add_trace(go.Scatter(
        x=[lo, hi, hi, lo], y=[lo + tolerance, hi + tolerance, hi - tolerance, lo - tolerance],
        fill="toself", mode="none", fillcolor="rgba(0, 158, 115, 0.15)",
        name=f"±{tolerance:g} points", hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="ours = paper",
                             line={"color": REFERENCE_GREY, "width": 1}, hoverinfo="skip"))
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

"""Figures and the self-contained HTML report of :func:`pudd_core.monitor` on a prediction log.

The report is one HTML file with plotly.js embedded (``include_plotlyjs=True``): it opens
offline, and every figure's data sits in its ``Plotly.newPlot`` call.
"""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import plotly.graph_objects as go

from pudd_core.chi2 import p_text
from pudd_core.monitoring import PU_BINS
from pudd_core.plots._style import (
    WINDOW_COLOURS,
    alarm_shape,
    detector_colour,
    one_go,
    p_axis,
    p_scatter,
    square_legend,
    threshold_proxy,
    threshold_shape,
)
from pudd_core.plots.windows import cut_scan_figure, window_histogram_figure

if TYPE_CHECKING:
    from pudd_core.monitoring import MonitorResult, ReportView

__all__ = ["MAX_ALARM_FIGURES", "class_figure", "error_figure", "min_p_figure", "monitor_figures",
           "monitor_report_html", "variant_text"]

#: Alarms whose cut scan and windows' histograms the report draws (the table lists them all).
MAX_ALARM_FIGURES = 50


def variant_text(result: MonitorResult) -> str:
    """PUDD's settings in words: the count floor (calibrated or the authors') and options.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pudd_core.monitoring import monitor
    >>> p = np.random.default_rng(0).uniform(0.6, 1.0, 2000)
    >>> variant_text(monitor(pd.DataFrame({"y": 0, "a": p, "b": 1 - p}), label="y",
    ...                      proba_columns=["a", "b"]))[:55]
    'the calibrated count floor (clamp_min=0, max_chunks=128'
    """
    opts = dict(result.detector_options)
    shown = ", ".join(f"{k}={v}" for k, v in result.detector_options)
    if opts.get("clamp_min") == 0 and opts.get("min_expected", 0) > 0:
        return (f"the calibrated count floor ({shown}); the authors' floor (every cell at least "
                "5, unbounded history, every old window fitted) is variant='authors' "
                "(--variant authors)")
    return ("the authors' count floor (every cell at least 5" + (f"; {shown}" if shown else "")
            + "); the calibrated one, with far fewer false alarms on healthy logs, is the "
            "default")


def _floor(result: MonitorResult) -> float:
    exponent = max(1, round(-math.log10(result.alpha)))
    ps = [p for p in result.p_values if p > 0 and not math.isnan(p)]
    low = math.log10(min(ps, default=1.0))
    return float(min(max(low, -(2 * exponent + 6)), -(exponent + 2)) // 1)


def _x(result: MonitorResult, view: ReportView) -> tuple[list[Any], dict[str, Any], list[str]]:
    """Each tested chunk's x (its start time, or its index), the x axis, and hover texts."""
    spans = result.spans
    rows = [f"chunk {s.index}, rows {s.first_row:,}–{s.last_row:,}" for s in spans]
    if view.times is None:
        return ([s.index for s in spans], {"title": {"text": "chunk (0-based)"}}, rows)
    numeric = _numeric(view.times[0][0])
    x: list[Any] = [float(a) if numeric else a for a, _ in view.times]
    what = ("time window" if view.time_kind == "window" else "first and last row's time")
    hover = [f"{r}<br>{what}: {a} – {b}" for r, (a, b) in zip(rows, view.times, strict=True)]
    title = ("time (each chunk at its window's start)" if view.time_kind == "window"
             else "time (each chunk at its first row's time)")
    return x, {"title": {"text": title}, **({} if numeric else {"type": "date"})}, hover


def _numeric(text: str) -> bool:
    """Whether a chunk's time is a number (a numeric window), not an ISO time."""
    import pandas as pd

    return bool(pd.notna(pd.to_numeric(text, errors="coerce")))


def _edges(view: ReportView, first: int, last: int) -> tuple[Any, Any]:
    """The x span of chunks ``first .. last``: their times' start and end, or index +- 0.5."""
    if view.times is None:
        return first - 0.5, last + 0.5
    numeric = _numeric(view.times[first][0])
    a, b = view.times[first][0], view.times[last][1]
    return (float(a), float(b)) if numeric else (a, b)


#: The periods' bands: the reference, and the recent period (since the change).
PERIOD_COLOURS = {"reference": "rgba(0, 114, 178, 0.10)", "recent": "rgba(213, 94, 0, 0.10)"}


def _period_names(view: ReportView) -> dict[str, str]:
    if view.since is None:
        return {"reference": "reference period (first half; no alarm)",
                "recent": "recent period (second half)"}
    return {"reference": "reference period (before the change)",
            "recent": f"since the change (chunk {view.since})"}


def _bands(view: ReportView) -> tuple[list[dict[str, Any]], list[go.Scatter]]:
    """The periods as shaded rectangles over every row, and their legend entries."""
    shapes, legend = [], []
    names = _period_names(view)
    for key, period in (("reference", view.reference), ("recent", view.recent)):
        if period is None:
            continue
        first, last = period
        x0, x1 = _edges(view, first, last)
        shapes.append({"type": "rect", "x0": x0, "x1": x1, "xref": "x", "y0": 0, "y1": 1,
                       "yref": "paper", "layer": "below", "fillcolor": PERIOD_COLOURS[key],
                       "line": {"width": 0}, "name": key})
        legend.append(square_legend(names[key], PERIOD_COLOURS[key].replace("0.10", "0.35")))
    return shapes, legend


def error_figure(result: MonitorResult, view: ReportView) -> go.Figure:
    """The model's error rate per chunk and each detector's alarms, periods shaded.

    One error line (nothing adapts: every detector sees the model's errors), each detector's
    alarms in a lane below it, the reference and recent periods shaded, on a time axis where
    there is one.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pudd_core.monitoring import monitor, report_view
    >>> rng = np.random.default_rng(0)
    >>> p = np.r_[rng.uniform(0.7, 1.0, 3000), rng.uniform(0.3, 1.0, 3000)]
    >>> res = monitor(pd.DataFrame({"y": 1, "p0": 1 - p, "p1": p}), label="y",
    ...               proba_columns=["p0", "p1"], chunk_size=500, baselines=["ddm", "adwin"])
    >>> fig = error_figure(res, report_view(res))
    >>> [t.name for t in fig.data]  # one error rate: every detector reads the model's errors
    ['Model error rate', 'PUDD alarm', 'DDM alarm', 'ADWIN alarm', \
'reference period (before the change)', 'since the change (chunk 6)']
    """
    from pudd_core.experiments.baselines import BASELINES

    x, axis, hover = _x(result, view)
    err = [100.0 * c.error_rate for c in result.chunks]
    traces: list[Any] = [go.Scatter(
        x=x, y=err, mode="lines+markers", name="Model error rate",
        line={"color": "#262730", "width": 2}, marker={"size": 4}, text=hover,
        hovertemplate="%{text}<br>error %{y:.1f}%<extra></extra>", yaxis="y")]
    lanes = {"PUDD": list(result.alarms)}
    for key, per in result.baseline_alarms().items():
        lanes[BASELINES[key].display_name] = list(per)
    for i, (name, where) in enumerate(lanes.items()):
        colour = detector_colour(name, i)
        traces.append(go.Scatter(
            x=[x[a] for a in where], y=[name] * len(where), mode="markers", yaxis="y2",
            name=f"{name} alarm", marker={"symbol": "triangle-down", "size": 11,
                                          "color": colour},
            text=[hover[a] for a in where], hovertemplate="%{text}<br>%{y} alarm<extra></extra>"))
    shapes, legend = _bands(view)
    shapes += [alarm_shape(x[a], detector_colour("PUDD")) for a in result.alarms]
    return one_go(
        [*traces, *legend], title="Error rate of your model per chunk, and each detector's "
                                  "alarms", height=480, shapes=shapes,
        xaxis={**axis, "anchor": "y2"},
        yaxis={"title": {"text": "error rate (%)"}, "domain": [0.3, 1.0], "rangemode": "tozero"},
        yaxis2={"domain": [0.0, 0.2], "type": "category", "categoryarray": list(lanes)[::-1],
                "showgrid": False},
    )


def min_p_figure(result: MonitorResult, view: ReportView) -> go.Figure:
    """PUDD's smallest p per chunk against α, the alarms and the periods, on the report's x.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pudd_core.monitoring import monitor, report_view
    >>> p = np.random.default_rng(0).uniform(0.6, 1.0, 4000)
    >>> res = monitor(pd.DataFrame({"y": 0, "a": p, "b": 1 - p}), label="y",
    ...               proba_columns=["a", "b"], chunk_size=1000)
    >>> [t.name for t in min_p_figure(res, report_view(res)).data][:2]
    ['PUDD min p', 'threshold α = 1e-03']
    """
    x, axis, _ = _x(result, view)
    floor = _floor(result)
    shapes, legend = _bands(view)
    shapes += [*(alarm_shape(x[a], detector_colour("PUDD")) for a in result.alarms),
               threshold_shape(result.alpha)]
    return one_go(
        [p_scatter(x, list(result.p_values), name="PUDD min p", floor=floor, size=6),
         threshold_proxy(result.alpha), *legend],
        title="PUDD's smallest p over the cut points, per chunk (axis floor "
              f"1e{floor:.0f}: smaller p drawn on it as ▼; gaps: no test)",
        height=360, shapes=shapes, xaxis=axis, yaxis=p_axis(floor))


def class_figure(view: ReportView) -> go.Figure:
    """Each true class's mean PU-index in the reference and the recent period.

    A class whose PU-index histogram moved (its test below the per-class level) is starred.

    Examples
    --------
    >>> from pudd_core.monitoring import ClassChange, ReportView
    >>> c = [ClassChange("cat", 10, 10, 0.5, 0.5, 0.1, 0.4, 0.0, 0.3, 0.15, 1e-9, True)]
    >>> fig = class_figure(ReportView("degraded", "", (0, 1), (2, 3), 2, 0.0, 0.3, 1e-4,
    ...                               None, None, tuple(c)))
    >>> [t.name for t in fig.data], list(fig.data[1].x), list(fig.data[1].y)
    (['reference period', 'recent period'], ['cat *'], [0.4])
    """
    names = [c.label + (" *" if c.moved else "") for c in view.classes]
    bars = [go.Bar(x=names, y=[getattr(c, f"{key}_pu") for c in view.classes],
                   name=f"{key} period", marker={"color": colour},
                   customdata=[[getattr(c, f"{key}_rows"), getattr(c, f"{key}_share") * 100]
                               for c in view.classes],
                   hovertemplate=f"class %{{x}}, {key}: mean PU-index %{{y:.3f}} over "
                                 "%{customdata[0]:,} rows (%{customdata[1]:.1f}% of the "
                                 "period)<extra></extra>")
            for key, colour in (("reference", WINDOW_COLOURS[0]),
                                ("recent", WINDOW_COLOURS[1]))]
    return one_go(bars, title="Mean PU-index per true class, reference against recent "
                              "(* : the class's PU-index moved)", height=380,
                  barmode="group", xaxis={"title": {"text": "true class"}, "type": "category"},
                  yaxis={"title": {"text": "mean PU-index"}, "rangemode": "tozero"})


def monitor_figures(result: MonitorResult, view: ReportView | None = None
                    ) -> dict[str, go.Figure]:
    """The report's figures by name.

    ``trace`` and ``minp``, ``classes`` where ``view`` has a per-class view, then per drawn
    alarm at 0-based chunk ``i``: ``cuts_<i>`` and, where its windows were recorded,
    ``windows_<i>``. ``view`` (:func:`~pudd_core.monitoring.report_view`) gives the time
    axis, the periods and the classes; without it, it is computed from ``result`` alone.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pudd_core.monitoring import monitor
    >>> rng = np.random.default_rng(0)
    >>> p = np.r_[rng.uniform(0.7, 1.0, 3000), rng.uniform(0.3, 1.0, 3000)]
    >>> res = monitor(pd.DataFrame({"y": 1, "p0": 1 - p, "p1": p}), label="y",
    ...               proba_columns=["p0", "p1"], chunk_size=500, baselines=["ddm"])
    >>> sorted(monitor_figures(res))
    ['cuts_6', 'minp', 'trace', 'windows_6']
    """
    from pudd_core.monitoring import report_view

    view = report_view(result) if view is None else view
    floor = _floor(result)
    figs: dict[str, go.Figure] = {"trace": error_figure(result, view),
                                  "minp": min_p_figure(result, view)}
    if view.classes:
        figs["classes"] = class_figure(view)
    max_cut = max((cut for c in result.chunks for cut, _ in c.cut_p_values), default=1)
    for i in result.alarms[:MAX_ALARM_FIGURES]:
        c = result.chunks[i]
        if c.cut_p_values:
            figs[f"cuts_{i}"] = cut_scan_figure(
                [k for k, _ in c.cut_p_values], [p for _, p in c.cut_p_values],
                alpha=result.alpha, max_cut=max_cut, floor=floor,
                title=f"Alarm at chunk {i}: p of every cut point")
        if c.window is not None:
            figs[f"windows_{i}"] = window_histogram_figure(
                c.window.by_centre(),
                title=f"Alarm at chunk {i}: the winning cut's windows (last {c.cut_point} "
                      "chunk(s) against the earlier ones)")
    return figs


def _alarm_table(result: MonitorResult, view: ReportView) -> str:
    frame = result.alarm_frame()
    if view.time_kind == "rows" and view.times is not None and not frame.empty:
        frame["start"] = [view.times[i][0] for i in frame["chunk"]]
        frame["end"] = [view.times[i][1] for i in frame["chunk"]]
    if frame.empty:
        return "<p>No alarm: PUDD's smallest p never fell below α.</p>"
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for v in row:
            text = "" if v is None or (isinstance(v, float) and math.isnan(v)) else (
                f"{v:.3g}" if isinstance(v, float) else str(v))
            cells.append(f"<td>{html.escape(text)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _class_table(view: ReportView) -> str:
    head = ("<tr><th>class</th><th>rows (ref.)</th><th>rows (recent)</th><th>share (ref.)</th>"
            "<th>share (recent)</th><th>mean PU (ref.)</th><th>mean PU (recent)</th>"
            "<th>error (ref.)</th><th>error (recent)</th><th>contribution</th><th>p</th>"
            "<th>moved</th></tr>")

    def num(v: float, pct: bool = False) -> str:
        return "–" if math.isnan(v) else (f"{100 * v:.1f}%" if pct else f"{v:.4f}")

    body = "".join(
        f'<tr data-class="{html.escape(c.label)}"><td>{html.escape(c.label)}</td>'
        f"<td>{c.reference_rows:,}</td><td>{c.recent_rows:,}</td>"
        f"<td>{num(c.reference_share, True)}</td><td>{num(c.recent_share, True)}</td>"
        f"<td>{num(c.reference_pu)}</td><td>{num(c.recent_pu)}</td>"
        f"<td>{num(c.reference_error, True)}</td><td>{num(c.recent_error, True)}</td>"
        f"<td>{c.contribution:+.4f}</td>"
        f"<td>{html.escape(p_text(c.p_value).removeprefix('p = '))}</td>"
        f"<td>{'yes' if c.moved else 'no'}</td></tr>" for c in view.classes)
    return f'<table class="classes"><thead>{head}</thead><tbody>{body}</tbody></table>'


def _classes_text(result: MonitorResult, view: ReportView) -> str:
    """The per-class section's prose, every number from ``view``."""
    if not view.classes:
        return f"<p>No per-class view: {html.escape(view.class_note or 'no class')}.</p>"
    moved = [f"{c.label} ({'up' if c.recent_pu > c.reference_pu else 'down'}, "
             f"{c.reference_pu:.4f} → {c.recent_pu:.4f})" for c in view.classes if c.moved]
    untested = [c.label for c in view.classes if math.isnan(c.p_value)]
    ref_pu = sum(c.reference_share * c.reference_pu for c in view.classes
                 if c.reference_rows)
    rec_pu = sum(c.recent_share * c.recent_pu for c in view.classes if c.recent_rows)
    top = max(view.classes, key=lambda c: abs(c.contribution))
    parts = [
        f"<p class='classes-verdict'>Classes whose PU-index moved: <strong>"
        f"{html.escape('; '.join(moved)) if moved else 'none'}</strong> of "
        f"{len(view.classes)} (each class's PU-index histogram, {PU_BINS} bins on [0, 1], "
        "reference against recent, Pearson's chi-square test of homogeneity at "
        f"α / {len(view.classes) - len(untested)} = {view.class_alpha:.2g}).",
        f" The mean PU-index went from {ref_pu:.4f} to {rec_pu:.4f}; the class that "
        f"contributed most to the change is {html.escape(top.label)} "
        f"({top.contribution:+.4f}).",
        f" The classes' shares of the labelled rows: chi-square "
        f"{html.escape(p_text(view.share_p_value))} "
        f"({'moved' if view.share_p_value < result.alpha else 'did not move'} at α = "
        f"{result.alpha:g}).",
    ]
    if untested:
        parts.append(f" Not tested (absent from one period): {html.escape(', '.join(untested))}.")
    parts.append("</p>")
    return "".join(parts)


def _period_text(result: MonitorResult, view: ReportView) -> str:
    def where(first: int, last: int) -> str:
        a, b = result.spans[first], result.spans[last]
        text = f"chunks {first}–{last}, rows {a.first_row:,}–{b.last_row:,}"
        if view.times is not None:
            text += f", {view.times[first][0]} – {view.times[last][1]}"
        return text

    names = _period_names(view)
    ref = ("none: the change began at the log's first chunk" if view.reference is None
           else where(*view.reference))
    return (f"<p class='periods'>{names['reference'].capitalize()}: {ref}; "
            f"{names['recent']}: {where(*view.recent)}. The shaded bands in the figures mark "
            "them.</p>")


def monitor_report_html(result: MonitorResult, view: ReportView | None = None, *,
                        name: str | None = None) -> str:
    """One self-contained HTML page, titled with the log's file name.

    The state in words, the periods, the classes that moved, every alarm, the traces and the
    alarms' windows.

    ``view`` (:func:`~pudd_core.monitoring.report_view` of the result and its log) gives the
    time axis and the per-class view; without it they are computed from ``result`` alone (no
    classes, no times of row chunks). ``name`` is the title (default: the file name of the
    result's source; an upload has none).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pudd_core.monitoring import monitor
    >>> p = np.random.default_rng(0).uniform(0.6, 1.0, 4000)
    >>> res = monitor(pd.DataFrame({"y": 0, "a": p, "b": 1 - p}), label="y",
    ...               proba_columns=["a", "b"], chunk_size=1000)
    >>> page = monitor_report_html(res)
    >>> page.startswith("<!DOCTYPE html>"), page.count("data-figure="), "No alarm" in page
    (True, 2, True)
    >>> "<h1>DataFrame</h1>" in page, 'data-state="healthy"' in page
    (True, True)
    """
    from pudd_core.monitoring import report_view

    view = report_view(result) if view is None else view
    figs = monitor_figures(result, view)
    parts = []
    for i, (key, fig) in enumerate(figs.items()):
        parts.append(f'<section class="figure" data-figure="{html.escape(key)}">'
                     + fig.to_html(full_html=False, include_plotlyjs=i == 0, div_id=f"fig-{key}")
                     + "</section>")
    drawn = min(len(result.alarms), MAX_ALARM_FIGURES)
    more = ("" if drawn == len(result.alarms) else
            f"<p>The figures below show the first {drawn} of {len(result.alarms)} alarms.</p>")
    baselines = "".join(
        f"<li>{html.escape(k)}: {len(v)} alarm(s) at chunks "
        f"{html.escape(', '.join(map(str, v)) or '-')}</li>"
        for k, v in result.baseline_alarms().items())
    how = (f"chunks of {result.spans[0].n_rows} rows" if result.spans and
           result.spans[0].start is None else "time windows")
    pending = (f" <strong>{result.n_pending_rows:,} rows pending</strong> (no label yet: "
               f"chunks {result.pending[0].index}–{result.pending[-1].index}, rows "
               f"{result.pending[0].first_row:,}–{result.pending[-1].last_row:,}, not tested)."
               if result.pending else "")
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in result.notes)
    name = name or Path(result.source).name or result.source
    colour = {"healthy": "#009E73", "changed": "#E69F00", "degraded": "#D55E00"}[view.state]
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{html.escape(name)}: PUDD report</title>
<style>body{{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}}
table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}td{{white-space:nowrap}}
.state{{font-size:1.15em;border-left:6px solid {colour};padding:.4em .8em;background:#fafafa}}
</style></head><body>
<h1>{html.escape(name)}</h1>
<p>PUDD's drift report on the prediction log <code>{html.escape(result.source)}</code>.</p>
<p class="state" data-state="{view.state}">{html.escape(view.sentence)}</p>
{_period_text(result, view)}
<p>{result.n_rows:,} rows in {result.n_chunks} tested {how}; α = {result.alpha:g},
{html.escape(variant_text(result))};
<strong>{len(result.alarms)} PUDD alarm(s)</strong>.{pending} Chunks are numbered from 0;
rows from 0 after the header.</p>
{f"<ul class='notes'>{notes}</ul>" if notes else ""}
<h2>What changed, per class</h2>
<p>Rows are grouped by their true class (the label, which decides the PU-index,
1 − p(true class)); only labelled rows count.</p>
{_classes_text(result, view)}
{_class_table(view) if view.classes else ""}
<h2>Alarms</h2>
{_alarm_table(result, view)}
{f"<h2>Baselines (fed the same errors)</h2><ul>{baselines}</ul>" if baselines else ""}
<h2>Figures</h2>
{more}
<p>The p-value axes stop at 1e{_floor(result):.0f}: a smaller p is drawn on that floor as a
downward triangle (its hover gives the value). A chunk where no test ran has no point (a gap),
never p = 1; the per-chunk CSV says why in its <code>no_test</code> column.</p>
{''.join(parts)}
</body></html>
"""

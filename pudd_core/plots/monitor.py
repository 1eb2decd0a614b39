"""Figures and the self-contained HTML report of :func:`pudd_core.monitor` on a prediction log.

The report is one HTML file with plotly.js embedded (``include_plotlyjs=True``): it opens
offline, and every figure's data sits in its ``Plotly.newPlot`` call.
"""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING

import plotly.graph_objects as go

from pudd_core.plots.stream import detector_error_figure, min_pvalue_figure
from pudd_core.plots.windows import cut_scan_figure, window_histogram_figure

if TYPE_CHECKING:
    from pudd_core.monitoring import MonitorResult

__all__ = ["MAX_ALARM_FIGURES", "monitor_figures", "monitor_report_html", "variant_text"]

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


def monitor_figures(result: MonitorResult) -> dict[str, go.Figure]:
    """The report's figures by name.

    ``trace`` and ``minp``, then per drawn alarm at 0-based chunk ``i``: ``cuts_<i>`` and,
    where its windows were recorded, ``windows_<i>``.

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
    from pudd_core.experiments.baselines import BASELINES

    index = [c.chunk_index for c in result.chunks]
    names = {"pudd": "PUDD", **{k: BASELINES[k].display_name for k in result.baselines}}
    error = {names["pudd"]: [c.error_rate for c in result.chunks]}
    alarms = {names["pudd"]: list(result.alarms)}
    for key, per in result.baseline_alarms().items():
        error[names[key]] = error[names["pudd"]]
        alarms[names[key]] = list(per)
    x_range = (-0.5, len(index) - 0.5)
    floor = _floor(result)
    figs: dict[str, go.Figure] = {
        "trace": detector_error_figure(
            index, error, alarms=alarms, x_range=x_range,
            title="Error rate of your model per chunk, and each detector's alarms"),
        "minp": min_pvalue_figure(index, list(result.p_values), alpha=result.alpha,
                                  alarms=result.alarms, x_range=x_range, floor=floor,
                                  title="PUDD's smallest p over the cut points, per chunk "
                                        f"(axis floor 1e{floor:.0f}: smaller p drawn on it as "
                                        "▼; gaps: no test)"),
    }
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


def _alarm_table(result: MonitorResult) -> str:
    frame = result.alarm_frame()
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


def monitor_report_html(result: MonitorResult) -> str:
    """One self-contained HTML page: summary, every alarm, the traces and the alarms' windows.

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
    """
    figs = monitor_figures(result)
    parts = []
    for i, (name, fig) in enumerate(figs.items()):
        parts.append(f'<section class="figure" data-figure="{html.escape(name)}">'
                     + fig.to_html(full_html=False, include_plotlyjs=i == 0, div_id=f"fig-{name}")
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
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>PUDD report: {html.escape(result.source)}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}
</style></head><body>
<h1>PUDD on {html.escape(result.source)}</h1>
<p>{result.n_rows:,} rows in {result.n_chunks} tested {how}; α = {result.alpha:g},
{html.escape(variant_text(result))};
<strong>{len(result.alarms)} PUDD alarm(s)</strong>.{pending} Chunks are numbered from 0;
rows from 0 after the header.</p>
{f"<ul class='notes'>{notes}</ul>" if notes else ""}
<h2>Alarms</h2>
{_alarm_table(result)}
{f"<h2>Baselines (fed the same errors)</h2><ul>{baselines}</ul>" if baselines else ""}
<h2>Figures</h2>
{more}
<p>The p-value axes stop at 1e{_floor(result):.0f}: a smaller p is drawn on that floor as a
downward triangle (its hover gives the value). A chunk where no test ran has no point (a gap),
never p = 1; the per-chunk CSV says why in its <code>no_test</code> column.</p>
{''.join(parts)}
</body></html>
"""

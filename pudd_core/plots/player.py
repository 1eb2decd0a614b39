"""The Stream explorer's player: every chunk's charts of a finished run, for the browser to play.

The runs are computed once; stepping and playing only show them up to a cursor. Rather than
asking the server for each frame, :func:`player_spec` packs the whole run into one JSON-ready
dict and the browser moves the cursor itself (``ui/player_component``): Pause is immediate and
a played frame costs the server nothing.

Two kinds of chart make up the spec:

* growing charts (the error rates with their alarm lanes, PUDD's smallest p): one figure of
  the whole run. Traces whose ``meta`` is ``"prefix"`` and shapes named ``"alarm"`` are cut
  at the cursor by the browser (points with ``x <= cursor``);
* per-chunk charts (the cut-point scan, the winning windows' histograms): a template figure,
  and per chunk an *update*: ``{"traces": {name: {attribute: value}}, "layout": {...}}``,
  merged into the template by trace name. :func:`apply_update` is that merge in Python; the
  tests check that a template plus an update equals the figure built directly.
"""

from __future__ import annotations

import base64
import hashlib
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from pudd_core.plots._style import (
    BUCKET_EDGE_STYLE,
    clipped_log10_p,
    detector_colour,
    p_text,
    smallest_p_index,
    title_text,
    vline_shape,
)
from pudd_core.plots.stream import detector_error_figure
from pudd_core.plots.windows import bucket_columns, cut_scan_figure, window_histogram_figure

if TYPE_CHECKING:
    from pudd_core.experiments.runner import ChunkLog, RunResult, WindowRecord

__all__ = ["SPEEDS", "apply_update", "cut_scan_update", "player_spec", "run_key",
           "to_json_ready", "window_update"]

#: Chunks per second the player offers, and the default.
SPEEDS: tuple[float, ...] = (1.0, 2.0, 5.0, 10.0)
DEFAULT_SPEED = 5.0


_PLAIN = frozenset({int, str, bool, type(None)})
_NUMBERS = _PLAIN | {float}
_INF = (math.inf, -math.inf)


def to_json_ready(obj: Any) -> Any:
    """``obj`` with numpy values as Python ones and NaN/inf as ``None`` (strict JSON).

    Examples
    --------
    >>> to_json_ready({"y": np.array([1.0, np.nan]), "n": np.int64(3), "t": (1, float("inf"))})
    {'y': [1.0, None], 'n': 3, 't': [1, None]}
    >>> import plotly.graph_objects as go  # plotly's base64 arrays become lists too
    >>> to_json_ready(go.Scatter(y=np.array([0.5, 2.0])).to_plotly_json())["y"]
    [0.5, 2.0]
    """
    kind = type(obj)
    if kind in _PLAIN:
        return obj
    if kind is float:
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        if "bdata" in obj and "dtype" in obj:  # plotly's base64 form of a numpy array
            return to_json_ready(_decode(obj))
        return {str(k): to_json_ready(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return to_json_ready(obj.tolist())
    if isinstance(obj, list | tuple):
        kinds = set(map(type, obj))
        if kinds <= _PLAIN:  # the usual long lists of numbers or labels: one pass
            return list(obj)
        if kinds <= _NUMBERS:
            return [v if v == v and v not in _INF else None for v in obj]
        return [to_json_ready(v) for v in obj]
    if isinstance(obj, np.generic):
        return to_json_ready(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def _decode(typed: Mapping[str, Any]) -> np.ndarray:
    """A numpy array from plotly's ``{"dtype", "bdata"[, "shape"]}`` (``to_plotly_json``)."""
    values = np.frombuffer(base64.b64decode(typed["bdata"]), dtype=typed["dtype"])
    shape = typed.get("shape")
    if shape:
        values = values.reshape([int(v) for v in str(shape).split(",")])
    return values


def _figure_json(fig: Any) -> dict[str, Any]:
    out: dict[str, Any] = to_json_ready(fig.to_plotly_json())
    return out


def apply_update(figure: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """A figure's JSON with an update merged in: each named trace's attributes, then layout.

    Nested dicts (``marker``) merge one level deep; everything else is replaced. The browser
    does the same (``ui/player_component/player.js``, ``applyUpdate``).

    Examples
    --------
    >>> fig = {"data": [{"name": "a", "x": [1], "marker": {"size": 9, "symbol": ["circle"]}}],
    ...        "layout": {"title": {"text": "t"}}}
    >>> apply_update(fig, {"traces": {"a": {"x": [1, 2], "marker": {"symbol": ["x", "x"]}}},
    ...                    "layout": {"title": {"text": "u"}}})
    {'data': [{'name': 'a', 'x': [1, 2], 'marker': {'size': 9, 'symbol': ['x', 'x']}}],
     'layout': {'title': {'text': 'u'}}}
    """
    traces = update.get("traces", {})
    data = []
    for trace in figure["data"]:
        new = dict(trace)
        for attr, value in traces.get(trace.get("name"), {}).items():
            new[attr] = {**new.get(attr, {}), **value} if isinstance(value, dict) else value
        data.append(new)
    return {"data": data, "layout": {**figure["layout"], **update.get("layout", {})}}


# --- per-chunk updates ----------------------------------------------------------------------------
def _cut_title(chunk: int) -> dict[str, Any]:
    return {"text": title_text(f"Every cut point's p at chunk {chunk}"), "x": 0, "xanchor": "left",
            "y": 0.98, "yanchor": "top"}


_NO_TEST_NOTE = {"text": "no test at this chunk", "x": 0.5, "y": 0.5, "xref": "paper",
                 "yref": "paper", "showarrow": False, "font": {"size": 16, "color": "#777"}}


def cut_scan_update(chunk: int, cuts: Sequence[int], p_values: Sequence[float], *,
                    floor: float | None) -> dict[str, Any]:
    """The cut-scan template's update for one chunk (what :func:`cut_scan_figure` draws).

    Examples
    --------
    >>> u = cut_scan_update(7, [1, 2, 4], [0.3, 1e-4, 0.02], floor=None)
    >>> u["traces"]["smallest p"]["x"], u["traces"]["log10 p per cut"]["text"][1]
    ([2], 'p = 1.0e-04')
    >>> cut_scan_update(8, [], [], floor=None)["layout"]["annotations"][0]["text"]
    'no test at this chunk'
    """
    y, low = clipped_log10_p(p_values, floor)
    traces: dict[str, Any] = {
        "log10 p per cut": {
            "x": list(cuts), "y": y,
            "marker": {"symbol": ["triangle-down" if c else "circle" for c in low]},
            "text": [p_text(p) for p in p_values]},
        "smallest p": {"x": [], "y": []},
    }
    best = smallest_p_index(p_values)  # none when the skip rule spared every cut
    if best is not None:
        traces["smallest p"] = {"x": [cuts[best]], "y": [y[best]]}
    update: dict[str, Any] = to_json_ready({
        "traces": traces, "layout": {"annotations": [] if best is not None else [_NO_TEST_NOTE],
                                     "title": _cut_title(chunk)}})
    return update


def _hist_title(chunk: int) -> str:
    return f"The two windows of the winning cut (test at chunk {chunk})"


def window_update(chunk: int, record: WindowRecord) -> dict[str, Any]:
    """The histogram template's update for the test at ``chunk``, as drawn by the builder.

    What :func:`window_histogram_figure` draws for ``record``, as an update of any other
    record's figure.

    Examples
    --------
    >>> from pudd_core.experiments.runner import WindowRecord
    >>> rec = WindowRecord((8, 2, 0, 0), (0, 0, 1, 1), (5, 3, 0, 0), (0, 0, 1, 3), (0.3,),
    ...                    (0.1, 0.4), ((6, 4, 2), (4, 4, 4)), ((5.0, 4.0, 3.0), (5.0, 4.0, 3.0)))
    >>> u = window_update(12, rec)
    >>> u["traces"]["Recent: tested"]["x"], u["traces"]["Recent: correct"]["y"]
    (['0.10', '0.40', 'miscl.'], [41.66..., 25.0, 0.0, 0.0])
    """
    traces: dict[str, Any] = {}
    for name, ok, bad in (("Reference", record.ref_correct, record.ref_wrong),
                          ("Recent", record.new_correct, record.new_wrong)):
        total = max(sum(ok) + sum(bad), 1)
        traces[f"{name}: correct"] = {"y": 100.0 * np.asarray(ok, dtype=np.float64) / total}
        traces[f"{name}: misclassified"] = {
            "y": 100.0 * np.asarray(bad, dtype=np.float64) / total}
    order, labels = bucket_columns(record)
    for name, row in zip(("Reference", "Recent"), record.table, strict=True):
        tested = np.asarray(row, dtype=np.float64)[order]
        traces[f"{name}: tested"] = {"x": labels, "y": 100.0 * tested / max(tested.sum(), 1.0),
                                     "customdata": tested.astype(np.int64)}
    shapes = [{**vline_shape(e, BUCKET_EDGE_STYLE, "above"), "yref": "y domain"}
              for e in record.bucket_edges]  # as window_histogram_figure draws them
    update: dict[str, Any] = to_json_ready({"traces": traces, "layout": {
        "shapes": shapes,
        "title": {"text": title_text(_hist_title(chunk)), "x": 0, "xanchor": "left", "y": 0.98,
                  "yanchor": "top"}}})
    return update


# --- the whole spec -----------------------------------------------------------------------------
def _name(run: RunResult) -> str:
    from pudd_core.experiments.detectors import DETECTORS

    return str(DETECTORS[run.config.detector])


def _mark_growing(fig: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    for trace in fig["data"]:
        if trace.get("name") in names:
            trace["meta"] = "prefix"
    return fig


def _trace_caption(chunk: int, drifts: Sequence[int], counts: str, lead: ChunkLog | None,
                   band: int) -> str:
    text = (f"Grey bands: true drifts (chunks {', '.join(map(str, drifts))}); " if drifts
            else "True drifts: none known for this stream. ")
    if band > 1:
        text += (f"lines: the mean over {band} seeds, shaded from the smallest to the largest "
                 f"seed's value (min–max); triangles: how many of the {band} seeds alarmed at "
                 f"each chunk, in each detector's lane (alarms per seed so far: {counts}). ")
        return text
    lines = "dotted lines: PUDD's alarms; " if lead is not None else ""
    text += f"{lines}triangles: each detector's alarms in its own lane (so far: {counts}). "
    if lead is not None and lead.alarm:
        text += (f"**PUDD alarms at chunk {chunk}**: its model is retrained on the "
                 "recent window before the next chunk, and its history starts again.")
    elif lead is not None and lead.adapted:
        text += "PUDD's model was just retrained after the alarm; its history starts again."
    return text


def _cut_caption(chunk: ChunkLog, count_floor: int = 5) -> str:
    """What the cut scan shows at ``chunk``; says when the count floor shaped the winning test.

    Examples
    --------
    >>> from pudd_core.experiments.runner import ChunkLog
    >>> log = ChunkLog(3, 0.99, 0.1, 0.1, 1e-4, ((1, 1e-4), (2, 0.3)), True, 1, False, (),
    ...                0.0, 0.0, 0.0, floored_cells=2)
    >>> caption = _cut_caption(log)
    >>> "**The count floor of 5 raised 2 cells of this test's table**" in caption
    True
    >>> "the floor, not the data alone, decided this p-value and this alarm" in caption
    True
    """
    if not chunk.cut_p_values:
        return ("No test at this chunk: PUDD's history holds a single chunk (the first tested "
                "chunk, or the first after an alarm).")
    text = (f"Cut i: the last i chunks (recent window) against the earlier ones. A cut the "
            f"skip rule spared (the recent window was more accurate) ran no test and has no "
            f"point (p = n/a). Ringed, "
            f"the winning cut {chunk.cut_point}: {p_text(chunk.p_value)}"
            f"{' < α: alarm' if chunk.alarm else ''}.")
    n = chunk.floored_cells
    if n:
        text += (f" **The count floor of {count_floor} raised {n} cell{'s' if n != 1 else ''} "
                 f"of this test's table** to {count_floor} (cells with fewer predictions, as "
                 "an empty misclassified column): the floor, not the data alone, decided this "
                 f"p-value{' and this alarm' if chunk.alarm else ''} (results/false_alarms.md; "
                 "clamp_min=0, min_expected=5 is the calibrated variant).")
    return text


def _count_floor(run: RunResult) -> int:
    """The run's count floor: its ``clamp_min`` option, else ``ChunkPUDD``'s default."""
    import inspect

    from pudd_core.detector import ChunkPUDD

    options = dict(run.config.detector_options)
    default = inspect.signature(ChunkPUDD).parameters["clamp_min"].default
    return int(options.get("clamp_min", default))


def _window_caption(record: WindowRecord, at: int, cursor: int) -> str:
    k = len(record.bucket_centres)
    stale = "" if at == cursor else f" No test ran at chunk {cursor}; this is the latest one."
    return (f"Bars: share of each window by PU-index (misclassified hatched); green dotted "
            f"lines: the {k} bucket{'s' if k != 1 else ''} PUDD fitted on the reference "
            f"window's correct predictions. Right: the {k} + 1 columns the χ² test compares."
            f"{stale}")


def _table(record: WindowRecord) -> dict[str, Any]:
    columns = [*(f"bucket u ≈ {c:.2f}" for c in record.bucket_centres),
               "misclassified"][: len(record.table[0])]  # EK: no misclassified column
    rows = []
    for name, obs, exp in zip(("Reference", "Recent"), record.table, record.expected,
                              strict=True):
        rows.append([f"{name} observed", *(f"{v:,.0f}" for v in obs)])
        rows.append([f"{name} expected", *(f"{v:,.1f}" for v in exp)])
    return {"columns": columns, "rows": rows}


def run_key(runs: Sequence[RunResult], *extra: Any) -> str:
    """A short key of the runs' results: the player's ``id``, and its cache key in the app.

    The configs alone do not tell two uploads' runs apart (a user's file with another label
    column has the same config), so the results' accuracy and alarms are part of it;
    ``extra`` (labels, the display mode) joins them.

    Examples
    --------
    >>> from pudd_core.experiments.runner import RunConfig, run_experiment
    >>> a = run_experiment(RunConfig("sea0", "gnb", n_chunks=8))
    >>> len(run_key([a])), run_key([a]) == run_key([a]), run_key([a]) == run_key([a, a])
    (16, True, False)
    >>> run_key([a], "band") == run_key([a])
    False
    """
    summary = [(r.config, r.accuracy, r.alarms, len(r.chunks)) for r in runs]
    return hashlib.sha256(repr((summary, extra) if extra else summary).encode()).hexdigest()[:16]


def _stats_rows(chunk: ChunkLog) -> list[list[Any]]:
    """Each cut's row of the numbers table: cut, χ², dof, p, what decided it, winner."""
    rows = []
    for t in chunk.cut_tests:
        if t.skipped:
            decided = "skip rule (no test)"
        elif t.shortcut:
            decided = f"shortcut: {t.shortcut}"
        elif t.floored_cells:
            decided = f"count floor ({t.floored_cells} cell{'s' if t.floored_cells != 1 else ''})"
        else:
            decided = "data"
        stat = "–" if not math.isfinite(t.statistic) else f"{t.statistic:.2f}"
        rows.append([t.cut, stat, t.dof if t.dof else "–", p_text(t.p_value).removeprefix("p = "),
                     decided, t.cut == chunk.cut_point])
    return rows


def _setting_part(run: RunResult, label: str, colour: str, *, floor: float,
                  max_cut: int) -> dict[str, Any]:
    """One setting's per-chunk details (of one seed): metrics, cut scan, windows, numbers."""
    logs = run.chunks
    alpha = run.config.alpha
    cuts_template = _figure_json(cut_scan_figure([1], [1.0], alpha=alpha, max_cut=max_cut,
                                                 floor=floor, title=_cut_title(1)["text"]))
    for trace in cuts_template["data"]:  # the setting's colour, as in the growing charts
        if trace.get("name") == "log10 p per cut":
            trace["line"] = {**trace.get("line", {}), "color": colour}
    cut_frames = [cut_scan_update(c.chunk_index, [k for k, _ in c.cut_p_values],
                                  [p for _, p in c.cut_p_values], floor=floor) for c in logs]
    windows: dict[int, WindowRecord] = {c.chunk_index: c.window.by_centre() for c in logs
                                        if c.window is not None}
    hist_at: list[int | None] = []
    latest: int | None = None
    for c in logs:
        latest = c.chunk_index if c.chunk_index in windows else latest
        hist_at.append(latest)
    hist_template = None
    if windows:
        first = next(iter(windows))
        hist_template = _figure_json(window_histogram_figure(windows[first],
                                                             title=_hist_title(first)))
    alarms_so_far = np.searchsorted(np.asarray(run.alarms), [c.chunk_index for c in logs],
                                    side="right")
    count_floor = _count_floor(run)
    return {
        "label": label, "colour": colour, "seed": run.config.seed,
        "metrics": {
            "accuracy": [f"{c.accuracy:.3f}" for c in logs],
            "p_text": [p_text(c.p_value) if c.cut_p_values and c.no_test is None
                       else "no test" for c in logs],
            "alarm": [bool(c.alarm) for c in logs],
            "alarms_so_far": [int(v) for v in alarms_so_far],
        },
        "cuts": {"figure": cuts_template, "frames": cut_frames,
                 "caption": [_cut_caption(c, count_floor) for c in logs]},
        "hist": {"figure": hist_template, "at": hist_at,
                 "caption": [None if at is None else _window_caption(windows[at], at,
                                                                      c.chunk_index)
                             for c, at in zip(logs, hist_at, strict=True)],
                 "frames": {str(k): window_update(k, w) for k, w in windows.items()}},
        "tables": {str(k): _table(w) for k, w in windows.items()},
        "stats": [_stats_rows(c) for c in logs],
    }


def _seed_stats(runs: Sequence[RunResult], values: str) -> tuple[Any, Any, Any]:
    """Per chunk over the seeds' runs: the mean, min and max of ``values`` (an attribute)."""
    grid = np.array([[getattr(c, values) for c in r.chunks] for r in runs], dtype=np.float64)
    return grid.mean(axis=0), grid.min(axis=0), grid.max(axis=0)


def _tested_p(chunk: Any) -> float:
    """The chunk's smallest p, or NaN where no test decided it (a gap, never p = 1)."""
    return float("nan") if chunk.no_test is not None or not chunk.cut_p_values \
        else float(chunk.p_value)


def _log_p_stats(runs: Sequence[RunResult]) -> tuple[Any, Any, Any]:
    """Per chunk: the geometric mean, min and max p over the seeds that ran a test there.

    A chunk no seed tested is NaN in all three (the chart leaves a gap); an untested seed is
    left out of the chunk's mean, not counted as p = 1.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> def run(*ps):
    ...     return NS(chunks=[NS(p_value=1.0 if p is None else p, no_test=None if p else "x",
    ...                         cut_p_values=((1, p),) if p else ()) for p in ps])
    >>> mean, low, high = _log_p_stats([run(1e-4, None), run(1e-2, None)])
    >>> [round(float(m), 6) for m in mean], low.tolist()[1], high.tolist()[0]
    ([0.001, nan], nan, 0.01)
    """
    grid = np.array([[_tested_p(c) for c in r.chunks] for r in runs], dtype=np.float64)
    logs = np.log10(np.clip(grid, 1e-300, 1.0))
    tested = ~np.isnan(grid)
    any_test = tested.any(axis=0)
    mean = np.full(grid.shape[1], np.nan)
    mean[any_test] = 10.0 ** (np.where(tested, logs, 0.0).sum(axis=0)[any_test]
                              / tested.sum(axis=0)[any_test])
    low = np.where(any_test, np.where(tested, grid, np.inf).min(axis=0), np.nan)
    high = np.where(any_test, np.where(tested, grid, -np.inf).max(axis=0), np.nan)
    return mean, low, high


def _alarm_counts(runs: Sequence[RunResult]) -> tuple[list[int], list[int]]:
    """The chunks where any seed alarmed, and how many seeds did."""
    counts: dict[int, int] = {}
    for r in runs:
        for a in r.alarms:
            counts[a] = counts.get(a, 0) + 1
    where = sorted(counts)
    return where, [counts[a] for a in where]


def player_spec(settings: Sequence[Sequence[RunResult]],
                baselines: Sequence[Sequence[RunResult]] = (), *,
                labels: Sequence[str], band: bool = False) -> dict[str, Any]:
    """Every chunk of the PUDD settings' runs (and the baselines'), ready to play in a browser.

    ``settings[i][j]`` is setting ``i``'s run with seed ``j`` (``baselines`` likewise); the
    per-chunk details (metrics, cut scan, windows, each cut's numbers) are those of each
    setting's first seed. With ``band`` and several seeds, the growing charts show the mean
    over the seeds with a min–max band, and alarms as a count of seeds per chunk.

    Keys: ``id`` (changes with the runs), ``last`` (chunks ``1 .. last``), ``names``,
    ``settings`` (per setting: ``label``, ``colour``, ``metrics``, ``cuts``, ``hist``,
    ``tables``, ``stats``), ``charts`` (``trace`` and ``minp``: figure JSON, the browser
    cuts them at its cursor), ``band`` (seeds in the band, 1: one seed) and ``speeds``.

    Examples
    --------
    >>> from pudd_core.views.explorer import ExplorerConfig
    >>> from pudd_core.experiments.runner import run_experiment
    >>> cfg = ExplorerConfig(n_chunks=25)
    >>> c = cfg.comparison([run_experiment(r) for r in cfg.run_configs()])
    >>> spec = player_spec(c.settings, c.baselines, labels=c.labels)
    >>> spec["last"], spec["names"], spec["settings"][0]["metrics"]["alarms_so_far"][19]
    (24, ['PUDD-3', 'ADWIN', 'DDM', 'No detector (ref.)', 'Oracle (ref.)'], 1)
    >>> p = spec["settings"][0]; p["metrics"]["p_text"][0], p["hist"]["at"][20]  # 21: no test
    ('no test', 20)
    >>> p["stats"][19][0]  # chunk 20, cut 1: chi2, dof, p, what decided, the winner
    [1, '52.78', 5, '3.7e-10', 'data', True]
    >>> import json; len(json.dumps(spec)) < 400_000
    True
    """
    from pudd_core.plots.stream import SETTING_COLOURS, settings_pvalue_figure

    if len(labels) != len(settings) or not settings:
        raise ValueError("give one label per setting, and at least one setting")
    detail = [runs[0] for runs in settings]
    n_seeds = len(settings[0]) if band else 1
    base_names = [_name(r[0]) for r in baselines]
    names = [*labels, *base_names]
    groups = [*(list(r[:n_seeds]) for r in settings), *(list(r[:n_seeds]) for r in baselines)]
    colours = {n: (SETTING_COLOURS[i % len(SETTING_COLOURS)] if i < len(labels)
                   else detector_colour(n, i)) for i, n in enumerate(names)}
    logs = detail[0].chunks
    last = len(logs)
    x_range = (0.5, last + 0.5)
    drifts = tuple(detail[0].drift_chunks or ())
    index = [c.chunk_index for c in logs]
    exponents = [max(1, round(-math.log10(r.config.alpha))) for r in detail]

    pudd_runs = [r for g in groups[: len(labels)] for r in g]
    all_p = [c.p_value for r in pudd_runs for c in r.chunks
             if c.p_value > 0 and not math.isnan(c.p_value)]
    min_log10_p = math.log10(min(all_p, default=1.0))
    top = max(exponents)
    floor = float(min(max(min_log10_p, -(2 * top + 6)), -(top + 2)) // 1)
    max_cut = max((cut for r in pudd_runs for c in r.chunks for cut, _ in c.cut_p_values),
                  default=1)

    if n_seeds > 1:
        stats = [_seed_stats(g, "error_rate") for g in groups]
        error = {n: st[0] for n, st in zip(names, stats, strict=True)}
        bands = {n: (st[1], st[2]) for n, st in zip(names, stats, strict=True)}
        counted = [_alarm_counts(g) for g in groups]
        alarms = {n: tuple(w) for n, (w, _) in zip(names, counted, strict=True)}
        counts: dict[str, list[int]] | None = {
            n: k for n, (_, k) in zip(names, counted, strict=True)}
        p_stats = [_log_p_stats(g) for g in groups[: len(labels)]]
        p_values = {n: ps[0] for n, ps in zip(labels, p_stats, strict=True)}
        p_bands: dict[str, Any] | None = {n: (ps[1], ps[2])
                                          for n, ps in zip(labels, p_stats, strict=True)}
    else:
        error = {n: [c.error_rate for c in g[0].chunks] for n, g in zip(names, groups,
                                                                       strict=True)}
        bands = {}
        alarms = {n: tuple(g[0].alarms) for n, g in zip(names, groups, strict=True)}
        counts = None
        p_values = {n: [_tested_p(c) for c in r.chunks] for n, r in zip(labels, detail,
                                                                       strict=True)}
        p_bands = None
    every = [c.error_rate for g in groups for r in g for c in r.chunks]
    seeds_text = f" (mean of {n_seeds} seeds)" if n_seeds > 1 else ""
    trace = detector_error_figure(
        index, error, alarms=alarms, true_drifts=drifts, x_range=x_range,
        y_max=max(every, default=1.0), colours=colours, bands=bands or None,
        alarm_counts=counts, n_seeds=n_seeds, lead=len(labels),
        title=f"Error rate of each detector's model{seeds_text} (hover: accuracy)")
    trace_json = _mark_growing(_figure_json(trace), [
        f"{n} {what}" for n in names for what in ("error rate", "alarm", "band low",
                                                  "band high")])
    minp = settings_pvalue_figure(
        index, p_values, alphas={n: r.config.alpha for n, r in zip(labels, detail, strict=True)},
        colours=colours, true_drifts=drifts, x_range=x_range, floor=floor, bands=p_bands,
        title=("Smallest p, chunk by chunk" + (" (geometric mean of the seeds)"
                                               if n_seeds > 1 else "")))
    minp_json = _mark_growing(_figure_json(minp), [
        f"{n} {what}" for n in labels for what in ("min p", "p band low", "p band high")])

    alarm_grid = {n: np.array([np.searchsorted(np.asarray(r.alarms), index, side="right")
                               for r in g]).mean(axis=0) for n, g in zip(names, groups,
                                                                         strict=True)}
    fmt = "{:.1f}" if n_seeds > 1 else "{:.0f}"
    trace_captions = [
        _trace_caption(c.chunk_index, drifts,
                       ", ".join(f"{n} {fmt.format(alarm_grid[n][i])}" for n in names),
                       c if len(labels) == 1 else None, n_seeds)
        for i, c in enumerate(logs)]
    spec = {
        "id": run_key([r for g in groups for r in g], tuple(labels), n_seeds),
        "last": last,
        "speeds": list(SPEEDS),
        "default_speed": DEFAULT_SPEED,
        "names": names,
        "band": n_seeds,
        "settings": [_setting_part(r, label, colours[label], floor=floor, max_cut=max_cut)
                     for r, label in zip(detail, labels, strict=True)],
        "charts": {
            "trace": {"figure": trace_json, "caption": trace_captions},
            "minp": {"figure": minp_json, "caption": (
                "The smallest p over each chunk's cut points, one line per setting in its "
                "colour: a setting alarms when its p falls below its own α (dash-dot, same "
                f"colour). Below p = 1e{floor:g}, points sit on the floor as ▼ (hover for p)."
                + (" Lines: geometric mean of the seeds' p (no test counts as p = 1); "
                   "shaded: the smallest to the largest seed's p." if n_seeds > 1 else ""))},
        },
        "no_test": ("No χ² test has run yet: PUDD needs two chunks of history, and cuts are "
                    "skipped while the recent window is the more accurate one."),
    }
    out: dict[str, Any] = to_json_ready(spec)
    return out

"""The Stream explorer's downloads: the numbers behind its charts, as tables and one JSON.

:func:`cuts_frame` is every cut's χ² test, :func:`windows_frame` the windows PUDD compared,
:func:`export_json` the whole comparison (settings, runs, logs) as plain JSON.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

from pudd_core.experiments.records import HIST_EDGES
from pudd_core.experiments.runner import CutTest, WindowRecord
from pudd_core.views.explorer import Comparison

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["cuts_frame", "export_json", "windows_frame"]


def _decided(test: CutTest) -> str:
    if test.skipped:
        return "skip rule"
    if test.shortcut:
        return f"shortcut: {test.shortcut}"
    if test.floored_cells:
        return f"count floor ({test.floored_cells} cells raised)"
    return "data"


def cuts_frame(comparison: Comparison) -> pd.DataFrame:
    """One row per setting, seed, tested chunk and cut: the χ² test's numbers and what decided.

    ``decided_by`` is ``"skip rule"`` (no test: p is missing), ``"shortcut: ..."`` (a rule of the
    detector set p), ``"count floor (n cells raised)"`` (the floor changed the table) or
    ``"data"``; ``winning`` marks the chunk's smallest p (PUDD's p for the chunk).

    Examples
    --------
    >>> from pudd_core.experiments.runner import run_experiment
    >>> from pudd_core.views.explorer import ExplorerConfig
    >>> cfg = ExplorerConfig(baselines=(), n_chunks=12)
    >>> frame = cuts_frame(cfg.comparison([run_experiment(c) for c in cfg.run_configs()]))
    >>> list(frame.columns)
    ['setting', 'seed', 'chunk_index', 'cut', 'p_value', 'statistic', 'dof', 'skipped',
     'floored_cells', 'shortcut', 'decided_by', 'winning', 'alarm']
    >>> int(frame.loc[0, "chunk_index"]), int(frame.loc[0, "cut"])  # chunk 1 has no test
    (2, 1)
    """
    import pandas as pd

    rows = []
    for label, runs in zip(comparison.labels, comparison.settings, strict=True):
        for run in runs:
            for chunk in run.chunks:
                for test in chunk.cut_tests:
                    record = dataclasses.asdict(test)
                    if test.skipped:  # no test ran: its p is missing, never 1.0
                        record["p_value"] = math.nan
                    rows.append({
                        "setting": label, "seed": run.config.seed,
                        "chunk_index": chunk.chunk_index, **record,
                        "decided_by": _decided(test),
                        "winning": test.cut == chunk.cut_point, "alarm": chunk.alarm})
    columns = ["setting", "seed", "chunk_index", "cut", "p_value", "statistic", "dof",
               "skipped", "floored_cells", "shortcut", "decided_by", "winning", "alarm"]
    return pd.DataFrame(rows, columns=columns)


def _window_rows(record: WindowRecord) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    k = len(record.bucket_centres)
    columns = [*(f"bucket {j}" for j in range(k)), "misclassified"][: len(record.table[0])]
    centres = [*record.bucket_centres, math.nan][: len(columns)]
    for w, name in enumerate(("reference", "recent")):
        for what, values in (("observed", record.table[w]), ("expected", record.expected[w])):
            rows += [{"window": name, "quantity": what, "column": c, "bucket_centre": m,
                      "u_low": math.nan, "u_high": math.nan, "value": float(v)}
                     for c, m, v in zip(columns, centres, values, strict=True)]
        hists = ((record.ref_correct, record.ref_wrong) if w == 0
                 else (record.new_correct, record.new_wrong))
        for what, counts in zip(("histogram correct", "histogram misclassified"), hists,
                                strict=True):
            rows += [{"window": name, "quantity": what, "column": f"bin {j}",
                      "bucket_centre": math.nan, "u_low": float(HIST_EDGES[j]),
                      "u_high": float(HIST_EDGES[j + 1]), "value": float(v)}
                     for j, v in enumerate(counts)]
    return rows


def windows_frame(comparison: Comparison) -> pd.DataFrame:
    """Per setting, seed and test: the winning cut's table, expected counts and PU histograms.

    Long format, one value a row: ``quantity`` is ``observed`` (counts after the floor, as
    tested), ``expected``, ``histogram correct`` or ``histogram misclassified`` (40 PU bins
    from ``u_low`` to ``u_high``); ``column`` a bucket (by ascending centre) or
    ``misclassified``.

    Examples
    --------
    >>> from pudd_core.experiments.runner import run_experiment
    >>> from pudd_core.views.explorer import ExplorerConfig
    >>> cfg = ExplorerConfig(baselines=(), n_chunks=12)
    >>> frame = windows_frame(cfg.comparison([run_experiment(c) for c in cfg.run_configs()]))
    >>> sorted(set(frame["quantity"]))
    ['expected', 'histogram correct', 'histogram misclassified', 'observed']
    """
    import pandas as pd

    rows = []
    for label, runs in zip(comparison.labels, comparison.settings, strict=True):
        for run in runs:
            for chunk in run.chunks:
                if chunk.window is not None:
                    rows += [{"setting": label, "seed": run.config.seed,
                              "chunk_index": chunk.chunk_index, **r}
                             for r in _window_rows(chunk.window.by_centre())]
    return pd.DataFrame(rows, columns=["setting", "seed", "chunk_index", "window", "quantity",
                                       "column", "bucket_centre", "u_low", "u_high", "value"])


def export_json(comparison: Comparison) -> dict[str, Any]:
    """Every setting's runs as a JSON-ready dict: per chunk the p-values, tests and windows.

    Non-finite numbers (a skipped cut's statistic) are ``None``.

    Examples
    --------
    >>> from pudd_core.experiments.runner import run_experiment
    >>> from pudd_core.views.explorer import ExplorerConfig
    >>> cfg = ExplorerConfig(baselines=(), n_chunks=12)
    >>> doc = export_json(cfg.comparison([run_experiment(c) for c in cfg.run_configs()]))
    >>> s = doc["settings"][0]; s["label"], s["alpha"], list(s["runs"][0]["chunks"][1])
    ('PUDD-3', 0.001, ['chunk_index', 'accuracy', 'p_value', 'alarm', 'cut_point', 'cuts',
     'window'])
    """
    def num(v: float) -> float | None:
        return float(v) if math.isfinite(v) else None

    settings = []
    for label, runs in zip(comparison.labels, comparison.settings, strict=True):
        cfg = runs[0].config
        out_runs = []
        for run in runs:
            chunks = []
            for c in run.chunks:
                w = c.window.by_centre() if c.window is not None else None
                chunks.append({
                    "chunk_index": c.chunk_index, "accuracy": c.accuracy,
                    # no test ran: the p is missing (None), never 1.0
                    "p_value": num(c.p_value) if c.cut_tests and not c.no_test else None,
                    "alarm": c.alarm, "cut_point": c.cut_point,
                    "cuts": [{**dataclasses.asdict(t), "statistic": num(t.statistic),
                              "p_value": None if t.skipped else t.p_value,
                              "decided_by": _decided(t)} for t in c.cut_tests],
                    "window": None if w is None else {
                        "bucket_centres": list(w.bucket_centres),
                        "bucket_edges": list(w.bucket_edges),
                        "observed": [list(r) for r in w.table],
                        "expected": [list(r) for r in w.expected],
                        "histogram_edges": [float(e) for e in HIST_EDGES],
                        "reference": {"correct": list(w.ref_correct),
                                      "misclassified": list(w.ref_wrong)},
                        "recent": {"correct": list(w.new_correct),
                                   "misclassified": list(w.new_wrong)}},
                })
            out_runs.append({"seed": run.config.seed, "alarms": list(run.alarms),
                             "accuracy": run.accuracy, "chunks": chunks})
        settings.append({"label": label, "alpha": cfg.alpha,
                         "options": dict(cfg.detector_options), "runs": out_runs})
    first = comparison.settings[0][0].config
    return {"dataset": first.dataset, "classifier": first.classifier, "regime": first.regime,
            "seeds": list(comparison.seeds), "settings": settings}

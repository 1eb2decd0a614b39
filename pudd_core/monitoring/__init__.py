"""Monitor your own model: PUDD on a log of its predictions (a CSV or Parquet file).

A prediction log holds, per instance, the true label (once known) and the predicted class
probabilities, often with a timestamp. That is all PUDD needs: the PU-index is
``1 - p(true class)`` (:func:`pudd_core.pu_index.pu_index`) and a prediction is correct when
its arg-max is the label. :func:`monitor` streams the log in batches (pyarrow for Parquet,
pandas ``read_csv(chunksize=...)`` for CSV), cuts it into chunks of rows or of time, and feeds
each chunk to :class:`~pudd_core.detector.ChunkPUDD` (and, if asked, to the river baselines,
fed the same chunk's 0/1 errors, as ``experiments.runner`` feeds them). Memory stays bounded
by the detector's history and one batch, whatever the log's length.

The package's rooms: ``_log`` reads a log (:class:`LogFormat`: which columns mean what;
:func:`read_log_head`, :func:`guess_columns`), ``_score`` turns a batch of rows into
PU-indices and correctness, ``_windows`` cuts time into windows, ``_incremental`` is the
incremental monitor (:class:`Monitor`: rows fed as they come, saved and restored), ``_batch``
the batch monitor (:func:`monitor`: a file's batches fed to a :class:`Monitor`), ``_follow``
a log that keeps growing (:class:`Follower`: ``monitor --follow``), ``_calibrate`` the
choice of α from a stable stretch (:func:`calibrate`) and ``_calibrate_log`` that choice on a
log, monitored after it (:func:`calibrate_log`),
``_result`` what they return (:class:`MonitorResult`: per-chunk records, frames, JSON),
``_report`` what the HTML report says of it (:func:`report_view`: the state in words, the
periods, the chunks' times, which classes' PU-index moved) and ``_labels`` labels that come
in a second file, joined by a prediction id (:class:`LabelJoin`; ``monitor(log,
labels=..., id_column=...)``).

Accepted forms (columns, the fields of :class:`LogFormat`):

* ``label`` and one probability column per class: ``proba_prefix="proba_"`` matches
  ``proba_<class>`` to the label values (``proba_0``, ``proba_cat``), or ``proba_columns``
  lists them in class order, with ``classes`` giving each column's label value (default:
  the class indices ``0 .. K-1``);
* the two-column shortcut: ``p_true`` (the probability of the true class) with ``correct``
  (0/1, booleans or ``true``/``false``), or with ``pred`` (the predicted label) and ``label``.

A row whose label (or ``p_true``/``correct``) is empty is *unlabelled*: it belongs to its
chunk, but the detector does not see it. Rows are numbered from 0 after the header, as pandas
numbers them; errors name the row and the column.

Chunks: ``chunk_size`` consecutive rows, or ``time_column`` + ``window`` (any multiple of a
pandas offset alias: ``"1D"``, ``"6h"``, ``"30min"``, ``"2W"``, ``"2MS"``): each chunk holds
the rows of one bin of pandas' ``resample(window)``; empty bins (no rows at all) are skipped.
Times are never guessed: text that is not ISO 8601 needs ``time_format``, numbers need
``time_unit`` (:data:`~pudd_core.monitoring._windows.TIME_UNITS`), and UTC offsets on some
rows only are refused. Timestamps must be sorted
(non-decreasing): an unsorted log is **refused** (naming the first row out of order), not
sorted, because sorting needs the whole file in memory; sort it first
(``df.sort_values(col)``).

The log's description is one object, :class:`LogFormat`, whose fields are the entries of
one table, :data:`LOG_FIELDS`: the command line's flags and the Monitor page's controls are
made from it, and both build a ``LogFormat`` that :func:`monitor`, :class:`Monitor` and
:class:`Follower` read.

Examples
--------
>>> from pudd_core.monitoring import LogFormat, monitor
>>> import numpy as np, pandas as pd
>>> rng = np.random.default_rng(0)
>>> p = np.r_[rng.uniform(0.7, 1.0, 3000), rng.uniform(0.3, 1.0, 3000)]  # p(true class)
>>> log = pd.DataFrame({"label": 1, "proba_0": 1 - p, "proba_1": p})
>>> res = monitor(log, LogFormat(label="label", proba_prefix="proba_"), chunk_size=500)
>>> res.n_chunks, res.alarms, round(res.accuracy[0], 3)
(12, (6,), 1.0)
>>> res.spans[6]
ChunkSpan(index=6, first_row=3000, last_row=3499, n_rows=500, n_labelled=500, start=None, end=None)
>>> monitor(log, label="label", proba_prefix="proba_", chunk_size=500).alarms  # the same
(6,)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pudd_core.monitoring._fields import (
    COMPRESSIONS,
    FORM_GROUP,
    LOG_FIELDS,
    LOG_SHAPES,
    LogField,
    LogShape,
    log_field,
    log_field_names,
    log_forms,
)

if TYPE_CHECKING:
    from pudd_core.monitoring._batch import monitor
    from pudd_core.monitoring._calibrate import (
        AlphaCalibration,
        CalibrationResult,
        alarm_chunks,
        calibrate,
        inject_change,
    )
    from pudd_core.monitoring._calibrate_log import calibrate_log, parse_time_range
    from pudd_core.monitoring._follow import Follower, chunk_json
    from pudd_core.monitoring._incremental import VARIANTS, Monitor, RecordWindows, Variant
    from pudd_core.monitoring._labels import LabelJoin
    from pudd_core.monitoring._log import (
        BATCH_ROWS,
        LogFormat,
        estimate_rows,
        guess_columns,
        read_log_head,
    )
    from pudd_core.monitoring._report import PU_BINS, ClassChange, ReportView, report_view
    from pudd_core.monitoring._result import ChunkRecord, ChunkSpan, MonitorResult
    from pudd_core.monitoring._score import SUM_TOLERANCE

#: Loaded on first use (PEP 562): the command line's parser reads :data:`LOG_FIELDS` without
#: loading the monitor (numpy's kernels, the detector, river's base classes).
_LAZY = {
    "monitor": "_batch", "AlphaCalibration": "_calibrate", "CalibrationResult": "_calibrate",
    "calibrate": "_calibrate", "alarm_chunks": "_calibrate", "calibrate_log": "_calibrate_log",
    "inject_change": "_calibrate", "parse_time_range": "_calibrate_log",
    "Follower": "_follow", "chunk_json": "_follow", "VARIANTS": "_incremental",
    "Monitor": "_incremental", "RecordWindows": "_incremental", "Variant": "_incremental",
    "BATCH_ROWS": "_log", "LogFormat": "_log", "estimate_rows": "_log",
    "guess_columns": "_log", "read_log_head": "_log", "ChunkRecord": "_result",
    "ChunkSpan": "_result", "MonitorResult": "_result", "SUM_TOLERANCE": "_score",
    "PU_BINS": "_report", "ClassChange": "_report", "ReportView": "_report",
    "report_view": "_report", "LabelJoin": "_labels",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = ["BATCH_ROWS", "COMPRESSIONS", "FORM_GROUP", "LOG_FIELDS", "LOG_SHAPES", "PU_BINS",
           "SUM_TOLERANCE", "VARIANTS", "AlphaCalibration", "CalibrationResult", "ChunkRecord",
           "ChunkSpan", "ClassChange", "Follower", "LabelJoin", "LogField", "LogFormat", "LogShape",
           "Monitor", "MonitorResult", "RecordWindows", "ReportView", "Variant", "alarm_chunks",
           "calibrate",
           "calibrate_log", "chunk_json", "estimate_rows", "guess_columns", "inject_change",
           "log_field", "log_field_names", "log_forms", "monitor", "parse_time_range",
           "read_log_head", "report_view"]

"""The batch monitor: a whole log, read in batches, fed to the incremental monitor."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pudd_core._validation import ParameterError, check_positive_int
from pudd_core.monitoring._incremental import Monitor, RecordWindows, Variant
from pudd_core.monitoring._labels import LabelJoin, joined
from pudd_core.monitoring._log import (
    BATCH_ROWS,
    LogFormat,
    batches,
    check_source,
    estimate_rows,
    log_columns,
    name_of,
)
from pudd_core.monitoring._result import MonitorResult
from pudd_core.monitoring._score import SUM_TOLERANCE

__all__ = ["monitor"]


def monitor(
    source: Any,
    log_format: LogFormat | None = None,
    *,
    chunk_size: int | None = None,
    window: str | None = None,
    time_format: str | None = None,
    time_unit: str | None = None,
    alpha: float = 1e-3,
    detector_options: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
    baselines: Sequence[str] = (),
    normalize: bool = False,
    tolerance: float = SUM_TOLERANCE,
    record_windows: RecordWindows = "alarms",
    seed: int = 0,
    batch_rows: int = BATCH_ROWS,
    variant: Variant = "calibrated",
    progress: Callable[[int, int], None] | None = None,
    labels: Any = None,
    id_column: str | None = None,
    **columns: Any,
) -> MonitorResult:
    """Run PUDD (and river baselines) over a log of a model's predictions.

    Parameters
    ----------
    source
        A CSV or Parquet file (path, open binary file or bytes), or a DataFrame. Parquet is
        recognised by its magic bytes, whatever the name.
    log_format
        Which columns mean what: a :class:`~pudd_core.monitoring.LogFormat`.
    **columns
        Or its fields as keywords: ``label="y", proba_prefix="proba_"`` is
        ``LogFormat(label="y", proba_prefix="proba_")``. ``label`` (empty cells: not yet
        labelled), ``proba_prefix`` or ``proba_columns`` with ``classes``, or the shortcut
        ``p_true`` with ``correct`` or ``pred``; ``time_column``.
    chunk_size
        Rows per chunk (default 1000 without ``window``).
    window
        Chunk by time instead: a pandas offset alias (``"1D"``) cutting the format's
        ``time_column``: the chunks are the non-empty bins of pandas' ``resample(window)``,
        any multiple of any alias (``"2W"``, ``"2MS"``). A number instead cuts a numeric time
        column into steps of its own unit. Timestamps must be sorted; an unsorted log is
        refused (the package docstring says why).
    time_format
        The strftime format of a text time column (``"%d/%m/%Y %H:%M"``). Without it the text
        must be ISO 8601; anything else is refused, never guessed (``01/03/2024`` is the 1st
        of March or the 3rd of January). Times with a UTC offset are read in UTC; an offset on
        some rows only is refused.
    time_unit
        What a numeric time column counts: ``"s"``, ``"ms"``, ``"us"``, ``"ns"`` (epoch
        time), ``"year"`` (integer years) or ``"number"`` (plain numbers, for a numeric
        window). Needed under an offset alias, and under a numeric window when the numbers
        look like epoch time; never guessed from their size.
    alpha, detector_options, seed
        :class:`~pudd_core.detector.ChunkPUDD`'s threshold, other options and seed.
    variant
        ``"calibrated"`` (default): ``clamp_min=0, min_expected=5``, the count floor that keeps
        false alarms rare on healthy logs, ``max_chunks=128``, a bounded history, and
        ``refit="doubling"``, buckets fitted on old windows of 1, 2, 4, ... chunks only;
        ``"authors"``: the authors' floor of 5 on every cell, their unbounded history and a
        fit for every old window, as the lab's reproduction runs it. ``detector_options``
        override either.
    baselines
        River detectors fed each chunk's 0/1 errors beside PUDD (``"adwin"``, ``"ddm"`` ...).
    normalize
        Divide each probability row by its sum instead of refusing rows that do not sum to 1
        within ``tolerance``.
    record_windows
        Keep the winning windows' histograms (for plots) at ``"all"`` chunks, at
        ``"alarms"`` only, or ``"none"``. ``"all"`` copies the history per chunk: for short
        logs (the app).
    batch_rows
        Rows read per batch (memory).
    labels, id_column
        The true labels from a second file (a CSV, JSON lines or Parquet file, or a
        DataFrame) holding ``id_column`` and the label column (``label``), joined to the log's
        rows by ``id_column``, which the log holds instead of the label column: labels in any
        order, rows without one unlabelled (pending at the end), a label whose id is not in
        the log counted in the notes, the same id with two labels refused
        (:class:`~pudd_core.monitoring.LabelJoin` says what happens to each case). The labels
        are read into memory first; the log is read in batches as without them.
    progress
        Called after each batch with ``(rows read, rows in the log)`` (a CSV's row count is
        estimated from its size); it may raise to stop the run.

    The work is :class:`~pudd_core.monitoring.Monitor`'s, fed the file's batches: the
    incremental monitor gives the same result chunk for chunk.

    Raises
    ------
    ParameterError
        For a missing column, a bad probability, label, timestamp or ``correct`` value
        (naming the row and column), unsorted timestamps, or a chunk with no labelled row.
    FileNotFoundError
        If ``source`` is a path to no file.
    """
    import pandas as pd

    start = time.perf_counter()
    check_positive_int("batch_rows", batch_rows)
    m = Monitor(log_format, chunk_size=chunk_size, window=window, time_format=time_format,
                time_unit=time_unit, alpha=alpha,
                detector_options=detector_options, baselines=baselines, normalize=normalize,
                tolerance=tolerance, record_windows=record_windows, seed=seed,
                variant=variant, **columns)
    check_source(source)
    name = name_of(source)
    feeder: Monitor | LabelJoin = m
    if labels is not None or id_column is not None:
        feeder = joined(m, source, labels, id_column, batch_rows)
    fmt = feeder.start(log_columns(source))
    columns_read = fmt.columns if isinstance(feeder, Monitor) else feeder.read_columns
    total = estimate_rows(source) if progress is not None else 0
    try:
        for n, frame in batches(source, columns_read, batch_rows, (fmt.label, fmt.pred),
                                as_text=feeder.text_columns):
            feeder.feed(frame, n)
            if progress is not None:
                progress(m.next_row, max(total, m.next_row))
    except (UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ParameterError("source", f"{name} could not be read near row {m.next_row}: "
                                       f"{' '.join(str(exc).split())}") from None
    m.finish()
    result = feeder.result(name, time.perf_counter() - start)
    if len(result.spans) < 2:
        warnings.warn(f"the log makes a single tested chunk ({result.spans[0].n_rows} rows): "
                      "PUDD needs two to test; choose smaller chunks", stacklevel=2)
    return result

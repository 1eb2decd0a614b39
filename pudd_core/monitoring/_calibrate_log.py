"""α chosen on a log, then the whole log monitored at it with the stretch as its reference.

The stretch is read from the file (its first rows, or a time range) and calibrated on;
:func:`pudd_core.monitoring.calibrate` does the resampling; this module reads the log for it
and splits the monitored result at the stretch's end (:func:`after_reference`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from pudd_core._validation import (
    ParameterError,
    check_open_unit,
    check_positive_int,
)
from pudd_core.monitoring._calibrate import (
    DEFAULT_ALPHAS,
    CalibrationResult,
    Change,
    calibrate,
)
from pudd_core.monitoring._incremental import (
    Monitor,
    RecordWindows,
    Variant,
)
from pudd_core.monitoring._log import (
    BATCH_ROWS,
    LogFormat,
    batches,
    check_source,
    log_columns,
    name_of,
)
from pudd_core.monitoring._result import MonitorResult
from pudd_core.monitoring._score import SUM_TOLERANCE

__all__ = ["after_reference", "calibrate_log", "parse_time_range", "time_rows"]


def calibrate_log(
    source: Any,
    log_format: LogFormat | None = None,
    *,
    calibrate_on: int | tuple[Any, Any],
    false_alarm_rate: float,
    chunk_size: int | None = None,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    n_resamples: int = 50,
    change: Change | None = "confidence",
    size: float = 0.5,
    within: int = 3,
    variant: Variant = "calibrated",
    detector_options: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
    baselines: Sequence[str] = (),
    normalize: bool = False,
    tolerance: float = SUM_TOLERANCE,
    record_windows: RecordWindows = "none",
    seed: int = 0,
    batch_rows: int = BATCH_ROWS,
    progress: Callable[[int, int], None] | None = None,
    time_format: str | None = None,
    time_unit: str | None = None,
    labels: Any = None,
    id_column: str | None = None,
    **columns: Any,
) -> tuple[CalibrationResult, MonitorResult]:
    """α chosen on a stable stretch of the log, then the log monitored at it from that stretch.

    ``calibrate_on`` is the stretch: a number of rows (the first ones, a whole number of
    chunks, at least two), or a time range ``(start, end)`` of the ``time_column``: the rows
    whose time is at least ``start`` and before ``end`` (read as the column is read:
    ISO 8601 text, ``time_format``, or numbers in ``time_unit``; the column sorted), their
    whole chunks used. :func:`calibrate` estimates each α's false-alarm rate on the stretch
    and recommends the largest α whose interval stays at or below ``false_alarm_rate``. The
    log is then monitored at that α with the stretch as its reference (as NannyML's reference
    period): the stretch's whole chunks, ending at its end, feed PUDD's history, so the first
    chunk after it is tested against them. The result (:func:`after_reference`) holds the
    chunks after the stretch, chunk for chunk those of :func:`~pudd_core.monitoring.monitor`
    on the whole log at that α (rows numbered as in the log, chunks from 0 after the
    stretch); the stretch's chunks and alarms are in ``reference_chunks`` and
    ``reference_alarms``, not in its alarms. The other parameters are
    :func:`calibrate`'s and :func:`~pudd_core.monitoring.monitor`'s.
    ``labels`` with ``id_column``: labels in a second file, joined by id to every pass over
    the log.

    Raises
    ------
    ParameterError
        For ``calibrate_on`` not a positive multiple of ``chunk_size``, a time range without
        a time column, unreadable, empty or not increasing, a stretch without two chunks of
        labelled rows or without a row after it, ``false_alarm_rate`` not in (0, 1), no α of
        the grid meeting the target, and everything :func:`~pudd_core.monitoring.monitor`
        refuses.
    """
    import time

    start = time.perf_counter()
    chunk_size = 1000 if chunk_size is None else chunk_size
    check_positive_int("chunk_size", chunk_size)
    by_time = isinstance(calibrate_on, tuple)
    if not by_time:
        check_positive_int("calibrate_on", calibrate_on, minimum=2 * chunk_size,
                           why=f" (two chunks of {chunk_size} rows: PUDD needs two to test)")
        if calibrate_on % chunk_size:  # type: ignore[operator]
            raise ParameterError("calibrate_on", f"calibrate_on must be a whole number of "
                                                 f"chunks (a multiple of the chunk size "
                                                 f"{chunk_size}), got {calibrate_on}")
    check_open_unit("false_alarm_rate", false_alarm_rate)
    check_positive_int("batch_rows", batch_rows)
    if change == "prior":
        raise ParameterError("change", "a log's calibration injects a 'confidence' or an "
                                       "'error_rate' change; a class-prior shift needs each "
                                       "row's class: use calibrate(u, correct, ..., labels=)",
                             ("confidence", "error_rate"))

    time_column = (log_format.time_column if log_format is not None
                   else columns.get("time_column"))
    if isinstance(calibrate_on, tuple):  # the time column finds the stretch; chunks are rows
        columns = {k: v for k, v in columns.items() if k != "time_column"}
        if log_format is not None:
            log_format = dataclasses.replace(log_format, time_column=None)

    def monitor_at(alpha: float) -> Monitor:
        return Monitor(log_format, chunk_size=chunk_size, alpha=alpha,
                       detector_options=detector_options, baselines=baselines,
                       normalize=normalize, tolerance=tolerance, record_windows=record_windows,
                       seed=seed, variant=variant, **columns)

    check_source(source)
    names = log_columns(source)
    reference = monitor_at(1e-3)  # every monitor option checked; its scorer reads the stretch
    join = None
    if labels is not None or id_column is not None:  # labels in a second file, read once
        from pudd_core.monitoring._labels import join_parts, joined

        join = joined(reference, source, labels, id_column, batch_rows)
        join.check_columns(names)
        names = [*names, join.label]
    fmt = reference.start(names)
    assert reference.scorer is not None

    def parts() -> Any:
        if join is None:
            return batches(source, fmt.columns, batch_rows)
        return join_parts(join, source, fmt, batch_rows)

    if isinstance(calibrate_on, tuple):
        first, stop = time_rows(source, time_column, calibrate_on, time_format, time_unit,
                                batch_rows)
    else:
        first, stop = 0, int(calibrate_on)
    what = (f"the rows from {calibrate_on[0]} to {calibrate_on[1]} (rows {first}..{stop - 1})"
            if isinstance(calibrate_on, tuple) else f"the first {stop} rows")
    us, oks, offset, more = [], [], 0, False
    for n, frame in parts():
        lo, hi = max(first - offset, 0), min(stop - offset, n)
        if lo < hi:
            part = {c: s.iloc[lo:hi] for c, s in frame.items()}
            scored = reference.scorer(part, hi - lo, offset + lo)
            us.append(scored.u[scored.labelled])
            oks.append(scored.ok[scored.labelled])
        offset += n
        if offset > stop:
            more = True
            break
    if not more:
        raise ParameterError("calibrate_on", f"calibrate_on ({what}) leaves no row of "
                                             f"{name_of(source)} to monitor (it has "
                                             f"{offset} rows); calibrate on fewer rows")
    n_labelled = sum(x.size for x in us)
    if n_labelled < 2 * chunk_size:
        raise ParameterError("calibrate_on", f"calibrate_on: {what} hold {n_labelled} "
                                             "labelled rows, "
                                             f"fewer than two chunks of {chunk_size}: "
                                             "calibrate on more rows")
    cal = calibrate(np.concatenate(us), np.concatenate(oks), chunk_size, alphas,
                    target=false_alarm_rate, n_resamples=n_resamples, change=change,
                    size=size, within=within, variant=variant,
                    detector_options=detector_options, seed=seed, progress=progress,
                    baselines=baselines)
    best = cal.recommended
    if best is None:
        low = cal.per_alpha[-1]
        raise ParameterError(
            "false_alarm_rate", f"no alpha of the grid keeps the false-alarm rate at or "
            f"below {false_alarm_rate:g} per chunk: the smallest, {low.alpha:g}, is known only "
            f"to be at most {low.ci[1]:.3g} ({low.n_alarms} false alarms in {low.n_chunks} "
            "resampled chunks); allow a larger rate, add smaller alphas, or calibrate on more "
            "rows or resamples" + ("; the authors' count floor invents counts that no alpha "
                                  "may tame: try the calibrated variant"
                                  if variant == "authors" else ""))
    # The stretch is the monitor's reference (as NannyML's reference period): its whole
    # chunks, ending at the stretch's end, feed the detector's history, so the first chunk
    # after it is tested against them; their alarms are kept apart, not reported.
    begin = stop - (stop - first) // chunk_size * chunk_size
    m = monitor_at(best.alpha)
    m.start(names)
    m.next_row = begin  # rows keep the log's numbers
    seen = 0
    for n, frame in parts():
        skip = max(0, begin - seen)
        seen += n
        if skip >= n:
            continue
        m.feed({c: s.iloc[skip:] for c, s in frame.items()}, n - skip)
    m.finish()
    result = after_reference(m.result(name_of(source), time.perf_counter() - start), stop)
    if join is not None:  # what the join found (the rows' count is the monitored rows')
        result = dataclasses.replace(result,
                                     notes=(*result.notes, *join.notes(result)[1:]))
    return cal, result


def after_reference(result: MonitorResult, stop: int) -> MonitorResult:
    """``result``'s chunks from row ``stop`` on, renumbered from 0; those before: its reference.

    The chunks before ``stop`` (the reference) fed the detector's history: the chunks after
    are the whole log's chunk for chunk. Their alarms are kept in ``reference_alarms`` (0-based
    among the reference's chunks), not in :attr:`~MonitorResult.alarms`.

    Examples
    --------
    >>> import pandas as pd
    >>> from pudd_core.monitoring import monitor
    >>> rng = np.random.default_rng(0)
    >>> p = np.r_[rng.uniform(0.8, 1, 1000), rng.uniform(0.5, 0.7, 400)]
    >>> log = pd.DataFrame({"proba_1": p, "proba_0": 1 - p, "label": 1})
    >>> whole = monitor(log, label="label", proba_prefix="proba_", chunk_size=100,
    ...                 detector_options={"skip_rule": None})
    >>> rest = after_reference(whole, 1000)
    >>> rest.reference_chunks, rest.n_chunks, rest.alarms[:1], rest.spans[0].first_row
    (10, 4, (0,), 1000)
    """
    n_ref = sum(s.last_row < stop for s in result.spans)
    if n_ref == len(result.spans):
        raise ParameterError("label", f"no row of {result.source} after the stretch (from row "
                                      f"{stop}) has a label yet: there is nothing to monitor")

    def span(s: Any) -> Any:
        return dataclasses.replace(s, index=s.index - n_ref)

    return dataclasses.replace(
        result, spans=tuple(span(s) for s in result.spans[n_ref:]),
        records=tuple(dataclasses.replace(r, chunk_index=r.chunk_index - n_ref)
                      for r in result.records[n_ref:]),
        baselines={k: v[n_ref:] for k, v in result.baselines.items()},
        pending=tuple(span(s) for s in result.pending),
        reference_chunks=n_ref,
        reference_alarms=tuple(r.chunk_index for r in result.records[:n_ref] if r.alarm))


def parse_time_range(text: str) -> tuple[str, str]:
    """``"START..END"`` as its two ends (text, read later as the time column is read).

    Examples
    --------
    >>> parse_time_range("2024-01-01..2024-02-01")
    ('2024-01-01', '2024-02-01')
    >>> parse_time_range("2024-01-01")
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: calibrate_on '2024-01-01' is neither a number of ...
    """
    parts = str(text).split("..")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise ParameterError("calibrate_on", f"calibrate_on {text!r} is neither a number of "
                                             "rows nor a time range START..END (e.g. "
                                             "2024-01-01..2024-02-01)")
    return parts[0].strip(), parts[1].strip()


def time_rows(source: Any, col: str | None, span: tuple[Any, Any], time_format: str | None,
              time_unit: str | None, batch_rows: int = BATCH_ROWS) -> tuple[int, int]:
    """The rows ``[first, stop)`` whose time is in ``[start, end)`` (the column sorted).

    Examples
    --------
    >>> import pandas as pd
    >>> log = pd.DataFrame({"t": ["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"]})
    >>> time_rows(log, "t", ("2024-01-02", "2024-01-04"), None, None)
    (1, 3)
    """
    import pandas as pd

    from pudd_core.monitoring._windows import Windows

    if col is None:
        raise ParameterError("calibrate_on", "a time range for calibrate_on needs the time "
                                             "column (time_column, --time-column)")
    numeric = time_unit in ("number", "year")

    def reader() -> Windows:
        return Windows("1" if numeric else "1D", time_format=time_format, time_unit=time_unit)

    ends = pd.Series(list(span))
    if numeric or time_unit is not None:
        try:
            ends = pd.Series([float(v) for v in span])
        except (TypeError, ValueError):
            raise ParameterError("calibrate_on", f"calibrate_on's time range "
                                                 f"{span[0]}..{span[1]} must "
                                                 f"be numbers, as the time column's "
                                                 f"(time_unit {time_unit!r})") from None
    try:
        lo, hi = reader().values(ends, "calibrate_on", 0)  # int64 ns, or the numbers
    except ParameterError as err:
        raise ParameterError("calibrate_on", f"calibrate_on's time range "
                                             f"{span[0]}..{span[1]} is not "
                                             f"read as the time column is: {err}") from None
    if not lo < hi:
        raise ParameterError("calibrate_on", f"calibrate_on's time range "
                                             f"{span[0]}..{span[1]} is empty: "
                                             "its end must come after its start")
    w, first, stop, offset, last = reader(), None, None, 0, None
    for n, frame in batches(source, [col], batch_rows):
        t = w.values(frame[col], col, offset)
        down = np.flatnonzero(np.diff(t) < 0) + 1
        if last is not None and n and t[0] < last:
            down = np.r_[0, down]
        if down.size:
            raise ParameterError("time_column", f"row {offset + int(down[0])}, column "
                                                f"{col!r}: the times are not sorted; a time "
                                                "range needs them in order")
        if first is None and (t >= lo).any():
            first = offset + int(np.argmax(t >= lo))
        if (t >= hi).any():
            stop = offset + int(np.argmax(t >= hi))
            break
        last = t[-1] if n else last
        offset += n
    if first is None or first == stop:
        raise ParameterError("calibrate_on", f"calibrate_on: no row of {name_of(source)} "
                                             "has a time in "
                                             f"{span[0]}..{span[1]}")
    if stop is None:
        raise ParameterError("calibrate_on", f"calibrate_on's time range "
                                             f"{span[0]}..{span[1]} reaches "
                                             f"the end of {name_of(source)}: no row after it "
                                             "to monitor; end the range earlier")
    return first, stop

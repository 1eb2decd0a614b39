"""The incremental monitor: rows fed as they come, cut into chunks, each completed chunk tested."""

from __future__ import annotations

import math
import os
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from pudd_core._validation import (
    ParameterError,
    check_bool,
    check_open_unit,
    check_option_names,
    check_positive_int,
    check_seed,
    finite_float,
)
from pudd_core.detector import ChunkPUDD
from pudd_core.experiments.records import CutTest, WindowRecord, cut_tests, window_record
from pudd_core.monitoring._log import (
    LogFormat,
)
from pudd_core.monitoring._result import ChunkRecord, ChunkSpan, MonitorResult
from pudd_core.monitoring._score import SUM_TOLERANCE, Scored, Scorer
from pudd_core.monitoring._state import dumps, loads, write_atomic
from pudd_core.monitoring._windows import Windows

#: What a saved monitor state holds (:meth:`Monitor.save`), named in the file; its layout's
#: version is :data:`pudd_core.monitoring._state.FORMAT` (4: data, no longer a pickle).
STATE_KIND = "pudd-lab monitor"

__all__ = ["VARIANTS", "Monitor", "RecordWindows", "Variant"]

RecordWindows = Literal["all", "alarms", "none"]
Variant = Literal["calibrated", "authors"]

#: The monitor's PUDD by default: the calibrated count floor (no invented counts, and no
#: test of a table with an expected count below 5), which alarms far less often on healthy
#: logs than the authors' floor of 5 on every cell (BENCHMARKS.md, "Monitor: false alarms").
#: It also bounds the history (``max_chunks=128``: a full history keeps its newest half), so
#: that a log that runs for months costs the same per chunk at its end as at its start
#: (BENCHMARKS.md, "Bounded history"); the authors' variant keeps their unbounded history.
#: And it fits buckets only on old windows of 1, 2, 4, ... chunks (``refit="doubling"``): a
#: fit per doubling of the history instead of one per chunk, the same test on old-window
#: buckets (BENCHMARKS.md, "Bounded history"); the authors' variant fits every old window.
#: And it tests every cut (``skip_rule=None``): the authors' accuracy rule skips the cuts of a
#: confidence shift at flat accuracy about half the time, and at matched false alarms every
#: cut tested catches more injected changes early (results/skip_rule.md, issue 35).
VARIANTS: dict[str, dict[str, Any]] = {
    "calibrated": {"clamp_min": 0, "min_expected": 5.0, "max_chunks": 128,
                   "refit": "doubling", "skip_rule": None},
    "authors": {},  # ChunkPUDD's defaults: the authors' code (clamp_min=5, no bound)
}


@dataclass
class _Open:
    """Rows of the chunk still open at the end of a batch."""

    first_row: int = 0
    key: int | None = None
    u: list[NDArray[np.float64]] = field(default_factory=list)
    ok: list[NDArray[np.bool_]] = field(default_factory=list)
    lab: list[NDArray[np.bool_]] = field(default_factory=list)
    n: int = 0
    n_checked: int = 0
    n_disagree: int = 0
    prev_time: Any = None  # the time of the row before its first (to rewind the order check)


class _Chunks:
    """Cuts batches into chunks by key and tests each completed chunk (PUDD, baselines).

    A chunk whose last row has no label yet waits (its labels may still be arriving): if a
    later chunk brings a label, it is tested then (its unlabelled rows left out); if none does,
    it and every chunk after it are the log's *pending* tail.
    """

    def __init__(self, det: ChunkPUDD, baselines: Sequence[str], seed: int,
                 windows: Windows | None, record_windows: RecordWindows) -> None:
        self.det = det
        self.windows = windows
        self.record_windows = record_windows
        self.base_dets: dict[str, Any] = {}
        if baselines:  # river is imported only when a baseline is asked for (seconds, 100 MB)
            from pudd_core.experiments.baselines import make

            self.base_dets = {b: make(b, seed=seed) for b in baselines}
        self.base_hits: dict[str, list[tuple[int, ...]]] = {b: [] for b in self.base_dets}
        self.spans: list[ChunkSpan] = []
        self.records: list[ChunkRecord] = []
        self.waiting: list[_Open] = []
        self.open = _Open()
        self.n_checked = self.n_disagree = 0
        self.drained = 0  # chunks handed out by Monitor.drain and forgotten here

    def add(self, scored: Scored, keys: NDArray[np.int64], offset: int,
            times: NDArray[Any] | None = None, prev_time: Any = None) -> list[int]:
        """One batch's scored rows (``offset``: its first row) with each row's chunk key.

        Returns the indices of the chunks tested on the way.
        """
        before = len(self.records)
        u, ok, lab = scored.u, scored.ok, scored.labelled
        change = np.flatnonzero(keys[1:] != keys[:-1]) + 1
        starts, ends = np.r_[0, change], np.r_[change, len(keys)]
        for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
            key = int(keys[a])
            if self.open.n and self.open.key != key:
                self.close()
            if not self.open.n:
                self.open.first_row, self.open.key = offset + a, key
                self.open.prev_time = (prev_time if a == 0 else times[a - 1]) \
                    if times is not None else None
            self.open.u.append(u[a:b])
            self.open.ok.append(ok[a:b])
            self.open.lab.append(lab[a:b])
            self.open.n += b - a
            if scored.checked is not None and scored.disagree is not None:
                self.open.n_checked += int(scored.checked[a:b].sum())
                self.open.n_disagree += int(scored.disagree[a:b].sum())
        return list(range(before, len(self.records)))

    def close(self) -> list[int]:
        """The open chunk is complete: test it, or let it wait for its labels.

        Returns the indices of the chunks tested.
        """
        before = len(self.records)
        p, self.open = self.open, _Open()
        if not p.n:
            return []
        any_label = any(part.any() for part in p.lab)
        if any_label:
            for w in self.waiting:  # not the tail after all
                self._test(w)
            self.waiting = []
        if p.lab[-1][-1]:
            self._test(p)
        else:
            if not any_label:  # keep only what a pending span needs
                p.u, p.ok = [], []
            self.waiting.append(p)
        return list(range(before, len(self.records)))

    def pending(self) -> tuple[ChunkSpan, ...]:
        """The chunks still waiting at the end of the log: its unlabelled tail."""
        first = self.drained + len(self.spans)
        return tuple(self._span(w, first + i) for i, w in enumerate(self.waiting))

    def _span(self, p: _Open, index: int) -> ChunkSpan:
        s_text = e_text = None
        if self.windows is not None and p.key is not None:
            s_text, e_text = self.windows.bounds(p.key)
        n_lab = int(sum(int(part.sum()) for part in p.lab))
        return ChunkSpan(index, p.first_row, p.first_row + p.n - 1, p.n, n_lab, s_text, e_text)

    def _test(self, p: _Open) -> None:
        span = self._span(p, self.drained + len(self.spans))
        if span.n_labelled == 0:
            where = f" (time window {span.start} .. {span.end})" if span.start else ""
            raise ParameterError(
                "label", f"chunk {span.index}, rows {span.first_row}..{span.last_row}{where}, "
                "has no labelled row, but later rows have labels: the detector needs the true "
                "labels; choose larger chunks or a longer window")
        u, ok, lab = (np.concatenate(p.u), np.concatenate(p.ok), np.concatenate(p.lab))
        if not lab.all():
            u, ok = u[lab], ok[lab]
        self.n_checked += p.n_checked
        self.n_disagree += p.n_disagree
        self.spans.append(span)
        self.test(span.index, u, ok)

    def test(self, index: int, u: NDArray[np.float64], ok: NDArray[np.bool_]) -> None:
        """Feed one chunk's labelled rows to PUDD and the baselines; keep the record."""
        det = self.det
        t0 = time.perf_counter()
        det.update(u, ok)
        scan = det.last_scan
        cuts = tuple((c.cut, math.nan if c.skipped else c.p_value)
                     for c in scan.cuts) if scan else ()
        no_test = det.no_test
        win = scan.winner if scan is not None else None
        floored = win.test.floored_cells if win is not None and win.test is not None else 0
        alarm = det.drift_detected
        record: WindowRecord | None = None
        tests: tuple[CutTest, ...] = ()
        if self.record_windows == "all" or (self.record_windows == "alarms" and alarm):
            record, tests = window_record(det), cut_tests(scan) if scan is not None else ()
        t1 = time.perf_counter()
        if self.base_dets:
            from pudd_core.experiments.baselines import feed_errors
        for name, bdet in self.base_dets.items():
            hits = feed_errors(bdet, (~ok).astype(np.int64))
            if hits:
                self.base_dets[name] = bdet.clone()
            self.base_hits[name].append(hits)
        p_value = math.nan if no_test is not None else float(det.p_value)
        self.records.append(ChunkRecord(
            index, float(ok.mean()), float(u.mean()), _median(u), p_value,
            cuts, alarm, det.cut_point, floored, (t1 - t0) * 1e3, record, tests, no_test))


def column_names(rows: Any) -> list[str]:
    """The column names of rows fed (a DataFrame, or a mapping column -> Series)."""
    if isinstance(rows, Mapping):
        return [str(c) for c in rows.keys()]
    if hasattr(rows, "columns") and hasattr(rows, "iloc"):
        return [str(c) for c in rows.columns]
    raise ParameterError("rows", "feed() takes a DataFrame or a mapping column -> Series, got "
                                 f"{type(rows).__name__}")


def baseline_names(baselines: Sequence[str]) -> list[str]:
    """The baselines asked for, by their registry names (``ph`` is PageHinkley); unknown refused.

    Examples
    --------
    >>> baseline_names(["ADWIN", " ddm", "", "ph", "adwin"])
    ['adwin', 'ddm', 'pagehinkley']
    """
    wanted = [b.strip().lower() for b in baselines if b.strip()]
    if not wanted:
        return []
    from pudd_core.experiments.baselines import BASELINES

    wanted = ["pagehinkley" if b == "ph" else b for b in wanted]
    for b in wanted:
        if b not in BASELINES:
            raise ParameterError("baselines", f"unknown baseline {b!r}; choose among "
                                              f"{', '.join(BASELINES)}", tuple(BASELINES))
    return list(dict.fromkeys(wanted))


def _format(log_format: LogFormat | None, columns: Mapping[str, Any]) -> LogFormat:
    if log_format is not None and columns:
        raise ParameterError("log_format", "give the columns as a LogFormat or as keywords "
                                           f"({', '.join(columns)}), not both")
    if log_format is not None:
        if not isinstance(log_format, LogFormat):
            raise ParameterError("log_format", "log_format must be a LogFormat, got "
                                               f"{type(log_format).__name__}")
        return log_format
    fields = LogFormat.__dataclass_fields__
    unknown = [k for k in columns if k not in fields]
    if unknown:
        raise ParameterError("log_format", f"monitor() has no argument {unknown[0]!r}; the "
                                           f"log's columns are named by {', '.join(fields)}")
    return LogFormat(**columns)


def _with_times(fmt: LogFormat, time_format: str | None, time_unit: str | None) -> LogFormat:
    """The format with the time keywords of ``monitor()`` in it (they may also be its fields)."""
    for name, value in (("time_format", time_format), ("time_unit", time_unit)):
        if value is not None and getattr(fmt, name) not in (None, value):
            raise ParameterError(name, f"{name} is given twice: {value!r} and, in the "
                                       f"LogFormat, {getattr(fmt, name)!r}; give it once")
    return replace(fmt, time_format=fmt.time_format if time_format is None else time_format,
                   time_unit=fmt.time_unit if time_unit is None else time_unit)


def check_detector_options(given: Any) -> dict[str, Any]:
    """``detector_options`` as a dict of ChunkPUDD options; the monitor's own ones refused."""
    import inspect

    try:
        options = dict(given or {})
    except (TypeError, ValueError):
        raise ParameterError("detector_options", "detector_options must map ChunkPUDD option "
                                                 "names to values, e.g. {'cut_points': 'all'}, "
                                                 f"got {given!r:.80}") from None
    for key in options:
        if key in ("alpha", "seed"):
            raise ParameterError("detector_options", f"{key} is the monitor's own argument, "
                                                     f"not a detector option: pass {key}= "
                                                     f"(--{key}), not detector_options")
    valid = [p for p in inspect.signature(ChunkPUDD).parameters if p not in ("alpha", "seed")]
    check_option_names("detector_options", "ChunkPUDD", options, valid)
    return options


def _median(u: NDArray[np.float64]) -> float:
    """``np.median(u)`` of values without NaN, bit for bit, without its per-call checks.

    Examples
    --------
    >>> x = np.random.default_rng(0).random(1001)
    >>> _median(x) == float(np.median(x)), _median(x[:-1]) == float(np.median(x[:-1]))
    (True, True)
    """
    h = u.size // 2
    if u.size % 2:
        return float(np.partition(u, h)[h])
    part = np.partition(u, (h - 1, h))
    return float((part[h - 1] + part[h]) / 2)  # np.median: the mean of the two middle ones


class _Order:
    """Checks that the times never go back, across batches."""

    def __init__(self, column: str, windows: Windows) -> None:
        self.column = column
        self.windows = windows
        self.last: Any = None

    def check(self, ns: NDArray[Any], offset: int) -> None:
        back = np.flatnonzero(ns[1:] < ns[:-1])
        if self.last is not None and ns[0] < self.last:
            back = np.r_[-1, back]
        if back.size:
            i = int(back[0]) + 1
            prev = ns[i - 1] if i > 0 else self.last
            raise ParameterError(
                "time_column",
                f"row {offset + i}, column {self.column!r}: the timestamps are not sorted "
                f"({self.windows.show(ns[i])} comes after {self.windows.show(prev)}); sort the "
                "log by "
                "time first (e.g. df.sort_values(...)); it is not sorted here because that "
                "needs the whole file in memory")
        self.last = ns[-1]


#: A last tested chunk with fewer rows than this share of the median chunk is warned about.
SHORT_TAIL = 0.25


def _short_tail(spans: Sequence[ChunkSpan]) -> str | None:
    """A warning if the last tested chunk is much shorter than the others (a partial tail)."""
    if len(spans) < 2:
        return None
    last = spans[-1]
    median = float(np.median([s.n_rows for s in spans[:-1]]))
    if last.n_rows >= SHORT_TAIL * median:
        return None
    return (f"the last tested chunk ({last.index}, rows {last.first_row:,}..{last.last_row:,}) "
            f"has {last.n_rows:,} row(s) against a median of {median:,.0f}: it is tested as it "
            "is, but its p-value and alarm rest on few rows; choose a chunk size or window "
            "that fits the log, or wait for more rows")


#: Share of rows whose decisions and probabilities contradict each other above which the
#: monitor warns (a model deciding at 0.5, or by arg-max, contradicts itself only on ties).
DISAGREEMENT_WARNING = 0.01


def _notes(scorer: Scorer, chunks: _Chunks, pending: tuple[ChunkSpan, ...]) -> tuple[str, ...]:
    """What the monitor inferred and chose, in words; warns where the log contradicts itself."""
    fmt = scorer.fmt
    scorer.check_top_score(final=True)
    notes = list(scorer.notes)
    if scorer.binary and fmt.pred is None and fmt.correct is None and scorer.p_min >= 0.5:
        msg = (f"column {fmt.proba_columns[0]!r}, read as P(positive), is never below 0.5: if "
               "it is the score of the predicted class (a Hugging Face pipeline's score), the "
               "reading is wrong; give the predicted labels and read it with binary_top_score "
               "(--binary-top-score ... --pred ...)")
        warnings.warn(msg, stacklevel=3)
        notes.append(msg)
    if fmt.pred is not None or fmt.correct is not None:
        col = fmt.pred if fmt.pred is not None else fmt.correct
        what = "the model's decisions" if fmt.pred is not None else "the 0/1 column"
        notes.append(f"right and wrong predictions: {what} in column {col!r} (the error rates, "
                     "the baselines and PUDD's misclassified column)")
    elif fmt.proba_columns or fmt.proba_array:
        rule = "P(positive) > 0.5" if len(fmt.proba_columns) == 1 else "the arg-max"
        notes.append(f"right and wrong predictions: {rule} of the probabilities; give the model's "
                     "own decisions with pred (--pred) if it decides otherwise (a threshold)")
    if scorer.binary and not scorer.positive_seen:
        msg = (f"the positive class {fmt.positive_label!r} never occurs in column "
               f"{fmt.label!r}: check positive_label (--positive-label)")
        warnings.warn(msg, stacklevel=3)
        notes.append(msg)
    if chunks.n_checked:
        share = chunks.n_disagree / chunks.n_checked
        if share >= DISAGREEMENT_WARNING:
            msg = (f"the decisions and the probabilities disagree on {share:.1%} of the "
                   f"{chunks.n_checked:,} labelled rows ({chunks.n_disagree:,}): "
                   + ("wrong predictions whose true class had p > 0.5; is "
                      f"{fmt.p_true!r} the probability of the true class?" if fmt.p_true else
                      "decisions other than the probabilities' arg-max (P > 0.5 for one "
                      "column): a threshold other than 0.5, or a misread column?"))
            warnings.warn(msg, stacklevel=3)
            notes.append(msg)
    short = _short_tail(chunks.spans)
    if short:
        warnings.warn(short, stacklevel=3)
        notes.append(short)
    if pending:
        n = sum(s.n_rows for s in pending)
        notes.append(f"pending: the last {n:,} rows ({len(pending)} chunk(s) from row "
                     f"{pending[0].first_row:,}) wait for their labels and are not tested yet")
    return tuple(notes)


class Monitor:
    """PUDD on a log that keeps growing: feed it rows as they come, chunk by chunk.

    It holds only what the detector needs (its history, the open chunk, the chunks waiting
    for labels), tests each chunk as soon as a row of the next one arrives, and returns
    those chunks' records. Fed a log in any batches, then :meth:`finish`-ed, it gives the
    batch monitor's result chunk for chunk (:func:`~pudd_core.monitoring.monitor` is this
    object fed the file's batches). :meth:`save` and :meth:`restore` keep it across a
    restart; when the labels of the pending tail arrive, :meth:`rewind` drops the chunks
    that waited for them and says from which row to feed the log again.

    The parameters are :func:`~pudd_core.monitoring.monitor`'s, without the source.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> p = np.r_[rng.uniform(0.7, 1.0, 3000), rng.uniform(0.3, 1.0, 3000)]
    >>> log = pd.DataFrame({"label": 1, "proba_0": 1 - p, "proba_1": p})
    >>> m = Monitor(LogFormat(label="label", proba_prefix="proba_"), chunk_size=500)
    >>> [r.chunk_index for r in m.feed(log.iloc[:1700])]  # chunk 3 is still open
    [0, 1, 2]
    >>> [(r.chunk_index, r.alarm) for r in m.feed(log.iloc[1700:])][-3:]
    [(8, False), (9, False), (10, False)]
    >>> m.finish()[0].chunk_index, m.result().alarms
    (11, (6,))
    """

    def __init__(
        self,
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
        variant: Variant = "calibrated",
        **columns: Any,
    ) -> None:
        self.given = _with_times(_format(log_format, columns), time_format, time_unit)
        time_format, time_unit = self.given.time_format, self.given.time_unit
        check_open_unit("alpha", alpha)
        check_bool("normalize", normalize)
        check_seed("seed", seed)
        if finite_float("tolerance", tolerance) < 0:
            raise ParameterError("tolerance", f"tolerance must be >= 0, got {tolerance!r}")
        if isinstance(baselines, str):  # "adwin,ddm" as the command line writes it
            baselines = baselines.split(",")
        if record_windows not in ("all", "alarms", "none"):
            raise ParameterError("record_windows", "record_windows must be 'all', 'alarms' or "
                                                   f"'none', got {record_windows!r}",
                                 ("all", "alarms", "none"))
        if (self.given.time_column is None) != (window is None):
            raise ParameterError("window", "chunking by time needs both time_column "
                                           "(--time-column) and window (--window)")
        if window is None and (time_format is not None or time_unit is not None):
            given = "time_format" if time_format is not None else "time_unit"
            raise ParameterError(given, f"{given} (--{given.replace('_', '-')}) says how to "
                                        "read the time column, for chunks by time: give "
                                        "time_column and window too")
        if window is not None and chunk_size is not None:
            raise ParameterError("chunk_size", "chunk by rows (chunk_size) or by time "
                                               "(window), not both")
        if window is None:
            chunk_size = 1000 if chunk_size is None else chunk_size
            check_positive_int("chunk_size", chunk_size)
        if variant not in VARIANTS:
            raise ParameterError("variant", f"variant must be 'calibrated' or 'authors', got "
                                            f"{variant!r}", tuple(VARIANTS))
        self.chunk_size = chunk_size
        self.alpha = float(alpha)
        self.options = tuple(sorted({**VARIANTS[variant],
                                     **check_detector_options(detector_options)}.items()))
        det = ChunkPUDD(alpha, seed=seed, **dict(self.options))
        self.windows = (Windows(window, time_format=time_format, time_unit=time_unit)
                        if window is not None else None)
        self.chunks = _Chunks(det, baseline_names(baselines), seed, self.windows,
                              record_windows)
        self.normalize, self.tolerance = normalize, tolerance
        self.scorer: Scorer | None = None  # made with the format, at the first rows
        self.order: _Order | None = None
        self.next_row = 0  # rows fed so far: the next row's number
        self.finished = False

    #: Columns a CSV's reader keeps as text: none (a :class:`LabelJoin`'s id is one).
    text_columns: tuple[str, ...] = ()

    @property
    def format(self) -> LogFormat | None:
        """The format as read (None before the first rows)."""
        return None if self.scorer is None else self.scorer.fmt

    @property
    def read_columns(self) -> list[str]:
        """The columns read from the log: the format's (after the first rows)."""
        fmt = self.format
        return [] if fmt is None else fmt.columns

    def check_columns(self, names: Sequence[str]) -> None:
        """Refuse a part of the log without the format's columns (a Parquet part)."""
        self.given.resolve([str(c) for c in names])

    def start(self, names: Sequence[str]) -> LogFormat:
        """Resolve the format against the log's columns (done by the first :meth:`feed`)."""
        if self.scorer is None:
            fmt = self.given.resolve([str(c) for c in names])
            self.scorer = Scorer(fmt, normalize=self.normalize, tolerance=self.tolerance)
            if self.windows is not None:
                self.order = _Order(fmt.time_column or "", self.windows)
        return self.scorer.fmt

    def feed(self, rows: Any, n: int | None = None) -> tuple[ChunkRecord, ...]:
        """Add the log's next rows (a DataFrame, or column -> Series with ``n`` rows).

        Returns the records of the chunks tested on the way (a chunk is tested when a row of
        the next one arrives, or at :meth:`finish`).
        """
        if self.finished:
            raise ParameterError("rows", "this monitor is finished: the log has ended")
        names = column_names(rows)
        fmt = self.start(names)
        rows, n = self._checked(rows, names, fmt, n)
        if n == 0:
            return ()
        assert self.scorer is not None
        offset = self.next_row
        scored = self.scorer(rows, n, offset)
        times: NDArray[Any] | None = None
        prev = None
        if self.windows is not None:
            assert fmt.time_column is not None and self.order is not None
            prev = self.order.last
            times = self.windows.values(rows[fmt.time_column], fmt.time_column, offset)
            self.order.check(times, offset)
            keys = self.windows.ids(times)
        else:
            assert self.chunk_size is not None
            keys = (offset + np.arange(n, dtype=np.int64)) // self.chunk_size
        tested = self.chunks.add(scored, keys, offset, times, prev)
        self.next_row = offset + n
        return tuple(self.chunks.records[i] for i in tested)

    def _checked(self, rows: Any, names: list[str], fmt: LogFormat,
                 n: int | None) -> tuple[Any, int]:
        """The rows with every column the format reads, all ``n`` long; else named errors."""
        import pandas as pd

        missing = [c for c in fmt.columns if c not in names]
        if missing:
            raise ParameterError("rows", f"the rows from row {self.next_row} have no column "
                                         f"{missing[0]!r}, which the format reads (from the "
                                         "log's first rows): every batch needs the columns "
                                         f"{', '.join(fmt.columns)}")
        if isinstance(rows, Mapping):
            cols = {}
            for c in fmt.columns:
                v = rows[c]
                try:
                    cols[c] = v if isinstance(v, pd.Series) else pd.Series(v)
                except (TypeError, ValueError) as err:
                    raise ParameterError("rows", f"column {c!r} must be a Series or an array "
                                                 f"of values, got {type(v).__name__} ({err})"
                                         ) from None
            lengths = {c: len(v) for c, v in cols.items()}
            rows = cols
        else:
            lengths = dict.fromkeys(fmt.columns, len(rows))
        expected = next(iter(lengths.values())) if n is None else n
        check_positive_int("n", expected, minimum=0)
        odd = [c for c, k in lengths.items() if k != expected]
        if odd:
            shown = ", ".join(f"{c!r}: {k}" for c, k in lengths.items())
            raise ParameterError("rows", f"the columns fed have different lengths ({shown}"
                                         f"{f'; n={n}' if n is not None else ''}): every column "
                                         "needs one value per row")
        return rows, int(expected)

    def finish(self) -> tuple[ChunkRecord, ...]:
        """The log has ended: test the open chunk (or let it wait with the pending tail)."""
        if self.finished:
            return ()
        self.finished = True
        return tuple(self.chunks.records[i] for i in self.chunks.close())

    def _unlabelled(self) -> _Open | None:
        """The first untested chunk with a row whose label is missing (waiting, or open)."""
        c = self.chunks
        if c.waiting:  # a waiting chunk's last row has no label
            return c.waiting[0]
        if c.open.n and not all(part.all() for part in c.open.lab):
            return c.open
        return None

    @property
    def resume_row(self) -> int:
        """The row :meth:`rewind` would feed again from (else :attr:`next_row`)."""
        first = self._unlabelled()
        return self.next_row if first is None else first.first_row

    @property
    def untested_row(self) -> int:
        """The first row of the chunks not tested yet (waiting or open); else :attr:`next_row`.

        Rows before it are final; :attr:`resume_row` is never before it, but a row fed without
        a label into a chunk whose rows all had one moves :attr:`resume_row` back to it.
        """
        c = self.chunks
        if c.waiting:
            return c.waiting[0].first_row
        return c.open.first_row if c.open.n else self.next_row

    def rewind(self) -> int:
        """Drop the untested chunks from the first with a missing label; the row to feed from.

        That chunk is the first waiting for labels, or else the open chunk if one of its rows
        has none: neither was tested, so it is dropped whole and read again from its first
        row (every row before it is final). Call it when labels have arrived, then feed the
        log from the row it returns; a monitor fed this way gives the batch monitor's result
        on the log as it stands then, chunk for chunk. Without a missing label it changes
        nothing and returns :attr:`next_row`.
        """
        first = self._unlabelled()
        if first is None:
            return self.next_row
        if self.order is not None:
            self.order.last = first.prev_time
        self.chunks.waiting = []
        self.chunks.open = _Open()
        self.next_row = first.first_row
        self.finished = False
        return self.next_row

    def result(self, source: str = "stream", elapsed_s: float = 0.0) -> MonitorResult:
        """What was found so far: the tested chunks, and as pending the waiting and open ones.

        Raises
        ------
        ParameterError
            If no chunk has been tested yet (no row has a label, or no row came).
        """
        chunks = self.chunks
        pending = chunks.pending()
        if chunks.drained:
            raise ParameterError("drain", f"{chunks.drained} chunk(s) were handed out by "
                                          "drain() and forgotten: the result would lack them")
        if chunks.open.n:
            pending = (*pending, chunks._span(chunks.open, len(chunks.spans) + len(pending)))
        if not chunks.spans:
            if pending:
                raise ParameterError("label", f"no row of {source} has a label yet "
                                              f"({self.next_row} rows pending): there is "
                                              "nothing to test")
            raise ParameterError("source", f"{source} has no rows")
        assert self.scorer is not None
        notes = (*(self.windows.notes if self.windows is not None else ()),
                 *_notes(self.scorer, chunks, pending))
        return MonitorResult(
            source, self.scorer.fmt, self.alpha, self.options, tuple(chunks.spans),
            tuple(chunks.records), {k: tuple(v) for k, v in chunks.base_hits.items()},
            self.next_row, elapsed_s, pending=pending, notes=notes,
            n_checked=chunks.n_checked, n_disagree=chunks.n_disagree)

    def drain(self) -> list[tuple[ChunkSpan, ChunkRecord, dict[str, tuple[int, ...]]]]:
        """The chunks tested since the last drain, each with its baselines' hits; forgotten here.

        A monitor that runs for months keeps every chunk's record for :meth:`result`; one
        drained as it goes (``monitor --follow`` does) holds only what the detector needs, so
        its memory stays flat. Chunk indices go on counting; :meth:`result` is refused after
        a drain (it would lack the drained chunks).
        """
        c = self.chunks
        out = [(s, r, {k: v[i] for k, v in c.base_hits.items()})
               for i, (s, r) in enumerate(zip(c.spans, c.records, strict=True))]
        c.drained += len(out)
        c.spans.clear()
        c.records.clear()
        for hits in c.base_hits.values():
            hits.clear()
        return out

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the whole state to ``path``, replacing it whole (a kill mid-write keeps the old).

        The file is data, not code (:mod:`pudd_core.monitoring._state`: JSON and NumPy
        arrays, with a checksum and the format's version), so restoring a file from anyone
        can at worst be refused. A later version of the monitor whose state differs refuses
        it by name instead of resuming from a state it misreads.
        """
        write_atomic(path, dumps(self, kind=STATE_KIND))

    @classmethod
    def restore(cls, path: str | os.PathLike[str]) -> Monitor:
        """The monitor saved at ``path`` (by :meth:`save`), ready for the rows after it.

        Raises
        ------
        ParameterError
            With ``param="path"`` for a file that is not such a state (another file, a
            pickle of an earlier version, damaged or altered bytes), saying what to do.
        """
        where = os.fspath(path)
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
        except OSError as exc:
            raise ParameterError("path", f"{where} cannot be read ({exc.strerror})") from None
        try:
            state = loads(raw, kind=STATE_KIND, where=where)
        except ParameterError as err:
            raise ParameterError("path", str(err)) from None
        if not isinstance(state, cls):
            raise ParameterError("path", f"{where} holds no saved monitor")
        return state

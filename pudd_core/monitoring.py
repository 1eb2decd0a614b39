"""Monitor your own model: PUDD on a log of its predictions (a CSV or Parquet file).

A prediction log holds, per instance, the true label (once known) and the predicted class
probabilities, often with a timestamp. That is all PUDD needs: the PU-index is
``1 - p(true class)`` (:func:`pudd_core.pu_index.pu_index`) and a prediction is correct when
its arg-max is the label. :func:`monitor` streams the log in batches (pyarrow for Parquet,
pandas ``read_csv(chunksize=...)`` for CSV), cuts it into chunks of rows or of time, and feeds
each chunk to :class:`~pudd_core.detector.ChunkPUDD` (and, if asked, to the river baselines,
fed the same chunk's 0/1 errors, as ``experiments.runner`` feeds them). Memory stays bounded
by the detector's history and one batch, whatever the log's length.

Accepted forms (columns):

* ``label`` and one probability column per class: ``proba_prefix="proba_"`` matches
  ``proba_<class>`` to the label values (``proba_0``, ``proba_cat``), or ``proba_columns``
  lists them in class order, with ``classes`` giving each column's label value (default:
  the class indices ``0 .. K-1``);
* the two-column shortcut: ``p_true`` (the probability of the true class) with ``correct``
  (0/1, booleans or ``true``/``false``), or with ``pred`` (the predicted label) and ``label``.

A row whose label (or ``p_true``/``correct``) is empty is *unlabelled*: it belongs to its
chunk, but the detector does not see it. Rows are numbered from 0 after the header, as pandas
numbers them; errors name the row and the column.

Chunks: ``chunk_size`` consecutive rows, or ``time_column`` + ``window`` (a pandas offset
alias: ``"1D"``, ``"6h"``, ``"30min"``, ``"W"``, ``"MS"``): each chunk holds the rows of one
time window; empty windows (no rows at all) are skipped. Timestamps must be sorted
(non-decreasing): an unsorted log is **refused** (naming the first row out of order), not
sorted, because sorting needs the whole file in memory; sort it first
(``df.sort_values(col)``).

Examples
--------
>>> import pandas as pd
>>> rng = np.random.default_rng(0)
>>> p = np.r_[rng.uniform(0.7, 1.0, 3000), rng.uniform(0.3, 1.0, 3000)]  # p(true class)
>>> log = pd.DataFrame({"label": 1, "proba_0": 1 - p, "proba_1": p})
>>> res = monitor(log, label="label", proba_prefix="proba_", chunk_size=500)
>>> res.n_chunks, res.alarms, round(res.accuracy[0], 3)
(12, (6,), 1.0)
>>> res.spans[6]
ChunkSpan(index=6, first_row=3000, last_row=3499, n_rows=500, n_labelled=500, start=None, end=None)
"""

from __future__ import annotations

import io
import math
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from pudd_core._validation import ParameterError, check_open_unit, check_positive_int
from pudd_core.detector import ChunkPUDD
from pudd_core.experiments.records import CutTest, WindowRecord, cut_tests, window_record

if TYPE_CHECKING:
    import pandas as pd

    from pudd_core.experiments.runner import ChunkLog, RunResult

__all__ = ["ChunkRecord", "ChunkSpan", "LogFormat", "MonitorResult", "guess_columns", "monitor",
           "read_log_head"]

#: Rows read per batch (bounded memory: a batch of a 10-class log is about 10 MB).
BATCH_ROWS = 131_072
#: Default tolerance of a probability row's sum around 1 (as ``pu_index``).
SUM_TOLERANCE = 1e-4
RecordWindows = Literal["all", "alarms", "none"]


@dataclass(frozen=True)
class ChunkSpan:
    """Where one chunk lies in the log.

    Attributes
    ----------
    index
        0-based chunk index.
    first_row, last_row
        Its first and last row (0-based, header excluded; both included).
    n_rows, n_labelled
        Rows in the chunk, and those with a label (the detector sees only these).
    start, end
        With time windows: the window ``[start, end)`` as ISO texts; else ``None``.
    """

    index: int
    first_row: int
    last_row: int
    n_rows: int
    n_labelled: int
    start: str | None = None
    end: str | None = None


@dataclass(frozen=True)
class ChunkRecord:
    """PUDD on one chunk of the log (light: no import of the runner and its classifiers).

    :attr:`MonitorResult.chunks` turns these into the runner's ``ChunkLog`` records.
    """

    chunk_index: int
    accuracy: float
    pu_mean: float
    pu_median: float
    p_value: float
    cut_p_values: tuple[tuple[int, float], ...]
    alarm: bool
    cut_point: int | None
    floored_cells: int
    detect_ms: float
    #: The winning cut's windows, where recorded.
    window: WindowRecord | None = field(default=None, repr=False)
    #: Every cut's test, where windows were recorded.
    cut_tests: tuple[CutTest, ...] = field(default=(), repr=False)


@dataclass(frozen=True)
class LogFormat:
    """Which columns of the log mean what (see the module docstring for the forms)."""

    label: str | None = None
    proba_columns: tuple[str, ...] = ()
    classes: tuple[str, ...] = ()  # each probability column's label value, as text
    p_true: str | None = None
    correct: str | None = None
    pred: str | None = None
    time_column: str | None = None

    @property
    def columns(self) -> list[str]:
        """Every column read from the file, once each."""
        names = [self.label, *self.proba_columns, self.p_true, self.correct, self.pred,
                 self.time_column]
        return list(dict.fromkeys(n for n in names if n is not None))


@dataclass(frozen=True)
class MonitorResult:
    """What :func:`monitor` found: the chunks, PUDD's per-chunk log and the baselines' alarms.

    ``records`` hold PUDD's result per chunk; :attr:`chunks` gives them as the runner's
    :class:`~pudd_core.experiments.runner.ChunkLog` records with 0-based ``chunk_index``
    (``window`` set where windows were recorded); :meth:`runs` renumbers them from 1 for the
    explorer's player.
    """

    source: str
    format: LogFormat
    alpha: float
    detector_options: tuple[tuple[str, Any], ...]
    spans: tuple[ChunkSpan, ...]
    records: tuple[ChunkRecord, ...] = field(repr=False)
    baselines: Mapping[str, tuple[tuple[int, ...], ...]] = field(default_factory=dict,
                                                                 repr=False)
    n_rows: int = 0
    elapsed_s: float = 0.0

    @property
    def n_chunks(self) -> int:
        """Number of chunks."""
        return len(self.spans)

    @cached_property
    def chunks(self) -> tuple[ChunkLog, ...]:
        """The records as the runner's ``ChunkLog`` (0-based ``chunk_index``)."""
        from pudd_core.experiments.runner import ChunkLog

        return tuple(
            ChunkLog(r.chunk_index, r.accuracy, r.pu_mean, r.pu_median, r.p_value,
                     r.cut_p_values, r.alarm, r.cut_point, False, (), 0.0, r.detect_ms, 0.0,
                     r.window, r.floored_cells, r.cut_tests)
            for r in self.records)

    @property
    def alarms(self) -> tuple[int, ...]:
        """0-based indices of the chunks where PUDD alarmed."""
        return tuple(c.chunk_index for c in self.records if c.alarm)

    @property
    def p_values(self) -> tuple[float, ...]:
        """PUDD's smallest p over the cut points, per chunk (1 with no test)."""
        return tuple(c.p_value for c in self.records)

    @property
    def accuracy(self) -> tuple[float, ...]:
        """Accuracy of the labelled rows, per chunk."""
        return tuple(c.accuracy for c in self.records)

    def baseline_alarms(self) -> dict[str, tuple[int, ...]]:
        """Baseline name -> 0-based chunks where it fired."""
        return {name: tuple(i for i, hits in enumerate(per) if hits)
                for name, per in self.baselines.items()}

    def alarm_frame(self) -> pd.DataFrame:
        """One row per PUDD alarm: chunk, rows, time window, p-value and winning cut."""
        import pandas as pd

        rows = []
        for i in self.alarms:
            s, c = self.spans[i], self.records[i]
            rows.append({"chunk": i, "first_row": s.first_row, "last_row": s.last_row,
                         "start": s.start, "end": s.end, "p_value": c.p_value,
                         "cut_point": c.cut_point, "accuracy": c.accuracy})
        return pd.DataFrame(rows, columns=["chunk", "first_row", "last_row", "start", "end",
                                           "p_value", "cut_point", "accuracy"])

    def to_frame(self) -> pd.DataFrame:
        """The per-chunk log: boundaries, accuracy, PU summary, p-values, every alarm."""
        import json

        import pandas as pd

        rows = []
        for s, c in zip(self.spans, self.records, strict=True):
            row: dict[str, Any] = {
                "chunk": s.index, "first_row": s.first_row, "last_row": s.last_row,
                "n_rows": s.n_rows, "n_labelled": s.n_labelled, "start": s.start,
                "end": s.end, "accuracy": c.accuracy, "pu_mean": c.pu_mean,
                "pu_median": c.pu_median, "p_value": c.p_value, "cut_point": c.cut_point,
                "alarm": c.alarm, "floored_cells": c.floored_cells,
                "cut_p_values": json.dumps(c.cut_p_values),
            }
            for name, per in self.baselines.items():
                row[f"{name}_alarm"] = bool(per[s.index])
            rows.append(row)
        return pd.DataFrame(rows)

    def to_json(self) -> dict[str, Any]:
        """The command line's ``--json`` object (strict JSON: NaN becomes ``None``)."""

        def num(v: float) -> float | None:
            return None if math.isnan(v) else float(v)

        return {
            "source": self.source,
            "n_rows": self.n_rows,
            "n_chunks": self.n_chunks,
            "alpha": self.alpha,
            "alarms": list(self.alarms),
            "p_values": [num(p) for p in self.p_values],
            "accuracy": [num(a) for a in self.accuracy],
            "cut_points": [c.cut_point for c in self.records],
            "alarm_details": self.alarm_frame().astype(object).where(
                self.alarm_frame().notna(), None).to_dict("records"),
            "baselines": {k: list(v) for k, v in self.baseline_alarms().items()},
            "chunks": [vars(s) for s in self.spans],
            "elapsed_s": self.elapsed_s,
        }

    def runs(self) -> list[RunResult]:
        """PUDD's run and each baseline's, as the explorer's player draws them.

        The player numbers tested chunks from 1 (the runner's chunk 0 trains the model), so
        chunk ``i`` of this result is chunk ``i + 1`` there. Nothing adapts here (the log is
        fixed), so every detector's error rate is the model's.
        """
        from pudd_core.experiments.evaluation import mean_accuracy
        from pudd_core.experiments.runner import RunConfig, RunResult

        shifted = tuple(replace(c, chunk_index=c.chunk_index + 1) for c in self.chunks)
        acc = mean_accuracy([c.accuracy for c in shifted]) if shifted else math.nan
        name = Path(self.source).name or "log"
        out = [RunResult(RunConfig(dataset=name, classifier="your-model", detector="pudd",
                                   alpha=self.alpha, detector_options=self.detector_options),
                         shifted, acc, tuple(i + 1 for i in self.alarms), None, None,
                         self.elapsed_s)]
        for det, per in self.baselines.items():
            logs = tuple(replace(c, p_value=math.nan, cut_p_values=(), alarm=bool(hits),
                                 cut_point=None, detections=hits, window=None, floored_cells=0,
                                 cut_tests=())
                         for c, hits in zip(shifted, per, strict=True))
            out.append(RunResult(RunConfig(dataset=name, classifier="your-model", detector=det),
                                 logs, acc, tuple(c.chunk_index for c in logs if c.alarm),
                                 None, None, self.elapsed_s))
        return out


# --- reading --------------------------------------------------------------------------------
def _is_parquet(source: Any) -> bool:
    if isinstance(source, str | os.PathLike):
        with open(source, "rb") as fh:
            head = fh.read(4)
    else:
        pos = source.tell()
        head = source.read(4)
        source.seek(pos)
    return bool(head == b"PAR1")


def _name_of(source: Any) -> str:
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    return str(getattr(source, "name", "uploaded log"))


def _open(source: Any) -> Any:
    if isinstance(source, str | os.PathLike):
        if not os.path.isfile(source):
            raise FileNotFoundError(f"no prediction log at {os.fspath(source)}: give the path "
                                    "of a CSV or Parquet file")
        return source
    if isinstance(source, bytes):
        return io.BytesIO(source)
    if hasattr(source, "seek"):
        source.seek(0)  # an uploaded file read before (a preview, an earlier run)
    return source


def read_log_head(source: Any, n_rows: int = 200) -> pd.DataFrame:
    r"""The first ``n_rows`` rows of a CSV or Parquet log (or a DataFrame), for a preview.

    Examples
    --------
    >>> read_log_head(io.BytesIO(b"label,proba_0,proba_1\n1,0.2,0.8\n"), 5).shape
    (1, 3)
    """
    import pandas as pd

    if isinstance(source, pd.DataFrame):
        return source.head(n_rows)
    src = _open(source)
    try:
        if _is_parquet(src):
            import pyarrow as pa
            import pyarrow.parquet as pq

            pf = pq.ParquetFile(src)
            batch = next(pf.iter_batches(batch_size=n_rows), None)
            if batch is None:
                return pf.schema_arrow.empty_table().to_pandas()
            return pa.Table.from_batches([batch]).to_pandas()
        return pd.read_csv(src, nrows=n_rows)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ParameterError("source", f"{_name_of(source)} is neither a readable CSV nor a "
                                       f"Parquet file: {' '.join(str(exc).split())}") from None
    finally:
        if not isinstance(src, str | os.PathLike) and hasattr(src, "seek"):
            src.seek(0)


def _batches(source: Any, columns: list[str],
             batch_rows: int) -> Iterator[tuple[int, Mapping[str, pd.Series]]]:
    """``(rows, column -> Series)`` per batch; Parquet columns come without a DataFrame."""
    import pandas as pd

    if isinstance(source, pd.DataFrame):
        for start in range(0, len(source), batch_rows):
            part = source.iloc[start:start + batch_rows]
            yield len(part), part
        return
    src = _open(source)
    if _is_parquet(src):
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(src)
        # one thread: decoding row groups in parallel keeps several in memory at once (peak
        # RSS 501 MB against 425 MB on a 10M-row log) and is no faster here (7.7 s vs 7.4 s)
        for batch in pf.iter_batches(batch_size=batch_rows, columns=columns, use_threads=False):
            yield batch.num_rows, {c: batch.column(c).to_pandas() for c in columns}
        return
    reader = pd.read_csv(src, usecols=columns, chunksize=batch_rows,
                         float_precision="round_trip")
    with reader:
        for part in reader:
            yield len(part), part


# --- columns --------------------------------------------------------------------------------
_LABEL_NAMES = ("label", "labels", "y", "y_true", "target", "true", "truth", "class", "actual")
_TIME_NAMES = ("ts", "time", "timestamp", "date", "datetime", "event_time", "created_at")


def guess_columns(head: pd.DataFrame) -> dict[str, Any]:
    """Guess the label, probability and time columns of a log from its first rows.

    Returns ``{"label", "proba_prefix", "p_true", "correct", "pred", "time_column",
    "why"}``; ``why`` says in words how each guess was made (the app shows it).

    Examples
    --------
    >>> import pandas as pd
    >>> g = guess_columns(pd.DataFrame({"ts": ["2024-01-01"], "y": [1], "p_a": [0.2],
    ...                                 "p_b": [0.8]}))
    >>> g["label"], g["proba_prefix"], g["time_column"]
    ('y', 'p_', 'ts')
    """
    import pandas as pd

    cols = [str(c) for c in head.columns]
    why: list[str] = []
    out: dict[str, Any] = {"label": None, "proba_prefix": None, "p_true": None, "correct": None,
                           "pred": None, "time_column": None}
    lower = {c.lower(): c for c in cols}
    for name in _LABEL_NAMES:
        if name in lower:
            out["label"] = lower[name]
            why.append(f"label: column `{lower[name]}` (a usual name for the true label)")
            break
    # a prefix shared by >= 2 numeric columns in [0, 1]
    numeric = [c for c in cols if pd.api.types.is_numeric_dtype(head[c])
               and head[c].dropna().between(0, 1).all()]
    best: tuple[int, str] | None = None
    for c in numeric:
        for cut in range(1, len(c)):
            prefix = c[:cut]
            if prefix[-1] not in "_-.:" and not prefix.lower().startswith(("proba", "prob")):
                continue
            n = sum(1 for d in numeric if d.startswith(prefix) and len(d) > len(prefix))
            if n >= 2 and (best is None or (n, len(prefix)) > (best[0], len(best[1]))):
                best = (n, prefix)
    if best is not None:
        out["proba_prefix"] = best[1]
        why.append(f"probabilities: the {best[0]} columns starting with `{best[1]}` (numbers in "
                   "[0, 1] sharing a prefix; the rest of each name is its class)")
    elif "p_true" in lower:
        out["p_true"] = lower["p_true"]
        for name in ("correct", "pred", "prediction", "y_pred"):
            if name in lower:
                out["correct" if name == "correct" else "pred"] = lower[name]
                break
        why.append("the two-column shortcut: `p_true` (probability of the true class) with "
                   f"`{out['correct'] or out['pred']}`")
    for c in cols:
        if c.lower() in _TIME_NAMES or pd.api.types.is_datetime64_any_dtype(head[c]):
            out["time_column"] = c
            why.append(f"time: column `{c}` (a usual name for a timestamp, or a date type)")
            break
    out["why"] = why
    return out


def _resolve(names: Sequence[str], *, label: str | None, proba_prefix: str | None,
             proba_columns: Sequence[str] | None, classes: Sequence[Any] | None,
             p_true: str | None, correct: str | None, pred: str | None,
             time_column: str | None) -> LogFormat:
    have = set(names)

    def need(col: str | None, param: str) -> None:
        if col is not None and col not in have:
            raise ParameterError(param, f"the log has no column {col!r} (given as {param}); "
                                        f"its columns: {', '.join(names)}")

    forms = sum(x is not None for x in (proba_prefix, proba_columns, p_true))
    if forms != 1:
        raise ParameterError(
            "proba_prefix", "say where the probabilities are: exactly one of proba_prefix "
            "(--proba-prefix), proba_columns (--proba-columns) or p_true (--p-true)")
    need(label, "label")
    need(time_column, "time_column")
    if p_true is not None:
        need(p_true, "p_true")
        need(correct, "correct")
        need(pred, "pred")
        if (correct is None) == (pred is None):
            raise ParameterError("correct", "with p_true, give exactly one of correct "
                                            "(--correct) or pred (--pred)")
        if pred is not None and label is None:
            raise ParameterError("label", "with pred, give the label column too (--label)")
        return LogFormat(label=label, p_true=p_true, correct=correct, pred=pred,
                         time_column=time_column)
    if label is None:
        raise ParameterError("label", "name the label column (--label)")
    if proba_prefix is not None:
        if not proba_prefix:
            raise ParameterError("proba_prefix", "proba_prefix must not be empty")
        cols = tuple(c for c in names if c.startswith(proba_prefix) and c != proba_prefix
                     and c not in (label, time_column))
        if len(cols) < 2:
            raise ParameterError(
                "proba_prefix", f"the log has {len(cols)} column(s) starting with "
                f"{proba_prefix!r}; a classifier's log needs one per class (>= 2); its "
                f"columns: {', '.join(names)}")
        cls = tuple(c[len(proba_prefix):] for c in cols)
    else:
        cols = tuple(proba_columns or ())
        if len(cols) < 2 or len(set(cols)) != len(cols):
            raise ParameterError("proba_columns", "proba_columns must name two or more "
                                                  f"distinct columns, got {list(cols)}")
        for c in cols:
            need(c, "proba_columns")
        cls = tuple(str(c) for c in (classes if classes is not None else range(len(cols))))
        if len(cls) != len(cols) or len(set(cls)) != len(cls):
            raise ParameterError("classes", f"classes must give one distinct label value per "
                                            f"probability column ({len(cols)}), got {list(cls)}")
    return LogFormat(label=label, proba_columns=cols, classes=cls, time_column=time_column)


# --- per batch: PU-index and correctness -----------------------------------------------------
def _missing(values: pd.Series) -> NDArray[np.bool_]:
    miss = values.isna().to_numpy()
    if values.dtype == object or str(values.dtype) == "string":
        miss |= values.astype(str).str.strip().eq("").to_numpy()
    return np.asarray(miss, dtype=bool)


class _LabelMap:
    """Label values -> class indices (the probability columns' order)."""

    def __init__(self, fmt: LogFormat) -> None:
        import pandas as pd

        self.fmt = fmt
        self.text = pd.Index(list(fmt.classes))
        try:
            nums = np.array([float(c) for c in fmt.classes])
            self.numbers: pd.Index | None = pd.Index(nums)
        except ValueError:
            self.numbers = None

    def __call__(self, labels: pd.Series, rows: NDArray[np.int64]) -> NDArray[np.intp]:
        import pandas as pd

        if pd.api.types.is_numeric_dtype(labels) and not pd.api.types.is_bool_dtype(labels):
            if self.numbers is None:
                idx = self.text.get_indexer(labels.astype(str))
            else:
                idx = self.numbers.get_indexer(labels.to_numpy(dtype=np.float64))
        else:
            idx = self.text.get_indexer(labels.astype(str).str.strip())
        bad = np.flatnonzero(idx < 0)
        if bad.size:
            i = int(bad[0])
            shown = ", ".join(self.fmt.proba_columns[:6]) + (
                ", ..." if len(self.fmt.proba_columns) > 6 else "")
            raise ParameterError(
                "label", f"row {rows[i]}, column {self.fmt.label!r}: label "
                f"{_plain(labels.iloc[i])!r} has no probability column (the columns are {shown}, "
                f"for the labels {', '.join(self.fmt.classes[:6])}"
                f"{', ...' if len(self.fmt.classes) > 6 else ''})")
        return np.asarray(idx, dtype=np.intp)


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value (for messages: ``7``, not ``np.int64(7)``)."""
    return value.item() if hasattr(value, "item") else value


def _check_unit(values: NDArray[np.float64], names: Sequence[str], offset: int,
                param: str) -> None:
    """Every value finite and in [0, 1]; the error names the first bad row and column."""
    bad = ~np.isfinite(values) | (values < 0.0) | (values > 1.0)
    if bad.any():
        r, c = (int(v) for v in np.argwhere(bad.reshape(len(values), -1))[0])
        v = values.reshape(len(values), -1)[r, c]
        what = ("is empty (NaN)" if math.isnan(v) else
                "is infinite" if math.isinf(v) else
                f"is {v:.6g}, below 0" if v < 0 else f"is {v:.6g}, above 1")
        raise ParameterError(param, f"row {offset + r}, column {names[c]!r}: the probability "
                                    f"{what}; probabilities lie in [0, 1]")


def _truthy(values: pd.Series, column: str, rows: NDArray[np.int64]) -> NDArray[np.bool_]:
    import pandas as pd

    if pd.api.types.is_bool_dtype(values):
        return np.asarray(values.to_numpy(dtype=bool), dtype=np.bool_)
    if pd.api.types.is_numeric_dtype(values):
        arr = values.to_numpy(dtype=np.float64)
        bad = np.flatnonzero((arr != 0) & (arr != 1))
        if bad.size:
            i = int(bad[0])
            raise ParameterError("correct", f"row {rows[i]}, column {column!r}: {arr[i]!r} "
                                            "is not 0 or 1 (correct must be 0/1 or true/false)")
        return np.asarray(arr == 1, dtype=np.bool_)
    text = values.astype(str).str.strip().str.lower()
    ok = text.isin(("1", "true", "yes", "t", "1.0"))
    bad = np.flatnonzero(~(ok | text.isin(("0", "false", "no", "f", "0.0"))).to_numpy())
    if bad.size:
        i = int(bad[0])
        raise ParameterError("correct", f"row {rows[i]}, column {column!r}: "
                                        f"{_plain(values.iloc[i])!r} is not true/false or 0/1")
    return np.asarray(ok.to_numpy(dtype=bool), dtype=np.bool_)


def _score(frame: Mapping[str, pd.Series], n: int, fmt: LogFormat, labels: _LabelMap | None,
           offset: int, normalize: bool, tolerance: float
           ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_]]:
    """PU-index, correctness and the labelled mask of one batch's ``n`` rows."""
    if fmt.p_true is not None:
        p = frame[fmt.p_true].to_numpy(dtype=np.float64, na_value=np.nan)
        labelled = ~np.isnan(p)
        if fmt.correct is not None:
            labelled &= ~_missing(frame[fmt.correct])
        else:
            assert fmt.label is not None and fmt.pred is not None
            labelled &= ~_missing(frame[fmt.label]) & ~_missing(frame[fmt.pred])
        _check_unit(np.where(labelled, p, 0.5), [fmt.p_true], offset, "p_true")
        u = 1.0 - np.where(labelled, p, 0.0)
        if fmt.correct is not None:
            pos = np.flatnonzero(labelled)
            ok = np.zeros(n, dtype=bool)
            ok[pos] = _truthy(frame[fmt.correct].iloc[pos], fmt.correct, offset + pos)
        else:
            assert fmt.label is not None and fmt.pred is not None
            a, b = frame[fmt.label], frame[fmt.pred]
            import pandas as pd

            if pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b):
                ok = (a.to_numpy(dtype=np.float64) == b.to_numpy(dtype=np.float64))
            else:
                ok = (a.astype(str).str.strip() == b.astype(str).str.strip()).to_numpy()
            ok &= labelled
        return u, ok, labelled
    assert fmt.label is not None and labels is not None
    # column by column (K passes over contiguous arrays): no (n, K) copy, no strided arg-max
    cols = [frame[c].to_numpy(dtype=np.float64, na_value=np.nan) for c in fmt.proba_columns]
    for j, col in enumerate(cols):
        if n and not (col.min() >= 0.0 and col.max() <= 1.0):  # NaN fails both: checked
            _check_unit(col, [fmt.proba_columns[j]], offset, "proba")
    sums = cols[0] + cols[1]
    for col in cols[2:]:
        sums += col
    off = np.abs(sums - 1.0) > tolerance
    if normalize:
        zero = np.flatnonzero(sums <= 0.0)
        if zero.size:
            raise ParameterError("normalize", f"row {offset + int(zero[0])}: the probabilities "
                                              "are all 0 and cannot be normalized")
        if off.any():
            cols = [col / sums for col in cols]
    elif off.any():
        r = int(np.flatnonzero(off)[0])
        raise ParameterError(
            "proba", f"row {offset + r}: the probabilities in columns "
            f"{fmt.proba_columns[0]} .. {fmt.proba_columns[-1]} sum to {sums[r]:.6g}, not 1 "
            f"(within {tolerance:g}); pass normalize=True (--normalize) to divide each row "
            "by its sum, or log probabilities (e.g. a softmax), not scores")
    lab_col = frame[fmt.label]
    labelled = ~_missing(lab_col)
    idx = np.zeros(n, dtype=np.intp)
    if labelled.all():
        idx = labels(lab_col, offset + np.arange(n))
    elif labelled.any():
        pos = np.flatnonzero(labelled)
        idx[pos] = labels(lab_col.iloc[pos], offset + pos)
    best, arg, p_true = cols[0].copy(), np.zeros(n, dtype=np.intp), cols[0].copy()
    for k in range(1, len(cols)):
        col = cols[k]
        higher = col > best  # strict: ties go to the lowest class index, as np.argmax
        np.copyto(best, col, where=higher)
        np.copyto(arg, k, where=higher)
        np.copyto(p_true, col, where=idx == k)
    u = 1.0 - p_true
    ok = (arg == idx) & labelled
    return u, ok, labelled


# --- time windows -----------------------------------------------------------------------------
class _Windows:
    """Timestamp -> window id, for a pandas offset alias."""

    def __init__(self, window: str) -> None:
        import pandas as pd
        from pandas.tseries.frequencies import to_offset

        try:
            self.offset = to_offset(window)
        except (ValueError, TypeError):
            raise ParameterError("window", f"window {window!r} is not a pandas offset alias; "
                                           "write e.g. 1D, 6h, 30min, W or MS") from None
        self.tick = isinstance(self.offset, pd.offsets.Tick)
        self.origin: int | None = None
        self.freq: Any = None
        self.window = window

    def ids(self, ts: pd.Series) -> NDArray[np.int64]:
        import pandas as pd

        ns = ts.to_numpy(dtype="datetime64[ns]").astype(np.int64)
        if self.tick:
            step = int(pd.Timedelta(self.offset).value)
            if step <= 0:
                raise ParameterError("window", f"window {self.window!r} must be positive")
            if self.origin is None:  # windows start at midnight of the first day (pandas
                self.origin = int(pd.Timestamp(ns[0]).normalize().value)  # 'start_day')
            return np.asarray((ns - self.origin) // step, dtype=np.int64)
        try:
            periods = pd.DatetimeIndex(ts).to_period(self.offset)
        except (ValueError, TypeError, AttributeError):
            raise ParameterError("window", f"window {self.window!r} cannot cut time into "
                                           "periods; use a fixed one (1D, 6h, 30min) or W, "
                                           "MS, QS, YS") from None
        self.freq = periods.freq
        return np.asarray(periods.asi8, dtype=np.int64)

    def bounds(self, wid: int) -> tuple[str, str]:
        import pandas as pd

        if self.tick:
            assert self.origin is not None
            step = int(pd.Timedelta(self.offset).value)
            a = pd.Timestamp(self.origin + wid * step)
            return a.isoformat(), pd.Timestamp(self.origin + (wid + 1) * step).isoformat()
        period = pd.Period(ordinal=wid, freq=self.freq)
        return period.start_time.isoformat(), (period + 1).start_time.isoformat()


def _timestamps(col: pd.Series, name: str, offset: int) -> pd.Series:
    import pandas as pd

    if pd.api.types.is_datetime64_any_dtype(col):
        ts = col
    elif pd.api.types.is_numeric_dtype(col):
        raise ParameterError("time_column", f"column {name!r} holds numbers, not timestamps; "
                                            "write dates/times (ISO 8601, e.g. "
                                            "2024-05-01T12:00) or chunk by rows (--chunk-size)")
    else:
        try:
            ts = pd.to_datetime(col, format="ISO8601")
        except (ValueError, TypeError):
            ts = pd.to_datetime(col, errors="coerce", format="mixed")
    if getattr(ts.dt, "tz", None) is not None:
        ts = ts.dt.tz_convert("UTC").dt.tz_localize(None)
    bad = np.flatnonzero(ts.isna().to_numpy())
    if bad.size:
        i = int(bad[0])
        raise ParameterError("time_column", f"row {offset + i}, column {name!r}: "
                                            f"{_plain(col.iloc[i])!r} is not a timestamp")
    return ts


# --- the detector loop ------------------------------------------------------------------------
@dataclass
class _Pending:
    """Rows of the chunk still open at the end of a batch."""

    first_row: int = 0
    key: int | None = None
    u: list[NDArray[np.float64]] = field(default_factory=list)
    ok: list[NDArray[np.bool_]] = field(default_factory=list)
    lab: list[NDArray[np.bool_]] = field(default_factory=list)
    n: int = 0


def monitor(
    source: Any,
    *,
    label: str | None = None,
    proba_prefix: str | None = None,
    proba_columns: Sequence[str] | None = None,
    classes: Sequence[Any] | None = None,
    p_true: str | None = None,
    correct: str | None = None,
    pred: str | None = None,
    chunk_size: int | None = None,
    time_column: str | None = None,
    window: str | None = None,
    alpha: float = 1e-3,
    detector_options: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
    baselines: Sequence[str] = (),
    normalize: bool = False,
    tolerance: float = SUM_TOLERANCE,
    record_windows: RecordWindows = "alarms",
    seed: int = 0,
    batch_rows: int = BATCH_ROWS,
) -> MonitorResult:
    """Run PUDD (and river baselines) over a log of a model's predictions.

    Parameters
    ----------
    source
        A CSV or Parquet file (path, open binary file or bytes), or a DataFrame. Parquet is
        recognised by its magic bytes, whatever the name.
    label
        The true-label column (empty cells: not yet labelled).
    proba_prefix, proba_columns, classes
        The probability columns: ``<prefix><class>``, or a list in class order with
        ``classes`` their label values (default ``0 .. K-1``).
    p_true, correct, pred
        The two-column shortcut instead: the probability of the true class, with a 0/1
        ``correct`` column or a ``pred`` column compared with ``label``.
    chunk_size
        Rows per chunk (default 1000 without ``window``).
    time_column, window
        Chunk by time instead: a timestamp column and a pandas offset alias (``"1D"``).
        Timestamps must be sorted; an unsorted log is refused (the module docstring says why).
    alpha, detector_options, seed
        :class:`~pudd_core.detector.ChunkPUDD`'s threshold, other options and seed.
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

    Raises
    ------
    ParameterError
        For a missing column, a bad probability, label, timestamp or ``correct`` value
        (naming the row and column), unsorted timestamps, or a chunk with no labelled row.
    FileNotFoundError
        If ``source`` is a path to no file.
    """
    import time as _time

    import pandas as pd

    start = _time.perf_counter()
    check_open_unit("alpha", alpha)
    check_positive_int("batch_rows", batch_rows)
    if record_windows not in ("all", "alarms", "none"):
        raise ParameterError("record_windows", "record_windows must be 'all', 'alarms' or "
                                               f"'none', got {record_windows!r}",
                             ("all", "alarms", "none"))
    if (time_column is None) != (window is None):
        raise ParameterError("window", "chunking by time needs both time_column (--time-column)"
                                       " and window (--window)")
    if window is not None and chunk_size is not None:
        raise ParameterError("chunk_size", "chunk by rows (chunk_size) or by time (window), "
                                           "not both")
    if window is None:
        chunk_size = 1000 if chunk_size is None else chunk_size
        check_positive_int("chunk_size", chunk_size)
    opts = tuple(sorted(dict(detector_options or {}).items()))
    det = ChunkPUDD(alpha, seed=seed, **dict(opts))
    wanted = [b.strip().lower() for b in baselines if b.strip()]
    if wanted:  # river is imported only when a baseline is asked for (seconds, 100 MB)
        from pudd_core.experiments.baselines import BASELINES, feed_errors, make
    wanted = ["pagehinkley" if b == "ph" else b for b in wanted]
    for b in wanted:
        if b not in BASELINES:
            raise ParameterError("baselines", f"unknown baseline {b!r}; choose among "
                                              f"{', '.join(BASELINES)}", tuple(BASELINES))
    base_dets = {b: make(b, seed=seed) for b in dict.fromkeys(wanted)}
    base_hits: dict[str, list[tuple[int, ...]]] = {b: [] for b in base_dets}

    head = read_log_head(source, 1)
    fmt = _resolve([str(c) for c in head.columns], label=label, proba_prefix=proba_prefix,
                   proba_columns=proba_columns, classes=classes, p_true=p_true,
                   correct=correct, pred=pred, time_column=time_column)
    labels = _LabelMap(fmt) if fmt.proba_columns else None
    windows = _Windows(window) if window is not None else None

    spans: list[ChunkSpan] = []
    logs: list[ChunkRecord] = []

    def emit(p: _Pending) -> None:
        index = len(spans)
        u, ok, lab = (np.concatenate(p.u), np.concatenate(p.ok), np.concatenate(p.lab))
        first, last = p.first_row, p.first_row + p.n - 1
        s_text = e_text = None
        if windows is not None and p.key is not None:
            s_text, e_text = windows.bounds(p.key)
        n_lab = int(lab.sum())
        if n_lab == 0:
            where = f" (time window {s_text} .. {e_text})" if s_text else ""
            raise ParameterError(
                "label", f"chunk {index}, rows {first}..{last}{where}, has no labelled row: "
                "the detector needs the true labels; choose larger chunks or a longer window, "
                "or leave out the unlabelled tail of the log")
        if not lab.all():
            u, ok = u[lab], ok[lab]
        spans.append(ChunkSpan(index, first, last, p.n, n_lab, s_text, e_text))
        t0 = _time.perf_counter()
        det.update(u, ok)
        scan = det.last_scan
        cuts = tuple((c.cut, c.p_value) for c in scan.cuts) if scan else ()
        win = scan.winner if scan is not None else None
        floored = win.test.floored_cells if win is not None and win.test is not None else 0
        alarm = det.drift_detected
        record: WindowRecord | None = None
        tests: tuple[CutTest, ...] = ()
        if record_windows == "all" or (record_windows == "alarms" and alarm):
            record, tests = window_record(det), cut_tests(scan) if scan is not None else ()
        t1 = _time.perf_counter()
        for name, bdet in base_dets.items():
            hits = feed_errors(bdet, (~ok).astype(np.int64))
            if hits:
                base_dets[name] = bdet.clone()
            base_hits[name].append(hits)
        logs.append(ChunkRecord(index, float(ok.mean()), float(u.mean()), float(np.median(u)),
                                float(det.p_value), cuts, alarm, det.cut_point, floored,
                                (t1 - t0) * 1e3, record, tests))

    pending = _Pending()
    offset = 0
    last_ts: Any = None
    try:
        for n, frame in _batches(source, fmt.columns, batch_rows):
            if n == 0:
                continue
            u, ok, lab = _score(frame, n, fmt, labels, offset, normalize, tolerance)
            if windows is not None:
                assert fmt.time_column is not None
                ts = _timestamps(frame[fmt.time_column], fmt.time_column, offset)
                ns = ts.to_numpy(dtype="datetime64[ns]")
                back = np.flatnonzero(ns[1:] < ns[:-1])
                if last_ts is not None and ns[0] < last_ts:
                    back = np.r_[-1, back]
                if back.size:
                    i = int(back[0]) + 1
                    prev = ns[i - 1] if i > 0 else last_ts
                    raise ParameterError(
                        "time_column",
                        f"row {offset + i}, column {fmt.time_column!r}: the timestamps are "
                        f"not sorted ({pd.Timestamp(ns[i])} comes after "
                        f"{pd.Timestamp(prev)}); sort the log by time first (e.g. "
                        "df.sort_values(...)); it is not sorted here because that needs the "
                        "whole file in memory")
                last_ts = ns[-1]
                keys = windows.ids(ts)
            else:
                assert chunk_size is not None
                keys = (offset + np.arange(n, dtype=np.int64)) // chunk_size
            # boundaries: where the key changes (and against the pending chunk's key)
            change = np.flatnonzero(keys[1:] != keys[:-1]) + 1
            starts = np.r_[0, change]
            ends = np.r_[change, n]
            for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
                key = int(keys[a])
                if pending.n and pending.key != key:
                    emit(pending)
                    pending = _Pending()
                if not pending.n:
                    pending.first_row, pending.key = offset + a, key
                pending.u.append(u[a:b])
                pending.ok.append(ok[a:b])
                pending.lab.append(lab[a:b])
                pending.n += b - a
            offset += n
    except (UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ParameterError("source", f"{_name_of(source)} could not be read near row "
                                       f"{offset}: {' '.join(str(exc).split())}") from None
    if pending.n:
        emit(pending)
    if not spans:
        raise ParameterError("source", f"{_name_of(source)} has no rows")
    if len(spans) < 2:
        warnings.warn(f"the log makes a single chunk ({offset} rows): PUDD needs two to test; "
                      "choose smaller chunks", stacklevel=2)
    return MonitorResult(
        _name_of(source) if not isinstance(source, pd.DataFrame) else "DataFrame",
        fmt, float(alpha), opts, tuple(spans), tuple(logs),
        {k: tuple(v) for k, v in base_hits.items()}, offset, _time.perf_counter() - start)

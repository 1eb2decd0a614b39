"""What the monitor's report says: the state in words, the periods, times, classes that moved.

Computed from the result and the log: the current state in words, the reference and recent
periods, each chunk's times, and which classes' PU-index moved.

The state is read from PUDD's last alarm: its winning cut says where the change began (the
first chunk of the recent window); the chunks before it, back to the previous alarm or the
log's start, are the reference. Without an alarm the log is *healthy*, and its first half of
tested chunks is the reference, the second half the recent period, so that the per-class view
still says whether anything moved. Every number and verdict of the report's prose comes from
here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from pudd_core._validation import ParameterError
from pudd_core.chi2 import p_text
from pudd_core.monitoring._log import BATCH_ROWS, batches, check_source
from pudd_core.monitoring._score import SUM_TOLERANCE, LabelMap, Scorer

if TYPE_CHECKING:
    import pandas as pd

    from pudd_core.monitoring._result import MonitorResult

__all__ = ["PU_BINS", "ClassChange", "ReportView", "report_view"]

#: Equal-width bins of the PU-index on [0, 1] in each class's test (reference against recent).
PU_BINS = 10

State = Literal["healthy", "degraded", "changed"]


@dataclass(frozen=True)
class ClassChange:
    """One true class in the reference and the recent period (labelled rows only).

    ``share`` is the class's part of the period's labelled rows, ``pu`` its mean PU-index,
    ``error`` its error rate; ``contribution`` is ``recent_share * recent_pu -
    reference_share * reference_pu``, so the classes' contributions add up to the change of
    the mean PU-index between the periods. ``p_value`` is Pearson's chi-square test of
    homogeneity of the class's PU-index histogram (:data:`PU_BINS` bins) in the two periods
    (NaN where the class is missing from one period); ``moved`` is ``p_value < alpha``, the
    report's α divided by the number of classes tested (Bonferroni).

    Examples
    --------
    >>> c = ClassChange("cat", 100, 50, 0.5, 0.25, 0.1, 0.4, 0.05, 0.3, 0.25 * 0.4 - 0.5 * 0.1,
    ...                 1e-6, True)
    >>> round(c.contribution, 3), c.moved
    (0.05, True)
    """

    label: str
    reference_rows: int
    recent_rows: int
    reference_share: float
    recent_share: float
    reference_pu: float
    recent_pu: float
    reference_error: float
    recent_error: float
    contribution: float
    p_value: float
    moved: bool


@dataclass(frozen=True)
class ReportView:
    """The report's words and numbers, from :func:`report_view`.

    Examples
    --------
    >>> import pandas as pd
    >>> from pudd_core.monitoring import monitor
    >>> log = pd.DataFrame({"y": [0, 1] * 1500, "p1": [0.2, 0.7] * 1500})
    >>> log["p0"] = 1 - log["p1"]
    >>> view = report_view(monitor(log, label="y", proba_columns=["p0", "p1"],
    ...                            chunk_size=500))  # no log given: no classes
    >>> view.state, view.reference, view.recent, view.class_note
    ('healthy', (0, 2), (3, 5), 'the log was not given to the report, so no per-class view')
    """

    state: State
    #: The state in one sentence, every number in it from the fields here.
    sentence: str
    #: First and last tested chunk (0-based, both included) of each period; no reference
    #: (None) when the change began at the log's first chunk.
    reference: tuple[int, int] | None
    recent: tuple[int, int]
    #: Where the change began (the first chunk of the last alarm's recent window), if any.
    since: int | None
    reference_error: float
    recent_error: float
    #: One-sided Fisher exact test that the recent error rate exceeds the reference's.
    error_p_value: float
    #: Per tested chunk, its start and end as text: the time window, or (rows) its first and
    #: last row's time; ``None`` without times.
    times: tuple[tuple[str, str], ...] | None
    #: ``"window"`` (chunks of time), ``"rows"`` (row chunks, times of their rows) or None.
    time_kind: Literal["window", "rows"] | None
    classes: tuple[ClassChange, ...] = ()
    #: Why there is no per-class view (no log given, no label column), else None.
    class_note: str | None = None
    #: The per-class tests' level: the monitor's α over the number of classes tested.
    class_alpha: float = math.nan
    #: Chi-square test that the classes' shares of the labelled rows differ between periods.
    share_p_value: float = math.nan


def _errors(result: MonitorResult, first: int, last: int) -> tuple[int, int]:
    """Wrong predictions and labelled rows of the tested chunks ``first .. last``."""
    wrong = n = 0
    for i in range(first, last + 1):
        k = result.spans[i].n_labelled
        wrong += round((1.0 - result.records[i].accuracy) * k)
        n += k
    return wrong, n


def _periods(result: MonitorResult) -> tuple[State | None, tuple[int, int] | None,
                                             tuple[int, int], int | None]:
    """(state if healthy, reference, recent, since) from PUDD's alarms.

    The reference runs from the chunk after the previous alarm to the one before the change;
    where no chunk lies between them (alarms in a row, as a chunk whose accuracy is below 1 %
    raises), from the log's first chunk; none where the change began at chunk 0.
    """
    n = result.n_chunks
    alarms = result.alarms
    if not alarms:
        half = max(1, n // 2)
        return "healthy", (0, half - 1), (min(half, n - 1), n - 1), None
    last = alarms[-1]
    cut = result.records[last].cut_point or 1
    previous = alarms[-2] + 1 if len(alarms) > 1 else 0
    since = max(last - cut + 1, min(previous, last))
    if since == 0:
        return None, None, (0, n - 1), 0
    return None, (previous if previous < since else 0, since - 1), (since, n - 1), since


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:.1f}%"


def _chunks(a: int, b: int) -> str:
    return f"chunk {a}" if a == b else f"chunks {a}–{b}"


def _state_sentence(result: MonitorResult, state: State, ref: tuple[int, int] | None,
                    recent: tuple[int, int], since: int | None, errs: tuple[float, float],
                    error_p: float, times: tuple[tuple[str, str], ...] | None) -> str:
    ref_err, rec_err = errs
    last = result.spans[-1].last_row
    if state == "healthy":
        wrong, n = _errors(result, 0, result.n_chunks - 1)
        chunks = ("the 1 tested chunk" if result.n_chunks == 1 else
                  f"the {result.n_chunks} tested chunks")
        text = (f"Healthy: PUDD raised no alarm in {chunks} (rows "
                f"0–{last:,}); the error rate was {_pct(wrong / n if n else math.nan)} over "
                "them.")
    else:
        assert since is not None
        a = result.alarms[-1]
        span = result.spans[since]
        when = f" (from {times[since][0]})" if times is not None else ""
        head = "Degraded" if state == "degraded" else "Changed"
        record = result.records[a]
        why = (record.no_test or "no test") if math.isnan(record.p_value) else p_text(
            record.p_value)
        text = (f"{head} since chunk {since}{when}, row {span.first_row:,}: PUDD alarmed at "
                f"chunk {a} ({why}), its recent window "
                f"{_chunks(since, a)}. The error rate ")
        if ref is None:
            text += (f"since is {_pct(rec_err)} ({_chunks(*recent)}); no chunk before the "
                     "change to compare it with.")
        elif state == "degraded":
            text += (f"rose from {_pct(ref_err)} in the reference ({_chunks(*ref)}) to "
                     f"{_pct(rec_err)} since ({_chunks(*recent)}; one-sided Fisher "
                     f"{p_text(error_p)}).")
        else:
            text += (f"went from {_pct(ref_err)} in the reference ({_chunks(*ref)}) to "
                     f"{_pct(rec_err)} since ({_chunks(*recent)}): not a significant rise "
                     f"(one-sided Fisher {p_text(error_p)}, α = {result.alpha:g}); the model's "
                     "confidence moved, its errors did not rise significantly.")
        if len(result.alarms) > 1:
            text += (f" {len(result.alarms)} alarms in all (chunks "
                     f"{', '.join(map(str, result.alarms))}); the state is read from the last.")
    if result.pending:
        text += (f" {result.n_pending_rows:,} rows at the end wait for their labels (not "
                 "tested).")
    return text


def _window_times(result: MonitorResult) -> tuple[tuple[str, str], ...] | None:
    if not result.spans or result.spans[0].start is None:
        return None
    return tuple((s.start or "", s.end or "") for s in result.spans)


class _Classes:
    """Per class and period (0 reference, 1 recent): PU-index histogram, sum, errors."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.hist = np.zeros((0, 2, PU_BINS), dtype=np.int64)
        self.pu = np.zeros((0, 2), dtype=np.float64)
        self.wrong = np.zeros((0, 2), dtype=np.int64)

    def codes(self, names: Sequence[str]) -> NDArray[np.intp]:
        """Our code of each name, adding new ones."""
        for name in names:
            if name not in self.index:
                self.index[name] = len(self.names)
                self.names.append(name)
        grow = len(self.names) - self.hist.shape[0]
        if grow > 0:
            self.hist = np.concatenate([self.hist, np.zeros((grow, 2, PU_BINS), np.int64)])
            self.pu = np.concatenate([self.pu, np.zeros((grow, 2))])
            self.wrong = np.concatenate([self.wrong, np.zeros((grow, 2), np.int64)])
        return np.array([self.index[n] for n in names], dtype=np.intp)

    def add(self, code: NDArray[np.intp], period: NDArray[np.intp], u: NDArray[np.float64],
            ok: NDArray[np.bool_]) -> None:
        k = len(self.names)
        b = np.minimum((u * PU_BINS).astype(np.intp), PU_BINS - 1)  # [0.9, 1.0] closed
        cell = code * 2 + period
        self.hist += np.bincount(cell * PU_BINS + b, minlength=k * 2 * PU_BINS).reshape(
            k, 2, PU_BINS)
        self.pu += np.bincount(cell, weights=u, minlength=k * 2).reshape(k, 2)
        self.wrong += np.bincount(cell, weights=~ok, minlength=k * 2).reshape(k, 2).astype(
            np.int64)

    def changes(self, alpha: float) -> tuple[tuple[ClassChange, ...], float, float]:
        """Each class's change, the per-class level, and the test of the classes' shares."""
        from scipy.stats import chi2_contingency

        rows = self.hist.sum(axis=2)  # (classes, 2)
        totals = rows.sum(axis=0)
        tests = []
        for k in range(len(self.names)):
            table = self.hist[k][:, self.hist[k].sum(axis=0) > 0]
            if table.shape[1] < 2 or (table.sum(axis=1) == 0).any():
                tests.append(math.nan)
            else:
                tests.append(float(chi2_contingency(table, correction=False).pvalue))
        n_tested = sum(not math.isnan(p) for p in tests)
        level = alpha / n_tested if n_tested else math.nan
        out = []
        with np.errstate(invalid="ignore", divide="ignore"):
            share = rows / totals
            mean = self.pu / rows
            error = self.wrong / rows
        for k, name in enumerate(self.names):
            contribution = (np.nan_to_num(share[k, 1] * mean[k, 1])
                            - np.nan_to_num(share[k, 0] * mean[k, 0]))
            out.append(ClassChange(
                name, int(rows[k, 0]), int(rows[k, 1]), float(share[k, 0]),
                float(share[k, 1]), float(mean[k, 0]), float(mean[k, 1]),
                float(error[k, 0]), float(error[k, 1]), float(contribution), tests[k],
                bool(tests[k] < level)))
        present = rows[:, (rows > 0).any(axis=0)]
        present = present[(present > 0).any(axis=1)]
        share_p = (float(chi2_contingency(present.T, correction=False).pvalue)
                   if present.shape[0] >= 2 and present.shape[1] == 2 else math.nan)
        return tuple(sorted(out, key=lambda c: c.label)), level, share_p


def _label_names(labels: pd.Series, label_map: LabelMap | None, classes: Sequence[str],
                 rows: NDArray[np.int64]) -> tuple[NDArray[np.intp], list[str]]:
    """Each labelled row's code and the codes' names.

    The names are the probability columns' classes where the log has them, else the labels'
    text.
    """
    import pandas as pd

    if label_map is not None:
        idx = label_map(labels, rows)
        return idx, list(classes)
    if pd.api.types.is_numeric_dtype(labels) and not pd.api.types.is_bool_dtype(labels):
        codes, uniques = pd.factorize(labels, sort=False)
        names = [f"{v:g}" if isinstance(v, float) else str(v) for v in uniques.tolist()]
        return np.asarray(codes, dtype=np.intp), names
    codes, uniques = pd.factorize(labels.astype(str).str.strip(), sort=False)
    return np.asarray(codes, dtype=np.intp), [str(v) for v in uniques.tolist()]


def _row_times(values: pd.Series, name: str, offset: int, time_format: str | None,
               time_unit: str | None) -> NDArray[Any]:
    """The time column as int64 ns (or plain numbers for ``time_unit="number"``)."""
    from pudd_core.monitoring._windows import Windows

    w = Windows("1" if time_unit == "number" else "1D", time_format=time_format,
                time_unit=time_unit)
    return w.values(values, name, offset)


def _time_text(value: Any, numeric: bool) -> str:
    import pandas as pd

    return f"{value:g}" if numeric else pd.Timestamp(int(value)).isoformat()


def report_view(result: MonitorResult, source: Any = None, *, time_column: str | None = None,
                time_format: str | None = None, time_unit: str | None = None,
                normalize: bool = False, tolerance: float = SUM_TOLERANCE,
                batch_rows: int = BATCH_ROWS, labels: Any = None,
                id_column: str | None = None) -> ReportView:
    """The state, the periods, the chunks' times and the per-class view of ``result``.

    ``source`` is the log ``result`` was computed from (read once more, in batches): without
    it the view has the state and the periods but no classes and no row times. For row
    chunks, ``time_column`` (read as the monitor reads times: ``time_format``,
    ``time_unit``) gives each chunk its first and last row's time; chunks of time carry their
    windows already. ``normalize`` and ``tolerance`` as given to the monitor, and ``labels``
    with ``id_column`` where its labels came from a second file (joined again by id).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pudd_core.monitoring import monitor
    >>> rng = np.random.default_rng(0)
    >>> low = np.where(np.arange(6000) < 3000, 0.7, 0.3)  # the model unsure from row 3000
    >>> p, y = rng.uniform(low, 1.0), rng.integers(0, 2, 6000)
    >>> log = pd.DataFrame({"y": y, "p0": np.where(y == 0, p, 1 - p),
    ...                     "p1": np.where(y == 1, p, 1 - p)})
    >>> res = monitor(log, label="y", proba_columns=["p0", "p1"], chunk_size=500)
    >>> view = report_view(res, log)
    >>> view.state, view.since, view.reference, view.recent
    ('degraded', 6, (0, 5), (6, 11))
    >>> view.sentence[:44]
    'Degraded since chunk 6, row 3,000: PUDD alar'
    >>> [(c.label, c.moved) for c in view.classes]
    [('0', True), ('1', True)]
    """
    if result.n_chunks == 0:
        raise ParameterError("result", "the result has no tested chunk: nothing to report")
    state, ref, recent, since = _periods(result)
    ref_wrong, ref_n = _errors(result, *ref) if ref is not None else (0, 0)
    rec_wrong, rec_n = _errors(result, *recent)
    ref_err = ref_wrong / ref_n if ref_n else math.nan
    rec_err = rec_wrong / rec_n if rec_n else math.nan
    error_p = math.nan
    if ref_n and rec_n and ref != recent:
        from scipy.stats import fisher_exact

        error_p = float(fisher_exact([[rec_wrong, rec_n - rec_wrong],
                                      [ref_wrong, ref_n - ref_wrong]],
                                     alternative="greater").pvalue)
    if state is None:
        state = "degraded" if error_p < result.alpha else "changed"
    times = _window_times(result)
    kind: Literal["window", "rows"] | None = "window" if times is not None else None
    if time_column is not None and times is not None:
        raise ParameterError("time_column", "the chunks are time windows already; "
                                            "time_column is for chunks of rows")
    if time_column is not None and source is None:
        raise ParameterError("time_column", "time_column needs the log (source) to read "
                                            "the times from")
    classes: tuple[ClassChange, ...] = ()
    note: str | None = None
    level = share_p = math.nan
    if source is None:
        note = "the log was not given to the report, so no per-class view"
    elif result.format.label is None:
        note = ("the log has no label column (the p_true/correct form): no class to group "
                "rows by")
    if source is not None:
        check_source(source)
        per, row_times = _read(result, source, ref, recent, note is None, time_column,
                               time_format, time_unit, normalize, tolerance, batch_rows,
                               labels, id_column)
        if per is not None:
            classes, level, share_p = per.changes(result.alpha)
        if row_times is not None:
            times, kind = row_times, "rows"
    sentence = _state_sentence(result, state, ref, recent, since, (ref_err, rec_err), error_p,
                               times)
    return ReportView(state, sentence, ref, recent, since, ref_err, rec_err, error_p, times,
                      kind, classes, note, level, share_p)


def _read(result: MonitorResult, source: Any, ref: tuple[int, int] | None,
          recent: tuple[int, int],
          with_classes: bool, time_column: str | None, time_format: str | None,
          time_unit: str | None, normalize: bool, tolerance: float, batch_rows: int,
          labels: Any = None, id_column: str | None = None,
          ) -> tuple[_Classes | None, tuple[tuple[str, str], ...] | None]:
    """One pass over the log: the classes' counts per period and the row chunks' times."""
    from pudd_core.monitoring._log import log_columns

    fmt = result.format
    columns = list(fmt.columns)
    if time_column is not None and time_column not in columns:
        names = log_columns(source)
        if time_column not in names:
            shown = ", ".join(map(repr, names[:8])) + (", ..." if len(names) > 8 else "")
            raise ParameterError("time_column", f"the log has no column {time_column!r} "
                                                f"(time_column); its columns are {shown}")
        columns.append(time_column)
    scorer = Scorer(fmt, normalize=normalize, tolerance=tolerance)
    label_map = LabelMap(fmt) if len(fmt.classes) > 1 and fmt.label is not None else None
    firsts = np.array([s.first_row for s in result.spans], dtype=np.int64)
    lasts = np.array([s.last_row for s in result.spans], dtype=np.int64)
    bounds = ((firsts[ref[0]], lasts[ref[1]]) if ref is not None else (1, 0)) + (
        firsts[recent[0]], lasts[recent[1]])
    per = _Classes() if with_classes else None
    first_t: list[Any] = [None] * result.n_chunks
    last_t: list[Any] = [None] * result.n_chunks
    numeric = time_unit == "number"
    offset = 0
    try:
        if labels is None:
            parts = batches(source, columns, batch_rows, (fmt.label, fmt.pred))
        else:  # labels in a second file (monitor --labels): joined again by id
            from pudd_core.monitoring._labels import joined_batches

            assert id_column is not None
            parts = joined_batches(source, labels, id_column, replace(
                fmt, time_column=time_column or fmt.time_column), batch_rows)
        for n, frame in parts:
            rows = offset + np.arange(n, dtype=np.int64)
            if time_column is not None:
                t = _row_times(frame[time_column], time_column, offset, time_format,
                               time_unit)
                chunk = np.searchsorted(firsts, rows, side="right") - 1
                inside = (chunk >= 0) & (rows <= lasts[np.maximum(chunk, 0)])
                for c in np.unique(chunk[inside]).tolist():
                    where = np.flatnonzero(chunk == c)
                    if first_t[c] is None:
                        first_t[c] = t[where[0]]
                    last_t[c] = t[where[-1]]
            if per is not None:
                period = np.full(n, -1, dtype=np.intp)
                period[(rows >= bounds[0]) & (rows <= bounds[1])] = 0
                period[(rows >= bounds[2]) & (rows <= bounds[3])] = 1
                keep = np.flatnonzero(period >= 0)
                if keep.size:
                    part = {c: frame[c].iloc[keep] for c in fmt.columns}
                    scored = scorer(part, keep.size, offset + int(keep[0]))
                    lab = np.flatnonzero(scored.labelled)
                    assert fmt.label is not None
                    code, names = _label_names(part[fmt.label].iloc[lab], label_map,
                                               fmt.classes, rows[keep][lab])
                    ours = per.codes(names)
                    per.add(ours[code], period[keep][lab], scored.u[lab], scored.ok[lab])
            offset += n
    except ValueError as exc:  # a usecols or reading error from pandas
        if isinstance(exc, ParameterError):
            raise
        raise ParameterError("source", f"the log could not be read again for the report: "
                                       f"{exc}") from None
    times = None
    if time_column is not None:
        times = tuple((_time_text(a, numeric), _time_text(b, numeric))
                      for a, b in zip(first_t, last_t, strict=True))
    return per, times

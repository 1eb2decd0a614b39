"""Labels that arrive in a second file, joined to the predictions by an id column.

A serving stack logs each prediction with an id (a request id, a UUID); the label pipeline
writes the true label later, to another file or table, keyed by that id. :class:`LabelJoin`
puts the two together for a :class:`~pudd_core.monitoring.Monitor`: the predictions are fed
without labels, the labels as they come, in any order; each prediction row gets the label of
its id, if one has come.

What it does with what production pipelines write:

* **A prediction whose id has no label (yet)** is unlabelled: it belongs to its chunk, the
  detector does not see it, and a chunk whose last row has none waits, as in a log with
  empty label cells (the monitor's pending tail). When its label comes, the monitor is
  rewound (:meth:`~pudd_core.monitoring.Monitor.rewind`) and the rows since the first
  waiting chunk are fed again, joined anew: the result is the batch monitor's on the
  predictions and labels as they stand, chunk for chunk, as long as each label comes before
  its chunk is tested (labels in the order of their rows, with any lag). A label that comes
  after its chunk was tested (its chunk's last row, or a later chunk, had one before) is not
  used: it is counted with the labels of ids not in the log.
* **A label whose id is not in the log** is counted and reported (with the first such ids):
  a label may come before its prediction is logged, so it is kept until the end.
* **The same id twice in the labels** with the same label (a pipeline that delivers at least
  once) is read once and counted; with two different labels it is refused, naming the id and
  both labels: which one is true cannot be told (keep one, e.g. ``drop_duplicates(id,
  keep="last")`` for the latest correction, and run again).
* **The same id on two predictions** is refused as soon as a label would be joined to both
  (naming the id and both rows): a label counted twice, or given to the wrong prediction
  (ids that restart at 0 after a restart), would bias the test silently. Two predictions
  with one id and no label change nothing and are not looked for.
* **Ids are compared as text, as written**: ``17`` (a number in JSON or Parquet) and
  ``"17"`` (text, or a CSV cell) are one id, a whole float ``17.0`` is ``17``, but ``"017"``
  is not ``17`` (a CSV's ids are read as text). A missing id, a fraction or a boolean is
  refused, naming the row.

The labels file holds the id column and the label column (``--label``; its other columns are
not read); the predictions log holds the id column and every other column of the format, but
not the label column (a log with both would have two sources of truth: it is refused).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from pudd_core._validation import ParameterError

if TYPE_CHECKING:
    import pandas as pd

    from pudd_core.monitoring._incremental import Monitor
    from pudd_core.monitoring._log import LogFormat
    from pudd_core.monitoring._result import ChunkRecord, ChunkSpan, MonitorResult

__all__ = ["LabelJoin", "LabelSink", "id_keys", "joined", "read_labels"]

#: Ids shown in a note or an error at most.
SHOWN = 3


def id_keys(values: Any, column: str, first_row: int, where: str) -> NDArray[np.object_]:
    """Each id as text, the form compared: whole numbers without a decimal point, text stripped.

    ``first_row`` numbers the rows in errors; ``where`` names the file. A missing or empty id,
    a fraction or a boolean is refused, naming the first such row.

    Examples
    --------
    >>> import pandas as pd
    >>> id_keys(pd.Series([17, 18]), "id", 0, "log").tolist()
    ['17', '18']
    >>> id_keys(pd.Series([" 17", 18.0, "a-9"], dtype=object), "id", 0, "log").tolist()
    ['17', '18', 'a-9']
    >>> id_keys(pd.Series(["1", None]), "id", 5, "labels.csv")
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: labels.csv, row 6: the id column 'id' is empty; \
every row needs the id of its prediction
    """
    import pandas as pd

    s = values if isinstance(values, pd.Series) else pd.Series(values)
    dtype = s.dtype

    def refuse(i: int, what: str) -> ParameterError:
        return ParameterError("id_column", f"{where}, row {first_row + i}: the id column "
                                           f"{column!r} {what}")

    if pd.api.types.is_bool_dtype(dtype):
        raise refuse(0, f"holds booleans ({s.iloc[0]!r}); ids are whole numbers or text")
    if pd.api.types.is_integer_dtype(dtype):
        if s.isna().any():  # a nullable integer column
            raise refuse(int(np.flatnonzero(s.isna().to_numpy())[0]),
                         "is empty; every row needs the id of its prediction")
        return np.asarray(s.astype(np.int64).astype(str).to_numpy(dtype=object))
    if pd.api.types.is_float_dtype(dtype):
        x = s.to_numpy(dtype=np.float64, na_value=np.nan)
        return _whole(x, refuse)
    kind = pd.api.types.infer_dtype(s, skipna=False)
    if kind == "string":  # text only (a CSV's ids): stripped at once
        stripped = s.astype(object).str.strip()
        empty = (stripped == "").to_numpy()
        if empty.any():
            raise refuse(int(np.flatnonzero(empty)[0]), "is empty; every row needs the id of "
                                                        "its prediction")
        return np.asarray(stripped.to_numpy(dtype=object))
    if kind == "integer":  # Python ints (JSON's numbers)
        return np.asarray(s.astype(np.int64).astype(str).to_numpy(dtype=object))
    text = s.astype(object).to_numpy()
    out = np.empty(len(text), dtype=object)
    for i, v in enumerate(text):  # text ids (a CSV's, JSON's strings): one Python step a row
        if isinstance(v, str):
            t = v.strip()
            if not t:
                raise refuse(i, "is empty; every row needs the id of its prediction")
            out[i] = t
        elif isinstance(v, bool | np.bool_):
            raise refuse(i, f"holds a boolean ({v!r}); ids are whole numbers or text")
        elif isinstance(v, int | np.integer):
            out[i] = str(int(v))
        elif isinstance(v, float | np.floating):
            out[i] = _whole(np.array([v], dtype=np.float64),
                            lambda _, what, i=i: refuse(i, what))[0]
        elif v is None or v is pd.NA or v is pd.NaT:
            raise refuse(i, "is empty; every row needs the id of its prediction")
        else:
            raise refuse(i, f"holds {type(v).__name__} {v!r:.40}; ids are whole numbers or "
                            "text")
    return out


def _whole(x: NDArray[np.float64], refuse: Any) -> NDArray[np.object_]:
    bad = np.isnan(x)
    if bad.any():
        raise refuse(int(np.flatnonzero(bad)[0]), "is empty; every row needs the id of its "
                                                  "prediction")
    frac = (x != np.round(x)) | ~np.isfinite(x) | (np.abs(x) >= 2.0 ** 53)
    if frac.any():
        i = int(np.flatnonzero(frac)[0])
        raise refuse(i, f"holds {float(x[i])!r}, not a whole number (an id read as a number "
                        "must be whole; write ids as text if they are not)")
    return np.asarray(x.astype(np.int64).astype(str), dtype=object)


def _value_text(values: pd.Series) -> list[str]:
    """Label values as text, to compare two labels of one id (``1``, ``1.0``, ``"1"`` agree)."""
    out = []
    for v in values.astype(object).tolist():
        if isinstance(v, float | np.floating) and float(v).is_integer():
            v = int(v)
        out.append(str(v).strip())
    return out


def _pack(values: pd.Series) -> tuple[str, Any]:
    """A Series as data a state file holds: a NumPy array, or a list and its dtype's name."""
    kind = values.dtype.kind if isinstance(values.dtype, np.dtype) else ""
    if kind in "biufcmM" and kind:
        return ("array", values.to_numpy())
    cells = [v.tolist() if isinstance(v, np.ndarray) else v for v in values.tolist()]
    return (str(values.dtype) if str(values.dtype) == "category" else "object", cells)


def _unpack(packed: tuple[str, Any]) -> pd.Series:
    import pandas as pd

    kind, data = packed
    if kind == "array":
        return pd.Series(np.asarray(data))
    if kind == "category":
        return pd.Series(data, dtype="category")
    out = np.empty(len(data), dtype=object)
    out[:] = data
    return pd.Series(out, dtype=object)


@dataclass
class _Rows:
    """Prediction rows fed, kept while their chunk may be fed again (its labels may come)."""

    first_row: int
    columns: dict[str, Any]  # column -> Series (the columns read from the predictions)
    keys: NDArray[np.object_]
    n: int


class LabelJoin:
    """A :class:`~pudd_core.monitoring.Monitor` fed predictions and, from elsewhere, labels.

    ``monitor``'s format names the label column (``label``): it is read from the labels, not
    from the predictions; ``id_column`` is in both. Feed the predictions' rows with
    :meth:`feed` and the labels' rows (id and label) with :meth:`add_labels`, in any order and
    any batches; :meth:`finish` and :meth:`result` as a Monitor's. A label for a prediction
    fed earlier whose chunk is not tested yet rewinds the monitor and feeds its rows again
    (they are kept until their chunk is tested); :meth:`close_labels` says no label will come
    any more (the batch monitor reads the labels first), so no row is kept. The module
    docstring says what happens to missing, unknown and repeated ids.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from pudd_core.monitoring import LogFormat, Monitor
    >>> rng = np.random.default_rng(0)
    >>> p = np.r_[rng.uniform(0.7, 1.0, 3000), rng.uniform(0.3, 1.0, 3000)]
    >>> preds = pd.DataFrame({"id": np.arange(6000), "proba_0": 1 - p, "proba_1": p})
    >>> labels = pd.DataFrame({"id": np.arange(6000)[::-1], "label": 1})  # any order
    >>> j = LabelJoin(Monitor(LogFormat(label="label", proba_prefix="proba_"),
    ...                       chunk_size=500), "id")
    >>> _ = j.feed(preds)  # no label yet: every chunk waits
    >>> _ = j.add_labels(labels.iloc[3000:])  # the labels of rows 0..2999 come
    >>> [s.index for s in j.monitor.chunks.spans]  # rows 0..2999: chunks 0..5, tested
    [0, 1, 2, 3, 4, 5]
    >>> j.monitor.untested_row  # the rows kept for their labels: 3000 on
    3000
    >>> _ = j.add_labels(labels.iloc[:3000])
    >>> _ = j.finish()
    >>> j.result().alarms
    (6,)
    """

    def __init__(self, monitor: Monitor, id_column: str, *, predictions: str = "the log",
                 labels: str = "the labels") -> None:
        import pandas as pd

        from pudd_core.monitoring._incremental import Monitor

        if not isinstance(monitor, Monitor):
            raise ParameterError("monitor", f"LabelJoin joins labels to a Monitor, got "
                                            f"{type(monitor).__name__}")
        if not isinstance(id_column, str) or not id_column:
            raise ParameterError("id_column", "id_column (--id) must name the column that "
                                              "holds each prediction's id in both files, got "
                                              f"{id_column!r}")
        label = monitor.given.label
        if label is None:
            raise ParameterError("label", "labels from a second file need the label column's "
                                          "name in it: give label (--label)")
        if id_column == label:
            raise ParameterError("id_column", f"the id column and the label column are both "
                                              f"{label!r}: name the id column (--id)")
        self.monitor = monitor
        self.id_column, self.label = id_column, label
        self.predictions, self.labels = predictions, labels
        self._keys = pd.Index([], dtype=object)  # the labels' ids, each once
        self._values = pd.Series([], dtype=object)  # their labels, in the same order
        self._first = np.empty(0, dtype=np.int64)  # the prediction row each went to, or -1
        self._rows: list[_Rows] = []
        self.keeping = True  # rows are kept for labels that may come (False: all are here)
        self.n_label_rows = 0  # rows of the labels read with a label
        self.n_repeats = 0  # of them, a repeat of an id's label (read once)
        self.n_empty = 0  # rows of the labels with an empty label (no label: skipped)

    # --- the monitor's surface --------------------------------------------------------------
    @property
    def format(self) -> LogFormat | None:
        """The monitor's format as read (the label column included)."""
        return self.monitor.format

    @property
    def next_row(self) -> int:
        """The next prediction row's number."""
        return self.monitor.next_row

    @property
    def read_columns(self) -> list[str]:
        """The columns read from the predictions: the format's but the label, and the id."""
        fmt = self.monitor.format
        assert fmt is not None
        return [*(c for c in fmt.columns if c != self.label), self.id_column]

    @property
    def text_columns(self) -> tuple[str, ...]:
        """Columns a CSV's reader keeps as text: the id (``"017"`` is not ``17``)."""
        return (self.id_column,)

    def start(self, names: Sequence[str]) -> LogFormat:
        """Check the predictions' columns and resolve the format (the label column joined)."""
        names = [str(c) for c in names]
        self.check_columns(names)
        return self.monitor.start([*names, self.label])

    def check_columns(self, names: Sequence[str]) -> None:
        """Refuse predictions without the id column, or with a label column of their own."""
        names = [str(c) for c in names]
        if self.id_column not in names:
            raise ParameterError("id_column", f"{self.predictions} has no column "
                                              f"{self.id_column!r} (given as the id, --id); "
                                              f"its columns: {', '.join(names)}")
        if self.label in names:
            raise ParameterError("label", f"{self.predictions} has a label column "
                                          f"{self.label!r} of its own, and labels come from "
                                          f"{self.labels} too: two sources of truth. Drop "
                                          "--labels to read the log's labels, or drop the "
                                          "column from the log")
        if self.monitor.format is not None:
            self.monitor.given.resolve([*names, self.label])

    def drain(self) -> list[tuple[ChunkSpan, ChunkRecord, dict[str, tuple[int, ...]]]]:
        """The monitor's :meth:`~pudd_core.monitoring.Monitor.drain`."""
        return self.monitor.drain()

    def finish(self) -> tuple[ChunkRecord, ...]:
        """The predictions have ended (labels may still come: :meth:`add_labels` after it)."""
        records = self.monitor.finish()
        self._forget()
        return records

    def result(self, source: str = "stream", elapsed_s: float = 0.0) -> MonitorResult:
        """The monitor's result, with what the join found in its notes."""
        import dataclasses

        res = self.monitor.result(source, elapsed_s)
        return dataclasses.replace(res, notes=(*res.notes, *self.notes(res)))

    # --- predictions ------------------------------------------------------------------------
    def feed(self, rows: Any, n: int | None = None) -> tuple[ChunkRecord, ...]:
        """The predictions' next rows (a DataFrame, or column -> Series), without labels.

        Returns the records of the chunks tested on the way.
        """
        import pandas as pd

        from pudd_core.monitoring._incremental import column_names

        names = column_names(rows)
        if self.monitor.format is None:
            self.start(names)
        else:
            self.check_columns(names)
        wanted = self.read_columns
        cols = {}
        for c in wanted:
            v = rows[c]
            cols[c] = v.reset_index(drop=True) if isinstance(v, pd.Series) else pd.Series(v)
        count = len(cols[self.id_column]) if n is None else n
        if any(len(v) != count for v in cols.values()):
            shown = ", ".join(f"{c!r}: {len(v)}" for c, v in cols.items())
            raise ParameterError("rows", f"the columns fed have different lengths ({shown}): "
                                         "every column needs one value per row")
        if count == 0:
            return ()
        first = self.monitor.next_row
        keys = id_keys(cols[self.id_column], self.id_column, first, self.predictions)
        part = _Rows(first, cols, keys, count)
        records = self._feed(part)
        if self.keeping:
            self._rows.append(part)
        self._forget()
        return records

    def _feed(self, part: _Rows) -> tuple[ChunkRecord, ...]:
        """Feed ``part`` joined with the labels known now."""
        pos = self._positions(part.keys)
        self._claim(pos, part)
        return self.monitor.feed(self._with_labels(part.columns, pos), part.n)

    def _positions(self, keys: NDArray[np.object_]) -> NDArray[np.intp]:
        """Where each id's label is in the store; -1 for none."""
        return self._keys.get_indexer(keys) if len(self._keys) else \
            np.full(len(keys), -1, dtype=np.intp)

    def _with_labels(self, columns: Mapping[str, Any], pos: NDArray[np.intp]) -> dict[str, Any]:
        cols = dict(columns)
        # -1: missing (NaN; integers become floats), as a left merge gives
        cols[self.label] = self._values.reindex(pos).reset_index(drop=True)
        return cols

    def joined(self, columns: Mapping[str, Any], n: int, first_row: int) -> dict[str, Any]:
        """Prediction rows (column -> Series, the id among them) with their labels, as known.

        Nothing is fed to the monitor (the report and the calibration read the log this way);
        the labels joined are marked as such (a label for two rows is refused).
        """
        keys = id_keys(columns[self.id_column], self.id_column, first_row, self.predictions)
        pos = self._positions(keys)
        self._claim(pos, _Rows(first_row, {}, keys, n))
        return self._with_labels(columns, pos)

    def _claim(self, pos: NDArray[np.intp], part: _Rows) -> None:
        """Give each label to its prediction row; refuse a label that two rows would share."""
        hit = np.flatnonzero(pos >= 0)
        if not hit.size:
            return
        rows = part.first_row + hit
        where = pos[hit]
        order = np.argsort(where, kind="stable")
        w, r = where[order], rows[order]
        twice = np.flatnonzero(w[1:] == w[:-1])
        if twice.size:
            i = int(twice[0])
            self._twice(int(w[i]), int(r[i]), int(r[i + 1]))
        before = self._first[where]
        clash = np.flatnonzero((before >= 0) & (before != rows))
        if clash.size:
            i = int(clash[0])
            self._twice(int(where[i]), int(before[i]), int(rows[i]))
        self._first[where] = rows

    def _twice(self, k: int, row_a: int, row_b: int) -> None:
        a, b = sorted((row_a, row_b))
        raise ParameterError("id_column", f"{self.predictions}: rows {a} and {b} have the same "
                                          f"id {self._keys[k]!r} ({self.id_column!r}), and "
                                          f"{self.labels} has a label for it: which prediction "
                                          "it belongs to cannot be told. Give each prediction "
                                          "its own id (deduplicate the log, e.g. "
                                          f"drop_duplicates({self.id_column!r}), if a row was "
                                          "logged twice)")

    def _forget(self) -> None:
        """Drop the kept rows before the first untested chunk: they are final."""
        if not self.keeping:
            self._rows = []
            return
        resume = self.monitor.untested_row
        while self._rows and self._rows[0].first_row + self._rows[0].n <= resume:
            self._rows.pop(0)
        if self._rows and self._rows[0].first_row < resume:
            p, cut = self._rows[0], resume - self._rows[0].first_row
            self._rows[0] = _Rows(resume, {c: v.iloc[cut:].reset_index(drop=True)
                                           for c, v in p.columns.items()},
                                  p.keys[cut:], p.n - cut)

    # --- labels -----------------------------------------------------------------------------
    def add_labels(self, rows: Any, n: int | None = None,
                   first_row: int | None = None) -> tuple[ChunkRecord, ...]:
        """Labels' rows (the id and label columns); the records of chunks tested on the way.

        ``first_row`` numbers them in errors (default: the labels read so far). A label for a
        prediction already fed whose chunk is not tested yet rewinds the monitor and feeds the
        rows since that chunk again.
        """
        import pandas as pd

        if not self.keeping:
            raise ParameterError("labels", "close_labels() said no label would come any more")
        from pudd_core.monitoring._incremental import column_names

        self.check_label_columns(column_names(rows))
        ids, values = rows[self.id_column], rows[self.label]
        ids = ids.reset_index(drop=True) if isinstance(ids, pd.Series) else pd.Series(ids)
        values = values.reset_index(drop=True) if isinstance(values, pd.Series) \
            else pd.Series(values)
        if len(ids) != len(values) or (n is not None and n != len(ids)):
            raise ParameterError("labels", f"the label rows fed have different lengths (ids "
                                           f"{len(ids)}, labels {len(values)})")
        first = self.n_label_rows + self.n_empty if first_row is None else first_row
        from pudd_core.monitoring._score import _missing

        empty = _missing(values)
        if empty.any():  # a row without a label is skipped whatever its id (a blank row)
            ids = ids.astype(object).where(~empty, "-")
        keys = id_keys(ids, self.id_column, first, self.labels)
        if empty.any():
            self.n_empty += int(empty.sum())
            keep = ~empty
            keys, values = keys[keep], values[keep].reset_index(drop=True)
            rows_at = first + np.flatnonzero(keep)
        else:
            rows_at = first + np.arange(len(keys))
        self.n_label_rows += len(keys)
        new = self._store(keys, values, rows_at)
        if not new.size or not self._rows:
            return ()
        kept = np.concatenate([p.keys for p in self._rows])
        if not pd.Index(new).isin(kept).any():
            return ()
        was_finished = self.monitor.finished
        start = self.monitor.rewind()
        assert start == self._rows[0].first_row, (start, self._rows[0].first_row)
        records: list[ChunkRecord] = []
        for part in list(self._rows):
            records += self._feed(part)
        if was_finished:
            records += self.monitor.finish()
        self._forget()
        return tuple(records)

    def check_label_columns(self, names: Sequence[str]) -> None:
        """Refuse labels without the id or the label column, naming the file and its columns."""
        for c, what in ((self.id_column, "the id column (--id)"),
                        (self.label, "the label column (--label)")):
            if c not in names:
                raise ParameterError("labels", f"{self.labels} has no column {c!r}, {what}; "
                                               f"its columns: {', '.join(map(str, names))}")

    def _store(self, keys: NDArray[np.object_], values: pd.Series,
               rows_at: NDArray[np.int64]) -> NDArray[np.object_]:
        """Add labels; the ids new to the store. Repeats counted, conflicts refused."""
        import pandas as pd

        frame = pd.DataFrame({"k": keys, "v": values, "row": rows_at})
        dup = frame["k"].duplicated(keep=False).to_numpy()
        known = self._keys.get_indexer(keys) >= 0 if len(self._keys) else \
            np.zeros(len(keys), dtype=bool)
        if dup.any() or known.any():  # compare the labels of a repeated id as text
            sub = frame[dup | known].copy()
            sub["t"] = _value_text(sub["v"])
            old = self._keys.get_indexer(sub["k"])
            sub["old"] = [_value_text(self._values.iloc[[o]])[0] if o >= 0 else None
                          for o in old]
            for k, group in sub.groupby("k", sort=False):
                texts = list(dict.fromkeys([*([group["old"].iloc[0]]
                                              if group["old"].iloc[0] is not None else []),
                                            *group["t"]]))
                if len(texts) > 1:
                    where = ", ".join(f"row {r}" for r in group["row"].tolist()[:2])
                    raise ParameterError(
                        "labels", f"{self.labels}: the id {k!r} has two different labels "
                        f"({texts[0]!r} and {texts[1]!r}; {where}): which one is true cannot "
                        "be told. Keep one label per id (e.g. drop_duplicates("
                        f"{self.id_column!r}, keep='last') for the latest correction) and "
                        "run again")
            before = len(frame)
            frame = frame[~known].drop_duplicates("k")
            self.n_repeats += before - len(frame)  # (a different label was refused above)
        if not len(frame):
            return np.empty(0, dtype=object)
        self._keys = self._keys.append(pd.Index(frame["k"].to_numpy(), dtype=object))
        self._values = pd.concat([self._values, frame["v"]], ignore_index=True) \
            if len(self._values) else frame["v"].reset_index(drop=True)
        self._first = np.r_[self._first, np.full(len(frame), -1, dtype=np.int64)]
        return np.asarray(frame["k"].to_numpy(), dtype=object)

    # --- saved as data (``_state``: no pandas object is saved as such) --------------------
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_values"] = _pack(self._values)
        state["_rows"] = [(p.first_row, {c: _pack(v) for c, v in p.columns.items()},
                           p.keys.tolist(), p.n) for p in self._rows]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        state["_values"] = _unpack(state["_values"])
        state["_rows"] = [_Rows(first, {c: _unpack(v) for c, v in cols.items()},
                                np.array(keys, dtype=object), n)
                          for first, cols, keys, n in state["_rows"]]
        self.__dict__.update(state)

    def close_labels(self) -> None:
        """No label will come any more: keep no prediction row for one."""
        self.keeping = False
        self._rows = []

    # --- what was found ---------------------------------------------------------------------
    @property
    def n_unmatched(self) -> int:
        """Labels joined to no prediction (their id is not in the log, or came too late)."""
        return int((self._first < 0).sum())

    def unmatched(self, n: int = SHOWN) -> list[str]:
        """The first ``n`` ids of labels joined to no prediction."""
        return [str(k) for k in self._keys[np.flatnonzero(self._first < 0)[:n]]]

    def summary(self) -> str:
        """One line on the labels so far (``monitor --follow`` prints it when it stops).

        Examples
        --------
        >>> from pudd_core.monitoring import LogFormat, Monitor
        >>> j = LabelJoin(Monitor(LogFormat(label="y", proba_prefix="p_")), "id")
        >>> _ = j.add_labels({"id": [1, 2, 2], "y": [0, 1, 1]})
        >>> j.summary()
        "labels from the labels: 2 read (and 1 repeat), 2 joined to no prediction yet \
(ids '1', '2'), 0 prediction row(s) kept for labels to come"
        """
        shown = ", ".join(repr(k) for k in self.unmatched())
        more = ", ..." if self.n_unmatched > SHOWN else ""
        extra = [f"{self.n_repeats:,} repeat{'s' * (self.n_repeats != 1)}"] \
            if self.n_repeats else []
        extra += [f"{self.n_empty:,} empty"] if self.n_empty else []
        return (f"labels from {self.labels}: {self.n_label_rows - self.n_repeats:,} read"
                f"{f' (and {chr(44).join(extra)})' if extra else ''}, "
                f"{self.n_unmatched:,} joined to no prediction yet"
                f"{f' (ids {shown}{more})' if self.n_unmatched else ''}, "
                f"{sum(p.n for p in self._rows):,} prediction row(s) kept for labels to come")

    def notes(self, res: MonitorResult) -> tuple[str, ...]:
        """What the join found, in words: rows without a label, labels without a row."""
        n_rows = res.n_rows
        labelled = sum(s.n_labelled for s in (*res.spans, *res.pending))
        out = [f"labels from {self.labels} joined by {self.id_column!r}: {labelled:,} of "
               f"{n_rows:,} predictions have a label, {n_rows - labelled:,} not (their id is "
               f"not in {self.labels}, or its label is empty)"]
        if self.n_unmatched:
            shown = ", ".join(repr(k) for k in self.unmatched())
            more = ", ..." if self.n_unmatched > SHOWN else ""
            out.append(f"{self.n_unmatched:,} label(s) of {self.labels} went to no prediction "
                       f"(ids {shown}{more}): their id is not in {self.predictions}, or their "
                       "chunk was tested before they came. If none matches, check --id and "
                       "how the ids are written (compared as text: 17 and '17' agree, '017' "
                       "and 17 do not)")
        if self.n_repeats:
            out.append(f"{self.n_repeats:,} repeated label(s) in {self.labels} (an id given "
                       "the same label again) were read once")
        if self.n_empty:
            out.append(f"{self.n_empty:,} row(s) of {self.labels} have an empty label and were "
                       "skipped")
        return tuple(out)


def read_labels(join: LabelJoin, source: Any, batch_rows: int) -> None:
    """Feed every label of ``source`` to ``join``, then close it: no label comes after these.

    ``source``: a CSV, JSON lines or Parquet file, compressed or not, or a DataFrame (the log
    readers').
    """
    import pandas as pd

    from pudd_core.monitoring._log import batches, check_source, log_columns, name_of

    if source is None:
        raise ParameterError("labels", "labels must be a file (path, open binary file, bytes) "
                                       "or a DataFrame holding the id and label columns")
    try:
        check_source(source)
    except ParameterError as err:
        raise ParameterError("labels", str(err).replace("the log", "the labels", 1)) from None
    name = name_of(source)
    try:
        names = log_columns(source)
    except FileNotFoundError:
        raise FileNotFoundError(f"no labels file at {name}: give the path of the file (CSV, "
                                "JSON lines or Parquet) that holds each prediction's id and "
                                "label") from None
    except ParameterError as err:
        raise ParameterError("labels", str(err)) from None
    join.check_label_columns(names)
    read = 0
    ids: list[pd.Series] = []
    values: list[pd.Series] = []
    try:
        for n, frame in batches(source, [join.id_column, join.label], batch_rows,
                                (join.label,), as_text=(join.id_column,)):
            ids.append(pd.Series(frame[join.id_column]).reset_index(drop=True))
            values.append(pd.Series(frame[join.label]).reset_index(drop=True))
            read += n
    except (UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ParameterError("labels", f"{name} could not be read near row {read}: "
                                       f"{' '.join(str(exc).split())}") from None
    if ids:  # stored at once: one index of the ids, not one grown and hashed again per batch
        join.add_labels({join.id_column: pd.concat(ids, ignore_index=True),
                         join.label: pd.concat(values, ignore_index=True)}, first_row=0)
    join.close_labels()


def joined(monitor: Monitor, source: Any, labels: Any, id_column: str | None,
           batch_rows: int) -> LabelJoin:
    """``monitor`` joined to every label of ``labels`` by ``id_column`` (the batch monitor's)."""
    from pudd_core.monitoring._log import name_of

    if id_column is None:
        raise ParameterError("id_column", "labels from a second file are joined to the log's "
                                          "rows by an id: give id_column (--id), the column "
                                          "that holds each prediction's id in both files")
    if labels is None:
        raise ParameterError("labels", f"id_column (--id) {id_column!r} joins labels from a "
                                       "second file: give that file as labels (--labels)")
    join = LabelJoin(monitor, id_column, predictions=name_of(source),
                     labels=name_of(labels))
    read_labels(join, labels, batch_rows)
    return join


@dataclass(frozen=True)
class _LabelColumns:
    """What a follower reads of the labels file: the id and the label columns."""

    id_column: str
    label: str
    pred: None = None

    @property
    def columns(self) -> list[str]:
        return [self.id_column, self.label]


class LabelSink:
    """The labels file's side of a :class:`LabelJoin`, fed by a follower as a monitor is.

    ``monitor --follow --labels`` follows the labels file with its own follower (the same
    checks of growth, rewrites and rotation as the log's); this takes its rows to
    :meth:`LabelJoin.add_labels`.
    """

    def __init__(self, join: LabelJoin) -> None:
        self.join = join
        self.format = _LabelColumns(join.id_column, join.label)
        self.read_columns = self.format.columns
        self.text_columns = (join.id_column,)

    @property
    def next_row(self) -> int:
        """The labels' rows read so far."""
        return self.join.n_label_rows + self.join.n_empty

    def start(self, names: Sequence[str]) -> _LabelColumns:
        """Check the labels' columns (the id and the label)."""
        self.check_columns(names)
        return self.format

    def check_columns(self, names: Sequence[str]) -> None:
        """Refuse labels without the id or the label column."""
        self.join.check_label_columns([str(c) for c in names])

    def feed(self, rows: Any, n: int | None = None) -> tuple[ChunkRecord, ...]:
        """The labels' next rows."""
        return self.join.add_labels(rows, n, first_row=self.next_row)

    def drain(self) -> list[Any]:
        """Nothing: the log's follower drains the monitor."""
        return []


def joined_batches(source: Any, labels: Any, id_column: str, fmt: LogFormat,
                   batch_rows: int) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """``(rows, column -> Series)`` per batch of the log, each row with its label joined.

    The batches of :func:`~pudd_core.monitoring._log.batches` for a log whose labels are in a
    second file (the monitor's result read again: the report's per-class view); ``fmt`` is the
    format as read, the label column included.
    """
    from dataclasses import replace

    from pudd_core.monitoring._incremental import Monitor
    from pudd_core.monitoring._log import name_of

    join = LabelJoin(Monitor(replace(fmt, time_column=None)), id_column,
                     predictions=name_of(source), labels=name_of(labels))
    read_labels(join, labels, batch_rows)
    yield from join_parts(join, source, fmt, batch_rows)


def join_parts(join: LabelJoin, source: Any, fmt: LogFormat,
               batch_rows: int) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """The log's batches (the columns of ``fmt`` but the label, and the id) joined by ``join``."""
    from pudd_core.monitoring._log import batches

    offset = 0
    columns = [*(c for c in fmt.columns if c != join.label), join.id_column]
    for n, frame in batches(source, columns, batch_rows, (fmt.pred,),
                            as_text=(join.id_column,)):
        yield n, join.joined(frame, n, offset)
        offset += n

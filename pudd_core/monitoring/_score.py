"""One batch of a log -> PU-index, correctness and the labelled mask, row by row checked."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from pudd_core._validation import ParameterError
from pudd_core.monitoring._arrays import arrays, holds_arrays, plain
from pudd_core.monitoring._log import LogFormat

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SUM_TOLERANCE", "LabelMap", "Scored", "Scorer", "infer_positive",
           "numbers", "probability_names"]

#: Default tolerance of a probability row's sum around 1 (as ``pu_index``).
SUM_TOLERANCE = 1e-4


def _text_codes(values: pd.Series) -> tuple[NDArray[np.intp], list[str]]:
    r"""Each value's code and the distinct values as stripped text (a missing value: -1).

    A log's label column holds a few distinct values over millions of rows: they are
    dictionary-encoded once by Arrow and only the distinct ones are turned into text and
    stripped, not every row (``astype(str).str.strip()`` cost half of a string log's time).
    Arrow, not :func:`pandas.factorize`: pandas' string hashing stops at a NUL character, so
    it takes ``"a"`` and ``"a\x00"`` for one value.

    Examples
    --------
    >>> import pandas as pd
    >>> codes, text = _text_codes(pd.Series(["b ", "a", None, "b ", " ", "a\x00"]))
    >>> codes.tolist(), text
    ([0, 1, -1, 0, 2, 3], ['b', 'a', '', 'a\x00'])
    """
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(values.dtype, pd.CategoricalDtype):  # (a Parquet text column)
        codes = values.cat.codes.to_numpy()
        return np.asarray(codes, dtype=np.intp), [str(c).strip() for c in values.cat.categories]
    raw = values.to_numpy(dtype=object)
    try:
        arr = pa.array(raw, type=pa.string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # numbers or flags among text: as text
        arr = pa.array([None if v is None or v is pd.NA or (isinstance(v, float) and v != v)
                        else str(v) for v in raw], type=pa.string())
    encoded = arr.dictionary_encode()
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
    return np.asarray(codes, dtype=np.intp), [t.strip() for t in encoded.dictionary.to_pylist()]


def is_missing(values: pd.Series) -> NDArray[np.bool_]:
    if values.dtype == object or str(values.dtype) in ("string", "category"):
        codes, text = _text_codes(values)
        blank = np.array([t == "" for t in text] + [True], dtype=bool)
        return np.asarray(blank[codes], dtype=bool)  # code -1: the last entry, missing
    return np.asarray(values.isna().to_numpy(), dtype=bool)


class LabelMap:
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
        # numeric classes looked up by binary search (exact float equality, as get_indexer)
        self.sorter: NDArray[np.intp] | None = None
        if self.numbers is not None and self.numbers.is_unique and not self.numbers.hasnans:
            self.sorter = np.argsort(nums)
            self.sorted = nums[self.sorter]
        # classes 0, 1, ..., K - 1 in this order: an integer label is its own index
        self.identity = self.numbers is not None and np.array_equal(nums, np.arange(nums.size))

    def __call__(self, labels: pd.Series, rows: NDArray[np.int64],
                 param: str = "label") -> NDArray[np.intp]:
        """Class indices of ``labels`` (``rows``: their row numbers, for the error)."""
        import pandas as pd

        if pd.api.types.is_numeric_dtype(labels) and not pd.api.types.is_bool_dtype(labels):
            if self.numbers is None:
                idx = self.text.get_indexer(labels.astype(str))
            elif self.identity and labels.dtype.kind in "iu":
                x = labels.to_numpy()
                idx = np.where((x >= 0) & (x < self.sorted.size), x, -1)
            elif self.sorter is not None:
                x = labels.to_numpy(dtype=np.float64, na_value=np.nan)
                pos = np.minimum(np.searchsorted(self.sorted, x), self.sorted.size - 1)
                idx = np.where(self.sorted[pos] == x, self.sorter[pos], -1)
            else:
                idx = self.numbers.get_indexer(labels.to_numpy(dtype=np.float64))
        else:
            codes, text = _text_codes(labels)
            found = self.text.get_indexer(pd.Index(text, dtype=object))
            if (found < 0).any():  # "café" composed or decomposed is one class (Unicode NFC)
                miss = np.flatnonzero(found < 0)
                nfc = pd.Index([unicodedata.normalize("NFC", c) for c in self.fmt.classes])
                found[miss] = nfc.get_indexer(
                    pd.Index([unicodedata.normalize("NFC", text[i]) for i in miss], dtype=object))
            idx = np.append(found, -1)[codes]  # a missing label (code -1): no class
        bad = np.flatnonzero(idx < 0)
        if bad.size:
            i = int(bad[0])
            names = probability_names(self.fmt)
            shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
            column = self.fmt.label if param == "label" else self.fmt.pred
            raise ParameterError(
                param, f"row {rows[i]}, column {column!r}: {param} "
                f"{plain(labels.iloc[i])!r} has no probability column (the columns are {shown}, "
                f"for the labels {', '.join(self.fmt.classes[:6])}"
                f"{', ...' if len(self.fmt.classes) > 6 else ''})")
        return np.asarray(idx, dtype=np.intp)


def argmax(cols: Sequence[NDArray[Any]], n: int) -> NDArray[np.integer[Any]]:
    """Row-wise arg-max of ``n`` rows held column by column; ties go to the lowest column.

    ``np.argmax`` of the stacked rows, without the (n, K) copy or a strided pass; the index
    in the smallest integer type that holds it (less memory to write).

    Examples
    --------
    >>> cols = [np.array([0.2, 0.5, 0.1]), np.array([0.7, 0.5, 0.1]), np.array([0.1, 0.0, 0.8])]
    >>> argmax(cols, 3).tolist()
    [1, 0, 2]
    """
    best, arg = cols[0], np.zeros(n, dtype=np.min_scalar_type(len(cols) - 1))
    for k in range(1, len(cols)):
        col = cols[k]
        np.putmask(arg, col > best, k)  # strict: ties go to the lowest class, as np.argmax
        best = np.maximum(best, col)
    return arg


def is_argmax(cols: Sequence[NDArray[Any]], values: NDArray[Any],
              idx: NDArray[np.intp]) -> NDArray[np.bool_]:
    """Whether column ``idx[i]`` is row ``i``'s arg-max: ``argmax(cols, n) == idx``, cheaper.

    ``values[i]`` is that column's value in row ``i``; ties go to the lowest column. Two
    passes per column where :func:`argmax` makes three, none of them a masked write. A row's
    class is the arg-max where its value is the row's maximum and no other column reaches it;
    the few rows where two or more do (a tie) are settled by ``np.argmax``.

    Examples
    --------
    >>> cols = [np.array([0.2, 0.5, 0.1]), np.array([0.7, 0.5, 0.1]), np.array([0.1, 0.0, 0.8])]
    >>> idx = np.array([1, 1, 2])
    >>> values = np.stack(cols)[idx, np.arange(3)]
    >>> is_argmax(cols, values, idx).tolist()  # row 1 ties 0.5 and 0.5: the lower class wins
    [True, False, True]
    """
    best = np.array(cols[0], dtype=np.result_type(*cols), copy=True)
    for col in cols[1:]:
        np.maximum(best, col, out=best)
    hits = values == best
    at_top = np.zeros(len(best), dtype=np.min_scalar_type(len(cols)))
    for col in cols:
        at_top += col == best
    tied = np.flatnonzero(hits & (at_top > 1))
    if tied.size:
        hits[tied] = np.argmax(np.stack([col[tied] for col in cols]), axis=0) == idx[tied]
    return np.asarray(hits, dtype=np.bool_)


def probability_names(fmt: LogFormat) -> tuple[str, ...]:
    """The probability columns' names for messages: an array's places are ``proba[k]``.

    Examples
    --------
    >>> probability_names(LogFormat(label="y", proba_array="p", classes=("a", "b")))
    ('p[0]', 'p[1]')
    """
    if fmt.proba_array is not None:
        return tuple(f"{fmt.proba_array}[{k}]" for k in range(len(fmt.classes)))
    return fmt.proba_columns


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
                                        f"{plain(values.iloc[i])!r} is not true/false or 0/1")
    return np.asarray(ok.to_numpy(dtype=bool), dtype=np.bool_)


def numbers(col: pd.Series, name: str, offset: int, param: str) -> NDArray[np.float64]:
    """A column as floats (empty cells NaN); text that is not a number is named with its row."""
    import pandas as pd

    if isinstance(col.dtype, np.dtype) and col.dtype.kind == "f":  # NaN already: no mask
        return np.asarray(col.to_numpy(), dtype=np.float64)
    if holds_arrays(col):
        raise ParameterError(param, f"column {name!r} holds an array per row, not one number: "
                                    "if the arrays are every class's probabilities, give the "
                                    f"column as proba_array (--proba-array {name})")
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        return np.asarray(col.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)
    if pd.api.types.is_bool_dtype(col):
        raise ParameterError(param, f"column {name!r} holds true/false values, not "
                                    "probabilities; check which column holds the probabilities")
    as_num = pd.to_numeric(col, errors="coerce")
    text = col.astype(str).str.strip().str.lower()
    bad = np.flatnonzero((as_num.isna() & col.notna() & ~text.isin(("", "nan"))).to_numpy())
    if bad.size:
        i = int(bad[0])
        hint = (f"; it holds a JSON array: give the column as proba_array (--proba-array "
                f"{name})" if text.iloc[i].startswith("[") else "")
        raise ParameterError(param, f"row {offset + i}, column {name!r}: "
                                    f"{plain(col.iloc[i])!r} is not a number; probabilities "
                                    f"are numbers in [0, 1]{hint}")
    return np.asarray(as_num.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)


def _probabilities(col: pd.Series, name: str, offset: int) -> NDArray[np.floating[Any]]:
    """A probability column as :func:`numbers` reads it, but float32 kept as it is.

    Comparisons, the arg-max and the conversion of the one value a row needs are exact in
    float32; a float64 copy of every column would be most of a batch's cost.
    """
    if isinstance(col.dtype, np.dtype) and col.dtype == np.float32:
        return np.asarray(col.to_numpy())
    return numbers(col, name, offset, "proba")


@dataclass(frozen=True)
class Scored:
    """One batch scored: PU-index, correctness, the labelled mask and the consistency counts.

    ``n_checked`` rows had both probabilities and a decision (``pred`` or ``correct``);
    ``n_disagree`` of them contradict each other: a decision other than the arg-max (or than
    P(positive) > 0.5), or a wrong prediction whose true class had p > 0.5.
    """

    u: NDArray[np.float64]
    ok: NDArray[np.bool_]
    labelled: NDArray[np.bool_]
    #: Per row: checked (labelled, with a decision) and, of those, contradicting; None: none.
    checked: NDArray[np.bool_] | None = None
    disagree: NDArray[np.bool_] | None = None

    @property
    def n_checked(self) -> int:
        """Rows checked for consistency."""
        return 0 if self.checked is None else int(self.checked.sum())

    @property
    def n_disagree(self) -> int:
        """Checked rows where the decision and the probabilities contradict each other."""
        return 0 if self.disagree is None else int(self.disagree.sum())


class Scorer:
    """Scores batches of one log; for a single probability column it settles the positive class.

    ``fmt`` is the resolved format; :attr:`fmt` gains the positive label once inferred (from
    the first labelled batch) and :attr:`notes` say what was inferred.
    """

    def __init__(self, fmt: LogFormat, *, normalize: bool = False,
                 tolerance: float = SUM_TOLERANCE) -> None:
        self.fmt = fmt
        self.normalize = normalize
        self.tolerance = tolerance
        self.binary = len(fmt.proba_columns) == 1
        self.labels = LabelMap(fmt) if len(fmt.proba_columns) > 1 or (
            fmt.proba_array is not None and fmt.classes) else None
        self.negative: Any = None  # the binary form's negative label, once seen
        self.negative_shown: Any = None
        self.positive_seen = False
        self.notes: list[str] = []
        # a single column read as P(positive): its least value and, with decisions, how many
        # labelled rows decide the other class where it is above 0.5 (a top-class score?)
        self.p_min = math.inf
        self.n_decided = self.n_against = 0
        self.top_classes: list[Any] = []  # binary_top_score: the (at most two) classes seen
        self.top_shown: list[Any] = []  # and their values as the log writes them
        if self.binary and fmt.positive_label is not None:
            self.notes.append(
                f"column {fmt.proba_columns[0]!r} is read as P({fmt.label} = "
                f"{fmt.positive_label!r}): a binary model's probability of the positive class")

    def __call__(self, frame: Mapping[str, pd.Series], n: int, offset: int) -> Scored:
        """PU-index, correctness and the labelled mask of one batch's ``n`` rows."""
        if self.fmt.p_true is not None:
            return self._shortcut(frame, n, offset)
        if self.fmt.binary_top_score is not None:
            return self._top(frame, n, offset)
        if self.binary:
            return self._binary(frame, n, offset)
        if self.fmt.proba_array is not None:
            return self._classes(frame, n, offset, self._array(frame, n, offset))
        return self._classes(frame, n, offset, [_probabilities(frame[c], c, offset)
                                                for c in self.fmt.proba_columns])

    def _array(self, frame: Mapping[str, pd.Series], n: int,
               offset: int) -> list[NDArray[np.floating[Any]]]:
        """The array column's places as columns; the first batch settles K if not given."""
        fmt = self.fmt
        name = fmt.proba_array
        assert name is not None
        known = len(fmt.classes) or None
        values = arrays(frame[name], name, offset, known)
        if known is None:
            k = values.shape[1]
            if k < 2:
                raise ParameterError("proba_array", f"row {offset}, column {name!r}: an array "
                                                    f"of {k} probabilities; the arrays hold "
                                                    "one per class, two or more")
            self.fmt = replace(fmt, classes=tuple(str(c) for c in range(k)))
            self.labels = LabelMap(self.fmt)
            self.notes.append(f"column {name!r} holds arrays of {k} probabilities, read as the "
                              f"classes 0 .. {k - 1} in order (give classes / --classes to "
                              "name them)")
        return list(np.ascontiguousarray(values.T))

    # --- the decisions ---------------------------------------------------------------------
    def _decided(self, frame: Mapping[str, pd.Series], labelled: NDArray[np.bool_],
                 offset: int) -> NDArray[np.bool_] | None:
        """Correctness from a ``correct`` column on the labelled rows, if the log has one."""
        fmt = self.fmt
        if fmt.correct is None:
            return None
        pos = np.flatnonzero(labelled)
        col = frame[fmt.correct]
        empty = np.flatnonzero(is_missing(col.iloc[pos]))
        if empty.size:
            r = int(pos[empty[0]])
            raise ParameterError("correct", f"row {offset + r}, column {fmt.correct!r} is empty "
                                            "where the row has a label; fill it (0/1)")
        ok = np.zeros(len(labelled), dtype=bool)
        ok[pos] = _truthy(col.iloc[pos], fmt.correct, offset + pos)
        return ok

    def _pred_missing(self, frame: Mapping[str, pd.Series], labelled: NDArray[np.bool_],
                      offset: int) -> None:
        fmt = self.fmt
        assert fmt.pred is not None
        empty = np.flatnonzero(labelled & is_missing(frame[fmt.pred]))
        if empty.size:
            raise ParameterError("pred", f"row {offset + int(empty[0])}, column {fmt.pred!r} is "
                                         "empty where the row has a label; every labelled row "
                                         "needs the model's decision")

    # --- the three forms -------------------------------------------------------------------
    def _shortcut(self, frame: Mapping[str, pd.Series], n: int, offset: int) -> Scored:
        fmt = self.fmt
        assert fmt.p_true is not None
        p = numbers(frame[fmt.p_true], fmt.p_true, offset, "p_true")
        labelled = ~np.isnan(p)
        if fmt.correct is not None:
            labelled &= ~is_missing(frame[fmt.correct])
        else:
            assert fmt.label is not None and fmt.pred is not None
            labelled &= ~is_missing(frame[fmt.label]) & ~is_missing(frame[fmt.pred])
        _check_unit(np.where(labelled, p, 0.5), [fmt.p_true], offset, "p_true")
        u = 1.0 - np.where(labelled, p, 0.0)
        decided = self._decided(frame, labelled, offset)
        if decided is not None:
            ok = decided
        else:
            assert fmt.label is not None and fmt.pred is not None
            ok = _same(frame[fmt.label], frame[fmt.pred]) & labelled
        # no arg-max decision is wrong while the true class has p > 0.5
        return Scored(u, ok, labelled, labelled, labelled & ~ok & (u < 0.5))

    def _binary(self, frame: Mapping[str, pd.Series], n: int, offset: int) -> Scored:
        fmt = self.fmt
        assert fmt.label is not None
        name = fmt.proba_columns[0]
        p = numbers(frame[name], name, offset, "proba")
        if n and not (p.min() >= 0.0 and p.max() <= 1.0):
            _check_unit(p, [name], offset, "proba")
        lab_col = frame[fmt.label]
        labelled = ~is_missing(lab_col)
        pos = np.flatnonzero(labelled)
        if pos.size and fmt.positive_label is None:
            self._infer_positive(lab_col.iloc[pos])
        is_pos = np.zeros(n, dtype=bool)
        is_pos[pos] = self._is_positive(lab_col.iloc[pos], offset + pos, fmt.label, "label")
        u = np.where(is_pos, 1.0 - p, p)
        says_pos = p > 0.5  # a tie goes to the negative class, as the two-column arg-max
        if pos.size:
            self.p_min = min(self.p_min, float(p[pos].min()))
        decided = self._decided(frame, labelled, offset)
        if fmt.pred is not None:
            self._pred_missing(frame, labelled, offset)
            dec = np.zeros(n, dtype=bool)
            dec[pos] = self._is_positive(frame[fmt.pred].iloc[pos], offset + pos, fmt.pred,
                                         "pred")
            self.n_decided += pos.size
            self.n_against += int((~dec[pos] & says_pos[pos]).sum())
            self.check_top_score(final=False)
            ok = (dec == is_pos) & labelled
            return Scored(u, ok, labelled, labelled, labelled & (dec != says_pos))
        if decided is not None:
            return Scored(u, decided, labelled, labelled,
                          labelled & (decided != (says_pos == is_pos)))
        return Scored(u, (says_pos == is_pos) & labelled, labelled)

    def _classes(self, frame: Mapping[str, pd.Series], n: int, offset: int,
                 cols: list[NDArray[np.floating[Any]]]) -> Scored:
        fmt = self.fmt
        assert fmt.label is not None and self.labels is not None
        # column by column (K passes over contiguous arrays): no (n, K) copy, no strided arg-max
        names = probability_names(fmt)
        for j, col in enumerate(cols):
            if n and not (col.min() >= 0.0 and col.max() <= 1.0):  # NaN fails both: checked
                _check_unit(col.astype(np.float64), [names[j]], offset, "proba")
        cols = self._sum_to_one(cols, offset)
        lab_col = frame[fmt.label]
        labelled = ~is_missing(lab_col)
        idx = self._indices(lab_col, labelled, offset, "label")
        # the true class's probability: one gather from the columns stacked class by class
        stacked = np.empty((len(cols), n), dtype=np.result_type(*cols))
        for k, col in enumerate(cols):
            stacked[k] = col
        p_true = stacked.ravel()[idx * n + np.arange(n)]
        u = 1.0 - np.asarray(p_true, dtype=np.float64)
        if fmt.pred is not None:
            self._pred_missing(frame, labelled, offset)
            dec = self._indices(frame[fmt.pred], labelled, offset, "pred")
            return Scored(u, (dec == idx) & labelled, labelled, labelled,
                          labelled & (dec != argmax(cols, n)))
        hits = is_argmax(cols, p_true, idx)
        decided = self._decided(frame, labelled, offset)
        if decided is not None:
            return Scored(u, decided, labelled, labelled, labelled & (decided != hits))
        return Scored(u, hits & labelled, labelled)

    def _top(self, frame: Mapping[str, pd.Series], n: int, offset: int) -> Scored:
        """A binary model's score of its predicted class: p(true) is it, or one minus it."""
        fmt = self.fmt
        name, label, pred = fmt.binary_top_score, fmt.label, fmt.pred
        assert name is not None and label is not None and pred is not None
        score = numbers(frame[name], name, offset, "binary_top_score")
        labelled = ~is_missing(frame[label])
        self._pred_missing(frame, labelled, offset)
        _check_unit(np.where(labelled, score, 0.5), [name], offset, "binary_top_score")
        low = np.flatnonzero(labelled & (score < 0.5))
        if low.size:
            i = int(low[0])
            raise ParameterError(
                "binary_top_score", f"row {offset + i}, column {name!r}: {score[i]:.6g} is "
                "below 0.5, but the score of a binary model's predicted class is the larger "
                "of its two probabilities; if the column is P(positive), give it with "
                "proba_columns (--proba-columns)")
        pos = np.flatnonzero(labelled)
        truth = _keys(frame[label].iloc[pos])
        said = _keys(frame[pred].iloc[pos])
        self._two_classes(truth, said, frame[label].iloc[pos], frame[pred].iloc[pos],
                          offset + pos)
        ok = np.zeros(n, dtype=bool)
        ok[pos] = np.asarray(truth == said, dtype=bool)
        u = np.where(ok, 1.0 - score, score)  # right: 1 - score; wrong: the other class's
        return Scored(np.where(labelled, u, 0.0), ok, labelled)

    def _two_classes(self, truth: NDArray[Any], said: NDArray[Any], labels: pd.Series,
                     preds: pd.Series, rows: NDArray[np.int64]) -> None:
        """The labels and decisions name at most two classes (a top score's condition)."""
        fmt = self.fmt
        for keys, values, column in ((truth, labels, fmt.label), (said, preds, fmt.pred)):
            for i, key in enumerate(keys.tolist()):
                if key in self.top_classes:
                    continue
                if len(self.top_classes) == 2:
                    shown = ", ".join(repr(plain(v)) for v in self.top_shown)
                    raise ParameterError(
                        "binary_top_score", f"row {rows[i]}, column {column!r}: "
                        f"{plain(values.iloc[i])!r} is a third class after {shown}: the score "
                        "of the predicted class gives the probability of the true class only "
                        "for a binary model; log every class's probability (--proba-prefix)")
                self.top_classes.append(key)
                self.top_shown.append(values.iloc[i])

    def check_top_score(self, *, final: bool) -> None:
        """Refuse a single column read as P(positive) that is a top-class score instead.

        Such a column is never below 0.5, and the model decides the other class on rows where
        it is above 0.5 (its score for that class). Checked from 200 decided rows on, and at
        the end of the log (``final``) on any number.
        """
        fmt = self.fmt
        if not (self.binary and fmt.pred is not None and self.p_min >= 0.5):
            return
        if not final and self.n_decided < 200:
            return
        if self.n_against < max(1, 0.01 * self.n_decided):
            return
        col = fmt.proba_columns[0]
        raise ParameterError(
            "binary_top_score",
            f"column {col!r} is never below 0.5 (at least {self.p_min:.3g} over "
            f"{self.n_decided:,} labelled rows), and the decisions in {fmt.pred!r} are the "
            f"other class on {self.n_against:,} of them where it is above 0.5: it holds the "
            "score of the predicted class (as a Hugging Face pipeline logs label and score), "
            "not P(positive). PUDD needs the probability of the true class: log every class's "
            "probability (--proba-prefix), or, for a binary model, where it is the score when "
            "the prediction is right and 1 - score when it is wrong, read the column as "
            f"--binary-top-score {col} --pred {fmt.pred} (binary_top_score=)")

    # --- helpers ---------------------------------------------------------------------------
    def _sum_to_one(self, cols: list[NDArray[np.floating[Any]]],
                    offset: int) -> list[NDArray[np.floating[Any]]]:
        fmt = self.fmt
        sums = np.add(cols[0], cols[1], dtype=np.float64)  # float32 columns summed in float64
        for col in cols[2:]:
            sums += col
        off = np.abs(sums - 1.0) > self.tolerance
        if self.normalize:
            zero = np.flatnonzero(sums <= 0.0)
            if zero.size:
                raise ParameterError("normalize", f"row {offset + int(zero[0])}: the "
                                                  "probabilities are all 0 and cannot be "
                                                  "normalized")
            if off.any():
                return [col / sums for col in cols]
        elif off.any():
            r = int(np.flatnonzero(off)[0])
            names = probability_names(fmt)
            raise ParameterError(
                "proba", f"row {offset + r}: the probabilities in columns "
                f"{names[0]} .. {names[-1]} sum to {sums[r]:.6g}, not 1 "
                f"(within {self.tolerance:g}); if a class has no column here ({len(cols)} "
                "columns were read), add it; else pass normalize=True (--normalize) to divide "
                "each row by its sum, or log probabilities (e.g. a softmax), not scores")
        return cols

    def _indices(self, col: pd.Series, labelled: NDArray[np.bool_], offset: int,
                 param: str) -> NDArray[np.intp]:
        assert self.labels is not None
        n = len(labelled)
        if labelled.all():
            return self.labels(col, offset + np.arange(n), param)
        idx = np.zeros(n, dtype=np.intp)
        if labelled.any():
            pos = np.flatnonzero(labelled)
            idx[pos] = self.labels(col.iloc[pos], offset + pos, param)
        return idx

    def _infer_positive(self, values: pd.Series) -> None:
        fmt = self.fmt
        positive = infer_positive(values)
        if positive is None:
            shown = ", ".join(repr(plain(v)) for v in values.drop_duplicates().iloc[:5])
            raise ParameterError(
                "positive_label", f"column {fmt.proba_columns[0]!r} is a single probability "
                f"column, read as P(positive class), and the labels in {fmt.label!r} ({shown}) "
                "do not say which class is positive (only 0/1, -1/1 and false/true do); name "
                "it with positive_label (--positive-label)")
        self.fmt = replace(fmt, positive_label=positive)
        self.notes.append(
            f"column {fmt.proba_columns[0]!r} is read as P({fmt.label} = {positive!r}): a binary "
            f"model's probability of the positive class, {positive!r} inferred from the labels "
            "(pass positive_label / --positive-label to choose another)")

    def _is_positive(self, values: pd.Series, rows: NDArray[np.int64], column: str,
                     param: str) -> NDArray[np.bool_]:
        """Which values are the positive label; a second negative value is a third class."""
        positive = self.fmt.positive_label
        assert positive is not None
        keys = _keys(values)
        target = _key(positive)
        hit = np.asarray([k == target for k in keys], dtype=bool) if keys.dtype == object \
            else np.asarray(keys == target, dtype=bool)
        if param == "label" and hit.any():
            self.positive_seen = True
        others = np.flatnonzero(~hit)
        if others.size:
            if self.negative is None:
                self.negative = keys[others[0]]
                self.negative_shown = plain(values.iloc[int(others[0])])
            wrong = others[np.asarray([k != self.negative for k in keys[others]], dtype=bool)]
            if wrong.size:
                i = int(wrong[0])
                raise ParameterError(
                    param, f"row {rows[i]}, column {column!r}: {plain(values.iloc[i])!r} is "
                    f"neither the positive class {positive!r} nor the negative one "
                    f"{self.negative_shown!r}: a single probability column describes a binary "
                    "model; for more classes log one probability column per class")
        return hit


def _key(value: Any) -> Any:
    """A label value as compared: numbers as floats, booleans and text lower-cased text."""
    if isinstance(value, bool | np.bool_):
        return str(bool(value)).lower()
    if isinstance(value, int | float | np.integer | np.floating):
        return float(value)
    text = str(value).strip()
    if not text.isascii():  # "café" composed or decomposed is one label (NFC)
        text = unicodedata.normalize("NFC", text)
    try:
        return float(text)
    except ValueError:
        return text.lower() if text.lower() in ("true", "false") else text


def _keys(values: pd.Series) -> NDArray[Any]:
    import pandas as pd

    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return np.asarray(values.to_numpy(dtype=np.float64), dtype=np.float64)
    return np.asarray([_key(v) for v in values.to_numpy()], dtype=object)


def infer_positive(values: pd.Series) -> str | None:
    """The positive class of binary labels where unambiguous: 1 of 0/1 or -1/1, true of false.

    Examples
    --------
    >>> import pandas as pd
    >>> infer_positive(pd.Series([0, 1, 1])), infer_positive(pd.Series(["-1", "1"]))
    ('1', '1')
    >>> infer_positive(pd.Series([True, False])), infer_positive(pd.Series(["no", "yes"]))
    ('True', None)
    """
    distinct = set(_keys(values).tolist())
    if distinct <= {0.0, 1.0} or distinct <= {-1.0, 1.0}:
        return "1"
    if distinct <= {"true", "false"}:
        return "True"
    return None


def _same(a: pd.Series, b: pd.Series) -> NDArray[np.bool_]:
    """Row by row, whether two label columns hold the same class."""
    import pandas as pd

    if pd.api.types.is_numeric_dtype(a) and pd.api.types.is_numeric_dtype(b):
        return np.asarray(a.to_numpy(dtype=np.float64) == b.to_numpy(dtype=np.float64))
    return np.asarray((a.astype(str).str.strip() == b.astype(str).str.strip()).to_numpy())

"""One batch of a log -> PU-index, correctness and the labelled mask, row by row checked."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from pudd_core._validation import ParameterError
from pudd_core.monitoring._log import LogFormat

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SUM_TOLERANCE", "LabelMap", "plain", "score"]

#: Default tolerance of a probability row's sum around 1 (as ``pu_index``).
SUM_TOLERANCE = 1e-4


def _missing(values: pd.Series) -> NDArray[np.bool_]:
    miss = values.isna().to_numpy()
    if values.dtype == object or str(values.dtype) == "string":
        miss |= values.astype(str).str.strip().eq("").to_numpy()
    return np.asarray(miss, dtype=bool)


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
                f"{plain(labels.iloc[i])!r} has no probability column (the columns are {shown}, "
                f"for the labels {', '.join(self.fmt.classes[:6])}"
                f"{', ...' if len(self.fmt.classes) > 6 else ''})")
        return np.asarray(idx, dtype=np.intp)


def plain(value: Any) -> Any:
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
                                        f"{plain(values.iloc[i])!r} is not true/false or 0/1")
    return np.asarray(ok.to_numpy(dtype=bool), dtype=np.bool_)


def score(frame: Mapping[str, pd.Series], n: int, fmt: LogFormat, labels: LabelMap | None,
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



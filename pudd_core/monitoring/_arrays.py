"""Probabilities as one array per row, read into an ``(n, K)`` array, every row checked.

The arrays come as a JSON lines field, a Parquet list column or a CSV cell ``"[0.1, 0.9]"``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from pudd_core._validation import ParameterError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["arrays", "holds_arrays", "plain"]


def plain(value: Any) -> Any:
    """A numpy scalar as the Python value (for messages: ``7``, not ``np.int64(7)``).

    Anything else as it is (an array in a cell is shown, not turned into a scalar).
    """
    return value.item() if isinstance(value, np.generic) else value


def holds_arrays(col: pd.Series) -> bool:
    """Whether a column's cells are arrays (lists), as a Parquet list column or JSON arrays."""
    import pandas as pd

    if isinstance(col.dtype, pd.ArrowDtype):
        import pyarrow as pa

        t = col.dtype.pyarrow_dtype
        return bool(pa.types.is_list(t) or pa.types.is_large_list(t)
                    or pa.types.is_fixed_size_list(t))
    if col.dtype != object or not len(col):
        return False
    first = col.iloc[int(col.notna().to_numpy().argmax())]
    return isinstance(first, list | tuple | np.ndarray)


def _array_problem(value: Any, width: int | None) -> str | None:
    """Why one cell is not an array of ``width`` numbers (None if it is one)."""
    import json

    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            return f"{value[:40]!r} is not a JSON array ({exc.msg})"
    if value is None or isinstance(value, float) and math.isnan(value):
        return "is empty: every row needs its array of probabilities"
    if not isinstance(value, list | tuple | np.ndarray):
        return f"{plain(value)!r} is not an array of probabilities"
    for j, x in enumerate(value):
        if isinstance(x, bool | np.bool_) or not isinstance(x, int | float | np.number) \
                and x is not None:
            return f"element {j} ({plain(x)!r}) is not a number"
    if width is not None and len(value) != width:
        return f"holds {len(value)} probabilities where the arrays hold {width}"
    return None


def arrays(col: pd.Series, name: str, offset: int,
           width: int | None) -> NDArray[np.float64]:
    """A column of probability arrays as an ``(n, K)`` float array, every row checked.

    The cells may be lists or NumPy arrays (JSON lines, a DataFrame), a Parquet list column
    (Arrow-backed), or text holding JSON arrays (a CSV). ``width`` is K if known; else the
    first row's length. A missing array, one of another length (ragged rows), or an element
    that is not a number is refused naming the row and the column; NaN elements are left for
    the range check, which names them. Read through Arrow: one flatten and one reshape.

    Examples
    --------
    >>> import pandas as pd
    >>> arrays(pd.Series(["[0.2, 0.8]", "[1, 0]"]), "p", 0, None).tolist()
    [[0.2, 0.8], [1.0, 0.0]]
    >>> arrays(pd.Series([[0.2, 0.8], [0.1, 0.2, 0.7]]), "p", 10, None)
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: row 11, column 'p': holds 3 probabilities where ...
    """
    import json

    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(col)

    def refuse(values: Any) -> ParameterError:
        """The first bad row, found cell by cell (only once a fast reading failed)."""
        k = width
        for i, v in enumerate(values):
            problem = _array_problem(v, k)
            if problem is not None:
                return ParameterError("proba_array", f"row {offset + i}, column {name!r}: "
                                                     f"{problem}")
            if k is None:
                k = len(json.loads(v) if isinstance(v, str) else v)
        return ParameterError("proba_array", f"column {name!r} (rows {offset:,} to "
                                             f"{offset + n - 1:,}) could not be read as "
                                             "arrays of probabilities")

    if isinstance(col.dtype, pd.ArrowDtype):
        arr = pa.array(col.array)
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        cells: Any = None
    else:
        cells = col.to_numpy(dtype=object)
        if n and pd.api.types.infer_dtype(cells, skipna=False) == "string":
            try:  # the whole column as one JSON document: one C parse, no loop
                parsed = json.loads("[" + ",".join(cells) + "]")
            except ValueError:
                raise refuse(cells) from None
            if len(parsed) != n or not all(isinstance(v, list) for v in parsed):
                raise refuse(cells)
            cells = parsed
        try:
            arr = pa.array(cells, from_pandas=True)
        except (pa.ArrowException, TypeError, ValueError):
            raise refuse(cells) from None
    if not (pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type)
            or pa.types.is_fixed_size_list(arr.type)):
        raise refuse(cells if cells is not None else arr.to_pylist())
    vt = arr.type.value_type
    if not (pa.types.is_integer(vt) or pa.types.is_floating(vt) or pa.types.is_null(vt)) \
            or arr.null_count:
        raise refuse(cells if cells is not None else arr.to_pylist())
    lengths = pc.list_value_length(arr).to_numpy(zero_copy_only=False)
    k = int(lengths[0]) if width is None and n else width
    odd = np.flatnonzero(lengths != k)
    if odd.size:
        i = int(odd[0])
        raise ParameterError("proba_array", f"row {offset + i}, column {name!r}: holds "
                                            f"{lengths[i]} probabilities where the arrays "
                                            f"hold {k}")
    flat = pc.list_flatten(arr).cast(pa.float64()).to_numpy(zero_copy_only=False)
    values = np.asarray(flat, dtype=np.float64).reshape(n, k or 0)
    if cells is not None:  # Arrow reads true/false among numbers as 1/0: look at those rows
        for i in np.flatnonzero(((values == 0.0) | (values == 1.0)).any(axis=1)).tolist():
            problem = _array_problem(cells[i], k)
            if problem is not None:
                raise ParameterError("proba_array", f"row {offset + i}, column {name!r}: "
                                                    f"{problem}")
    return values

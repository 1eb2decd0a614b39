"""A user's CSV or Parquet table as a stream: numeric columns as is, categorical one-hot."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from pudd_core.streams.chunking import OneHot, Stream, StreamInfo, encode_rows

Source = str | os.PathLike[str] | bytes | bytearray | memoryview | IO[bytes] | IO[str]

_PARQUET_MAGIC = b"PAR1"


def _read_bytes(source: Source, max_bytes: int) -> tuple[bytes, str]:
    """Read the raw content (at most ``max_bytes + 1`` bytes) and a display name."""
    if isinstance(source, str | os.PathLike):
        path = Path(source).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"no such file: {path}")
        size = path.stat().st_size
        if size > max_bytes:
            raise ValueError(f"{path.name} is {size} bytes, more than max_bytes={max_bytes}")
        return path.read_bytes(), str(path)
    if isinstance(source, bytes | bytearray | memoryview):
        raw = bytes(source)
        name = "uploaded file"
    else:
        start = source.tell() if source.seekable() else None
        chunk = source.read(max_bytes + 1)
        if start is not None:
            source.seek(start)  # leave the caller's buffer where it was
        raw = chunk.encode("utf-8") if isinstance(chunk, str) else bytes(chunk)
        name = str(getattr(source, "name", "uploaded file"))
    if len(raw) > max_bytes:
        raise ValueError(f"{name} is more than max_bytes={max_bytes} bytes")
    return raw, name


def _where(row: int, parquet: bool) -> str:
    # row 0 is the first data row; in a CSV it sits on line 2, under the header
    return f"row {row}" if parquet else f"row {row} (line {row + 2} of the file)"


def _encode_column(
    name: str, col: pd.Series, parquet: bool, max_categories: int
) -> tuple[NDArray[np.float64] | OneHot, list[str]]:
    """One column -> a numeric block or a one-hot block, with output feature names."""
    dtype = col.dtype
    if pd.api.types.is_bool_dtype(dtype) or (
        pd.api.types.is_object_dtype(dtype) and col.map(type).eq(bool).all()
    ):
        cats, codes = np.unique(col.to_numpy(dtype=bool), return_inverse=True)
        return OneHot(codes.astype(np.int64), len(cats)), [f"{name}={c}" for c in cats]
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
        values = col.to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise ValueError(
                f"column {name!r} has a non-finite value {values[bad[0]]} at "
                f"{_where(int(bad[0]), parquet)}"
            )
        return values, [name]
    if (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_object_dtype(dtype)
        or (pd.api.types.is_string_dtype(dtype))
    ):
        values = col.astype(object).to_numpy()
        kinds = {type(v) for v in values}
        if not kinds <= {str}:
            odd = next(k for k in kinds if k is not str)
            raise ValueError(
                f"column {name!r} holds values of type {odd.__name__}, which cannot be encoded "
                "(only numbers, strings and booleans can)"
            )
        as_number = pd.to_numeric(col.astype(str), errors="coerce")
        n_numbers = int(as_number.notna().sum())
        if 2 * n_numbers >= len(col) and n_numbers < len(col):  # numbers with a few stray words
            row = int(np.flatnonzero(as_number.isna().to_numpy())[0])
            raise ValueError(
                f"column {name!r} is mostly numeric but has the non-numeric value "
                f"{values[row]!r} at {_where(row, parquet)}; fix or remove it"
            )
        cats, codes = np.unique(values.astype(str), return_inverse=True)
        if len(cats) > max_categories:
            raise ValueError(
                f"column {name!r} has {len(cats)} distinct text values, more than "
                f"max_categories={max_categories} to one-hot encode (an identifier or free text?)"
            )
        return OneHot(codes.astype(np.int64), len(cats)), [f"{name}={c}" for c in cats]
    raise ValueError(
        f"column {name!r} has type {dtype}, which cannot be encoded as numbers; convert it to "
        "numbers or text first"
    )


def _sorted_values(values: NDArray[Any]) -> list[Any]:
    distinct = {v.item() if isinstance(v, np.generic) else v for v in values}
    try:
        return sorted(distinct)
    except TypeError:  # mixed types: order by text
        return sorted(distinct, key=str)


def stream_from_csv(
    path_or_buffer: Source,
    *,
    label: str,
    chunk_size: int = 1000,
    name: str = "user",
    max_rows: int = 1_000_000,
    max_bytes: int = 200_000_000,
    max_categories: int = 1000,
) -> Stream:
    r"""Turn a CSV (or Parquet) table into a stream of ``chunk_size`` rows, in file order.

    Numeric columns are used as is, text and boolean columns one-hot encoded (categories
    sorted, expanded in place). Labels become ``0 .. C - 1`` in the sorted order of the
    distinct label values; ``truth["label_mapping"]`` keeps the mapping. A trailing partial
    chunk is dropped (``truth["dropped_rows"]``). The file is only read, never written.

    Parameters
    ----------
    path_or_buffer
        A path, the file's bytes, or a binary or text file object (read from its position).
    label
        Name of the label column.
    chunk_size
        Rows per chunk.
    name
        Name of the stream.
    max_rows
        Refuse files with more data rows than this.
    max_bytes
        Refuse files larger than this.
    max_categories
        Refuse text columns with more distinct values than this.

    Examples
    --------
    >>> csv = "x,colour,y\n1.5,red,no\n2.0,blue,yes\n0.5,red,yes\n"
    >>> s = stream_from_csv(io.StringIO(csv), label="y", chunk_size=2)
    >>> s.chunk(0)
    (array([[1.5, 0. , 1. ], [2. , 1. , 0. ]]), array([0, 1]))
    >>> s.truth["label_mapping"], s.truth["dropped_rows"], s.truth["feature_names"]
    ({'no': 0, 'yes': 1}, 1, ('x', 'colour=blue', 'colour=red'))

    """
    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    raw, source_name = _read_bytes(path_or_buffer, max_bytes)
    parquet = raw[:4] == _PARQUET_MAGIC or source_name.lower().endswith((".parquet", ".pq"))
    if parquet:
        df = pd.read_parquet(io.BytesIO(raw))
    else:
        try:
            df = pd.read_csv(io.BytesIO(raw), nrows=max_rows + 1)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise ValueError(f"{source_name} could not be read as CSV: {exc}") from exc
    if len(df) > max_rows:
        raise ValueError(f"{source_name} has more than max_rows={max_rows} rows")
    columns = [str(c) for c in df.columns]
    df.columns = columns
    if label not in columns:
        listed = ", ".join(repr(c) for c in columns)
        raise ValueError(f"label column {label!r} not found; the columns are: {listed}")
    n = len(df)
    if n < chunk_size:
        raise ValueError(f"{source_name} has {n} rows, fewer than one chunk of {chunk_size}")
    missing = df.isna().to_numpy()
    if missing.any():
        row, col = (int(i) for i in np.argwhere(missing)[0])
        what = "label" if columns[col] == label else "feature"
        raise ValueError(
            f"missing value (NaN) in {what} column {columns[col]!r} at {_where(row, parquet)}"
        )

    label_values = df[label].to_numpy()
    if label_values.dtype.kind == "f":  # NaN is rejected above: non-finite means infinite
        infinite = np.flatnonzero(np.isinf(label_values))
    else:  # floats can hide in an object column (Parquet); other kinds hold none
        infinite = np.flatnonzero([isinstance(v, float | np.floating) and not np.isfinite(v)
                                   for v in label_values] if label_values.dtype.kind == "O"
                                  else [])
    if infinite.size:
        raise ValueError(
            f"non-finite value {label_values[infinite[0]]} in label column {label!r} at "
            f"{_where(infinite[0], parquet)}"
        )
    classes = _sorted_values(label_values)
    if len(classes) < 2:
        raise ValueError(
            f"label column {label!r} has a single class ({classes[0]!r}); "
            "a stream needs two or more"
        )
    mapping = {c: i for i, c in enumerate(classes)}
    y = np.array(
        [mapping[v.item() if isinstance(v, np.generic) else v] for v in df[label].to_numpy()],
        dtype=np.int64,
    )

    blocks: list[NDArray[np.float64] | OneHot] = []
    feature_names: list[str] = []
    for column in columns:
        if column != label:
            block, names = _encode_column(column, df[column], parquet, max_categories)
            blocks.append(block)
            feature_names.extend(names)
    if not blocks:
        raise ValueError(f"{source_name} has no feature columns besides the label {label!r}")

    n_chunks = n // chunk_size
    dropped = n - n_chunks * chunk_size
    rows = encode_rows(blocks, y, chunk_size)
    d = rows.n_features
    note = f"; the last {dropped} rows (a partial chunk) are dropped" if dropped else ""
    info = StreamInfo(
        name=name,
        title=f"User data: {name}",
        description=f"{n} rows of {source_name}, label {label!r}: {n_chunks} chunks of "
        f"{chunk_size}{note}.",
        kind="user",
        chunk_size=chunk_size,
        n_chunks=n_chunks,
        n_features=d,
        feature_shape=(d,),
        n_classes=len(classes),
        source=source_name,
        licence="user-supplied",
        ground_truth="none: drift points unknown; label mapping in truth['label_mapping']",
    )
    truth: dict[str, object] = {
        "label_mapping": mapping,
        "dropped_rows": dropped,
        "feature_names": tuple(feature_names),
        "label_column": label,
        "n_rows": n,
    }
    return Stream(
        name=name,
        seed=0,
        info=info,
        chunk_size=chunk_size,
        n_chunks=n_chunks,
        n_classes=len(classes),
        feature_shape=(d,),
        drift_chunks=None,
        truth=truth,
        source=rows,
    )

"""A user's CSV or Parquet table as a stream: numeric columns as is, categorical one-hot."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import IO, Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from pudd_core._validation import ParameterError, check_column_names, check_positive_int
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
            raise ParameterError(
                "upload", f"{path.name} is {size} bytes, more than max_bytes={max_bytes}")
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
        raise ParameterError("upload", f"{name} is more than max_bytes={max_bytes} bytes")
    return raw, name


_MAX_PARQUET_BYTES = 2_000_000_000  # uncompressed data a Parquet file may declare
_BATCH_ROWS = 65_536
Format = Literal["auto", "csv", "parquet"]


def _looks_parquet(raw: bytes) -> bool:
    """A Parquet file starts and ends with ``PAR1`` (a CSV whose header starts so does not)."""
    return len(raw) >= 12 and raw[:4] == _PARQUET_MAGIC and raw[-4:] == _PARQUET_MAGIC


def _choose_format(fmt: str, raw: bytes, source_name: str) -> bool:
    """True for Parquet: the caller's choice, else the file name, else the content."""
    if fmt not in ("auto", "csv", "parquet"):
        raise ParameterError("format", f"format must be 'auto', 'csv' or 'parquet', got {fmt!r}",
                             ("auto", "csv", "parquet"))
    if fmt != "auto":
        return fmt == "parquet"
    lower = source_name.lower()
    if lower.endswith((".parquet", ".pq")):
        return True
    if lower.endswith((".csv", ".txt", ".tsv")):
        return False
    return _looks_parquet(raw)


#: How every reader of the project reads a CSV's cells (this stream reader, the monitor's
#: log reader): only an empty cell is missing; ``NA``, ``None``, ``null``, ``n/a`` are text
#: (class names such as NA for North America), never NaN.
CSV_MISSING: dict[str, Any] = {"keep_default_na": False, "na_values": [""]}


def _read_parquet(raw: bytes, source_name: str, max_rows: int) -> pd.DataFrame:
    """Check the Parquet metadata (rows, size, names, types), then read in bounded batches."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(io.BytesIO(raw))
    except (pa.ArrowException, OSError) as exc:
        raise ParameterError(
            "upload", f"{source_name} could not be read as Parquet ({exc}); if it is a CSV, "
                      "read it as CSV") from None
    meta = pf.metadata
    if meta.num_rows > max_rows:
        raise ParameterError(
            "upload", f"{source_name} has {meta.num_rows} rows, more than max_rows={max_rows}")
    declared = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    if declared > _MAX_PARQUET_BYTES:
        raise ParameterError(
            "upload", f"{source_name} declares {declared} bytes of uncompressed data, more than "
                      f"{_MAX_PARQUET_BYTES}; use a smaller file")
    schema = pf.schema_arrow
    check_column_names([str(n) for n in schema.names], source_name)
    for field in schema:
        t = field.type
        if pa.types.is_nested(t) or pa.types.is_dictionary(t) and pa.types.is_nested(t.value_type):
            raise ParameterError(
                "upload", f"column {field.name!r} of {source_name} holds {t} values (lists or "
                          "records); each cell must hold one number, text or boolean")
    frames = []
    try:
        for batch in pf.iter_batches(batch_size=_BATCH_ROWS):
            try:
                frames.append(batch.to_pandas())
            except (KeyError, TypeError, ValueError):  # damaged pandas metadata: go without
                frame = batch.to_pandas(ignore_metadata=True)
                frames.append(frame.drop(columns=[c for c in frame.columns
                                                  if str(c).startswith("__index_level_")]))
    except (pa.ArrowException, OSError, KeyError, TypeError) as exc:
        raise ParameterError("upload", f"{source_name} is a damaged Parquet file "
                                       f"({type(exc).__name__}: {exc})") from None
    if not frames:
        return schema.empty_table().to_pandas()
    return pd.concat(frames, ignore_index=True)


def _csv_problem(raw: bytes, source_name: str) -> str | None:
    """Why ``raw`` is not a UTF-8 text file, if it is not: for a message that says what to do."""
    head = raw[:65_536]
    if not head.strip():
        return f"{source_name} is empty: a CSV needs a header row and data rows"
    if head[:2] == b"\x1f\x8b":
        return f"{source_name} is gzip-compressed; decompress it (gunzip) and use the CSV inside"
    if head[:4] == b"PK\x03\x04":
        return (f"{source_name} is a ZIP archive (an Excel .xlsx?); export the sheet as CSV "
                "(UTF-8)")
    nul = head.count(b"\x00")
    alternating = min(head[0::2].count(0), head[1::2].count(0)) == 0  # ASCII as UTF-16
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or (nul and nul >= len(head) // 3 and alternating):
        return f"{source_name} is UTF-16 text; save it as UTF-8 CSV"
    if _looks_parquet(raw):
        return f"{source_name} is a Parquet file, not a CSV; read it as Parquet"
    if nul:
        return (f"{source_name} is a binary file (it contains NUL bytes), not a CSV; export your "
                "table as UTF-8 CSV")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not a character cut at the end of the sample
            return (f"{source_name} is not UTF-8 text (byte 0x{head[exc.start]:02x} at position "
                    f"{exc.start}); save it as UTF-8 CSV")
    return None


def _header(raw: bytes) -> list[str]:
    import csv

    text = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", newline="")
    try:
        return next(csv.reader(text))
    except StopIteration:
        return []
    except (csv.Error, UnicodeDecodeError):
        return []


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _headerless(header: list[str]) -> bool:
    """A first row of numbers only (not column names 0, 1, 2, ... as pandas writes them)."""
    cells = [h.strip() for h in header]
    if not cells or not all(_is_number(c) for c in cells):
        return False
    return cells != [str(i) for i in range(len(cells))]


def _first_long_row(raw: bytes, width: int) -> tuple[int, int] | None:
    import csv

    text = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", errors="replace", newline="")
    reader = csv.reader(text)
    for row in reader:
        if len(row) > width:
            return reader.line_num, len(row)
    return None


def csv_header(raw: bytes, source_name: str = "the file") -> list[str]:
    r"""The header row of a CSV file's bytes, after the checks every CSV gets.

    Raises :class:`ParameterError` (``param="upload"``) for a file that is binary,
    compressed, UTF-16 or Parquet, has duplicate column names or no header row.

    Examples
    --------
    >>> csv_header(b"a,y,y\n1,2,3\n")
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: the file has duplicate column names 'y': ...
    >>> csv_header(b"0.5,1.25,0\n0.7,1.1,1\n")
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: the first row of the file (0.5, 1.25, 0) holds only ...
    """
    problem = _csv_problem(raw, source_name)
    if problem:
        raise ParameterError("upload", problem)
    header = _header(raw)
    if header:
        check_column_names([h.strip() for h in header], source_name)
        if _headerless(header):
            raise ParameterError(
                "upload", f"the first row of {source_name} ({', '.join(header[:4])}"
                          f"{', ...' if len(header) > 4 else ''}) holds only numbers: the file "
                          "seems to have no header row; add a first row naming the columns")
    return header


def _read_csv(raw: bytes, source_name: str, max_rows: int) -> pd.DataFrame:
    import warnings

    header = csv_header(raw, source_name)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            # empty cells are missing; "NA", "None", "null" are text (class names), not NaN
            return pd.read_csv(io.BytesIO(raw), nrows=max_rows + 1, index_col=False,
                               **CSV_MISSING)
    except pd.errors.ParserWarning:
        long = _first_long_row(raw, len(header))
        where = f"line {long[0]} has {long[1]} fields" if long else "a row has more fields"
        raise ParameterError(
            "upload", f"{source_name}: {where} but the header names {len(header)} columns; add "
                      "the missing column names or check the separator") from None
    except pd.errors.ParserError as exc:
        import re

        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if m:
            raise ParameterError(
                "upload", f"{source_name}: line {m[2]} has {m[3]} fields but the header names "
                          f"{m[1]} columns; add the missing column names or check the separator"
            ) from None
        raise ParameterError("upload", f"{source_name} could not be read as CSV: {exc}") from None
    except pd.errors.EmptyDataError:
        raise ParameterError("upload", f"{source_name} is empty: a CSV needs a header row and "
                                       "data rows") from None
    except UnicodeDecodeError as exc:
        raise ParameterError(
            "upload", f"{source_name} is not UTF-8 text (byte at position {exc.start}); save it "
                      "as UTF-8 CSV") from None


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
            raise ParameterError(
                "upload",
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
            raise ParameterError(
                "upload",
                f"column {name!r} holds values of type {odd.__name__}, which cannot be encoded "
                "(only numbers, strings and booleans can)"
            )
        as_number = pd.to_numeric(col.astype(str), errors="coerce")
        n_numbers = int(as_number.notna().sum())
        if 2 * n_numbers >= len(col) and n_numbers < len(col):  # numbers with a few stray words
            row = int(np.flatnonzero(as_number.isna().to_numpy())[0])
            raise ParameterError(
                "upload",
                f"column {name!r} is mostly numeric but has the non-numeric value "
                f"{values[row]!r} at {_where(row, parquet)}; fix or remove it"
            )
        cats, codes = np.unique(values.astype(str), return_inverse=True)
        if len(cats) > max_categories:
            raise ParameterError(
                "upload",
                f"column {name!r} has {len(cats)} distinct text values, more than "
                f"max_categories={max_categories} to one-hot encode (an identifier or free text?)"
            )
        return OneHot(codes.astype(np.int64), len(cats)), [f"{name}={c}" for c in cats]
    raise ParameterError(
                "upload",
        f"column {name!r} has type {dtype}, which cannot be encoded as numbers; convert it to "
        "numbers or text first"
    )


def _sorted_values(values: NDArray[Any]) -> list[Any]:
    distinct = {v.item() if isinstance(v, np.generic) else v for v in values}
    try:
        return sorted(distinct)
    except TypeError:  # mixed types: order by text
        return sorted(distinct, key=str)


def _read_table(path_or_buffer: Source, label: str, chunk_size: int, *, format: Format,
                max_rows: int, max_bytes: int) -> tuple[pd.DataFrame, str, bool]:
    """The file's table with text column names, its name and whether it is Parquet.

    Refuses what no stream can come from: an unreadable or too large file, duplicate names,
    no ``label`` column, fewer rows than one chunk, a missing value anywhere.
    """
    raw, source_name = _read_bytes(path_or_buffer, max_bytes)
    parquet = _choose_format(format, raw, source_name)
    df = (_read_parquet if parquet else _read_csv)(raw, source_name, max_rows)
    del raw
    if len(df) > max_rows:
        raise ParameterError("upload", f"{source_name} has more than max_rows={max_rows} rows")
    columns = [str(c) for c in df.columns]
    check_column_names(columns, source_name)  # 1 and "1" in Parquet are one name here
    df.columns = columns
    if label not in columns:
        listed = ", ".join(repr(c) for c in columns)
        raise ParameterError("label",
                             f"label column {label!r} not found; the columns are: {listed}")
    n = len(df)
    if n < chunk_size:
        raise ParameterError(
            "chunk_size", f"{source_name} has {n} rows, fewer than one chunk of {chunk_size}")
    missing = df.isna().to_numpy()
    if missing.any():
        row, col = (int(i) for i in np.argwhere(missing)[0])
        what = "label" if columns[col] == label else "feature"
        raise ParameterError(
            "label" if what == "label" else "upload",
            f"missing value (NaN) in {what} column {columns[col]!r} at {_where(row, parquet)}"
        )
    return df, source_name, parquet


def _encode_labels(label_values: NDArray[Any], label: str,
                   parquet: bool) -> tuple[dict[Any, int], NDArray[np.int64]]:
    """Class value -> 0 .. C - 1 in sorted order, and each row's class index.

    Refuses an infinite value, non-integer numbers (a continuous column) and a single class.
    """
    if label_values.dtype.kind == "f":  # _read_table refuses NaN: non-finite means infinite
        infinite = np.flatnonzero(np.isinf(label_values))
    else:  # floats can hide in an object column (Parquet); other kinds hold none
        infinite = np.flatnonzero([isinstance(v, float | np.floating) and not np.isfinite(v)
                                   for v in label_values] if label_values.dtype.kind == "O"
                                  else [])
    if infinite.size:
        raise ParameterError(
            "label",
            f"non-finite value {label_values[infinite[0]]} in label column {label!r} at "
            f"{_where(infinite[0], parquet)}"
        )
    if label_values.dtype.kind == "f":
        fractional = np.flatnonzero(label_values != np.round(label_values))
        if fractional.size:
            distinct = len(np.unique(label_values))
            first = int(fractional[0])
            raise ParameterError(
                "label",
                f"label column {label!r} holds non-integer numbers ({distinct} distinct values, "
                f"e.g. {float(label_values[first])!r} at {_where(first, parquet)}): "
                "it looks continuous (a measurement or regression target), and PUDD needs class "
                "labels; pick the column that holds the classes, or bin the values first")
    classes = _sorted_values(label_values)
    if len(classes) < 2:
        raise ParameterError(
            "label",
            f"label column {label!r} has a single class ({classes[0]!r}); "
            "a stream needs two or more"
        )
    mapping = {c: i for i, c in enumerate(classes)}
    y = np.array(
        [mapping[v.item() if isinstance(v, np.generic) else v] for v in label_values],
        dtype=np.int64,
    )
    return mapping, y


def stream_from_csv(
    path_or_buffer: Source,
    *,
    label: str,
    chunk_size: int = 1000,
    name: str = "user",
    max_rows: int = 1_000_000,
    max_bytes: int = 200_000_000,
    max_categories: int = 1000,
    format: Format = "auto",
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
    format
        ``"csv"`` or ``"parquet"``: how to read the file, whatever its first bytes. ``"auto"``
        goes by the file name (``.parquet``, ``.pq``; ``.csv``), else by the content (a
        Parquet file starts and ends with ``PAR1``).

    Raises
    ------
    ParameterError
        A ``ValueError`` whose ``param`` is ``"upload"`` (the file), ``"label"`` or
        ``"chunk_size"``, with what is wrong and what to do: duplicate column names, a row
        longer than the header, a header-less file, a binary, compressed or UTF-16 file,
        a continuous or single-class label, too many rows (a Parquet file's row count is
        checked from its metadata before any data is read), missing values.

    Examples
    --------
    >>> csv = "x,colour,y\n1.5,red,no\n2.0,blue,yes\n0.5,red,yes\n"
    >>> s = stream_from_csv(io.StringIO(csv), label="y", chunk_size=2)
    >>> s.chunk(0)
    (array([[1.5, 0. , 1. ], [2. , 1. , 0. ]]), array([0, 1]))
    >>> s.truth["label_mapping"], s.truth["dropped_rows"], s.truth["feature_names"]
    ({'no': 0, 'yes': 1}, 1, ('x', 'colour=blue', 'colour=red'))

    """
    chunk_size = check_positive_int("chunk_size", chunk_size)
    df, source_name, parquet = _read_table(path_or_buffer, label, chunk_size, format=format,
                                           max_rows=max_rows, max_bytes=max_bytes)
    n = len(df)
    mapping, y = _encode_labels(df[label].to_numpy(), label, parquet)
    classes = list(mapping)
    blocks: list[NDArray[np.float64] | OneHot] = []
    feature_names: list[str] = []
    for column in df.columns:
        if column != label:
            block, names = _encode_column(column, df[column], parquet, max_categories)
            blocks.append(block)
            feature_names.extend(names)
    if not blocks:
        raise ParameterError(
            "label",f"{source_name} has no feature columns besides the label {label!r}")

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
        seed=0,
        info=info,
        drift_chunks=None,
        truth=truth,
        source=rows,
    )

"""Reading a prediction log: which columns mean what, the first rows, batches, guesses."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from pudd_core._validation import ParameterError, check_column_names
from pudd_core.monitoring._fields import COMPRESSIONS, LOG_SHAPES

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BATCH_ROWS", "LogFormat", "Shape", "batches", "check_source", "compression_of",
           "estimate_rows", "guess_columns", "head_bytes", "log_columns", "name_of",
           "read_log_head", "shape_of"]

#: Rows read per batch (bounded memory: a batch of a 10-class log is about 10 MB).
BATCH_ROWS = 131_072


@dataclass(frozen=True)
class LogFormat:
    """Which columns of a prediction log mean what.

    The forms (see :mod:`pudd_core.monitoring`): ``label`` with the probability columns, named
    by ``proba_prefix`` (``<prefix><class>``) or listed in ``proba_columns`` in class order
    with ``classes`` their label values (default ``0 .. K-1``); or the shortcut ``p_true``
    (the probability of the true class) with ``correct`` (0/1) or ``pred`` (the predicted
    label, compared with ``label``). ``time_column`` holds the timestamps for time windows.

    A log that keeps only the score of the predicted class (a Hugging Face pipeline's
    ``label`` and ``score``) lacks what PUDD needs, the probability of the *true* class,
    except for a binary model: there it is the score where the prediction is right and one
    minus it where it is wrong. ``binary_top_score`` names that column, with ``pred`` (the
    predicted label) and ``label`` (the true one); a third class in either is refused.

    A binary model may log one probability column, as scikit-learn's ``predict_proba[:, 1]``:
    P(positive class). ``positive_label`` names the positive class's label value; without it,
    a single ``<prefix><class>`` column names it, else it is inferred from the labels where
    that is unambiguous (0/1, -1/1, False/True). ``pred`` (the model's decisions) or
    ``correct`` may accompany any form: then they, not the arg-max, say which predictions are
    wrong.

    A serving stack may log every class's probabilities as one array per row: ``proba_array``
    names that column (a JSON lines field ``"proba": [0.1, 0.9]``, a Parquet ``list<float>``
    column, or a CSV cell holding a JSON array ``"[0.1, 0.9]"``), its places in the order of
    ``classes`` (default ``0 .. K-1``, K the arrays' length).

    How the time column is written: ``time_format`` (the strftime format of text that is not
    ISO 8601) or ``time_unit`` (what numbers count: ``"s"``, ``"ms"``, ``"us"``, ``"ns"``,
    ``"year"``, ``"number"``); neither is ever guessed.

    A format as given may name a prefix; :meth:`resolve` checks it against the log's columns
    and returns the format as read (``proba_columns`` and ``classes`` filled in, no prefix).
    Each field is an entry of :data:`~pudd_core.monitoring.LOG_FIELDS`, the table from which
    the command line's flags and the Monitor page's controls are made
    (:meth:`from_options` reads their values).

    Examples
    --------
    >>> LogFormat(label="y", proba_prefix="p_").resolve(["y", "p_a", "p_b", "ts"])
    LogFormat(label='y', proba_prefix=None, proba_columns=('p_a', 'p_b'), classes=('a', 'b'), \
p_true=None, correct=None, pred=None, time_column=None, positive_label=None, \
binary_top_score=None, proba_array=None, time_format=None, time_unit=None)
    >>> LogFormat(label="y", proba_prefix="score").resolve(["y", "score"]).proba_columns
    ('score',)
    """

    label: str | None = None
    proba_prefix: str | None = None
    proba_columns: tuple[str, ...] = ()
    classes: tuple[str, ...] = ()  # each probability column's label value, as text
    p_true: str | None = None
    correct: str | None = None
    pred: str | None = None
    time_column: str | None = None
    positive_label: str | None = None
    binary_top_score: str | None = None
    proba_array: str | None = None
    time_format: str | None = None
    time_unit: str | None = None

    def __post_init__(self) -> None:
        if self.positive_label is not None and not isinstance(self.positive_label, str):
            object.__setattr__(self, "positive_label", str(self.positive_label))
        for name in ("label", "proba_prefix", "p_true", "correct", "pred", "time_column",
                     "binary_top_score", "proba_array"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise ParameterError(name, f"{name} must be a column name (text), got "
                                           f"{value!r}")
        for name in ("proba_columns", "classes"):
            value = getattr(self, name)
            if value is None:
                value = ()
            if isinstance(value, str):
                raise ParameterError(name, f"{name} must be a list of names, got the text "
                                           f"{value!r}")
            object.__setattr__(self, name, tuple(
                c if name == "classes" else _column_name(name, c) for c in value))
        object.__setattr__(self, "classes", tuple(str(c) for c in self.classes))

    @property
    def columns(self) -> list[str]:
        """Every column read from the file, once each."""
        names = [self.label, *self.proba_columns, self.proba_array, self.p_true, self.correct,
                 self.pred, self.time_column, self.binary_top_score]
        return list(dict.fromkeys(n for n in names if n is not None))

    def resolve(self, names: Sequence[str]) -> LogFormat:
        """The format as read from a log with columns ``names``; a clear error if it cannot be.

        Raises
        ------
        ParameterError
            For a column the log does not have, no or two probability forms, a prefix that
            matches fewer than two columns, or ``classes`` that do not match the columns.
        """
        return replace(_resolve(names, self), time_format=self.time_format,
                       time_unit=self.time_unit)

    @classmethod
    def from_options(cls, values: Mapping[str, Any]) -> LogFormat:
        """The format that the options of :data:`~pudd_core.monitoring.LOG_FIELDS` give.

        ``values`` maps field names to what a user typed or chose (the command line's
        flags, the page's controls): ``None`` is not given, a list field is comma-separated
        text (spaces around each name dropped; empty text: no list). Other text is taken as
        it is, so an empty value is refused by name as the library refuses it. Names outside
        the table are ignored (the command line's other options).

        Examples
        --------
        >>> LogFormat.from_options({"label": "y", "proba_columns": "p_a, p_b",
        ...                         "classes": "a,b", "pred": None, "alpha": 0.1}).as_python()
        "LogFormat(label='y', proba_columns=('p_a', 'p_b'), classes=('a', 'b'))"
        """
        from pudd_core.monitoring._fields import LOG_FIELDS

        given: dict[str, Any] = {}
        for f in LOG_FIELDS:
            value = values.get(f.name)
            if value is None or (f.kind in ("columns", "values") and isinstance(value, str)
                                 and not value.strip()):
                continue
            if f.kind in ("columns", "values") and isinstance(value, str):
                parts = [v.strip() for v in value.split(",")]
                value = tuple(v for v in parts if v) if f.kind == "columns" else tuple(parts)
            given[f.name] = value
        return cls(**given)

    def as_python(self) -> str:
        """The format as Python code: the fields given, by keyword.

        Examples
        --------
        >>> LogFormat(label="y", proba_prefix="p_", time_unit="ms").as_python()
        "LogFormat(label='y', proba_prefix='p_', time_unit='ms')"
        """
        given = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                 if getattr(self, f.name) != f.default]
        return f"LogFormat({', '.join(given)})"


def _column_name(param: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ParameterError(param, f"{param} must list column names (text), got {value!r}")
    return value


# --- reading --------------------------------------------------------------------------------
JSON_LINES_SUFFIXES = next((*s.suffixes, *s.also) for s in LOG_SHAPES if s.kind == "jsonl")


@dataclass(frozen=True)
class Shape:
    """How a log file is written: ``"csv"``, ``"jsonl"`` or ``"parquet"``, and compressed how.

    ``compression`` is pandas' name for it (``"gzip"``, ``"bz2"``, ``"xz"``, ``"zstd"``) or
    None. Told from the bytes (compression, Parquet's ``PAR1``, a JSON object's ``{``) and the
    name (``.jsonl``, ``.ndjson``), so an upload without a name reads as a path does.
    """

    kind: str
    compression: str | None = None


def _peek(source: Any, n: int) -> bytes:
    """The first ``n`` bytes of a path or a seekable binary file (left where it was)."""
    if isinstance(source, str | os.PathLike):
        with open(source, "rb") as fh:
            return fh.read(n)
    pos = source.tell()
    head = source.read(n)
    source.seek(pos)
    return head.encode("utf-8") if isinstance(head, str) else bytes(head)


def _decompressed(source: Any, compression: str) -> Any:
    """A binary file object reading ``source`` decompressed (the caller closes it)."""
    import bz2
    import gzip
    import lzma

    fh = source if not isinstance(source, str | os.PathLike) else open(source, "rb")  # noqa: SIM115
    if fh is source:
        fh.seek(0)
    if compression == "gzip":
        return gzip.GzipFile(fileobj=fh, mode="rb")
    if compression == "bz2":
        return bz2.BZ2File(fh, "rb")
    if compression == "xz":
        return lzma.LZMAFile(fh, "rb")
    import zstandard  # type: ignore[import-not-found]  # (optional: _check_zstd asks first)

    return zstandard.ZstdDecompressor().stream_reader(fh, closefd=fh is not source)


def _check_zstd(name: str) -> None:
    try:
        import zstandard  # noqa: F401
    except ImportError:
        raise ParameterError("source", f"{name} is zstd-compressed, and reading zstd needs the "
                                       "Python package zstandard, which is not installed: "
                                       "`pip install zstandard`, or decompress the file "
                                       "(`zstd -d`) and give the log inside") from None


def head_bytes(source: Any, n: int = 1 << 16) -> bytes:
    """The first ``n`` bytes of a log as written, decompressed if it is compressed."""
    compression = compression_of(_peek(source, 8))
    if compression is None:
        return _peek(source, n)
    if compression == "zstd":
        _check_zstd(name_of(source))
    pos = None if isinstance(source, str | os.PathLike) else source.tell()
    fh = _decompressed(source, compression)
    try:
        return bytes(fh.read(n))
    except (OSError, EOFError, ValueError) as exc:
        raise ParameterError("source", f"{name_of(source)} is {compression}-compressed but "
                                       f"cannot be decompressed ({exc})") from None
    finally:
        fh.close()
        if pos is not None:
            source.seek(pos)


def compression_of(first: bytes) -> str | None:
    r"""The pandas name of the compression whose magic bytes ``first`` starts with, or None.

    Examples
    --------
    >>> compression_of(b"\x1f\x8b\x08"), compression_of(b"label,proba_0")
    ('gzip', None)
    """
    return next((name for magic, name, _ in COMPRESSIONS if first.startswith(magic)), None)


def shape_of(source: Any) -> Shape:
    r"""How a log (a path or an open binary file) is written; a clear error if it cannot be read.

    Examples
    --------
    >>> shape_of(io.BytesIO(b'{"label": 1, "proba": [0.2, 0.8]}\n'))
    Shape(kind='jsonl', compression=None)
    """
    name = name_of(source)
    first = _peek(source, 8)
    compression = compression_of(first)
    head = head_bytes(source, 1 << 12) if compression else first
    if head[:4] == b"PAR1":
        if compression:
            raise ParameterError("source", f"{name} is a {compression}-compressed Parquet file: "
                                           "Parquet compresses its own columns; decompress the "
                                           "file and give the .parquet inside")
        return Shape("parquet")
    stem = name.lower()
    for _, _, suffix in COMPRESSIONS:
        stem = stem.removesuffix(suffix)
    if stem.endswith(JSON_LINES_SUFFIXES) or head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{":
        return Shape("jsonl", compression)
    return Shape("csv", compression)


#: How every JSON lines log is read: values as written (no type guessing from the column's
#: name or content: a column named ``date`` stays text, read by the time options), floats to
#: the last bit as a CSV's ``float_precision="round_trip"``.
JSON_LINES: dict[str, Any] = {"lines": True, "dtype": False, "convert_dates": False,
                              "keep_default_dates": False, "precise_float": True}


def name_of(source: Any) -> str:
    """A log's name in messages and results: its path, a file object's name, or "DataFrame"."""
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    if type(source).__name__ == "DataFrame":
        return "DataFrame"
    return str(getattr(source, "name", "uploaded log"))


def check_source(source: Any) -> None:
    """Refuse what is no log: not a path, an open binary file, bytes or a DataFrame."""
    if isinstance(source, str | os.PathLike | bytes) or type(source).__name__ == "DataFrame":
        return
    if not (hasattr(source, "read") and hasattr(source, "seek")):
        raise ParameterError("source", "the log must be a path, an open binary file, bytes "
                                       f"or a pandas DataFrame, got {source!r:.80} "
                                       f"(a {type(source).__name__})")


def _open(source: Any) -> Any:
    check_source(source)
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


def log_columns(source: Any) -> list[str]:
    """A log's column names, as :func:`read_log_head` gives them.

    A Parquet file's come from its schema alone: no row group is decoded (reading one row
    would decode the first row group, a million rows, of every column).

    Examples
    --------
    >>> import pandas as pd
    >>> buf = io.BytesIO()
    >>> pd.DataFrame({"label": [1], "proba_0": [0.2]}, index=[7]).to_parquet(buf)
    >>> log_columns(buf) == list(read_log_head(buf, 1).columns)
    True
    """
    import pandas as pd

    rows = 1
    if not isinstance(source, pd.DataFrame):
        src = _open(source)
        kind = shape_of(src).kind
        # a JSON lines row may leave out a key (a label not there yet): the first rows' keys
        rows = 200 if kind == "jsonl" else 1
        if kind == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            try:
                schema = pq.ParquetFile(src).schema_arrow
            except pa.ArrowException:
                pass  # read_log_head says why
            else:
                check_column_names([str(c) for c in schema.names], name_of(source))
                # the pandas metadata may turn columns into the index, as when reading rows
                return [str(c) for c in schema.empty_table().to_pandas().columns]
            finally:
                if not isinstance(src, str | os.PathLike) and hasattr(src, "seek"):
                    src.seek(0)
    return [str(c) for c in read_log_head(source, rows).columns]


def read_log_head(source: Any, n_rows: int = 200) -> pd.DataFrame:
    r"""The first ``n_rows`` rows of a log (CSV, JSON lines or Parquet, or a DataFrame).

    A CSV or JSON lines file may be compressed (gzip, bz2, xz, zstd: told by its first bytes).

    Examples
    --------
    >>> read_log_head(io.BytesIO(b"label,proba_0,proba_1\n1,0.2,0.8\n"), 5).shape
    (1, 3)
    >>> read_log_head(io.BytesIO(b'{"label": 1, "proba": [0.2, 0.8]}\n'), 5).shape
    (1, 2)
    """
    import pandas as pd
    import pyarrow as pa

    from pudd_core.streams.user import CSV_MISSING, csv_header

    name = name_of(source)
    if isinstance(source, pd.DataFrame):
        check_column_names([str(c) for c in source.columns], name)
        return source.head(n_rows)
    src = _open(source)
    try:
        shape = shape_of(src)
        if shape.kind == "parquet":
            import pyarrow.parquet as pq

            pf = pq.ParquetFile(src)
            check_column_names([str(c) for c in pf.schema_arrow.names], name)
            batch = next(pf.iter_batches(batch_size=n_rows), None)
            if batch is None:
                return pf.schema_arrow.empty_table().to_pandas()
            return pa.Table.from_batches([batch]).to_pandas()
        if shape.kind == "jsonl":
            frame = pd.read_json(src, nrows=n_rows, compression=shape.compression,
                                 **JSON_LINES)
            check_column_names([str(c) for c in frame.columns], name)
            return frame
        # the stream reader's checks (binary, duplicates) on the first line as written
        csv_header(_first_line(src, shape.compression), name)
        return pd.read_csv(src, nrows=n_rows, compression=shape.compression, **CSV_MISSING)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError,
            pa.ArrowException, EOFError) as exc:
        raise ParameterError("source", f"{name} is neither a readable CSV, JSON lines nor "
                                       f"Parquet file: {' '.join(str(exc).split())}") from None
    except ValueError as exc:  # (ParameterError is one: let it through)
        if isinstance(exc, ParameterError):
            raise
        raise ParameterError("source", f"{name} could not be read as JSON lines (one JSON "
                                       "object per line): "
                                       f"{' '.join(str(exc).split())}") from None
    finally:
        if not isinstance(src, str | os.PathLike) and hasattr(src, "seek"):
            src.seek(0)


def estimate_rows(source: Any) -> int:
    """The log's rows: exact for a DataFrame or Parquet, estimated from the size for a text log.

    A compressed log's size is guessed (four times the file's) unless it holds less than
    64 KiB of text: the estimate is for a progress bar only.
    """
    import pandas as pd

    if isinstance(source, pd.DataFrame):
        return len(source)
    src = _open(source)
    try:
        shape = shape_of(src)
        if shape.kind == "parquet":
            import pyarrow.parquet as pq

            return int(pq.ParquetFile(src).metadata.num_rows)
        if isinstance(src, str | os.PathLike):
            size = os.path.getsize(src)
        else:
            pos = src.tell()
            size = src.seek(0, os.SEEK_END)
            src.seek(pos)
        sample = head_bytes(src, 1 << 16)
        if shape.compression is not None:  # the whole text, or a guess: a ratio of 4
            size = len(sample) if len(sample) < (1 << 16) else 4 * size
        lines = max(sample.count(b"\n"), 1)
        header = 1 if shape.kind == "csv" else 0
        return max(int(size / (max(len(sample), 1) / lines)) - header, 0)
    finally:
        if not isinstance(src, str | os.PathLike) and hasattr(src, "seek"):
            src.seek(0)


#: The longest header line read to check a CSV's column names.
MAX_HEADER_BYTES = 1 << 24


def _first_line(src: Any, compression: str | None) -> bytes:
    """A CSV's first line (its header), as bytes, decompressed; the reader is left where it was."""
    if compression is not None:
        head = head_bytes(src, MAX_HEADER_BYTES)
        cut = head.find(b"\n")
        return head if cut < 0 else head[:cut + 1]
    if isinstance(src, str | os.PathLike):
        with open(src, "rb") as fh:
            return fh.readline(MAX_HEADER_BYTES)
    pos = src.tell()
    line = src.readline(MAX_HEADER_BYTES)
    src.seek(pos)
    return line.encode("utf-8") if isinstance(line, str) else bytes(line)


def batches(source: Any, columns: list[str], batch_rows: int,
            labels: Sequence[str | None] = (),
            as_text: Sequence[str] = ()) -> Iterator[tuple[int, Mapping[str, pd.Series]]]:
    """``(rows, column -> Series)`` per batch; Parquet columns come without a DataFrame.

    ``as_text``: columns a CSV's cells are kept as written in (ids: ``017`` is not ``17``).

    ``labels``: columns of class labels; a Parquet text column among them comes
    dictionary-encoded (a pandas Categorical: a few distinct strings, not a Python string
    per row, which cost a text-labelled log about a third of its time). A Parquet list column
    (an array of probabilities per row) comes as an Arrow-backed Series, read without a
    Python object per row.
    """
    import pandas as pd

    if isinstance(source, pd.DataFrame):
        for start in range(0, len(source), batch_rows):
            part = source.iloc[start:start + batch_rows]
            yield len(part), part
        return
    src = _open(source)
    shape = shape_of(src)
    if shape.kind == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        def series(col: Any) -> pd.Series:
            if pa.types.is_list(col.type) or pa.types.is_large_list(col.type) \
                    or pa.types.is_fixed_size_list(col.type):
                return pd.Series(pd.arrays.ArrowExtensionArray(col))
            return col.to_pandas()

        pf = pq.ParquetFile(src)
        coded = {c for c in labels if c is not None}
        schema = pf.schema_arrow
        text = [c for c in coded if c in schema.names
                and (pa.types.is_string(schema.field(c).type)
                     or pa.types.is_large_string(schema.field(c).type))]
        if text:  # decoded straight into a dictionary: about 5x cheaper than encoding after
            pf = pq.ParquetFile(src, read_dictionary=text)
        # one thread: decoding row groups in parallel keeps several in memory at once (peak
        # RSS 501 MB against 425 MB on a 10M-row log) and is no faster here (7.7 s vs 7.4 s)
        for batch in pf.iter_batches(batch_size=batch_rows, columns=columns, use_threads=False):
            out = {}
            for c in columns:
                col = batch.column(c)
                if c in coded and (pa.types.is_string(col.type)
                                   or pa.types.is_large_string(col.type)):
                    col = col.dictionary_encode()
                out[c] = series(col)
            yield batch.num_rows, out
        return
    if shape.kind == "jsonl":
        with pd.read_json(src, chunksize=batch_rows, compression=shape.compression,
                          **JSON_LINES) as reader:
            for part in reader:  # a key left out of every row of a batch: missing values
                yield len(part), part.reindex(columns=columns)
        return
    from pudd_core.streams.user import CSV_MISSING

    reader = pd.read_csv(src, usecols=columns, chunksize=batch_rows,
                         float_precision="round_trip", compression=shape.compression,
                         dtype=dict.fromkeys(as_text, str) or None, **CSV_MISSING)
    with reader:
        for part in reader:
            yield len(part), part


# --- columns --------------------------------------------------------------------------------
#: Usual names (lower case) of a log's columns in common tools: scikit-learn, NannyML
#: (``y_true``, ``y_pred``, ``y_pred_proba``, ``y_pred_proba_<class>``, ``timestamp``),
#: Evidently (``target``, ``prediction``, ``datetime``), Arize (``actual_label``,
#: ``prediction_label``, ``prediction_score``), whylogs (``output_target``,
#: ``output_prediction``, ``output_score``), SageMaker (``label``, ``probability``).
_LABEL_NAMES = ("label", "labels", "y", "y_true", "target", "true", "truth", "class", "actual",
                "actual_label", "output_target", "ground_truth")
_PRED_NAMES = ("y_pred", "pred", "prediction", "predicted", "prediction_label",
               "predicted_label", "output_prediction")
_SCORE_NAMES = ("y_pred_proba", "proba", "probability", "prediction_score", "score",
                "output_score", "p", "p_positive", "prediction")
_TIME_NAMES = ("ts", "time", "timestamp", "date", "datetime", "event_time", "created_at",
               "prediction_timestamp")
_SEPARATORS = "_-.:"


def _first(lower: Mapping[str, str], names: Sequence[str],
           skip: Sequence[str | None] = ()) -> str | None:
    return next((lower[n] for n in names if n in lower and lower[n] not in skip), None)


def _probability_prefix(numeric: Sequence[str]) -> tuple[int, str] | None:
    """The prefix shared by most columns (then the longest): ends in a separator or "prob".

    Linear in the total length of the names: each name adds one to each of its prefixes.
    """
    counts: dict[str, int] = {}
    for c in numeric:
        low = c.lower()
        for cut in range(1, len(c)):
            if c[cut - 1] in _SEPARATORS or low.startswith(("proba", "prob")):
                counts[c[:cut]] = counts.get(c[:cut], 0) + 1
    best = max(((n, p) for p, n in counts.items() if n >= 2),
               key=lambda t: (t[0], len(t[1])), default=None)
    return best


def guess_columns(head: pd.DataFrame) -> dict[str, Any]:
    """Guess the label, probability, decision and time columns of a log from its first rows.

    Returns ``{"label", "proba_prefix", "proba_column", "proba_array", "p_true", "correct",
    "pred", "time_column", "why"}``; ``why`` says in words how each guess was made (the app shows
    it). The names looked for are those of common monitoring tools (scikit-learn, NannyML,
    Evidently, Arize, whylogs, SageMaker); the cost is linear in the number of columns.

    Examples
    --------
    >>> import pandas as pd
    >>> g = guess_columns(pd.DataFrame({"ts": ["2024-01-01"], "y": [1], "p_a": [0.2],
    ...                                 "p_b": [0.8]}))
    >>> g["label"], g["proba_prefix"], g["time_column"]
    ('y', 'p_', 'ts')
    >>> g = guess_columns(pd.DataFrame({"y_true": [1, 0], "y_pred_proba": [0.8, 0.4],
    ...                                 "y_pred": [1, 0]}))
    >>> g["label"], g["proba_column"], g["pred"]
    ('y_true', 'y_pred_proba', 'y_pred')
    >>> g = guess_columns(pd.DataFrame({"target": [1, 0], "prediction": [0.8, 0.4]}))
    >>> g["label"], g["proba_column"], g["pred"]
    ('target', 'prediction', None)
    >>> guess_columns(pd.DataFrame({"label": [1], "proba": [[0.2, 0.8]]}))["proba_array"]
    'proba'
    """
    import pandas as pd

    cols = [str(c) for c in head.columns]
    why: list[str] = []
    out: dict[str, Any] = {"label": None, "proba_prefix": None, "proba_column": None,
                           "proba_array": None, "p_true": None, "correct": None, "pred": None,
                           "time_column": None}
    lower: dict[str, str] = {}
    for c in cols:
        lower.setdefault(c.lower(), c)
    out["label"] = _first(lower, _LABEL_NAMES)
    if out["label"]:
        why.append(f"label: column `{out['label']}` (a usual name for the true label)")

    def unit(c: str) -> bool:
        col = head[c]
        if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            return False
        values = col.dropna()
        return bool(values.between(0, 1).all() and not values.isin((0, 1)).all())

    numeric = [c for c in cols if c != out["label"] and unit(c)]
    # decisions: a usual name, but not probabilities (Evidently's `prediction` may be either)
    out["pred"] = _first(lower, _PRED_NAMES, (out["label"], *numeric))
    best = _probability_prefix(numeric)
    held = [c for c in cols if c != out["label"] and _arrays_in(head[c])]
    if held:
        out["proba_array"] = _first({c.lower(): c for c in held}, _SCORE_NAMES) or held[0]
        why.append(f"probabilities: the arrays in column `{out['proba_array']}` (one per row, "
                   "a place per class, in the order 0 .. K-1 unless the classes are named)")
    elif best is not None:
        out["proba_prefix"] = best[1]
        why.append(f"probabilities: the {best[0]} columns starting with `{best[1]}` (numbers in "
                   "[0, 1] sharing a prefix; the rest of each name is its class)")
    elif "p_true" in lower:
        out["p_true"] = lower["p_true"]
        if "correct" in lower:
            out["correct"] = lower["correct"]
        why.append("the two-column shortcut: `p_true` (probability of the true class) with "
                   f"`{out['correct'] or out['pred']}`")
    else:
        low_numeric = {c.lower(): c for c in numeric}
        single = _first(low_numeric, _SCORE_NAMES)
        if single is not None:
            out["proba_column"] = single
            why.append(f"probabilities: the single column `{single}`, read as P(positive class) "
                       "of a binary model (a usual name for it, numbers in [0, 1])")
    if out["pred"] and out["correct"] is None:
        why.append(f"the model's decisions: column `{out['pred']}` (a usual name for them)")
    for c in cols:
        if c.lower() in _TIME_NAMES or pd.api.types.is_datetime64_any_dtype(head[c]):
            out["time_column"] = c
            why.append(f"time: column `{c}` (a usual name for a timestamp, or a date type)")
            break
    out["why"] = why
    return out


def _arrays_in(col: pd.Series) -> bool:
    """Whether a column's first cells are arrays: lists, NumPy arrays, or JSON array text."""
    import numpy as np

    values = col.dropna()
    if not len(values):
        return False
    first = values.iloc[0]
    if isinstance(first, str):
        return bool(values.astype(str).str.lstrip().str.startswith("[").all())
    return isinstance(first, list | tuple | np.ndarray)


def _resolve(names: Sequence[str], fmt: LogFormat) -> LogFormat:
    label, proba_prefix, p_true = fmt.label, fmt.proba_prefix, fmt.p_true
    proba_columns = fmt.proba_columns or None
    classes = fmt.classes or None
    correct, pred, time_column = fmt.correct, fmt.pred, fmt.time_column
    have = set(names)

    def need(col: str | None, param: str) -> None:
        if col is not None and col not in have:
            raise ParameterError(param, f"the log has no column {col!r} (given as {param}); "
                                        f"its columns: {', '.join(names)}")

    top, array = fmt.binary_top_score, fmt.proba_array
    forms = sum(x is not None for x in (proba_prefix, proba_columns, p_true, top, array))
    if forms != 1:
        raise ParameterError(
            "proba_prefix", "say where the probabilities are: exactly one of proba_prefix "
            "(--proba-prefix), proba_columns (--proba-columns), proba_array (--proba-array, "
            "one column holding an array of every class's probabilities), p_true (--p-true) "
            "or, for a binary model's score of its predicted class, binary_top_score "
            "(--binary-top-score)")
    need(label, "label")
    need(time_column, "time_column")
    need(correct, "correct")
    need(pred, "pred")
    if correct is not None and pred is not None:
        raise ParameterError("correct", "give the model's decisions (pred, --pred) or a 0/1 "
                                        "correct column (--correct), not both")
    if pred is not None and label is None:
        raise ParameterError("label", "with pred, give the label column too (--label)")
    positive = fmt.positive_label
    if top is not None:
        need(top, "binary_top_score")
        if label is None or pred is None:
            raise ParameterError("binary_top_score", "binary_top_score (--binary-top-score) "
                                                     "is the score of the predicted class: give "
                                                     "the predicted label (pred, --pred) and "
                                                     "the true one (label, --label) with it")
        if positive is not None:
            raise ParameterError("positive_label", "positive_label (--positive-label) goes "
                                                   "with a single P(positive) column; "
                                                   "binary_top_score needs none")
        return LogFormat(label=label, pred=pred, binary_top_score=top,
                         time_column=time_column)
    if array is not None:
        need(array, "proba_array")
        if label is None:
            raise ParameterError("label", "name the label column (--label)")
        if positive is not None:
            raise ParameterError("positive_label", "positive_label (--positive-label) goes "
                                                   "with a single P(positive) column; the "
                                                   "array of proba_array (--proba-array) "
                                                   "holds every class's probability")
        if array in (label, time_column, correct, pred):
            raise ParameterError("proba_array", f"proba_array {array!r} is also given as "
                                                "another column; name the array column")
        places = tuple(classes or ())
        if places and (len(places) < 2 or len(set(places)) != len(places)):
            raise ParameterError("classes", "classes must give one distinct label value per "
                                            "place of the probability arrays of proba_array "
                                            f"(--proba-array), two or more, got {list(places)}")
        return LogFormat(label=label, proba_array=array, classes=places,
                         time_column=time_column, correct=correct, pred=pred)
    if p_true is not None:
        need(p_true, "p_true")
        if correct is None and pred is None:
            raise ParameterError("correct", "with p_true, give exactly one of correct "
                                            "(--correct) or pred (--pred)")
        if positive is not None:
            raise ParameterError("positive_label", "positive_label (--positive-label) goes with "
                                                   "a single probability column, not p_true")
        return LogFormat(label=label, p_true=p_true, correct=correct, pred=pred,
                         time_column=time_column)
    if label is None:
        raise ParameterError("label", "name the label column (--label)")
    taken = (label, time_column, correct, pred)
    cls: tuple[str, ...]
    if proba_prefix is not None:
        if not proba_prefix:
            raise ParameterError("proba_prefix", "proba_prefix must not be empty")
        cols = tuple(c for c in names if c.startswith(proba_prefix) and c != proba_prefix
                     and c not in taken)
        if not cols and proba_prefix in names and proba_prefix not in taken:
            cols, cls = (proba_prefix,), ()  # the column itself: P(positive)
        elif not cols:
            raise ParameterError(
                "proba_prefix", f"the log has no column starting with {proba_prefix!r}; name "
                "one probability column per class (or one column, P(positive), for a binary "
                f"model); its columns: {', '.join(names)}")
        else:
            cls = tuple(c[len(proba_prefix):] for c in cols)
    else:
        cols = tuple(proba_columns or ())
        if len(set(cols)) != len(cols):
            raise ParameterError("proba_columns", "proba_columns must name distinct columns, "
                                                  f"got {list(cols)}")
        for c in cols:
            need(c, "proba_columns")
        cls = tuple(str(c) for c in (classes if classes is not None else
                                     (range(len(cols)) if len(cols) > 1 else ())))
        if len(cols) > 1 and (len(cls) != len(cols) or len(set(cls)) != len(cls)):
            raise ParameterError("classes", f"classes must give one distinct label value per "
                                            f"probability column ({len(cols)}), got {list(cls)}")
    if len(cols) == 1:
        if positive is None and len(cls) == 1:
            positive = cls[0]  # proba_<class> alone, or classes=[<class>]: P(<class>)
        elif positive is not None and len(cls) == 1 and cls[0] != positive:
            raise ParameterError("positive_label", f"the single probability column "
                                 f"{cols[0]!r} is P({cls[0]!r}), but positive_label is "
                                 f"{positive!r}; give one of the two")
        return LogFormat(label=label, proba_columns=cols, time_column=time_column,
                         correct=correct, pred=pred, positive_label=positive)
    if positive is not None:
        raise ParameterError("positive_label", "positive_label (--positive-label) goes with a "
                                               f"single probability column; the log has "
                                               f"{len(cols)}, one per class")
    return LogFormat(label=label, proba_columns=cols, classes=cls, time_column=time_column,
                     correct=correct, pred=pred)

"""The Stream explorer's upload: a user's CSV as a stream, and which control an error is about.

:func:`upload_name` names an upload by its content, :func:`csv_columns` reads its header,
:func:`user_stream` makes it a chunked stream, and :func:`error_field` says which control of
the page a refusal is about (:data:`Field`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
from typing import TYPE_CHECKING, Literal, cast

from pudd_core import _validation
from pudd_core.streams import Stream, stream_from_csv

if TYPE_CHECKING:
    pass

__all__ = ["Field", "csv_columns", "error_field", "upload_name", "user_stream"]


Field = Literal["dataset", "classifier", "chunk_size", "n_chunks", "upload", "label"]


def upload_name(data: bytes) -> str:
    r"""The stream name of an uploaded file: ``csv-`` and 12 hex digits of its SHA-256.

    Examples
    --------
    >>> upload_name(b"x,y\n1,0\n")
    'csv-1c2774606e09'
    """
    return f"csv-{hashlib.sha256(data).hexdigest()[:12]}"


def csv_columns(data: bytes) -> tuple[str, ...]:
    r"""The column names of a CSV file's header, or a ``ValueError`` saying what is wrong.

    Examples
    --------
    >>> csv_columns(b"x0,x1,label\n1,2,0\n")
    ('x0', 'x1', 'label')
    >>> csv_columns(b"")
    Traceback (most recent call last):
    ...
    ValueError: the file is empty: a CSV needs a header row and at least one data row
    >>> csv_columns(b"a,b,c\n")
    Traceback (most recent call last):
    ...
    ValueError: the file has a header row but no data rows: a stream needs rows below the ...
    """
    import pandas as pd

    from pudd_core.streams.user import csv_header

    if not data.strip():
        raise ValueError("the file is empty: a CSV needs a header row and at least one data row")
    csv_header(data)  # binary, compressed, UTF-16, duplicate names, no header row
    try:
        frame = pd.read_csv(io.BytesIO(data), nrows=1)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"the file could not be read as CSV: {exc}") from exc
    columns = tuple(str(c) for c in frame.columns)
    if len(frame) == 0 and len(columns) >= 2:
        raise ValueError("the file has a header row but no data rows: a stream needs rows "
                         "below the header, one instance each")
    if len(columns) < 2:
        raise ValueError(f"the file has {len(columns)} column; a stream needs at least one "
                         "feature column and a label column, separated by commas")
    return columns


def user_stream(
    data: bytes, *, label: str, chunk_size: int, n_chunks: int | None = None
) -> Stream:
    r"""A user's CSV as a stream named :func:`upload_name`, cut to ``n_chunks`` if given.

    Examples
    --------
    >>> s = user_stream(b"x,y\n" + b"".join(b"%d,%d\n" % (i, i % 2) for i in range(50)),
    ...                 label="y", chunk_size=10, n_chunks=3)
    >>> s.name == upload_name(b"x,y\n" + b"".join(b"%d,%d\n" % (i, i % 2) for i in range(50)))
    True
    >>> s.n_chunks, s.info.n_chunks, s.info.kind
    (3, 3, 'user')
    """
    stream = stream_from_csv(data, label=label, chunk_size=chunk_size, name=upload_name(data),
                             format="csv")  # the uploader takes CSV files, whatever their bytes
    if n_chunks is not None and n_chunks < stream.n_chunks:
        _validation.check_positive_int("n_chunks", n_chunks)
        stream = dataclasses.replace(stream, info=dataclasses.replace(stream.info,
                                                                      n_chunks=n_chunks))
    return stream


_ADVICE: dict[str, str] = {
    "label": "Pick the column that holds the class labels.",
    "chunk_size": "Choose a smaller chunk size (or more chunks) so the stream has at least two.",
    "n_chunks": ("Choose at least two chunks (a smaller chunk size gives more), or leave the "
                 "field empty for all."),
    "classifier": "Pick one of the classifiers offered for this dataset.",
    "upload": ("Upload a comma-separated file with a header row, numeric or text feature "
               "columns and a label column, without missing values."),
    "dataset": "Pick another dataset, or provide the data files as described.",
}


def error_field(err: BaseException, *, upload: bool = False) -> tuple[Field, str]:
    """Which setting an error is about, and what to do: for placing it next to its control.

    A :class:`~pudd_core._validation.ParameterError` goes to the control of its ``param``,
    whatever its wording; any other error to the uploader (with a file) or the dataset, and
    a missing optional package (``ImportError``) to the classifier.

    Examples
    --------
    >>> error_field(_validation.ParameterError("n_chunks", "reworded at will"))[0]
    'n_chunks'
    >>> error_field(_validation.ParameterError("label", "anything"), upload=True)[0]
    'label'
    >>> error_field(ValueError("a label column, a classifier, n_chunks ..."), upload=True)[0]
    'upload'
    >>> error_field(ImportError("No module named 'torch'"))[0]
    'classifier'
    """
    fallback: Field = "upload" if upload else "dataset"
    if isinstance(err, _validation.ParameterError):
        param = _PARAM_FIELDS.get(err.param, err.param)
        field = cast(Field, param) if param in _ADVICE else fallback
    elif isinstance(err, ImportError):
        field = "classifier"
    else:
        field = fallback
    return field, _ADVICE[field]


#: library parameters whose control has another name
_PARAM_FIELDS = {"format": "upload"}

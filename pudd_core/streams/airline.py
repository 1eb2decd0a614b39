"""The airline stream: DriftSurf's sparse file when present, else the 14-column ARFF substitute.

The paper's file (spec §4.2) is looked for as ``airline/airline.data`` in the data folder and
the cache (manifest entry ``airline_driftsurf``, no checksum); the substitute is ``airline``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import io
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from pudd_core.streams import locate
from pudd_core.streams.chunking import OneHot, SparseRows, Stream, StreamInfo, encode_rows
from pudd_core.streams.real import PAPER_ROWS, PathLike, cached_arrays, chunk_budget, real_stream

# DriftSurf's airline recipe (shared/datasets/README.md): FlightNum dropped, label ArrDelay > 0
AIRLINE_ONE_HOT = ("Year", "Month", "DayofMonth", "DayofWeek", "UniqueCarrier", "Origin", "Dest")
AIRLINE_SCALED = ("CRSDepTime", "CRSArrTime", "ActualElapsedTime", "Distance")
AIRLINE_PASSTHROUGH = ("Diverted",)
DRIFTSURF_AIRLINE_FEATURES = 679  # spec §4.2: bias + 678 one-hot dims


def _read_text(path: Path) -> str:
    with path.open("rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8")


def read_arff(text: str) -> pd.DataFrame:
    r"""Read a plain ARFF text (names from ``@attribute`` lines, rows after ``@data``).

    Examples
    --------
    >>> read_arff("@relation r\n@attribute a numeric\n@attribute b {x,y}\n@data\n1,x\n2,y\n")
       a  b
    0  1  x
    1  2  y

    """
    head, sep, body = text.partition("\n@data")
    if not sep:
        head, sep, body = text.partition("\n@DATA")
    if not sep:
        raise ValueError("not an ARFF file: no @data line")
    names = [line.split()[1] for line in head.splitlines() if line.lower().startswith("@attribute")]
    body = body.split("\n", 1)[1] if "\n" in body else ""
    return pd.read_csv(
        io.StringIO(body),
        header=None,
        names=names,
        comment="%",
        skipinitialspace=True,
        na_values=["?"],
    )


def parse_airline_arff(path: Path) -> dict[str, NDArray[Any]]:
    r"""One-hot encode the 14-column airline ARFF with DriftSurf's recipe (601 dims here).

    Columns in schema order: Year, Month, DayofMonth, DayofWeek, UniqueCarrier, Origin, Dest
    one-hot over the categories present in the file (sorted); CRSDepTime, CRSArrTime,
    ActualElapsedTime, Distance divided by their maximum; Diverted as is; FlightNum dropped;
    label ArrDelay > 0.

    Examples
    --------
    >>> import tempfile
    >>> arff = ["@relation r"] + [f"@attribute {c} numeric" for c in (
    ...     "Year Month DayofMonth DayofWeek CRSDepTime CRSArrTime UniqueCarrier FlightNum "
    ...     "ActualElapsedTime Origin Dest Distance Diverted ArrDelay").split()]
    >>> arff += ["@data", "2007,1,1,1,10,738,NW,336,270,LAX,DTW,1979,0,-4",
    ...          "2007,1,2,1,15,633,US,1198,259,PHX,PHL,2075,0,25"]
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "a.arff").write_text("\n".join(arff))
    ...     arrays = parse_airline_arff(Path(d) / "a.arff")
    >>> len(arrays["feature_names"]), arrays["y"].tolist()
    (16, [0, 1])
    >>> [str(n) for n in arrays["feature_names"][:5]]
    ['Year=2007', 'Month=1', 'DayofMonth=1', 'DayofMonth=2', 'DayofWeek=1']

    """
    df = read_arff(_read_text(path))
    missing = [
        c
        for c in (*AIRLINE_ONE_HOT, *AIRLINE_SCALED, *AIRLINE_PASSTHROUGH, "ArrDelay")
        if c not in df.columns
    ]
    if missing:
        raise ValueError(f"{path}: not a 14-column airline ARFF, missing {missing}")
    if df.isna().any().any():
        raise ValueError(f"{path}: missing values in the airline file")
    blocks: list[NDArray[np.float64] | OneHot] = []
    names: list[str] = []
    for col in df.columns:
        if col in AIRLINE_ONE_HOT:
            cats, codes = np.unique(df[col].to_numpy(), return_inverse=True)
            blocks.append(OneHot(codes.astype(np.int64), len(cats)))
            names.extend(f"{col}={c}" for c in cats)
        elif col in AIRLINE_SCALED:
            v = df[col].to_numpy(dtype=np.float64)
            blocks.append(v / v.max())
            names.append(f"{col}/max")
        elif col in AIRLINE_PASSTHROUGH:
            blocks.append(df[col].to_numpy(dtype=np.float64))
            names.append(col)
    y = (df["ArrDelay"].to_numpy(dtype=np.float64) > 0).astype(np.int64)
    rows = encode_rows(blocks, y, chunk_size=1)
    return {
        "indptr": rows.indptr,
        "indices": rows.indices,
        "data": rows.data,
        "y": y,
        "feature_names": np.array(names),
    }


def parse_driftsurf_sparse(
    path: Path | IO[str], *, max_rows: int, n_features: int = DRIFTSURF_AIRLINE_FEATURES
) -> dict[str, NDArray[Any]]:
    r"""Read DriftSurf's sparse ``index:value,...,label`` file (the paper's airline.data).

    As the authors' loader: each row gets a bias ``{0: 1}``, labels -1 -> 0 and +1 -> 1, the
    width is fixed (679); only the first ``max_rows`` lines are read.

    Examples
    --------
    >>> arrays = parse_driftsurf_sparse(io.StringIO("2:1,5:0.5,-1\n3:1,1\n"), max_rows=2,
    ...                                 n_features=6)
    >>> SparseRows(arrays["indptr"], arrays["indices"], arrays["data"], 6, arrays["y"], 2).chunk(0)
    (array([[1. , 0. , 1. , 0. , 0. , 0.5], [1. , 0. , 0. , 1. , 0. , 0. ]]), array([0, 1]))

    """
    indptr, indices, data, labels = [0], [], [], []
    with contextlib.ExitStack() as stack:
        lines: IO[str]
        if not isinstance(path, Path):
            lines = path
        elif _is_gzip(path):
            lines = stack.enter_context(gzip.open(path, "rt", encoding="utf-8"))
        else:
            lines = stack.enter_context(path.open(encoding="utf-8"))
        for i, line in enumerate(lines):
            if i >= max_rows:
                break
            *pairs, label = line.strip().split(",")
            row = {0: 1.0}  # the authors' bias feature
            for pair in pairs:
                key, _, value = pair.partition(":")
                j = int(key)
                if not 0 <= j < n_features:
                    raise ValueError(
                        f"line {i + 1}: feature index {j} is outside 0..{n_features - 1}"
                    )
                row[j] = float(value)
            if label.strip() not in ("-1", "0", "1", "+1"):
                raise ValueError(f"line {i + 1}: label {label!r} is not -1 or +1")
            labels.append(1 if int(label) > 0 else 0)
            for j in sorted(row):
                indices.append(j)
                data.append(row[j])
            indptr.append(len(indices))
    return {
        "indptr": np.array(indptr, dtype=np.int64),
        "indices": np.array(indices, dtype=np.int64),
        "data": np.array(data, dtype=np.float64),
        "y": np.array(labels, dtype=np.int64),
    }


def _is_gzip(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(2) == b"\x1f\x8b"


def _is_arff(path: Path) -> bool:
    """Whether a file (gzipped or not) starts like an ARFF file (``%`` or ``@`` lines)."""
    with gzip.open(path, "rb") if _is_gzip(path) else path.open("rb") as f:
        head = f.read(4096)
    first = head.lstrip().splitlines()[0] if head.strip() else b""
    return first.startswith((b"%", b"@"))


def paper_file(data_dir: PathLike | None = None) -> Path | None:
    """Return DriftSurf's ``airline.data`` from the data folder or the cache, if there.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "airline").mkdir()
    ...     _ = (Path(d) / "airline" / "airline.data").write_text("3:1,-1")
    ...     paper_file(d).relative_to(d).as_posix()
    'airline/airline.data'

    """
    entry = locate.read_manifest().get("airline_driftsurf")
    return locate.find(entry, locate.data_folder(data_dir)) if entry is not None else None


def paper_card(info: StreamInfo) -> StreamInfo:
    """The airline card when the paper's sparse file is in use (679 dims, 58 chunks of 1000).

    Examples
    --------
    >>> from pudd_core.streams import get_info
    >>> card = paper_card(get_info("airline"))
    >>> card.n_chunks, card.feature_shape, "SUBSTITUTE" in card.description
    (58, (679,), False)

    """
    return dataclasses.replace(
        info,
        title="Airline delays (the paper's DriftSurf file)",
        description=(
            "The paper's airline stream: DriftSurf's sparse airline.data, one-hot encoded to "
            "679 dims (a bias plus 678); label +1 -> 1, -1 -> 0. The paper's first 58,000 "
            "rows: 58 chunks of 1000."
        ),
        n_chunks=PAPER_ROWS["airline"] // 1000,
        feature_shape=(DRIFTSURF_AIRLINE_FEATURES,),
        source="DriftSurf's airline.data (Ikonomovska airline data, US DOT BTS)",
    )


def load_airline(
    info: StreamInfo,
    *,
    seed: int,
    chunk_size: int,
    n_chunks: int | None,
    data_dir: PathLike | None = None,
    download: bool = False,
    path: PathLike | None = None,
) -> Stream:
    """Airline: the paper's sparse file if found, else the 14-column ARFF substitute (601 dims).

    Without ``path``, DriftSurf's ``airline.data`` (679 dims, first 58,000 rows as the paper)
    is used when `paper_file` finds it, the substitute otherwise. A ``path`` is recognised by
    its content: the sparse file, or any ARFF with the 14-column schema, one-hot encoded with
    DriftSurf's recipe.

    The registry calls this; users call ``load_stream("airline", ...)``.

    Examples
    --------
    >>> from pudd_core.streams import get_info
    >>> load_airline(get_info("airline"), seed=0, chunk_size=1000, n_chunks=None, path="/no/file")
    Traceback (most recent call last):
    ...
    pudd_core.streams.locate.DatasetUnavailableError: airline: the path given does not exist...

    """
    file = (paper_file(data_dir) if path is None else None) or locate.locate(
        "airline", path=path, data_dir=data_dir, download=download
    )
    if _is_arff(file):
        arrays = cached_arrays(
            "airline", file, parse_airline_arff, ("indptr", "indices", "data", "y", "feature_names")
        )
        n_features = len(arrays["feature_names"])
        truth: dict[str, object] = {
            "variant": "substitute: 14-column airline ARFF one-hot encoded with DriftSurf's recipe",
            "feature_names": tuple(str(n) for n in arrays["feature_names"]),
        }
        default_rows = len(arrays["y"])
    else:
        budget = n_chunks * chunk_size if n_chunks is not None else PAPER_ROWS["airline"]
        arrays = parse_driftsurf_sparse(file, max_rows=budget)
        n_features = DRIFTSURF_AIRLINE_FEATURES
        truth = {"variant": "DriftSurf sparse airline.data (the paper's file)"}
        default_rows = PAPER_ROWS["airline"]
        info = paper_card(info)
    y = arrays["y"]
    n = chunk_budget("airline", len(y), default_rows, chunk_size, n_chunks)
    rows = SparseRows(
        arrays["indptr"], arrays["indices"], arrays["data"], n_features, y, chunk_size
    )
    truth.update({"file": str(file), "rows_in_file": len(y)})
    return real_stream(info, rows, n, n_features, truth, seed)

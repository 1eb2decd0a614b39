"""The paper's real streams Elec2 and powersupply (spec §4.2); airline lives in `airline`.

Parsed arrays are cached as ``.npy`` under ``<cache>/parsed/``, keyed by the source file's
sha256, so a warm load only reads arrays.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from pudd_core.streams import locate
from pudd_core.streams.chunking import (
    DenseRows,
    SparseRows,
    Stream,
    StreamInfo,
)

_FORMAT = 1  # bump when a parser changes, to invalidate parsed caches

ELEC2_COLUMNS = (
    "date",
    "day",
    "period",
    "nswprice",
    "nswdemand",
    "vicprice",
    "vicdemand",
    "transfer",
)
PAPER_ROWS = {"elec2": 45_000, "powersupply": 29_000, "airline": 58_000}

PathLike = str | os.PathLike[str]


def chunk_budget(
    name: str, n_rows: int, default_rows: int, chunk_size: int, n_chunks: int | None
) -> int:
    """Count the chunks: the paper's rows by default, at most what the file holds.

    Examples
    --------
    >>> chunk_budget("elec2", 45_312, 45_312, 1000, None)  # the whole file: 45 chunks
    45
    >>> chunk_budget("elec2", 45_312, 45_312, 1000, 10)
    10
    >>> chunk_budget("elec2", 45_312, 45_312, 1000, 46)
    Traceback (most recent call last):
    ...
    ValueError: elec2: n_chunks=46 is not possible with chunk_size=1000: ... so 1 to 45 chunks
    """
    available = n_rows // chunk_size
    if n_chunks is None:
        n_chunks = min(default_rows, n_rows) // chunk_size
    if n_chunks < 1 or n_chunks > available:
        raise ValueError(
            f"{name}: n_chunks={n_chunks} is not possible with chunk_size={chunk_size}: the file "
            f"has {n_rows} rows, so 1 to {available} chunks"
        )
    return n_chunks


def cached_arrays(
    name: str,
    path: Path,
    parse: Callable[[Path], dict[str, NDArray[Any]]],
    names: tuple[str, ...],
) -> dict[str, NDArray[Any]]:
    """Parse ``path`` once; later calls read the arrays from the cache."""
    folder = locate.cache_dir() / "parsed" / f"{name}-{locate.sha256_of(path)[:16]}-v{_FORMAT}"
    cached = locate.load_arrays(folder, names)
    if cached is not None:
        return cached
    arrays = parse(path)
    locate.save_arrays(folder, arrays)
    return arrays


def real_stream(
    info: StreamInfo,
    rows: DenseRows | SparseRows,
    n_chunks: int,
    n_features: int,
    truth: dict[str, object],
    seed: int,
) -> Stream:
    """A real (or airline) stream of ``n_chunks`` from ``rows``: the card as loaded, no drifts.

    Examples
    --------
    >>> from pudd_core.streams import get_info
    >>> rows = DenseRows(np.zeros((3000, 8)), np.zeros(3000, dtype=np.int64), chunk_size=1000)
    >>> s = real_stream(get_info("elec2"), rows, 3, 8, {}, seed=0)
    >>> s.n_chunks, s.feature_shape, s.drift_chunks, s.chunk(2)[0].shape
    (3, (8,), None, (1000, 8))
    """
    return Stream(
        seed=seed,
        info=dataclasses.replace(
            info, chunk_size=rows.chunk_size, n_chunks=n_chunks, feature_shape=(n_features,)
        ),
        drift_chunks=None,
        truth=truth,
        source=rows,
    )


# --- Elec2 ---------------------------------------------------------------------------------


def parse_elec2(path: Path | IO[str]) -> dict[str, NDArray[Any]]:
    r"""Read river's ``electricity.csv`` (gzipped or not): 8 features in header order, UP -> 1.

    Examples
    --------
    >>> import io
    >>> text = "date,day,period,nswprice,nswdemand,vicprice,vicdemand,transfer,class\n"
    >>> text += "0,2,0,0.05,0.43,0.003,0.42,0.41,UP\n0,2,0.02,0.05,0.41,0.003,0.42,0.41,DOWN\n"
    >>> arrays = parse_elec2(io.StringIO(text))
    >>> arrays["X"].shape, arrays["y"].tolist()
    ((2, 8), [1, 0])

    """
    df = pd.read_csv(path)
    missing = [c for c in (*ELEC2_COLUMNS, "class") if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: not an Elec2 file, missing columns {missing}")
    # a fixed column order (the header's), not the authors' set-iteration order (spec §4.2)
    X = df[list(ELEC2_COLUMNS)].to_numpy(dtype=np.float64)
    y = (df["class"].astype(str).str.strip() == "UP").to_numpy(dtype=np.int64)
    return {"X": X, "y": y}


def river_elec2_path() -> list[Path]:
    """List where river itself keeps Elec2 (``$RIVER_DATA/Elec2/electricity.csv``).

    Examples
    --------
    >>> [p.name for p in river_elec2_path()]
    ['electricity.csv']

    """
    try:
        from river.datasets import Elec2
    except ImportError:  # pragma: no cover - river is a core dependency
        return []
    elec2: Any = Elec2  # river's constructor is untyped
    return [Path(elec2().path)]


def river_elec2_ways() -> list[str]:
    """Say how to provide Elec2 through river's data home, for the missing-file message.

    Examples
    --------
    >>> river_elec2_ways()[0].split(" (now")[0]
    'put it where river keeps it: $RIVER_DATA/Elec2/electricity.csv, uncompressed'

    """
    return [
        "put it where river keeps it: $RIVER_DATA/Elec2/electricity.csv, uncompressed "
        f"(now: {p}; RIVER_DATA defaults to ~/river_data)"
        for p in river_elec2_path()
    ]


def _fetch_elec2(entry: locate.ManifestEntry) -> Path:
    """Download Elec2 with river's own downloader, into the cache instead of river's home."""
    from river.datasets import Elec2

    target = locate.cache_dir() / "elec2" / "electricity.csv"
    # river derives the download folder from `path`; point it at our cache
    cached_elec2 = type("CachedElec2", (Elec2,), {"path": property(lambda self: target)})
    dataset = cached_elec2()
    dataset.url = entry.url or dataset.url  # the manifest names the source
    dataset.download(verbose=False)
    return target


def load_elec2(
    info: StreamInfo,
    *,
    seed: int,
    chunk_size: int,
    n_chunks: int | None,
    data_dir: PathLike | None = None,
    download: bool = False,
    path: PathLike | None = None,
) -> Stream:
    """Elec2: 45 chunks of 1000 by default (the paper's first 45,000 rows).

    The registry calls this; users call ``load_stream("elec2", ...)``.

    Examples
    --------
    >>> from pudd_core.streams import get_info
    >>> load_elec2(get_info("elec2"), seed=0, chunk_size=1000, n_chunks=None, path="/no/file")
    Traceback (most recent call last):
    ...
    pudd_core.streams.locate.DatasetUnavailableError: elec2: the path given does not exist...

    """
    file = locate.locate(
        "elec2",
        path=path,
        data_dir=data_dir,
        download=download,
        extra=river_elec2_path(),
        also=river_elec2_ways(),
        fetch=_fetch_elec2,
    )
    arrays = cached_arrays("elec2", file, parse_elec2, ("X", "y"))
    n = chunk_budget("elec2", len(arrays["y"]), PAPER_ROWS["elec2"], chunk_size, n_chunks)
    rows = DenseRows(arrays["X"], arrays["y"], chunk_size)
    truth: dict[str, object] = {
        "file": str(file),
        "rows_in_file": len(arrays["y"]),
        "feature_names": ELEC2_COLUMNS,
    }
    return real_stream(info, rows, n, len(ELEC2_COLUMNS), truth, seed)


# --- powersupply ---------------------------------------------------------------------------


def parse_powersupply(path: Path | IO[str]) -> dict[str, NDArray[Any]]:
    r"""Read the headerless ``v1,v2,hour`` file: ``[1, v1/max v1, v2/max v2]``, hour < 12 -> 1.

    The maxima are over the whole file, as the authors do (look-ahead normalisation, spec §4.2).
    One line ends with a stray comma; only the first three fields are read.

    Examples
    --------
    >>> import io
    >>> arrays = parse_powersupply(io.StringIO("100,50,3\r\n200,25,13,\r\n"))
    >>> arrays["X"].tolist(), arrays["y"].tolist()
    ([[1.0, 0.5, 1.0], [1.0, 1.0, 0.5]], [1, 0])

    """
    df = pd.read_csv(path, header=None, usecols=[0, 1, 2], names=["supply_1", "supply_2", "hour"])
    v = df[["supply_1", "supply_2"]].to_numpy(dtype=np.float64)
    X = np.column_stack([np.ones(len(v)), v / v.max(axis=0)])
    y = (df["hour"].to_numpy() < 12).astype(np.int64)
    return {"X": X, "y": y}


def load_powersupply(
    info: StreamInfo,
    *,
    seed: int,
    chunk_size: int,
    n_chunks: int | None,
    data_dir: PathLike | None = None,
    download: bool = False,
    path: PathLike | None = None,
) -> Stream:
    """Powersupply: 29 chunks of 1000 by default (the paper's first 29,000 rows).

    The registry calls this; users call ``load_stream("powersupply", ...)``.

    Examples
    --------
    >>> from pudd_core.streams import get_info
    >>> load_powersupply(get_info("powersupply"), seed=0, chunk_size=1000, n_chunks=None,
    ...                  path="/no/file")
    Traceback (most recent call last):
    ...
    pudd_core.streams.locate.DatasetUnavailableError: powersupply: the path given does not exist...

    """
    file = locate.locate("powersupply", path=path, data_dir=data_dir, download=download)
    arrays = cached_arrays("powersupply", file, parse_powersupply, ("X", "y"))
    n_rows = len(arrays["y"])
    n = chunk_budget("powersupply", n_rows, PAPER_ROWS["powersupply"], chunk_size, n_chunks)
    truth: dict[str, object] = {
        "file": str(file),
        "rows_in_file": n_rows,
        "feature_names": ("bias", "supply_1/max", "supply_2/max"),
    }
    return real_stream(info, DenseRows(arrays["X"], arrays["y"], chunk_size), n, 3, truth, seed)

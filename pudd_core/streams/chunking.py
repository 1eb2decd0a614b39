"""The shared chunk container: `Stream`, its `StreamInfo` card and the row stores behind it."""

from __future__ import annotations

import operator
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

Kind = Literal["synthetic", "real", "image", "user"]
T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class StreamInfo:
    """The registry card of a stream: what it is, its shape, where it comes from.

    Built by keyword; ``n_features`` is derived from ``feature_shape``.

    Parameters
    ----------
    name
        Registry key passed to `load_stream` (``"sea0"``, ``"elec2"``, ``"cifar10-cd"``...).
    title
        Human-readable name.
    description
        One or two sentences: how the stream is built and how it departs from the paper.
    kind
        ``"synthetic"``, ``"real"``, ``"image"`` or ``"user"``.
    seeded
        Whether the stream's data depend on ``load_stream``'s seed: a generator's draws
        (synthetic streams, CIFAR-10-CD's interest chain and image order) do, a file's rows
        (real and user streams) do not.
    chunk_size
        Default number of samples per chunk (1000, the paper's, unless given).
    n_chunks
        Default number of chunks.
    feature_shape
        Shape of one sample: ``(d,)`` for tables, ``(3, 32, 32)`` for images.
    n_classes
        Number of classes; labels are ``0 .. n_classes - 1`` (2 unless given).
    source
        Where the data come from.
    licence
        Licence or terms of the source.
    ground_truth
        What ground truth is known (drift chunks, interests, nothing).
    available
        Whether `load_stream` can serve it right now without a download.
    unavailable_reason
        Why not, and how to get it; `None` when available.

    Examples
    --------
    >>> from pudd_core.streams import get_info
    >>> info = get_info("sea0")
    >>> info.kind, info.chunk_size, info.n_chunks, info.feature_shape
    ('synthetic', 1000, 100, (3,))
    >>> get_info("cifar10-cd").n_features
    3072

    """

    name: str
    title: str
    description: str
    kind: Kind
    seeded: bool = False
    chunk_size: int = 1000
    n_chunks: int
    n_features: int = field(init=False)
    """Flat feature count, the product of ``feature_shape`` (3072 for 3 x 32 x 32 images)."""
    feature_shape: tuple[int, ...]
    n_classes: int = 2
    source: str
    licence: str
    ground_truth: str
    available: bool = True
    unavailable_reason: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "n_features", int(np.prod(self.feature_shape)))


class ChunkSource(Protocol):
    """What a `Stream` reads its chunks from (dense rows, sparse rows or images).

    Examples
    --------
    >>> rows: ChunkSource = DenseRows(np.zeros((2, 1)), np.array([0, 1]), chunk_size=1)
    >>> rows.chunk(1)
    (array([[0.]]), array([1]))

    """

    def chunk(self, t: int) -> tuple[NDArray[Any], NDArray[np.int64]]:
        """Return chunk ``t`` (already range-checked) as fresh ``(X, y)`` arrays."""
        ...


@dataclass(frozen=True, eq=False)
class DenseRows:
    """Chunks as row slices of one dense ``(n, d)`` float64 matrix.

    Examples
    --------
    >>> rows = DenseRows(np.arange(8.0).reshape(4, 2), np.array([0, 1, 1, 0]), chunk_size=2)
    >>> rows.chunk(1)
    (array([[4., 5.], [6., 7.]]), array([1, 0]))

    """

    X: NDArray[np.float64]
    y: NDArray[np.int64]
    chunk_size: int

    def chunk(self, t: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """Return chunk ``t`` as copies the caller owns."""
        rows = slice(t * self.chunk_size, (t + 1) * self.chunk_size)
        return self.X[rows].copy(), self.y[rows].astype(np.int64, copy=True)


@dataclass(frozen=True, eq=False)
class SparseRows:
    """Chunks densified on demand from CSR arrays (one-hot tables stay small in memory).

    Examples
    --------
    >>> rows = SparseRows(indptr=np.array([0, 2, 3]), indices=np.array([0, 2, 1]),
    ...                   data=np.array([1.0, 0.5, 1.0]), n_features=3,
    ...                   y=np.array([1, 0]), chunk_size=2)
    >>> rows.chunk(0)[0]
    array([[1. , 0. , 0.5], [0. , 1. , 0. ]])

    """

    indptr: NDArray[np.int64]
    indices: NDArray[np.int64]
    data: NDArray[np.float64]
    n_features: int
    y: NDArray[np.int64]
    chunk_size: int

    def chunk(self, t: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """Return chunk ``t`` as a dense float64 matrix and its labels."""
        lo, hi = t * self.chunk_size, (t + 1) * self.chunk_size
        start, stop = int(self.indptr[lo]), int(self.indptr[hi])
        counts = np.diff(self.indptr[lo : hi + 1])
        row_ids = np.repeat(np.arange(hi - lo), counts)
        X = np.zeros((hi - lo, self.n_features))
        X[row_ids, self.indices[start:stop]] = self.data[start:stop]
        return X, self.y[lo:hi].astype(np.int64, copy=True)


class _FromInfo(Generic[T]):
    """A `Stream` attribute read from its card: ``stream.n_chunks`` is ``stream.info.n_chunks``.

    Examples
    --------
    >>> from pudd_core.streams import load_stream
    >>> s = load_stream("sine", seed=0, n_chunks=2, chunk_size=3)
    >>> (s.n_chunks, s.chunk_size, s.feature_shape) == (2, 3, s.info.feature_shape)
    True
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.field = name

    def __get__(self, stream: Stream, owner: type | None = None) -> T:
        value: T = getattr(stream.info, self.field)
        return value


@dataclass(frozen=True, eq=False)
class Stream:
    """A chunked data stream with its ground truth.

    `chunk(t)` returns ``(X, y)``: ``X`` float64 ``(m, d)`` for tables or float32
    ``(m, 3, 32, 32)`` for images, ``y`` int64 in ``0 .. n_classes - 1``. Every call returns
    fresh arrays, so callers may modify them. Iterating yields the chunks in order.

    The stream's name, sizes and shape are its card's: ``stream.n_chunks`` reads
    ``stream.info.n_chunks`` (the properties below), so the two cannot disagree.

    Parameters
    ----------
    seed
        The seed the stream was drawn with (real data ignore it).
    info
        The registry card as loaded: ``chunk_size``, ``n_chunks`` and ``feature_shape`` are
        the stream's own.
    drift_chunks
        Chunk indices ``t`` where a new concept starts (first chunk of the new concept), or
        `None` when unknown (real data).
    truth
        Extra ground truth: ``"concepts"`` (synthetic), ``"transition_matrix"``,
        ``"interests"``, ``"positive_classes"`` (CIFAR-10-CD), ``"label_mapping"``,
        ``"dropped_rows"`` (user files)...
    source
        Where the chunks are read from (internal).

    Examples
    --------
    >>> from pudd_core.streams import load_stream
    >>> stream = load_stream("sea0", seed=1, n_chunks=3, chunk_size=4)
    >>> len(stream), stream.drift_chunks
    (3, ())
    >>> X, y = stream.chunk(2)
    >>> X.shape, X.dtype, y.dtype
    ((4, 3), dtype('float64'), dtype('int64'))

    """

    seed: int
    info: StreamInfo
    drift_chunks: tuple[int, ...] | None
    truth: Mapping[str, object]
    source: ChunkSource = field(repr=False)

    # the card's fields, read through (class attributes without annotation: not fields)
    name = _FromInfo[str]()  # registry name (or the user-chosen name of an uploaded file)
    chunk_size = _FromInfo[int]()  # samples per chunk
    n_chunks = _FromInfo[int]()
    n_classes = _FromInfo[int]()
    feature_shape = _FromInfo[tuple[int, ...]]()  # shape of one sample
    n_features = _FromInfo[int]()  # flat number of features (product of feature_shape)

    def chunk(self, t: int) -> tuple[NDArray[Any], NDArray[np.int64]]:
        """Return chunk ``t`` (negative ``t`` counts from the end) as ``(X, y)``."""
        t = operator.index(t)
        if t < 0:
            t += self.n_chunks
        if not 0 <= t < self.n_chunks:
            raise IndexError(f"chunk index out of range: the stream has {self.n_chunks} chunks")
        return self.source.chunk(t)

    def __iter__(self) -> Iterator[tuple[NDArray[Any], NDArray[np.int64]]]:
        for t in range(self.n_chunks):
            yield self.source.chunk(t)

    def __len__(self) -> int:
        return self.n_chunks


@dataclass(frozen=True)
class OneHot:
    """A categorical column as codes ``0 .. width - 1``, one-hot encoded by `encode_rows`.

    Examples
    --------
    >>> OneHot(np.array([1, 0]), width=2).width
    2

    """

    codes: NDArray[np.int64]
    width: int


def encode_rows(
    blocks: Sequence[NDArray[np.float64] | OneHot], y: NDArray[np.int64], chunk_size: int
) -> SparseRows:
    """Lay columns side by side, one-hot blocks expanded in place, as `SparseRows`.

    A numeric block takes one output column, a `OneHot` block ``width`` columns; each block
    stores one entry per row, so the CSR arrays stay as small as the raw table.

    Examples
    --------
    >>> rows = encode_rows([np.array([0.5, 2.0]), OneHot(np.array([2, 0]), 3)],
    ...                    np.array([0, 1]), chunk_size=2)
    >>> rows.n_features
    4
    >>> rows.chunk(0)[0]
    array([[0.5, 0. , 0. , 1. ], [2. , 1. , 0. , 0. ]])

    """
    n = len(y)
    indices = np.empty((n, len(blocks)), dtype=np.int64)
    data = np.empty((n, len(blocks)), dtype=np.float64)
    offset = 0
    for j, block in enumerate(blocks):
        if isinstance(block, OneHot):
            indices[:, j] = offset + block.codes
            data[:, j] = 1.0
            offset += block.width
        else:
            indices[:, j] = offset
            data[:, j] = block
            offset += 1
    return SparseRows(
        indptr=np.arange(0, n * len(blocks) + 1, len(blocks), dtype=np.int64),
        indices=indices.ravel(),
        data=data.ravel(),
        n_features=offset,
        y=y,
        chunk_size=chunk_size,
    )


def readonly(array: NDArray[Any]) -> NDArray[Any]:
    """Mark an array read-only (ground-truth arrays are shared, never mutated) and return it.

    Examples
    --------
    >>> readonly(np.zeros(2)).flags.writeable
    False

    """
    array.setflags(write=False)
    return array

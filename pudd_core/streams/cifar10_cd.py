"""CIFAR-10-CD: CIFAR-10 training images whose positive classes drift by a Markov chain (spec §5).

`markov_interest_stream` is the pure chunking-and-labelling kernel; `load_cifar10_cd` applies
it to the training images found and decoded by `pudd_core.streams.images`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pudd_core.streams.chunking import Stream, StreamInfo, readonly
from pudd_core.streams.images import PathLike, Progress, cifar10_train_subset, subset_rows

# spec §5: the authors' torchvision Normalize
MEAN = (0.4914, 0.4822, 0.4465)
STD = (0.2023, 0.1994, 0.2010)


@dataclass(frozen=True)
class MarkovInterestResult:
    """A chunked, interest-labelled image stream (indices into the image set, not pixels).

    Attributes
    ----------
    indices
        ``(n_chunks, chunk_size)`` positions in the image set; within a chunk, class by class.
    classes
        ``(n_chunks, chunk_size)`` original class of every image.
    labels
        ``(n_chunks, chunk_size)`` 1 when the image's class is an interest of that chunk.
    transition_matrix
        ``(n_classes, n_classes)`` row-stochastic Markov matrix *M*.
    interests
        ``(n_chunks, n_slots)`` interest slots in force for each chunk.
    positive_classes
        Sorted distinct interests per chunk.
    drift_chunks
        Chunks whose positive-class set differs from the previous chunk's.

    Examples
    --------
    >>> res = markov_interest_stream(np.arange(20) % 10, chunk_size=10, seed=0)
    >>> res.labels.shape, res.interests[0].tolist()
    ((2, 10), [0, 1, 2])

    """

    indices: NDArray[np.int64]
    classes: NDArray[np.int64]
    labels: NDArray[np.int64]
    transition_matrix: NDArray[np.float64]
    interests: NDArray[np.int64]
    positive_classes: tuple[tuple[int, ...], ...]
    drift_chunks: tuple[int, ...]


def markov_interest_stream(
    labels: ArrayLike,
    *,
    chunk_size: int = 500,
    n_chunks: int | None = None,
    n_classes: int | None = None,
    initial_interests: Sequence[int] = (0, 1, 2),
    stay_weight: float = 100.0,
    seed: int | np.random.SeedSequence | None = None,
) -> MarkovInterestResult:
    r"""Chunk a labelled image set and label it by drifting interests, as the authors do.

    Each chunk takes ``chunk_size / n_classes`` images of every class, sampled without
    replacement from the images not used yet (so every image is used at most once, exactly
    once when the classes fill the chunks). The Markov matrix has U[0, 1) entries plus
    ``stay_weight`` on the diagonal, rows normalised. Chunk *t* is labelled with the interests
    in force, then every slot moves independently by its row of *M* (spec §5).

    Parameters
    ----------
    labels
        Class of every image, ``0 .. n_classes - 1``.
    chunk_size
        Images per chunk, a multiple of ``n_classes`` (500 in the paper: 50 per class).
    n_chunks
        Number of chunks; by default as many as the rarest class fills (100 for CIFAR-10).
    n_classes
        Number of classes; ``max(labels) + 1`` by default.
    initial_interests
        Interest slots of chunk 0 ({airplane, automobile, bird} in the paper).
    stay_weight
        Added to the diagonal before normalising (100 in the paper, so P(stay) is about 0.957).
    seed
        Seed (or `SeedSequence`) from which the matrix, the sampling and the moves are spawned.

    Examples
    --------
    >>> labels = np.repeat([0, 1, 2, 3], 6)          # 4 classes x 6 images
    >>> res = markov_interest_stream(labels, chunk_size=8, initial_interests=(0, 1),
    ...                              stay_weight=1.0, seed=7)
    >>> res.indices.shape, res.classes[0].tolist()
    ((3, 8), [0, 0, 1, 1, 2, 2, 3, 3])
    >>> res.interests.tolist(), res.drift_chunks
    ([[0, 1], [2, 1], [1, 1]], (1, 2))
    >>> res.labels[1].tolist()
    [0, 0, 1, 1, 1, 1, 0, 0]

    """
    y = np.asarray(labels)
    if y.ndim != 1 or not np.issubdtype(y.dtype, np.integer) or (y.size and y.min() < 0):
        raise ValueError("labels must be a 1-D array of non-negative integers")
    k = int(n_classes if n_classes is not None else y.max() + 1)
    if y.size and y.max() >= k:
        raise ValueError(f"labels must lie in 0..{k - 1}")
    if chunk_size < k or chunk_size % k:
        raise ValueError(f"chunk_size={chunk_size} must be a positive multiple of n_classes={k}")
    per_class = chunk_size // k
    max_chunks = int(np.bincount(y, minlength=k).min()) // per_class
    if n_chunks is None:
        n_chunks = max_chunks
    if not 1 <= n_chunks <= max_chunks:
        raise ValueError(
            f"n_chunks={n_chunks} is not possible: the rarest class fills {max_chunks} chunks "
            f"of {per_class} images per class"
        )
    slots = np.array(initial_interests, dtype=np.int64)
    if slots.ndim != 1 or slots.size == 0 or slots.min() < 0 or slots.max() >= k:
        raise ValueError(f"initial_interests must be classes in 0..{k - 1}")
    if not stay_weight >= 0:
        raise ValueError(f"stay_weight must be >= 0, got {stay_weight}")

    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    matrix_ss, sample_ss, move_ss = ss.spawn(3)
    # sampling without replacement from the unused images = one permutation per class, in blocks
    sample_rng = np.random.default_rng(sample_ss)
    blocks = [
        sample_rng.permutation(np.flatnonzero(y == c))[: n_chunks * per_class].reshape(
            n_chunks, per_class
        )
        for c in range(k)
    ]
    indices = np.concatenate(blocks, axis=1).astype(np.int64)  # class-ordered, as the authors
    classes = y[indices].astype(np.int64)

    matrix = np.random.default_rng(matrix_ss).random((k, k)) + stay_weight * np.eye(k)
    matrix /= matrix.sum(axis=1, keepdims=True)
    move_rng = np.random.default_rng(move_ss)
    interests = np.empty((n_chunks, slots.size), dtype=np.int64)
    interests[0] = slots
    for t in range(1, n_chunks):
        for s in range(slots.size):  # slots move independently and may collide
            interests[t, s] = move_rng.choice(k, p=matrix[interests[t - 1, s]])
    out = np.stack([np.isin(classes[t], interests[t]) for t in range(n_chunks)]).astype(np.int64)
    positive = tuple(tuple(int(c) for c in np.unique(row)) for row in interests)
    drifts = tuple(t for t in range(1, n_chunks) if positive[t] != positive[t - 1])
    return MarkovInterestResult(
        indices=readonly(indices),
        classes=readonly(classes),
        labels=readonly(out),
        transition_matrix=readonly(matrix),
        interests=readonly(interests),
        positive_classes=positive,
        drift_chunks=drifts,
    )


def normalise_images(images: NDArray[np.uint8]) -> NDArray[np.float32]:
    """HWC uint8 images -> normalised CHW float32, as ``ToTensor()`` then ``Normalize``.

    Examples
    --------
    >>> x = normalise_images(np.full((1, 2, 2, 3), 255, dtype=np.uint8))
    >>> x.shape, x.dtype, [round(float(v), 4) for v in x[0, :, 0, 0]]
    ((1, 3, 2, 2), dtype('float32'), [2.5141, 2.5968, 2.7537])

    """
    # transpose the uint8 pixels first (4x less memory to move), then the same float32 steps as
    # torchvision: x / 255, minus mean, divided by std
    x = np.ascontiguousarray(images.transpose(0, 3, 1, 2)).astype(np.float32)
    x /= np.float32(255)
    x -= np.asarray(MEAN, dtype=np.float32)[:, None, None]
    x /= np.asarray(STD, dtype=np.float32)[:, None, None]
    return x


@dataclass(frozen=True, eq=False)
class ImageChunks:
    """Chunks of normalised images, built on demand from the uint8 image set.

    ``indices[t]`` are the rows of ``images`` that make chunk ``t`` (the image set, or the
    subset of it the stream uses).

    Examples
    --------
    >>> chunks = ImageChunks(np.zeros((4, 2, 2, 3), dtype=np.uint8),
    ...                      indices=np.array([[3, 1], [0, 2]]), labels=np.array([[1, 0], [0, 0]]))
    >>> X, y = chunks.chunk(0)
    >>> X.shape, X.dtype, y.tolist()
    ((2, 3, 2, 2), dtype('float32'), [1, 0])

    """

    images: NDArray[np.uint8]
    indices: NDArray[np.int64]
    labels: NDArray[np.int64]

    def chunk(self, t: int) -> tuple[NDArray[np.float32], NDArray[np.int64]]:
        """Return chunk ``t``: float32 ``(m, 3, H, W)`` images and 0/1 labels."""
        return normalise_images(self.images[self.indices[t]]), self.labels[t].copy()


def interest_stream(
    info: StreamInfo,
    images: NDArray[np.uint8],
    labels: NDArray[np.int64],
    *,
    seed: int,
    chunk_size: int = 500,
    n_chunks: int | None = None,
    initial_interests: Sequence[int] = (0, 1, 2),
    stay_weight: float = 100.0,
    image_source: str = "",
    image_order: str = "",
    positions: NDArray[np.int64] | None = None,
) -> Stream:
    """Wrap `markov_interest_stream` over an ``(N, H, W, 3)`` uint8 image set as a `Stream`.

    ``labels`` label every image of the set; ``images`` are all of them, or, with
    ``positions`` (sorted), only the images at those positions, which must hold every image
    the stream uses (`~pudd_core.streams.images.cifar10_train_subset` decodes only those).

    Examples
    --------
    >>> from pudd_core.streams import get_info
    >>> images = np.zeros((40, 4, 4, 3), dtype=np.uint8)
    >>> s = interest_stream(get_info("cifar10-cd"), images, np.arange(40) % 10, seed=0,
    ...                     chunk_size=20, initial_interests=(0,))
    >>> s.n_chunks, s.feature_shape, s.chunk(0)[0].shape
    (2, (3, 4, 4), (20, 3, 4, 4))

    """
    res = markov_interest_stream(
        labels,
        chunk_size=chunk_size,
        n_chunks=n_chunks,
        n_classes=10,
        initial_interests=initial_interests,
        stay_weight=stay_weight,
        seed=np.random.SeedSequence(seed),
    )
    n = len(res.indices)
    shape = (3, int(images.shape[1]), int(images.shape[2]))
    rows = res.indices if positions is None else subset_rows(positions, res.indices)
    truth: dict[str, object] = {
        "transition_matrix": res.transition_matrix,
        "interests": res.interests,
        "positive_classes": res.positive_classes,
        "image_classes": res.classes,
        "image_indices": res.indices,
        "image_source": image_source,
        "image_order": image_order,
    }
    return Stream(
        seed=seed,
        info=dataclasses.replace(info, chunk_size=chunk_size, n_chunks=n, feature_shape=shape),
        drift_chunks=res.drift_chunks,
        truth=truth,
        source=ImageChunks(images, readonly(rows.astype(np.int64)), res.labels),
    )


def load_cifar10_cd(
    info: StreamInfo,
    *,
    seed: int,
    chunk_size: int,
    n_chunks: int | None,
    data_dir: PathLike | None = None,
    download: bool = False,
    progress: Progress | None = None,
    path: PathLike | None = None,
    initial_interests: Sequence[int] = (0, 1, 2),
    stay_weight: float = 100.0,
) -> Stream:
    """CIFAR-10-CD: 100 chunks of 500 training images with Markov interest drift (spec §5).

    ``truth["image_order"]`` records whether the images are in torchvision's order (the same
    stream for a seed whichever the source) or in ImageFolder's (see `cifar10_train_arrays`).
    The registry calls this; users call ``load_stream("cifar10-cd", ...)``.

    Examples
    --------
    >>> from pudd_core.streams import get_info
    >>> load_cifar10_cd(get_info("cifar10-cd"), seed=0, chunk_size=500, n_chunks=None,
    ...                 path="/nonexistent/cifar")
    Traceback (most recent call last):
    ...
    pudd_core.streams.locate.DatasetUnavailableError: cifar10-cd: /nonexistent/cifar is neither ...

    """
    def used(labels: NDArray[np.int64]) -> NDArray[np.int64]:
        # the stream's chunks are drawn from the labels alone, as interest_stream draws them
        return markov_interest_stream(
            labels, chunk_size=chunk_size, n_chunks=n_chunks, n_classes=10,
            initial_interests=initial_interests, stay_weight=stay_weight,
            seed=np.random.SeedSequence(seed),
        ).indices.ravel()

    subset = cifar10_train_subset(
        used, path=path, data_dir=data_dir, download=download, progress=progress
    )
    source = subset.source
    described = {
        "official": "official CIFAR-10 batches (lossless)",
        "tarball": "JPEG tarball (q~75, lossy)",
        "folder": "image folder",
    }[source.kind]
    return interest_stream(
        info,
        subset.images,
        subset.labels,
        seed=seed,
        chunk_size=chunk_size,
        n_chunks=n_chunks,
        initial_interests=initial_interests,
        stay_weight=stay_weight,
        image_source=f"{described}: {source.path}",
        image_order=source.order,
        positions=subset.positions,
    )

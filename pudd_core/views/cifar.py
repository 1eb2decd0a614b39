"""CIFAR-10-CD for display: the Markov interest drift without images, and uint8 thumbnails.

The interest process (transition matrix, interests per chunk, drift chunks) depends only on
the seed and the class counts, so it is computed without decoding a single image; thumbnails
read the uint8 training images behind a chunk.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from pudd_core import _validation
from pudd_core.reproduction.cifar import (
    IMAGES_PER_CLASS,
    MAX_CHUNKS,
    InterestDrift,
    interest_drift,
    stream_seed,
)
from pudd_core.streams import load_stream
from pudd_core.streams.cifar10_cd import ImageChunks
from pudd_core.streams.images import CIFAR10_CLASSES

__all__ = [
    "CIFAR10_CLASSES",
    "IMAGES_PER_CLASS",
    "InterestDrift",
    "Thumbnails",
    "chunk_thumbnails",
    "interest_drift",
    "majority_verdict",
    "stream_seed",
]

#: CIFAR-10's training set holds 5000 images of each of its 10 classes.
@dataclass(frozen=True)
class Thumbnails:
    """A few training images of one chunk, as stored (uint8 RGB), with their labels.

    Attributes
    ----------
    chunk
        The chunk index.
    images
        ``(m, 32, 32, 3)`` uint8, grouped by class (``per_class`` of each, class order).
    classes
        Original CIFAR-10 class of each image.
    labels
        The stream's binary label: 1 when the class is an interest of the chunk.
    source
        Where the images were read from.

    Examples
    --------
    >>> thumbs = Thumbnails(3, np.zeros((2, 32, 32, 3), np.uint8), np.array([0, 4]),
    ...                     np.array([1, 0]), "image folder")
    >>> thumbs.images.shape, thumbs.labels.tolist()
    ((2, 32, 32, 3), [1, 0])
    """

    chunk: int
    images: NDArray[np.uint8]
    classes: NDArray[np.int64]
    labels: NDArray[np.int64]
    source: str


def chunk_thumbnails(
    seed: int,
    chunk: int,
    *,
    n_chunks: int = MAX_CHUNKS,
    chunk_size: int = 500,
    per_class: int = 6,
    data_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Thumbnails:
    """The first ``per_class`` images of each class in ``chunk`` of a run's CIFAR-10-CD stream.

    The images are the undecoded-from-float uint8 pixels behind the normalised tensors the
    classifier sees; a chunk holds its images class by class, each class a random sample.

    Raises
    ------
    DatasetUnavailableError
        No CIFAR-10 images were found; the message lists the three ways to provide them.
    ValueError
        ``chunk`` is not a chunk of the stream.

    Examples
    --------
    >>> chunk_thumbnails(0, 20, n_chunks=20)
    Traceback (most recent call last):
    ...
    ValueError: chunk must be in 0..19, got 20
    """
    if not 0 <= chunk < n_chunks:
        raise ValueError(f"chunk must be in 0..{n_chunks - 1}, got {chunk}")
    _validation.check_positive_int("per_class", per_class)
    stream = load_stream("cifar10-cd", seed=stream_seed(seed), n_chunks=n_chunks,
                         chunk_size=chunk_size, data_dir=data_dir, progress=progress)
    source = stream.source
    if not isinstance(source, ImageChunks):  # pragma: no cover - the registry's loader
        raise TypeError("cifar10-cd is expected to be served from ImageChunks")
    rows = source.indices[chunk]  # rows of the images the stream holds
    classes = np.asarray(stream.truth["image_classes"])[chunk]
    keep = np.concatenate([np.flatnonzero(classes == c)[:per_class]
                           for c in range(len(CIFAR10_CLASSES))])
    return Thumbnails(
        chunk,
        np.ascontiguousarray(source.images[rows[keep]]),
        classes[keep].astype(np.int64),
        source.labels[chunk][keep].astype(np.int64),
        str(stream.truth["image_source"]),
    )


@dataclass(frozen=True)
class MajorityVerdict:
    """A run's accuracy against always answering the majority label, on the same chunks.

    Attributes
    ----------
    accuracy
        The model's mean accuracy over the tested chunks (chunk 1 on).
    majority
        The majority-label rate over the same chunks.
    learned
        Whether the model is better than the majority rate by more than ``margin``.

    Examples
    --------
    >>> v = MajorityVerdict(accuracy=0.82, majority=0.7, learned=True)
    >>> round(v.gain, 6)  # percentage points above the majority rate
    12.0
    """

    accuracy: float
    majority: float
    learned: bool

    @property
    def gain(self) -> float:
        """Accuracy minus the majority rate, in percentage points."""
        return 100.0 * (self.accuracy - self.majority)


def majority_verdict(
    chunk_accuracies: dict[int, float], drift: InterestDrift, *, margin: float = 0.01
) -> MajorityVerdict:
    """Compare a run's per-chunk accuracies (chunk index -> accuracy) with the majority rate.

    A model within ``margin`` (1 point) of the majority rate, or below it, has learned
    nothing a detector could watch: it is flagged.

    Examples
    --------
    >>> drift = interest_drift(0, n_chunks=4)
    >>> majority_verdict({1: 0.7, 2: 0.7, 3: 0.7}, drift)
    MajorityVerdict(accuracy=0.7, majority=0.7, learned=False)
    >>> majority_verdict({1: 0.8, 2: 0.85, 3: 0.9}, drift).learned
    True
    """
    rates = drift.majority_rates()
    chunks = sorted(chunk_accuracies)
    accuracy = float(np.mean([chunk_accuracies[t] for t in chunks]))
    majority = float(np.mean(rates[chunks]))
    return MajorityVerdict(round(accuracy, 12), round(majority, 12),
                           accuracy > majority + margin)

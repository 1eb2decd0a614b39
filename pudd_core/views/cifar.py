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
from pudd_core.experiments.runner import run_seeds
from pudd_core.streams import load_stream, markov_interest_stream
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
IMAGES_PER_CLASS = 5000
_MAX_CHUNKS = 100  # 5000 images per class / 50 per chunk (the paper's 500-image chunks)


def stream_seed(seed: int) -> int:
    """The seed ``run_experiment(RunConfig(seed=seed))`` draws its stream with.

    The stream's part of :func:`~pudd_core.experiments.runner.run_seeds`.

    Examples
    --------
    >>> stream_seed(0)
    3757552657
    """
    return run_seeds(seed).stream


@dataclass(frozen=True)
class InterestDrift:
    """The Markov interest drift of a CIFAR-10-CD run: which classes are positive, when.

    Attributes
    ----------
    seed
        The run's seed (``RunConfig.seed``), not the stream's derived seed.
    transition_matrix
        ``(10, 10)`` row-stochastic matrix *M*: row *i* is where an interest in class *i*
        moves for the next chunk.
    interests
        ``(n_chunks, 3)`` interest slots per chunk (slots may coincide).
    positive_classes
        The distinct positive classes of each chunk.
    drift_chunks
        Chunks whose positive-class set differs from the previous chunk's.
    class_names
        CIFAR-10's class names, by label.

    Examples
    --------
    >>> drift = interest_drift(0, n_chunks=12)
    >>> drift.n_chunks, drift.positive_classes[8], drift.drift_chunks
    (12, (1, 2, 7), (8, 11))
    """

    seed: int
    transition_matrix: NDArray[np.float64]
    interests: NDArray[np.int64]
    positive_classes: tuple[tuple[int, ...], ...]
    drift_chunks: tuple[int, ...]
    class_names: tuple[str, ...] = CIFAR10_CLASSES

    @property
    def n_chunks(self) -> int:
        """Number of chunks."""
        return len(self.positive_classes)

    @property
    def stay_probability(self) -> float:
        """Mean probability that an interest stays on its class for the next chunk."""
        return float(self.transition_matrix.diagonal().mean())

    @property
    def change_probability(self) -> float:
        """About how often the positive set changes: 1 - (stay probability)^(interests).

        Examples
        --------
        >>> round(interest_drift(0).change_probability, 3)
        0.132
        """
        return 1.0 - self.stay_probability ** int(self.interests.shape[1])

    def majority_rates(self) -> NDArray[np.float64]:
        """Per chunk, the accuracy of always answering the chunk's majority label.

        A chunk holds every class equally, so with *k* positive classes it is ``1 - k/10``
        (0.7 with three distinct interests, 0.8 when two collide).

        Examples
        --------
        >>> interest_drift(0, n_chunks=3).majority_rates().tolist()
        [0.7, 0.7, 0.7]
        """
        share = np.array([len(c) for c in self.positive_classes]) / len(self.class_names)
        rates: NDArray[np.float64] = np.maximum(share, 1.0 - share)
        return rates

    def positive_mask(self) -> NDArray[np.bool_]:
        """``(n_classes, n_chunks)``: True where the class is an interest of the chunk.

        Examples
        --------
        >>> interest_drift(0, n_chunks=3).positive_mask()[:, 0].nonzero()[0].tolist()
        [0, 1, 2]
        """
        mask = np.zeros((len(self.class_names), self.n_chunks), dtype=bool)
        for t, classes in enumerate(self.positive_classes):
            mask[list(classes), t] = True
        return mask


def interest_drift(
    seed: int, *, n_chunks: int = _MAX_CHUNKS, chunk_size: int = 500
) -> InterestDrift:
    """The interest process of the CIFAR-10-CD stream of a run with ``seed``, without images.

    `markov_interest_stream` draws the matrix and the interest moves from their own child
    seeds; only the image sampling reads the labels. Run on CIFAR-10's known class counts
    (5000 per class), it gives the real stream's matrix, interests and drift chunks
    (``tests/views/test_cifar.py`` checks this against the decoded images).

    Parameters
    ----------
    seed
        The run's seed, as in ``RunConfig(seed=...)``.
    n_chunks
        Number of chunks (at most 100 for 500-image chunks).
    chunk_size
        Images per chunk, a multiple of 10.

    Examples
    --------
    >>> drift = interest_drift(0, n_chunks=20)
    >>> drift.interests.shape, drift.drift_chunks
    ((20, 3), (8, 11, 18))
    >>> round(float(drift.transition_matrix[0, 0]), 3)
    0.963
    """
    labels = np.repeat(np.arange(len(CIFAR10_CLASSES)), IMAGES_PER_CLASS)
    res = markov_interest_stream(
        labels, chunk_size=chunk_size, n_chunks=n_chunks, n_classes=len(CIFAR10_CLASSES),
        seed=np.random.SeedSequence(stream_seed(seed)),
    )
    return InterestDrift(seed, res.transition_matrix, res.interests, res.positive_classes,
                         res.drift_chunks)


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
    n_chunks: int = _MAX_CHUNKS,
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
    indices = np.asarray(stream.truth["image_indices"])[chunk]
    classes = np.asarray(stream.truth["image_classes"])[chunk]
    keep = np.concatenate([np.flatnonzero(classes == c)[:per_class]
                           for c in range(len(CIFAR10_CLASSES))])
    return Thumbnails(
        chunk,
        np.ascontiguousarray(source.images[indices[keep]]),
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

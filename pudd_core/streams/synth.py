"""The paper's synthetic streams (SEA, Sine, Mixed) from river's generators, seeded.

As the authors do (spec §4.1), every chunk draws from a new generator instance and the concept
switches every ``drift_period`` chunks to a different concept chosen at random; here each chunk
gets its own seed spawned from the stream seed, so a stream is reproducible.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from pudd_core import _validation
from pudd_core.streams.chunking import DenseRows, Stream, StreamInfo

if TYPE_CHECKING:
    from river.datasets.base import SyntheticDataset

Sample = tuple[dict[int, Any], Any]  # one river (x, y) pair

# sigmoid tails beyond this are treated as 0 / 1 when composing gradual drifts
_TAIL = 1e-12


@dataclass(frozen=True)
class SynthSpec:
    """How to build one river generator per concept.

    Examples
    --------
    >>> spec = SPECS["sea10"]
    >>> spec.describe()
    'river.datasets.synth.SEA(variant=v, noise=0.1), v in 0..3'
    >>> x, y = next(iter(spec.make(concept=2, seed=42)))
    >>> sorted(x), y
    ([0, 1, 2], False)

    """

    family: str  # "sea", "sine" or "mixed"
    n_concepts: int
    n_features: int
    noise: float = 0.0

    def make(self, concept: int, seed: int) -> SyntheticDataset:
        """Build a new river generator for ``concept`` (river is imported lazily)."""
        from river.datasets import synth

        if self.family == "sea":
            gen: SyntheticDataset = synth.SEA(variant=concept, noise=self.noise, seed=seed)
        elif self.family == "sine":
            gen = synth.Sine(
                classification_function=concept, seed=seed, balance_classes=False, has_noise=False
            )
        else:
            gen = synth.Mixed(classification_function=concept, seed=seed, balance_classes=False)
        return gen

    def describe(self) -> str:
        """Return the river call, for the ground-truth record."""
        if self.family == "sea":
            return f"river.datasets.synth.SEA(variant=v, noise={self.noise}), v in 0..3"
        if self.family == "sine":
            return "river.datasets.synth.Sine(classification_function=v), v in 0..3"
        return "river.datasets.synth.Mixed(classification_function=v), v in 0..1"


SPECS: dict[str, SynthSpec] = {
    "sea0": SynthSpec("sea", 4, 3, 0.0),
    "sea10": SynthSpec("sea", 4, 3, 0.1),
    "sea20": SynthSpec("sea", 4, 3, 0.2),
    "sine": SynthSpec("sine", 4, 2),
    "mixed": SynthSpec("mixed", 2, 4),
}


def concept_schedule(
    n_concepts: int, n_chunks: int, drift_period: int, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Concept id of every chunk: a new, different concept every ``drift_period`` chunks.

    The first segment's concept is uniform over all concepts; each later one is uniform over
    the concepts other than the current one (spec §4.1), so with two concepts they alternate.

    Examples
    --------
    >>> concept_schedule(4, 7, 3, np.random.default_rng(0)).tolist()
    [3, 3, 3, 1, 1, 1, 3]
    >>> concept_schedule(2, 6, 2, np.random.default_rng(0)).tolist()
    [1, 1, 0, 0, 1, 1]

    """
    n_segments = -(-n_chunks // drift_period)
    segments = np.empty(n_segments, dtype=np.int64)
    segments[0] = rng.integers(n_concepts)
    for k in range(1, n_segments):
        step = rng.integers(1, n_concepts)  # uniform over the other concepts
        segments[k] = (segments[k - 1] + step) % n_concepts
    return np.repeat(segments, drift_period)[:n_chunks]


def _sigmoid_span(centre: float, lo: int, hi: int, width: int) -> tuple[float, float]:
    """Smallest and largest river sigmoid value over samples ``lo .. hi - 1``."""

    def f(g: float) -> float:
        return 1.0 / (1.0 + math.exp(min(700.0, -4.0 * (g - centre) / width)))

    return f(lo), f(hi - 1)


def _chunk_generator(
    spec: SynthSpec,
    concepts: NDArray[np.int64],
    t: int,
    chunk_size: int,
    drift_period: int,
    drift_width: int | None,
    seeds: NDArray[np.unsignedinteger[Any]],
) -> Iterable[Sample]:
    """River generator for chunk ``t``: its own concept, wrapped in ConceptDriftStream near drifts.

    For a gradual drift the new concept's probability at global sample ``g`` is river's
    $1 / (1 + e^{-4 (g - p) / w})$ with $p$ the first sample of the drift chunk. Boundaries
    whose sigmoid is within 1e-12 of 0 or 1 over the whole chunk are left out, so chunks far
    from a drift are the same as in the abrupt stream.
    """
    own = int(concepts[t])
    segment = t // drift_period
    gen = spec.make(own, int(seeds[0]))
    if drift_width is None:
        return gen
    from river.datasets import synth

    lo, hi = t * chunk_size, (t + 1) * chunk_size
    active = []  # boundary k: segment k - 1 -> segment k, centred on its first sample
    for k in range(1, -(-len(concepts) // drift_period)):
        centre = float(k * drift_period * chunk_size)
        first, last = _sigmoid_span(centre, lo, hi, drift_width)
        if last > _TAIL and first < 1.0 - _TAIL:
            active.append(k)
    if not active:
        return gen
    base = min(active[0] - 1, segment)
    top = max(active[-1], segment)
    word = itertools.count(1)
    gens = {}
    for s in range(base, top + 1):
        concept = int(concepts[s * drift_period])
        gens[s] = gen if s == segment else spec.make(concept, int(seeds[next(word)]))
    # nested as in river/MOA: the stream before boundary k is the chain up to boundary k - 1
    stream = gens[base]
    for k in range(base + 1, top + 1):
        position = k * drift_period * chunk_size - lo + 1  # river counts samples from 1
        stream = synth.ConceptDriftStream(
            stream=stream,
            drift_stream=gens[k],
            position=position,
            width=drift_width,
            seed=int(seeds[next(word)]),
        )
    return stream


def _draw(gen: Iterable[Sample], n: int, d: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Take ``n`` samples: features from the dicts in key order, labels as 0/1."""
    rows = list(itertools.islice(gen, n))
    keys = list(rows[0][0])
    if keys != list(range(d)):
        raise RuntimeError(f"unexpected river feature keys {keys}")  # guards the key order
    X = np.fromiter(
        itertools.chain.from_iterable(x.values() for x, _ in rows), dtype=np.float64, count=n * d
    ).reshape(n, d)
    y = np.fromiter((int(bool(label)) for _, label in rows), dtype=np.int64, count=n)
    return X, y


def make_synth_stream(
    info: StreamInfo,
    *,
    seed: int,
    chunk_size: int,
    n_chunks: int,
    drift_period: int = 10,
    drift_width: int | None = None,
) -> Stream:
    """Generate a synthetic stream (the registry calls this; users call `load_stream`).

    Parameters
    ----------
    info
        The registry card of ``sea0``, ``sea10``, ``sea20``, ``sine`` or ``mixed``.
    seed
        Stream seed; the concept order and one river seed per chunk are spawned from it.
    chunk_size
        Samples per chunk.
    n_chunks
        Number of chunks.
    drift_period
        Chunks per concept (10 in the paper).
    drift_width
        `None` for abrupt drifts; else the width *w* in samples of river's
        `ConceptDriftStream` sigmoid, centred on the first sample of each drift chunk.

    Examples
    --------
    >>> from pudd_core.streams import get_info
    >>> s = make_synth_stream(get_info("mixed"), seed=3, chunk_size=5, n_chunks=6, drift_period=2)
    >>> s.drift_chunks, s.truth["concepts"]
    ((2, 4), (1, 1, 0, 0, 1, 1))

    """
    spec = SPECS[info.name]
    _validation.check_positive_int("drift_period", drift_period)
    if drift_width is not None:
        _validation.check_positive_int("drift_width", drift_width)
        # below this, river's ConceptDriftStream overflows math.exp inside a chunk
        min_width = math.ceil(4 * chunk_size / 680)
        if drift_width < min_width:
            raise ValueError(
                f"drift_width must be at least {min_width} samples for chunk_size={chunk_size} "
                "(river's ConceptDriftStream overflows below that); use drift_width=None for "
                "abrupt drift"
            )
    schedule_ss, chunk_ss = np.random.SeedSequence(seed).spawn(2)
    concepts = concept_schedule(
        spec.n_concepts, n_chunks, drift_period, np.random.default_rng(schedule_ss)
    )
    X = np.empty((n_chunks * chunk_size, spec.n_features))
    y = np.empty(n_chunks * chunk_size, dtype=np.int64)
    for t, child in enumerate(chunk_ss.spawn(n_chunks)):
        # word 0 seeds the chunk's own generator; more words seed gradual-drift helpers
        seeds = child.generate_state(1 + 2 * len(concepts))
        gen = _chunk_generator(spec, concepts, t, chunk_size, drift_period, drift_width, seeds)
        rows = slice(t * chunk_size, (t + 1) * chunk_size)
        X[rows], y[rows] = _draw(gen, chunk_size, spec.n_features)
    truth: dict[str, object] = {
        "concepts": tuple(int(c) for c in concepts),
        "drift_period": drift_period,
        "drift_width": drift_width,
        "generator": spec.describe(),
    }
    return Stream(
        seed=seed,
        info=replace(info, chunk_size=chunk_size, n_chunks=n_chunks,
                     feature_shape=(spec.n_features,)),
        drift_chunks=tuple(range(drift_period, n_chunks, drift_period)),
        truth=truth,
        source=DenseRows(X, y, chunk_size),
    )



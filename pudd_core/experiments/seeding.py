"""Which parts of a run depend on its seed: the stream's data, the classifier, the detector.

Each part is declared where it is registered: a stream's card says whether its data are drawn
(``StreamInfo.seeded``), a classifier's entry whether it uses its seed
(:data:`~pudd_core.classifiers.SEEDED_CLASSIFIERS`), a detector's class whether it takes one.
PUDD's seed enters in one place only: the bucketing sample of a reference window of more than
``sample_size`` values, drawn with replacement (spec §1.6,
:func:`~pudd_core.bucketing.fitting_sample`); a run whose windows never outgrow it, or the EK
ablation (the first values, no draw), ignores its seed. A run depends on the seed when any
part does; one that does not gives the same result for every seed, so its mean over seeds is
that one run.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pudd_core._validation import ParameterError
from pudd_core.classifiers import SEEDED_CLASSIFIERS
from pudd_core.detector import ChunkPUDD
from pudd_core.experiments.detectors import detector_spec, run_detector
from pudd_core.streams import StreamInfo, get_info

if TYPE_CHECKING:
    from pudd_core.experiments.runner import RunConfig

__all__ = ["SeedDependence", "largest_reference", "seed_dependence"]


@dataclass(frozen=True)
class SeedDependence:
    """Whether a run's stream, classifier and detector each depend on its seed.

    ``sample_size`` is PUDD's (the reference windows it samples above), else ``None``.

    Examples
    --------
    >>> SeedDependence(stream=False, model=False, detector=False).depends
    False
    >>> SeedDependence(stream=True, model=False, detector=False).parts()
    ("the stream's data",)
    """

    stream: bool
    model: bool
    detector: bool
    sample_size: int | None = None

    @property
    def depends(self) -> bool:
        """Whether some part depends on the seed (then seeds may give different runs)."""
        return self.stream or self.model or self.detector

    def parts(self) -> tuple[str, ...]:
        """The parts that depend on the seed, in words.

        Examples
        --------
        >>> SeedDependence(stream=False, model=True, detector=True, sample_size=1000).parts()
        ('the classifier', "PUDD's bucketing sample (reference windows over 1,000 values)")
        """
        detector = (f"PUDD's bucketing sample (reference windows over {self.sample_size:,} "
                    "values)" if self.sample_size is not None else "the detector")
        named = (("the stream's data", self.stream), ("the classifier", self.model),
                 (detector, self.detector))
        return tuple(name for name, on in named if on)


def largest_reference(n_values: int | None, chunk_size: int | None) -> int | None:
    """An upper bound on a run's reference windows, in values (``None``: not known).

    ``n_values`` is the stream's length in values. The first chunk is only trained on, and
    a reference window is older than at least one tested chunk: it holds at most
    ``n_values - chunk_size`` values.

    Examples
    --------
    >>> largest_reference(1000, 100), largest_reference(None, 1000)
    (900, None)
    """
    if n_values is None or chunk_size is None:
        return None
    return max(n_values - chunk_size, 0)


def _stream_values(config: RunConfig, card: StreamInfo | None, size: int | None) -> int | None:
    """The stream's length in values: its chunks, or a file's rows (the paper's, by default)."""
    if size is None:
        return None
    if config.n_chunks is not None:
        return config.n_chunks * size  # a file may hold fewer: still a bound
    if card is None:
        return None
    if card.kind == "synthetic":  # drawn: the registry's number of chunks, of any size
        return card.n_chunks * size
    return card.n_chunks * card.chunk_size  # a file: its rows, cut into chunks of any size


def _card(dataset: str) -> StreamInfo | None:
    try:
        return get_info(dataset)
    except ParameterError:  # not a registry stream: a user's file, read as it is
        return None


def seed_dependence(config: RunConfig, *, info: StreamInfo | None = None) -> SeedDependence:
    """Which parts of ``config``'s run depend on its seed (see the module's docstring).

    ``info`` is the stream's card (default: the registry's for ``config.dataset``; a name the
    registry does not know is a user's file, whose data ignore the seed). Where the stream's
    length is not known, PUDD is taken to sample (to depend on the seed).

    Examples
    --------
    >>> from pudd_core.experiments.runner import RunConfig
    >>> seed_dependence(RunConfig("elec2", "gnb", "ddm")).depends
    False
    >>> seed_dependence(RunConfig("elec2", "gnb", "pudd")).parts()
    ("PUDD's bucketing sample (reference windows over 1,000 values)",)
    >>> seed_dependence(RunConfig("elec2", "gnb", "pudd", chunk_size=100, n_chunks=10)).depends
    False
    >>> seed_dependence(RunConfig("sea0", "dnn", "kswin")).parts()
    ("the stream's data", 'the classifier', 'the detector')
    """
    card = info if info is not None else _card(config.dataset)
    size = config.chunk_size or (card.chunk_size if card is not None else None)
    largest = largest_reference(_stream_values(config, card, size), size)
    detector, sample_size = _detector_uses_seed(config, largest)
    return SeedDependence(stream=card is not None and card.seeded,
                          model=config.classifier in SEEDED_CLASSIFIERS,
                          detector=detector, sample_size=sample_size)


def _detector_uses_seed(config: RunConfig, largest: int | None) -> tuple[bool, int | None]:
    """Whether the detector uses its seed; PUDD's ``sample_size`` when it is PUDD's sample."""
    target = detector_spec(config.detector).target
    if target is None or "seed" not in inspect.signature(target).parameters:
        return False, None  # a reference (no detector, the oracle) or a deterministic baseline
    detector = run_detector(config, 0)
    if not isinstance(detector, ChunkPUDD):
        return True, None  # KSWIN's and MCD-DD's samples
    if detector.partition != "pu":  # the EK ablation fits the first values: no draw
        return False, None
    return largest is None or largest > detector.sample_size, detector.sample_size

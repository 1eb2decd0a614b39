"""Rough wall-clock estimates of runs before they start, from the timings in BENCHMARKS.md."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from pudd_core.experiments.runner import RunConfig
from pudd_core.streams import get_info

__all__ = ["CHUNK_SECONDS", "DETECTOR_CHUNK_SECONDS", "run_seconds", "runs_seconds"]

#: Seconds per tested chunk of a classifier (predict, PU-index, train, the detector) on 2 CPU
#: cores, at the stream's default chunk size. gnb and vfdt: ``benchmarks.bench_cost`` (whole
#: runs measured against these estimates, BENCHMARKS.md "Run estimates against measured runs":
#: gnb 0.004-0.010 s, vfdt 0.045-0.069 s per chunk in two runs at load averages of 9-10 on the
#: 2 cores; they were 0.01 and 0.07, 1.5-2.7 times the measured runs); the others:
#: BENCHMARKS.md, "Runner episodes" and the classifier table (small-cnn and resnet18: 500
#: CIFAR images, 10 SGD steps).
CHUNK_SECONDS: Mapping[str, float] = MappingProxyType({
    "gnb": 0.005, "vfdt": 0.05, "dnn": 0.35, "dnn-ensemble": 3.3, "pretrained-cnn": 1.0,
    "small-cnn": 2.0,
    "resnet18": 25.0,
    # Table 2's SOTA learners, mean over a 100-chunk sea0 episode (AMF's trees deepen, so its
    # later chunks cost more; ADLTER retrains members from scratch after drifts)
    "amf": 1.5, "ns": 0.4, "adlter": 1.5,
})
#: Extra seconds per 1000-instance chunk for detectors that cost more than the classifier:
#: KSWIN runs a Kolmogorov-Smirnov test at every instance (memoised, ``experiments.kswin``:
#: 0.04 s per chunk measured by ``benchmarks.bench_cost``; 0.7, river's unmemoised cost, made
#: its estimate 17 times the measured run).
DETECTOR_CHUNK_SECONDS: Mapping[str, float] = MappingProxyType({"kswin": 0.04})


def run_seconds(config: RunConfig) -> float:
    """Estimated seconds of one run of :func:`~pudd_core.experiments.runner.run_experiment`.

    The estimate scales the per-chunk cost by the number of chunks and the chunk size (the
    registry's defaults where the config leaves them unset). Unknown names cost nothing.

    Examples
    --------
    >>> run_seconds(RunConfig("sea0", "gnb", n_chunks=101))
    0.5
    >>> run_seconds(RunConfig("cifar10-cd", "small-cnn", n_chunks=21))
    40.0
    """
    info = get_info(config.dataset)
    n_chunks = config.n_chunks or info.n_chunks
    size = (config.chunk_size or info.chunk_size) / info.chunk_size
    per_chunk = CHUNK_SECONDS.get(config.classifier, 0.0) * size
    per_chunk += DETECTOR_CHUNK_SECONDS.get(config.detector, 0.0) * size
    return round(per_chunk * max(n_chunks - 1, 0), 6)


def runs_seconds(configs: Iterable[RunConfig]) -> float:
    """Estimated seconds of several runs, one after the other.

    Examples
    --------
    >>> runs_seconds([RunConfig("sea0", "gnb", n_chunks=11), RunConfig("sea0", "vfdt",
    ...                                                                n_chunks=11)])
    0.55
    """
    return round(sum(run_seconds(c) for c in configs), 6)

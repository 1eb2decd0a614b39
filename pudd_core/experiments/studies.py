r"""Threshold studies with the lab's classifiers: false alarms, delay, chunk size, skip rule.

Three studies, committed under ``results/`` by ``scripts/threshold_studies.py``:

* **stationary false alarms**: a classifier's predictions on a stream without drift (one
  concept throughout), chunk by chunk, run through PUDD's variants at every α of a grid;
  every alarm is false, counted per monitored chunk with a Clopper-Pearson interval;
* **delay on an injected change**: the same predictions cut into episodes, a change
  injected in the middle of each (:func:`~pudd_core.monitoring.inject_change`: the paper's
  confidence shift at flat accuracy, or an error-rate rise), the chunks from the change to
  the first alarm per variant and α;
* **chunk size**: whole runs (:func:`~pudd_core.experiments.runner.run_experiment`) of the
  paper's streams cut into chunks of 250 to 5,000 rows, the drifts kept at the same rows.

The first two record the predictions once (:func:`prediction_chunks`) and run the detector
on them, with one run per variant serving every α until their decisions part (as the
monitor's calibration does): the detector never changes the model, as on a deployed model's
prediction log.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from pudd_core import _validation
from pudd_core.detector import ChunkPUDD
from pudd_core.experiments.detectors import ChunkVerdict
from pudd_core.experiments.runner import RunConfig, run_chunks, run_model, run_stream
from pudd_core.monitoring._calibrate import _alarm_chunks, inject_change
from pudd_core.monitoring._incremental import VARIANTS
from pudd_core.streams import get_info

__all__ = [
    "STUDY_ALPHAS", "STUDY_VARIANTS", "PredictionChunks", "clopper_pearson", "false_alarm_rates",
    "prediction_chunks", "shift_delays",
]

#: The thresholds of the studies: the calibration's grid, 10^-1 .. 10^-6.
STUDY_ALPHAS: tuple[float, ...] = (1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 1e-5, 1e-6)

_FLOORS = {name: {k: v for k, v in options.items() if k != "skip_rule"}
           for name, options in VARIANTS.items()}
#: PUDD's variants compared on the same footing: the monitor's two count floors
#: (``monitoring.VARIANTS``, with its history bound and refits), each with the authors'
#: accuracy skip rule and without one (every cut tested).
STUDY_VARIANTS: Mapping[str, Mapping[str, Any]] = {
    "calibrated, skip rule": {**_FLOORS["calibrated"], "skip_rule": "accuracy"},
    "calibrated, no skip": {**_FLOORS["calibrated"], "skip_rule": None},
    "authors, skip rule": {**_FLOORS["authors"], "skip_rule": "accuracy"},
    "authors, no skip": {**_FLOORS["authors"], "skip_rule": None},
}

Chunks = Sequence[tuple[NDArray[np.float64], NDArray[np.bool_]]]


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a rate of ``k`` events in ``n`` trials.

    Examples
    --------
    >>> [round(x, 5) for x in clopper_pearson(0, 1000)]
    [0.0, 0.00368]
    """
    from scipy.stats import binomtest

    if n == 0:
        return (0.0, 1.0)
    ci = binomtest(k, n).proportion_ci(confidence, method="exact")
    return (float(ci.low), float(ci.high))


@dataclass(frozen=True)
class PredictionChunks:
    """A classifier's scored chunks on a stream: PU-index and correctness, chunk by chunk.

    Examples
    --------
    >>> p = PredictionChunks("sea0", "gnb", 0, 2, "train-once", (np.array([0.1, 0.7]),),
    ...                      (np.array([True, False]),))
    >>> p.accuracy, len(p.chunks)
    (0.5, 1)
    """

    dataset: str
    classifier: str
    seed: int
    chunk_size: int
    regime: str
    u: tuple[NDArray[np.float64], ...] = field(repr=False)
    ok: tuple[NDArray[np.bool_], ...] = field(repr=False)

    @property
    def chunks(self) -> list[tuple[NDArray[np.float64], NDArray[np.bool_]]]:
        """``(u, correct)`` per tested chunk."""
        return list(zip(self.u, self.ok, strict=True))

    @property
    def accuracy(self) -> float:
        """Mean per-chunk accuracy."""
        return float(np.mean([o.mean() for o in self.ok]))


@dataclass
class _Recorder:
    """A chunk-loop detector that keeps each chunk's PU values and never alarms."""

    u: list[NDArray[np.float64]] = field(default_factory=list)
    ok: list[NDArray[np.bool_]] = field(default_factory=list)

    def test(self, t: int, u: NDArray[np.float64], correct: NDArray[np.bool_],
             features: NDArray[Any] | None = None) -> ChunkVerdict:
        self.u.append(np.asarray(u, dtype=np.float64))
        self.ok.append(np.asarray(correct, dtype=bool))
        return ChunkVerdict(alarm=False)


def prediction_chunks(
    dataset: str,
    classifier: str,
    *,
    n_chunks: int,
    chunk_size: int = 1000,
    seed: int = 0,
    regime: Literal["train-once", "incremental"] = "train-once",
    stationary: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> PredictionChunks:
    """A classifier's PU-index and correctness on each tested chunk of a stream.

    ``stationary``: one concept for the whole stream (its drift period longer than the
    stream: a synthetic stream only). Chunk 0 trains the model (twice, as in a run); in
    ``"train-once"`` it is never trained again, so on a stationary stream the chunks are
    alike and every alarm is false; ``"incremental"`` trains it on every chunk after scoring.

    Examples
    --------
    >>> p = prediction_chunks("sea0", "gnb", n_chunks=5, chunk_size=200)
    >>> len(p.chunks), p.u[0].shape, round(p.accuracy, 3)
    (4, (200,), 0.963)
    """
    _validation.check_positive_int("n_chunks", n_chunks, minimum=2)
    cfg = RunConfig(dataset, classifier, seed=seed, chunk_size=chunk_size, n_chunks=n_chunks,
                    regime=regime)
    cfg.validate()
    if stationary and get_info(dataset).kind != "synthetic":
        raise _validation.ParameterError(
            "dataset", f"{dataset!r} is read as recorded, with whatever drifts it holds: a "
                       "stationary study needs a synthetic stream (sea0, sine, ...)")
    stream = (run_stream(cfg, drift_period=n_chunks + 1) if stationary else run_stream(cfg))
    recorder = _Recorder()
    run_chunks(stream, run_model(cfg, stream), recorder, regime=regime, progress=progress)
    return PredictionChunks(dataset, classifier, seed, chunk_size, regime,
                            tuple(recorder.u), tuple(recorder.ok))


def _maker(options: Mapping[str, Any], seed: int) -> Callable[[float], ChunkPUDD]:
    def make(alpha: float) -> ChunkPUDD:
        return ChunkPUDD(alpha, seed=seed, **options)
    return make


def false_alarm_rates(
    chunks: Chunks,
    variants: Mapping[str, Mapping[str, Any]] = STUDY_VARIANTS,
    alphas: Sequence[float] = STUDY_ALPHAS,
    *,
    seed: int = 0,
) -> pd.DataFrame:
    """Alarms per monitored chunk of each variant at each α, on chunks without drift.

    Each variant runs once over ``chunks`` (resetting after each alarm, as a monitor does),
    shared by every α until their decisions part. One row per variant and α: ``alarms``,
    ``chunks`` (monitored: all but the first, which has nothing to be tested against),
    ``rate`` and its 95 % Clopper-Pearson interval ``ci_low`` .. ``ci_high``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> chunks = [(u, u < 0.5) for u in rng.beta(1, 8, (60, 300))]
    >>> one = {"calibrated": STUDY_VARIANTS["calibrated, skip rule"]}
    >>> df = false_alarm_rates(chunks, one, (0.1, 1e-3))
    >>> df[["alpha", "alarms", "chunks"]].values.tolist()
    [[0.1, 4.0, 59.0], [0.001, 0.0, 59.0]]
    """
    grid = sorted({float(a) for a in alphas}, reverse=True)
    rows = []
    for name, options in variants.items():
        hits = _alarm_chunks(chunks, grid, _maker(options, seed))
        n = len(chunks) - 1
        for alpha, h in zip(grid, hits, strict=True):
            low, high = clopper_pearson(len(h), n)
            rows.append({"variant": name, "alpha": alpha, "alarms": len(h), "chunks": n,
                         "rate": len(h) / n, "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


def shift_delays(
    chunks: Chunks,
    variants: Mapping[str, Mapping[str, Any]] = STUDY_VARIANTS,
    alphas: Sequence[float] = STUDY_ALPHAS,
    *,
    episode: int = 30,
    after: int = 20,
    change: Literal["confidence", "error_rate"] = "confidence",
    size: float = 0.5,
    seed: int = 0,
) -> pd.DataFrame:
    """Chunks from an injected change to the first alarm at or after it, per variant and α.

    ``chunks`` are cut into episodes of ``episode`` chunks; in each, the change
    (:func:`~pudd_core.monitoring.inject_change`) starts at chunk ``after``. The detector
    starts fresh in each episode; an alarm before the change resets it, as in a monitor.
    One row per episode, variant and α: ``delay`` (0: the first changed chunk; ``inf``:
    not detected by the episode's end) and ``early`` (the false alarms before the change).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> chunks = [(u, u < 0.5) for u in rng.beta(1, 8, (20, 300))]
    >>> df = shift_delays(chunks, {"calibrated": STUDY_VARIANTS["calibrated, skip rule"]}, (1e-3,),
    ...                   episode=10, after=5)
    >>> df[["episode", "delay", "early"]].values.tolist()
    [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    _validation.check_positive_int("episode", episode, minimum=3)
    if not (isinstance(after, int) and 2 <= after < episode):
        raise _validation.ParameterError("after", f"after must be a chunk in 2 .. {episode - 1},"
                                                  f" got {after!r}")
    grid = sorted({float(a) for a in alphas}, reverse=True)
    ss = np.random.SeedSequence(seed)
    rows = []
    for e, child in enumerate(ss.spawn(len(chunks) // episode)):
        part = chunks[e * episode:(e + 1) * episode]
        u = np.concatenate([c[0] for c in part])
        ok = np.concatenate([c[1] for c in part])
        start = sum(c[0].size for c in part[:after])
        cu, cok = inject_change(u, ok, start, change, size, np.random.default_rng(child))
        bounds = np.cumsum([0, *(c[0].size for c in part)])
        changed = [(cu[a:b], cok[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        for name, options in variants.items():
            hits = _alarm_chunks(changed, grid, _maker(options, seed + e), stop_from=after)
            for alpha, h in zip(grid, hits, strict=True):
                late = [t for t in h if t >= after]
                rows.append({"variant": name, "alpha": alpha, "episode": e,
                             "delay": float(late[0] - after) if late else math.inf,
                             "early": sum(t < after for t in h)})
    return pd.DataFrame(rows)

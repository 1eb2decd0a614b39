r"""Threshold studies: sweep PUDD's $\alpha$, and measure false alarms on a stationary stream.

The paper (Sensitivity of PU-index) sets $\alpha$ per window-pair test and applies no
multiple-comparison correction, because its guarantee is per test, not family-wise. These
helpers show what that means in practice: the empirical rate of significant cut-point tests
on a stream without drift against the nominal $\alpha$, and the per-chunk rate (minimum over
the cut points) against a Bonferroni bound $\alpha \times$ (number of cut points).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from pudd_core import _validation
from pudd_core.detector import ChunkPUDD
from pudd_core.experiments.detectors import ChunkVerdict
from pudd_core.experiments.runner import (
    RunConfig,
    run_chunks,
    run_experiment,
    run_model,
    run_stream,
    runs_frame,
)

__all__ = [
    "ALPHA_EXPONENTS", "FLOOR_VARIANTS", "SWEEP_COLUMNS", "FalseAlarmStudy", "false_alarm_study",
    "pu_false_alarm_rates", "pu_false_alarm_table", "threshold_sweep",
]

#: ChunkPUDD settings compared on stationary streams: the authors' floor, none, and the
#: calibrated variant (no floor; sparse columns merged until expected counts reach 5).
FLOOR_VARIANTS: dict[str, dict[str, object]] = {
    "default (floor 5)": {},
    "clamp_min=0": {"clamp_min": 0},
    "clamp_min=0, min_expected=5": {"clamp_min": 0, "min_expected": 5.0},
}

#: Columns of :func:`threshold_sweep`: the exponent x of alpha = 10**-x, then columns of
#: :func:`~pudd_core.experiments.runner.runs_frame`.
SWEEP_COLUMNS = ("exponent", "alpha", "seed", "accuracy", "n_alarms", "mean_delay", "missed",
                 "false_alarms")

#: The app's threshold scale: PUDD-x for x = 1..10 (the paper reports x = 1, 3, 5).
ALPHA_EXPONENTS: tuple[int, ...] = tuple(range(1, 11))


def threshold_sweep(
    base: RunConfig,
    exponents: Sequence[int] = ALPHA_EXPONENTS,
    seeds: Sequence[int] = (0,),
    *,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    r"""Run ``base`` with PUDD at $\alpha = 10^{-x}$ for each exponent and seed.

    Returns one row per (exponent, seed): accuracy, number of alarms, mean detection delay,
    missed drifts and false alarms (NaN where the stream has no ground truth).

    Examples
    --------
    >>> df = threshold_sweep(RunConfig("sea0", "gnb", n_chunks=25), exponents=(1, 5))
    >>> df[["exponent", "n_alarms"]].values.tolist()
    [[1, 1], [5, 1]]
    """
    results, xs = [], []
    total = len(exponents) * len(seeds)
    for i, (x, seed) in enumerate(((x, s) for x in exponents for s in seeds), 1):
        _validation.check_positive_int("exponent", x)
        cfg = dataclasses.replace(base, detector="pudd", alpha=10.0 ** -x, seed=seed)
        results.append(run_experiment(cfg))
        xs.append(x)
        if progress is not None:
            progress(i, total)
    frame = runs_frame(results)[list(SWEEP_COLUMNS[1:])]
    frame.insert(0, "exponent", xs)
    return frame


@dataclass(frozen=True)
class FalseAlarmStudy:
    """Tests on a stream without drift, recorded with no alarm ever resetting the history.

    Attributes
    ----------
    cut_p
        Every cut-point test that ran: columns ``chunk``, ``cut``, ``p_value``.
    chunk_p
        One row per chunk with at least one test: ``chunk``, ``min_p``, ``n_cuts``.

    Examples
    --------
    >>> study = FalseAlarmStudy(
    ...     pd.DataFrame({"chunk": [2, 2, 3], "cut": [1, 2, 1], "p_value": [0.5, 0.004, 0.02]}),
    ...     pd.DataFrame({"chunk": [2, 3], "min_p": [0.004, 0.02], "n_cuts": [2, 1]}))
    >>> study.rates([2])[["per_test", "per_chunk", "bonferroni"]].round(4).values.tolist()
    [[0.3333, 0.5, 0.015]]
    """

    cut_p: pd.DataFrame
    chunk_p: pd.DataFrame

    def rates(self, exponents: Sequence[int] = ALPHA_EXPONENTS) -> pd.DataFrame:
        r"""Empirical false-alarm rates per nominal $\alpha = 10^{-x}$.

        ``per_test`` is the share of single cut-point tests with $p < \alpha$ (the paper's
        guarantee: about $\alpha$ if the test is calibrated); ``per_chunk`` the share of chunks
        whose minimum p is below $\alpha$ (an alarm); ``bonferroni`` the bound
        $\alpha \times$ mean number of cut points per chunk on that per-chunk rate.
        """
        rows = []
        mean_cuts = float(self.chunk_p["n_cuts"].mean()) if len(self.chunk_p) else 0.0
        for x in exponents:
            a = 10.0 ** -x
            rows.append({
                "exponent": x, "alpha": a,
                "per_test": float((self.cut_p["p_value"] < a).mean()) if len(self.cut_p) else 0.0,
                "per_chunk": (float((self.chunk_p["min_p"] < a).mean())
                              if len(self.chunk_p) else 0.0),
                "bonferroni": min(1.0, a * mean_cuts),
                "n_tests": len(self.cut_p), "n_chunks": len(self.chunk_p),
            })
        return pd.DataFrame(rows)


def false_alarm_study(
    dataset: str = "sea0",
    classifier: str = "gnb",
    *,
    n_chunks: int = 60,
    chunk_size: int = 1000,
    seed: int = 0,
    detector_options: dict[str, object] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> FalseAlarmStudy:
    """Record PUDD's p-values on a stationary version of a synthetic stream.

    The stream keeps one concept throughout (its drift period is longer than the stream);
    the classifier is trained on every chunk after testing it, and the detector never
    resets, so every cut-point test is a test of a true null hypothesis (up to the slow
    change of an incrementally trained model).

    Examples
    --------
    >>> study = false_alarm_study(n_chunks=12, chunk_size=500)
    >>> r = study.rates((1, 3))
    >>> bool((r["per_chunk"] <= 1).all()), int(study.chunk_p["n_cuts"].max())
    (True, 4)
    """
    _validation.check_positive_int("n_chunks", n_chunks, minimum=3)
    cfg = RunConfig(dataset, classifier, seed=seed, chunk_size=chunk_size, n_chunks=n_chunks,
                    regime="incremental", double_initial_fit=False)
    stream = run_stream(cfg, drift_period=n_chunks + 1)
    if stream.drift_chunks:
        raise ValueError(f"{dataset!r} still drifts with one concept; choose a synthetic stream")
    # alpha below any p-value: the history is (almost) never cleared, every chunk tests every
    # cut. The detector is seeded with ``seed`` itself, not run_seeds(seed).detector.
    det = ChunkPUDD(alpha=1e-300, seed=seed, **(detector_options or {}))  # type: ignore[arg-type]
    recorder = _CutRecorder(det)
    run_chunks(stream, run_model(cfg, stream), recorder, regime=cfg.regime,
                    double_initial_fit=cfg.double_initial_fit, progress=progress)
    cut_rows, chunk_rows = recorder.cut_rows, recorder.chunk_rows
    return FalseAlarmStudy(
        pd.DataFrame(cut_rows, columns=["chunk", "cut", "p_value"]),
        pd.DataFrame(chunk_rows, columns=["chunk", "min_p", "n_cuts"]),
    )


@dataclass
class _CutRecorder:
    """A ChunkPUDD in the chunk loop that records every cut test and never asks to retrain."""

    detector: ChunkPUDD
    cut_rows: list[dict[str, float]] = field(default_factory=list)
    chunk_rows: list[dict[str, float]] = field(default_factory=list)

    def test(self, t: int, u: NDArray[np.float64], correct: NDArray[np.bool_],
             features: NDArray[Any] | None = None) -> ChunkVerdict:
        """Update the detector; keep the tests that ran (skipped cuts aside)."""
        self.detector.update(u, correct)
        scan = self.detector.last_scan
        tested = [c for c in scan.cuts if not c.skipped] if scan else []
        self.cut_rows += [{"chunk": t, "cut": c.cut, "p_value": c.p_value} for c in tested]
        if tested:
            self.chunk_rows.append({"chunk": t, "min_p": min(c.p_value for c in tested),
                                    "n_cuts": len(tested)})
        return ChunkVerdict(alarm=False)


def _stationary_chunk(
    rng: np.random.Generator, size: int, error_rate: float
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """One chunk of a stream without drift: correct u ~ Beta(1, 8) below 0.5, errors above."""
    wrong = rng.random(size) < error_rate
    u = rng.beta(1.0, 8.0, size)
    high = u >= 0.5
    u[high] = rng.uniform(0.0, 0.5, int(high.sum()))  # correct predictions have u < 0.5
    u[wrong] = 0.5 + 0.5 * rng.beta(2.0, 2.0, int(wrong.sum()))
    return u, ~wrong


def pu_false_alarm_rates(
    chunk_size: int,
    error_rate: float,
    *,
    n_chunks: int = 2000,
    alpha: float = 1e-3,
    seed: int = 0,
    detector_options: dict[str, object] | None = None,
) -> dict[str, float]:
    r"""PUDD's false alarms on a stationary stream of PU values, as a user's detector sees them.

    ``n_chunks`` chunks of ``chunk_size`` predictions, each wrong with probability
    ``error_rate`` (correct ones: $u \sim$ Beta(1, 8) below 0.5; wrong ones: $u > 0.5$), go
    through one :class:`~pudd_core.detector.ChunkPUDD` that resets after each alarm, as in a
    run. ``per_test`` is the share of cut-point tests that ran with $p < \alpha$ (the paper's
    per-test guarantee: at most about $\alpha$ when calibrated); ``per_chunk`` the share of
    chunks that alarmed.

    Examples
    --------
    >>> r = pu_false_alarm_rates(100, 0.0, n_chunks=200, alpha=1e-3)
    >>> r["per_chunk"] > 0.05  # the floor of 5 on two empty error cells alarms often
    True
    >>> pu_false_alarm_rates(100, 0.0, n_chunks=200, alpha=1e-3,
    ...                      detector_options={"clamp_min": 0, "min_expected": 5})["alarms"]
    0
    """
    _validation.check_positive_int("chunk_size", chunk_size)
    _validation.check_positive_int("n_chunks", n_chunks, minimum=2)
    if not 0.0 <= _validation.finite_float("error_rate", error_rate) < 1.0:
        raise _validation.ParameterError("error_rate", f"error_rate must lie in [0, 1), got "
                                                       f"{error_rate!r}")
    rng = np.random.default_rng(seed)
    det = ChunkPUDD(alpha=alpha, seed=seed, **(detector_options or {}))  # type: ignore[arg-type]
    tests = rejections = alarms = 0
    for _ in range(n_chunks):
        det.update(*_stationary_chunk(rng, chunk_size, error_rate))
        scan = det.last_scan
        if scan is not None and scan.shortcut is None:
            ran = [c for c in scan.cuts if not c.skipped]
            tests += len(ran)
            rejections += sum(c.p_value < alpha for c in ran)
        alarms += det.drift_detected
    return {"chunk_size": chunk_size, "error_rate": error_rate, "alpha": alpha,
            "n_chunks": n_chunks, "tests": tests, "rejections": rejections, "alarms": alarms,
            "per_test": rejections / tests if tests else 0.0, "per_chunk": alarms / n_chunks}


def pu_false_alarm_table(
    chunk_sizes: Sequence[int] = (50, 100, 500, 1000),
    error_rates: Sequence[float] = (0.0, 0.005, 0.05, 0.3),
    variants: dict[str, dict[str, object]] | None = None,
    *,
    n_chunks: int = 2000,
    alpha: float = 1e-3,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """:func:`pu_false_alarm_rates` for every chunk size, error rate and variant.

    One row per cell and variant (``variant`` names a key of ``variants``, default
    :data:`FLOOR_VARIANTS`); the same seed gives every variant the same stream.

    Examples
    --------
    >>> df = pu_false_alarm_table((100,), (0.0,), n_chunks=50)
    >>> df["variant"].tolist()
    ['default (floor 5)', 'clamp_min=0', 'clamp_min=0, min_expected=5']
    """
    variants = FLOOR_VARIANTS if variants is None else variants
    rows = []
    cells = [(c, e, v) for c in chunk_sizes for e in error_rates for v in variants]
    for i, (size, rate, name) in enumerate(cells, 1):
        row = pu_false_alarm_rates(size, rate, n_chunks=n_chunks, alpha=alpha, seed=seed,
                                   detector_options=dict(variants[name]))
        rows.append({"variant": name, **row})
        if progress is not None:
            progress(i, len(cells))
    return pd.DataFrame(rows)

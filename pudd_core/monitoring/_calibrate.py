"""Choose α on your own stream: false alarms and delay per α, estimated from a stable stretch.

The null comes from the data itself: the stable stretch's rows (PU-index and correctness,
in order) are resampled by a moving-block bootstrap (blocks of consecutive rows keep the
short-range structure a chunk sees), each resample is cut into chunks and run through the
monitor's PUDD, and the alarms per chunk are counted per α. The estimate assumes that the
rest of the stream is like the stretch; where it is not (a drift), alarms are what PUDD is for.

The block is as long as the stretch's rows are dependent (:func:`block_length`), not a whole
chunk: with chunk-long blocks every resampled chunk is one window of the stretch, so the
resamples replay the stretch's few chunks, and the rate inherits their luck. On i.i.d. rows
(40 chunks of 100, α = 0.1, no skip rule) the estimate then spread from 0.062 to 0.168 over 40
stretches (sd 0.025, against 0.009 with the stretch's own blocks of 1 to 5 rows) around the
fresh streams' 0.116, and its interval, which counts only the resampling's error, held that
rate for 22 of 40 stretches (38 of 40 with the stretch's own blocks;
scripts/calibration_coverage.py, tests/test_calibration.py).

Delay and power come from the same resamples with a change injected after a chosen chunk.
A changed resample is its null resample up to that chunk, so its run is the null run's
state there (copied), fed the changed chunks: the chunks before the change are run once,
not twice. The baselines (river's DDM, ADWIN, KSWIN, ...) run on the same resamples, fed
each row's error as the monitor feeds them.

One PUDD run serves every α until their decisions part: runs at two thresholds see the
same chunks and draw the same bucketing samples, so they are identical until a chunk whose
p-value lies between the two; there the run is copied, one copy alarms (and resets its
history, spec §1.10) and the other goes on. A run per resample costs one detector pass plus
one copy per parting, not one pass per α.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pudd_core._validation import (
    ParameterError,
    as_mask,
    as_pu_array,
    check_open_unit,
    check_positive_int,
    check_seed,
)
from pudd_core.detector import ChunkPUDD
from pudd_core.monitoring._incremental import (
    VARIANTS,
    Variant,
    baseline_names,
    check_detector_options,
)

__all__ = ["CHANGES", "DEFAULT_ALPHAS", "AlphaCalibration", "CalibrationResult",
           "alarm_chunks", "block_length", "block_resample", "calibrate", "inject_change"]

Change = Literal["confidence", "error_rate", "prior"]
#: The changes :func:`inject_change` makes (``size`` in [0, 1] for each).
CHANGES: tuple[Change, ...] = ("confidence", "error_rate", "prior")
#: The thresholds calibrated by default: 10^-1 .. 10^-6, half decades down to 10^-4.
DEFAULT_ALPHAS: tuple[float, ...] = (1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 1e-5, 1e-6)
#: The delay quantiles reported.
QUANTILES: tuple[float, ...] = (0.1, 0.5, 0.9)


def block_length(u: NDArray[np.float64], correct: NDArray[np.bool_], chunk_size: int) -> int:
    """Rows per bootstrap block: how far the stretch's rows depend on each other, at most a chunk.

    Politis and White's automatic length for the circular block bootstrap (2004, with Patton,
    Politis and White's 2009 correction), the larger of the PU-index's and the correctness's:
    the autocorrelations are read up to the first run of ``max(5, sqrt(log10 n))`` lags that
    all lie within ``2 sqrt(log10 n / n)`` (lag ``m``), and the length is ``(2 G^2 / D)^(1/3)
    n^(1/3)`` from the flat-top kernel's sums over ``2 m`` lags. Independent rows get blocks of
    a row or a few, so each resampled chunk is a fresh draw; rows that still correlate at every
    lag the rule reads (up to ``sqrt(n) + 5``: a stretch whose weeks differ) keep whole chunks.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(0, 0.5, 4000)
    >>> block_length(u, u < 0.4, 100)  # independent rows: a few
    5
    >>> wander = np.repeat(rng.uniform(0, 0.5, 40), 100)  # each chunk its own level
    >>> block_length(wander, wander < 0.4, 100)
    100
    """
    return max(_pw_length(u, chunk_size), _pw_length(correct.astype(np.float64), chunk_size))


def _pw_length(x: NDArray[np.float64], chunk_size: int) -> int:
    """:func:`block_length` of one series."""
    n = x.size
    if np.ptp(x) == 0:
        return 1  # a constant series has no dependence to keep
    eps = x - x.mean()
    kn = max(5, math.ceil(math.sqrt(math.log10(n))))
    m_max = min(math.ceil(math.sqrt(n)) + kn, n - 1)
    from scipy.signal import correlate

    acv = correlate(eps, eps, mode="full", method="fft")[n - 1:n + m_max] / n  # lags 0..m_max
    small = np.abs(acv[1:] / acv[0]) < 2 * math.sqrt(math.log10(n) / n)
    runs = np.lib.stride_tricks.sliding_window_view(small, kn).all(axis=1)
    if not runs.any():
        return chunk_size
    m = min(2 * max(int(np.argmax(runs)), 1), m_max)
    k = np.arange(1, m + 1)
    lam = np.where(k / m <= 0.5, 1.0, 2 * (1 - k / m))  # the flat-top kernel
    g = 2 * np.sum(lam * k * acv[1:m + 1])
    long_run = acv[0] + 2 * np.sum(lam * acv[1:m + 1])
    if long_run <= 0:
        return 1
    b = (2 * g**2 / (4 / 3 * long_run**2)) ** (1 / 3) * n ** (1 / 3)
    return int(min(max(math.ceil(b), 1), chunk_size))


def block_resample(n_rows: int, length: int, block: int,
                   rng: np.random.Generator) -> NDArray[np.intp]:
    """Row indices of one moving-block bootstrap resample: ``length`` rows of ``n_rows``.

    Blocks of ``block`` consecutive rows start at uniform positions in ``0 .. n_rows -
    block``; they are laid end to end and the last is cut to ``length``.

    Examples
    --------
    >>> idx = block_resample(10, 7, 3, np.random.default_rng(0))
    >>> idx.size, bool((np.diff(idx)[:2] == 1).all()), int(idx.max()) < 10
    (7, True, True)
    """
    block = min(block, n_rows)
    starts = rng.integers(0, n_rows - block + 1, size=-(-length // block))
    return (starts[:, None] + np.arange(block)).ravel()[:length]


def inject_change(u: NDArray[np.float64], correct: NDArray[np.bool_], start: int,
                  kind: Change, size: float, rng: np.random.Generator,
                  labels: NDArray[Any] | None = None,
                  ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The rows from ``start`` on, changed: new arrays (the inputs are not touched).

    ``"confidence"``: the paper's case, a confidence shift at flat accuracy: each correct
    row's PU-index moves ``size`` of the way up to 0.5 (``u + size * (0.5 - u)``, for
    ``u < 0.5``), so predictions grow less sure while every decision stays as it was.
    ``"error_rate"``: a share ``size`` of the correct rows, drawn at random, become wrong,
    their PU-index ``1 - u`` (the true class's probability goes to the other class).
    ``"prior"``: a class-prior shift (needs ``labels``, each row's true class): each row is
    replaced, with probability ``size``, by a row drawn from those before ``start`` of the
    class rarest there, so that class's share moves ``size`` of the way to 1 while each
    class's predictions stay as they were.
    ``size=0`` changes nothing.

    Examples
    --------
    >>> u, ok = np.array([0.1, 0.3, 0.8]), np.array([True, True, False])
    >>> inject_change(u, ok, 1, "confidence", 0.5, np.random.default_rng(0))[0].tolist()
    [0.1, 0.4, 0.8]
    >>> inject_change(u, ok, 0, "error_rate", 1.0, np.random.default_rng(0))[1].tolist()
    [False, False, False]
    >>> u4, ok4 = np.array([0.1, 0.2, 0.3, 0.4]), np.ones(4, dtype=bool)
    >>> inject_change(u4, ok4, 3, "prior", 1.0, np.random.default_rng(0),
    ...               labels=np.array([0, 0, 1, 0]))[0].tolist()  # row 3: class 1's row
    [0.1, 0.2, 0.3, 0.3]
    """
    u, ok = u.copy(), correct.copy()
    tail_u, tail_ok = u[start:], ok[start:]
    if kind == "confidence":
        up = tail_ok & (tail_u < 0.5)
        tail_u[up] += size * (0.5 - tail_u[up])
    elif kind == "error_rate":
        flip = tail_ok & (rng.random(tail_ok.size) < size)
        tail_u[flip] = 1.0 - tail_u[flip]
        tail_ok[flip] = False
    elif kind == "prior":
        head = _prior_pool(labels, u.size, start)
        take = rng.random(tail_u.size) < size
        src = head[rng.integers(0, head.size, int(take.sum()))]
        tail_u[take], tail_ok[take] = u[src], ok[src]
    else:
        raise ParameterError("change", f"change must be one of {', '.join(CHANGES)}, got "
                                       f"{kind!r}", CHANGES)
    return u, ok


def _prior_pool(labels: NDArray[Any] | None, n_rows: int, start: int) -> NDArray[np.intp]:
    """The rows before ``start`` of the class rarest there: a prior shift's draws."""
    if labels is None or len(labels) != n_rows:
        raise ParameterError("labels", "a class-prior shift needs each row's true class: "
                                       "pass labels, one per row")
    classes, counts = np.unique(np.asarray(labels)[:start], return_counts=True)
    if classes.size < 2:
        raise ParameterError("labels", "a class-prior shift needs two classes or more in the "
                                       "stretch before the change; this one has "
                                       f"{classes.size}")
    return np.flatnonzero(np.asarray(labels)[:start] == classes[np.argmin(counts)])


Groups = list[tuple[ChunkPUDD, list[int]]]


def alarm_chunks(chunks: Sequence[tuple[NDArray[np.float64], NDArray[np.bool_]]],
                  alphas: Sequence[float], make: Callable[[float], ChunkPUDD],
                  stop_from: int | None = None) -> list[list[int]]:
    """Per α (sorted decreasing), the chunks at which PUDD at that α alarms.

    With ``stop_from``, an α's run ends at its first alarm at or after that chunk (a delay
    needs nothing after it). Runs are shared until their decisions part (module docstring):
    the result is the same as one run per α.

    Examples
    --------
    >>> from pudd_core.detector import ChunkPUDD
    >>> rng = np.random.default_rng(0)
    >>> chunks = [(rng.uniform(0, 0.2 if t < 6 else 0.6, 300), np.ones(300, bool))
    ...           for t in range(10)]
    >>> make = lambda a: ChunkPUDD(alpha=a, skip_rule=None)
    >>> shared = alarm_chunks(chunks, [0.1, 1e-3], make)
    >>> one_by_one = [alarm_chunks(chunks, [a], make)[0] for a in (0.1, 1e-3)]
    >>> shared == one_by_one, shared[1][:1]
    (True, [6])
    """
    return _shared_run(chunks, alphas, [(make(alphas[0]), list(range(len(alphas))))],
                       stop_from=stop_from)[0]


def _shared_run(chunks: Sequence[tuple[NDArray[np.float64], NDArray[np.bool_]]],
                alphas: Sequence[float], groups: Groups, *, first: int = 0,
                stop_from: int | None = None,
                snapshot_at: int | None = None) -> tuple[list[list[int]], Groups | None]:
    """:func:`alarm_chunks` from ``groups`` (the runs' state before chunk ``first``).

    ``chunks`` are the chunks from ``first`` on. With ``snapshot_at``, a copy of the runs'
    state before that chunk is returned too (a changed resample continues from it).
    """
    out: list[list[int]] = [[] for _ in alphas]
    snapshot: Groups | None = None
    for t, (u, ok) in enumerate(chunks, start=first):
        if t == snapshot_at:
            snapshot = copy.deepcopy(groups)
        after: Groups = []
        for det, idx in groups:
            det.update(u, ok)
            p = det.p_value
            hit = [i for i in idx if p < alphas[i]]
            miss = idx[len(hit):]  # alphas decrease: the hits come first
            for i in hit:
                out[i].append(t)
            if stop_from is not None and t >= stop_from:
                hit = []
            if hit:  # a parting: the quiet α go on with this run, the others with a copy
                after.append((_alarmed_copy(det) if miss else det, hit))  # about to reset
            if miss:
                if len(miss) < len(idx):  # it alarmed at a larger α: not at these
                    det.lower_alpha(alphas[miss[0]])
                after.append((det, miss))
        groups = after
        if not groups and snapshot_at is None:
            break
    return out, snapshot


def _alarmed_copy(det: ChunkPUDD) -> ChunkPUDD:
    """A copy of ``det`` just after its alarm, for the α that alarmed at a parting.

    An alarmed detector clears its history at its next update (spec §1.10) before reading
    anything of it, so the copy shares the history (the quiet run's, which goes on) instead
    of copying it: only the bucketing generator, which runs on across the reset, is copied;
    the rest is settings and the last scan's result, which no update changes. A deep copy
    cost 7 % of a calibration's time (issue 35). The alarms are those of a plain detector
    per α: tests/test_calibration_runs.py.
    """
    out = copy.copy(det)
    out._rng = copy.deepcopy(det._rng)
    return out


def _baseline_run(chunks: Sequence[tuple[NDArray[np.float64], NDArray[np.bool_]]],
                  dets: dict[str, Any], *, first: int = 0, stop_from: int | None = None,
                  snapshot_at: int | None = None,
                  ) -> tuple[dict[str, list[int]], dict[str, Any] | None]:
    """Per baseline, the chunks where it alarms, fed each row's error as the monitor does."""
    if not dets:
        return {}, {}
    from pudd_core.experiments.baselines import feed_errors

    out: dict[str, list[int]] = {b: [] for b in dets}
    live = dict(dets)
    snapshot = None
    for t, (_, ok) in enumerate(chunks, start=first):
        if t == snapshot_at:
            snapshot = copy.deepcopy(live)
        errors = (~ok).astype(np.int64)
        for name in list(live):
            if feed_errors(live[name], errors):
                out[name].append(t)
                if stop_from is not None and t >= stop_from:
                    del live[name]
                else:
                    live[name] = live[name].clone()  # as the monitor: a fresh one after a hit
        if not live and snapshot_at is None:
            break
    return out, snapshot


class _Resample(NamedTuple):
    """One resample as :func:`calibrate` builds it, as its runs take it.

    Its rows, the changed rows from the change on (None: no change), and the seed of its
    detectors' bucketing samples.
    """

    u: NDArray[np.float64]
    correct: NDArray[np.bool_]
    changed: tuple[NDArray[np.float64], NDArray[np.bool_]] | None
    seed: int


@dataclass(frozen=True)
class _Setup:
    """What every resample's runs share.

    The α grid (decreasing), PUDD's options, the baselines, the chunk size and the chunk of
    the change (None: no change).
    """

    grid: tuple[float, ...]
    options: tuple[tuple[str, Any], ...]
    baselines: tuple[str, ...]
    chunk_size: int
    after: int | None


class _Runs(NamedTuple):
    """One resample's outcome: per α its false alarms and its delay, the same per baseline."""

    alarms: list[tuple[int, ...]]
    delays: list[float]  # empty without a change
    b_alarms: dict[str, tuple[int, ...]]
    b_delays: dict[str, float]


def _run_resample(res: _Resample, setup: _Setup,
                  null_done: Callable[[], None] | None = None) -> _Runs:
    """PUDD (every α in one shared run) and the baselines on one resample, null then changed.

    Module-level, and fed plain data, so that a worker process can run it (:func:`calibrate`,
    ``n_jobs``); ``null_done`` is called between the null run and the changed one.
    """
    grid, cs, after = list(setup.grid), setup.chunk_size, setup.after
    make_baseline: Callable[..., Any] | None = None
    if setup.baselines:  # river is imported only when a baseline is asked for
        from pudd_core.experiments.baselines import make as make_baseline
    chunks = _cut(res.u, res.correct, cs)
    hits, snap = _shared_run(chunks, grid, [(ChunkPUDD(grid[0], seed=res.seed,
                                                       **dict(setup.options)),
                                             list(range(len(grid))))], snapshot_at=after)
    base_hits, base_snap = _baseline_run(
        chunks, {b: make_baseline(b, seed=res.seed) for b in setup.baselines}
        if make_baseline is not None else {}, snapshot_at=after)
    out = _Runs([tuple(h) for h in hits], [], {b: tuple(h) for b, h in base_hits.items()}, {})
    if null_done is not None:
        null_done()
    if after is None or res.changed is None:
        return out
    assert snap is not None and base_snap is not None
    tail = _cut(*res.changed, cs)
    hits = _shared_run(tail, grid, snap, first=after, stop_from=after)[0]
    out.delays.extend(float(h[0] - after) if h else math.inf for h in hits)
    base_hits = _baseline_run(tail, base_snap, first=after, stop_from=after)[0]
    out.b_delays.update({b: float(h[0] - after) if h else math.inf
                         for b, h in base_hits.items()})
    return out


#: Resampled chunks (``n_resamples * n_chunks``) from which :func:`calibrate` runs its
#: resamples on worker processes by default. The runs cost about 1 ms of CPU per resampled
#: chunk and a cold worker 2-4 s to start (it imports the library): from here on, two
#: workers save more than they cost to start (BENCHMARKS.md, "Choosing α").
WORKER_CHUNKS = 10_000


def _jobs(n_jobs: int | None, work: int, n_resamples: int) -> int:
    """The worker processes for ``work`` resampled chunks (1: none, the runs go here)."""
    if n_jobs is None:
        from pudd_core.experiments.pool import parallel

        if work < WORKER_CHUNKS or not parallel():
            return 1
        n_jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
            os.cpu_count() or 1)
    return max(1, min(n_jobs, n_resamples))


def _run_resamples(resamples: Iterator[_Resample], setup: _Setup, n_resamples: int,
                   jobs: int, progress: Callable[[int, int], None] | None,
                   total: int) -> list[_Runs]:
    """Every resample's runs, in order: here one after another, or on ``jobs`` workers.

    Each resample's runs depend on its own data and seed only, so the outcome is the same
    both ways (tests/test_calibration.py). On workers, ``progress`` is called as each
    resample's runs come back, and a ``progress`` that raises cancels the runs not begun.
    """
    per = total // n_resamples  # runs per resample: 2 with a change, else 1
    if jobs == 1:
        out = []
        for r, res in enumerate(resamples):
            def null_done(r: int = r) -> None:
                if progress is not None:
                    progress(r * per + 1, total)
            out.append(_run_resample(res, setup, null_done))
            if progress is not None and per == 2:
                progress(r * per + 2, total)
        return out
    from pudd_core.experiments.pool import in_workers

    runs: list[_Runs | None] = [None] * n_resamples
    back = in_workers(_run_resample, ((res, setup) for res in resamples), jobs)
    try:
        for done, (r, run) in enumerate(back, start=1):
            runs[r] = run
            if progress is not None:
                progress(done * per, total)
    finally:
        back.close()  # a stop (progress raised): the runs not begun are cancelled now
    assert all(r is not None for r in runs)
    return [r for r in runs if r is not None]


@dataclass(frozen=True)
class AlphaCalibration:
    """What one α costs on the stretch: false alarms (null) and, with a change, its delay."""

    alpha: float
    #: False alarms over the resamples' chunks, and the chunks monitored.
    n_alarms: int
    n_chunks: int
    #: ``n_alarms / n_chunks`` and its 95 % Wilson interval (Monte-Carlo error only).
    false_alarm_rate: float
    ci: tuple[float, float]
    #: Per resample with the change: chunks from the change to the first alarm at or after
    #: it (0: the first changed chunk), ``inf`` if none came.
    delays: tuple[float, ...] = ()
    within: int = 0
    #: Per resample, the chunks at which the false alarms came.
    alarm_chunks: tuple[tuple[int, ...], ...] = ()
    #: A baseline's row: its name (``alpha`` is then NaN); "" for PUDD's.
    detector: str = ""

    @property
    def chunks_between_alarms(self) -> float:
        """The mean run of chunks between false alarms (``inf`` without one)."""
        return self.n_chunks / self.n_alarms if self.n_alarms else math.inf

    @property
    def detection_rate(self) -> float:
        """The share of resamples whose change is detected within ``within`` chunks."""
        if not self.delays:
            return math.nan
        return float(np.mean(np.asarray(self.delays) < self.within))

    def delay_quantiles(self) -> dict[float, float]:
        """Delay quantiles (:data:`QUANTILES`; ``inf``: not detected that early)."""
        if not self.delays:
            return {q: math.nan for q in QUANTILES}
        d = np.asarray(self.delays)
        return {q: float(np.quantile(d, q, method="inverted_cdf")) for q in QUANTILES}


@dataclass(frozen=True)
class CalibrationResult:
    """Per α, its false-alarm rate and delay on the resampled stretch; the recommended α."""

    per_alpha: tuple[AlphaCalibration, ...]
    chunk_size: int
    n_chunks: int
    n_resamples: int
    block: int
    variant: str
    detector_options: tuple[tuple[str, Any], ...]
    seed: int
    change: Change | None
    size: float
    after: int
    target: float | None
    #: The baselines run on the same resamples, one row each (``detector`` names it).
    baselines: tuple[AlphaCalibration, ...] = ()

    @property
    def recommended(self) -> AlphaCalibration | None:
        """The largest α whose interval's upper end is at most the target (None: none is).

        The upper end, not the estimate: a rate estimated from finitely many resampled
        chunks is known only to its interval, and a user who asks for one false alarm in
        a thousand chunks should not get more because the estimate was lucky.
        """
        if self.target is None:
            return None
        ok = [a for a in self.per_alpha if a.ci[1] <= self.target]
        return max(ok, key=lambda a: a.alpha) if ok else None

    def row(self, alpha: float) -> AlphaCalibration:
        """The calibration of one α of the grid."""
        for a in self.per_alpha:
            if a.alpha == alpha:
                return a
        raise ParameterError("alpha", f"alpha {alpha:g} is not in the calibrated grid")

    def frame(self) -> Any:
        """One row per α: rate, interval, chunks between false alarms, detection and delay."""
        import pandas as pd

        rows = []
        for a in (*self.per_alpha, *self.baselines):
            q = a.delay_quantiles()
            rows.append({"detector": a.detector or "PUDD", "alpha": a.alpha,
                         "false_alarms": a.n_alarms, "chunks": a.n_chunks,
                         "false_alarm_rate": a.false_alarm_rate, "ci_low": a.ci[0],
                         "ci_high": a.ci[1], "chunks_between": a.chunks_between_alarms,
                         "detected": a.detection_rate,
                         **{f"delay_q{round(k * 100)}": v for k, v in q.items()}})
        return pd.DataFrame(rows)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able summary: the settings, the recommended α and every α's row."""
        def num(x: float) -> float | None:
            return None if not math.isfinite(x) else x

        def entry(a: AlphaCalibration) -> dict[str, Any]:
            return {**({"detector": a.detector} if a.detector else {"alpha": a.alpha}),
                    "false_alarm_rate": a.false_alarm_rate,
                    "ci": list(a.ci), "false_alarms": a.n_alarms, "chunks": a.n_chunks,
                    "chunks_between_false_alarms": num(a.chunks_between_alarms),
                    "detection_rate": num(a.detection_rate), "within": a.within,
                    "delay": {f"q{round(k * 100)}": num(v)
                              for k, v in a.delay_quantiles().items()}}

        rec = self.recommended
        return {**({"target": self.target, **entry(rec)} if rec is not None else
                   {"target": self.target, "alpha": None}),
                "chunk_size": self.chunk_size, "reference_chunks": self.n_chunks,
                "n_resamples": self.n_resamples, "block": self.block,
                "variant": self.variant, "detector_options": dict(self.detector_options),
                "seed": self.seed, "change": self.change, "size": self.size,
                "after": self.after, "per_alpha": [entry(a) for a in self.per_alpha],
                **({"baselines": [entry(b) for b in self.baselines]} if self.baselines
                   else {})}


def calibrate(
    u: ArrayLike,
    correct: ArrayLike,
    chunk_size: int,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    *,
    target: float | None = None,
    n_resamples: int = 100,
    n_chunks: int | None = None,
    block: int | None = None,
    change: Change | None = "confidence",
    size: float = 0.5,
    after: int | None = None,
    within: int = 3,
    variant: Variant = "calibrated",
    detector_options: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    labels: ArrayLike | None = None,
    baselines: Sequence[str] = (),
    n_jobs: int | None = None,
) -> CalibrationResult:
    """False alarms and delay per α of the monitor's PUDD, on resamples of a stable stretch.

    Parameters
    ----------
    u, correct
        The stretch's labelled rows in order: PU-index (``1 - p(true class)``) and whether
        each prediction was right (the monitor's scorer gives both from a log).
    chunk_size
        Rows per chunk, as the monitor will cut the stream.
    alphas
        The thresholds to calibrate.
    target
        A false-alarm rate per chunk: :attr:`CalibrationResult.recommended` is the largest
        α whose interval stays at or below it.
    n_resamples
        Resampled streams (each ``n_chunks`` chunks long).
    n_chunks
        Chunks per resample (default: as many as the stretch holds).
    block
        Rows per bootstrap block (default: :func:`block_length`, as far as the stretch's rows
        depend on each other, at most ``chunk_size``; a chunk's worth keeps every chunk a
        window of the stretch, whose few chunks the resamples then replay).
    change, size, after, within
        The change injected for the delay: ``"confidence"``, ``"error_rate"`` or ``"prior"``
        (:func:`inject_change`; ``"prior"`` needs ``labels``) of ``size``, from chunk
        ``after`` on (default: the middle); detection counts within ``within`` chunks of it.
        ``change=None``: no delay runs. A change of size 0 gives each run's first false
        alarm at or after ``after``.
    variant, detector_options, seed
        The monitor's PUDD (:func:`~pudd_core.monitoring.monitor`'s meanings) and the seed
        of the resampling and of the detectors' bucketing samples.
    progress
        Called with ``(runs done, runs in all)`` after each resampled run; it may raise to
        stop.
    labels
        Each row's true class, for ``change="prior"``.
    baselines
        river baselines (``"ddm"``, ``"adwin"``, ``"kswin"``, ...) run on the same resamples,
        null and changed, fed each row's error: :attr:`CalibrationResult.baselines`.
    n_jobs
        Worker processes for the resampled runs (1: none, all run here). None (default): one
        per core when the work is at least :data:`WORKER_CHUNKS` resampled chunks and worker
        processes are on (:func:`pudd_core.experiments.pool.parallel`), else none. The result
        is the same either way: each resample's runs depend on its own rows and seed only.
        On workers, ``progress`` is called as each resample's runs come back.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.5, 1.0, 4000)  # p(true class)
    >>> ok = rng.random(4000) < p
    >>> res = calibrate(np.where(ok, 1 - p, p), ok, 200, [0.1, 1e-3], target=0.1,
    ...                 n_resamples=5, seed=0)
    >>> [a.n_chunks for a in res.per_alpha], res.recommended.alpha
    ([100, 100], 0.001)
    """
    vals = as_pu_array("u", u)
    ok = as_mask("correct", correct, vals.size, "u")
    check_positive_int("chunk_size", chunk_size)
    check_positive_int("n_resamples", n_resamples)
    check_seed("seed", seed)
    for a in alphas:
        check_open_unit("alphas", a)
    grid = sorted({float(a) for a in alphas}, reverse=True)
    if not grid:
        raise ParameterError("alphas", "give at least one alpha to calibrate")
    if target is not None:
        check_open_unit("target", target)
    if vals.size < 2 * chunk_size:
        raise ParameterError("u", f"the stretch has {vals.size} labelled rows, fewer than two "
                                  f"chunks of {chunk_size}: PUDD needs two chunks to test; "
                                  "give a longer stretch or smaller chunks")
    n_chunks = vals.size // chunk_size if n_chunks is None else n_chunks
    check_positive_int("n_chunks", n_chunks, minimum=2, why=" (PUDD needs two chunks to test)")
    # issue 35: the block follows the stretch's own dependence (block_length), no longer a
    # whole chunk, which replayed the stretch's few chunks (the rate's error was theirs)
    block = block_length(vals, ok, chunk_size) if block is None else block
    check_positive_int("block", block)
    if change is not None and change not in CHANGES:
        raise ParameterError("change", f"change must be one of {', '.join(CHANGES)} or None, "
                                       f"got {change!r}", CHANGES)
    if not (isinstance(size, int | float) and 0.0 <= size <= 1.0):
        raise ParameterError("size", f"size must be a number in [0, 1], got {size!r}")
    after = n_chunks // 2 if after is None else after
    if not (isinstance(after, int) and 1 <= after < n_chunks):
        raise ParameterError("after", f"after must be a chunk in 1 .. {n_chunks - 1}, got "
                                      f"{after!r}")
    check_positive_int("within", within)
    if variant not in VARIANTS:
        raise ParameterError("variant", f"variant must be 'calibrated' or 'authors', got "
                                        f"{variant!r}", tuple(VARIANTS))
    options = {**VARIANTS[variant], **check_detector_options(detector_options)}
    ChunkPUDD(grid[0], **options)  # the options checked before any run

    labs = None
    if labels is not None:
        labs = np.asarray(labels)
        if labs.ndim != 1 or labs.size != vals.size:
            raise ParameterError("labels", f"labels must hold one class per row ({vals.size}), "
                                           f"got shape {labs.shape}")
    if change == "prior":
        _prior_pool(labs, vals.size, vals.size)  # two classes in the stretch, or refused
    names = baseline_names(baselines)
    check_positive_int("n_jobs", n_jobs, optional=True)

    length = n_chunks * chunk_size
    streams = np.random.SeedSequence(seed).spawn(n_resamples)
    total = n_resamples * (2 if change is not None else 1)

    def resamples() -> Iterator[_Resample]:
        """Each resample, null and changed, as the runner takes it (built lazily, here)."""
        for ss in streams:
            rng_rows, rng_change, rng_det = (np.random.default_rng(s) for s in ss.spawn(3))
            det_seed = int(rng_det.integers(2**31))
            idx = block_resample(vals.size, length, block, rng_rows)
            ru, rok = vals[idx], ok[idx]
            tail = None
            if change is not None:
                cu, cok = inject_change(ru, rok, after * chunk_size, change, size, rng_change,
                                        None if labs is None else labs[idx])
                tail = (cu[after * chunk_size:], cok[after * chunk_size:])
            yield _Resample(ru, rok, tail, det_seed)

    setup = _Setup(tuple(grid), tuple(options.items()), tuple(names), chunk_size,
                   after if change is not None else None)
    runs = _run_resamples(resamples(), setup, n_resamples,
                          _jobs(n_jobs, n_resamples * n_chunks, n_resamples), progress, total)
    alarms = [[r.alarms[i] for r in runs] for i in range(len(grid))]
    delays = [[r.delays[i] for r in runs if r.delays] for i in range(len(grid))]
    b_alarms = {b: [r.b_alarms[b] for r in runs] for b in names}
    b_delays = {b: [r.b_delays[b] for r in runs if r.b_delays] for b in names}
    n = n_resamples * n_chunks
    return CalibrationResult(
        tuple(_row(a, tuple(k), n, d, within)
              for a, k, d in zip(grid, alarms, delays, strict=True)),
        chunk_size, n_chunks, n_resamples, block, variant,
        tuple(sorted(options.items())), seed, change, float(size), after, target,
        tuple(dataclasses.replace(_row(math.nan, tuple(b_alarms[b]), n, b_delays[b], within),
                                  detector=b) for b in names))


def _cut(u: NDArray[np.float64], ok: NDArray[np.bool_],
         chunk_size: int) -> list[tuple[NDArray[np.float64], NDArray[np.bool_]]]:
    return [(u[i:i + chunk_size], ok[i:i + chunk_size]) for i in range(0, u.size, chunk_size)]


def _row(alpha: float, alarms: tuple[tuple[int, ...], ...], n: int, delays: list[float],
         within: int) -> AlphaCalibration:
    from scipy.stats import binomtest

    k = sum(len(a) for a in alarms)
    ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
    return AlphaCalibration(alpha, k, n, k / n, (float(ci.low), float(ci.high)),
                            tuple(delays), within, alarms)

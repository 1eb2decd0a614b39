"""Choose α on your own stream: false alarms and delay per α, estimated from a stable stretch.

The null comes from the data itself: the stable stretch's rows (PU-index and correctness,
in order) are resampled by a moving-block bootstrap (blocks of consecutive rows keep the
short-range structure a chunk sees), each resample is cut into chunks and run through the
monitor's PUDD, and the alarms per chunk are counted per α. The estimate assumes that the
rest of the stream is like the stretch; where it is not (a drift), alarms are what PUDD is for.

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

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
    Monitor,
    RecordWindows,
    Variant,
    baseline_names,
    check_detector_options,
)
from pudd_core.monitoring._log import (
    BATCH_ROWS,
    LogFormat,
    batches,
    check_source,
    log_columns,
    name_of,
)
from pudd_core.monitoring._result import MonitorResult
from pudd_core.monitoring._score import SUM_TOLERANCE

__all__ = ["CHANGES", "DEFAULT_ALPHAS", "AlphaCalibration", "CalibrationResult",
           "block_resample", "calibrate", "calibrate_log", "inject_change",
           "parse_time_range", "time_rows"]

Change = Literal["confidence", "error_rate", "prior"]
#: The changes :func:`inject_change` makes (``size`` in [0, 1] for each).
CHANGES: tuple[Change, ...] = ("confidence", "error_rate", "prior")
#: The thresholds calibrated by default: 10^-1 .. 10^-6, half decades down to 10^-4.
DEFAULT_ALPHAS: tuple[float, ...] = (1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 1e-5, 1e-6)
#: The delay quantiles reported.
QUANTILES: tuple[float, ...] = (0.1, 0.5, 0.9)


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
            if hit:
                after.append((det, hit))
            if miss:
                quiet = copy.deepcopy(det) if hit else det
                if len(miss) < len(idx):  # it alarmed at a larger α: not at these
                    quiet.lower_alpha(alphas[miss[0]])
                after.append((quiet, miss))
        groups = after
        if not groups and snapshot_at is None:
            break
    return out, snapshot


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
        Rows per bootstrap block (default ``chunk_size``: a chunk's rows keep their order and
        neighbours, as the monitor sees them).
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
    block = chunk_size if block is None else block
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
    if names:  # river is imported only when a baseline is asked for
        from pudd_core.experiments.baselines import make as make_baseline

    length = n_chunks * chunk_size
    streams = np.random.SeedSequence(seed).spawn(n_resamples)
    total = n_resamples * (2 if change is not None else 1)
    alarms: list[list[tuple[int, ...]]] = [[] for _ in grid]
    delays: list[list[float]] = [[] for _ in grid]
    b_alarms: dict[str, list[tuple[int, ...]]] = {b: [] for b in names}
    b_delays: dict[str, list[float]] = {b: [] for b in names}
    snap_at = after if change is not None else None
    for r, ss in enumerate(streams):
        rng_rows, rng_change, rng_det = (np.random.default_rng(s) for s in ss.spawn(3))
        det_seed = int(rng_det.integers(2**31))
        idx = block_resample(vals.size, length, block, rng_rows)
        ru, rok = vals[idx], ok[idx]
        hits, snap = _shared_run(_cut(ru, rok, chunk_size), grid,
                                 [(ChunkPUDD(grid[0], seed=det_seed, **options),
                                   list(range(len(grid))))], snapshot_at=snap_at)
        for i, h in enumerate(hits):
            alarms[i].append(tuple(h))
        base_hits, base_snap = _baseline_run(
            _cut(ru, rok, chunk_size), {b: make_baseline(b, seed=det_seed) for b in names},
            snapshot_at=snap_at)
        for b, h in base_hits.items():
            b_alarms[b].append(tuple(h))
        if progress is not None:
            progress(r * total // n_resamples + 1, total)
        if change is None:
            continue
        assert snap is not None and base_snap is not None
        cu, cok = inject_change(ru, rok, after * chunk_size, change, size, rng_change,
                                None if labs is None else labs[idx])
        tail = _cut(cu[after * chunk_size:], cok[after * chunk_size:], chunk_size)
        hits = _shared_run(tail, grid, snap, first=after, stop_from=after)[0]
        for i, h in enumerate(hits):
            delays[i].append(float(h[0] - after) if h else math.inf)
        base_hits = _baseline_run(tail, base_snap, first=after, stop_from=after)[0]
        for b, h in base_hits.items():
            b_delays[b].append(float(h[0] - after) if h else math.inf)
        if progress is not None:
            progress(r * total // n_resamples + 2, total)
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


def calibrate_log(
    source: Any,
    log_format: LogFormat | None = None,
    *,
    calibrate_on: int | tuple[Any, Any],
    false_alarm_rate: float,
    chunk_size: int | None = None,
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    n_resamples: int = 50,
    change: Change | None = "confidence",
    size: float = 0.5,
    within: int = 3,
    variant: Variant = "calibrated",
    detector_options: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
    baselines: Sequence[str] = (),
    normalize: bool = False,
    tolerance: float = SUM_TOLERANCE,
    record_windows: RecordWindows = "none",
    seed: int = 0,
    batch_rows: int = BATCH_ROWS,
    progress: Callable[[int, int], None] | None = None,
    time_format: str | None = None,
    time_unit: str | None = None,
    labels: Any = None,
    id_column: str | None = None,
    **columns: Any,
) -> tuple[CalibrationResult, MonitorResult]:
    """α chosen on a stable stretch of the log, then the log monitored at it from that stretch.

    ``calibrate_on`` is the stretch: a number of rows (the first ones, a whole number of
    chunks, at least two), or a time range ``(start, end)`` of the ``time_column``: the rows
    whose time is at least ``start`` and before ``end`` (read as the column is read:
    ISO 8601 text, ``time_format``, or numbers in ``time_unit``; the column sorted), their
    whole chunks used. :func:`calibrate` estimates each α's false-alarm rate on the stretch
    and recommends the largest α whose interval stays at or below ``false_alarm_rate``. The
    log is then monitored at that α with the stretch as its reference (as NannyML's reference
    period): the stretch's whole chunks, ending at its end, feed PUDD's history, so the first
    chunk after it is tested against them. The result (:func:`after_reference`) holds the
    chunks after the stretch, chunk for chunk those of :func:`~pudd_core.monitoring.monitor`
    on the whole log at that α (rows numbered as in the log, chunks from 0 after the
    stretch); the stretch's chunks and alarms are in ``reference_chunks`` and
    ``reference_alarms``, not in its alarms. The other parameters are
    :func:`calibrate`'s and :func:`~pudd_core.monitoring.monitor`'s.
    ``labels`` with ``id_column``: labels in a second file, joined by id to every pass over
    the log.

    Raises
    ------
    ParameterError
        For ``calibrate_on`` not a positive multiple of ``chunk_size``, a time range without
        a time column, unreadable, empty or not increasing, a stretch without two chunks of
        labelled rows or without a row after it, ``false_alarm_rate`` not in (0, 1), no α of
        the grid meeting the target, and everything :func:`~pudd_core.monitoring.monitor`
        refuses.
    """
    import time

    start = time.perf_counter()
    chunk_size = 1000 if chunk_size is None else chunk_size
    check_positive_int("chunk_size", chunk_size)
    by_time = isinstance(calibrate_on, tuple)
    if not by_time:
        check_positive_int("calibrate_on", calibrate_on, minimum=2 * chunk_size,
                           why=f" (two chunks of {chunk_size} rows: PUDD needs two to test)")
        if calibrate_on % chunk_size:  # type: ignore[operator]
            raise ParameterError("calibrate_on", f"calibrate_on must be a whole number of "
                                                 f"chunks (a multiple of the chunk size "
                                                 f"{chunk_size}), got {calibrate_on}")
    check_open_unit("false_alarm_rate", false_alarm_rate)
    check_positive_int("batch_rows", batch_rows)
    if change == "prior":
        raise ParameterError("change", "a log's calibration injects a 'confidence' or an "
                                       "'error_rate' change; a class-prior shift needs each "
                                       "row's class: use calibrate(u, correct, ..., labels=)",
                             ("confidence", "error_rate"))

    time_column = (log_format.time_column if log_format is not None
                   else columns.get("time_column"))
    if isinstance(calibrate_on, tuple):  # the time column finds the stretch; chunks are rows
        columns = {k: v for k, v in columns.items() if k != "time_column"}
        if log_format is not None:
            log_format = dataclasses.replace(log_format, time_column=None)

    def monitor_at(alpha: float) -> Monitor:
        return Monitor(log_format, chunk_size=chunk_size, alpha=alpha,
                       detector_options=detector_options, baselines=baselines,
                       normalize=normalize, tolerance=tolerance, record_windows=record_windows,
                       seed=seed, variant=variant, **columns)

    check_source(source)
    names = log_columns(source)
    reference = monitor_at(1e-3)  # every monitor option checked; its scorer reads the stretch
    join = None
    if labels is not None or id_column is not None:  # labels in a second file, read once
        from pudd_core.monitoring._labels import join_parts, joined

        join = joined(reference, source, labels, id_column, batch_rows)
        join.check_columns(names)
        names = [*names, join.label]
    fmt = reference.start(names)
    assert reference.scorer is not None

    def parts() -> Any:
        if join is None:
            return batches(source, fmt.columns, batch_rows)
        return join_parts(join, source, fmt, batch_rows)

    if isinstance(calibrate_on, tuple):
        first, stop = time_rows(source, time_column, calibrate_on, time_format, time_unit,
                                batch_rows)
    else:
        first, stop = 0, int(calibrate_on)
    what = (f"the rows from {calibrate_on[0]} to {calibrate_on[1]} (rows {first}..{stop - 1})"
            if isinstance(calibrate_on, tuple) else f"the first {stop} rows")
    us, oks, offset, more = [], [], 0, False
    for n, frame in parts():
        lo, hi = max(first - offset, 0), min(stop - offset, n)
        if lo < hi:
            part = {c: s.iloc[lo:hi] for c, s in frame.items()}
            scored = reference.scorer(part, hi - lo, offset + lo)
            us.append(scored.u[scored.labelled])
            oks.append(scored.ok[scored.labelled])
        offset += n
        if offset > stop:
            more = True
            break
    if not more:
        raise ParameterError("calibrate_on", f"calibrate_on ({what}) leaves no row of "
                                             f"{name_of(source)} to monitor (it has "
                                             f"{offset} rows); calibrate on fewer rows")
    n_labelled = sum(x.size for x in us)
    if n_labelled < 2 * chunk_size:
        raise ParameterError("calibrate_on", f"calibrate_on: {what} hold {n_labelled} "
                                             "labelled rows, "
                                             f"fewer than two chunks of {chunk_size}: "
                                             "calibrate on more rows")
    cal = calibrate(np.concatenate(us), np.concatenate(oks), chunk_size, alphas,
                    target=false_alarm_rate, n_resamples=n_resamples, change=change,
                    size=size, within=within, variant=variant,
                    detector_options=detector_options, seed=seed, progress=progress,
                    baselines=baselines)
    best = cal.recommended
    if best is None:
        low = cal.per_alpha[-1]
        raise ParameterError(
            "false_alarm_rate", f"no alpha of the grid keeps the false-alarm rate at or "
            f"below {false_alarm_rate:g} per chunk: the smallest, {low.alpha:g}, is known only "
            f"to be at most {low.ci[1]:.3g} ({low.n_alarms} false alarms in {low.n_chunks} "
            "resampled chunks); allow a larger rate, add smaller alphas, or calibrate on more "
            "rows or resamples" + ("; the authors' count floor invents counts that no alpha "
                                  "may tame: try the calibrated variant"
                                  if variant == "authors" else ""))
    # The stretch is the monitor's reference (as NannyML's reference period): its whole
    # chunks, ending at the stretch's end, feed the detector's history, so the first chunk
    # after it is tested against them; their alarms are kept apart, not reported.
    begin = stop - (stop - first) // chunk_size * chunk_size
    m = monitor_at(best.alpha)
    m.start(names)
    m.next_row = begin  # rows keep the log's numbers
    seen = 0
    for n, frame in parts():
        skip = max(0, begin - seen)
        seen += n
        if skip >= n:
            continue
        m.feed({c: s.iloc[skip:] for c, s in frame.items()}, n - skip)
    m.finish()
    result = after_reference(m.result(name_of(source), time.perf_counter() - start), stop)
    if join is not None:  # what the join found (the rows' count is the monitored rows')
        result = dataclasses.replace(result,
                                     notes=(*result.notes, *join.notes(result)[1:]))
    return cal, result


def after_reference(result: MonitorResult, stop: int) -> MonitorResult:
    """``result``'s chunks from row ``stop`` on, renumbered from 0; those before: its reference.

    The chunks before ``stop`` (the reference) fed the detector's history: the chunks after
    are the whole log's chunk for chunk. Their alarms are kept in ``reference_alarms`` (0-based
    among the reference's chunks), not in :attr:`~MonitorResult.alarms`.

    Examples
    --------
    >>> import pandas as pd
    >>> from pudd_core.monitoring import monitor
    >>> rng = np.random.default_rng(0)
    >>> p = np.r_[rng.uniform(0.8, 1, 1000), rng.uniform(0.5, 0.7, 400)]
    >>> log = pd.DataFrame({"proba_1": p, "proba_0": 1 - p, "label": 1})
    >>> whole = monitor(log, label="label", proba_prefix="proba_", chunk_size=100,
    ...                 detector_options={"skip_rule": None})
    >>> rest = after_reference(whole, 1000)
    >>> rest.reference_chunks, rest.n_chunks, rest.alarms[:1], rest.spans[0].first_row
    (10, 4, (0,), 1000)
    """
    n_ref = sum(s.last_row < stop for s in result.spans)
    if n_ref == len(result.spans):
        raise ParameterError("label", f"no row of {result.source} after the stretch (from row "
                                      f"{stop}) has a label yet: there is nothing to monitor")

    def span(s: Any) -> Any:
        return dataclasses.replace(s, index=s.index - n_ref)

    return dataclasses.replace(
        result, spans=tuple(span(s) for s in result.spans[n_ref:]),
        records=tuple(dataclasses.replace(r, chunk_index=r.chunk_index - n_ref)
                      for r in result.records[n_ref:]),
        baselines={k: v[n_ref:] for k, v in result.baselines.items()},
        pending=tuple(span(s) for s in result.pending),
        reference_chunks=n_ref,
        reference_alarms=tuple(r.chunk_index for r in result.records[:n_ref] if r.alarm))


def parse_time_range(text: str) -> tuple[str, str]:
    """``"START..END"`` as its two ends (text, read later as the time column is read).

    Examples
    --------
    >>> parse_time_range("2024-01-01..2024-02-01")
    ('2024-01-01', '2024-02-01')
    >>> parse_time_range("2024-01-01")
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: calibrate_on '2024-01-01' is neither a number of ...
    """
    parts = str(text).split("..")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise ParameterError("calibrate_on", f"calibrate_on {text!r} is neither a number of "
                                             "rows nor a time range START..END (e.g. "
                                             "2024-01-01..2024-02-01)")
    return parts[0].strip(), parts[1].strip()


def time_rows(source: Any, col: str | None, span: tuple[Any, Any], time_format: str | None,
              time_unit: str | None, batch_rows: int = BATCH_ROWS) -> tuple[int, int]:
    """The rows ``[first, stop)`` whose time is in ``[start, end)`` (the column sorted).

    Examples
    --------
    >>> import pandas as pd
    >>> log = pd.DataFrame({"t": ["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"]})
    >>> time_rows(log, "t", ("2024-01-02", "2024-01-04"), None, None)
    (1, 3)
    """
    import pandas as pd

    from pudd_core.monitoring._windows import Windows

    if col is None:
        raise ParameterError("calibrate_on", "a time range for calibrate_on needs the time "
                                             "column (time_column, --time-column)")
    numeric = time_unit in ("number", "year")

    def reader() -> Windows:
        return Windows("1" if numeric else "1D", time_format=time_format, time_unit=time_unit)

    ends = pd.Series(list(span))
    if numeric or time_unit is not None:
        try:
            ends = pd.Series([float(v) for v in span])
        except (TypeError, ValueError):
            raise ParameterError("calibrate_on", f"calibrate_on's time range "
                                                 f"{span[0]}..{span[1]} must "
                                                 f"be numbers, as the time column's "
                                                 f"(time_unit {time_unit!r})") from None
    try:
        lo, hi = reader().values(ends, "calibrate_on", 0)  # int64 ns, or the numbers
    except ParameterError as err:
        raise ParameterError("calibrate_on", f"calibrate_on's time range "
                                             f"{span[0]}..{span[1]} is not "
                                             f"read as the time column is: {err}") from None
    if not lo < hi:
        raise ParameterError("calibrate_on", f"calibrate_on's time range "
                                             f"{span[0]}..{span[1]} is empty: "
                                             "its end must come after its start")
    w, first, stop, offset, last = reader(), None, None, 0, None
    for n, frame in batches(source, [col], batch_rows):
        t = w.values(frame[col], col, offset)
        down = np.flatnonzero(np.diff(t) < 0) + 1
        if last is not None and n and t[0] < last:
            down = np.r_[0, down]
        if down.size:
            raise ParameterError("time_column", f"row {offset + int(down[0])}, column "
                                                f"{col!r}: the times are not sorted; a time "
                                                "range needs them in order")
        if first is None and (t >= lo).any():
            first = offset + int(np.argmax(t >= lo))
        if (t >= hi).any():
            stop = offset + int(np.argmax(t >= hi))
            break
        last = t[-1] if n else last
        offset += n
    if first is None or first == stop:
        raise ParameterError("calibrate_on", f"calibrate_on: no row of {name_of(source)} "
                                             "has a time in "
                                             f"{span[0]}..{span[1]}")
    if stop is None:
        raise ParameterError("calibrate_on", f"calibrate_on's time range "
                                             f"{span[0]}..{span[1]} reaches "
                                             f"the end of {name_of(source)}: no row after it "
                                             "to monitor; end the range earlier")
    return first, stop

"""ChunkPUDD: the chunk-based PUDD detector (paper Algorithm 1, as the authors' code runs it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pudd_core import _validation
from pudd_core.bucketing import (
    Buckets,
    build_buckets,
    counts_from_unsorted,
    fitting_sample,
)
from pudd_core.chi2 import PUTestResult, evaluate_table

__all__ = ["ChunkPUDD", "CutResult", "ScanResult", "cut_points"]

CutPoints = Literal["pow2", "all"]
SkipRule = Literal["accuracy", "pu_mean"]
Partition = Literal["pu", "ek"]


_MAX_POW2 = 10  # the authors' cuts: 2^j for j < 10, at most 512 chunks back


def cut_points(n: int, mode: CutPoints = "pow2", max_pow2: int = _MAX_POW2) -> list[int]:
    r"""Recent-window lengths (in chunks) tested with ``n`` chunks since the last alarm.

    ``"pow2"`` is the authors' set $\{2^j : j < $ ``max_pow2``$, 2^j < n\}$ (spec section 1.3);
    ``"all"`` is the paper's every cut $1, \ldots, n - 1$ (Algorithm 1, line 2).

    Examples
    --------
    >>> cut_points(5), cut_points(99), cut_points(5, "all")
    ([1, 2, 4], [1, 2, 4, 8, 16, 32, 64], [1, 2, 3, 4])
    """
    if mode == "all":
        return list(range(1, n))
    return [1 << j for j in range(max_pow2) if (1 << j) < n]


@dataclass(frozen=True)
class CutResult:
    """One tested (or skipped) cut point of a scan.

    Examples
    --------
    >>> CutResult(cut=2, p_value=1.0, skipped=True)
    CutResult(cut=2, p_value=1.0, skipped=True)

    Attributes
    ----------
    cut
        Length of the recent window in chunks (the old window is the rest of the history).
    p_value
        The cut's p-value; 1 when skipped.
    skipped
        Whether the skip rule spared the test.
    test
        The full test (table, buckets, expected counts); ``None`` when skipped.
    """

    cut: int
    p_value: float
    skipped: bool
    test: PUTestResult | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class ScanResult:
    """What :meth:`ChunkPUDD.update` found for one chunk.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> det = ChunkPUDD(skip_rule=None)
    >>> for a in (1, 1, 4):
    ...     u = rng.beta(a, 8, 500)
    ...     det.update(u, u < 0.5)
    >>> scan = det.last_scan
    >>> [c.cut for c in scan.cuts], scan.winner.cut, scan.drift_detected
    ([1, 2], 1, True)

    Attributes
    ----------
    chunk_index
        0-based index of the chunk among all chunks the detector has seen.
    n_chunks
        Chunks in the history since the last alarm, this one included.
    accuracy
        Accuracy of this chunk's predictions.
    p_value
        Minimum p-value over the cuts (1 with fewer than two chunks).
    cut_point
        Recent-window length of the winning cut, in chunks (``None`` before any test).
    drift_detected
        Whether ``p_value < alpha``.
    cuts
        Every cut of the scan, in increasing cut order.
    shortcut
        Why no scan ran, if it did not (spec sections 1.2 and 1.5).
    """

    chunk_index: int
    n_chunks: int
    accuracy: float
    p_value: float
    cut_point: int | None
    drift_detected: bool
    cuts: tuple[CutResult, ...] = ()
    shortcut: str | None = None

    @property
    def winner(self) -> CutResult | None:
        """The cut that gave the minimum p-value, if a test ran.

        Examples
        --------
        >>> old, new = np.linspace(0.0, 0.4, 100), np.linspace(0.1, 0.9, 100)
        >>> det = ChunkPUDD(seed=0)
        >>> det.update(old, old < 0.5)
        >>> det.last_scan.winner is None  # one chunk: no cut to test
        True
        >>> for u in (old, new):
        ...     det.update(u, u < 0.5)
        >>> det.last_scan.winner
        CutResult(cut=1, p_value=8.13...e-24, skipped=False)
        >>> det.last_scan.winner.test.table.tolist()  # K = 3 buckets, then the errors
        [[70, 66, 64, 5], [29, 17, 5, 50]]
        """
        for c in self.cuts:
            if c.cut == self.cut_point:
                return c
        return None


class _Params(Protocol):
    """What the shared history reads from its detector."""

    cache_buckets: bool
    sample_size: int
    n_buckets: int
    min_bucket_size: int
    skip_rule: SkipRule | None
    partition: Partition


@dataclass
class _Stats:
    """What the skip rules read of a chunk (or of an online detector's partial block)."""

    accuracy: float
    n_errors: int
    err_sum: float  # sum of misclassified PU values (the paper's skip rule)


@dataclass
class _Chunk:
    """One chunk (or online block) of the history, with what every later test needs."""

    u: NDArray[np.float64]
    correct: NDArray[np.bool_]
    ref_mask: NDArray[np.bool_]  # correctness as the old window counts it (reference_split)
    n_errors: int
    accuracy: float
    err_sum: float

    @classmethod
    def of(cls, u: NDArray[np.float64], correct: NDArray[np.bool_], split: str) -> _Chunk:
        n_ok = int(np.count_nonzero(correct))
        return cls(
            u=u,
            correct=correct,
            ref_mask=u < 0.5 if split == "pu_lt_0.5" else correct,
            n_errors=u.size - n_ok,
            accuracy=n_ok / u.size,
            err_sum=float(u[~correct].sum()),
        )


@dataclass
class _Prefix:
    """Buckets fitted on the first ``m`` chunks, with the counts of the chunks after them.

    Algorithm 2's cache: a later test against this reference counts chunks ``m .. n - 1``;
    ``n`` only grows, so the row of ``m .. stop - 1`` is kept and only new chunks are counted.
    """

    m: int
    buckets: Buckets
    old_row: NDArray[np.int64]
    ek: bool = False  # the EK ablation buckets every value and has no error column
    stop: int = -1  # recent_row covers chunks m .. stop - 1 (-1: nothing counted yet)
    recent: NDArray[np.int64] | None = None

    def recent_row(self, history: _History, stop: int) -> NDArray[np.int64]:
        """Bucket counts of the correct values of chunks ``m .. stop - 1``, then their errors."""
        if self.recent is None or stop < self.stop:
            self.recent, self.stop = np.zeros(self.old_row.size, dtype=np.int64), self.m
        if stop > self.stop:
            self.recent = self.recent + history.count(self.buckets, self.stop, stop, self.ek)
            self.stop = stop
        return self.recent


class _History:
    """Chunks since the last alarm and the cached buckets of each reference prefix."""

    def __init__(self, owner: _Params, rng: np.random.Generator) -> None:
        self.owner = owner
        self.rng = rng
        self.chunks: list[_Chunk] = []
        self.prefixes: dict[int, _Prefix] = {}
        self.old_means: dict[int, float] = {}  # mean chunk accuracy of chunks[:m]
        # every value so far, in order, in growable buffers: no re-concatenation per test
        self._u = np.empty(0)
        self._mask = np.empty(0, dtype=bool)
        self._u_ok = np.empty(0)  # u where the reference mask holds, +inf elsewhere
        self._u_correct = np.empty(0)  # u where the prediction was correct, +inf elsewhere
        self._ends: list[int] = [0]

    def append(self, chunk: _Chunk) -> None:
        """Add a chunk to the history."""
        self.chunks.append(chunk)
        n, k = self._ends[-1], chunk.u.size
        if n + k > self._u.size:
            cap = max(2 * self._u.size, n + k)
            self._u = np.resize(self._u, cap)
            self._mask = np.resize(self._mask, cap)
            self._u_ok = np.resize(self._u_ok, cap)
            self._u_correct = np.resize(self._u_correct, cap)
        self._u[n : n + k] = chunk.u
        self._mask[n : n + k] = chunk.ref_mask
        self._u_ok[n : n + k] = np.where(chunk.ref_mask, chunk.u, np.inf)
        self._u_correct[n : n + k] = (
            self._u_ok[n : n + k] if chunk.ref_mask is chunk.correct
            else np.where(chunk.correct, chunk.u, np.inf)
        )
        self._ends.append(n + k)

    def count(self, buckets: Buckets, start: int, stop: int, ek: bool) -> NDArray[np.int64]:
        """The table row of chunks ``start .. stop - 1``.

        Bucket counts of the correct values (of every value for the EK ablation), then the
        number of errors.
        """
        a, b = self._ends[start], self._ends[stop]
        if ek:
            return counts_from_unsorted(self._u[a:b], buckets)
        counts = counts_from_unsorted(self._u_correct[a:b], buckets)  # +inf: past 1
        n_errors = sum(c.n_errors for c in self.chunks[start:stop])
        counts[int(buckets.interval_bins[-1])] -= n_errors
        return np.append(counts, n_errors)

    def prefix(self, m: int, n_test: int) -> _Prefix:
        """Buckets and reference row of the first ``m`` chunks (fitted once if cached)."""
        if not self.owner.cache_buckets:
            return self.fit(m, n_test)
        prefix = self.prefixes.get(m)
        if prefix is None:
            prefix = self.prefixes[m] = self.fit(m, n_test)
        return prefix

    def evict(self, n: int, mode: CutPoints) -> None:
        """Forget prefixes no later test can use.

        With power-of-two cuts, a prefix more than the largest cut (512 chunks) behind the
        history's end is never tested again.
        """
        if mode == "pow2":
            oldest = n - (1 << (_MAX_POW2 - 1))  # later steps reach back at most this far
            for m in [m for m in self.prefixes if m < oldest]:
                del self.prefixes[m]

    def fit(self, m: int, n_test: int) -> _Prefix:
        """Fit the buckets of the first ``m`` chunks and count their reference row."""
        o = self.owner
        end = self._ends[m]
        u = self._u[:end]
        if o.partition == "ek":
            # spec section 2 row 24: Ei-kMeans on the first values, every value bucketed
            buckets = build_buckets(u[: o.sample_size], u.size, n_test, o.n_buckets,
                                    o.min_bucket_size)
            return _Prefix(m, buckets, counts_from_unsorted(u, buckets), ek=True)
        mask = self._mask[:end]
        sample = fitting_sample(u, mask, sample_size=o.sample_size, rng=self.rng)
        buckets = build_buckets(sample, u.size, n_test, o.n_buckets, o.min_bucket_size)
        n_errors = sum(c.u.size - int(np.count_nonzero(c.ref_mask)) for c in self.chunks[:m])
        counts = counts_from_unsorted(self._u_ok[:end], buckets)  # +inf values fall past 1
        counts[int(buckets.interval_bins[-1])] -= n_errors
        old_row = np.append(counts, n_errors)
        return _Prefix(m, buckets, old_row.astype(np.int64))

    def skip(self, m: int, partial: _Stats | None = None) -> bool:
        """The skip rule for old window ``chunks[:m]`` against the rest (plus ``partial``)."""
        rule = self.owner.skip_rule
        old: list[_Stats] | list[_Chunk] = self.chunks[:m]
        new: list[_Stats | _Chunk] = [*self.chunks[m:], *([partial] if partial else [])]
        if rule == "accuracy":
            # spec section 1.4: unweighted mean of per-chunk accuracies; a tie is tested
            old_mean = self.old_means.get(m)
            if old_mean is None:
                old_mean = self.old_means[m] = float(np.mean([c.accuracy for c in old]))
            return bool(old_mean < np.mean([c.accuracy for c in new]))
        if rule == "pu_mean":
            old_n = sum(c.n_errors for c in old)
            new_n = sum(c.n_errors for c in new)
            if old_n == 0 or new_n == 0:
                return False  # no misclassified mean to compare: test
            old_mean = sum(c.err_sum for c in old) / old_n
            return old_mean < sum(c.err_sum for c in new) / new_n
        return False


class ChunkPUDD:
    r"""PUDD on a stream of chunks: alarm when some cut point's PU histograms differ.

    After each chunk's predictions are scored, :meth:`update` receives their PU-index values
    and correctness. With $n$ chunks since the last alarm, every cut $i$ splits them into an
    old window (the first $n - i$ chunks) and a recent one (the last $i$); Adaptive PU-index
    Bucketing on the old window's correct predictions gives a $2 \times (K+1)$ table and
    Pearson's $\chi^2$ test a p-value. A drift is detected when the smallest p-value is below
    ``alpha`` (PUDD-$x$ is ``alpha = 10**-x``); the history is then cleared at the next update,
    like river's detectors (spec section 1.10).

    Defaults reproduce the authors' code (spec sections 1 and 10): power-of-two cuts, the
    accuracy skip rule, the floor of 5 on every cell, Yates for 2 x 2 tables, p = 0 when a
    chunk's accuracy is below 0.01 or a recent window has no correct prediction. Each paper
    variant is one keyword away: ``cut_points="all"``, ``skip_rule="pu_mean"`` (Algorithm 1,
    line 4) or ``None``, ``clamp_min=0``, ``yates=False``.

    Parameters
    ----------
    alpha
        Significance level $\sigma$; alarm iff the minimum p-value is strictly below it.
    cut_points
        ``"pow2"`` (authors: recent windows of 1, 2, 4, ... chunks) or ``"all"`` (paper).
    skip_rule
        ``"accuracy"`` (authors: skip a cut when the old window's mean chunk accuracy is lower
        than the recent one's), ``"pu_mean"`` (paper: test only when the old window's mean
        misclassified PU is at least the recent one's) or ``None`` (test every cut). The
        paper contradicts itself here (spec sections 2 row 2 and 10.2): Algorithm 1, line 4
        tests when $\mathrm{Mean}(u^M_{old}) \geq \mathrm{Mean}(u^M_{new})$, while the
        appendix prose skips the test when the old mean is the larger. ``"pu_mean"``
        implements Algorithm 1's rule (skip iff the old mean is strictly smaller); a window
        without misclassified predictions has no mean, and the cut is then tested.
    n_buckets
        Starting number of buckets, *K* in the paper.
    min_bucket_size
        Minimum fitting-sample values per bucket.
    sample_size
        Largest bucketing sample (reference windows above it are subsampled).
    clamp_min
        Floor on every observed cell before the test (0: none). The authors' floor of 5
        decides tests where the misclassified column is (nearly) empty in both windows: on a
        stationary stream with few errors it raises the false-alarm rate far above ``alpha``
        (``sweep.pu_false_alarm_table``; ``results/false_alarms.md``).
    min_expected
        Merge neighbouring columns until every expected count is at least this (Cochran's
        rule, :func:`~pudd_core.chi2.merge_sparse_columns`); 0 (default) merges none.
        ``clamp_min=0, min_expected=5`` is the calibrated variant: no invented counts, and no
        Pearson test on near-empty columns.
    yates
        Yates' correction on 2 x 2 tables (scipy's default, used by the authors).
    reference_split
        How old-window instances are split into correct and misclassified: ``"argmax"``
        (the paper's definition, default) or ``"pu_lt_0.5"`` (the authors' code, which
        differs from arg-max only for more than two classes or at exactly 0.5).
    min_accuracy
        A chunk whose accuracy is below this gives p = 0 at once (authors: 0.01).
    cache_buckets
        Fit each old window's buckets once and reuse them (Algorithm 2's caching, default);
        ``False`` refits them at every test, drawing a new sample each time, as the authors.
    partition
        ``"pu"``: Adaptive PU-index Bucketing (PUDD); ``"ek"``: the paper's "EK" ablation
        (Fig. 5), a plain Ei-kMeans partition of the first ``sample_size`` PU values of the old
        window with every value bucketed and no misclassified column (use ``clamp_min=0`` for
        the authors' unused variant, which has no floor).
    seed
        Seed of the generator that draws bucketing samples.

    Examples
    --------
    >>> rng = np.random.default_rng(42)
    >>> det = ChunkPUDD(alpha=1e-3, seed=0)
    >>> alarms = []
    >>> for t in range(30):
    ...     a = 1 if t < 15 else 3          # predictions grow uncertain from chunk 15 on
    ...     u = rng.beta(a, 8, size=1000)
    ...     det.update(u, u < 0.5)
    ...     if det.drift_detected:
    ...         alarms.append((t, det.cut_point, det.p_value < 1e-10))
    >>> alarms
    [(15, 1, True)]
    """

    def __init__(
        self,
        alpha: float = 1e-3,
        *,
        cut_points: CutPoints = "pow2",
        skip_rule: SkipRule | None = "accuracy",
        n_buckets: int = 5,
        min_bucket_size: int = 50,
        sample_size: int = 1000,
        clamp_min: int = 5,
        min_expected: float = 0.0,
        yates: bool = True,
        reference_split: Literal["argmax", "pu_lt_0.5"] = "argmax",
        min_accuracy: float = 0.01,
        cache_buckets: bool = True,
        partition: Partition = "pu",
        seed: int | None = None,
    ) -> None:
        _validation.check_open_unit("alpha", alpha)
        _validation.check_choice("partition", partition, ("pu", "ek"))
        _validation.check_choice("cut_points", cut_points, ("pow2", "all"))
        _validation.check_choice("skip_rule", skip_rule, ("accuracy", "pu_mean", None))
        _validation.check_choice("reference_split", reference_split, ("argmax", "pu_lt_0.5"))
        _validation.check_positive_int("n_buckets", n_buckets)
        _validation.check_positive_int("min_bucket_size", min_bucket_size, minimum=0)
        _validation.check_positive_int("sample_size", sample_size)
        _validation.check_positive_int("clamp_min", clamp_min, minimum=0)
        _validation.check_bool("yates", yates)
        if _validation.finite_float("min_expected", min_expected) < 0:
            raise _validation.ParameterError(
                "min_expected", f"min_expected must be >= 0, got {min_expected!r}")
        _validation.check_bool("cache_buckets", cache_buckets)
        _validation.check_seed("seed", seed)
        if not 0.0 <= _validation.finite_float("min_accuracy", min_accuracy) <= 1.0:
            raise _validation.ParameterError(
                "min_accuracy", f"min_accuracy must lie in [0, 1], got {min_accuracy!r}")
        self.alpha = alpha
        self.cut_points = cut_points
        self.skip_rule = skip_rule
        self.n_buckets = n_buckets
        self.min_bucket_size = min_bucket_size
        self.sample_size = sample_size
        self.clamp_min = clamp_min
        self.min_expected = min_expected
        self.yates = yates
        self.reference_split = reference_split
        self.min_accuracy = min_accuracy
        self.cache_buckets = cache_buckets
        self.partition = partition
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self._chunks_seen = 0
        self._cut_point: int | None = None
        self._last_scan: ScanResult | None = None
        self._reset()

    def _reset(self) -> None:
        self._drift_detected = False
        self._history = _History(self, self._rng)  # the generator keeps running across resets

    def clone(self) -> ChunkPUDD:
        """A fresh detector with the same parameters (river's ``clone`` semantics).

        Examples
        --------
        >>> ChunkPUDD(alpha=1e-5, cut_points="all").clone().cut_points
        'all'
        """
        return ChunkPUDD(**self._get_params())

    def _get_params(self) -> dict[str, Any]:
        keys = (
            "alpha", "cut_points", "skip_rule", "n_buckets", "min_bucket_size", "sample_size",
            "clamp_min", "min_expected", "yates", "reference_split", "min_accuracy",
            "cache_buckets", "partition", "seed",
        )
        return {k: getattr(self, k) for k in keys}

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self._get_params().items())
        return f"ChunkPUDD({params})"

    @property
    def drift_detected(self) -> bool:
        """Whether the last update detected a drift (cleared by the next update)."""
        return self._drift_detected

    @property
    def p_value(self) -> float:
        """Minimum p-value over the cut points of the last update (NaN before any update).

        Examples
        --------
        >>> old, new = np.linspace(0.0, 0.4, 100), np.linspace(0.1, 0.9, 100)
        >>> det = ChunkPUDD(seed=0)
        >>> det.p_value
        nan
        >>> for u in (old, old, new):  # two chunks of correct predictions, then a shift
        ...     det.update(u, u < 0.5)
        >>> f"{det.p_value:.3g}", det.drift_detected
        ('8.13e-24', True)
        """
        return float("nan") if self._last_scan is None else self._last_scan.p_value

    @property
    def cut_point(self) -> int | None:
        """Recent-window length (chunks) of the winning cut; the authors retrain on it.

        Examples
        --------
        >>> old, new = np.linspace(0.0, 0.4, 100), np.linspace(0.1, 0.9, 100)
        >>> det = ChunkPUDD(seed=0)
        >>> det.cut_point is None
        True
        >>> for u in (old, old, new):  # two chunks of correct predictions, then a shift
        ...     det.update(u, u < 0.5)
        >>> det.cut_point, [(c.cut, f"{c.p_value:.3g}") for c in det.last_scan.cuts]
        (1, [(1, '8.13e-24'), (2, '3.16e-05')])
        """
        return self._cut_point

    @property
    def last_scan(self) -> ScanResult | None:
        """Everything the last update computed: per-cut p-values, tables, buckets.

        Examples
        --------
        >>> old, new = np.linspace(0.0, 0.4, 100), np.linspace(0.1, 0.9, 100)
        >>> det = ChunkPUDD(seed=0)
        >>> det.last_scan is None
        True
        >>> for u in (old, old, new):  # two chunks of correct predictions, then a shift
        ...     det.update(u, u < 0.5)
        >>> scan = det.last_scan
        >>> scan.chunk_index, scan.n_chunks, scan.accuracy, scan.cut_point, len(scan.cuts)
        (2, 3, 0.5, 1, 2)
        >>> scan.winner.test.buckets.k
        3
        """
        return self._last_scan

    @property
    def n_chunks(self) -> int:
        """Chunks in the history since the last alarm."""
        return len(self._history.chunks)

    def windows(
        self, cut: int
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64], NDArray[np.bool_]]:
        """PU values and correctness of the old and recent windows of a cut, for plots.

        Examples
        --------
        >>> det = ChunkPUDD()
        >>> for u in (np.full(100, 0.1), np.full(100, 0.2), np.full(100, 0.3)):
        ...     det.update(u, u < 0.5)
        >>> [a.size for a in det.windows(2)]
        [100, 100, 200, 200]
        """
        chunks = self._history.chunks
        n = len(chunks)
        if not 1 <= cut < n:
            raise ValueError(f"cut must be in 1..{n - 1} with {n} chunks in the history")
        old, new = chunks[: n - cut], chunks[n - cut :]
        return (
            np.concatenate([c.u for c in old]),
            np.concatenate([c.ref_mask for c in old]),
            np.concatenate([c.u for c in new]),
            np.concatenate([c.correct for c in new]),
        )

    def update(self, u: ArrayLike, correct: ArrayLike) -> None:
        """Add one tested chunk's PU-index values and correctness, then scan the cut points.

        Parameters
        ----------
        u
            PU-index of each prediction in the chunk, in [0, 1].
        correct
            Whether each prediction was correct (arg-max equals the label): booleans or 0/1.

        Raises
        ------
        ValueError
            If ``u`` is empty, not one-dimensional, or holds NaN, infinity or values outside
            [0, 1]; if ``correct`` is not a boolean (or 0/1) mask of the same length. A
            rejected chunk leaves the detector unchanged.

        Examples
        --------
        >>> det = ChunkPUDD(seed=0)
        >>> det.update([0.1, 0.2, 0.9], [True, True, False])
        >>> det.n_chunks, det.p_value, det.last_scan.shortcut
        (1, 1.0, 'fewer than two chunks since the last alarm')
        """
        vals = _validation.as_pu_array("u", u)
        if vals.size == 0:
            raise ValueError("an empty chunk cannot be tested: pass at least one prediction")
        ok = _validation.as_mask("correct", correct, vals.size, "u")
        if self._drift_detected:
            self._reset()  # spec section 1.10: the whole history goes after an alarm
        # own copies: the history outlives the call, and callers may reuse their buffers
        chunk = _Chunk.of(vals.copy(), ok.copy(), self.reference_split)
        hist = self._history
        hist.append(chunk)
        index = self._chunks_seen
        self._chunks_seen += 1
        n = len(hist.chunks)
        if n >= 2 and self.cache_buckets:
            hist.prefix(n - 1, vals.size)  # fit each old window once, in a fixed order
            hist.evict(n, self.cut_points)
        if chunk.accuracy < self.min_accuracy:
            # spec section 1.2: p = 0 at once; the split point keeps its last value, guarded
            # (spec 8.1.5) so the recent window never reaches back before the last alarm
            cut = self._cut_point = min(self._cut_point or 1, n)
            self._finish(ScanResult(index, n, chunk.accuracy, 0.0, cut, True,
                                    shortcut=f"chunk accuracy below {self.min_accuracy}"))
            return
        if n < 2:
            self._cut_point = None
            self._finish(ScanResult(index, n, chunk.accuracy, 1.0, None, False,
                                    shortcut="fewer than two chunks since the last alarm"))
            return
        results = tuple(self._test_cut(n, i) for i in cut_points(n, self.cut_points))
        best = min(results, key=lambda r: r.p_value)  # first cut on ties, as the authors
        self._cut_point = best.cut
        self._finish(ScanResult(index, n, chunk.accuracy, best.p_value, best.cut,
                                best.p_value < self.alpha, results))

    def _finish(self, scan: ScanResult) -> None:
        self._last_scan = scan
        self._drift_detected = scan.drift_detected

    def _test_cut(self, n: int, i: int) -> CutResult:
        hist = self._history
        m = n - i
        if hist.skip(m):
            return CutResult(i, 1.0, True)
        prefix = hist.prefix(m, hist.chunks[-1].u.size)
        observed = np.vstack((prefix.old_row, prefix.recent_row(hist, n)))
        test = evaluate_table(observed, prefix.buckets, clamp_min=self.clamp_min, yates=self.yates,
                              min_expected=self.min_expected,
                              errors_column=not prefix.ek)
        return CutResult(i, test.p_value, False, test)

"""ChunkPUDD: the chunk-based PUDD detector (paper Algorithm 1, as the authors' code runs it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from river import base

from pudd_core import _validation
from pudd_core._scan import (
    CutPoints,
    CutResult,
    History,
    LastScan,
    Partition,
    ReferenceSplit,
    Refit,
    ScanResult,
    ScanSettings,
    SkipRule,
    conclude,
    cut_points,
)

__all__ = ["ChunkPUDD", "CutResult", "ScanResult", "cut_points"]


class ChunkPUDD(LastScan, base.Base):
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
    refit
        ``"every"`` (authors: each old window's buckets are fitted on its own sample) or
        ``"doubling"`` (monitor-grade: only the old windows of 1, 2, 4, 8, ... chunks since the
        history began, at the last alarm or ``max_chunks`` forgetting, are fitted; every other
        old window is tested with the buckets of the longest fitted one not longer than it,
        which hold each chunk's counts cumulatively, so a window's row is a difference of two).
        Buckets are still fitted on old-window data only and the test is the same; a fit per
        doubling instead of one per chunk. Needs ``cache_buckets``.
    max_chunks
        Bound on the history since the last alarm, in chunks (at least 2). ``None`` (default,
        the authors' code) keeps every chunk since the last alarm, so on a long stream without
        alarm each chunk costs time and memory in proportion to the history. With a bound, a
        full history forgets its oldest half before the next chunk is added (the reference
        then starts there, as after an alarm but without one): time per chunk and memory stay
        flat. The prediction-log monitor uses a bound by default.
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

    ``clone`` (river's) gives a fresh detector with the same parameters:

    >>> fresh = det.clone()
    >>> fresh.n_chunks, fresh.seed, fresh.cut_points, fresh.last_scan is None
    (0, 0, 'pow2', True)
    """

    #: The variants of the authors' defaults that the paper describes (and ``refit``, the
    #: prediction-log monitor's cheaper fitting schedule), as data: option -> its
    #: help, the entry of ``Parameters`` above word for word (``tests/test_detector.py`` holds
    #: the two equal). Their values are those of the type hints; the app offers these options.
    variant_options: ClassVar[Mapping[str, str]] = MappingProxyType({
        "cut_points": '``"pow2"`` (authors: recent windows of 1, 2, 4, ... chunks) or '
                      '``"all"`` (paper).',
        "skip_rule": (
            """``"accuracy"`` (authors: skip a cut when the old window's mean chunk accuracy """
            """is lower than the recent one's), ``"pu_mean"`` (paper: test only when the old """
            "window's mean misclassified PU is at least the recent one's) or ``None`` (test "
            "every cut). The paper contradicts itself here (spec sections 2 row 2 and 10.2): "
            r"Algorithm 1, line 4 tests when $\mathrm{Mean}(u^M_{old}) \geq "
            r"\mathrm{Mean}(u^M_{new})$, while the appendix prose skips the test when the old "
            """mean is the larger. ``"pu_mean"`` implements Algorithm 1's rule (skip iff the """
            "old mean is strictly smaller); a window without misclassified predictions has "
            "no mean, and the cut is then tested."),
        "clamp_min": (
            "Floor on every observed cell before the test (0: none). The authors' floor of 5 "
            "decides tests where the misclassified column is (nearly) empty in both windows: "
            "on a stationary stream with few errors it raises the false-alarm rate far above "
            "``alpha`` (``sweep.pu_false_alarm_table``; ``results/false_alarms.md``)."),
        "yates": "Yates' correction on 2 x 2 tables (scipy's default, used by the authors).",
        "partition": (
            '``"pu"``: Adaptive PU-index Bucketing (PUDD); ``"ek"``: the paper\'s "EK" '
            "ablation (Fig. 5), a plain Ei-kMeans partition of the first ``sample_size`` PU "
            "values of the old window with every value bucketed and no misclassified column "
            "(use ``clamp_min=0`` for the authors' unused variant, which has no floor)."),
        "cache_buckets": (
            "Fit each old window's buckets once and reuse them (Algorithm 2's caching, "
            "default); ``False`` refits them at every test, drawing a new sample each time, "
            "as the authors."),
        "refit": (
            '``"every"`` (authors: each old window\'s buckets are fitted on its own sample) or '
            '``"doubling"`` (monitor-grade: only the old windows of 1, 2, 4, 8, ... chunks '
            'since the history began, at the last alarm or ``max_chunks`` forgetting, are '
            'fitted; every other old window is tested with the buckets of the longest fitted '
            "one not longer than it, which hold each chunk's counts cumulatively, so a "
            "window's row is a difference of two). Buckets are still fitted on old-window "
            'data only and the test is the same; a fit per doubling instead of one per chunk. '
            'Needs ``cache_buckets``.'),
    })

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
        reference_split: ReferenceSplit = "argmax",
        min_accuracy: float = 0.01,
        cache_buckets: bool = True,
        partition: Partition = "pu",
        refit: Refit = "every",
        max_chunks: int | None = None,
        seed: int | None = None,
    ) -> None:
        _validation.check_seed("seed", seed)
        _validation.check_positive_int("max_chunks", max_chunks, minimum=2, optional=True,
                                       why=" (a cut needs two chunks; None: no bound)")
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
        self.refit = refit
        self.max_chunks = max_chunks
        self.seed = seed
        self._settings = ScanSettings.from_params(self._get_params())  # checks the rest
        self._rng = np.random.default_rng(seed)
        self._chunks_seen = 0
        self._last_scan: ScanResult | None = None
        self._reset()

    def _reset(self) -> None:
        self._drift_detected = False
        self._history = History(self._settings, self._rng)  # the rng runs on across resets

    def _forget_oldest(self) -> None:
        """Keep the newest half of a full history (``max_chunks``), as if it began there."""
        old = self._history
        self._history = old.tail(len(old.chunks) - (self.max_chunks or 2) // 2, reuse=True)
        kept = self._history.chunks
        for n in range(2, len(kept) + 1):  # the old windows' samples, in the usual order
            if self._settings.cache_buckets:
                self._history.draw(n - 1, kept[-1].u.size)
            else:  # as the eager refit did: the generator moves on, nothing is kept
                self._history.sample(n - 1, kept[-1].u.size)

    @property
    def drift_detected(self) -> bool:
        """Whether the last update detected a drift (cleared by the next update)."""
        return self._drift_detected

    def lower_alpha(self, alpha: float) -> None:
        """Become the detector that ran at the smaller ``alpha`` and raised no alarm.

        Only the decision depends on α (``p < alpha``), so a detector run at a larger α holds
        the same history as one run at ``alpha`` until its first alarm: the last update's
        alarm is withdrawn (no reset follows it) and later updates decide at ``alpha``.
        :func:`~pudd_core.monitoring.calibrate` shares one run among many α this way.

        Examples
        --------
        >>> rng = np.random.default_rng(1)
        >>> det = ChunkPUDD(alpha=0.5, seed=0)
        >>> for _ in range(3):
        ...     det.update(rng.uniform(0, 0.5, 200), rng.random(200) < 0.9)
        >>> p = det.p_value
        >>> det.lower_alpha(p / 2)
        >>> det.alpha == p / 2, det.drift_detected
        (True, False)
        >>> det.lower_alpha(0.9)
        Traceback (most recent call last):
        ...
        pudd_core._validation.ParameterError: lower_alpha takes an alpha at most ...
        """
        _validation.check_open_unit("alpha", alpha)
        if alpha > self.alpha:
            raise _validation.ParameterError(
                "alpha", f"lower_alpha takes an alpha at most {self.alpha:g}, got {alpha:g}")
        if self.p_value < alpha:  # (NaN compares False: no test, no alarm)
            raise _validation.ParameterError(
                "alpha", f"the last update's p-value {self.p_value:.3g} is below {alpha:g}: "
                         "the run at that alpha alarmed too")
        self.alpha = alpha
        self._settings = replace(self._settings, alpha=alpha)
        self._drift_detected = False

    @property
    def no_test(self) -> str | None:
        """Why no test decided the last update's p-value (``ScanResult.no_test``), or None.

        Where this is set, :attr:`p_value` is a convention (1, or 0 for the accuracy
        shortcut), not a test's outcome: logs show the p-value as missing, with this reason.

        Examples
        --------
        >>> det = ChunkPUDD()
        >>> det.update([0.1, 0.9], [True, False])
        >>> det.no_test
        'fewer than two chunks since the last alarm'
        """
        scan = self._last_scan
        if scan is None:
            return "no chunk yet"
        reason = scan.no_test
        if reason is not None and scan.shortcut is None:  # every cut spared: say by which rule
            reason = f"{reason} ({self.skip_rule!r})"
        return reason

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
        if isinstance(cut, bool) or not isinstance(cut, int | np.integer) or not 1 <= cut < n:
            raise _validation.ParameterError(
                "cut", f"cut must be in 1..{n - 1} (an integer) with {n} chunks in the "
                       f"history, got {cut!r}")
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
        elif self.max_chunks is not None and len(self._history.chunks) >= self.max_chunks:
            self._forget_oldest()
        # own copies: the history outlives the call, and callers may reuse their buffers
        hist = self._history
        chunk = hist.add(vals.copy(), ok.copy())
        index = self._chunks_seen
        self._chunks_seen += 1
        n = len(hist.chunks)
        if n >= 2 and self._settings.cache_buckets:
            # each old window's sample is drawn now, in a fixed order, and its buckets are
            # fitted when a cut first tests it (never, if the skip rule spares every such cut)
            hist.draw(n - 1, vals.size)
            hist.evict(n)
        scan = conclude(
            self._settings, index=index, n=n, accuracy=chunk.accuracy,
            previous_cut=self.cut_point, cuts=cut_points(n, self._settings.cut_points),
            test=lambda cut: hist.test_chunks(n, cut), unit="chunk",
            no_cut="fewer than two chunks since the last alarm",
        )
        self._last_scan = scan
        self._drift_detected = scan.drift_detected

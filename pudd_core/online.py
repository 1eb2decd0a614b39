"""PUDD: the instance-based online detector of the paper's appendix (Algorithm 2), for river."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from river import base
from river.base import DriftDetector

from pudd_core import _validation
from pudd_core._scan import (
    CutPoints,
    CutResult,
    History,
    LastScan,
    Prefix,
    ScanResult,
    ScanSettings,
    SkipRule,
    Stats,
    conclude,
    cut_points,
)
from pudd_core.bucketing import counts_from_sorted_list

__all__ = ["PUDD", "PUDDClassifier"]


@dataclass
class _ActiveCut:
    """A candidate cut of the current block: cached buckets and an incremental table."""

    cut: int  # recent window length in blocks, the current (partial) block included
    m: int  # complete blocks in the old window
    prefix: Prefix
    base_recent: NDArray[np.int64]  # counts of the complete blocks of the recent window
    partial_row: NDArray[np.int64]  # counts of the current block, updated incrementally
    base_size: int  # instances in the complete blocks of the recent window


class PUDD(LastScan, DriftDetector):
    r"""Online PUDD: the PU-index drift detector fed one prediction at a time.

    The paper's Algorithm 2 over a stream of instances. Candidate cut points lie on a grid of
    ``cut_every`` instances (blocks, the analogue of chunks); as in the chunk detector the
    recent window of each cut is the last 1, 2, 4, ... blocks (``cut_points="pow2"``) or every
    suffix of blocks (``"all"``), the current, partly filled block included. Each reference
    prefix's buckets are fitted once and cached, and each cut's contingency table is updated
    incrementally with the new instances only. Like river's ADWIN, the test runs every
    ``clock`` instances (``clock=1``: after every instance) and always when a block fills up.

    Fed chunk-aligned data with ``cut_every`` equal to the chunk size, the detector is in the
    same state as :class:`~pudd_core.ChunkPUDD` after each complete block: the same buckets,
    tables, ``p_value``, ``cut_point`` and ``drift_detected`` (with ``clock=cut_every`` for the
    whole stream; with a smaller clock until its first alarm between block ends, after which
    its blocks are no longer aligned with the chunks).

    **Input.** ``x`` is the PU-index $u = 1 - p(y_{true} | x)$ of the prediction, in [0, 1],
    and ``correct`` whether the arg-max prediction was right; ``correct=None`` means
    ``x < 0.5``, exact for binary tasks except ties. **When only 0/1 errors are fed** (as
    river's ``DriftRetrainingClassifier`` does, ``x = int(y_pred != y)``), every correct
    prediction has $u = 0$, so the buckets collapse to one and each table is the 2 x 2
    correct/misclassified table: PUDD then is a chi-square test of the error rates of the two
    windows (with Yates' correction), with none of the PU-index's extra sensitivity
    (paper, Theorem 2).

    Parameters
    ----------
    alpha
        Significance level; alarm iff the minimum p-value over the cuts is below it.
    cut_every
        Block length in instances: the grid of candidate cut points.
    clock
        Test every ``clock`` instances (and at every block end).
    cut_points
        ``"pow2"`` (the authors' power-of-two recent windows) or ``"all"`` (the paper's).
    skip_rule
        ``"accuracy"``, ``"pu_mean"`` or ``None``, as in :class:`~pudd_core.ChunkPUDD`; the
        current block counts with its accuracy so far.
    n_buckets
        Starting number of buckets, *K* in the paper.
    min_bucket_size
        Minimum fitting-sample values per bucket.
    sample_size
        Largest bucketing sample.
    clamp_min
        Floor on every observed cell before the test (0: none).
    min_expected
        Merge neighbouring columns until every expected count reaches this (0: none); with
        ``clamp_min=0`` the calibrated variant, as in :class:`~pudd_core.detector.ChunkPUDD`.
    yates
        Yates' correction on 2 x 2 tables.
    min_accuracy
        A current block whose accuracy is below this (once it holds ``min_recent_size``
        instances) gives p = 0.
    min_recent_size
        A cut is tested only when its recent window holds at least this many instances
        (capped at ``cut_every``; ``None``: one block). The authors' floor of 5 on every cell
        biases small windows (a window of 64 correct predictions gets a misclassified count
        of 5, i.e. 7%), which gives false alarms on stationary streams; lower it only with
        ``clamp_min=0``.
    seed
        Seed of the generator that draws bucketing samples.

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> det = PUDD(alpha=1e-3, cut_every=500, seed=0)
    >>> for i in range(20_000):
    ...     u = rng.beta(1 if i < 10_000 else 3, 8)   # uncertainty grows at instance 10,000
    ...     det.update(u)
    ...     if det.drift_detected:
    ...         print(f"Change detected at index {i}, cut {det.cut_point} blocks")
    ...         break
    Change detected at index 10095, cut 2 blocks
    """

    def __init__(
        self,
        alpha: float = 1e-3,
        *,
        cut_every: int = 1000,
        clock: int = 32,
        cut_points: CutPoints = "pow2",
        skip_rule: SkipRule | None = "accuracy",
        n_buckets: int = 5,
        min_bucket_size: int = 50,
        sample_size: int = 1000,
        clamp_min: int = 5,
        min_expected: float = 0.0,
        yates: bool = True,
        min_accuracy: float = 0.01,
        min_recent_size: int | None = None,
        seed: int | None = None,
    ) -> None:
        super().__init__()
        _validation.check_positive_int("cut_every", cut_every)
        _validation.check_positive_int("clock", clock)
        _validation.check_seed("seed", seed)
        if min_recent_size is not None:
            _validation.check_positive_int("min_recent_size", min_recent_size)
        self.alpha = alpha
        self.cut_every = cut_every
        self.clock = clock
        self.cut_points = cut_points
        self.skip_rule = skip_rule
        self.n_buckets = n_buckets
        self.min_bucket_size = min_bucket_size
        self.sample_size = sample_size
        self.clamp_min = clamp_min
        self.min_expected = min_expected
        self.yates = yates
        self.min_accuracy = min_accuracy
        self.min_recent_size = min_recent_size
        self.seed = seed
        # the rest are checked here; Algorithm 2 caches every prefix's buckets (PU partition)
        self._settings = ScanSettings.from_params(self._get_params())
        self._rng = np.random.default_rng(seed)
        self._n_seen = 0
        self._last_scan: ScanResult | None = None
        self._reset()

    def _reset(self) -> None:
        super()._reset()
        self._history = History(self._settings, self._rng)
        self._u: list[float] = []
        self._ok: list[bool] = []
        self._pending = 0
        self._n_ok = 0
        self._err_sum = 0.0
        self._cuts: list[_ActiveCut] = []

    @classmethod
    def _unit_test_params(cls) -> Any:
        yield {"cut_every": 50, "clock": 10, "seed": 1}

    def update(self, x: float, *, correct: bool | None = None) -> None:
        """Add one prediction's PU-index (and correctness), testing every ``clock`` instances.

        Parameters
        ----------
        x
            PU-index of the prediction, in [0, 1] (0/1 errors are accepted too, as the
            numbers 0 and 1; ``True`` and ``False`` are refused: a correctness flag is
            ``correct``).
        correct
            Whether the prediction was right: ``True``/``False`` (numpy's too) or 0/1;
            ``None`` means ``x < 0.5``.

        Raises
        ------
        ValueError
            If ``x`` is NaN or lies outside [0, 1] (infinity included), or ``correct`` is
            neither ``None``, a bool nor 0/1 (a string, 2 or NaN is not truth-tested). A
            rejected call leaves the detector unchanged.

        Examples
        --------
        >>> det = PUDD(cut_every=10, clock=5)
        >>> for u in [0.1] * 20:
        ...     det.update(u)
        >>> det.n_seen, det.drift_detected, det.last_scan.n_chunks
        (20, False, 2)
        """
        u = _validation.as_pu_value("x", x)
        ok = u < 0.5 if correct is None else _validation.as_flag("correct", correct)
        if self._drift_detected:
            self._reset()  # river's semantics: the history goes at the update after an alarm
        if len(self._u) == self.cut_every:
            self._close_block()
        self._u.append(u)
        self._ok.append(ok)
        self._n_seen += 1
        size = len(self._u)
        if size % self.clock == 0 or size == self.cut_every:
            self._test()

    def _close_block(self) -> None:
        hist = self._history
        hist.add(np.array(self._u), np.array(self._ok))
        self._u, self._ok = [], []
        self._pending = self._n_ok = 0
        self._err_sum = 0.0
        n = len(hist.chunks) + 1  # blocks including the one that starts now
        hist.evict(n)
        self._cuts = []
        for i in cut_points(n, self.cut_points):
            m = n - i
            prefix = hist.prefix(m, self.cut_every)
            base = prefix.recent_row(hist, n - 1).copy()
            size = sum(c.u.size for c in hist.chunks[m:])
            self._cuts.append(_ActiveCut(i, m, prefix, base, np.zeros_like(base), size))

    def _test(self) -> None:
        u_new = self._u[self._pending :]
        ok_new = self._ok[self._pending :]
        self._pending = len(self._u)
        correct_new = sorted(u for u, ok in zip(u_new, ok_new, strict=True) if ok)
        n_errors_new = len(u_new) - len(correct_new)
        self._n_ok += len(correct_new)
        self._err_sum += math.fsum(u for u, ok in zip(u_new, ok_new, strict=True) if not ok)
        for c in self._cuts:
            row = counts_from_sorted_list(correct_new, c.prefix.buckets)
            row.append(n_errors_new)
            c.partial_row += row
        size = len(self._u)
        stats = Stats(self._n_ok / size, size - self._n_ok, self._err_sum)
        block = len(self._history.chunks)
        min_recent = min(self.min_recent_size or self.cut_every, self.cut_every)
        # as ChunkPUDD, even in the first block after an alarm (p = 0 on low accuracy)
        scan = conclude(
            self._settings, index=block, n=block + 1, accuracy=stats.accuracy,
            previous_cut=self.cut_point, cuts=self._cuts,
            test=lambda c: self._test_cut(c, size, stats, min_recent), unit="block",
            no_cut="no complete block since the last alarm", accuracy_counts=size >= min_recent,
        )
        self._last_scan = scan
        self._drift_detected = scan.drift_detected

    def _test_cut(self, c: _ActiveCut, size: int, stats: Stats, min_recent: int) -> CutResult:
        if c.base_size + size < min_recent or self._history.skip(c.m, stats):
            return CutResult(c.cut, 1.0, True)
        return self._history.test(c.cut, c.prefix, c.base_recent + c.partial_row)

    @property
    def n_seen(self) -> int:
        """Instances seen since the detector was created (alarms do not reset the count).

        Examples
        --------
        >>> old, new = np.linspace(0.0, 0.4, 100), np.linspace(0.1, 0.9, 100)
        >>> det = PUDD(cut_every=100, clock=100, seed=0)
        >>> for u in [*old, *old, *new]:  # two blocks of correct predictions, then a shift
        ...     det.update(u)
        >>> det.n_seen, det.drift_detected
        (300, True)
        >>> det.update(0.2)  # the update after an alarm clears the history, not the count
        >>> det.n_seen, det.drift_detected
        (301, False)
        """
        return self._n_seen


class PUDDClassifier(base.Wrapper[base.Classifier], base.Classifier):
    r"""Retrain a river classifier when PUDD, fed its PU-index, detects a drift.

    Like river's ``drift.DriftRetrainingClassifier``, but the detector sees the prediction
    uncertainty $u = 1 - p(y | x)$ of each instance (with its arg-max correctness), not only
    the 0/1 error, which is what makes PUDD earlier than error-rate detectors (Theorem 2).
    After an alarm the model is replaced by a fresh clone.

    Parameters
    ----------
    model
        A river classifier with ``predict_proba_one``.
    drift_detector
        The detector (default ``PUDD()``).

    Examples
    --------
    >>> from river import datasets, naive_bayes
    >>> clf = PUDDClassifier(naive_bayes.GaussianNB(), PUDD(cut_every=200, clock=20, seed=0))
    >>> stream = [*datasets.synth.SEA(variant=0, seed=1).take(3000),
    ...           *datasets.synth.SEA(variant=3, seed=2).take(3000)]
    >>> for x, y in stream:
    ...     clf.learn_one(x, y)
    >>> clf.n_resets >= 1
    True
    """

    def __init__(self, model: base.Classifier, drift_detector: PUDD | None = None) -> None:
        self.model = model
        self.drift_detector = drift_detector if drift_detector is not None else PUDD()
        self.n_resets = 0

    @property
    def _wrapped_model(self) -> base.Classifier:
        return self.model

    @classmethod
    def _unit_test_params(cls) -> Any:
        from river import naive_bayes

        model: base.Classifier = naive_bayes.GaussianNB()  # type: ignore[no-untyped-call]
        yield {"model": model, "drift_detector": PUDD(cut_every=50, clock=10)}

    def predict_proba_one(self, x: dict[Any, Any], **kwargs: Any) -> dict[Any, float]:
        """Class probabilities of the current model."""
        out: dict[Any, float] = self.model.predict_proba_one(x, **kwargs)
        return out

    def learn_one(self, x: dict[Any, Any], y: Any, **kwargs: Any) -> None:
        """Score the instance (PU-index, correctness), update PUDD, then learn it.

        An instance the model cannot score yet (an empty ``predict_proba_one``) is only learnt.

        Examples
        --------
        >>> from river import naive_bayes
        >>> clf = PUDDClassifier(naive_bayes.GaussianNB(), PUDD(cut_every=50, clock=1, seed=0))
        >>> clf.learn_one({"x": 0.0}, 0)  # no class known yet: nothing to score
        >>> clf.drift_detector.n_seen
        0
        >>> clf.learn_one({"x": 1.0}, 1)  # predicted 0 with probability 1: u = 1, an error
        >>> clf.drift_detector.n_seen, clf.drift_detector.last_scan.accuracy
        (1, 0.0)
        """
        proba = self.model.predict_proba_one(x)
        if proba:
            y_pred = max(proba, key=proba.__getitem__)
            u = min(1.0, max(0.0, 1.0 - proba.get(y, 0.0)))
            self.drift_detector.update(u, correct=y_pred == y)
            if self.drift_detector.drift_detected:
                self.model = self.model.clone()
                self.n_resets += 1
        self.model.learn_one(x, y, **kwargs)

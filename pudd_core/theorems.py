r"""Theorems 1 and 2 of the paper, made concrete: equal error rates, different PU histograms.

Theorem 1: if two windows' PU histograms (one bin of correct predictions, bins over the
misclassified ones) have equal proportions, their error rates and error standard deviations
are equal. Theorem 2: the converse fails; the proof's counterexample puts both windows at a
50% error rate with correct predictions' uncertainty in [0, 0.1] versus (0.1, 0.2] and
misclassified ones in (0.9, 1] versus (0.8, 0.9].
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pudd_core import _validation
from pudd_core.chi2 import Chi2Result, chi2_test

__all__ = [
    "ErrorShiftPower",
    "ErrorStats",
    "Theorem1Check",
    "TheoremWindows",
    "error_rate_test",
    "error_shift_power",
    "error_stats",
    "pu_histogram",
    "theorem1_check",
    "theorem2_windows",
]

Range = tuple[float, float]


@dataclass(frozen=True)
class ErrorStats:
    r"""Error rate $\bar e$ and error standard deviation $\sqrt{\bar e (1 - \bar e)}$.

    Attributes
    ----------
    error_rate
        Fraction of misclassified predictions, $\bar e$.
    error_std
        Standard deviation of the 0/1 error, $\sqrt{\bar e (1 - \bar e)}$.

    Examples
    --------
    >>> s = error_stats([True, True, True, False])  # one error in four
    >>> s
    ErrorStats(error_rate=0.25, error_std=0.4330...)
    >>> s.error_std == math.sqrt(0.25 * 0.75)
    True
    """

    error_rate: float
    error_std: float


def error_stats(correct: ArrayLike) -> ErrorStats:
    """Error rate and error standard deviation of a window (paper, proof of Theorem 1).

    Raises
    ------
    ValueError
        If ``correct`` is empty, not one-dimensional, or not boolean (or 0/1).

    Examples
    --------
    >>> error_stats([True, False, True, False])
    ErrorStats(error_rate=0.5, error_std=0.5)
    """
    ok = _flags("correct", correct)
    if ok.size == 0:
        raise ValueError("a window needs at least one prediction")
    e = float(np.count_nonzero(~ok) / ok.size)
    return ErrorStats(e, math.sqrt(e - e * e))


@dataclass(frozen=True)
class TheoremWindows:
    """Two windows of a binary task: PU values and correctness (correct iff ``u < 0.5``).

    Attributes
    ----------
    u1, u2
        PU-index values of window 1 and window 2.
    correct1, correct2
        Whether each prediction of window 1 / window 2 was correct.
    error_rate
        The error rate both windows share.

    Examples
    --------
    >>> w = theorem2_windows(6, seed=0)
    >>> w
    TheoremWindows(error_rate=0.5)
    >>> w.u1.round(2).tolist(), w.correct1.tolist()
    ([0.08, 0.09, 0.99, 0.9, 0.05, 0.92], [True, True, False, False, True, False])
    >>> w.u2.round(2).tolist(), w.correct2.tolist()
    ([0.1, 0.11, 0.17, 0.87, 0.87, 0.84], [True, True, True, False, False, False])
    """

    u1: NDArray[np.float64] = field(repr=False)
    correct1: NDArray[np.bool_] = field(repr=False)
    u2: NDArray[np.float64] = field(repr=False)
    correct2: NDArray[np.bool_] = field(repr=False)
    error_rate: float


def _check_range(name: str, r: Range, lo: float, hi: float) -> None:
    a, b = float(r[0]), float(r[1])
    if not lo <= a < b <= hi:
        raise _validation.ParameterError(
            name,
            f"{name} must be an interval (low, high) with {lo} <= low < high <= {hi}, got {r!r}",
        )


def theorem2_windows(
    n: int = 1000,
    *,
    error_rate: float = 0.5,
    correct1: Range = (0.0, 0.1),
    wrong1: Range = (0.9, 1.0),
    correct2: Range = (0.1, 0.2),
    wrong2: Range = (0.8, 0.9),
    seed: int | None = None,
) -> TheoremWindows:
    """The counterexample of Theorem 2's proof, with adjustable proportions and PU ranges.

    Each window has ``n`` predictions of which exactly ``round(error_rate * n)`` are wrong;
    correct ones draw their PU-index uniformly from ``correct1``/``correct2`` (inside
    [0, 0.5)), misclassified ones from ``wrong1``/``wrong2`` (inside (0.5, 1]). Both windows
    share error rate and error standard deviation, whatever the ranges.

    Examples
    --------
    >>> w = theorem2_windows(1000, seed=0)
    >>> error_stats(w.correct1) == error_stats(w.correct2)
    True
    >>> bool(w.u1[w.correct1].max() <= 0.1 < w.u2[w.correct2].min())
    True
    """
    _validation.check_positive_int("n", n, minimum=2)
    if not 0.0 <= _validation.finite_float("error_rate", error_rate) <= 1.0:
        raise _validation.ParameterError("error_rate",
                                         f"error_rate must lie in [0, 1], got {error_rate!r}")
    for name, r in (("correct1", correct1), ("correct2", correct2)):
        _check_range(name, r, 0.0, 0.5)
        if r[1] >= 0.5:
            raise _validation.ParameterError(
                name, f"{name} must stay below 0.5 (a correct binary prediction), got {r!r}")
    for name, r in (("wrong1", wrong1), ("wrong2", wrong2)):
        _check_range(name, r, 0.5, 1.0)
        if r[0] <= 0.5:
            raise _validation.ParameterError(
                name, f"{name} must stay above 0.5 (a wrong binary prediction), got {r!r}")
    rng = np.random.default_rng(seed)
    n_wrong = round(error_rate * n)

    def window(ok_range: Range, bad_range: Range) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        ok = np.ones(n, dtype=bool)
        ok[rng.permutation(n)[:n_wrong]] = False
        u = np.where(ok, rng.uniform(*ok_range, size=n), rng.uniform(*bad_range, size=n))
        # uniform() excludes the upper end; keep the proof's closed/open ends irrelevant
        return np.clip(u, 0.0, 1.0), ok

    u1, ok1 = window(correct1, wrong1)
    u2, ok2 = window(correct2, wrong2)
    return TheoremWindows(u1, ok1, u2, ok2, n_wrong / n)


def pu_histogram(u: ArrayLike, correct: ArrayLike, edges: ArrayLike) -> NDArray[np.int64]:
    """Theorem 1's histogram: all correct predictions in one bin, the errors binned by PU.

    Examples
    --------
    >>> pu_histogram([0.1, 0.6, 0.7, 0.95], [True, False, False, False], [0.5, 0.75, 1.0])
    array([1, 2, 1])
    """
    vals = _validation.as_pu_array("u", u)
    ok = _validation.as_mask("correct", correct, vals.size, "u")
    bins = np.asarray(edges, dtype=np.float64)
    wrong, _ = np.histogram(vals[~ok], bins=bins)
    return np.concatenate(([np.count_nonzero(ok)], wrong)).astype(np.int64)


@dataclass(frozen=True)
class Theorem1Check:
    """Whether two Theorem-1 histograms have equal proportions, and their error statistics.

    Attributes
    ----------
    identical
        Whether the two histograms' proportions are equal (within ``rtol``).
    stats1, stats2
        Error rate and error standard deviation read off each histogram.

    Examples
    --------
    >>> theorem1_check([60, 30, 10], [50, 30, 20])  # 40% versus 50% errors
    Theorem1Check(identical=False,
                  stats1=ErrorStats(error_rate=0.4, error_std=0.4898...),
                  stats2=ErrorStats(error_rate=0.5, error_std=0.5))
    """

    identical: bool
    stats1: ErrorStats
    stats2: ErrorStats


def _flags(name: str, values: ArrayLike) -> NDArray[np.bool_]:
    arr = np.asarray(values)
    return _validation.as_mask(name, arr, arr.shape[0] if arr.ndim else 0, name)


def theorem1_check(hist1: ArrayLike, hist2: ArrayLike, *, rtol: float = 1e-12) -> Theorem1Check:
    r"""Check Theorem 1: identical histogram proportions imply equal error rate and std.

    ``hist[0]`` counts the correct predictions, the other bins the misclassified ones (the
    proof's $B_0, B_1, \ldots, B_m$).

    Examples
    --------
    >>> c = theorem1_check([60, 30, 10], [120, 60, 20])
    >>> c.identical, c.stats1 == c.stats2
    (True, True)
    """
    h1 = np.asarray(hist1, dtype=np.float64)
    h2 = np.asarray(hist2, dtype=np.float64)
    if h1.shape != h2.shape or h1.ndim != 1 or h1.size < 2:
        raise ValueError("both histograms need the same bins: [correct, error bin 1, ...]")
    if h1.sum() <= 0 or h2.sum() <= 0 or (h1 < 0).any() or (h2 < 0).any():
        raise ValueError("histograms must hold non-negative counts with a positive total")
    p1, p2 = h1 / h1.sum(), h2 / h2.sum()

    def stats(p: NDArray[np.float64]) -> ErrorStats:
        e = float(1.0 - p[0])
        return ErrorStats(e, math.sqrt(max(e - e * e, 0.0)))

    return Theorem1Check(bool(np.allclose(p1, p2, rtol=rtol, atol=0.0)), stats(p1), stats(p2))


def error_rate_test(correct1: ArrayLike, correct2: ArrayLike) -> Chi2Result:
    """Chi-square test of equal error rates: the 2 x 2 table of correct and wrong counts.

    Raises
    ------
    ValueError
        If a window is empty, not one-dimensional, or not boolean (or 0/1).

    Examples
    --------
    >>> error_rate_test([True] * 50 + [False] * 50, [True] * 50 + [False] * 50).p_value
    1.0
    """
    a = _flags("correct1", correct1)
    b = _flags("correct2", correct2)
    table = [
        [np.count_nonzero(a), np.count_nonzero(~a)],
        [np.count_nonzero(b), np.count_nonzero(~b)],
    ]
    return chi2_test(np.array(table), yates=True)


@dataclass(frozen=True)
class ErrorShiftPower:
    """Power of the two tests against a *pure* error-rate change (see :func:`error_shift_power`).

    Examples
    --------
    >>> p = error_shift_power(1000, 1000, 0.10, 0.15, k=5, alpha=0.05)
    >>> round(p.noncentrality, 3), round(p.power_error_test, 3), round(p.power_pu_test, 3)
    (11.429, 0.922, 0.745)
    >>> p.power_error_test > p.power_pu_test  # one degree of freedom against five
    True
    """

    noncentrality: float
    """lambda: the Pearson chi2 of the expected counts under the change; the same for both."""
    k: int
    """Buckets of correct predictions in PUDD's table (its degrees of freedom)."""
    alpha: float
    power_error_test: float
    """The 2 x 2 test of equal error rates (1 degree of freedom)."""
    power_pu_test: float
    """PUDD's 2 x (K + 1) table (K degrees of freedom)."""


def error_shift_power(n1: int, n2: int, error1: float, error2: float, *, k: int,
                      alpha: float) -> ErrorShiftPower:
    """Asymptotic power of the 2 x 2 error-rate test and of PUDD's 2 x (K + 1) PU test.

    The change is a pure error-rate change: window 2's error rate moves from ``error1`` to
    ``error2`` while the correct predictions' PU-index keeps its distribution, so the K
    correct buckets keep their shares among the correct ones. Both tables then have the same
    noncentrality lambda (the chi2 of the expected counts: splitting a column in proportional
    parts adds nothing), but PUDD's statistic spreads it over K degrees of freedom instead of
    1, so its power, ``P(chi2'(df, lambda) > chi2_(1-alpha)(df))``, is lower for every K > 1.
    Theorem 1 says the PU histogram *shows* every error-rate change; this says how much less
    *power* its test has for one. Large-sample approximations (no Yates correction, no count
    floor).

    Examples
    --------
    >>> r = error_shift_power(1000, 1000, 0.10, 0.15, k=5, alpha=1e-3)
    >>> round(r.noncentrality, 2), round(r.power_error_test, 2), round(r.power_pu_test, 2)
    (11.43, 0.54, 0.26)
    >>> one = error_shift_power(1000, 1000, 0.10, 0.15, k=1, alpha=1e-3)
    >>> one.power_pu_test == r.power_error_test     # K = 1: PUDD's table is the 2 x 2 one
    True
    """
    from scipy import stats

    for name, n in (("n1", n1), ("n2", n2)):
        _validation.check_positive_int(name, n)
    for name, e in (("error1", error1), ("error2", error2)):
        if (isinstance(e, bool) or not isinstance(e, int | float | np.integer | np.floating)
                or not 0.0 < float(e) < 1.0):
            raise _validation.ParameterError(
                name, f"{name} must be an error rate strictly between 0 and 1, got {e!r}")
    _validation.check_positive_int("k", k)
    _validation.check_open_unit("alpha", alpha)
    rows = np.array([[n1 * (1 - error1), n1 * error1], [n2 * (1 - error2), n2 * error2]])
    expected = rows.sum(axis=1, keepdims=True) * rows.sum(axis=0) / rows.sum()
    lam = float(((rows - expected) ** 2 / expected).sum())

    def power(df: int) -> float:
        return float(stats.ncx2.sf(stats.chi2.isf(alpha, df), df, lam)) if lam > 0 else alpha

    return ErrorShiftPower(lam, k, float(alpha), power(1), power(k))

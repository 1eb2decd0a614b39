r"""Pearson's chi-square test of a $2 \times (K+1)$ PU-index table (paper, eqs. 12-14)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special
from scipy.special import chdtrc

from pudd_core import _validation
from pudd_core.bucketing import (
    Buckets,
    build_buckets,
    check_bucket_options,
    counts_from_unsorted,
    fitting_sample,
)

__all__ = [
    "Chi2Result",
    "PUTestResult",
    "chi2_test",
    "clamp_table",
    "contingency_table",
    "p_text",
    "pairwise_sum",
    "pu_chi2_test",
]


@dataclass(frozen=True)
class Chi2Result:
    r"""Outcome of :func:`chi2_test`.

    Attributes
    ----------
    statistic
        Pearson's $\chi^2$ (after Yates' correction when it applies).
    p_value
        Survival function of $\chi^2_{dof}$ at ``statistic``.
    dof
        Degrees of freedom, (rows - 1)(columns - 1) over the non-empty columns.
    expected
        Expected counts $E_{ij} = n_i n_j / N$, one per tested column.

    Examples
    --------
    >>> res = chi2_test([[50, 50], [30, 70]], yates=False)
    >>> res.statistic, res.p_value, res.dof
    (8.333..., 0.003892..., 1)
    >>> res.expected.tolist()
    [[40.0, 60.0], [40.0, 60.0]]
    """

    statistic: float
    p_value: float
    dof: int
    expected: NDArray[np.float64] = field(repr=False, compare=False)


def clamp_table(table: ArrayLike, clamp_min: int) -> NDArray[np.int64]:
    """Raise every observed cell below ``clamp_min`` to exactly ``clamp_min``.

    This is the authors' floor of 5 on every cell (spec section 1.7), which is not the paper's
    "expected count > 5" validity rule; ``clamp_min=0`` leaves the table unchanged.

    Raises
    ------
    ValueError
        If ``clamp_min`` is negative.

    Examples
    --------
    >>> clamp_table([[0, 7, 3], [12, 4, 5]], 5).tolist()
    [[5, 7, 5], [12, 5, 5]]
    """
    arr = np.asarray(table, dtype=np.int64)
    if clamp_min < 0:
        raise ValueError(f"clamp_min must be >= 0, got {clamp_min}")
    return np.maximum(arr, clamp_min) if clamp_min > 0 else arr.copy()


def chi2_test(table: ArrayLike, *, yates: bool = True) -> Chi2Result:
    r"""Pearson chi-square test of independence of a contingency table's rows and columns.

    Expected counts are $E_{ij} = n_i n_j / N$ (paper, eq. 12), the statistic is
    $\chi^2 = \sum_{ij} (O_{ij} - E_{ij})^2 / E_{ij}$ (eq. 13) and $p$ is the $\chi^2$ survival
    function with (rows - 1)(columns - 1) degrees of freedom (eq. 14). The result equals
    ``scipy.stats.chi2_contingency(table, correction=yates)``; columns that are empty in every
    row carry no information and are dropped first (scipy would raise on them).

    Parameters
    ----------
    table
        Observed counts, one row per window (row 0 the reference window, row 1 the recent one).
    yates
        Yates' continuity correction, which scipy applies only when dof = 1 (the authors' call,
        with scipy's default ``correction=True``). ``False`` gives eqs. 12-14 exactly.

    Raises
    ------
    ValueError
        If ``table`` is not 2-D with at least two rows, holds a negative or non-finite count,
        or has a row with no count at all.

    Examples
    --------
    >>> chi2_test(np.array([[50, 50], [30, 70]]), yates=False)
    Chi2Result(statistic=8.333..., p_value=0.003892..., dof=1)
    >>> chi2_test(np.array([[50, 50], [30, 70]]))
    Chi2Result(statistic=7.5208..., p_value=0.006099..., dof=1)
    """
    obs = np.asarray(table, dtype=np.float64)
    if obs.ndim != 2 or obs.shape[0] < 2:
        raise ValueError(f"table must be 2-D with at least two rows, got shape {obs.shape}")
    if not np.isfinite(obs).all() or (obs < 0).any():
        raise ValueError("table must hold finite, non-negative counts")
    obs = obs[:, obs.sum(axis=0) > 0]
    rows = obs.sum(axis=1)
    if (rows == 0).any():
        empty = int(np.flatnonzero(rows == 0)[0])
        raise ValueError(f"row {empty} of the table is empty: each window needs at least one value")
    return _pearson(obs, rows, yates)


def _pearson(obs: NDArray[np.float64], rows: NDArray[np.float64], yates: bool) -> Chi2Result:
    cols = obs.sum(axis=0)
    total = rows.sum()
    expected = rows[:, None] * cols / total  # np.outer's products, without its wrapper
    dof = (obs.shape[0] - 1) * (obs.shape[1] - 1)
    if dof == 0:
        return Chi2Result(0.0, 1.0, 0, expected)
    if dof == 1 and yates:
        # scipy.stats.chi2_contingency: move each cell by at most 0.5 towards its expectation
        diff = expected - obs
        obs = obs + np.sign(diff) * np.minimum(0.5, np.abs(diff))
    stat = float(((obs - expected) ** 2 / expected).sum())
    return Chi2Result(stat, float(special.chdtrc(dof, stat)), dof, expected)


@dataclass(frozen=True)
class PUTestResult:
    """Outcome of :func:`pu_chi2_test` for one pair of windows.

    Attributes
    ----------
    p_value
        The test's p-value (0 or 1 where a shortcut decided it, see ``shortcut``).
    statistic
        Pearson's statistic (NaN when no test ran).
    dof
        Degrees of freedom (0 when no test ran).
    table
        The tested 2 x (K + 1) table: row 0 reference, row 1 recent; columns the K buckets of
        correct predictions, then the misclassified count; observed counts after the clamp.
    observed
        The same table before the clamp.
    expected
        Expected counts of ``table`` (eq. 12); NaN when no test ran.
    buckets
        The bucket partition fitted on the reference window.
    shortcut
        Why no test ran, if one did not (e.g. "no correct prediction in the recent window").

    Examples
    --------
    >>> u_old = np.linspace(0.0, 0.4, 100)  # 100 correct predictions, two buckets of 50
    >>> res = pu_chi2_test(u_old, None, np.linspace(0.1, 0.9, 100), None)
    >>> res.observed.tolist(), res.table.tolist(), res.dof
    ([[50, 50, 0], [37, 13, 50]], [[50, 50, 5], [37, 13, 50]], 2)
    >>> res.p_value < 1e-10, res.shortcut
    (True, None)
    >>> pu_chi2_test(u_old, None, [0.8, 0.9], None).shortcut
    'no correct prediction in the recent window'
    """

    p_value: float
    statistic: float
    dof: int
    table: NDArray[np.int64] = field(repr=False, compare=False)
    observed: NDArray[np.int64] = field(repr=False, compare=False)
    expected: NDArray[np.float64] = field(repr=False, compare=False)
    buckets: Buckets = field(repr=False, compare=False)
    shortcut: str | None = None

    @property
    def floored_cells(self) -> int:
        """How many observed cells the count floor (``clamp_min``) raised before the test.

        Non-zero means the floor, not the data alone, shaped this p-value: with an empty
        misclassified column in both windows it invents 5 errors in each (see
        ``results/false_alarms.md``).

        Examples
        --------
        >>> u = np.linspace(0.0, 0.4, 100)
        >>> pu_chi2_test(u, None, u, None).floored_cells  # no errors in either window
        2
        """
        return int(np.count_nonzero(self.table != self.observed))


def contingency_table(
    buckets: Buckets,
    u_ref: NDArray[np.float64],
    correct_ref: NDArray[np.bool_],
    u_test: NDArray[np.float64],
    correct_test: NDArray[np.bool_],
) -> NDArray[np.int64]:
    """The 2 x (K + 1) table: bucket counts of each window's correct values, then its errors.

    Examples
    --------
    >>> b = Buckets(centres=(0.1, 0.3), coef=(1.0, 1.0), sample_counts=(2, 2), n_sample=4)
    >>> u = np.array([0.05, 0.1, 0.35, 0.8])
    >>> contingency_table(b, u, u < 0.5, u, np.array([True, True, False, False])).tolist()
    [[2, 1, 1], [2, 0, 2]]
    """
    rows = []
    for u, ok in ((u_ref, correct_ref), (u_test, correct_test)):
        counts = counts_from_unsorted(u[ok], buckets)
        rows.append(np.append(counts, u.size - int(np.count_nonzero(ok))))
    return np.vstack(rows).astype(np.int64)


def merge_sparse_columns(obs: NDArray[np.float64], min_expected: float) -> NDArray[np.float64]:
    """Merge neighbouring columns until every expected count is at least ``min_expected``.

    Cochran's rule for Pearson's test: the column with the smallest total (so the smallest
    expected counts) joins its neighbour with the smaller total, until every expected count
    reaches ``min_expected`` or one column is left. Columns are in PU order (the
    misclassified column last), so only neighbouring PU ranges merge.

    Examples
    --------
    >>> merge_sparse_columns(np.array([[900.0, 90, 0], [95, 4, 1]]), 5).tolist()
    [[900.0, 90.0], [95.0, 5.0]]
    """
    obs = obs[:, obs.sum(axis=0) > 0]
    rows, merged = _merge_columns(obs.tolist(), min_expected)
    return np.array(rows) if merged else obs


def pu_chi2_test(
    u_ref: ArrayLike,
    correct_ref: ArrayLike | None,
    u_test: ArrayLike,
    correct_test: ArrayLike | None,
    *,
    n_buckets: int = 5,
    min_bucket_size: int = 50,
    sample_size: int = 1000,
    clamp_min: int = 5,
    yates: bool = True,
    seed: int | np.random.Generator | None = None,
) -> PUTestResult:
    r"""PUDD's two-sample test of whether two windows' PU-index histograms differ.

    Buckets are fitted on the reference window's correct predictions (Adaptive PU-index
    Bucketing, :func:`~pudd_core.bucketing.fit_buckets`); both windows are counted into a
    $2 \times (K+1)$ table whose last column holds the misclassified instances; every
    observed cell is raised to at least ``clamp_min`` (the authors' floor of 5) and Pearson's
    test gives $p$ (paper, eqs. 12-14). With reference windows of at most ``sample_size``
    values no random sample is drawn, so the result is deterministic.

    Parameters
    ----------
    u_ref, u_test
        PU-index values of the reference (old) and test (recent) windows.
    correct_ref, correct_test
        Whether each prediction was correct (arg-max equals label); ``None`` means
        ``u < 0.5``, exact for binary tasks except ties at 0.5. The authors use ``u < 0.5``
        for the reference window and arg-max for the recent one (spec section 1.7); pass
        ``None`` for ``correct_ref`` to reproduce that asymmetry.
    n_buckets
        Starting number of buckets, *K* in the paper.
    min_bucket_size
        Minimum fitting-sample values per bucket.
    sample_size
        Largest bucketing sample; larger reference windows are subsampled with replacement.
    clamp_min
        Floor applied to every observed cell before the test; 0 turns it off.
    yates
        Yates' correction for 2 x 2 tables (scipy's default, which the authors use).
    seed
        Seed or generator for the bucketing sample.

    Raises
    ------
    ValueError
        If either window is empty, not one-dimensional, or holds NaN, infinity or values
        outside [0, 1]; if a correctness mask is not boolean (or 0/1) or its length differs
        from its window's; if ``n_buckets`` or ``sample_size`` is not an integer >= 1, or
        ``min_bucket_size`` or ``clamp_min`` not an integer >= 0.

    Notes
    -----
    A reference window with no correct prediction is bucketed into one bucket at 0.0 (see
    :func:`~pudd_core.bucketing.fit_buckets`), so the test compares the two windows' error
    rates; a recent window with no correct prediction gives $p = 0$ with no test (spec
    section 1.5).

    Examples
    --------
    >>> rng = np.random.default_rng(7)
    >>> u_old = rng.beta(1, 8, 1000)
    >>> u_new = rng.beta(1, 3, 1000)   # same support, more uncertain predictions
    >>> res = pu_chi2_test(u_old, None, u_new, None, seed=0)
    >>> res.p_value < 1e-10, res.dof, res.table.shape
    (True, 5, (2, 6))
    >>> pu_chi2_test(u_old, None, rng.beta(1, 8, 1000), None, seed=0).p_value > 0.01
    True
    """
    u_r = _validation.as_pu_array("u_ref", u_ref)
    u_t = _validation.as_pu_array("u_test", u_test)
    if u_r.size == 0 or u_t.size == 0:
        raise ValueError("both windows need at least one PU-index value")
    c_r = _validation.correct_mask("correct_ref", correct_ref, u_r, "u_ref")
    c_t = _validation.correct_mask("correct_test", correct_test, u_t, "u_test")
    check_bucket_options(n_buckets, min_bucket_size, sample_size)
    _validation.check_positive_int("clamp_min", clamp_min, minimum=0)
    _validation.check_bool("yates", yates)
    if not isinstance(seed, np.random.Generator):
        _validation.check_seed("seed", seed)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    sample = fitting_sample(u_r, c_r, sample_size=sample_size, rng=rng)
    buckets = build_buckets(sample, u_r.size, u_t.size, n_buckets, min_bucket_size)
    observed = contingency_table(buckets, u_r, c_r, u_t, c_t)
    return evaluate_table(observed, buckets, clamp_min=clamp_min, yates=yates)


def evaluate_table(
    observed: NDArray[np.int64] | list[list[int]],
    buckets: Buckets,
    *,
    clamp_min: int,
    yates: bool,
    errors_column: bool = True,
    min_expected: float = 0.0,
) -> PUTestResult:
    """Apply the shortcut of spec section 1.5, or clamp and test (kernel: no validation).

    The arithmetic is :func:`chi2_test`'s on the clamped table (after
    :func:`merge_sparse_columns` when ``min_expected`` is set), done in plain Python floats in
    numpy's order: a table of a dozen cells costs less than the numpy calls would.
    ``observed`` may also be the rows as lists of ints (as the detectors count them).

    Examples
    --------
    >>> from pudd_core.bucketing import Buckets
    >>> b = Buckets(centres=(0.1,), coef=(1.0,), sample_counts=(100,), n_sample=100)
    >>> r = evaluate_table([[80, 20], [50, 50]], b, clamp_min=5, yates=False)
    >>> round(r.statistic, 4), r.dof, r.p_value < 1e-4
    (19.7802, 1, True)
    >>> from scipy.stats import chi2_contingency
    >>> round(float(chi2_contingency([[80, 20], [50, 50]], correction=False).statistic), 4)
    19.7802
    """
    if isinstance(observed, np.ndarray):
        counts: list[list[int]] = observed.tolist()
    else:
        counts, observed = observed, np.array(observed, dtype=np.int64)
    if clamp_min > 0:  # clamp_table's floor, on the ints
        cells = [[c if c > clamp_min else clamp_min for c in row] for row in counts]
        table = np.array(cells, dtype=np.int64)
    else:
        cells, table = counts, observed.astype(np.int64)  # a copy, as clamp_table
    if errors_column and not any(counts[1][:-1]):
        # spec section 1.5: no correct prediction in the recent window -> p = 0, no test
        nan = np.full(table.shape, np.nan)
        return PUTestResult(
            0.0, float("nan"), 0, table, observed, nan, buckets,
            shortcut="no correct prediction in the recent window",
        )
    # spec sections 1.7-1.8: clamp once, then test the columns with a count
    tested = [j for j, col in enumerate(zip(*cells, strict=True)) if any(col)]
    width = len(cells[0])
    if len(tested) == width:
        rows = [[float(c) for c in r] for r in cells]
    else:
        rows = [[float(r[j]) for j in tested] for r in cells]
    merged = False
    if min_expected > 0:
        rows, merged = _merge_columns(rows, min_expected)
    stat, p_value, dof, exp_rows = _pearson_rows(rows, yates)
    if merged:  # the tested columns are no longer the table's
        expected = np.full(table.shape, np.nan)
    elif len(tested) == width:
        expected = np.array(exp_rows)
    else:  # NaN in the untested columns
        where = dict(zip(tested, range(len(tested)), strict=True))
        expected = np.array([[r[where[j]] if j in where else math.nan
                              for j in range(width)] for r in exp_rows])
    return PUTestResult(p_value, stat, dof, table, observed, expected, buckets)


def pairwise_sum(values: Sequence[float]) -> float:
    """The sum of float64 values as ``np.add.reduce`` forms it, bit for bit, in plain Python.

    numpy adds a contiguous run to 0.0 by pairwise summation: below 8 values one by one; up
    to 128 in eight interleaved partial sums, combined as a tree, then the remainder; above,
    the two halves (the first a multiple of 8 long) each summed so. For a few values this is
    cheaper than the numpy call.

    Examples
    --------
    >>> x = [1.0] + [1e-16] * 8
    >>> pairwise_sum(x), float(np.sum(x)), sum(x)  # Python's sum adds one by one
    (1.0000000000000007, 1.0000000000000007, 1.0)
    """
    return 0.0 + _pairwise(values, 0, len(values))


def _pairwise(a: Sequence[float], lo: int, n: int) -> float:
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    if n <= 128:
        r0, r1, r2, r3, r4, r5, r6, r7 = a[lo : lo + 8]
        i = lo + 8
        end = lo + n - n % 8
        while i < end:
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        for j in range(end, lo + n):
            res += a[j]
        return res
    half = n // 2
    half -= half % 8
    return _pairwise(a, lo, half) + _pairwise(a, lo + half, n - half)


def _merge_columns(rows: list[list[float]], min_expected: float) -> tuple[
    list[list[float]], bool
]:
    """:func:`merge_sparse_columns` on the rows of a table whose every column has a count."""
    totals = [sum(r) for r in rows]  # whole numbers: exact in any order
    total = sum(totals)
    low = min(totals)
    table = [list(c) for c in zip(*rows, strict=True)]
    cols = [sum(c) for c in table]
    merged = False
    while len(cols) > 1:
        j = cols.index(min(cols))  # the first smallest, as np.argmin
        if low * cols[j] / total >= min_expected:
            break
        if j == 0:
            k = 1
        elif j == len(cols) - 1:
            k = j - 1
        else:
            k = j - 1 if cols[j - 1] <= cols[j + 1] else j + 1
        table[k] = [a + b for a, b in zip(table[k], table[j], strict=True)]
        cols[k] += cols[j]
        del table[j], cols[j]
        merged = True
    return ([list(r) for r in zip(*table, strict=True)], True) if merged else (rows, False)


def _pearson_rows(rows: list[list[float]], yates: bool) -> tuple[
    float, float, int, list[list[float]]
]:
    """:func:`_pearson` on the rows of a table, in Python floats: statistic, p, dof, expected."""
    totals = [sum(r) for r in rows]  # whole numbers: exact in any order
    if len(rows) == 2:  # the PU tables: two windows
        top, bottom = rows
        cols = [a + b for a, b in zip(top, bottom, strict=True)]
    else:
        cols = [sum(c) for c in zip(*rows, strict=True)]
    total = sum(totals)
    expected = [[t * c / total for c in cols] for t in totals]
    dof = (len(rows) - 1) * (len(cols) - 1)
    if dof == 0:
        return 0.0, 1.0, 0, expected
    terms = []
    if dof == 1 and yates:  # as _pearson: each cell moves at most 0.5 towards its expectation
        for obs_row, exp_row in zip(rows, expected, strict=True):
            for o, e in zip(obs_row, exp_row, strict=True):
                d = e - o
                o = o + (1.0 if d > 0 else -1.0 if d < 0 else 0.0) * min(0.5, abs(d))
                d = o - e
                terms.append(d * d / e)  # numpy squares by one product, as here
    else:
        for obs_row, exp_row in zip(rows, expected, strict=True):
            terms += [(o - e) * (o - e) / e for o, e in zip(obs_row, exp_row, strict=True)]
    stat = pairwise_sum(terms)  # the flat table's cells, in order, as numpy's sum
    return stat, float(chdtrc(dof, stat)), dof, expected


def p_text(p: float) -> str:
    """A p-value for labels and prose: 3 significant digits, scientific below 0.01, floored.

    Examples
    --------
    >>> p_text(1.0), p_text(0.9519), p_text(3.2e-8), p_text(0.0)
    ('p = 1', 'p = 0.952', 'p = 3.2e-08', 'p < 1e-300')
    """
    if not p >= 1e-300:  # the plots' floor, P_FLOOR
        return "p < 1e-300" if p == p else "p = n/a"
    return f"p = {p:.3g}" if p >= 0.01 else f"p = {p:.1e}"

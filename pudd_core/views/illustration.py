r"""The paper's illustrations made computable: the proofs of Theorems 1-2 and Fig. 1 (SEA + GNB).

Each function returns a frozen result that the app's pages plot; nothing here draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from pudd_core import _validation
from pudd_core.chi2 import Chi2Result, PUTestResult, pu_chi2_test
from pudd_core.experiments.baselines import feed_errors, make
from pudd_core.pu_index import pu_index
from pudd_core.theorems import (
    ErrorStats,
    Theorem1Check,
    TheoremWindows,
    error_rate_test,
    error_stats,
    pu_histogram,
    theorem1_check,
    theorem2_windows,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ERROR_EDGES",
    "FIG1_SIZES",
    "Fig1Curve",
    "Fig1Data",
    "Theorem1Config",
    "Theorem1Result",
    "Theorem2Config",
    "Theorem2Result",
    "fig1_data",
    "fig1_pvalue_curve",
    "gnb_boundary",
    "theorem1_demo",
    "theorem2_demo",
]

Range = tuple[float, float]
Perturbation = Literal["none", "between_error_bins", "correct_to_error"]

#: Bins of the misclassified PU values in the Theorem 1 panel (the proof's B_1 ... B_m).
ERROR_EDGES: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: Test-set sizes of the Fig. 1 p-value curve.
FIG1_SIZES: tuple[int, ...] = (1000, 2000, 3000, 5000, 7500, 10000, 15000, 20000)


# --- Theorem 2: equal error rates, different PU histograms -------------------------------------


@dataclass(frozen=True)
class Theorem2Config:
    """The counterexample of Theorem 2's proof: window size, error rate and four PU ranges.

    The defaults are the proof's: 50% errors, correct PU in [0, 0.1] versus (0.1, 0.2],
    misclassified PU in (0.9, 1] versus (0.8, 0.9].

    Examples
    --------
    >>> print(Theorem2Config(n=200).as_python().splitlines()[3])
    w = theorem2_windows(200, error_rate=0.5,
    """

    n: int = 1000
    error_rate: float = 0.5
    correct1: Range = (0.0, 0.1)
    wrong1: Range = (0.9, 1.0)
    correct2: Range = (0.1, 0.2)
    wrong2: Range = (0.8, 0.9)
    seed: int = 0

    def as_python(self) -> str:
        """The equivalent ``pudd_core`` calls, for a "show the code" panel."""
        return (
            "from pudd_core import theorem2_windows, pu_chi2_test, error_rate_test\n"
            "from pudd_core.experiments.baselines import make, feed_errors\n\n"
            f"w = theorem2_windows({self.n}, error_rate={self.error_rate},\n"
            f"                     correct1={self.correct1}, wrong1={self.wrong1},\n"
            f"                     correct2={self.correct2}, wrong2={self.wrong2},"
            f" seed={self.seed})\n"
            f"pudd = pu_chi2_test(w.u1, w.correct1, w.u2, w.correct2, seed={self.seed})\n"
            "errors = error_rate_test(w.correct1, w.correct2)\n"
            'ddm = feed_errors(make("ddm"), [*~w.correct1, *~w.correct2])'
        )


@dataclass(frozen=True)
class Theorem2Result:
    """Both windows, their error statistics and the three detectors' evidence.

    Attributes
    ----------
    windows
        The two windows (PU values and correctness).
    stats1, stats2
        Error rate and error standard deviation of each window.
    pudd
        PUDD's chi-square test of the PU histograms (window 1 the reference).
    error_test
        The 2 x 2 chi-square test of equal error rates.
    ddm_alarms
        Positions (0-based, window 1 then window 2) where river's DDM fired when fed the
        0/1 errors in stream order; the errors' positions in each window are a seeded
        random permutation.

    Examples
    --------
    >>> res = theorem2_demo(Theorem2Config(n=200, error_rate=0.3))
    >>> res.stats1.error_rate == res.stats2.error_rate == 0.3, res.ddm_alarms_window2
    (True, ())
    >>> res.pudd.p_value < 1e-10  # the PU histograms differ all the same
    True
    """

    config: Theorem2Config
    windows: TheoremWindows = field(repr=False)
    stats1: ErrorStats
    stats2: ErrorStats
    pudd: PUTestResult = field(repr=False)
    error_test: Chi2Result
    ddm_alarms: tuple[int, ...]

    @property
    def ddm_alarms_window2(self) -> tuple[int, ...]:
        """DDM alarms after the switch to window 2, as positions within window 2."""
        n = self.config.n
        return tuple(i - n for i in self.ddm_alarms if i >= n)


def theorem2_demo(config: Theorem2Config) -> Theorem2Result:
    """Build the proof's two windows and test them with PUDD, an error-rate test and DDM.

    Examples
    --------
    >>> res = theorem2_demo(Theorem2Config(n=200, seed=0))
    >>> res.stats1 == res.stats2, res.error_test.p_value, res.ddm_alarms
    (True, 1.0, ())
    >>> res.pudd.p_value < 1e-10
    True
    >>> theorem2_demo(Theorem2Config(correct1=(0.3, 0.5)))
    Traceback (most recent call last):
    ...
    pudd_core._validation.ParameterError: correct1 must stay below 0.5 ...
    """
    c = config
    w = theorem2_windows(
        c.n, error_rate=c.error_rate, correct1=c.correct1, wrong1=c.wrong1,
        correct2=c.correct2, wrong2=c.wrong2, seed=c.seed,
    )
    pudd = pu_chi2_test(w.u1, w.correct1, w.u2, w.correct2, seed=c.seed)
    errors = np.concatenate((~w.correct1, ~w.correct2)).astype(np.int64)
    return Theorem2Result(
        config=c,
        windows=w,
        stats1=error_stats(w.correct1),
        stats2=error_stats(w.correct2),
        pudd=pudd,
        error_test=error_rate_test(w.correct1, w.correct2),
        ddm_alarms=feed_errors(make("ddm"), errors),
    )


# --- Theorem 1: identical histograms, equal error rates ----------------------------------------


@dataclass(frozen=True)
class Theorem1Config:
    """Window 1, window 2 = window 1 scaled by ``factor``, and an optional perturbation.

    ``perturbation`` moves ``amount`` instances of window 2: ``"between_error_bins"`` from
    the fullest error bin to its neighbour (error rate kept), ``"correct_to_error"`` from the
    correct bin into an error bin (error rate raised).

    Examples
    --------
    >>> r = theorem1_demo(Theorem1Config(n=100, perturbation="correct_to_error", amount=10))
    >>> r.hist2, r.check.stats2.error_rate
    ((150, 18, 6, 2, 6, 18), 0.25)
    """

    n: int = 500
    error_rate: float = 0.2
    factor: int = 2
    perturbation: Perturbation = "none"
    amount: int = 20
    seed: int = 0


@dataclass(frozen=True)
class Theorem1Result:
    """Theorem 1's histograms of both windows (``[correct, error bins...]``) and the check.

    Examples
    --------
    >>> r = theorem1_demo(Theorem1Config(n=100))
    >>> sum(r.hist1), sum(r.hist2), r.edges  # window 2: window 1 scaled by 2
    (100, 200, (0.5, 0.6, 0.7, 0.8, 0.9, 1.0))
    """

    config: Theorem1Config
    edges: tuple[float, ...]
    hist1: tuple[int, ...]
    hist2: tuple[int, ...]
    check: Theorem1Check


def theorem1_demo(config: Theorem1Config) -> Theorem1Result:
    """Theorem 1 on a window and a scaled (optionally perturbed) copy of its histogram.

    Examples
    --------
    >>> r = theorem1_demo(Theorem1Config(n=100, error_rate=0.2, factor=3))
    >>> r.hist1, r.hist2, r.check.identical
    ((80, 4, 3, 1, 3, 9), (240, 12, 9, 3, 9, 27), True)
    >>> r = theorem1_demo(Theorem1Config(n=100, perturbation="between_error_bins", amount=6))
    >>> r.hist2, r.check.identical, r.check.stats1 == r.check.stats2
    ((160, 8, 6, 2, 12, 12), False, True)
    """
    c = config
    _validation.check_positive_int("factor", c.factor)
    _validation.check_positive_int("amount", c.amount, minimum=0)
    _validation.check_choice(
        "perturbation", c.perturbation, ("none", "between_error_bins", "correct_to_error")
    )
    w = theorem2_windows(
        c.n, error_rate=c.error_rate, correct1=(0.0, 0.45), wrong1=(0.51, 1.0), seed=c.seed
    )
    hist1 = pu_histogram(w.u1, w.correct1, ERROR_EDGES)
    hist2 = hist1 * c.factor
    if c.perturbation == "between_error_bins":
        src = 1 + int(np.argmax(hist2[1:]))
        dst = src - 1 if src == hist2.size - 1 else src + 1
        if c.amount > hist2[src]:
            raise _validation.ParameterError(
                "amount",
                f"amount must be at most {hist2[src]} (the fullest error bin of window 2), "
                f"got {c.amount}"
            )
        hist2[src] -= c.amount
        hist2[dst] += c.amount
    elif c.perturbation == "correct_to_error":
        if c.amount > hist2[0]:
            raise _validation.ParameterError(
                "amount",
                f"amount must be at most {hist2[0]} (the correct predictions of window 2), "
                f"got {c.amount}"
            )
        hist2[0] -= c.amount
        hist2[1] += c.amount
    return Theorem1Result(
        config=c,
        edges=ERROR_EDGES,
        hist1=tuple(int(v) for v in hist1),
        hist2=tuple(int(v) for v in hist2),
        check=theorem1_check(hist1, hist2),
    )


# --- Fig. 1: SEA features, Gaussian naive Bayes, the boundary moves from 9 to 8.2 -------------

OLD_THRESHOLD = 9.0
NEW_THRESHOLD = 8.2


@dataclass(frozen=True)
class Fig1Data:
    r"""The two test sets of Fig. 1, the model's view of them and the tests between them.

    Attributes
    ----------
    x1, y1, x2, y2
        Features (x0, x1) and labels of test set 1 (old concept, x0 + x1 > 9) and test set 2
        (new concept, x0 + x1 > 8.2).
    u1, u2
        The PU-index $1 - p(y)$ of each test point (paper, eq. 7).
    correct1, correct2
        Whether GNB's arg-max prediction is right.
    notebook_u1, notebook_u2
        What the authors' notebook histograms instead: $1 - \max_c p(c)$ (spec section 6).
    grid_x0, grid_x1, grid_proba
        A grid over the feature square and GNB's $p(y = 1)$ on it (rows follow ``grid_x1``).
    boundary
        GNB's decision boundary $p(y = 1) = 0.5$ in the feature square, as the points of a
        line (:func:`gnb_boundary`).
    pudd
        PUDD's test of test set 2 against test set 1 on the true PU-index.
    error_test
        The 2 x 2 chi-square test of equal error rates.
    notebook_p_value
        The same PUDD test fed $1 - \max p$ with the authors' ``u < 0.5`` split for the
        reference row (their notebook once boolean masks are used): an artifact.

    Examples
    --------
    >>> d = fig1_data(grid_size=11)
    >>> d.x1.shape, d.accuracy1, d.n_errors1 == round((1 - d.accuracy1) * d.x1.shape[0])
    ((1000, 2), 0.958, True)
    """

    x1: NDArray[np.float64] = field(repr=False)
    y1: NDArray[np.int64] = field(repr=False)
    x2: NDArray[np.float64] = field(repr=False)
    y2: NDArray[np.int64] = field(repr=False)
    u1: NDArray[np.float64] = field(repr=False)
    u2: NDArray[np.float64] = field(repr=False)
    correct1: NDArray[np.bool_] = field(repr=False)
    correct2: NDArray[np.bool_] = field(repr=False)
    notebook_u1: NDArray[np.float64] = field(repr=False)
    notebook_u2: NDArray[np.float64] = field(repr=False)
    grid_x0: NDArray[np.float64] = field(repr=False)
    grid_x1: NDArray[np.float64] = field(repr=False)
    grid_proba: NDArray[np.float64] = field(repr=False)
    boundary: NDArray[np.float64] = field(repr=False)
    pudd: PUTestResult = field(repr=False)
    error_test: Chi2Result = field(repr=False)
    accuracy1: float
    accuracy2: float
    n_errors1: int
    n_errors2: int
    notebook_p_value: float
    thresholds: tuple[float, float] = (OLD_THRESHOLD, NEW_THRESHOLD)


def _sea_xy(variant: int, seed: int, n: int, threshold: float) -> tuple[
    NDArray[np.float64], NDArray[np.int64]
]:
    """``n`` SEA points (x0, x1 only), relabelled ``y = x0 + x1 > threshold`` (spec section 6)."""
    from river.datasets import synth

    x = np.array([[f[0], f[1]] for f, _ in synth.SEA(variant=variant, seed=seed).take(n)])
    return x.reshape(n, 2).astype(np.float64), (x.sum(axis=1) > threshold).astype(np.int64)


def _fig1_sets(seed: int) -> tuple[
    Any, NDArray[np.float64], NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]
]:
    """The notebook's recipe: GNB trained on half of 2000 SEA points, and both test sets."""
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    x, y = _sea_xy(1, seed, 2000, OLD_THRESHOLD)
    x_train, x1, y_train, y1 = train_test_split(x, y, test_size=0.5, random_state=seed)
    model = GaussianNB().fit(x_train, y_train)
    # same seed: test set 2 reuses the first 1000 feature vectors, relabelled at 8.2
    x2, y2 = _sea_xy(3, seed, 1000, NEW_THRESHOLD)
    return model, x1, y1, x2, y2


def _scores(model: Any, x: NDArray[np.float64], y: NDArray[np.int64]) -> tuple[
    NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64]
]:
    """PU-index, correctness and the notebook's 1 - max p of one test set."""
    proba = np.asarray(model.predict_proba(x), dtype=np.float64)
    correct = np.asarray(proba.argmax(axis=1) == y, dtype=np.bool_)
    return pu_index(proba, y), correct, 1.0 - proba.max(axis=1)


def gnb_boundary(model: Any, low: float, high: float, n: int = 401) -> NDArray[np.float64]:
    r"""Where a two-feature Gaussian naive Bayes model's $p(y = 1)$ is 0.5, in a square.

    ``model`` is a fitted ``sklearn.naive_bayes.GaussianNB`` of classes 0 and 1. Its
    log-odds is a sum of one quadratic per feature, so for each of ``n`` values of $x_0$ in
    ``[low, high]`` the boundary's $x_1$ are the roots of a quadratic: the points found in the
    square are returned as rows $(x_0, x_1)$, the boundary's two branches (a quadratic has
    two roots) one after the other with a row of NaN between them (a line's gap in plotly).
    Exact where a contour of a grid of probabilities is an interpolation, and a line that
    every plotly.js bundle draws (a contour needs the cartesian one).

    Examples
    --------
    >>> from sklearn.naive_bayes import GaussianNB
    >>> x = np.array([[1.0, 1.0], [2.0, 1.5], [1.5, 2.0], [8.0, 8.0], [9.0, 8.5], [8.5, 9.0]])
    >>> model = GaussianNB().fit(x, [0, 0, 0, 1, 1, 1])
    >>> line = gnb_boundary(model, 0.0, 10.0)
    >>> p = model.predict_proba(line[~np.isnan(line).any(axis=1)])[:, 1]
    >>> bool(np.allclose(p, 0.5))
    True
    """
    _validation.check_positive_int("n", n, minimum=2)
    theta = np.asarray(model.theta_, dtype=np.float64)
    var = np.asarray(model.var_, dtype=np.float64)
    if theta.shape != (2, 2):
        raise ValueError(f"gnb_boundary needs a model of 2 classes and 2 features, not "
                         f"{theta.shape[0]} classes of {theta.shape[1]} features")
    # log p(1|x) - log p(0|x) = sum over features j of a_j x_j^2 + b_j x_j + c_j, plus a constant
    a = 0.5 / var[0] - 0.5 / var[1]
    b = theta[1] / var[1] - theta[0] / var[0]
    c = 0.5 * theta[0] ** 2 / var[0] - 0.5 * theta[1] ** 2 / var[1]
    prior = np.log(np.asarray(model.class_prior_, dtype=np.float64))
    constant = prior[1] - prior[0] - 0.5 * float(np.log(var[1] / var[0]).sum()) + c.sum()
    x0 = np.linspace(low, high, n)
    rest = a[0] * x0 ** 2 + b[0] * x0 + constant  # a_1 x1^2 + b_1 x1 + rest = 0
    branches = []
    with np.errstate(invalid="ignore", divide="ignore"):
        if abs(a[1]) < 1e-12 * max(1.0, abs(b[1])):  # equal variances: linear in x1
            roots = [-rest / b[1]]
        else:
            root = np.sqrt(b[1] ** 2 - 4 * a[1] * rest)
            roots = [(-b[1] - root) / (2 * a[1]), (-b[1] + root) / (2 * a[1])]
    for x1 in roots:
        inside = np.isfinite(x1) & (x1 >= low) & (x1 <= high)
        if inside.any():
            branches.append(np.column_stack((x0[inside], x1[inside])))
    gap = np.full((1, 2), np.nan)
    parts = [part for branch in branches for part in (gap, branch)][1:]
    return np.concatenate(parts) if parts else np.empty((0, 2))


def fig1_data(seed: int = 42, *, grid_size: int = 101) -> Fig1Data:
    """Rebuild the paper's Fig. 1 from the authors' notebook recipe (spec section 6).

    Examples
    --------
    >>> d = fig1_data()
    >>> d.accuracy1, d.accuracy2, d.n_errors1, d.n_errors2
    (0.958, 0.958, 42, 42)
    >>> round(d.pudd.p_value, 3), d.notebook_p_value < 1e-5
    (0.952, True)
    """
    _validation.check_positive_int("grid_size", grid_size, minimum=2)
    model, x1, y1, x2, y2 = _fig1_sets(seed)
    u1, ok1, nb1 = _scores(model, x1, y1)
    u2, ok2, nb2 = _scores(model, x2, y2)
    g = np.linspace(0.0, 10.0, grid_size)
    gx0, gx1 = np.meshgrid(g, g)
    grid = np.column_stack((gx0.ravel(), gx1.ravel()))
    proba = np.asarray(model.predict_proba(grid), dtype=np.float64)
    # reference row split by u < 0.5, recent row by arg-max: the authors' asymmetry (spec 1.7)
    notebook = pu_chi2_test(nb1, None, nb2, ok2, seed=seed)
    return Fig1Data(
        x1=x1, y1=y1, x2=x2, y2=y2, u1=u1, u2=u2, correct1=ok1, correct2=ok2,
        notebook_u1=nb1, notebook_u2=nb2,
        grid_x0=g, grid_x1=g, grid_proba=proba[:, 1].reshape(grid_size, grid_size),
        boundary=gnb_boundary(model, 0.0, 10.0),
        pudd=pu_chi2_test(u1, ok1, u2, ok2, seed=seed),
        error_test=error_rate_test(ok1, ok2),
        accuracy1=float(ok1.mean()), accuracy2=float(ok2.mean()),
        n_errors1=int(np.count_nonzero(~ok1)), n_errors2=int(np.count_nonzero(~ok2)),
        notebook_p_value=notebook.p_value,
    )


@dataclass(frozen=True)
class Fig1Curve:
    """PUDD's and the error-rate test's p-values as both Fig. 1 test sets grow to ``sizes``.

    Examples
    --------
    >>> c = fig1_pvalue_curve(sizes=(1000, 3000))
    >>> c.sizes, [round(p, 2) for p in c.pudd_p], c.accuracy1
    ((1000, 3000), [0.95, 0.48], (0.958, 0.951))
    """

    sizes: tuple[int, ...]
    pudd_p: tuple[float, ...]
    error_p: tuple[float, ...]
    accuracy1: tuple[float, ...]
    accuracy2: tuple[float, ...]

    def first_significant(self, alpha: float, *, test: Literal["pudd", "error"] = "pudd") -> (
        int | None
    ):
        """The smallest size from which on every p-value stays below ``alpha`` (else None).

        Examples
        --------
        >>> c = Fig1Curve((1000, 2000, 3000), (0.9, 0.01, 0.001), (1.0, 0.5, 0.2), (), ())
        >>> c.first_significant(0.05), c.first_significant(0.05, test="error")
        (2000, None)
        """
        _validation.check_open_unit("alpha", alpha)
        p = self.pudd_p if test == "pudd" else self.error_p
        first = None
        for n, value in zip(self.sizes, p, strict=True):
            first = (first or n) if value < alpha else None
        return first

    def to_frame(self) -> pd.DataFrame:
        """One row per size: both p-values and both accuracies."""
        import pandas as pd

        return pd.DataFrame({
            "test-set size n": self.sizes,
            "PUDD p-value": self.pudd_p,
            "error-rate test p-value": self.error_p,
            "accuracy, test set 1 (old concept)": self.accuracy1,
            "accuracy, test set 2 (new concept)": self.accuracy2,
        })


def fig1_pvalue_curve(sizes: tuple[int, ...] = FIG1_SIZES, *, seed: int = 42) -> Fig1Curve:
    """p-values of the Fig. 1 comparison when each test set grows from 1000 points to ``n``.

    The first 1000 points of each set are Fig. 1's; further points of each concept come from
    new SEA generators (same recipe, seeds spawned from ``seed``), so the sets are nested.

    Examples
    --------
    >>> c = fig1_pvalue_curve((1000, 4000), seed=42)
    >>> c.sizes, [round(p, 3) for p in c.pudd_p], c.accuracy1[0] == c.accuracy2[0] == 0.958
    ((1000, 4000), [0.952, 0.362], True)
    """
    if not sizes or any(not isinstance(n, int) or n < 1000 for n in sizes):
        raise ValueError(f"sizes must be integers >= 1000 (Fig. 1's test sets), got {sizes!r}")
    if list(sizes) != sorted(set(sizes)):
        raise ValueError(f"sizes must be strictly increasing, got {sizes!r}")
    model, x1, y1, x2, y2 = _fig1_sets(42)
    extra = max(sizes) - 1000
    s1, s2 = (int(s) for s in np.random.SeedSequence(seed).generate_state(2))
    if extra:
        e1, f1 = _sea_xy(1, s1, extra, OLD_THRESHOLD)
        e2, f2 = _sea_xy(3, s2, extra, NEW_THRESHOLD)
        x1, y1 = np.vstack((x1, e1)), np.concatenate((y1, f1))
        x2, y2 = np.vstack((x2, e2)), np.concatenate((y2, f2))
    u1, ok1, _ = _scores(model, x1, y1)
    u2, ok2, _ = _scores(model, x2, y2)
    rng = np.random.default_rng(seed)
    pudd, err, acc1, acc2 = [], [], [], []
    for n in sizes:
        pudd.append(pu_chi2_test(u1[:n], ok1[:n], u2[:n], ok2[:n], seed=rng).p_value)
        err.append(error_rate_test(ok1[:n], ok2[:n]).p_value)
        acc1.append(float(ok1[:n].mean()))
        acc2.append(float(ok2[:n].mean()))
    return Fig1Curve(tuple(sizes), tuple(pudd), tuple(err), tuple(acc1), tuple(acc2))

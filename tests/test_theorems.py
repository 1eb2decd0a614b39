from __future__ import annotations

import numpy as np
import pytest

from pudd_core import (
    error_rate_test,
    error_stats,
    pu_chi2_test,
    pu_histogram,
    theorem1_check,
    theorem2_windows,
)
from pudd_core.experiments.baselines import feed_errors, make


def test_theorem2_windows_have_equal_error_rate_and_std():
    w = theorem2_windows(1000, seed=1)
    s1, s2 = error_stats(w.correct1), error_stats(w.correct2)
    assert s1 == s2 and s1.error_rate == 0.5 and s1.error_std == 0.5


def test_theorem2_pu_test_rejects_while_error_based_tests_do_not():
    w = theorem2_windows(1000, seed=2)
    res = pu_chi2_test(w.u1, w.correct1, w.u2, w.correct2, seed=0)
    assert res.p_value < 1e-5
    assert error_rate_test(w.correct1, w.correct2).p_value == pytest.approx(1.0)
    # river's DDM fed the 0/1 errors of window 1 then window 2, in a seeded random order
    rng = np.random.default_rng(3)
    errors = np.concatenate([rng.permutation(~w.correct1), rng.permutation(~w.correct2)])
    assert feed_errors(make("ddm"), errors.astype(int).tolist()) == ()


def test_theorem2_histograms_differ_in_every_bin():
    w = theorem2_windows(1000, seed=4)
    edges = np.linspace(0.5, 1.0, 6)
    h1, h2 = pu_histogram(w.u1, w.correct1, edges), pu_histogram(w.u2, w.correct2, edges)
    assert h1[0] == h2[0] == 500  # same correct bin
    assert h1[-1] == 500 and h2[-1] == 0  # errors in (0.9, 1] versus (0.8, 0.9]


def test_theorem1_identical_histograms_imply_equal_error_rate_and_std():
    check = theorem1_check([600, 250, 150], [1200, 500, 300])
    assert check.identical and check.stats1 == check.stats2
    assert check.stats1.error_rate == pytest.approx(0.4)
    assert check.stats1.error_std == pytest.approx(np.sqrt(0.24))
    moved = theorem1_check([600, 250, 150], [600, 150, 250])  # errors moved between bins
    assert not moved.identical and moved.stats1 == moved.stats2  # converse fails


def test_theorem2_rejects_invalid_ranges():
    with pytest.raises(ValueError, match="correct1 must"):
        theorem2_windows(correct1=(0.2, 0.6))
    with pytest.raises(ValueError, match="wrong2 must"):
        theorem2_windows(wrong2=(0.4, 0.9))


def test_error_statistics_of_a_hand_counted_window():
    s = error_stats([True, True, True, False])
    assert s.error_rate == 0.25 and s.error_std == pytest.approx(np.sqrt(0.25 * 0.75))


@pytest.mark.parametrize(
    ("correct", "match"),
    [([], "at least one"), (["no", "yes"], "boolean"), ([2, 0], "boolean"),
     ([[True, False]], "one-dimensional"), ([np.nan, 1.0], "boolean")],
)
def test_error_stats_rejects_windows_that_are_not_boolean(correct, match):
    with pytest.raises(ValueError, match=match):
        error_stats(correct)


def test_error_rate_test_rejects_non_boolean_windows():
    with pytest.raises(ValueError, match="correct2 must be boolean"):
        error_rate_test([True, False], ["no", "no"])


def test_error_shift_noncentrality_is_the_same_for_the_2x2_and_the_pu_table():
    from scipy.stats import chi2_contingency

    from pudd_core.theorems import error_shift_power

    n1, n2, e1, e2 = 800, 1200, 0.2, 0.26
    r = error_shift_power(n1, n2, e1, e2, k=3, alpha=0.01)
    q = np.array([0.5, 0.3, 0.2])  # the correct predictions' buckets, unchanged in shape
    wide = np.array([[*(n1 * (1 - e1) * q), n1 * e1], [*(n2 * (1 - e2) * q), n2 * e2]])
    narrow = np.array([[n1 * (1 - e1), n1 * e1], [n2 * (1 - e2), n2 * e2]])
    for table in (wide, narrow):
        assert chi2_contingency(table, correction=False).statistic == pytest.approx(
            r.noncentrality)
    assert r.power_pu_test < r.power_error_test  # the same lambda on 3 degrees of freedom


def test_error_shift_power_matches_simulated_rejection_rates():
    from scipy import stats

    from pudd_core.theorems import error_shift_power

    rng = np.random.default_rng(0)
    n, e1, e2, k, alpha, sims = 1000, 0.10, 0.14, 4, 0.01, 4000
    q = np.full(k, 1 / k)
    probs = [np.append((1 - e) * q, e) for e in (e1, e2)]
    counts = np.stack([rng.multinomial(n, p, size=sims) for p in probs], axis=1)  # sims,2,k+1

    def rejects(tables: np.ndarray) -> float:
        expected = (tables.sum(axis=2, keepdims=True) * tables.sum(axis=1, keepdims=True)
                    / tables.sum(axis=(1, 2), keepdims=True))
        chi2 = ((tables - expected) ** 2 / expected).sum(axis=(1, 2))
        df = tables.shape[2] - 1
        return float((chi2 > stats.chi2.isf(alpha, df)).mean())

    two = np.stack([counts[:, :, :k].sum(axis=2), counts[:, :, k]], axis=2)
    r = error_shift_power(n, n, e1, e2, k=k, alpha=alpha)
    assert rejects(two) == pytest.approx(r.power_error_test, abs=0.03)
    assert rejects(counts) == pytest.approx(r.power_pu_test, abs=0.03)
    assert rejects(counts) < rejects(two)


def test_error_shift_power_refuses_bad_settings():
    from pudd_core._validation import ParameterError
    from pudd_core.theorems import error_shift_power

    for kwargs, param in (({"error1": 0.0}, "error1"), ({"error2": 1.2}, "error2"),
                          ({"k": 0}, "k"), ({"alpha": 1.0}, "alpha"), ({"n1": 0}, "n1")):
        args = {"n1": 100, "n2": 100, "error1": 0.1, "error2": 0.2, "k": 2, "alpha": 0.01,
                **kwargs}
        with pytest.raises(ParameterError) as info:
            error_shift_power(args.pop("n1"), args.pop("n2"), args.pop("error1"),
                              args.pop("error2"), **args)
        assert info.value.param == param

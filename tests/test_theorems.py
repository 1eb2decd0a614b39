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

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import special
from scipy.stats import chi2_contingency

from harness import reference as ref
from pudd_core import chi2_test, clamp_table, contingency_table, pu_chi2_test
from pudd_core.bucketing import Buckets
from pudd_core.chi2 import evaluate_table, merge_sparse_columns, pairwise_sum


def test_hand_computed_table_matches_equations_12_to_14():
    # rows 100/100, columns 80/120, N = 200: E = [[40, 60], [40, 60]]
    # chi2 = (50-40)^2/40 + (50-60)^2/60 + (30-40)^2/40 + (70-60)^2/60 = 8.3333
    res = chi2_test(np.array([[50, 50], [30, 70]]), yates=False)
    assert res.dof == 1
    assert res.statistic == pytest.approx(100 / 40 * 2 + 100 / 60 * 2)
    np.testing.assert_allclose(res.expected, [[40, 60], [40, 60]])
    # chi-square with 1 dof: p = erfc(sqrt(chi2 / 2))
    from math import erfc, sqrt

    assert res.p_value == pytest.approx(erfc(sqrt(res.statistic / 2)), rel=1e-12)


@pytest.mark.parametrize("yates", [True, False])
@pytest.mark.parametrize("shape", [(2, 2), (2, 3), (2, 6), (3, 4)])
def test_statistic_and_p_equal_scipy_chi2_contingency(shape, yates):
    rng = np.random.default_rng(sum(shape) + yates)
    for _ in range(20):
        table = rng.integers(1, 400, size=shape)
        ours = chi2_test(table, yates=yates)
        theirs = chi2_contingency(table, correction=yates)
        assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12)
        assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-300)
        assert ours.dof == theirs.dof


def test_empty_columns_are_dropped_instead_of_raising():
    res = chi2_test(np.array([[10, 0, 30], [20, 0, 10]]), yates=False)
    theirs = chi2_contingency(np.array([[10, 30], [20, 10]]), correction=False)
    assert res.dof == 1 and res.p_value == pytest.approx(theirs.pvalue)


def test_clamp_raises_every_cell_below_the_floor_to_exactly_the_floor():
    out = clamp_table([[0, 7, 3], [12, 4, 5]], 5)
    assert out.tolist() == [[5, 7, 5], [12, 5, 5]]
    assert clamp_table([[0, 1]], 0).tolist() == [[0, 1]]


def test_contingency_table_counts_correct_values_into_buckets_and_errors_last():
    b = Buckets(centres=(0.1, 0.3), coef=(1.0, 1.0), sample_counts=(2, 2), n_sample=4)
    u = np.array([0.05, 0.12, 0.26, 0.35, 0.8, 0.9])
    ok = np.array([True, True, True, False, False, True])
    table = contingency_table(b, u, ok, u, ~ok)
    assert table.tolist() == [[2, 2, 2], [0, 2, 4]]
    assert table.sum(axis=1).tolist() == [6, 6]  # every instance counted once per row


def test_pu_test_equals_the_literal_authors_procedure_when_no_sample_is_drawn():
    rng = np.random.default_rng(11)
    for _ in range(10):
        u_old = rng.beta(1, rng.uniform(3, 10), int(rng.integers(300, 1001)))
        u_new = rng.beta(rng.uniform(0.8, 1.6), rng.uniform(3, 10), int(rng.integers(300, 1001)))
        ours = pu_chi2_test(u_old, u_old < 0.5, u_new, u_new < 0.5)
        p, table = ref.two_sample_p(u_old, u_old < 0.5, u_new, u_new < 0.5)
        np.testing.assert_array_equal(ours.table, table)
        assert ours.p_value == pytest.approx(p, rel=1e-9, abs=1e-300)


def test_no_correct_prediction_in_the_recent_window_gives_p_zero_without_a_test():
    rng = np.random.default_rng(0)
    u_old = rng.beta(1, 8, 500)
    res = pu_chi2_test(u_old, None, np.full(50, 0.9), None)
    assert res.p_value == 0.0 and res.shortcut is not None and np.isnan(res.statistic)


def test_reference_window_without_correct_predictions_gives_one_bucket_not_a_crash():
    res = pu_chi2_test(np.full(200, 0.8), None, np.linspace(0, 0.4, 200), None)
    assert res.buckets.k == 1 and res.table.shape == (2, 2)
    assert 0.0 <= res.p_value <= 1.0


def test_constant_pu_values_give_one_bucket():
    res = pu_chi2_test(np.zeros(500), None, np.zeros(500), None)
    assert res.buckets.k == 1
    assert res.p_value == pytest.approx(1.0)


def test_every_cell_of_the_tested_table_respects_the_floor():
    rng = np.random.default_rng(3)
    res = pu_chi2_test(rng.beta(1, 20, 1000), None, rng.beta(1, 20, 1000), None)
    assert (res.table >= 5).all()
    assert (res.table >= res.observed).all()


def test_same_seed_gives_the_same_result_on_large_reference_windows():
    rng = np.random.default_rng(5)
    u_old, u_new = rng.beta(1, 6, 20_000), rng.beta(1, 5, 1000)
    a = pu_chi2_test(u_old, None, u_new, None, seed=9)
    b = pu_chi2_test(u_old, None, u_new, None, seed=9)
    assert a.p_value == b.p_value and a.buckets == b.buckets


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"u_ref": []}, "at least one"),
        ({"u_ref": [0.1, np.nan]}, "NaN"),
        ({"u_ref": [0.1, np.inf]}, "NaN or infinity"),
        ({"u_test": [-np.inf, 0.2]}, "NaN or infinity"),
        ({"u_test": []}, "at least one"),
        ({"correct_test": [True, False, True]}, "has 3 values but u_test has 2"),
        ({"correct_test": [1, 2]}, "boolean"),
        ({"sample_size": 0}, "sample_size"),
        ({"min_bucket_size": -1}, "min_bucket_size"),
        ({"u_test": [1.2]}, r"\[0, 1\]"),
        ({"correct_ref": [True]}, "has 1 values but u_ref has 3"),
        ({"n_buckets": 0}, "n_buckets"),
        ({"clamp_min": -1}, "clamp_min"),
    ],
)
def test_invalid_arguments_raise_value_errors(kwargs, match):
    args = {"u_ref": [0.1, 0.2, 0.3], "correct_ref": None, "u_test": [0.1, 0.2]}
    args["correct_test"] = None
    extra = {k: v for k, v in kwargs.items() if k not in args}
    args.update({k: v for k, v in kwargs.items() if k in args})
    with pytest.raises(ValueError, match=match):
        pu_chi2_test(
            args["u_ref"], args["correct_ref"], args["u_test"], args["correct_test"], **extra
        )


def test_chi2_test_rejects_malformed_tables():
    with pytest.raises(ValueError, match="two rows"):
        chi2_test(np.array([[1, 2, 3]]))
    with pytest.raises(ValueError, match="non-negative"):
        chi2_test(np.array([[1, -2], [3, 4]]))
    with pytest.raises(ValueError, match="row 1 of the table is empty"):
        chi2_test(np.array([[1, 2], [0, 0]]))


def test_clamp_table_rejects_a_negative_floor():
    with pytest.raises(ValueError, match="clamp_min"):
        clamp_table([[1, 2], [3, 4]], -1)


# --- the plain-Python kernel of evaluate_table against numpy's arithmetic ---------------------
def _numpy_evaluate(observed, clamp_min, yates, errors_column, min_expected):
    """evaluate_table as numpy computes it: clamp, drop empty columns, merge, _pearson."""
    table = clamp_table(observed, clamp_min)
    if errors_column and observed[1, :-1].sum() == 0:
        return table, 0.0, float("nan"), 0, np.full(table.shape, np.nan)
    tested = table.sum(axis=0) > 0
    obs = table.astype(np.float64)[:, tested]
    merged = False
    if min_expected > 0:
        before = obs.shape
        obs = merge_sparse_columns(obs, min_expected)
        merged = obs.shape != before
    rows = obs.sum(axis=1)
    cols = obs.sum(axis=0)
    expected = rows[:, None] * cols / rows.sum()
    dof = (obs.shape[0] - 1) * (obs.shape[1] - 1)
    if dof == 0:
        stat, p = 0.0, 1.0
    else:
        if dof == 1 and yates:
            diff = expected - obs
            obs = obs + np.sign(diff) * np.minimum(0.5, np.abs(diff))
        stat = float(((obs - expected) ** 2 / expected).sum())
        p = float(special.chdtrc(dof, stat))
    full = np.full(table.shape, np.nan)
    if not merged:
        full[:, tested] = expected
    return table, p, stat, dof, full


_CELL = st.one_of(st.integers(0, 12), st.integers(0, 5000), st.integers(0, 2**40))


@settings(max_examples=300, deadline=None)
@given(cells=st.lists(st.tuples(_CELL, _CELL), min_size=1, max_size=8),
       clamp_min=st.sampled_from([0, 5]), yates=st.booleans(), errors_column=st.booleans(),
       min_expected=st.sampled_from([0.0, 5.0, 50.0]))
def test_evaluate_table_equals_numpys_arithmetic_bit_for_bit(cells, clamp_min, yates,
                                                             errors_column, min_expected):
    observed = np.array(cells, dtype=np.int64).T.copy()
    assume(observed.sum(axis=1).min() + clamp_min > 0)  # each window holds a value
    b = Buckets(centres=(0.1,), coef=(1.0,), sample_counts=(1,), n_sample=1)
    res = evaluate_table(observed, b, clamp_min=clamp_min, yates=yates,
                         errors_column=errors_column, min_expected=min_expected)
    table, p, stat, dof, expected = _numpy_evaluate(observed, clamp_min, yates, errors_column,
                                                    min_expected)
    assert res.table.tolist() == table.tolist() and res.observed is observed
    assert (res.p_value, res.dof) == (p, dof)
    assert res.statistic == stat or (np.isnan(res.statistic) and np.isnan(stat))
    np.testing.assert_array_equal(res.expected, expected)  # NaN where NaN, else equal


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.floats(-1e6, 1e6), st.floats(-1.0, 1.0),
                          st.floats(allow_nan=False, allow_infinity=False, width=32)),
                max_size=600))
def test_pairwise_sum_is_numpys_sum_bit_for_bit(values):
    expected = float(np.sum(np.array(values, dtype=np.float64)))
    assert pairwise_sum(values) == expected or (np.isnan(expected)
                                                and np.isnan(pairwise_sum(values)))

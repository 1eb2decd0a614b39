"""pudd_core.views.illustration: Fig. 1 rebuilt from the notebook recipe, Theorems 1-2 made live."""

from __future__ import annotations

import numpy as np
import pytest

from pudd_core.views.illustration import (
    Fig1Curve,
    Theorem1Config,
    Theorem2Config,
    fig1_data,
    fig1_pvalue_curve,
    theorem1_demo,
    theorem2_demo,
)


@pytest.fixture(scope="module")
def fig1():
    return fig1_data()


# --- Fig. 1 -------------------------------------------------------------------------------------
def test_fig1_test_sets_have_42_errors_each_as_spec_section_6_reports(fig1):
    assert (fig1.n_errors1, fig1.n_errors2) == (42, 42)
    assert fig1.accuracy1 == fig1.accuracy2 == 0.958
    assert fig1.error_test.p_value == 1.0


def test_fig1_pudd_p_value_on_the_true_pu_index_is_not_significant(fig1):
    # spec section 6: "with boolean masks and the true PU-index, p ~ 0.95"
    assert fig1.pudd.p_value == pytest.approx(0.952, abs=1e-3)


def test_fig1_notebook_quantity_reproduces_the_artifact(fig1):
    # 1 - max p never exceeds 0.5, so the u < 0.5 reference row counts no error (spec section 6)
    assert fig1.notebook_u1.max() <= 0.5 and fig1.notebook_u2.max() <= 0.5
    assert fig1.notebook_p_value == pytest.approx(9.08e-7, rel=1e-2)


def test_fig1_pu_index_is_one_minus_the_true_class_probability(fig1):
    # on correct predictions the PU-index equals 1 - max p; on errors it is above 0.5
    np.testing.assert_allclose(fig1.u1[fig1.correct1], fig1.notebook_u1[fig1.correct1])
    assert (fig1.u1[~fig1.correct1] >= 0.5).all()
    assert fig1.u1.mean() == pytest.approx(0.159, abs=1e-3)
    assert fig1.u2[~fig1.correct2].mean() == pytest.approx(0.560, abs=1e-3)


def test_fig1_second_set_shares_the_first_1000_feature_vectors(fig1):
    # same seed: test set 2's features are the original 2000's first 1000, so half of them
    # are test-set-1 points
    shared = {tuple(r) for r in fig1.x1.round(12)} & {tuple(r) for r in fig1.x2.round(12)}
    assert 400 < len(shared) < 600
    np.testing.assert_array_equal(fig1.y2, (fig1.x2.sum(axis=1) > 8.2).astype(int))


def test_fig1_grid_probability_has_the_grid_shape(fig1):
    assert fig1.grid_proba.shape == (fig1.grid_x1.size, fig1.grid_x0.size)
    assert ((fig1.grid_proba >= 0) & (fig1.grid_proba <= 1)).all()


def test_fig1_boundary_is_where_the_grids_probability_crosses_one_half(fig1):
    from scipy.interpolate import RegularGridInterpolator

    line = fig1.boundary[~np.isnan(fig1.boundary).any(axis=1)]
    assert len(line) > 100 and ((line >= 0) & (line <= 10)).all()
    # the grid's p(y = 1), read at the boundary by another way (linear interpolation)
    at = RegularGridInterpolator((fig1.grid_x1, fig1.grid_x0), fig1.grid_proba)(line[:, ::-1])
    np.testing.assert_allclose(at, 0.5, atol=0.01)
    # every sign change of the grid's p - 0.5 along a row of x0 has a boundary point near it
    rows = np.flatnonzero(np.diff(np.sign(fig1.grid_proba - 0.5), axis=0).any(axis=1))
    for row in rows:
        near = np.abs(line[:, 1] - fig1.grid_x1[row]) <= 0.1
        assert near.any(), fig1.grid_x1[row]


def test_a_boundary_needs_two_classes_of_two_features():
    from sklearn.naive_bayes import GaussianNB

    from pudd_core.views.illustration import gnb_boundary

    three = GaussianNB().fit(np.arange(9.0).reshape(3, 3), [0, 1, 1])
    with pytest.raises(ValueError, match="2 classes and 2 features, not 2 classes of 3"):
        gnb_boundary(three, 0.0, 10.0)


def test_fig1_curve_starts_at_the_fig1_pair_and_is_deterministic(fig1):
    a = fig1_pvalue_curve((1000, 2000, 4000), seed=7)
    b = fig1_pvalue_curve((1000, 2000, 4000), seed=7)
    assert a == b
    assert a.pudd_p[0] == pytest.approx(fig1.pudd.p_value)
    assert a.accuracy1[0] == a.accuracy2[0] == 0.958
    assert all(0.0 <= p <= 1.0 for p in a.pudd_p + a.error_p)


def test_fig1_curve_other_seed_other_extra_points():
    a = fig1_pvalue_curve((1000, 3000), seed=1)
    b = fig1_pvalue_curve((1000, 3000), seed=2)
    assert a.accuracy1[0] == b.accuracy1[0] and a.accuracy1[1] != b.accuracy1[1]


@pytest.mark.parametrize("sizes", [(), (500, 1000), (2000, 1000), (1000, 1000), (1000.5,)])
def test_fig1_curve_rejects_bad_sizes(sizes):
    with pytest.raises(ValueError, match="sizes must be"):
        fig1_pvalue_curve(sizes)


def test_first_significant_needs_every_later_size_below_alpha():
    c = Fig1Curve((1, 2, 3, 4), (0.001, 0.5, 0.001, 0.001), (0.5,) * 4, (), ())
    assert c.first_significant(0.01) == 3
    assert c.first_significant(1e-9) is None
    with pytest.raises(ValueError, match="alpha"):
        c.first_significant(0.0)


def test_fig1_curve_frame_has_one_row_per_size():
    frame = fig1_pvalue_curve((1000, 2000)).to_frame()
    assert frame["test-set size n"].tolist() == [1000, 2000]
    assert frame.shape == (2, 5)


# --- Theorem 2 ----------------------------------------------------------------------------------
def test_theorem2_defaults_equal_error_statistics_yet_only_pudd_rejects():
    res = theorem2_demo(Theorem2Config())
    assert res.stats1 == res.stats2
    assert res.error_test.p_value == 1.0
    assert res.pudd.p_value < 1e-100
    assert res.ddm_alarms_window2 == ()


def test_theorem2_identical_ranges_give_no_pudd_rejection():
    res = theorem2_demo(Theorem2Config(correct2=(0.0, 0.1), wrong2=(0.9, 1.0)))
    assert res.pudd.p_value > 1e-3


def test_theorem2_ddm_positions_are_split_by_window():
    res = theorem2_demo(Theorem2Config(n=5000, seed=0))  # DDM false-alarms in window 1 here
    assert res.ddm_alarms == (524,)
    assert res.ddm_alarms_window2 == ()


def test_theorem2_is_deterministic_per_seed():
    a, b = theorem2_demo(Theorem2Config(seed=3)), theorem2_demo(Theorem2Config(seed=3))
    np.testing.assert_array_equal(a.windows.u2, b.windows.u2)
    assert a.pudd.p_value == b.pudd.p_value


@pytest.mark.parametrize(("field", "value", "message"), [
    ("correct1", (0.3, 0.5), "correct1 must stay below 0.5"),
    ("correct2", (0.2, 0.2), "correct2 must be an interval"),
    ("wrong1", (0.5, 0.7), "wrong1 must stay above 0.5"),
    ("wrong2", (0.9, 0.8), "wrong2 must be an interval"),
])
def test_theorem2_invalid_ranges_name_the_parameter(field, value, message):
    with pytest.raises(ValueError, match=message):
        theorem2_demo(Theorem2Config(**{field: value}))


def test_theorem2_config_code_runs_and_gives_the_same_p_value():
    cfg = Theorem2Config(n=300, error_rate=0.3, seed=5)
    scope: dict[str, object] = {}
    exec(cfg.as_python(), scope)
    assert scope["pudd"].p_value == theorem2_demo(cfg).pudd.p_value
    assert scope["ddm"] == theorem2_demo(cfg).ddm_alarms


# --- Theorem 1 ----------------------------------------------------------------------------------
@pytest.mark.parametrize("factor", [1, 2, 7])
def test_theorem1_scaled_histograms_are_identical_with_equal_statistics(factor):
    res = theorem1_demo(Theorem1Config(factor=factor))
    assert res.check.identical and res.check.stats1 == res.check.stats2
    assert np.array_equal(np.array(res.hist2), factor * np.array(res.hist1))


def test_theorem1_moving_errors_between_bins_keeps_the_error_rate():
    res = theorem1_demo(Theorem1Config(perturbation="between_error_bins", amount=5))
    assert not res.check.identical
    assert res.check.stats1 == res.check.stats2
    assert sum(res.hist2) == 2 * sum(res.hist1)


def test_theorem1_turning_correct_into_errors_raises_the_error_rate():
    res = theorem1_demo(Theorem1Config(perturbation="correct_to_error", amount=5))
    assert not res.check.identical
    assert res.check.stats2.error_rate > res.check.stats1.error_rate


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"perturbation": "correct_to_error", "amount": 10_000}, "amount must be at most"),
    ({"perturbation": "between_error_bins", "amount": 10_000}, "amount must be at most"),
    ({"factor": 0}, "factor must be"),
    ({"perturbation": "shuffle"}, "perturbation must be one of"),
])
def test_theorem1_bad_settings_raise_value_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        theorem1_demo(Theorem1Config(**kwargs))

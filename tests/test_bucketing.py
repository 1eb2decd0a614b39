from __future__ import annotations

import numpy as np
import pytest

from pudd_core import Buckets, ek_buckets, fit_buckets, greedy_init, kmeans_1d
from pudd_core.bucketing import (
    THETAS,
    build_buckets,
    counts_from_sorted,
    counts_from_sorted_list,
    counts_from_unsorted,
)
from tests import _reference as ref


def _samples(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for trial in range(count):
        n = int(rng.integers(60, 1000))
        kind = trial % 3
        if kind == 0:
            s = rng.beta(1, 8, n) * 0.5
        elif kind == 1:
            s = rng.uniform(0, 0.5, n)
        else:
            s = np.concatenate([rng.beta(1, 30, n // 2) * 0.5, rng.uniform(0.3, 0.5, n - n // 2)])
        yield s


def test_greedy_init_on_six_points_by_hand():
    # p = 3: the sparsest neighbourhood (3rd-neighbour distance 0.02) is found first at 0.02
    # (0.02 - 0.0 = 0.02 > 0.42 - 0.40 in binary floating point); its group {0, 0.01, 0.02}
    # has the lowest-index member 0.0; the rest {0.40, 0.41, 0.42} seeds 0.40
    assert greedy_init([0.00, 0.01, 0.02, 0.40, 0.41, 0.42], 2).tolist() == [0.0, 0.4]


def test_greedy_seed_is_the_lowest_index_member_not_the_chosen_point():
    x = [0.42, 0.41, 0.40, 0.0, 0.01, 0.02]
    assert greedy_init(x, 2).tolist() == [0.0, 0.42]


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_greedy_init_equals_the_ball_tree_procedure_on_continuous_data(k):
    for s in _samples(k, 6):
        np.testing.assert_array_equal(greedy_init(s, k), ref.greedy_init(s, k))


def test_kmeans_1d_equals_scikit_learn_kmeans():
    for s in _samples(1, 12):
        seeds = greedy_init(s, 5)
        centres, labels = kmeans_1d(s, seeds)
        c2, l2 = ref.kmeans(s, seeds)
        np.testing.assert_array_equal(labels, l2)
        np.testing.assert_allclose(centres, c2, rtol=0, atol=1e-12)


def test_kmeans_1d_hand_case():
    centres, labels = kmeans_1d([0.0, 0.1, 0.2, 0.9, 1.0], [0.0, 1.0])
    np.testing.assert_allclose(centres, [0.1, 0.95])
    assert labels.tolist() == [0, 0, 0, 1, 1]


def test_kmeans_1d_with_duplicate_seeds_delegates_to_scikit_learn():
    s = np.array([0.0, 0.0, 0.1, 0.2, 0.3, 0.4])
    centres, labels = kmeans_1d(s, [0.0, 0.0, 0.4])
    c2, l2 = ref.kmeans(s, np.array([0.0, 0.0, 0.4]))
    np.testing.assert_allclose(centres, c2)
    np.testing.assert_array_equal(labels, l2)


def test_fast_bucketing_equals_the_kmeans_path_of_the_authors():
    for s in _samples(2, 15):
        b = build_buckets(s, s.size, None, 5, 50)
        centres, coef = ref.build(s)
        np.testing.assert_allclose(b.centres, centres, rtol=0, atol=1e-12)
        np.testing.assert_allclose(b.coef, coef, rtol=0, atol=1e-12)


def test_every_bucket_holds_the_minimum_unless_the_fallback_ran():
    for s in _samples(3, 40):
        b = build_buckets(s, s.size, None, 5, 50)
        assert sum(b.sample_counts) == s.size == b.n_sample
        if min(b.sample_counts) < 50:  # only the k = 1 fallback may leave small buckets
            assert all(a == 1.0 for a in b.coef)
        assert 1 <= b.k <= 5


def test_small_samples_shrink_k():
    rng = np.random.default_rng(4)
    b = fit_buckets(rng.uniform(0, 0.4, 160), seed=0)  # 160 values: at most 3 buckets of 50
    assert b.k <= 3 and min(b.sample_counts) >= 50


def test_constant_values_give_one_bucket():
    b = fit_buckets(np.full(300, 0.2))
    assert b.k == 1 and b.sample_counts == (300,)


def test_discrete_values_do_not_crash_and_keep_distinct_seeds():
    rng = np.random.default_rng(8)
    u = rng.choice([0.0, 0.1, 0.25, 0.4], size=900)
    b = fit_buckets(u)
    assert len(set(np.round(b.centres, 4))) == b.k
    assert b.counts(u).sum() == u.size


def test_misclassified_values_never_enter_a_bucket():
    rng = np.random.default_rng(9)
    u = rng.beta(1, 4, 800)
    correct = u < 0.5
    b = fit_buckets(u, correct)
    assert b.n_sample == int(correct.sum())
    # the fitting sample holds only correct values: all centres below 0.5
    assert max(b.centres) < 0.5


def test_large_windows_are_subsampled_with_replacement_deterministically():
    rng = np.random.default_rng(10)
    u = rng.beta(1, 6, 50_000)
    a, b = fit_buckets(u, seed=3), fit_buckets(u, seed=3)
    c = fit_buckets(u, seed=4)
    assert a == b
    assert a.n_sample <= 1000 and a != c


def test_counts_equal_the_brute_force_arg_min_definition():
    rng = np.random.default_rng(12)
    for _ in range(30):
        k = int(rng.integers(1, 6))
        centres = tuple(np.sort(rng.uniform(0, 0.5, k)).tolist())
        coef = tuple(rng.uniform(0.4, 2.5, k).tolist())
        b = Buckets(centres=centres, coef=coef, sample_counts=(0,) * k, n_sample=0)
        u = np.concatenate([rng.uniform(0, 1, 3000), b.edges, rng.choice([0.0, 0.25, 0.5], 50)])
        expected = np.bincount(b.assign(u), minlength=k)
        np.testing.assert_array_equal(counts_from_unsorted(u, b), expected)
        np.testing.assert_array_equal(counts_from_sorted(np.sort(u), b), expected)
        assert counts_from_sorted_list(np.sort(u).tolist(), b) == expected.tolist()
        small = u[:100]
        np.testing.assert_array_equal(b.counts(small), np.bincount(b.assign(small), minlength=k))


def test_theta_grid_is_the_authors():
    assert len(THETAS) == 20 and THETAS[0] == 0.0 and THETAS[-1] == pytest.approx(0.95)


def test_ek_partitions_all_values_without_a_misclassified_split():
    u = np.linspace(0.0, 1.0, 600)
    b = ek_buckets(u)
    assert max(b.centres) > 0.5  # errors are bucketed too
    assert b.counts(u).sum() == 600


def test_k_cap_follows_the_recent_window_size():
    rng = np.random.default_rng(13)
    s = rng.uniform(0, 0.5, 1000)
    assert build_buckets(s, 1000, 10, 5, 50).k == 2  # floor(min(10 / 5, 1000 / 50)) = 2


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"n_buckets": 0}, "n_buckets"), ({"sample_size": 0}, "sample_size"),
     ({"min_bucket_size": -1}, "min_bucket_size")],
)
def test_invalid_parameters_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        fit_buckets([0.1, 0.2], **kwargs)

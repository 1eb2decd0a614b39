from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import reference as ref
from pudd_core import Buckets, ek_buckets, fit_buckets, greedy_init, kmeans_1d
from pudd_core._validation import ParameterError
from pudd_core.bucketing import (
    THETAS,
    build_buckets,
    counts_from_sorted,
    counts_from_sorted_list,
    counts_from_unsorted,
)


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


# A fitting sample small enough to follow spec section 1.6 by hand. The order matters only
# for the seeds (lowest original index of each greedy group).
_HAND = [0.44, 0.06, 0.00, 0.02, 0.04, 0.20, 0.36, 0.40]


def test_amplify_shrink_moves_the_boundary_value_at_the_first_theta_that_beats_it():
    # m = 8, k = 2, p = 4. Distance to the 4th neighbour (self included) on the sorted values
    # 0 .02 .04 .06 .20 .36 .40 .44 is .06 .04 .04 .06 .16 .16 .20 .24: 0.44 is the sparsest,
    # group {.20, .36, .40, .44} (seed 0.44, index 0), rest {.06, 0, .02, .04} (seed 0.06).
    # Lloyd from (0.44, 0.06): midpoint 0.25 gives {.36 .40 .44} | {0 .02 .04 .06 .20},
    # centres (0.40, 0.064); midpoint 0.232 keeps the labels: converged, counts (3, 5).
    # theta loop, min_bucket_size 3 (stop when every count > 3): ratio = counts / (8 / 2)
    # = (0.75, 1.25), so a = (exp(-theta / 4), exp(theta / 4)). The value 0.20 sits 0.20
    # from 0.40 and 0.136 from 0.064; it moves to bucket 0 once exp(theta / 2) > 0.20 / 0.136
    # = 1.4706, i.e. theta > 0.7713: theta = 0.75 gives 1.4550 (stays), theta = 0.80 gives
    # 1.4918 (moves). Counts (4, 4) > 3: stop with a = (exp(-0.2), exp(0.2)).
    b = fit_buckets(_HAND, [True] * 8, n_buckets=2, min_bucket_size=3)
    assert b.k == 2 and b.n_sample == 8
    np.testing.assert_allclose(b.centres, [0.40, 0.064], rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.coef, [np.exp(-0.2), np.exp(0.2)], rtol=1e-12)
    assert b.sample_counts == (4, 4)
    # the edge a0 |u - 0.40| = a1 |u - 0.064| lies at (a0 0.40 + a1 0.064) / (a0 + a1) = 0.1988
    a0, a1 = np.exp(-0.2), np.exp(0.2)
    np.testing.assert_allclose(b.edges, [(a0 * 0.40 + a1 * 0.064) / (a0 + a1)], rtol=1e-12)
    assert b.assign([0.19, 0.20]).tolist() == [1, 0]


def test_theta_loop_that_never_succeeds_keeps_the_last_coefficients_with_floor_division():
    # m = 5, k = 2, p = 2: 0.40 is the sparsest (nearest other 0.37), group {.40, .03} seeds
    # 0.03, the rest seeds 0.0. Lloyd: (0.15, 0.005), then (0.40, 0.015): counts (1, 4).
    # With min_bucket_size 1 the loop needs both counts > 1. After theta = 0 the ratio uses
    # m // k = 2 (not 2.5): (0.5, 2.0), so a = (exp(-theta / 2), exp(theta)). Moving 0.03
    # needs exp(1.5 theta) > 0.37 / 0.015 = 24.7, never reached by theta <= 0.95: the last
    # theta's a = (exp(-0.475), exp(0.95)) is kept, and (1, 4) passes the final >= 1 check.
    b = fit_buckets([0.00, 0.01, 0.02, 0.03, 0.40], [True] * 5, n_buckets=2, min_bucket_size=1)
    np.testing.assert_allclose(b.centres, [0.40, 0.015], rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.coef, [np.exp(-0.475), np.exp(0.95)], rtol=1e-12)
    assert b.sample_counts == (1, 4)


@pytest.mark.parametrize("n_buckets", [3, 4, 5])
def test_k_shrinks_until_every_bucket_can_hold_the_minimum(n_buckets):
    # k buckets of at least 3 values need 3k <= 8 values, so every k >= 3 fails whatever its
    # partition; k = 2 is then the hand-worked case above.
    b = fit_buckets(_HAND, [True] * 8, n_buckets=n_buckets, min_bucket_size=3)
    expected = fit_buckets(_HAND, [True] * 8, n_buckets=2, min_bucket_size=3)
    assert b == expected and b.k == 2 and b.sample_counts == (4, 4)


def test_k_one_fallback_uses_the_stored_k_with_unit_coefficients():
    # min_bucket_size 5: two buckets need 10 values, so k = 2 fails and k reaches 1. The
    # fallback reruns greedy init and k-means with the stored k = 2 and no size constraint:
    # the k-means result of the hand-worked case, counts (3, 5), coefficients 1.
    b = fit_buckets(_HAND, [True] * 8, n_buckets=2, min_bucket_size=5)
    assert b.k == 2 and b.coef == (1.0, 1.0) and b.sample_counts == (3, 5)
    np.testing.assert_allclose(b.centres, [0.40, 0.064], rtol=0, atol=1e-12)
    # from n_buckets = 5 every k fails (5 values per bucket, 8 values): five buckets come back
    wide = fit_buckets(_HAND, [True] * 8, n_buckets=5, min_bucket_size=5)
    assert wide.k == 5 and wide.coef == (1.0,) * 5 and sum(wide.sample_counts) == 8


def test_fallback_uses_the_k_lowered_by_the_distinct_seed_guard():
    # two distinct values: the 5 greedy seeds hold at most 2 distinct values, so the guard
    # sets k = stored k = 2; {0.1} and {0.3} give counts (4, 4) < 5, k reaches 1, and the
    # fallback builds 2 buckets (not 5) with coefficients 1
    b = fit_buckets([0.1, 0.3] * 4, [True] * 8, n_buckets=5, min_bucket_size=5)
    assert b.k == 2 and b.coef == (1.0, 1.0) and b.sample_counts == (4, 4)
    assert sorted(b.centres) == pytest.approx([0.1, 0.3])


def test_reference_without_correct_predictions_gives_one_bucket_at_zero():
    b = fit_buckets([0.6, 0.7, 0.9])
    assert b == Buckets(centres=(0.0,), coef=(1.0,), sample_counts=(0,), n_sample=0)


@pytest.mark.parametrize(
    ("u", "kwargs", "match"),
    [
        ([], {}, "u_ref is empty"),
        ([0.1, np.inf], {}, "NaN or infinity"),
        ([0.1, -np.inf], {}, "NaN or infinity"),
        ([0.1, 0.2], {"n_test": 0}, "n_test"),
        ([0.1, 0.2], {"correct_ref": [True]}, "has 1 values but u_ref has 2"),
        ([0.1, 0.2], {"correct_ref": ["yes", "no"]}, "boolean"),
    ],
)
def test_fit_buckets_rejects_bad_input(u, kwargs, match):
    with pytest.raises(ValueError, match=match):
        fit_buckets(u, **kwargs)


@pytest.mark.parametrize(
    ("u", "kwargs", "match"),
    [
        ([], {}, "u_ref is empty"),
        ([0.1, np.inf], {}, "NaN or infinity"),
        ([0.1, 0.2], {"sample_size": 0}, "sample_size"),
        ([0.1, 0.2], {"sample_size": 1.5}, "sample_size"),
        ([0.1, 0.2], {"min_bucket_size": -1}, "min_bucket_size"),
        ([0.1, 0.2], {"min_bucket_size": 2.0}, "min_bucket_size"),
        ([0.1, 0.2], {"n_buckets": 0}, "n_buckets"),
    ],
)
def test_ek_buckets_rejects_bad_input(u, kwargs, match):
    with pytest.raises(ValueError, match=match):
        ek_buckets(u, **kwargs)


def test_the_literal_reference_agrees_with_the_hand_worked_cases():
    centres, coef = ref.build(np.array(_HAND), k=2, min_size=3)
    np.testing.assert_allclose(centres, [0.40, 0.064], rtol=0, atol=1e-12)
    np.testing.assert_allclose(coef, [np.exp(-0.2), np.exp(0.2)], rtol=1e-12)
    centres, coef = ref.build(np.array([0.00, 0.01, 0.02, 0.03, 0.40]), k=2, min_size=1)
    np.testing.assert_allclose(coef, [np.exp(-0.475), np.exp(0.95)], rtol=1e-12)


# --- the plain-Python paths of the fit against numpy's arithmetic ------------------------------
def _numpy_partition(centres, coef):
    """Buckets' edges, interval buckets and edge ties as numpy computed them (np.clip, np.unique,
    the brute-force arg-min of the midpoints)."""
    c, a = np.array(centres, dtype=np.float64), np.array(coef, dtype=np.float64)

    def argmin(u):
        return np.argmin(np.abs(u[:, None] - c[None, :]) * a[None, :], axis=1)

    if c.size == 1:
        return np.empty(0), np.zeros(1, dtype=np.intp), np.empty(0, dtype=bool)
    cand = [0.0, 1.0]
    for i in range(c.size):
        for j in range(i + 1, c.size):
            cand.append((a[i] * c[i] + a[j] * c[j]) / (a[i] + a[j]))
            if a[i] != a[j]:
                cand.append((a[i] * c[i] - a[j] * c[j]) / (a[i] - a[j]))
    pts = np.unique(np.clip(np.array(cand), 0.0, 1.0))
    bins = argmin(np.concatenate(([pts[0]], (pts[:-1] + pts[1:]) / 2.0)))
    change = np.flatnonzero(bins[1:] != bins[:-1])
    edges = pts[change]
    interval_bins = np.concatenate((bins[:1], bins[change + 1]))
    return edges, interval_bins, argmin(edges) == interval_bins[:-1]


_UNIT = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0, 0.5, 0.25, 1e-300, 0.1]))
_COEF = st.one_of(st.just(1.0), st.floats(0.3, 3.0), st.sampled_from([np.exp(0.05), 2.0]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_UNIT, _COEF), min_size=1, max_size=6))
def test_bucket_partition_equals_numpys_arithmetic_bit_for_bit(pairs):
    centres, coef = zip(*pairs, strict=True)
    b = Buckets(centres=centres, coef=coef, sample_counts=(1,) * len(centres), n_sample=1)
    edges, interval_bins, ties = _numpy_partition(centres, coef)
    assert b.edges.dtype == np.float64 and b.interval_bins.dtype == np.intp
    assert b.edges.tobytes() == edges.tobytes()  # every bit, the sign of zero included
    assert b.interval_bins.tolist() == interval_bins.tolist()
    assert b.edge_left.tolist() == ties.tolist()
    search = np.where(ties, np.nextafter(edges, np.inf), edges)
    assert b.search_edges.tobytes() == search.tobytes()
    # a value on an edge is counted where the brute-force definition sends it, where every
    # bucket owns an interval: centres that coincide, or lie a few denormals apart, can leave a
    # bucket winning at one point only (an edge), which the partition cannot hold (known, as on
    # main before the Python partition: counts then put that point in a neighbour)
    if min(np.diff(np.sort(centres)), default=1.0) > 1e-9:
        assert b.counts(edges).tolist() == np.bincount(b.assign(edges), minlength=b.k).tolist()


def _numpy_fit(s, k, stored_k, min_bucket_size):
    """Steps 3-7 of spec section 1.6 from the public kernels, with numpy's amplify-shrink
    (arg-min of the weighted distances at every theta) and np.unique(np.round(seeds, 4))."""
    m = s.size
    k, stored_k = min(k, m), min(stored_k, m)
    while True:
        if k <= 1:
            centres, labels = kmeans_1d(s, greedy_init(s, stored_k))
            return centres, np.ones(stored_k), np.bincount(labels, minlength=stored_k)
        seeds = greedy_init(s, k)
        distinct = np.unique(np.round(seeds, 4)).size
        if distinct < k:
            k = stored_k = distinct
            continue
        centres, labels = kmeans_1d(s, seeds)
        counts, coef = np.bincount(labels, minlength=k), np.ones(k)
        if not (counts == 0).any():
            dist = np.abs(s[:, None] - centres[None, :])
            ratio = counts / (m / k)
            for theta in THETAS:
                coef = np.exp(theta * (ratio - 1.0))
                counts = np.bincount(np.argmin(dist * coef, axis=1), minlength=k)
                ratio = counts / (m // k)
                if counts.min() > min_bucket_size:
                    break
        if counts.min() >= min_bucket_size:
            return centres, coef, counts
        k -= 1


_SAMPLE = st.one_of(
    st.lists(_UNIT, min_size=1, max_size=300),
    st.lists(st.sampled_from([0.0, 0.01, 0.02, 0.1, 0.3, 0.30001]), min_size=1, max_size=300),
    st.integers(0, 2**32 - 1).map(lambda seed: np.random.default_rng(seed).beta(1, 8, 900)
                                  .round(int(seed % 4) + 2).tolist()),
)


@settings(max_examples=150, deadline=None)
@given(values=_SAMPLE, k=st.integers(1, 6), min_bucket_size=st.sampled_from([0, 1, 5, 50]))
def test_the_fit_equals_its_numpy_statement_bit_for_bit(values, k, min_bucket_size):
    s = np.array(values, dtype=np.float64)
    b = build_buckets(s, s.size, None, k, min_bucket_size)
    centres, coef, counts = _numpy_fit(s, k, k, min_bucket_size)
    assert np.array(b.centres).tobytes() == centres.tobytes()
    assert np.array(b.coef).tobytes() == coef.tobytes()
    assert b.sample_counts == tuple(counts.tolist()) and b.n_sample == s.size


@pytest.mark.parametrize(("sample", "init", "message"), [
    (np.linspace(0, 1, 100), 5, r"init must be the initial centres.*greedy_init\(sample, k\)"),
    (np.linspace(0, 1, 100), [], r"init must be the initial centres"),
    (np.linspace(0, 1, 100), [0.1, np.nan], r"init must be the initial centres"),
    (np.linspace(0, 1, 100), ["a", "b"], r"init must be the initial centres"),
    ([], [0.5], r"sample must be a non-empty 1-D array"),
    (np.ones((3, 3)), [0.5], r"sample must be a non-empty 1-D array"),
    (["0.3", "0.4"], [0.5], r"sample must hold numbers"),
])
def test_kmeans_1d_refuses_a_count_for_centres_and_other_misuse_by_name(sample, init, message):
    # issue 32: kmeans_1d(x, 5) raised "TypeError: 'float' object is not iterable"
    with pytest.raises(ParameterError, match=message):
        kmeans_1d(sample, init)

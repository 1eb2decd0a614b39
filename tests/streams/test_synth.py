from __future__ import annotations

import numpy as np
import pytest

from pudd_core.streams import load_stream
from pudd_core.streams.synth import concept_schedule

SEA_THRESHOLDS = {0: 8.0, 1: 9.0, 2: 7.0, 3: 9.5}


def _all(stream):
    chunks = list(stream)
    return np.concatenate([x for x, _ in chunks]), np.concatenate([y for _, y in chunks])


@pytest.mark.parametrize("name", ["sea0", "sea10", "sine", "mixed"])
def test_same_seed_gives_byte_identical_chunks(name):
    a = load_stream(name, seed=7, n_chunks=12, chunk_size=200)
    b = load_stream(name, seed=7, n_chunks=12, chunk_size=200)
    for (xa, ya), (xb, yb) in zip(a, b, strict=True):
        assert xa.tobytes() == xb.tobytes()
        assert ya.tobytes() == yb.tobytes()
    assert a.truth["concepts"] == b.truth["concepts"]


@pytest.mark.parametrize("name", ["sea0", "sine", "mixed"])
def test_different_seeds_give_different_draws(name):
    a = load_stream(name, seed=1, n_chunks=3, chunk_size=100)
    b = load_stream(name, seed=2, n_chunks=3, chunk_size=100)
    assert not np.array_equal(a.chunk(0)[0], b.chunk(0)[0])


def test_every_chunk_is_a_new_generator_draw():
    # spec 4.1: new generator per chunk; two chunks of one concept must not repeat samples
    s = load_stream("sea0", seed=0, n_chunks=2, chunk_size=50)
    assert s.truth["concepts"][0] == s.truth["concepts"][1]
    assert not np.array_equal(s.chunk(0)[0], s.chunk(1)[0])


def test_sea0_defaults_match_the_paper():
    s = load_stream("sea0", seed=0)
    assert (len(s), s.chunk_size, s.n_classes, s.feature_shape) == (100, 1000, 2, (3,))
    assert s.drift_chunks == (10, 20, 30, 40, 50, 60, 70, 80, 90)
    X, y = s.chunk(0)
    assert X.dtype == np.float64 and y.dtype == np.int64
    assert X.shape == (1000, 3) and set(np.unique(y)) <= {0, 1}


@pytest.mark.parametrize("seed", range(5))
def test_consecutive_segments_have_different_concepts(seed):
    s = load_stream("sine", seed=seed, n_chunks=100, chunk_size=10)
    concepts = s.truth["concepts"]
    assert len(concepts) == 100
    for t in range(100):
        if t in s.drift_chunks:
            assert concepts[t] != concepts[t - 1]
        elif t > 0:
            assert concepts[t] == concepts[t - 1]
    assert set(concepts) <= {0, 1, 2, 3}


def test_mixed_alternates_between_its_two_concepts():
    s = load_stream("mixed", seed=11, n_chunks=60, chunk_size=10)
    segments = s.truth["concepts"][::10]
    assert all(a != b for a, b in zip(segments, segments[1:], strict=False))
    assert set(segments) == {0, 1}


def test_new_concept_is_uniform_over_the_others():
    counts = np.zeros((4, 4))
    rng = np.random.default_rng(0)
    for _ in range(200):
        seg = concept_schedule(4, 100, 10, rng)[::10]
        for a, b in zip(seg, seg[1:], strict=False):
            counts[a, b] += 1
    assert np.all(np.diag(counts) == 0)
    off = counts[~np.eye(4, dtype=bool)]
    assert off.min() > 0.8 * off.mean()  # roughly uniform, 1800 transitions


def test_sea0_labels_follow_the_threshold_of_each_chunks_concept():
    s = load_stream("sea0", seed=3, n_chunks=40, chunk_size=250)
    for t, (X, y) in enumerate(s):
        threshold = SEA_THRESHOLDS[s.truth["concepts"][t]]
        np.testing.assert_array_equal(y, (X[:, 0] + X[:, 1] > threshold).astype(np.int64))
        assert X.min() >= 0 and X.max() <= 10


def test_sea10_flips_about_ten_percent_of_labels():
    s = load_stream("sea10", seed=3, n_chunks=20)
    flipped = []
    for t, (X, y) in enumerate(s):
        clean = X[:, 0] + X[:, 1] > SEA_THRESHOLDS[s.truth["concepts"][t]]
        flipped.append(np.mean(y != clean))
    assert 0.09 < np.mean(flipped) < 0.11


def test_mixed_features_are_two_booleans_then_two_uniforms():
    X, _ = load_stream("mixed", seed=0, n_chunks=1).chunk(0)
    assert set(np.unique(X[:, :2])) == {0.0, 1.0}
    assert 0 <= X[:, 2:].min() and X[:, 2:].max() <= 1


def test_drift_period_option_moves_the_drifts():
    s = load_stream("sea0", seed=0, n_chunks=20, chunk_size=50, drift_period=4)
    assert s.drift_chunks == (4, 8, 12, 16)
    assert len(set(s.truth["concepts"][:4])) == 1


def _new_concept_share(X, old, new):
    """Among samples the two SEA thresholds label differently, the share labelled by `new`."""
    s = X[:, 0] + X[:, 1]
    lo, hi = sorted((SEA_THRESHOLDS[old], SEA_THRESHOLDS[new]))
    ambiguous = (s > lo) & (s <= hi)
    return ambiguous, s


def test_gradual_drift_mixes_concepts_around_the_boundary():
    width = 2000
    s = load_stream("sea0", seed=5, n_chunks=20, chunk_size=1000, drift_width=width)
    old, new = s.truth["concepts"][9], s.truth["concepts"][10]
    shares = {}
    for t in (3, 8, 9, 10, 11, 16):
        X, y = s.chunk(t)
        ambiguous, total = _new_concept_share(X, old, new)
        by_new = (total > SEA_THRESHOLDS[new]).astype(int)
        shares[t] = float(np.mean(y[ambiguous] == by_new[ambiguous]))
    # river's sigmoid 1/(1+exp(-4(g-p)/w)) averaged over each chunk: 0.28 just before, 0.72 after
    assert shares[3] == 0.0 and shares[16] == 1.0
    assert 0.0 < shares[8] < 0.15
    assert 0.15 < shares[9] < 0.42
    assert 0.58 < shares[10] < 0.85
    assert 0.85 < shares[11] < 1.0
    assert s.drift_chunks == (10,) and s.truth["drift_width"] == width


def test_gradual_drift_leaves_chunks_far_from_a_boundary_as_in_the_abrupt_stream():
    abrupt = load_stream("sea0", seed=5, n_chunks=20, chunk_size=500)
    gradual = load_stream("sea0", seed=5, n_chunks=20, chunk_size=500, drift_width=200)
    for t in (0, 5, 14, 19):
        assert abrupt.chunk(t)[0].tobytes() == gradual.chunk(t)[0].tobytes()
    assert abrupt.chunk(10)[0].tobytes() != gradual.chunk(10)[0].tobytes()


def test_narrower_width_gives_a_sharper_transition():
    def share_before(width):
        s = load_stream("sea0", seed=8, n_chunks=12, chunk_size=1000, drift_width=width)
        X, y = s.chunk(9)
        old, new = s.truth["concepts"][9], s.truth["concepts"][10]
        ambiguous, total = _new_concept_share(X, old, new)
        return np.mean(y[ambiguous] == (total > SEA_THRESHOLDS[new])[ambiguous])

    assert share_before(100) < share_before(3000)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"drift_period": 0}, "drift_period must be an integer >= 1"),
        ({"drift_width": 2}, "drift_width must be at least 6"),
        ({"drift_width": -1}, "drift_width must be an integer >= 1"),
    ],
)
def test_invalid_drift_options_are_rejected(options, message):
    with pytest.raises(ValueError, match=message):
        load_stream("sea0", n_chunks=2, **options)

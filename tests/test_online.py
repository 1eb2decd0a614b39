from __future__ import annotations

import numpy as np
import pytest
from river import base
from river import checks as river_checks

from pudd_core import PUDD, ChunkPUDD, chi2_test, clamp_table


def _chunks(seed, n, size, switch_every=15):
    rng = np.random.default_rng(seed)
    return [rng.beta(1.0 if (t // switch_every) % 2 == 0 else 2.5, 8, size) for t in range(n)]


def test_pudd_is_a_river_drift_detector():
    assert isinstance(PUDD(), base.DriftDetector)


_CHECKS = [
    c for c in river_checks.yield_checks(PUDD())
    if c.__name__ != "check_tags"  # river's tag check is for estimators with tags
]


@pytest.mark.parametrize("check", _CHECKS, ids=lambda c: c.__name__)
def test_river_generic_checks_pass(check):
    for params in PUDD._unit_test_params():
        check(PUDD(**params))


def test_block_ends_equal_chunk_pudd_for_the_whole_stream_when_the_clock_is_a_block():
    chunks = _chunks(5, 60, 500)
    chunk_det = ChunkPUDD(1e-3, seed=3)
    online = PUDD(1e-3, cut_every=500, clock=500, seed=3)
    alarms = 0
    for u in chunks:
        chunk_det.update(u, u < 0.5)
        for x in u:
            online.update(x)
        assert online.drift_detected == chunk_det.drift_detected
        assert online.cut_point == chunk_det.cut_point
        assert online.p_value == pytest.approx(chunk_det.p_value, rel=1e-9, abs=1e-300)
        alarms += chunk_det.drift_detected
    assert alarms >= 2  # the comparison covered alarms and resets


def test_with_the_default_clock_states_agree_at_block_ends_until_the_first_alarm():
    chunks = _chunks(6, 30, 500)
    chunk_det = ChunkPUDD(1e-3, seed=1)
    online = PUDD(1e-3, cut_every=500, seed=1)
    for t, u in enumerate(chunks):
        fired = False
        for x in u:
            online.update(x)
            fired |= online.drift_detected
        chunk_det.update(u, u < 0.5)
        if fired:
            assert t >= 15  # the online detector may only alarm earlier within a true change
            break
        assert online.p_value == pytest.approx(chunk_det.p_value, rel=1e-9, abs=1e-300)
        assert not chunk_det.drift_detected
    else:
        pytest.fail("the drift at chunk 15 was never detected")


def test_block_ends_have_the_chunk_detectors_tables_and_buckets():
    chunks = _chunks(8, 12, 400, switch_every=8)
    chunk_det = ChunkPUDD(1e-3, seed=2)
    online = PUDD(1e-3, cut_every=400, clock=400, seed=2)
    compared = 0
    for u in chunks:
        chunk_det.update(u, u < 0.5)
        for x in u:
            online.update(x)
        a, b = chunk_det.last_scan, online.last_scan
        assert [c.cut for c in a.cuts] == [c.cut for c in b.cuts]
        for ca, cb in zip(a.cuts, b.cuts, strict=True):
            assert ca.skipped == cb.skipped
            if ca.test is not None:
                np.testing.assert_array_equal(ca.test.table, cb.test.table)
                np.testing.assert_array_equal(ca.test.buckets.edges, cb.test.buckets.edges)
                compared += 1
    assert compared >= 10


def test_a_hopeless_first_block_alarms_at_once_as_the_chunk_detector_does():
    chunk_det = ChunkPUDD(1e-3)
    online = PUDD(1e-3, cut_every=100, clock=100)
    chunk_det.update(np.full(100, 0.9), np.zeros(100, bool))  # accuracy 0 in the first chunk
    for _ in range(100):
        online.update(0.9, correct=False)
    assert chunk_det.drift_detected and chunk_det.p_value == 0.0
    assert online.drift_detected and online.p_value == 0.0
    assert online.cut_point == chunk_det.cut_point == 1


def test_online_alarms_within_the_block_where_the_change_happens():
    rng = np.random.default_rng(3)
    det = PUDD(alpha=1e-3, cut_every=500, seed=0)
    for i in range(20_000):
        det.update(rng.beta(1 if i < 10_000 else 3, 8))
        if det.drift_detected:
            break
    assert 10_000 <= i < 10_500


def test_zero_one_errors_reduce_to_a_two_by_two_error_rate_test():
    rng = np.random.default_rng(7)
    errors = np.concatenate([rng.random(1000) < 0.1, rng.random(1000) < 0.14]).astype(int)
    det = PUDD(alpha=1e-9, cut_every=1000, clock=1000)
    for e in errors:
        det.update(e)
    (cut,) = det.last_scan.cuts
    assert cut.test.buckets.k == 1  # every correct prediction has u = 0: one bucket
    old, new = errors[:1000], errors[1000:]
    table = clamp_table([[np.sum(old == 0), np.sum(old)], [np.sum(new == 0), np.sum(new)]], 5)
    assert det.p_value == pytest.approx(chi2_test(table, yates=True).p_value, rel=1e-9)


def test_works_inside_river_drift_retraining_classifier():
    from river import datasets, drift, naive_bayes

    model = drift.DriftRetrainingClassifier(
        model=naive_bayes.GaussianNB(),
        drift_detector=PUDD(alpha=1e-3, cut_every=200, clock=20),
        train_in_background=False,
    )
    # SEA concept 0 for 4000 instances, then concept 3 (threshold 8 -> 9.5: more errors)
    stream = list(datasets.synth.SEA(variant=0, seed=1).take(4000))
    stream += list(datasets.synth.SEA(variant=3, seed=2).take(4000))
    resets = 0
    previous = model.model
    for x, y in stream:
        model.predict_one(x)
        model.learn_one(x, y)
        if model.model is not previous:
            resets += 1
            previous = model.model
    assert resets >= 1
    assert model.drift_detector.n_seen == len(stream) - 1  # predict_one is None only at first


def test_detection_resets_history_on_the_next_update():
    det = PUDD(cut_every=100, clock=100)
    for _ in range(300):
        det.update(0.05)
    for _ in range(100):
        det.update(0.95)  # a block with no correct prediction
    assert det.drift_detected and det.p_value == 0.0
    det.update(0.1)
    assert not det.drift_detected and det.last_scan.p_value == 0.0  # no test since the reset


@pytest.mark.parametrize("x", [-0.1, 1.5, float("nan")])
def test_values_outside_the_unit_interval_raise(x):
    with pytest.raises(ValueError, match=r"PU-index in \[0, 1\]"):
        PUDD().update(x)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"cut_every": 0}, "cut_every"), ({"clock": 0}, "clock"), ({"alpha": 1.0}, "alpha"),
     ({"min_recent_size": 0}, "min_recent_size")],
)
def test_parameters_out_of_range_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        PUDD(**kwargs)


def _classifier_checks():
    from pudd_core import PUDDClassifier

    model = next(PUDDClassifier._unit_test_params())
    return [c for c in river_checks.yield_checks(PUDDClassifier(**model))
            if c.__name__ != "check_tags"]


@pytest.mark.parametrize("check", _classifier_checks(), ids=lambda c: c.__name__)
def test_pudd_classifier_passes_river_checks(check):
    from pudd_core import PUDDClassifier

    for params in PUDDClassifier._unit_test_params():
        check(PUDDClassifier(**params))  # river binds the datasets into each check


def test_pudd_classifier_feeds_the_pu_index_and_resets_the_model_after_a_drift():
    from river import datasets, naive_bayes

    from pudd_core import PUDDClassifier

    det = PUDD(cut_every=200, clock=20, seed=0)
    clf = PUDDClassifier(naive_bayes.GaussianNB(), det)
    stream = [*datasets.synth.SEA(variant=0, seed=1).take(3000),
              *datasets.synth.SEA(variant=3, seed=2).take(3000)]
    first_model = clf.model
    reset_at = None
    for i, (x, y) in enumerate(stream):
        clf.learn_one(x, y)
        if reset_at is None and clf.model is not first_model:
            reset_at = i
    assert reset_at is not None and reset_at >= 3000  # no reset before the concept changes
    assert det.n_seen == len(stream) - 1  # every instance after the first was scored
    # u is the PU-index, not a 0/1 error: the detector holds values strictly inside (0, 1)
    assert all(0.0 < v < 1.0 for v in det._u)

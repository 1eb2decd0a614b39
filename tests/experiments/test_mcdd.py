"""MCD-DD: the label-free SOTA detector on concept embeddings, and its runner branch."""

from __future__ import annotations

import numpy as np
import pytest

from pudd_core._validation import ParameterError
from pudd_core.experiments.detectors import DETECTORS
from pudd_core.experiments.mcdd import MCDDD
from pudd_core.experiments.runner import RunConfig, run_experiment
from pudd_core.streams import load_stream


def chunks(seed: int, n: int, shift_at: int | None = None, size: int = 400):
    rng = np.random.default_rng(seed)
    for t in range(n):
        loc = 4.0 if shift_at is not None and t >= shift_at else 0.0
        yield rng.normal(loc=loc, size=(size, 3))


def test_no_alarm_on_stationary_features_and_an_alarm_where_they_move():
    det = MCDDD(seed=0)
    alarms = []
    for t, X in enumerate(chunks(1, 12, shift_at=9)):
        det.update(X)
        if det.drift_detected:
            alarms.append(t)
    assert alarms == [9]


def test_threshold_is_the_mean_plus_k_std_of_the_mcds_since_the_last_alarm():
    det = MCDDD(k=2.0, min_history=3, seed=3)
    for X in chunks(2, 10, shift_at=8):
        before = list(det.history)
        det.update(X)
        if len(before) >= 3:
            expected = np.mean(before) + 2.0 * np.std(before, ddof=1)
            assert det.threshold == pytest.approx(expected)
            assert det.drift_detected == (det.mcd > expected)
        else:
            assert np.isnan(det.threshold) and not det.drift_detected
        if det.drift_detected:
            det.update(next(chunks(9, 1, shift_at=0)))  # the next update starts a new history
            assert det.history == [det.mcd]
            break
    else:
        pytest.fail("the shift at chunk 8 raised no alarm")


def test_same_seed_same_discrepancies():
    runs = []
    for _ in range(2):
        det = MCDDD(epochs=3, seed=5)
        out = []
        for X in chunks(4, 5):
            det.update(X)
            out.append(det.mcd)
        runs.append(out)
    assert runs[0][1:] == runs[1][1:] and np.isnan(runs[0][0])


@pytest.mark.parametrize(("options", "param"), [
    ({"n_sets": 1}, "n_sets"), ({"k": -1.0}, "k"), ({"lr": 0.0}, "lr"),
    ({"min_history": 1}, "min_history"),
])
def test_bad_settings_name_their_parameter(options, param):
    with pytest.raises(ParameterError) as info:
        MCDDD(**options)
    assert info.value.param == param


def test_runner_feeds_the_chunk_features_and_adapts_after_each_alarm():
    cfg = RunConfig("sea0", "gnb", "mcd-dd", n_chunks=8, seed=2,
                    detector_options={"k": 0.0, "min_history": 2, "epochs": 2})
    res = run_experiment(cfg)
    # the same detector fed the same chunks' features by hand gives the same alarms
    stream_seq, _, det_seq = np.random.SeedSequence(2).spawn(3)
    stream = load_stream("sea0", seed=int(stream_seq.generate_state(1)[0]), n_chunks=8)
    det = MCDDD(k=0.0, min_history=2, epochs=2, seed=int(det_seq.generate_state(1)[0]))
    expected = []
    for t in range(1, 8):
        det.update(stream.chunk(t)[0])
        if det.drift_detected:
            expected.append(t)
    assert res.alarms == tuple(expected) and expected  # k = 0: some alarm is certain
    adapted = [c.chunk_index for c in res.chunks if c.adapted]
    assert adapted == [t + 1 for t in expected if t + 1 < 8]
    assert "mcd-dd" in DETECTORS


def test_runner_refuses_unknown_mcdd_options_listing_the_valid_ones():
    with pytest.raises(ParameterError, match="valid options: n_sets, set_size"):
        RunConfig("sea0", "gnb", "mcd-dd", detector_options={"alpha": 0.1}).validate()

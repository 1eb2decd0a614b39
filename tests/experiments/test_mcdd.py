"""MCD-DD: the label-free SOTA detector on concept embeddings (the authors' procedure)."""

from __future__ import annotations

import copy
import hashlib
import json
import math
from dataclasses import asdict

import numpy as np
import pytest
import torch

from pudd_core._validation import ParameterError
from pudd_core.experiments.detectors import DETECTORS
from pudd_core.experiments.mcdd import MCDDD
from pudd_core.experiments.runner import RunConfig, run_experiment
from pudd_core.streams import load_stream

SMALL = {"hidden": 32, "embed_dim": 16}  # a narrower encoder: the same procedure, faster


def chunks(seed: int, n: int, shift_at: int | None = None, size: int = 1000, d: int = 3):
    rng = np.random.default_rng(seed)
    for t in range(n):
        loc = 3.0 if shift_at is not None and t >= shift_at else 0.0
        yield rng.normal(loc=loc, size=(size, d))


def alarms_of(det: MCDDD, stream) -> list[int]:
    out = []
    for t, X in enumerate(stream):
        det.update(X)
        if det.drift_detected:
            out.append(t)
    return out


def test_detects_a_feature_shift_where_it_happens_and_nowhere_else():
    # chunks 0-4 fill the 5000-row window; 5-11 are tested; the mean moves at chunk 9
    det = MCDDD(seed=0)
    assert alarms_of(det, chunks(1, 12, shift_at=9)) == [9]


def test_no_alarm_on_a_stationary_stream():
    det = MCDDD(seed=1, **SMALL)
    assert alarms_of(det, chunks(2, 25)) == []


def test_same_seed_same_distances_and_thresholds_another_seed_others():
    def trace(seed: int) -> list[tuple[float, float]]:
        det = MCDDD(seed=seed, **SMALL)
        out = []
        for X in chunks(3, 8):
            det.update(X)
            out += det.tests
        return out

    first = trace(5)
    assert first == trace(5) and len(first) == 2 * 3  # chunks 5-7, two slides each
    assert first != trace(6)


def test_the_first_window_only_trains_then_each_slide_is_tested_once():
    det = MCDDD(window=1000, sub_windows=4, seed=0, **SMALL)   # slides of 250 rows
    det.update(np.zeros((999, 2)) + np.arange(999)[:, None] % 7)
    assert det.tests == [] and math.isnan(det.threshold)       # one row short of a window
    det.update(np.ones((1, 2)))
    assert det.tests == [] and det.threshold >= 0              # full: trained, not tested
    det.update(np.random.default_rng(0).normal(size=(600, 2)))  # two slides, 100 rows wait
    assert len(det.tests) == 2
    det.update(np.random.default_rng(1).normal(size=(150, 2)))  # with the 100: one slide
    assert len(det.tests) == 1


def test_each_slide_is_tested_before_the_encoder_trains_on_it():
    det = MCDDD(seed=4, **SMALL)
    stream = chunks(7, 7)
    for X in list(stream)[:6]:
        det.update(X)
    X = next(chunks(8, 1))
    twin = copy.deepcopy(det)  # the state (encoder, optimizer, generator) before the chunk
    det.update(X)
    # the first slide: the window moved by 500 rows, tested by the encoder as it was, against
    # the threshold the last training step left
    win = np.concatenate([twin._win[500:], X[:500].astype(np.float32)])
    assert det.tests[0] == (twin._test(win), twin.threshold)


def test_the_statistic_is_the_mean_distance_between_the_sets_of_two_sub_windows():
    a = torch.tensor([[0.0, 0.0], [1.0, 0.0]])
    b = torch.tensor([[0.0, 1.0], [3.0, 0.0]])
    # the pairs of the same index (0, 0) and (1, 1) are left out, as the authors do
    assert float(MCDDD._between(a, b)) == pytest.approx((3.0 + math.sqrt(2.0)) / 2)
    c = torch.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])
    assert MCDDD._within(c).tolist() == pytest.approx([5.0, 1.0, math.sqrt(18.0)])


def test_the_threshold_is_the_percentile_of_the_within_sub_window_distances():
    # percentile 0: the smallest within distance, which a set mean almost never undercuts
    lax = MCDDD(percentile=0.0, seed=2, **SMALL)
    strict = MCDDD(percentile=1.0, seed=2, **SMALL)
    for X in chunks(9, 8):
        lax.update(X)
        strict.update(X)
        if lax.tests:
            assert all(t <= s for (_, t), (_, s) in zip(lax.tests, strict.tests, strict=True))
    assert lax.drift_detected


@pytest.mark.parametrize(("options", "param"), [
    ({"window": 19}, "window"), ({"sub_windows": 1}, "sub_windows"), ({"n_sets": 3}, "n_sets"),
    ({"set_size": 0}, "set_size"), ({"epochs": 0}, "epochs"), ({"lr": 0.0}, "lr"),
    ({"lr": float("nan")}, "lr"), ({"temperature": -1.0}, "temperature"),
    ({"eps_small": -0.1}, "eps_small"), ({"eps_big": "10"}, "eps_big"),
    ({"gp_weight": float("inf")}, "gp_weight"), ({"percentile": 1.5}, "percentile"),
    ({"standardize": "yes"}, "standardize"), ({"seed": -1}, "seed"), ({"hidden": True}, "hidden"),
])
def test_bad_settings_name_their_parameter(options, param):
    with pytest.raises(ParameterError) as info:
        MCDDD(**options)
    assert info.value.param == param


@pytest.mark.parametrize(("chunk", "match"), [
    (np.zeros(10), "shape"), (np.zeros((0, 3)), "shape"),
    (np.array([[1.0, np.nan, 0.0]] * 5), "NaN or infinite values in row"),
    (np.array([["a", "b", "c"]]), "text"),
])
def test_bad_chunks_are_refused_with_the_reason(chunk, match):
    with pytest.raises(ParameterError, match=match):
        MCDDD(seed=0).update(chunk)


def test_a_chunk_of_another_width_is_refused():
    det = MCDDD(seed=0)
    det.update(np.zeros((10, 3)))
    with pytest.raises(ParameterError, match="learned 3 features per row; this chunk has 4"):
        det.update(np.zeros((10, 4)))


def test_standardize_rescales_by_the_first_chunk_so_units_do_not_matter():
    plain = MCDDD(seed=3, standardize=True, **SMALL)
    scaled = MCDDD(seed=3, standardize=True, **SMALL)
    for X in chunks(4, 7, shift_at=6):
        plain.update(X)
        scaled.update(1000.0 * X + 5.0)
        assert plain.tests == pytest.approx(scaled.tests, rel=1e-4)
    assert plain.drift_detected and scaled.drift_detected


def test_runner_feeds_the_chunk_features_and_adapts_after_each_alarm():
    options = {"window": 1000, "sub_windows": 2, "percentile": 0.0, **SMALL}
    cfg = RunConfig("sea0", "gnb", "mcd-dd", n_chunks=6, seed=2, detector_options=options)
    res = run_experiment(cfg)
    # the same detector fed the same chunks' features by hand gives the same alarms
    stream_seq, _, det_seq = np.random.SeedSequence(2).spawn(3)
    stream = load_stream("sea0", seed=int(stream_seq.generate_state(1)[0]), n_chunks=6)
    det = MCDDD(seed=int(det_seq.generate_state(1)[0]), **options)
    expected = []
    for t in range(1, 6):
        det.update(stream.chunk(t)[0])
        if det.drift_detected:
            expected.append(t)
    assert res.alarms == tuple(expected) and expected  # percentile 0: alarms are certain
    adapted = [c.chunk_index for c in res.chunks if c.adapted]
    assert adapted == [t + 1 for t in expected if t + 1 < 6]
    assert "mcd-dd" in DETECTORS


def test_runner_refuses_unknown_mcdd_options_listing_the_valid_ones():
    with pytest.raises(ParameterError, match="valid options: window, sub_windows, n_sets"):
        RunConfig("sea0", "gnb", "mcd-dd", detector_options={"alpha": 0.1}).validate()


def test_store_keys_of_the_revised_methods_change_and_no_other_key_does():
    def plain(cfg: RunConfig) -> str:  # the key before the revision
        blob = json.dumps(asdict(cfg), sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    for cfg in (RunConfig("sea0", "dnn-ensemble", "mcd-dd"), RunConfig("elec2", "ns", "none"),
                RunConfig("elec2", "adlter", "none")):
        assert cfg.key() != plain(cfg)  # a store never returns a run of the old procedure
    for cfg in (RunConfig("sea0", "dnn-ensemble", "pudd"), RunConfig("elec2", "amf", "none"),
                RunConfig("sea0", "gnb", "adwin", seed=3)):
        assert cfg.key() == plain(cfg)  # every other stored run stays valid

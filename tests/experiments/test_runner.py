from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB

from pudd_core.classifiers import make_classifier
from pudd_core.experiments.runner import RunConfig, run_experiment
from pudd_core.streams import load_stream

SMALL = {"dataset": "sea0", "classifier": "gnb", "n_chunks": 30}


def _strip(result):
    zero = {"predict_ms": 0.0, "detect_ms": 0.0, "train_ms": 0.0}
    return [dataclasses.replace(c, **zero) for c in result.chunks]


def test_same_config_gives_identical_runs_and_another_seed_differs():
    a = run_experiment(RunConfig(**SMALL, seed=3))
    b = run_experiment(RunConfig(**SMALL, seed=3))
    c = run_experiment(RunConfig(**SMALL, seed=4))
    assert _strip(a) == _strip(b) and a.accuracy == b.accuracy
    assert a.accuracy != c.accuracy


def _manual_loop(stream, *, incremental):
    model = GaussianNB()
    X0, y0 = stream.chunk(0)
    model.partial_fit(X0, y0, classes=np.arange(stream.n_classes))
    model.partial_fit(X0, y0)  # the authors train on chunk 0 twice
    accs = []
    for t in range(1, stream.n_chunks):
        X, y = stream.chunk(t)
        accs.append(float((model.predict(X) == y).mean()))
        if incremental:
            model.partial_fit(X, y)
    return accs


@pytest.mark.parametrize("regime", ["incremental", "train-once"])
def test_no_adaptation_equals_a_hand_written_test_then_train_loop(regime):
    cfg = RunConfig(**SMALL, detector="none", regime=regime, seed=5)
    res = run_experiment(cfg)
    stream_seed = int(np.random.SeedSequence(5).spawn(3)[0].generate_state(1)[0])
    stream = load_stream("sea0", seed=stream_seed, n_chunks=30)
    expected = _manual_loop(stream, incremental=regime == "incremental")
    np.testing.assert_allclose([c.accuracy for c in res.chunks], expected)
    assert res.accuracy == pytest.approx(np.mean(expected))
    assert res.alarms == () and not any(c.adapted for c in res.chunks)


def test_oracle_alarms_exactly_at_the_true_drifts_and_adapts_at_the_next_chunk():
    res = run_experiment(RunConfig(**SMALL, detector="oracle"))
    assert res.alarms == res.drift_chunks == (10, 20)
    assert [c.chunk_index for c in res.chunks if c.adapted] == [11, 21]
    assert res.detection.delays == (0, 0) and res.detection.false_alarms == 0


def test_pudd_alarms_adapt_the_model_before_the_next_chunk():
    res = run_experiment(RunConfig(**SMALL, detector="pudd", alpha=1e-1))
    alarms = {c.chunk_index for c in res.chunks if c.alarm}
    adapted = {c.chunk_index for c in res.chunks if c.adapted}
    assert alarms and adapted == {a + 1 for a in alarms if a + 1 < 30}
    assert all(0 <= c.p_value <= 1 for c in res.chunks)
    assert all(c.cut_p_values or c.chunk_index == 1 or c.p_value in (0.0, 1.0) for c in res.chunks)


def test_smaller_alpha_gives_no_more_alarms_on_this_stream():
    counts = [run_experiment(RunConfig(**SMALL, alpha=a)).n_alarms for a in (1e-1, 1e-3, 1e-8)]
    assert counts[0] >= counts[1] >= counts[2]


def test_baselines_record_where_they_fired_and_alarm_on_those_chunks():
    res = run_experiment(RunConfig(**SMALL, detector="ddm"))
    for c in res.chunks:
        assert c.alarm == bool(c.detections)
        assert np.isnan(c.p_value)


def test_recorded_windows_hold_the_winning_cut_histograms_and_table():
    res = run_experiment(RunConfig(**SMALL, record_windows=True))
    rec = [c for c in res.chunks if c.window is not None]
    assert rec
    for c in rec:
        w = c.window
        total_new = sum(w.new_correct) + sum(w.new_wrong)
        assert total_new == 1000 * c.cut_point  # the recent window: cut_point chunks
        assert len(w.table) == 2 and len(w.table[0]) == len(w.bucket_centres) + 1


def test_to_frame_has_one_row_per_tested_chunk():
    res = run_experiment(RunConfig(**SMALL))
    frame = res.to_frame()
    assert len(frame) == 29 and {"chunk_index", "accuracy", "p_value", "alarm"} <= set(frame)


def test_config_key_is_stable_and_options_are_normalised():
    a = RunConfig(detector_options={"cut_points": "all", "clamp_min": 0})
    b = RunConfig(detector_options=(("clamp_min", 0), ("cut_points", "all")))
    assert a == b and a.key() == b.key() and hash(a) == hash(b)
    assert RunConfig(detector="ph").detector == "pagehinkley"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"dataset": "nope"}, "unknown stream|nope"),
        ({"classifier": "svm"}, "unknown classifier 'svm'"),
        ({"detector": "magic"}, "unknown detector 'magic'"),
        ({"alpha": 0.0}, "alpha"),
        ({"regime": "sometimes"}, "regime"),
        ({"classifier": "resnet18"}, "cannot learn the synthetic stream 'sea0'"),
        ({"dataset": "cifar10-cd", "classifier": "gnb"},
         "choose pretrained-cnn, small-cnn or resnet18"),
    ],
)
def test_bad_configs_fail_before_any_work(kwargs, match):
    with pytest.raises(ValueError, match=match):
        run_experiment(RunConfig(**{**SMALL, **kwargs}))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"classifier_options": {"epoch": 5}}, "classifier 'gnb' option.*'epoch'.*var_smoothing"),
        ({"detector_options": {"cut_point": "all"}}, "detector 'pudd' option.*'cut_point'"
                                                     ".*cut_points"),
        ({"detector": "ek", "detector_options": {"partition": "pu"}}, "'partition'.*clamp_min"),
        ({"detector": "ddm", "detector_options": {"delta": 0.1}}, "'delta'.*drift_threshold"),
        ({"detector": "none", "detector_options": {"a": 1}}, "'a'; valid options: none"),
    ],
)
def test_unknown_option_names_fail_in_validate_before_the_stream_loads(kwargs, match, monkeypatch):
    from pudd_core.experiments import runner

    def no_load(*args, **kwargs):
        raise AssertionError("the stream was loaded")

    monkeypatch.setattr(runner, "load_stream", no_load)
    cfg = RunConfig(**{**SMALL, **kwargs})
    with pytest.raises(ValueError, match=match):
        cfg.validate()
    with pytest.raises(ValueError, match=match):
        run_experiment(cfg)


def test_known_option_names_pass_validation():
    RunConfig(**SMALL, detector_options={"cut_points": "all", "skip_rule": None}).validate()
    RunConfig(**SMALL, detector="ek", detector_options={"clamp_min": 5}).validate()
    RunConfig(**SMALL, detector="ph", detector_options={"threshold": 20}).validate()
    RunConfig(**{**SMALL, "classifier": "dnn"}, classifier_options={"epochs": 3}).validate()


def _gradual_stream():
    """Labels flipped with a probability rising from 0 to 0.4: long winning cuts."""
    import io

    from pudd_core.streams import stream_from_csv

    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, size=(6000, 2))
    y = (x.sum(axis=1) > 10).astype(int)
    y = np.where(rng.random(6000) < np.linspace(0, 0.4, 6000), 1 - y, y)
    csv = "a,b,label\n" + "".join(f"{a:.4f},{b:.4f},{c}\n" for (a, b), c in zip(x, y, strict=True))
    return stream_from_csv(io.StringIO(csv), label="label", chunk_size=200, name="mine")


def test_a_cut_longer_than_the_kept_window_retrains_on_the_kept_chunks(monkeypatch):
    from pudd_core.experiments import runner

    monkeypatch.setattr(runner, "_MAX_WINDOW", 2)
    sizes: list[int] = []

    def recording_classifier(*args, **kwargs):
        model = make_classifier(*args, **kwargs)
        adapt = model.adapt
        model.adapt = lambda X, y: (sizes.append(len(X)), adapt(X, y))[1]
        return model

    monkeypatch.setattr(runner, "make_classifier", recording_classifier)
    cfg = RunConfig("mine", "gnb", "pudd", alpha=1e-2, detector_options={"cut_points": "all"})
    res = run_experiment(cfg, stream=_gradual_stream())
    cuts = [c.cut_point for c in res.chunks if c.alarm and c.chunk_index < 29]
    assert max(cuts) > 2  # a cut the runner no longer holds in full
    assert sizes == [200, *(200 * min(cut, 2) for cut in cuts)]  # gnb's fit is an adapt


def test_a_missing_dataset_fails_before_any_work(tmp_path, monkeypatch):
    from pudd_core.experiments.grid import run_grid
    from pudd_core.streams import DatasetUnavailableError

    monkeypatch.setenv("PUDD_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("PUDD_CACHE_DIR", str(tmp_path / "cache"))
    cfgs = [RunConfig(**SMALL), RunConfig("elec2", "gnb")]
    with pytest.raises(DatasetUnavailableError, match="(?s)elec2.*PUDD_DATA_DIR"):
        run_grid(cfgs, store=tmp_path / "store", executor="serial", progress=False)
    assert not (tmp_path / "store").exists()  # nothing ran, nothing stored


def _user_stream(name="mine", chunk_size=200):
    import io

    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, size=(2000, 2))
    y = (x.sum(axis=1) > np.where(np.arange(2000) < 1000, 9.0, 11.0)).astype(int)
    csv = "a,b,label\n" + "".join(f"{a:.4f},{b:.4f},{c}\n" for (a, b), c in zip(x, y, strict=True))
    from pudd_core.streams import stream_from_csv

    return stream_from_csv(io.StringIO(csv), label="label", chunk_size=chunk_size, name=name)


def test_a_given_user_stream_runs_instead_of_the_registry():
    stream = _user_stream()
    res = run_experiment(RunConfig("mine", "gnb", "pudd", alpha=1e-3), stream=stream)
    assert [c.chunk_index for c in res.chunks] == list(range(1, 10))
    assert res.drift_chunks is None and res.detection is None
    assert res.alarms == (5,)  # the boundary moves at row 1000 = chunk 5
    again = run_experiment(RunConfig("mine", "gnb", "pudd", alpha=1e-3), stream=stream)
    assert _strip(again) == _strip(res)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"dataset": "sea0"}, "dataset 'sea0' does not name the given stream 'mine'"),
        ({"chunk_size": 100}, "chunk_size must be None or the given stream's 200, got 100"),
        ({"classifier": "small-cnn"}, "cannot learn the user stream 'mine'"),
    ],
)
def test_a_given_stream_is_checked_against_the_config(kwargs, match):
    with pytest.raises(ValueError, match=match):
        run_experiment(RunConfig(**{"dataset": "mine", **kwargs}), stream=_user_stream())


def test_run_seeds_are_the_first_words_of_three_spawned_children():
    from pudd_core.experiments.runner import run_seeds

    children = np.random.SeedSequence(11).spawn(3)
    assert tuple(run_seeds(11)) == tuple(int(c.generate_state(1)[0]) for c in children)
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        run_seeds(-1)


def test_the_chunk_loop_with_fixed_alarms_at_the_drifts_is_the_oracle_run():
    from pudd_core.experiments.detectors import FixedAlarms
    from pudd_core.experiments.runner import run_chunks, run_model, run_stream

    cfg = RunConfig(**SMALL, detector="oracle", seed=2)
    stream = run_stream(cfg)
    logs = run_chunks(stream, run_model(cfg, stream), FixedAlarms(frozenset(stream.drift_chunks)))
    zero = {"predict_ms": 0.0, "detect_ms": 0.0, "train_ms": 0.0}
    assert [dataclasses.replace(c, **zero) for c in logs] == _strip(run_experiment(cfg))


def test_the_chunk_loop_retrains_on_the_window_a_verdict_asks_for():
    from pudd_core.experiments.detectors import ChunkVerdict
    from pudd_core.experiments.runner import run_chunks, run_model, run_stream

    class AlarmAtFive:
        def test(self, t, u, correct, features=None):
            return ChunkVerdict(alarm=t == 5, retrain_chunks=3, p_value=0.5)

    cfg = RunConfig(**SMALL)
    stream = run_stream(cfg)
    model = run_model(cfg, stream)
    sizes: list[int] = []
    adapt = model.adapt
    model.adapt = lambda X, y: (sizes.append(len(X)), adapt(X, y))[1]
    logs = run_chunks(stream, model, AlarmAtFive(), regime="train-once")
    assert [c.chunk_index for c in logs if c.adapted] == [6]
    assert sizes == [1000, 3 * 1000]  # gnb's fit is an adapt; then chunks 3, 4 and 5
    assert [c.p_value for c in logs] == [0.5] * 29 and [c.alarm for c in logs].count(True) == 1


def test_a_baseline_adapter_replaces_its_detector_with_a_fresh_clone_after_an_alarm():
    from pudd_core.experiments.baselines import make
    from pudd_core.experiments.detectors import BaselineAdapter

    adapter = BaselineAdapter(make("ddm"))
    first = adapter.detector
    ok = np.r_[np.ones(1000, bool), np.zeros(500, bool)]  # errors jump from 0 to 1
    verdict = adapter.test(1, np.zeros(1500), ok)
    assert verdict.alarm and verdict.detections and verdict.detections[0] >= 1000
    assert adapter.detector is not first and not adapter.detector.drift_detected
    assert repr(adapter.detector) == repr(make("ddm"))  # the same parameters, a fresh state
    quiet = adapter.test(2, np.zeros(100), np.ones(100, bool))
    assert not quiet.alarm and quiet.retrain_chunks == 1


@pytest.mark.parametrize(("adaptation", "expected"), [("window", "cut"), ("chunk", 1)])
def test_chunk_pudd_adapter_retrains_on_the_winning_window_or_the_chunk(adaptation, expected):
    from pudd_core.detector import ChunkPUDD
    from pudd_core.experiments.detectors import ChunkPUDDAdapter

    rng = np.random.default_rng(0)
    adapter = ChunkPUDDAdapter(ChunkPUDD(1e-3, seed=0), adaptation)
    verdicts = []
    for t in range(1, 12):
        err = 0.05 if t < 9 else 0.5
        wrong = rng.random(500) < err
        u = np.where(wrong, rng.uniform(0.5, 1, 500), rng.uniform(0, 0.5, 500))
        verdicts.append(adapter.test(t, u, ~wrong))
    alarm = next(v for v in verdicts if v.alarm)
    assert alarm.cut_point is not None and alarm.p_value < 1e-3
    assert alarm.retrain_chunks == (alarm.cut_point if expected == "cut" else 1)
    assert all(not v.alarm or v.retrain_chunks >= 1 for v in verdicts)

"""The delay study: the same predictions for every detector, paired tests by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from pudd_core._validation import ParameterError
from pudd_core.experiments.runner import RunConfig, run_experiment
from pudd_core.reproduction.delays import (
    Predictions,
    Setting,
    delay_summary,
    drift_delays,
    first_detection,
    matched_early,
    read_runs,
    record_predictions,
    replay_alarms,
    study_tables,
    trade_off,
)


@pytest.fixture(scope="module")
def sine() -> Predictions:
    return record_predictions(RunConfig("sine", "gnb", "none", seed=2, n_chunks=40))


def test_the_recorded_predictions_are_the_no_detector_runs(sine):
    run = run_experiment(RunConfig("sine", "gnb", "none", seed=2, n_chunks=40))
    assert [float(ok.mean()) for ok in sine.correct] == [c.accuracy for c in run.chunks]
    assert sine.drift_chunks == run.drift_chunks == (10, 20, 30)


@pytest.mark.parametrize("setting", [Setting.of("pudd", 1e-3), Setting.of("pagehinkley", 50.0),
                                     Setting.of("adwin", 0.002)])
def test_a_replay_alarms_first_where_the_tables_run_does(sine, setting):
    # before its first alarm a run's model never adapts: the replay and the run agree there
    run = run_experiment(setting.config("sine", 2, n_chunks=40))
    replay = replay_alarms(sine, setting)
    assert replay and run.alarms and replay[0] == run.alarms[0]


def test_a_swept_option_reaches_the_detector(sine):
    many = replay_alarms(sine, Setting.of("pagehinkley", 5.0))
    few = replay_alarms(sine, Setting.of("pagehinkley", 150.0))
    assert len(many) > len(few)
    with pytest.raises(ParameterError, match="no threshold sweep"):
        Setting.of("mcd-dd", 1.0)


def test_predictions_round_trip_without_pickle(sine, tmp_path):
    sine.save(tmp_path / "p.npz")
    back = Predictions.load(tmp_path / "p.npz")
    assert back.drift_chunks == sine.drift_chunks and back.n_chunks == sine.n_chunks
    assert all(np.array_equal(a, b) for a, b in zip(back.u, sine.u, strict=True))
    assert replay_alarms(back, Setting.of("pudd", 1e-3)) == replay_alarms(sine,
                                                                          Setting.of("pudd", 1e-3))


def _runs(alarms_a, alarms_b, drifts=(10, 20, 30), n=40):
    return pd.DataFrame([{"dataset": "s", "seed": 0, "detector": d, "value": 1.0, "row": d,
                          "default": True, "alarms": tuple(a), "drift_chunks": drifts,
                          "n_chunks": n} for d, a in (("a", alarms_a), ("b", alarms_b))])


def test_first_detection_and_its_tests_by_hand():
    # drift 10: a at 10, b at 12 (a first); 20: both at 21 (tie); 30: a misses, b at 33
    runs = _runs([10, 21, 25], [12, 21, 33, 35])
    delays = drift_delays(runs)
    assert delays[delays.row == "a"]["delay"].tolist()[:2] == [0.0, 1.0]
    assert math.isnan(delays[delays.row == "a"]["delay"].tolist()[2])
    r = first_detection(delays, "a", "b")
    assert (r.first_a, r.first_b, r.ties, r.neither, r.both) == (1, 1, 1, 0, 2)
    assert r.sign_p == 1.0  # 1 of 2 decided: binomial two-sided p = 1
    summary = delay_summary(delays).set_index("row")
    assert summary.loc["b", "detected"] == 3 and summary.loc["b", "early"] == 2  # 33: 3 late
    assert summary.loc["b", "max"] == 3.0
    curve = trade_off(delays, runs).set_index("row")
    # a: 25 is the second alarm of drift 20's segment (false); b: 35 false
    assert curve.loc["a", "false_alarms"] == 1.0 and curve.loc["b", "false_alarms"] == 1.0


def test_a_one_sided_record_gives_a_small_sign_p():
    delays = pd.DataFrame({"dataset": "s", "seed": np.repeat(range(10), 2),
                           "drift": 0, "row": ["a", "b"] * 10,
                           "delay": [0.0, 2.0] * 10})
    r = first_detection(delays, "a", "b")
    assert (r.first_a, r.first_b) == (10, 0)
    assert r.sign_p == pytest.approx(2 / 2 ** 10)


def test_the_curve_read_at_a_point_takes_the_best_threshold_with_no_more_false_alarms():
    curve = pd.DataFrame({"detector": ["pudd", "ph", "ph", "ph"],
                          "row": ["pudd-3", "ph@1", "ph@2", "ph@3"], "value": [1e-3, 1, 2, 3],
                          "early": [6, 9, 5, 3], "drifts": 10,
                          "false_alarms": [1.0, 4.0, 1.0, 0.2]})
    assert matched_early(curve, "pudd-3").iloc[0]["row"] == "ph@2"


def test_a_file_that_is_not_the_studys_is_named(tmp_path):
    bad = tmp_path / "x.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(ParameterError, match="not a delays_runs.csv"):
        read_runs(bad)


def test_the_tables_mark_pudd_1_3_5_as_the_tables_points():
    runs = pd.concat([_runs([10], [12]).assign(row=["pudd-1", "pudd-5"], detector="pudd",
                                               default=False)])
    _, summary, curve = study_tables(runs)
    assert summary["row"].tolist() == ["pudd-1", "pudd-5"] and curve["default"].all()


def test_the_committed_delay_table_counts_a_second_way():
    import json
    from pathlib import Path

    from pudd_core.reproduction.findings import Reports, render

    results = Path(__file__).resolve().parents[2] / "results"
    runs = pd.read_csv(results / "delays_runs.csv")
    table = render("delays-table", Reports(results))
    for row, name in (("pagehinkley", "PH"), ("pudd-3", "PUDD-3")):
        part = runs[(runs["row"] == row) & (runs["dataset"] != "cifar10-cd")]
        drifts = detected = early = 0
        for alarms, bounds, n in zip(part["alarms"], part["drift_chunks"], part["n_chunks"],
                                     strict=True):
            alarms, bounds = json.loads(alarms), json.loads(bounds)
            for start, end in zip(bounds, [*bounds[1:], n], strict=True):
                drifts += 1
                hits = [a for a in alarms if start <= a < end]
                detected += bool(hits)
                early += bool(hits) and hits[0] - start <= 2
        assert f"| the synthetic streams | {name} | {drifts} | {detected} | {early} |" in table


def test_each_kswin_alpha_of_the_sweep_admits_another_smallest_statistic() -> None:
    # KSWIN tests 30 recent 0/1 errors against 30 older ones: its statistic is k/30 and the
    # p-value falls with k, so a threshold is which k it first admits (and D > 0.1, k >= 4)
    from scipy import stats

    from pudd_core.reproduction.delays import SWEEPS

    option, values, default = SWEEPS["kswin"]
    assert option == "alpha" and default in values
    p = {k: stats.ks_2samp([0] * 30, [1] * k + [0] * (30 - k), method="auto").pvalue
         for k in range(4, 31)}
    smallest = [min(k for k in p if p[k] <= alpha) for alpha in values]
    assert smallest == sorted(set(smallest)), smallest  # most alarms first, none the same


def test_kswins_alpha_reaches_the_detector(sine):
    many = replay_alarms(sine, Setting.of("kswin", 0.05))
    few = replay_alarms(sine, Setting.of("kswin", 1e-6))
    assert len(many) > len(few)
    assert Setting.of("kswin", 1e-4).label == "KSWIN (alpha=0.0001)"


def _script():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "delay_study.py"
    spec = importlib.util.spec_from_file_location("delay_study", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _file_runs(seeds, value, alarms):
    return pd.DataFrame([{"dataset": "sea0", "classifier": "gnb", "seed": s, "detector": "kswin",
                          "value": value, "row": "kswin", "default": True,
                          "alarms": alarms, "drift_chunks": "[10]", "n_chunks": 20, "run_s": 0.1}
                         for s in seeds])


def test_merge_keeps_the_old_runs_the_new_do_not_redo(tmp_path):
    script = _script()
    old = _file_runs([0, 1], 0.005, "[3]")
    new = _file_runs([1, 2], 0.005, "[11]")
    merged = script.merge_runs(old, new)
    assert merged[["seed", "alarms"]].values.tolist() == [[0, "[3]"], [1, "[11]"], [2, "[11]"]]
    other = _file_runs([0], 0.05, "[4]")  # another threshold is another run
    assert len(script.merge_runs(merged, other)) == 4
    # --merge: the files in order into OUT, as --add would have
    (tmp_path / "a.csv").write_text(new.to_csv(index=False))
    (tmp_path / "b.csv").write_text(other.to_csv(index=False))
    old.to_csv(tmp_path / "delays_runs.csv", index=False)
    assert script.main(["--merge", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"),
                        "--out", str(tmp_path)]) == 0
    back = read_runs(tmp_path / "delays_runs.csv")
    assert back[["seed", "value", "alarms"]].values.tolist() == [
        [0, 0.005, (3,)], [1, 0.005, (11,)], [2, 0.005, (11,)], [0, 0.05, (4,)]]

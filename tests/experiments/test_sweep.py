from __future__ import annotations

import numpy as np
import pandas as pd

from pudd_core.experiments.runner import RunConfig, run_experiment
from pudd_core.experiments.sweep import FalseAlarmStudy, false_alarm_study, threshold_sweep


def test_sweep_rows_equal_single_runs():
    base = RunConfig("sea0", "gnb", n_chunks=20)
    df = threshold_sweep(base, exponents=(2, 6), seeds=(0, 1))
    assert len(df) == 4
    row = df[(df.exponent == 2) & (df.seed == 1)].iloc[0]
    single = run_experiment(RunConfig("sea0", "gnb", "pudd", alpha=1e-2, seed=1, n_chunks=20))
    assert row.accuracy == single.accuracy and row.n_alarms == single.n_alarms


def test_rates_are_hand_computed_shares():
    study = FalseAlarmStudy(
        pd.DataFrame({"chunk": [1, 2, 2, 3], "cut": [1, 1, 2, 1],
                      "p_value": [0.5, 0.05, 0.2, 0.001]}),
        pd.DataFrame({"chunk": [1, 2, 3], "min_p": [0.5, 0.05, 0.001], "n_cuts": [1, 2, 1]}),
    )
    r = study.rates((1, 2)).set_index("exponent")
    assert r.loc[1, "per_test"] == 0.5 and r.loc[1, "per_chunk"] == 2 / 3
    assert r.loc[2, "per_test"] == 0.25 and r.loc[2, "per_chunk"] == 1 / 3
    assert np.isclose(r.loc[1, "bonferroni"], 0.1 * 4 / 3)


def test_stationary_stream_keeps_the_per_test_rate_near_alpha():
    study = false_alarm_study(n_chunks=60, seed=2)
    r = study.rates((1, 3)).set_index("exponent")
    assert r.loc[1, "per_test"] < 0.25 and r.loc[3, "per_chunk"] <= 0.05
    assert (study.chunk_p["min_p"] >= 0).all() and study.cut_p["cut"].min() == 1
    # the per-chunk minimum is never above any single cut test of that chunk
    merged = study.cut_p.merge(study.chunk_p, on="chunk")
    assert (merged["min_p"] <= merged["p_value"]).all()

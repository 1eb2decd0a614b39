"""The round trip: the runner's predictions exported, then monitored, give the runner's p-values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pudd_core import monitor
from pudd_core.experiments.export import detector_seed, export_predictions, write_log
from pudd_core.experiments.runner import RunConfig, run_experiment


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_without_an_alarm_every_chunk_p_value_is_the_runners(tmp_path, suffix):
    # train-once on sea0 (30 chunks): PUDD-3 never alarms, so the runner never adapts its
    # model and the exported (unadapted) predictions are the runner's on every chunk
    cfg = RunConfig("sea0", "gnb", "pudd", regime="train-once", n_chunks=30, seed=0)
    ran = run_experiment(cfg)
    assert ran.alarms == ()
    path = tmp_path / f"log{suffix}"
    write_log(export_predictions(cfg), path)
    res = monitor(path, label="label", proba_prefix="proba_", chunk_size=1000,
                  alpha=cfg.alpha, seed=detector_seed(cfg), variant="authors")
    # exact, chunk for chunk; where no test ran both say so, with the same reason: the
    # monitor's p is missing, the runner's exported log too (its ChunkLog keeps the
    # detector's conventional 1 beside the reason)
    assert [r.no_test for r in res.records] == [c.no_test for c in ran.chunks]
    assert any(c.no_test for c in ran.chunks[1:])  # the skip rule spared every cut somewhere
    exported = ran.to_frame()["p_value"].tolist()
    np.testing.assert_array_equal(res.p_values, exported)
    assert np.isnan(res.p_values[0]) and res.records[0].no_test
    assert list(res.accuracy) == [c.accuracy for c in ran.chunks]
    assert [c.cut_point for c in res.chunks] == [c.cut_point for c in ran.chunks]
    for mine, theirs in zip(res.chunks, ran.chunks, strict=True):  # spared cuts: NaN in both
        np.testing.assert_array_equal(np.array(mine.cut_p_values, dtype=float).reshape(-1, 2),
                                      np.array(theirs.cut_p_values, dtype=float).reshape(-1, 2))


def test_with_alarms_the_p_values_agree_up_to_the_first_adaptation():
    cfg = RunConfig("sea0", "gnb", "pudd", regime="incremental", n_chunks=30, seed=1)
    ran = run_experiment(cfg)
    assert ran.alarms, "this seed's run alarms; the test checks where adaptation starts"
    first = ran.alarms[0]  # the runner adapts before chunk first + 1
    res = monitor(export_predictions(cfg), label="label", proba_prefix="proba_",
                  chunk_size=1000, seed=detector_seed(cfg), variant="authors")
    upto = first  # runner chunks 1..first are log chunks 0..first - 1
    assert [1.0 if np.isnan(p) else p for p in res.p_values[:upto]] == [
        c.p_value for c in ran.chunks[:upto]]
    assert res.alarms[0] == first - 1
    after = [c.accuracy for c in ran.chunks[upto:]]
    assert list(res.accuracy[upto:]) != after  # the runner's retrained model differs


def test_the_log_is_one_row_per_tested_instance_with_probabilities_summing_to_one():
    cfg = RunConfig("sea0", "gnb", n_chunks=5, chunk_size=200, seed=2)
    log = export_predictions(cfg)
    assert len(log) == 4 * 200 and log["chunk"].tolist() == np.repeat([1, 2, 3, 4], 200).tolist()
    proba = log[["proba_0", "proba_1"]].to_numpy()
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert (log["ts"].diff().dropna() == pd.Timedelta(minutes=1)).all()
    again = export_predictions(cfg)
    pd.testing.assert_frame_equal(log, again)  # deterministic under the seed


def test_the_shipped_example_log_is_small_and_alarms_near_the_streams_drifts():
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "datasets" / "examples" / \
        "sea0_gnb_predictions.parquet"
    assert path.stat().st_size < 500_000
    res = monitor(path, label="label", proba_prefix="proba_", chunk_size=300)
    # sea0 drifts at runner chunks 20 and 40 = log chunks 19 and 39
    assert res.n_chunks == 49 and res.alarms == (19, 39)

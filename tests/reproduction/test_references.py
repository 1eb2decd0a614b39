"""The reference rows: one oracle row serves both adaptation policies, and the notes about the
oracle and the paper's MCD-DD numbers are the reports' own."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from pudd_core.experiments.runner import RunConfig, run_experiment
from pudd_core.paper import PUDD_DETECTORS, paper_table
from pudd_core.reproduction.findings import Reports, render
from pudd_core.reproduction.findings_more import feature_shift

RESULTS = Path(__file__).resolve().parents[2] / "results"


@pytest.mark.parametrize("regime", ["incremental", "train-once"])
def test_the_oracle_retrains_alike_under_both_adaptation_policies(regime):
    # the window since a true drift, at an alarm on the drift's first chunk, is that chunk
    runs = [run_experiment(RunConfig("sine", "gnb", "oracle", adaptation=a, regime=regime,
                                     seed=1, n_chunks=32)) for a in ("window", "chunk")]
    assert runs[0].alarms == runs[1].alarms == (10, 20, 30)
    assert [c.accuracy for c in runs[0].chunks] == [c.accuracy for c in runs[1].chunks]
    assert [c.adapted for c in runs[0].chunks] == [c.adapted for c in runs[1].chunks]


def test_the_oracle_note_counts_the_pudd_cells_above_it_a_second_way():
    reports = Reports(RESULTS)
    above = total = 0
    for attr in ("gnb100", "gnb", "vfdt", "dnn", "dnn_fixed", "table2"):
        cells = getattr(reports, attr).cells
        for row in cells[cells["detector"].isin(PUDD_DETECTORS)].itertuples():
            oracle = cells[(cells["detector"] == "oracle") & (cells["dataset"] == row.dataset)
                           & (cells["regime"] == row.regime)]["ours"]
            if len(oracle):
                total += 1
                above += round(row.ours, 2) > round(float(oracle.iloc[0]), 2)
    text = " ".join(render("oracle-policies", reports).split())
    assert f"{above} of the {total} PUDD cells beside an oracle are above it" in text
    assert above > 0  # the oracle is no upper bound on these reports


def test_the_mcdd_note_reads_the_papers_and_our_numbers():
    text = " ".join(render("mcdd-note", Reports(RESULTS)).split())
    paper = paper_table(2).set_index(["detector", "dataset"])["accuracy"]
    table2 = pd.read_csv(RESULTS / "table2_dnn-ensemble.csv")
    for d in ("mixed", "sine"):
        none = table2[(table2["detector"] == "none") & (table2["dataset"] == d)]["ours"].iloc[0]
        assert f"the paper's MCD-DD {paper[('mcd-dd', d)]:.2f}" in text
        assert f"never adapts {none:.2f} ({paper[('mcd-dd', d)] - none:+.2f})" in text
    assert "86.68" in text and "90.21" in text


def test_a_drift_of_the_features_is_seen_and_a_drift_of_the_labels_is_not():
    # sine and mixed change only the labelling: the features either side of a drift are
    # alike; a stream whose features move (the check's power) gives a small p
    assert feature_shift("sine") > 0.05 and feature_shift("mixed") > 0.05
    import numpy as np
    from scipy import stats

    rng = np.random.default_rng(0)
    moved = stats.ks_2samp(rng.uniform(0, 1, 1000), rng.uniform(0.2, 1.2, 1000)).pvalue
    assert moved < 1e-6

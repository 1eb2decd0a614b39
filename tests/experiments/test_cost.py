"""experiments.cost: run-time estimates scale with chunks, chunk size, classifier and detector."""

from __future__ import annotations

import pytest

from pudd_core.experiments.cost import (
    CHUNK_SECONDS,
    DETECTOR_CHUNK_SECONDS,
    run_seconds,
    runs_seconds,
)
from pudd_core.experiments.runner import RunConfig


def test_an_estimate_counts_the_tested_chunks_only():
    assert run_seconds(RunConfig("sea0", "vfdt", n_chunks=1)) == 0.0
    assert run_seconds(RunConfig("sea0", "vfdt", n_chunks=11)) == pytest.approx(
        10 * CHUNK_SECONDS["vfdt"])


def test_the_streams_default_length_and_chunk_size_are_used_when_unset():
    full = run_seconds(RunConfig("sea0", "gnb"))  # 100 chunks of 1000
    assert full == pytest.approx(99 * CHUNK_SECONDS["gnb"])
    assert run_seconds(RunConfig("sea0", "gnb", chunk_size=500)) == pytest.approx(full / 2)


def test_kswin_costs_more_than_the_other_detectors():
    ddm = run_seconds(RunConfig("sea0", "gnb", "ddm", n_chunks=11))
    kswin = run_seconds(RunConfig("sea0", "gnb", "kswin", n_chunks=11))
    # the detector's extra per tested chunk adds to the classifier's (bench_cost: about 10x)
    assert kswin == pytest.approx(ddm + 10 * DETECTOR_CHUNK_SECONDS["kswin"])
    assert kswin > 5 * ddm


def test_resnet18_is_the_slowest_and_estimates_add_up():
    assert max(CHUNK_SECONDS, key=CHUNK_SECONDS.__getitem__) == "resnet18"
    cfgs = [RunConfig("cifar10-cd", c, n_chunks=3) for c in ("small-cnn", "resnet18")]
    assert runs_seconds(cfgs) == pytest.approx(sum(run_seconds(c) for c in cfgs))

"""FastKSWIN gives river's KSWIN alarms and p-values, instance by instance."""

from __future__ import annotations

import numpy as np
import pytest
from river.drift import KSWIN

from pudd_core.experiments.baselines import BASELINES, make
from pudd_core.experiments.kswin import FastKSWIN


def trace(det, stream):
    out = []
    for x in stream:
        det.update(x)
        out.append((det.drift_detected, det.p_value))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_same_alarms_and_p_values_as_river_on_0_1_errors(seed):
    rng = np.random.default_rng(seed)
    rate = np.repeat(rng.uniform(0.02, 0.6, 6), 500)
    stream = (rng.random(rate.size) < rate).astype(int).tolist()
    ours, river = trace(FastKSWIN(seed=seed), stream), trace(KSWIN(seed=seed), stream)
    assert ours == river
    assert any(alarm for alarm, _ in river)


@pytest.mark.parametrize("options", [{}, {"alpha": 0.05, "window_size": 60, "stat_size": 20}])
def test_same_alarms_and_p_values_as_river_on_real_values(options):
    rng = np.random.default_rng(11)
    stream = np.concatenate([rng.normal(0, 1, 800), rng.normal(1.5, 1, 800)]).tolist()
    ours = trace(FastKSWIN(seed=3, **options), stream)
    assert ours == trace(KSWIN(seed=3, **options), stream)
    assert any(alarm for alarm, _ in ours)


def test_the_kswin_baseline_is_the_fast_one_and_keeps_river_options():
    assert BASELINES["kswin"].detector_class is FastKSWIN
    det = make("kswin", seed=5, alpha=0.01)
    assert isinstance(det, KSWIN) and (det.seed, det.alpha) == (5, 0.01)
    assert isinstance(det.clone(), FastKSWIN)

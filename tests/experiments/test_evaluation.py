from __future__ import annotations

import math

import pytest

from pudd_core.experiments.evaluation import match_alarms, mean_accuracy


def test_first_alarm_in_each_segment_detects_its_drift():
    s = match_alarms([3, 10, 11, 25], [10, 20], 30)
    assert s.detected == (10, 25) and s.delays == (0, 5)
    assert s.missed == 0 and s.false_alarms == 2  # 3 (before any drift) and 11 (second)


def test_a_drift_without_alarm_before_the_next_one_is_missed():
    s = match_alarms([22], [10, 20], 30)
    assert s.detected == (None, 22) and s.missed == 1 and s.delays == (2,)


def test_no_drifts_makes_every_alarm_false():
    s = match_alarms([1, 5], [], 10)
    assert s.detected == () and s.false_alarms == 2 and math.isnan(s.mean_delay)


def test_mean_accuracy_weighs_chunks_equally_and_needs_one_chunk():
    assert mean_accuracy([1.0, 0.5]) == 0.75
    with pytest.raises(ValueError, match="no tested chunk"):
        mean_accuracy([])

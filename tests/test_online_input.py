from __future__ import annotations

import numpy as np
import pytest

from pudd_core import PUDD


@pytest.mark.parametrize("correct", ["no", "True", 2, -1, 0.5, np.nan, np.int64(3), [True]])
def test_update_rejects_a_correct_flag_that_is_not_a_bool_or_0_or_1(correct):
    det = PUDD(cut_every=10, clock=5)
    det.update(0.1)
    with pytest.raises(ValueError, match="correct must be a bool"):
        det.update(0.2, correct=correct)
    assert det.n_seen == 1  # the rejected instance was not counted


@pytest.mark.parametrize(
    ("correct", "expected"),
    [(True, True), (False, False), (np.True_, True), (np.False_, False), (1, True), (0, False),
     (np.int64(1), True), (1.0, True), (0.0, False), (None, True)],
)
def test_update_accepts_bools_numpy_bools_and_0_or_1(correct, expected):
    # one block of 10 at u = 0.3: the block's accuracy is the flag's truth value
    det = PUDD(cut_every=10, clock=10)
    for _ in range(10):
        det.update(0.3, correct=correct)
    assert det.last_scan is not None
    assert det.last_scan.accuracy == (1.0 if expected else 0.0)


@pytest.mark.parametrize("x", [np.inf, -np.inf, np.nan, 1.5, -0.1])
def test_update_rejects_a_pu_index_outside_the_unit_interval(x):
    det = PUDD()
    with pytest.raises(ValueError, match=r"x must be a PU-index in \[0, 1\]"):
        det.update(x)
    assert det.n_seen == 0


@pytest.mark.parametrize("x", [True, False, np.True_])
def test_a_truth_value_as_the_pu_index_is_refused_not_read_as_1_or_0(x):
    # issue 32: update(True), a correctness flag in the PU-index's place, was u = 1.0
    from pudd_core._validation import ParameterError

    det = PUDD(cut_every=10, clock=5)
    with pytest.raises(ParameterError, match=r"x must be one number .*a truth value: give "
                                             r"whether the prediction was right as correct="):
        det.update(x)
    det.update(1)  # 0/1 errors as numbers stay accepted
    det.update(0, correct=True)
